"""Citation markers are checked in code, not trusted from the model.

Models cite in many styles (`[1, 2]`, `[Document 1]`, `[^1]`, `【1】`, `(1)`; Open WebUI
#11592, RAGFlow #8594), and small ones cite the `source_path` the evidence item is labelled
with instead of its number (`[core/retries.md]`). `normalise_citations` rewrites them all to
`[n]`; `check_citations` then drops the numbers that point to no source.

A bare `(n)` is ambiguous: prose enumerates "(1) install, (2) run" and code calls `f(1)`.
So `(n)` counts as a citation only when the answer has no bracketed citation at all, it is
outside code, it follows a word and a space, and it ends a clause (punctuation or line end).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

MARKER = re.compile(r"\[(\d{1,3})\]")
MAX_RANGE = 10  # `[1-30]` is not a citation anyone means

_FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.S)
_WORDS = (
    r"(?:documents?|docs?|sources?|refs?|references?|evidence|items?|passages?|chunks?|citations?|excerpts?)"
)
_NUMS = r"\d{1,3}(?:\s*(?:,|;|and|&|[-–—]|to)\s*\d{1,3})*"
_WORDED = re.compile(
    rf"\[\s*(?:{_WORDS}\.?\s*:?\s*)?#?({_NUMS})(?:†[^\]]*)?\s*\]",
    re.I,
)
# A word before the number makes a parenthesis unambiguous: "(Source 1)", "(documents 1, 2)".
_WORDED_PAREN = re.compile(rf"\(\s*{_WORDS}\.?\s*:?\s*#?({_NUMS})\s*\)", re.I)
_DOUBLED = re.compile(r"\[\[(\d{1,3})\]\](?!\()")
_SUPERSCRIPT = re.compile(r"<sup>\s*\[?(\d{1,3})\]?\s*</sup>", re.I)
_FOOTNOTE_DEF = re.compile(r"^[ \t]*\[\^\d{1,3}\]:.*(?:\n|$)", re.M)
_FOOTNOTE = re.compile(r"\[\^(\d{1,3})\]")
_LENTICULAR = re.compile(rf"【\s*({_NUMS})(?:†[^】]*)?\s*】")
_PAREN_ONE = rf"\(\s*{_NUMS}\s*\)"
_PAREN = re.compile(
    rf"(?<=\w)([ \t]+)({_PAREN_ONE}(?:[ \t]*(?:,|and|&)?[ \t]*{_PAREN_ONE})*)(?=[.,;:!?]|[ \t]*$)", re.M
)


def normalise_citations(answer: str, paths: list[str] | None = None) -> str:
    """Every recognised citation style rewritten to `[n]` markers (code left untouched);
    `paths`: the evidence items' source paths, numbered from 1, for citations by path."""
    if paths:
        # Before inline code is set aside (a path is often written `core/retries.md`);
        # fenced blocks stay untouched.
        pieces, last = [], 0
        for block in _FENCED.finditer(answer):
            pieces += [_cite_paths(answer[last : block.start()], paths), block.group(0)]
            last = block.end()
        answer = "".join([*pieces, _cite_paths(answer[last:], paths)])
    parts: list[str] = []
    last = 0
    for code in _CODE.finditer(answer):
        parts += [_normalise_prose(answer[last : code.start()]), code.group(0)]
        last = code.end()
    parts.append(_normalise_prose(answer[last:]))
    text = "".join(parts)
    if not MARKER.search(_without_code(text)):
        parts, last = [], 0
        for code in _CODE.finditer(text):
            parts += [_PAREN.sub(_paren_marker, text[last : code.start()]), code.group(0)]
            last = code.end()
        parts.append(_PAREN.sub(_paren_marker, text[last:]))
        text = "".join(parts)
    return text


