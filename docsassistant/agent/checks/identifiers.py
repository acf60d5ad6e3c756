"""Names an answer gives that no source does: a setting name, or a command-line option.

Part of condition 5 of `grounded` (docs/flags.md): a figure, an identifier or an option the
sources never state is taken as invented. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.figures import CODE_SPANS
from docsassistant.terms import code_terms

# A name in a question: an identifier with `_`, `.` or `::` (`FOO_TIMEOUT`, `hnsw.ef_search`)
# or a backquoted single token. Capitalised words and CamelCase names are left out: the
# chunk that answers often calls the product by another name ("DiskANN" for its plug-in).
_BACKQUOTED = re.compile(r"`([^`\s]{2,80})`")


_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "a.k.a"})


def _identifiers(text: str) -> list[str]:
    found = [*_BACKQUOTED.findall(text), *(t for t in code_terms(text) if re.search(r"[_.:]", t))]
    return [t for t in found if t.lower().strip(".") not in _ABBREVIATIONS]


def unbacked_identifiers(text: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Identifiers in `text` (a question the answer says yes to) that none of the cited
    sources mentions, compared case-insensitively: "Yes [1]." to "Does `FOO_TIMEOUT` set the
    timeout?" against a page about `CLIENT_TIMEOUT` confirms a name the page never uses."""
    names = _identifiers(text)
    backed = " ".join(
        f"{s.get('title') or ''} {s.get('section') or ''} {s.get('content') or ''}" for s in cited_sources
    ).lower()
    out: list[str] = []
    for name in names:
        name = name.strip(".")
        if len(name) >= 2 and name.lower() not in backed and name.lower() not in (n.lower() for n in out):
            out.append(name)
    return out


_LONG_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]", re.I)
_GENERIC_OPTIONS = frozenset({"--help", "--version", "--verbose"})


def unbacked_options(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Command-line options (`--force`) in the answer's code (blocks and inline spans) that no
    source gives: code is exempt from the identifier check, so an invented flag in a command
    passed (QA round 10, s17; inline, blind QA round 17 w27: "`kvctl buffer purge --output
    NAME --force`" for the page's `--yes`). `--help` and its like are taken as known."""
    code = " ".join(m.group(0) for m in CODE_SPANS.finditer(answer))
    known = " ".join(str(s.get("content") or "") for s in sources).lower()
    out: list[str] = []
    for option in _LONG_OPTION.findall(code):
        found = re.search(rf"(?<![\w-]){re.escape(option.lower())}(?![\w-])", known)
        if option.lower() not in _GENERIC_OPTIONS and not found and option not in out:
            out.append(option)
    return out
