"""Names an answer gives that no source does: a setting name, or a command-line option.

Part of condition 5 of `grounded` (docs/flags.md): a figure, an identifier or an option the
sources never state is taken as invented. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

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


def unbacked_options(answer: str, sources: list[dict[str, Any]], users_words: str = "") -> list[str]:
    """Command-line options (`--force`) the answer gives, in code or in prose, that no source
    and not the user's own words give. Code is exempt from the identifier check, so an
    invented flag in a command passed (QA round 10, s17; inline, blind QA round 17 w27:
    "`kvctl buffer purge --output NAME --force`" for the page's `--yes`); so did one in prose,
    which the identifier check never reads ("Run larkctl topic delete NAME --force", the page's
    flag being `--yes`: blind QA round 19 w27, w28). An option the user asked about is theirs
    ("Is there a --force flag?" answered "No, use --yes"). `--help` and its like are taken as
    known."""
    known = " ".join(str(s.get("content") or "") for s in sources).lower()
    theirs = users_words.lower()
    out: list[str] = []
    for option in _LONG_OPTION.findall(answer):
        pattern = rf"(?<![\w-]){re.escape(option.lower())}(?![\w-])"
        found = re.search(pattern, known) or re.search(pattern, theirs)
        if option.lower() not in _GENERIC_OPTIONS and not found and option not in out:
            out.append(option)
    return out


# A command in code: a program, then a subcommand word ("vellum backup", "vk-relay pair").
_COMMAND = re.compile(r"^\s*(?:sudo\s+)?([a-z][\w.-]*)\s+([a-z][a-z0-9-]*)(?=\s|$)")
_CODE = re.compile(r"```[^\n]*\n(.*?)(?:```|$)|`([^`\n]+)`", re.S)


def _commands(text: str) -> list[tuple[str, str]]:
    """(program, subcommand) of each command in `text`'s code: inline spans and block lines."""
    lines = [line for m in _CODE.finditer(text) for line in (m.group(1) or m.group(2)).splitlines()]
    return [(m.group(1), m.group(2)) for line in lines if (m := _COMMAND.match(line))]


def unbacked_commands(answer: str, sources: list[dict[str, Any]], users_words: str = "") -> list[str]:
    """Subcommands the answer's code gives a program that its sources run with others but
    never with this one, as "vk-relay promote" (blind QA round 20 w39: "run `vk-relay promote`
    on the target", the page's command being `vkvault promote`, `vk-relay pair …` beside it).
    A program no source runs is left alone (a shell's `systemctl` or `rsync`), and so is a
    subcommand the user named."""
    texts = [str(s.get("content") or "") for s in sources]
    programs = {program for text in texts for program, _ in _commands(text)}
    known = re.sub(r"\s+", " ", " ".join([*texts, users_words]).lower())
    out: list[str] = []
    for program, sub in _commands(answer):
        command = f"{program} {sub}"
        pattern = rf"(?<![\w-]){re.escape(command.lower())}(?![\w-])"
        if program in programs and not re.search(pattern, known) and command not in out:
            out.append(command)
    return out
