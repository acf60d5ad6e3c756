"""A documented setting given a value in the answer's code that no cited source gives it.

Code blocks are exempt from the figure check (a command or an example carries numbers of its
own), so `listen_port: 5762` in a YAML block for the page's `listen_port: 5672` passed as
grounded (QA round 13 w01). Here a `key: value` / `key = value` line of the answer's code is
held to the sources when they give the key a value, and a number set in such a line always:
the answer's value must then appear in them too (or in the user's words, who may have asked
for it). Part of condition 5 (docs/flags.md).
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.figures import FENCED_CODE, figure_key

# One setting per line: `key: value`, `key = value`, `"key": value,`, `- key: value`, `export KEY=value`.
_ASSIGNMENT = re.compile(
    r"^[ \t]*(?:-[ \t]+|export[ \t]+|set[ \t]+)?[\"']?(?P<key>[A-Za-z_][\w.-]*[A-Za-z0-9_])[\"']?[ \t]*[:=][ \t]*"
    r"(?P<value>\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|[^\s#,;{}\[\]\"']{1,80})[ \t]*[,;]?[ \t]*(?:#.*|//.*)?$",
    re.M,
)
# Values that stand for the reader's own (a placeholder, a variable), not a documented default.
_PLACEHOLDER = re.compile(r"[<>$]|\{\{|your|example|changeme|xxx|\.\.\.|…|^\*+$", re.I)
_NUMBER = re.compile(r"^[+-]?\d+(?:[.,]\d+)*$")
# Keys that name or describe what the example defines: their value is the writer's own
# (`name: sync-orders` for the page's `name: nightly-report`, QA round 15 r06), a number aside.
_OWN_NAME_KEYS = frozenset({"name", "id", "title", "description", "label", "display_name", "alias"})


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[\w.:/@+-]+", text)} | {
        w.lower() for w in re.findall(r"\w+", text)
    }


def _backs(value: str, words: set[str], numbers: set[str]) -> bool:
    if _NUMBER.match(value):
        return figure_key(value) in numbers
    return value.lower() in words or all(part.lower() in words for part in re.findall(r"\w+", value))


def _documented(key: str, text: str) -> bool:
    """The text gives `key` a value: `key: v` / `key = v`, or "`key` (default v)" / "key defaults to v"."""
    k = re.escape(key)
    return bool(
        re.search(rf"(?<![\w.-]){k}[\"'`]?[ \t]*[:=][ \t]*[^\s:=]", text, re.I)
        or re.search(
            rf"(?<![\w-]){k}`?\s*\(default:?\s|(?<![\w-]){k}`?\s+defaults?\s+(?:to|is)\s", text, re.I
        )
    )


def unbacked_code_values(answer: str, sources: list[dict[str, Any]], users_words: str = "") -> list[str]:
    """`key: value` lines of the answer's code blocks whose key `sources` give a value, or whose
    value is a number, and whose value appears in none of them nor in `users_words`, as the
    answer wrote them."""
    text = " \n".join(str(s.get("content") or "") for s in sources)
    backed_text = f"{text}\n{users_words}"
    words = _words(backed_text)
    numbers = {figure_key(n) for n in re.findall(r"\d+(?:[.,]\d+)*", backed_text)}
    out: list[str] = []
    for block in FENCED_CODE.finditer(answer):
        for m in _ASSIGNMENT.finditer(block.group(0)):
            key, value = m.group("key"), m.group("value").strip("\"'").lstrip("+-")
            if not value or _PLACEHOLDER.search(value):
                continue
            if _own_name(key) and not _NUMBER.match(value):
                continue
            documented = _documented(key, text) or _documented(key.rsplit(".", 1)[-1], text)
            # A number set in a config line needs a source even for a key none documents: the
            # block is then the writer's own, and its figures are claims like the prose's.
            if not documented and not _NUMBER.match(value):
                continue
            if not _backs(value, words, numbers) and m.group(0).strip() not in out:
                out.append(m.group(0).strip())
    return out


def _own_name(key: str) -> bool:
    return key.rsplit(".", 1)[-1].lower() in _OWN_NAME_KEYS


def own_names(answer: str) -> set[str]:
    """The names the answer's code blocks give what they define (`name: sync-orders`), lower-
    cased: the answer's own, so "apply `sync-orders.yaml`" in its prose names nothing invented."""
    return {
        m.group("value").strip("\"'").lower()
        for block in FENCED_CODE.finditer(answer)
        for m in _ASSIGNMENT.finditer(block.group(0))
        if _own_name(m.group("key")) and not _NUMBER.match(m.group("value").strip("\"'"))
    }
