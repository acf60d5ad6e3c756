"""Rendering a turn: the trace, the answer, its flags and citations.

The same helpers draw a turn live (events as they arrive) and from a stored
`TurnRecord` (`load_turns`, share snapshots), so a restored conversation looks like the
live one. Records are read like mappings (`record.get("trace")`), so the helpers take
the record's parts (trace events, hits, flags) as they come.
Visible labels ("Grounded", "Unsupported claims", "Suspected injection", ...) are stable:
tests look for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from docsassistant.agent.records import Flag, Hit, TurnRecord
from docsassistant.ui.graph_view import render_graph_hops
from docsassistant.ui.labels import FLAG_ORDER, FLAG_STYLE
from docsassistant.ui.safe_text import esc, plain_markdown, safe_markdown
from docsassistant.ui.trace_text import quoted, trace_label, trace_markdown, where

# Every model or user text drawn here goes through safe_text: answers `safe_markdown`,
# questions `plain_markdown`, short values `esc`/`quoted`/`code_span`.


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