def _cite_paths(text: str, paths: list[str]) -> str:
    """A bracket or parenthesis holding evidence paths (or file names only one path has),
    optionally after "source:", each perhaps with a section after `§`/`›`/`#`, → `[n]`s."""
    lookup: dict[str, int] = {}
    names: dict[str, list[int]] = {}
    for n, path in enumerate(paths, 1):
        if path and path.lower() not in lookup:
            lookup[path.lower()] = n
            names.setdefault(PurePosixPath(path).name.lower(), []).append(n)
    lookup = {name: ns[0] for name, ns in names.items() if len(ns) == 1} | lookup
    if not lookup:
        return text
    one = rf"`?(?:{'|'.join(re.escape(k) for k in sorted(lookup, key=len, reverse=True))})`?(?:[ \t]*[§›#][^\])\n,;]*)?"
    listed = re.compile(
        rf"(?<!\])[\[(][ \t]*(?:{_WORDS}[ \t]*:?[ \t]*)?({one}(?:[ \t]*(?:,|;|and)[ \t]*{one})*)[ \t]*[\])](?!\()",
        re.I,
    )
    key = re.compile("|".join(re.escape(k) for k in sorted(lookup, key=len, reverse=True)), re.I)

    def markers(match: re.Match[str]) -> str:
        numbers = dict.fromkeys(lookup[k.lower()] for k in key.findall(match.group(1)))
        return "".join(f"[{n}]" for n in numbers)

    return listed.sub(markers, text)


def _normalise_prose(text: str) -> str:
    text = _SUPERSCRIPT.sub(r"[\1]", text)
    text = _DOUBLED.sub(r"[\1]", text)
    text = _WORDED_PAREN.sub(lambda m: _markers(m.group(1)) or m.group(0), text)
    text = _FOOTNOTE_DEF.sub("", text)
    text = _FOOTNOTE.sub(r"[\1]", text)
    text = _LENTICULAR.sub(lambda m: _markers(m.group(1)) or m.group(0), text)
    return _WORDED.sub(lambda m: _markers(m.group(1)) or m.group(0), text)


def _paren_marker(match: re.Match[str]) -> str:
    numbers = ",".join(re.findall(r"\(([^)]*)\)", match.group(2)))
    markers = _markers(numbers)
    return match.group(1) + markers if markers else match.group(0)


def _markers(numbers: str) -> str:
    """`1, 2` → `[1][2]`; `1-3` → `[1][2][3]`; "" for what is no citation (`1-30`)."""
    out: list[int] = []
    for part in re.split(r"\s*(?:,|;|and|&)\s*", numbers.strip()):
        bounds = [int(b) for b in re.split(r"\s*(?:[-–—]|to)\s*", part)]
        if len(bounds) == 2 and bounds[0] <= bounds[1] and bounds[1] - bounds[0] < MAX_RANGE:
            out += range(bounds[0], bounds[1] + 1)
        elif len(bounds) == 1:
            out.append(bounds[0])
        else:
            return ""
    return "".join(f"[{n}]" for n in dict.fromkeys(out))


def _without_code(text: str) -> str:
    return _CODE.sub("", text)


def check_citations(
    answer: str, n_sources: int, paths: list[str] | None = None
) -> tuple[str, list[int], list[int]]:
    """Normalise the citation styles, then remove markers that point to no source.

    Returns the cleaned answer, the valid numbers cited (in order of first use) and the
    bogus numbers removed. Markers inside code are neither counted nor removed.
    """
    used: list[int] = []
    bogus: list[int] = []

    def keep_or_drop(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if 1 <= n <= n_sources:
            if n not in used:
                used.append(n)
            return match.group(0)
        if n not in bogus:
            bogus.append(n)
        return ""

    text = normalise_citations(answer, paths)
    parts: list[str] = []
    last = 0
    for code in _CODE.finditer(text):
        parts += [_tidy(MARKER.sub(keep_or_drop, text[last : code.start()])), code.group(0)]
        last = code.end()
    parts.append(_tidy(MARKER.sub(keep_or_drop, text[last:])))
    return "".join(parts).strip(), used, bogus


def _tidy(prose: str) -> str:
    # No space left before punctuation where a marker was cut ("three [Document 9] ."); a dot
    # or colon that starts a word (".lock", ":8080") is not punctuation and keeps its space.
    prose = re.sub(r"[ \t]+([.,;:!?])(?![\w/~-])", r"\1", prose)
    return re.sub(r"(?<=\S)[ \t]{2,}", " ", prose)
