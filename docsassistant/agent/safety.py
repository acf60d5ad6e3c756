"""Retrieved chunks are untrusted input: find text that addresses the model.

A documentation page may embed prompt-injection text (on purpose or by quoting an
agent framework's prompt). We flag such chunks and redact the offending lines before
any chunk text reaches a prompt, so it cannot steer the answer's format or content.
"""

from __future__ import annotations

import re

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "ignore-instructions",
        re.compile(
            r"\b(ignore|disregard|forget|override)\b[^\n]{0,40}\b(previous|prior|above|earlier|all|system)\b"
            r"[^\n]{0,30}\b(instructions?|prompts?|rules|messages?)",
            re.I,
        ),
    ),
    (
        "fake-role-turn",
        re.compile(
            r"^\s*(?:<\|?(?:im_start|start_header_id)\|?>\s*)?(system|assistant|developer)\s*[:>|]",
            re.I | re.M,
        ),
    ),
    ("chat-template-token", re.compile(r"<\|(?:im_start|im_end|eot_id|start_header_id|end_header_id)\|>")),
    (
        "tool-call-json",
        re.compile(r"[\"'](?:tool_calls?|function_call|command|commands)[\"']\s*:\s*[\[{]", re.I),
    ),
    (
        "response-format-directive",
        re.compile(
            r"\b(respond|reply|answer|output)\b[^\n]{0,30}\bonly\b[^\n]{0,40}\b(json|format|following)", re.I
        ),
    ),
    (
        "hidden-directive",
        re.compile(
            r"\b(you are now|act as|new instructions?|from now on|you must (?:now )?(?:reply|respond|answer|call))\b",
            re.I,
        ),
    ),
    ("html-comment-directive", re.compile(r"<!--[^>]{0,200}\b(assistant|model|AI|LLM|instruction)\b", re.I)),
]

REDACTED = "[text addressed to an AI model removed]"


def scan_for_injection(text: str) -> list[str]:
    """Names of the injection patterns found in `text` (empty when clean)."""
    return [name for name, pattern in _PATTERNS if pattern.search(text)]


def redact_injection(text: str) -> str:
    """Replace the text that matches an injection pattern, with what belongs to it.

    A matching line goes, and so do the JSON-looking lines next to it (the response
    template an agent prompt spells out over several lines, e.g. `"thoughts": {...}`);
    a fenced code block with a matching line goes whole (it is a prompt template).
    Runs of removed lines collapse into one marker.
    """
    lines = text.splitlines()
    drop = [bool(scan_for_injection(line)) for line in lines]
    for start, end in _fenced_blocks(lines):
        if any(drop[start:end]):
            drop[start:end] = [True] * (end - start)
    _spread_to_json_lines(lines, drop)
    out: list[str] = []
    for line, dropped in zip(lines, drop, strict=True):
        if not dropped:
            out.append(line)
            continue
        while out and out[-1] != REDACTED and not out[-1].strip() and _last_content(out) == REDACTED:
            out.pop()  # blank lines between two removed parts
        if not out or out[-1] != REDACTED:
            out.append(REDACTED)
    return "\n".join(out)


_FENCE = re.compile(r"^\s*(```|~~~)")
_JSONISH = re.compile(r"^\s*(?:[{}\[\]]|\"[^\"\n]*\"\s*:)")


def _fenced_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges of terminated fenced code blocks, fences included."""
    blocks: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match:
            close = next(
                (j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(match.group(1))), None
            )
            if close is None:
                break  # unterminated (the chunk ends mid-block): line rules only
            blocks.append((i, close + 1))
            i = close
        i += 1
    return blocks


def _spread_to_json_lines(lines: list[str], drop: list[bool]) -> None:
    """Also drop JSON-looking lines adjacent (blank lines aside) to a dropped line."""
    for order in (range(len(lines)), range(len(lines) - 1, -1, -1)):
        near_dropped = False
        for i in order:
            if drop[i]:
                near_dropped = True
            elif not lines[i].strip():
                continue
            elif near_dropped and _JSONISH.match(lines[i]):
                drop[i] = True
            else:
                near_dropped = False


def _last_content(out: list[str]) -> str | None:
    return next((line for line in reversed(out) if line.strip()), None)
