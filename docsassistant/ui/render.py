"""Rendering a turn: the trace, the answer, its flags and citations.

The same helpers draw a turn live (events as they arrive) and from a stored
`TurnRecord` (`load_turns`, share snapshots), so a restored conversation looks like the
live one. Records are read like mappings (`record.get("trace")`), so the helpers take
the record's parts (trace events, hits, flags) as they come.
Visible labels ("Grounded", "Unsupported claims", "Suspected injection", ...) are stable:
tests look for them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import streamlit as st

from docsassistant.agent.calls import without_thinking
from docsassistant.agent.records import Flag, Hit, TraceEvent, TurnRecord
from docsassistant.ui.graph_view import render_graph_hops
from docsassistant.ui.safe_text import code_span, esc, plain_markdown, safe_markdown

# Every model or user text drawn here goes through safe_text: answers `safe_markdown`,
# questions `plain_markdown`, short values `esc`/`quoted`/`code_span`.
# kind -> (label, badge color, material icon)
FLAG_STYLE: dict[str, tuple[str, str, str]] = {
    "grounded": ("Grounded", "green", ":material/check:"),
    "injection_obeyed": ("Obeyed injected text", "red", ":material/dangerous:"),
    "unsupported_claims": ("Unsupported claims", "red", ":material/error:"),
    "citation_mismatch": ("Claims rest on uncited sources", "red", ":material/error:"),
    "unchecked_sentences": ("Unchecked sentences", "red", ":material/error:"),
    "off_question": ("Answers a neighbouring term", "red", ":material/alt_route:"),
    "uncited": ("Uncited", "red", ":material/link_off:"),
    "empty_answer": ("Empty answer", "red", ":material/block:"),
    "not_from_documentation": ("Not from the documentation", "orange", ":material/help:"),
    "injection_suspected": ("Suspected injection", "orange", ":material/gpp_maybe:"),
    "budget_reached": ("Budget reached", "orange", ":material/timer_off:"),
    "prompt_truncated": ("Prompt truncated", "orange", ":material/content_cut:"),
    "answer_truncated": ("Answer cut off", "orange", ":material/content_cut:"),
    "search_failed": ("Documentation not searched", "orange", ":material/search_off:"),
    "no_relevant_docs": ("No relevant documentation", "gray", ":material/search_off:"),
    "bogus_citation": ("Bogus citation removed", "yellow", ":material/link_off:"),
    "verification_empty": ("Nothing verified", "gray", ":material/help:"),
    "verification_unreadable": ("Verification unreadable", "gray", ":material/help:"),
    "not_verified": ("Not verified", "gray", ":material/help:"),
    "partial_evidence": ("Partial evidence", "yellow", ":material/contrast:"),
}
FLAG_ORDER = list(FLAG_STYLE)

NODE_LABELS = {
    "decide": "Deciding what to look up…",
    "retrieve": "Searching the documentation…",
    "grade": "Grading the results…",
    "rewrite": "Rewriting the query…",
    "generate": "Writing the answer…",
    "verify": "Checking the answer against the sources…",
    "run_sql": "Counting chunks…",
    "no_answer": "Nothing relevant found…",
    "finalize": "Finishing…",
}


def quoted(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return f"“{esc(flat)}”"


def where(source_path: str, section: str | None) -> str:
    return f"{source_path} › {section}" if section else source_path


# ----------------------------------------------------------------------------- trace


# The tool's own parameter order. A restored trace comes back from jsonb with its keys
# re-ordered, so the live and the reloaded trace would otherwise list them differently.
ARG_ORDER = ("query", "component", "k")


def arg_position(item: tuple[str, Any]) -> tuple[int, str]:
    name = item[0]
    return (ARG_ORDER.index(name) if name in ARG_ORDER else len(ARG_ORDER), name)


RANK_LABELS = {"dense": "dense", "bm25": "BM25", "ident": "identifiers", "graph": "graph"}


def list_ranks(ranks: dict[str, int] | None) -> str:
    """` (dense #1, BM25 #27)`: the lists that found a hit, so a fused score reads as a
    combination of places, not as a relevance grade ("" for traces stored before ranks)."""
    if not ranks:
        return ""
    return " (" + ", ".join(f"{RANK_LABELS.get(k, k)} #{v}" for k, v in ranks.items()) + ")"


def event_line(evt: TraceEvent | dict[str, Any]) -> str | None:
    """One trace event as a markdown list item (None for events not listed on their own)."""
    kind = evt.get("type")
    if kind == "tool_call":
        args = evt.get("args") or {}
        shown = [
            f"{esc(k)}: {quoted(v) if k == 'query' else code_span(v)}"
            for k, v in sorted(args.items(), key=arg_position)
            if v is not None
        ]
        # The tool's name and arguments are the model's words: code spans that can't end early.
        return f"- :material/build: **{code_span(evt.get('tool', 'tool'))}** · " + " · ".join(
            shown or ["no arguments"]
        )
    if kind == "tool_result":
        if "hits" in evt:
            hits = evt.get("hits") or []
            head = f"- :material/subdirectory_arrow_right: {len(hits) or 'no'} hit{'s' * (len(hits) != 1)}"
            rows = [
                f"    {i}. {esc(where(h.get('source_path', '?'), h.get('section')))} "
                f":gray[· score {h.get('score', 0):.4f}{list_ranks(h.get('ranks'))}]"
                for i, h in enumerate(hits, 1)
            ]
            return "\n".join([head, *rows])
        return f"- :material/subdirectory_arrow_right: result: {code_span(evt.get('result'))}"
    if kind == "graph_hop":
        seeds = ", ".join(code_span(e) for e in (evt.get("entities") or [])[:8]) or "none"
        return f"- :material/hub: graph hop {evt.get('hop', '')} from entities {seeds}"
    if kind == "grade":
        enough = " — enough to answer" if evt.get("sufficient") else ""
        return f"- :material/rule: graded **{evt.get('relevant', 0)}/{evt.get('total', 0)}** relevant{enough}"
    if kind == "rewrite":
        verdict = "" if evt.get("accepted", True) else " (not used: no progress)"
        return f"- :material/edit: rewrote the query {quoted(evt.get('old', ''))} → {quoted(evt.get('new', ''))}{verdict}"
    if kind == "answer":
        cites = ", ".join(f"\\[{n}\\]" for n in evt.get("citations") or []) or "no sources"
        again = " (regenerated without unsupported claims)" if evt.get("regenerated") else ""
        return f"- :material/edit_note: drafted the answer: {evt.get('chars', 0)} characters, cites {cites}{again}"
    if kind == "verification":
        claims = evt.get("claims") or []
        supported = sum(1 for c in claims if c.get("supported"))
        status = evt.get("status", "")
        if status == "regenerating":
            return f"- :material/autorenew: {len(claims) - supported} claim(s) unsupported: regenerating without them"
        return f"- :material/fact_check: verification: **{esc(status)}** ({supported}/{len(claims)} claims supported)"
    if kind == "flag":
        label, color, icon = FLAG_STYLE.get(
            evt.get("kind", ""), (evt.get("kind", "flag"), "gray", ":material/flag:")
        )
        return f"- :{color}-badge[{icon} {label}] {esc(evt.get('message', ''))}"
    if kind == "decision":
        return decision_line(evt)
    if kind == "budget_stop":
        return f"- :material/timer_off: **budget stop** · {esc(evt.get('reason', ''))}"
    if kind == "error":
        return f"- :material/warning: :orange[{esc(evt.get('message', ''))}]"
    return None


# Why a standalone rewrite was set aside, as the trace's decision records it.
_SET_ASIDE = {
    "echoed": "it only repeated the message",
    "answered": "it answered instead of asking",
    "invented_subject": "it named something nobody mentioned",
    "misread_pick": "it picked another item of the list",
}


def decision_line(evt: TraceEvent | dict[str, Any]) -> str | None:
    """A decision the agent took on its own (the model's words in it are quoted, escaped)."""
    what = evt.get("kind")
    if what == "standalone_question":
        if evt.get("standalone") == evt.get("question"):
            return None
        why = [text for key, text in _SET_ASIDE.items() if evt.get(key)]
        aside = f" (the model's rewrite was set aside: {'; '.join(why)})" if why else ""
        return f"- :material/forum: read the follow-up as {quoted(evt.get('standalone', ''))}{aside}"
    if what == "text_tool_call":
        calls = ", ".join(code_span(c) for c in evt.get("calls") or [])
        return f"- :material/data_object: the model wrote its tool call as text; ran {calls}"
    if what == "search_before_answering":
        return f"- :material/search: the model replied without evidence ({esc(evt.get('reason', ''))}): searching first"
    if what in _NOTED:
        icon, label = _NOTED[what]
        return f"- {icon} {label}: {esc(evt.get('reason', ''))}"
    return None


# Decisions shown with their recorded reason: kind -> (icon, label).
_NOTED = {
    "declined": (":material/block:", "declined"),
    "word_checks_skipped": (":material/translate:", "word checks skipped"),
    "model_call_retried": (":material/replay:", "model call retried"),
}


def timings_line(trace: Sequence[TraceEvent | dict[str, Any]]) -> str:
    """Node timings in order: `decide 12 ms → retrieve 58 ms → …`."""
    steps = [f"{esc(e.get('node', '?'))} {e.get('ms', 0):g} ms" for e in trace if e.get("type") == "node_end"]
    return f":gray[:material/timer: {' → '.join(steps)}]" if steps else ""


def trace_markdown(trace: Sequence[TraceEvent | dict[str, Any]]) -> str:
    """The whole trace as one compact markdown block (live and restored views alike)."""
    lines = [line for e in trace if (line := event_line(e))]
    body = "\n".join(lines)
    timings = timings_line(trace)
    return "\n\n".join(part for part in (body, timings) if part) or "No trace was recorded for this turn."


def live_label(evt: dict[str, Any]) -> str | None:
    """The status box label while a turn runs."""
    kind = evt.get("type")
    if kind == "node_start":
        return NODE_LABELS.get(evt.get("node", ""))
    if kind == "tool_call" and evt.get("tool") == "search_docs":
        # A status label is markdown that shows images: the model's query is escaped.
        return f"Searching: {quoted((evt.get('args') or {}).get('query', ''), 80)}"
    return None


def trace_label(record: TurnRecord) -> str:
    trace = record.get("trace") or []
    searches = sum(1 for e in trace if e.get("type") == "tool_call")
    parts = [f"{searches} tool call{'s' * (searches != 1)}"]
    if record.get("model_calls"):
        parts.append(f"{record['model_calls']} model calls")
    if record.get("duration_ms") is not None:
        parts.append(f"{record['duration_ms'] / 1000:.1f} s")
    return "Trace · " + " · ".join(parts)


def render_trace(record: TurnRecord) -> None:
    """The stored trace, collapsed, in the same box the live view uses."""
    with st.status(trace_label(record), state="complete", expanded=False):
        st.markdown(trace_markdown(record.get("trace") or []))


# ----------------------------------------------------------------------------- flags


def grouped_flags(flags: Sequence[Flag]) -> list[tuple[str, list[Flag]]]:
    """Flags grouped by kind, in a fixed order (unknown kinds last)."""
    groups: dict[str, list[Flag]] = {}
    for f in flags:
        groups.setdefault(f.get("kind", "flag"), []).append(f)
    order = {k: i for i, k in enumerate(FLAG_ORDER)}
    return sorted(groups.items(), key=lambda item: order.get(item[0], len(order)))


def render_flags(record: TurnRecord) -> None:
    """Badges at a glance, then what each non-grounded flag is about."""
    groups = grouped_flags(record.get("flags") or [])
    if not groups:
        return
    badges = []
    for kind, _ in groups:
        label, color, icon = FLAG_STYLE.get(
            kind, (kind.replace("_", " ").capitalize(), "gray", ":material/flag:")
        )
        badges.append(f":{color}-badge[{icon} {label}]")
    st.markdown(" ".join(badges))
    details: list[str] = []
    for kind, items in groups:
        if kind == "grounded":
            continue
        for message in dict.fromkeys(f.get("message", "") for f in items):
            if message:
                details.append(f"- {esc(message)}")
        if kind == "unsupported_claims":
            claims = [c for f in items for c in f.get("claims") or []]
            details += [f"    - {quoted(c, 300)}" for c in dict.fromkeys(claims)]
    if details:
        st.markdown("\n".join(details))


# ----------------------------------------------------------------------------- citations


def render_chunk(source: Hit | dict[str, Any]) -> None:
    """The cited chunk: where it comes from, its score and its text."""
    meta = [f"component `{source.get('component') or '?'}`"]
    if source.get("score") is not None:
        meta.append(f"score {float(source['score']):.4f}")
    if source.get("title"):
        meta.append(f"title {quoted(source['title'])}")
    meta.append(f"chunk {source.get('chunk_id')}")
    st.caption(" · ".join(meta))
    if source.get("suspicious"):
        reasons = source["suspicious"]
        reasons = ", ".join(reasons) if isinstance(reasons, list) else str(reasons)
        st.warning(
            f"Suspected injection: this passage contains text addressed to an AI model ({reasons}). "
            "It was redacted from what the model saw.",
            icon=":material/gpp_maybe:",
        )
    st.text(source.get("content", ""))


def citation_label(source: Hit | dict[str, Any]) -> str:
    """`[n] path › section`: expander labels are markdown, so the path and section are escaped."""
    return f"[{source.get('n')}] {esc(where(source.get('source_path', '?'), source.get('section')))}"


def render_citations(record: TurnRecord) -> None:
    citations = record.get("citations") or []
    if citations:
        st.markdown("**Sources**")
        for source in citations:
            with st.expander(citation_label(source), icon=":material/description:"):
                render_chunk(source)
    cited = {c.get("n") for c in citations}
    others = [s for s in record.get("sources") or [] if s.get("n") not in cited]
    if others:
        listed = ", ".join(f"\\[{s.get('n')}\\] {esc(s.get('source_path', '?'))}" for s in others)
        st.caption(f"Also retrieved, not cited: {listed}")


def render_stats(record: TurnRecord) -> None:
    parts = []
    if record.get("component"):
        parts.append(f"component `{record['component']}`")
    if record.get("model_calls"):
        parts.append(f"{record['model_calls']} model calls")
    if record.get("prompt_tokens"):
        parts.append(f"{record['prompt_tokens']} prompt tokens")
    if record.get("duration_ms") is not None:
        parts.append(f"{record['duration_ms'] / 1000:.1f} s")
    if parts:
        st.caption(" · ".join(parts))


def render_answer_footer(record: TurnRecord) -> None:
    """Everything under the answer text."""
    render_flags(record)
    render_citations(record)
    render_stats(record)


def render_answer(record: TurnRecord) -> None:
    """The answer text; a failed turn shows what failed and what to do instead."""
    if record.status == "failed":
        st.error(
            safe_markdown(record.answer or f"The turn failed: {record.stop_reason}"), icon=":material/error:"
        )
    elif record.status == "running":
        st.info(
            "This question is still being answered. Reload the page to see its answer.",
            icon=":material/hourglass:",
        )
    else:
        st.markdown(safe_markdown(record.answer) if record.answer else "_(no answer)_")


def render_turn(record: TurnRecord) -> None:
    """A stored turn from its record (nothing is re-run)."""
    with st.chat_message("user"):
        st.markdown(plain_markdown(record.question))
    with st.chat_message("assistant"):
        render_trace(record)
        render_answer(record)
        render_answer_footer(record)
        render_graph_hops(record)


# ----------------------------------------------------------------------------- no model


def render_search_results(
    question: str, hits: list[dict[str, Any]], message: str, unavailable: str | None = None
) -> None:
    """What we can still show without a model: the most relevant passages.

    `unavailable` (the ModelUnavailable message) is shown in the answer unless the page
    already shows it.
    """
    with st.chat_message("user"):
        st.markdown(plain_markdown(question))
    with st.chat_message("assistant", avatar=":material/search:"):
        st.markdown("#### Search results (no model available)")
        if unavailable:
            st.error(unavailable, icon=":material/power_off:")
        st.caption(
            "The chat model is unavailable, so these passages were found by search alone; "
            "nothing here was written or checked by a model."
        )
        if not hits:
            st.info(message or "No passages matched.", icon=":material/search_off:")
        for i, hit in enumerate(hits, 1):
            with st.expander(citation_label({**hit, "n": i}), icon=":material/description:", expanded=i == 1):
                render_chunk(hit)


# ----------------------------------------------------------------------------- live


# A draft that opens like this is a tool call written as text (JSON, `<|python_tag|>`,
# `<tool_call>`, `<function=…>`, a fence), not an answer: it is not drawn while it streams.
_CALL_SHAPED = ("{", "<|", "<tool_call", "<function", "```json", "[{")
# A `</think>` still arriving token by token at the end of the draft ("…\n</th").
_CLOSING_TAG_ARRIVING = re.compile(r"[ \t]*<(?:/(?:t(?:h(?:i(?:n(?:k)?)?)?)?)?)?$")
# Over a draft that may still be reasoning (see StreamedDraft.is_answer).
DRAFT_NOTE = (
    ":material/psychology: Draft, shown as it streams: it may still turn out to be the "
    "model's reasoning, which is not part of the answer."
)


def visible_answer(streamed: str) -> str:
    """What the reader sees of an answer still streaming: a thinking model's reasoning is
    cut as in the finished reply, and so is a `<think>` or `</think>` tag still arriving
    token by token; call-shaped text is not shown. (Reasoning that has no opening tag can
    only be told apart once its `</think>` arrives: until then `StreamedDraft.is_answer`
    is False.)"""
    if "<think>".startswith(streamed.strip()):
        return ""
    text = without_thinking(streamed) if "think>" in streamed else streamed
    text = _CLOSING_TAG_ARRIVING.sub("", text)
    return "" if text.lstrip().startswith(_CALL_SHAPED) else text


def reasoning_closed(streamed: str) -> bool:
    """Whether a `</think>` ended reasoning at the start of the draft (what follows it is
    the answer); a `</think>` the answer only talks about does not count."""
    return "</think>" in streamed and without_thinking(streamed) != streamed


class StreamedDraft:
    """The answer text of a running turn, fed its events: a new generate step or a new
    model call (a regeneration asking for citations) starts the draft over, so two drafts
    are never drawn glued together.

    Some models stream their reasoning with no opening `<think>` (their template wrote
    it), so any draft may be reasoning until a `</think>` arrives: `is_answer` says when
    the text can be drawn as the answer (a `</think>` closed the reasoning, or the reply
    ended without one, its generate step done)."""

    def __init__(self, may_think: bool = True) -> None:
        self.text = ""
        self.call: str | None = None
        self.ended = False
        self.may_think = may_think  # False: the model has no reasoning to hide (`model_may_think`)

    def add(self, evt: dict[str, Any]) -> str:
        """The text to draw after `evt` (a `token`, `node_start` or `node_end` event)."""
        if evt.get("type") == "node_start" and evt.get("node") == "generate":
            self.text, self.call, self.ended = "", None, False
        elif evt.get("type") == "node_end" and evt.get("node") == "generate":
            self.ended = True
        elif evt.get("type") == "token":
            if evt.get("call") != self.call:
                self.text, self.call, self.ended = "", evt.get("call"), False
            self.text += evt.get("text", "")
        return visible_answer(self.text)

    @property
    def is_answer(self) -> bool:
        return not self.may_think or self.ended or reasoning_closed(self.text)


class LiveTurn:
    """Draws a running turn: the trace box fills as events arrive, then the answer streams."""

    def __init__(self, may_think: bool = True) -> None:
        self.status = st.status("Thinking…", expanded=True)
        self._label("Thinking…")
        with self.status:
            self.trace_box = st.empty()
        self.trace: list[dict[str, Any]] = []
        self.answer_box = st.empty()
        self.draft = StreamedDraft(may_think)
        self.record: TurnRecord | None = None
        self.thread_id: str | None = None

    def on_event(self, evt: dict[str, Any]) -> None:
        kind = evt.get("type")
        shown = self.draft.add(evt)
        if kind == "token":
            if not shown:
                self.answer_box.caption("Writing the answer…")
            elif self.draft.is_answer:
                self.answer_box.markdown(safe_markdown(shown) + " ▌")
            else:  # may still be reasoning: drawn as a draft, never as the answer
                with self.answer_box.container():
                    st.caption(DRAFT_NOTE)
                    st.caption(safe_markdown(shown) + " ▌")
            return
        if kind == "node_end" and evt.get("node") == "generate" and shown:
            # The reply ended: no `</think>` came, so all of it is the answer (being checked).
            self.answer_box.markdown(safe_markdown(shown))
        if kind == "turn_complete":
            self.finish(evt["record"], evt.get("thread_id"))
            return
        if kind == "node_start" and evt.get("node") == "generate":
            self.answer_box.empty()  # a new draft (after a retry round)
        if label := live_label(evt):
            self._label(label)
        self.trace.append(evt)
        if event_line(evt) or kind == "node_end":
            self.trace_box.markdown(trace_markdown(self.trace))

    def _label(self, label: str) -> None:
        # Streamlit 1.67 collapses a status whose update() leaves `expanded` out, and draws a
        # new one with a check mark until its state is sent again: always send both.
        self.status.update(label=label, expanded=True, state="running")

    def finish(self, record: TurnRecord, thread_id: str | None) -> None:
        self.record, self.thread_id = record, thread_id
        self.trace_box.markdown(trace_markdown(record.trace or self.trace))
        failed = record.status == "failed"
        self.status.update(label=trace_label(record), state="error" if failed else "complete", expanded=False)
        with self.answer_box.container():
            render_answer(record)
        render_answer_footer(record)

    def fail(self, message: str) -> None:
        self.status.update(label="The turn failed", state="error", expanded=True)
        self.answer_box.error(plain_markdown(message), icon=":material/error:")
