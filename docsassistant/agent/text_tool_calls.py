"""Tool calls that arrive as text in a reply's `content` instead of `tool_calls`.

Real local models do this: llama3.1 writes `{"name": …, "parameters": …}`, sometimes after
`<|python_tag|>` (ollama #6127, #13519, #11185); qwen2.5 wraps the JSON in
`<tool_call>…</tool_call>`; others fence it in ```json. Ollama leaves such text in
`content`, so without this it would be shown to the user as the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```(?:json|tool_call|python)?\s*(.*?)```", re.DOTALL)
_MARKERS = ("<|python_tag|>", "<|eom_id|>", "<|eot_id|>", "<|im_end|>")
_DECODER = json.JSONDecoder()


class TextToolCalls(BaseModel):
    """What was recognised in a reply's text."""

    calls: list[dict[str, Any]] = []  # {"id", "name", "args"} for bound tools
    unknown_names: list[str] = []  # call-shaped objects naming a tool we do not offer

    @property
    def call_shaped(self) -> bool:
        """The text was a tool call (known tool or not): never show it as an answer."""
        return bool(self.calls or self.unknown_names)


def _json_spans(text: str) -> list[tuple[Any, int, int]]:
    """Every JSON object or array that starts somewhere in `text`, with its (start, end)."""
    spans: list[tuple[Any, int, int]] = []
    i = 0
    while (start := _next_bracket(text, i)) != -1:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            i = start + 1
            continue
        spans.append((value, start, end))
        i = end
    return spans


def _json_values(text: str) -> list[Any]:
    """Every JSON object or array that starts somewhere in `text` (prose around is skipped)."""
    return [value for value, _, _ in _json_spans(text)]


def _without_markers(text: str) -> str:
    """`text` with the chat-template markers models put around a call (`<|python_tag|>` …)."""
    for marker in _MARKERS:
        text = text.replace(marker, "\n")
    return text


def _next_bracket(text: str, start: int) -> int:
    positions = [p for p in (text.find("{", start), text.find("[", start)) if p != -1]
    return min(positions, default=-1)


def _call_shape(value: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) when `value` looks like one tool call, else None."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):  # OpenAI style {"type": "function", "function": {…}}
        value = value["function"]
    name = value.get("name")
    args = value.get("parameters", value.get("arguments", value.get("args")))
    if not isinstance(name, str) or args is None:
        return None
    if isinstance(args, str):  # arguments serialised twice
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    return (name, args) if isinstance(args, dict) else None


def parse_text_tool_calls(content: str, tool_names: set[str]) -> TextToolCalls:
    """Recognise tool calls written as text; only bound tools become calls."""
    text = _without_markers(content or "")
    if "{" not in text:
        return TextToolCalls()
    pieces = _TAGGED.findall(text) or _FENCED.findall(text) or [text]
    found = TextToolCalls()
    for piece in pieces:
        for value in _json_values(piece):
            for item in value if isinstance(value, list) else [value]:
                shape = _call_shape(item)
                if shape is None:
                    continue
                name, args = shape
                if name in tool_names:
                    found.calls.append({"id": f"text-call-{len(found.calls)}", "name": name, "args": args})
                else:
                    found.unknown_names.append(name)
    return found


def is_bare_tool_call(content: str, tool_names: set[str]) -> bool:
    """The reply is nothing but a call of one of `tool_names` written as text (JSON, tags,
    fences and markers, with at most two words around them). Generation offers no tools, yet
    a model may still answer with a search it wants: that is not an answer to show. An answer
    that quotes a tool call inside its prose is not bare."""
    if not parse_text_tool_calls(content, tool_names).calls:
        return False
    text = re.sub(r"</?tool_call>|```\w*", " ", _without_markers(content))
    kept, last = [], 0
    for _, start, end in _json_spans(text):
        kept.append(text[last:start])
        last = end
    kept.append(text[last:])
    return len(re.findall(r"[^\W\d_]{2,}", " ".join(kept))) <= 2
