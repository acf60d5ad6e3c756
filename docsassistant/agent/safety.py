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
    """Replace every line that matches an injection pattern (collapsing runs of them)."""
    out: list[str] = []
    for line in text.splitlines():
        if scan_for_injection(line):
            if not out or out[-1] != REDACTED:
                out.append(REDACTED)
        else:
            out.append(line)
    return "\n".join(out)
