"""Answers about a neighbouring setting: the question asks for one term, the answer speaks
of its sibling.

Asked for the connect timeout, a model answers with the request timeout the same page
gives ("The request timeout is 30 seconds [1]"; QA round 10 s08). Every sentence is in its
source, so every check of support passes it; the reader takes the figure for the one asked.
Looked for in two-word terms: the question's term (a modifier and a head, "connect
timeout") that the sources use, while the answer never uses its modifier and names another
term with the same head, given a figure, that the same source names ("request timeout").
Pure functions, no model call. Measured on the docs-QA sets (top-10 hits as sources): no fire
on the gold answers (0 of 104) or on their evidence sentences given as answers (0 of 144);
synthetic swaps between two figure sentences of one retrieved chunk, dev 38 of 41 caught,
test 14 of 19 (prose only: 20 of 21, 3 of 3), the asked term's own sentence never flagged.
The same swap the other way round, the asked term given its sibling's figure ("Is the
connect timeout 30 s?" answered yes), is `sibling_figures`; measured by
eval/sibling_figure_checks.py.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from docsassistant.agent.citations import MARKER
from docsassistant.agent.grounding import FENCED_CODE, NUMBER_WORDS, stated_figures
from docsassistant.agent.reversals import content_stems
from docsassistant.agent.standalone import FOLLOW_UP
from docsassistant.agent.word_support import cited_clauses, cited_sentences, quoted_sentence

_WORD = re.compile(r"[A-Za-z][\w.-]*[A-Za-z0-9]|[A-Za-z]")
_BREAK = re.compile(r"[.,;:!?()\[\]\n]")
_NOT_MODIFIERS = frozenset(
    "each every per during any all some both either neither another other several many few "  # noqa: SIM905
    "most much such own same via within without between among across after before since "
    "until upon toward towards onto".split()
)


def terms(text: str) -> set[tuple[str, str]]:
    """The text's two-word terms, stemmed: adjacent content words within a clause, the
    first not a word of place or quantity ("per tenant", "each metric")."""
    out: set[tuple[str, str]] = set()
    for part in _BREAK.split(text):
        words = _WORD.findall(part)
        stems = [None if w.lower() in _NOT_MODIFIERS else next(iter(content_stems(w)), None) for w in words]
        out.update((a, b) for a, b in itertools.pairwise(stems) if a and b and a != b)
    return out


def sibling_terms(answer: str, question: str, sources: list[dict[str, Any]]) -> list[str]:
    """ "asked X, answered Y" for each term of the question the answer swapped for a
    sibling (see the module docstring); the terms are shown as the question and the answer
    wrote them."""
    text = MARKER.sub(" ", answer)
    said = content_stems(text)
    per_source = [terms(s.get("prompt_text") or s.get("content") or "") for s in sources]
    figured = set().union(*(terms(c) for c in _figure_clauses(answer)))
    out: list[str] = []
    message, _, followed = question.partition(FOLLOW_UP)  # the message's own terms first
    for modifier, head in sorted(terms(message) or terms(followed)):
        if modifier in said:
            continue
        # Siblings: one page names both terms (the connect and the request timeout).
        rivals = sorted(
            m
            for m, h in figured
            if h == head
            and not _same(m, modifier)
            and any({(modifier, head), (m, h)} <= t for t in per_source)
        )
        if rivals:
            out.append(
                f"asked about {_shown(question, modifier, head)}, answered about {_shown(text, rivals[0], head)}"
            )
    return out


# Two capitalised words: a product and its part ("Acme Gateway", "Spring AI").
_NAME_PAIR = re.compile(r"\b([A-Z][\w-]*)\s+([A-Z][\w-]*)")
_OPENERS = frozenset("a an the in on at for with when where which what how can does do is are if i".split())  # noqa: SIM905


def sibling_names(answer: str, question: str) -> list[str]:
    """ "asked X, answered Y" when the question names a two-word name ("Acme Gateway") and
    the answer, never using its second word, gives a figure for another name with the same
    first word ("Acme Proxy"): QA round 10 s20, "its idle timeout" after a turn about the
    gateway answered for the proxy. No source is needed: the name asked is the user's. On the
    docs-QA sets (59 of 104 questions name such a pair) it fires on none of the gold answers
    and none of their evidence sentences given as answers (0 of 104, 0 of 144)."""
    # The message's own names come first: "What about Acme Proxy? (follow-up to: … Acme
    # Gateway …)" asks about the proxy. The question followed up counts when it names none.
    message, _, followed = question.partition(FOLLOW_UP)
    asked = _names(message) or _names(followed)
    said = answer.lower()
    out: list[str] = []
    for clause in _figure_clauses(answer):
        for first, second in _NAME_PAIR.findall(clause):
            for name, part in sorted(asked):
                if first.lower() == name and second.lower() != part and part not in said:
                    found = f"asked about {name.title()} {part.title()}, answered about {first} {second}"
                    if found not in out:
                        out.append(found)
    return out


def _any_number(word: str) -> re.Pattern[str]:
    """The word as a whole word, singular or plural ("Mac", "Macs"; "SSDs", "SSD")."""
    base = (
        word[:-1]
        if len(word) > 3 and word.lower().endswith("s") and not word.lower().endswith("ss")
        else word
    )
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(base)}(?:e?s)?(?![A-Za-z0-9])", re.I)


def sibling_sources(answer: str, question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """ "asked X, answered from Y's page" when the question names a two-word name ("Acme
    Gateway"), neither the answer nor any source it cites uses its second word, and a cited
    source names another name with the same first word ("Acme Proxy"): "It accepts 4,000
    connections [1]" after "And how many connections does it accept?" about the gateway,
    [1] being the proxy's page (QA round 11 s20, s45). `sibling_names` needs the other name
    in the answer; here the answer names nothing and its sources speak for it. On the
    docs-QA sets (35 of 104 questions name such a pair, the gold answers cited to the text
    around their evidence) it fires on none."""
    message, _, followed = question.partition(FOLLOW_UP)
    asked = _names(message) or _names(followed)
    texts = [
        f"{s.get('title') or ''}\n{s.get('section') or ''}\n{s.get('content') or ''}" for s in cited_sources
    ]
    out: list[str] = []
    for name, part in sorted(asked):
        word = _any_number(part)
        if not texts or word.search(answer) or any(word.search(text) for text in texts):
            continue
        others = sorted(
            {
                f"{a} {b}"
                for text in texts
                for a, b in _NAME_PAIR.findall(text)
                if a.lower() == name
                and not word.fullmatch(b)
                # "And the proxy? (follow-up to: … Acme Gateway …)" asks about the proxy
                and not re.search(rf"(?<![A-Za-z0-9]){re.escape(b)}(?![A-Za-z0-9])", message, re.I)
            }
        )
        if others:
            out.append(f"asked about {name.title()} {part.title()}, answered from a source about {others[0]}")
    return out


def sibling_citations(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Cited clauses naming a two-word name ("Acme Gateway") whose second word none of the
    clause's cited sources uses, while one of them names a sibling ("Acme Proxy"): "The
    default cache size of Acme Gateway is 512 MB [proxy page]" (QA round 12 m36). Quoted as
    the flag quotes sentences."""
    by_n = {s.get("n"): s for s in sources}
    texts = {
        n: f"{s.get('title') or ''}\n{s.get('section') or ''}\n{s.get('content') or ''}"
        for n, s in by_n.items()
    }
    out: list[str] = []
    for sentence, _ in cited_sentences(answer, by_n, held=False):
        for clause, cited in cited_clauses(sentence, by_n):
            for first, second in _names(MARKER.sub(" ", clause)):
                word = _any_number(second)
                if any(word.search(texts[n]) for n in cited):
                    continue
                siblings = [
                    b
                    for n in cited
                    for a, b in _NAME_PAIR.findall(texts[n])
                    if a.lower() == first and not word.fullmatch(b)
                ]
                if siblings and quoted_sentence(clause) not in out:
                    out.append(quoted_sentence(clause))
    return out


# A figure labelled by the name just before it: "TLS 1.2", "HTTP/1.1", "MySQL 8.0", "Python 3.9".
_LABELLED = re.compile(r"(?<![\w./-])([A-Z][A-Za-z0-9+#]*)(?: |/|-| v)(\d+(?:\.\d+)*)(?![\w.]*\d)")


# Capitalised words before a number that name no thing: "In 1.0", "Step 2", "Example 3".
_NOT_LABELS = frozenset(
    "in on at by for from since until to up after before as with and or of the a an if "  # noqa: SIM905
    "option step example issue part section chapter table figure phase stage level note tip "
    "rule case item point page line type method approach scenario stage task test".split()
)


def _version_key(figure: str) -> str:
    """One spelling per version: "2.0.0", "2.0" and "2" are one (a label's figure is often a version)."""
    return re.sub(r"(?:\.0+)+$", "", figure.replace(",", "")) or "0"


def _labels(text: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(figures by label, labels by figure), labels lower-cased."""
    by_label: dict[str, set[str]] = {}
    by_figure: dict[str, set[str]] = {}
    for label, written in _LABELLED.findall(text):
        if label.lower() in _NOT_LABELS:
            continue
        figure = _version_key(written)
        by_label.setdefault(label.lower(), set()).add(figure)
        by_figure.setdefault(figure, set()).add(label.lower())
    return by_label, by_figure


def relabelled_figures(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Figures the answer gives a name ("TLS 1.1") that the cited sources give that name only
    other figures of ("TLS 1.2 and TLS 1.3", their 1.1 being HTTP/1.1's; QA round 12 m47), as
    the answer wrote them. The figure is on the page, so condition 5 passes it."""
    by_label, _ = _labels(" \n".join(str(s.get("content") or "") for s in cited_sources))
    out: list[str] = []
    for match in _LABELLED.finditer(MARKER.sub(" ", FENCED_CODE.sub(" ", answer))):
        label, figure = match.group(1).lower(), _version_key(match.group(2))
        if label not in _NOT_LABELS and by_label.get(label) and figure not in by_label[label]:
            out.append(match.group(0))
    return out


def figure_of_another_name(answer: str, question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """ "asked about X, answered with F, which the sources give Y": the answer states a figure
    without a name, the question names X, and the cited sources give X other figures and F
    to another name the question does not ask about: "The minimum version is 8.0" for the
    first of "PostgreSQL 14 or later, MySQL 8.0 or later" (QA round 12 m12)."""
    by_label, by_figure = _labels(" \n".join(str(s.get("content") or "") for s in cited_sources))
    prose = MARKER.sub(" ", FENCED_CODE.sub(" ", answer))
    named = {_version_key(figure) for _, figure in _LABELLED.findall(prose)}
    asked = {w.lower() for w in re.findall(r"\b[A-Z][A-Za-z0-9+#]+", question)}
    out: list[str] = []
    for figure in map(_version_key, stated_figures(prose)):
        others = sorted(by_figure.get(figure, set()) - asked)
        if figure in named or not others or re.search(rf"\b{re.escape(others[0])}\b", prose, re.I):
            continue
        for name in sorted(asked & set(by_label)):
            if figure not in by_label[name]:
                out.append(f"asked about {name}, answered with {figure}, which the sources give {others[0]}")
                break
    return out


# Sentences of a source, lines apart, a table row whole (its name and its value), code
# spans kept as words: the name a figure belongs to is often backquoted.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
_JOINED = re.compile(r"(?<=[A-Za-z])[_.](?=[A-Za-z])")
# A number that is part of a name ("Psycopg 3", "Claude 3.x", "GPT-5", "Example 1") gives
# no value to the words before it.
_NAMED_NUMBER = re.compile(r"\b([A-Z][A-Za-z]*)[ -]v?\d+(?:\.(?:\d+|x))*\b")
_URL = re.compile(r"\w+://\S+|\S+\.(?:png|jpe?g|svg|gif)\b")
_TOKEN = re.compile(r"[A-Za-z][\w-]*|\d[\d,.]*")
_SUBJECT_SPAN = 6  # words before a figure that may name what it is the figure of


def sibling_figures(text: str, sources: list[dict[str, Any]]) -> list[str]:
    """ "X is F" where the sources give X another figure and F belongs to X's sibling:
    "Is the connect timeout 30 s?" answered yes [1], [1] saying the connect timeout is 10 s
    and the request timeout 30 s (QA round 11 s60, s61). The figure is on the cited page, so
    the figure checks pass it. A figure's subject is a two-word term among the few words
    before it. Each clause of `text` giving its subject a figure is held to the source lines
    giving that subject figures: none gives this one, while a line of the same page gives
    it to a term with the same head and another modifier. `snake_case` and dotted names
    read as their words."""
    pages = [
        [(line, _subjects(line)) for line in _SENTENCE.split(_plain(s.get("content") or ""))] for s in sources
    ]
    out: list[str] = []
    for clause in _figure_clauses(_plain(text)):
        for (modifier, head), figures in sorted(_subjects(clause).items()):
            own = [
                f
                for page in pages
                for _, line in page
                for term, f in line.items()
                if term == (modifier, head)
            ]
            if not own or any(figures & f for f in own):
                continue  # the sources give the term no figure, or this one
            for page in pages:
                if not any((modifier, head) in line for _, line in page):
                    continue
                rivals = [
                    (_shown(text, m, head), sorted(figures & f)[0])
                    for text, line in page
                    if (modifier, head) not in line
                    for (m, h), f in sorted(line.items())
                    if h == head and not _same(m, modifier) and figures & f
                ]
                if rivals:
                    given = ", ".join(sorted(set().union(*own)))
                    rival, figure = rivals[0]
                    out.append(
                        f"the source gives {_shown(clause, modifier, head)} {given}; {figure} is its {rival}"
                    )
                    break
    return out


def _plain(text: str) -> str:
    text = _JOINED.sub(" ", _INLINE_CODE.sub(r"\1", _URL.sub(" ", FENCED_CODE.sub(" ", text))))
    return _NAMED_NUMBER.sub(r"\1", text)


def _subjects(line: str) -> dict[tuple[str, str], set[str]]:
    """Each two-word term of `line` among the words just before a figure, with the figures
    it is given ("connect timeout" → {"10"} in "The connect timeout is 10 s")."""
    out: dict[tuple[str, str], set[str]] = {}
    tokens = [m.group(0) for m in _TOKEN.finditer(MARKER.sub(" ", line))]
    for i, token in enumerate(tokens):
        # With the next word: "thirty seconds" states 30, "10 k" 10,000.
        figures = stated_figures(" ".join(tokens[i : i + 2]))[:1]
        if not figures or not (token[0].isdigit() or token.lower() in NUMBER_WORDS):
            continue
        before = tokens[max(0, i - _SUBJECT_SPAN) : i]
        for term in terms(" ".join(before)):
            out.setdefault(term, set()).update(figures)
    return out


def _figure_clauses(answer: str) -> list[str]:
    """The clauses of the answer that state a figure, as condition 5 reads figures ("30
    seconds", "thirty seconds", a bare `30`; not "SSE4.2"), code blocks left out: a sibling
    is a problem when its value is given."""
    clauses = re.split(r"[;\n]|(?<=[.!?])\s+", MARKER.sub(" ", FENCED_CODE.sub(" ", answer)))
    return [c for c in clauses if stated_figures(c)]


def _names(text: str) -> set[tuple[str, str]]:
    return {(a.lower(), b.lower()) for a, b in _NAME_PAIR.findall(text) if a.lower() not in _OPENERS}


def _same(first: str, second: str) -> bool:
    """One modifier, written in full or cut short ("max" and "maximum")."""
    return first.startswith(second) or second.startswith(first)


def _shown(text: str, modifier: str, head: str) -> str:
    """The two words of a stemmed term as `text` writes them."""
    words = _WORD.findall(text)
    for first, second in itertools.pairwise(words):
        if content_stems(first) == {modifier} and content_stems(second) == {head}:
            return f"{first} {second}"
    return f"{modifier} {head}"
