"""An identifier asked about, another of its kind answered.

"What does the /readyz endpoint check?" answered "`GET /healthz` returns 200 when the server
can reach its database [1]": the sentence is its page's, the verifier passes it, and the
reader takes the liveness check for the readiness check (blind QA round 15 w25). The
question names an identifier (an endpoint path, a command-line option, a dotted or
snake_case setting, an environment variable); an answer that never names any of the
question's identifiers while naming another path, option or variable is about that other
one. Another *setting* is not enough: an answer about a setting often names a related field
in passing and calls the asked one "it" ("It caps the output; the record gets the
`output_truncated` marker"), so settings are read only as names the answer gives back.

Questions that ask for another name ("what replaced `--index-type`?", "what should I use
instead", "is there an alternative") and answers saying the documentation lacks the asked
one are left alone. Pure functions, no model call. Measured by
eval/asked_identifier_checks.py on the docs-QA gold answers (see docs/flags.md).
"""

from __future__ import annotations

import re

from docsassistant.agent.checks.absence import claims_absence
from docsassistant.agent.citations import MARKER

# Each kind of name, most specific first: a path ("/readyz", "/v1/jobs"), a long option
# ("--ttl"), an environment variable ("QUILL_TOKEN"), a setting with `.` or `_`
# ("worker.concurrency", "max_connections"). A URL's path is a path.
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("path", re.compile(r"(?<![\w/.:-])/[a-z_][\w.-]*(?:/[\w{}.:-]+)*", re.I)),
    ("option", re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]", re.I)),
    ("variable", re.compile(r"(?<![\w.])[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9](?![\w.])")),
    ("setting", re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:[._][a-z0-9]+)+(?![\w/-])")),
)
JUDGED = ("option", "path", "variable")  # the kinds an answer may not swap (not "setting": see above)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/`)]*", re.I)  # scheme and host: the path stays
_FILE = re.compile(r"\.(?:md|txt|ya?ml|json|toml|ini|conf|cfg|py|sh|js|ts|html?|log|csv|sql|pdf)$", re.I)
_ABBREVIATIONS = frozenset({"e.g", "i.e", "a.k.a", "etc", "vs"})
# Questions that ask for another name than the one they give.
_ASKS_ANOTHER = re.compile(
    r"\b(?:replace[sd]?|replacement|instead|rename[sd]?|alternatives?|successor|equivalents?|"
    r"migrat\w*|deprecated|removed|obsolete|differen\w*|compare[sd]?|versus|vs\.?|other|besides|"
    r"similar|related|which\s+(?:option|flag|setting|variable|endpoint|path)s?)\b",
    re.I,
)


def identifiers(text: str) -> dict[str, set[str]]:
    """The names in `text` by kind, lower-cased (`/readyz`, `--ttl`, `worker.concurrency`).
    File names (`server.yaml`) and abbreviations ("e.g.") are not settings."""
    text = _URL.sub(" ", MARKER.sub(" ", text))
    out: dict[str, set[str]] = {}
    taken: list[tuple[int, int]] = []
    for kind, pattern in _KINDS:
        for match in pattern.finditer(text):
            start, end = match.span()
            name = match.group(0).rstrip(".").lower()
            if any(a < end and start < b for a, b in taken):
                continue  # part of a name of a kind already read ("/v1/jobs.list")
            if kind == "setting" and (_FILE.search(name) or name in _ABBREVIATIONS):
                continue
            taken.append((start, end))
            out.setdefault(kind, set()).add(name)
    return out


def _names(found: dict[str, set[str]]) -> set[str]:
    return set().union(*found.values()) if found else set()


def _mentions(answer: str, name: str) -> bool:
    """The answer names `name`, bare or as part of a longer name ("/v1/jobs/{id}" for
    "/v1/jobs"), or without its marks ("readyz" for "/readyz", "ttl" for "--ttl")."""
    text = answer.lower()
    bare = name.strip("/-")
    return name in text or bool(bare and re.search(rf"(?<![\w.-]){re.escape(bare)}(?![\w-])", text))


def other_identifier(answer: str, question: str) -> list[str]:
    """[a note] when `question` names identifiers, `answer` names none of them and names
    another of the same kind instead (see the module's docstring); [] otherwise."""
    asked = identifiers(question)
    if not asked or _ASKS_ANOTHER.search(question) or claims_absence(answer):
        return []
    if any(_mentions(answer, name) for name in _names(asked)):
        return []
    given = identifiers(answer)
    for kind in JUDGED:
        names = asked.get(kind, set())
        others = sorted(given.get(kind, set()) - names)
        if names and others:
            return [f"the question asks about {sorted(names)[0]}; the answer speaks of {others[0]}"]
    return []
