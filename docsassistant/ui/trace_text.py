"""The trace as text: one line per event, the live status label and the stored trace's title.

Pure functions over `TraceEvent`s (no Streamlit), shared by the live view (`live.LiveTurn`)
and a restored turn (`render.render_trace`). Tool arguments and queries are model text, so
they are escaped (`safe_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docsassistant.agent.records import TraceEvent, TurnRecord
from docsassistant.ui.labels import FLAG_STYLE, NODE_LABELS
from docsassistant.ui.safe_text import code_span, esc


def quoted(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return f"“{esc(flat)}”"


def where(source_path: str, section: str | None) -> str:
    return f"{source_path} › {section}" if section else source_path


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
