"""Drawing a turn while it runs: the status box, the trace as it grows, the streamed draft.

A draft that opens like a tool call written as text, or a reasoning model's `<think>` block, is
not drawn as the answer (`StreamedDraft`); once the turn ends, `LiveTurn.finish` draws the
stored record the way `render` draws a restored one.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

from docsassistant.agent.calls import without_thinking
from docsassistant.agent.records import TurnRecord
from docsassistant.ui.render import render_answer, render_answer_footer
from docsassistant.ui.safe_text import plain_markdown, safe_markdown
from docsassistant.ui.trace_text import event_line, live_label, trace_label, trace_markdown

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
