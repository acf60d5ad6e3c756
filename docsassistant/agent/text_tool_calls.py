"""Tool calls that arrive as text in a reply's `content` instead of `tool_calls`.

Real local models do this: llama3.1 writes `{"name": …, "parameters": …}`, sometimes after
`<|python_tag|>` (ollama #6127, #13519, #11185), or its custom-tool form
`<function=name>{…}</function>` (mudler/LocalAI#3010); qwen2.5 wraps the JSON in
`<tool_call>…</tool_call>`, qwen3-coder writes `<function=name><parameter=k>v</parameter>`
(ggml-org/llama.cpp#15012); llama3.2 writes Python calls, `[name(k="v")]` (ollama #7824),
also after a sentence (vllm#22917); others fence the JSON in ```json. Ollama leaves such
text in `content`, so without this it would be shown to the user as the answer.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from pydantic import BaseModel

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```(?:json|tool_call|python)?\s*(.*?)```", re.DOTALL)
_MARKERS = ("<|python_tag|>", "<|eom_id|>", "<|eot_id|>", "<|im_end|>")
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>(.*?)(?:</function>|$)", re.DOTALL)
_PARAMETER_TAG = re.compile(r"<parameter=([\w.-]+)>\s*(.*?)\s*</parameter>", re.DOTALL)
_DECODER = json.JSONDecoder()
# (name, arguments, start, end): a call found in the text, and where.
Found = tuple[str, dict[str, Any], int, int]


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


def _function_tags(text: str) -> list[Found]:
    """`<function=name>{json}</function>` and `<function=name><parameter=k>v</parameter>…`."""
    found: list[Found] = []
    for match in _FUNCTION_TAG.finditer(text):
        body = match.group(2).strip()
        if body.startswith("{"):
            try:
                args = _DECODER.raw_decode(body)[0]
            except json.JSONDecodeError:
                continue
        else:
            args = dict(_PARAMETER_TAG.findall(body))
        if isinstance(args, dict):
            found.append((match.group(1), args, match.start(), match.end()))
    return found


def _python_call(source: str, tool_names: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """`name(k=v, …)`, `name.call(…)` or a list of them, when every name is a bound tool and
    every argument a keyword with a literal value (anything else is code, not a call)."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return []
    calls = []
    for item in node.elts if isinstance(node, ast.List | ast.Tuple) else [node]:
        if not isinstance(item, ast.Call) or item.args:
            return []
        func = (
            item.func.value
            if isinstance(item.func, ast.Attribute) and item.func.attr == "call"
            else item.func
        )
        if not isinstance(func, ast.Name) or func.id not in tool_names:
            return []
        try:
            calls.append((func.id, {kw.arg: ast.literal_eval(kw.value) for kw in item.keywords if kw.arg}))
        except ValueError:
            return []
    return calls


def _python_calls(text: str, tool_names: set[str]) -> list[Found]:
    """Python-style calls: the whole text, or a line that is nothing else."""
    if whole := _python_call(text.strip(), tool_names):
        return [(name, args, 0, len(text)) for name, args in whole]
    found: list[Found] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        if "(" in line:
            found += [
                (name, args, offset, offset + len(line))
                for name, args in _python_call(line.strip().rstrip(";"), tool_names)
            ]
        offset += len(line)
    return found


def _non_json_calls(text: str, tool_names: set[str]) -> list[Found]:
    return _function_tags(text) or _python_calls(text, tool_names)


def parse_text_tool_calls(content: str, tool_names: set[str]) -> TextToolCalls:
    """Recognise tool calls written as text; only bound tools become calls."""
    text = _without_markers(content or "")
    found = TextToolCalls()
    for name, args, _, _ in _non_json_calls(text, tool_names):
        if name in tool_names:
            found.calls.append({"id": f"text-call-{len(found.calls)}", "name": name, "args": args})
        else:
            found.unknown_names.append(name)
    if found.call_shaped or "{" not in text:
        return found
    pieces = _TAGGED.findall(text) or _FENCED.findall(text) or [text]
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
    text = _without_markers(content)
    for _, _, start, end in sorted(_non_json_calls(text, tool_names), key=lambda f: -f[2]):
        text = text[:start] + " " + text[end:]
    text = re.sub(r"</?tool_call>|```\w*", " ", text)
    kept, last = [], 0
    for _, start, end in _json_spans(text):
        kept.append(text[last:start])
        last = end
    kept.append(text[last:])
    return len(re.findall(r"[^\W\d_]{2,}", " ".join(kept))) <= 2


def without_tool_calls(content: str, tool_names: set[str]) -> str:
    """`content` without the JSON calls of `tool_names` written into its prose (and their
    `<|python_tag|>` / `<tool_call>` wrappers): "Let me check: {"name": "search_docs", …}
    The client retries … [1]." keeps only its answer. Code fences are left as they are."""
    if not parse_text_tool_calls(content, tool_names).calls:
        return content
    parts = re.split(r"(```.*?```)", content, flags=re.DOTALL)
    for i in range(0, len(parts), 2):  # the text outside fences
        text = re.sub(r"</?tool_call>", " ", _without_markers(parts[i]))
        for value, start, end in sorted(_json_spans(text), key=lambda s: -s[1]):
            shape = _call_shape(value)
            if shape and shape[0] in tool_names:
                text = text[:start] + text[end:]
        parts[i] = text
    return re.sub(r"[ \t]+\n|\n{3,}", "\n", "".join(parts)).strip()
