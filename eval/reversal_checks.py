"""How often condition 7 (`agent/checks/reversals.py`) misfires on real pages and what it catches.

Usage: .venv/bin/python eval/reversal_checks.py --corpus PATH [--split dev|test|both] [--list]

Each prose sentence of four words or more of a corpus page (code blocks, tables, HTML and
headings left out) is held to the other paragraphs of its page: a reversal found there is
a misread, since a page does not contradict itself (a few real contrasts aside, "To enable
them" beside "To disable them"). The same sentence flipped (its first `not`/`never` dropped,
else a `not` added after its first auxiliary, else one word of an opposite pair swapped)
is held to its own paragraph: found, it is caught. For `agent/checks/negated_verbs.py`, a sentence
whose `not`/`cannot`/`never` applies to a verb of a synonym group is put in other words
("cannot be changed" → "can be modify"; grammar aside, the check reads words) and held to
its paragraph, whole and cut three words after the verb. Files alternate between the dev and the
test split by their sorted index. The docs-QA gold answers (eval/docs_qa.jsonl) are held
to their whole source files too. No database or embedder is needed.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path

from docsassistant.agent.checks import negated_verbs, polarity, reversals, words
from docsassistant.agent.checks.wrapped_lines import unwrapped

_AUX = re.compile(r"\b(is|are|can|does|do|will|should|must|was|were)\b(?! not)")
_NEGATION = re.compile(r"\s+(not|never)\b")
_NOT_PROSE = ("|", "<", "#", "*", "-", "[", "image", "=")


def flipped(sentence: str) -> str | None:
    """The sentence saying the opposite by one edit, or None when no edit applies."""
    if _NEGATION.search(sentence):
        return _NEGATION.sub("", sentence, count=1)
    if match := _AUX.search(sentence):
        return f"{sentence[: match.end()]} not{sentence[match.end() :]}"
    return swapped(sentence)


def swapped(sentence: str, groups: list[tuple[tuple[str, ...], ...]] = polarity.OPPOSITES) -> str | None:
    """The sentence with its first word of an opposite pair (or outcome group) replaced by
    the same form of another member of its group, or None."""
    for group in groups:
        for n, member in enumerate(group):
            for k, form in enumerate(member):
                if re.search(rf"\b{form}\b", sentence):
                    other = group[(n + 1) % len(group)]
                    return re.sub(rf"\b{form}\b", other[min(k, len(other) - 1)], sentence, count=1)
    return None


_DENIED_VERB = re.compile(
    r"\b(cannot|can ?not|(?:does|do|is|are|will|should|must) not|never)((?: be| been| able to)?) (\w+)"
)


def in_other_words(sentence: str) -> str | None:
    """The sentence asserting its negated verb with a synonym ("cannot be changed" → "can be
    modified"), or None when its negated verb has no synonym group."""
    match = _DENIED_VERB.search(sentence)
    if not match:
        return None
    verb = match.group(3)
    group = next(
        (g.split() for g in negated_verbs._GROUPS if words.stem(verb) in map(words.stem, g.split())),
        None,
    )
    if group is None:
        return None
    other = next(w for w in group if words.stem(w) != words.stem(verb))
    negator = match.group(1)
    kept = "can" if negator.startswith("can") else negator.split()[0] if " " in negator else ""
    replaced = f"{kept}{match.group(2)} {other}".strip()
    return f"{sentence[: match.start()]}{replaced}{sentence[match.end() :]}"


def shortened(sentence: str, reworded: str) -> str:
    """`reworded` cut three words after its verb: an answer stating less than its source."""
    match = _DENIED_VERB.search(sentence)
    assert match  # reworded exists only when the sentence has a denied verb
    return " ".join(reworded.split()[: len(sentence[: match.start()].split()) + 6])


def pages(corpus: Path, split: str) -> Iterator[tuple[Path, list[str]]]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    for i, path in enumerate(files):
        if split != "both" and i % 2 != (0 if split == "dev" else 1):
            continue
        text = re.sub(r"\A---\n.*?\n---\n", "", unwrapped(path.read_text(errors="ignore")), flags=re.S)
        text = re.sub(r"```.*?```|----\n.*?\n----", " ", text, flags=re.S)
        yield path, [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def measure(
    corpus: Path, split: str
) -> tuple[int, list[tuple[Path, str]], int, int, list[tuple[Path, str]], int, int]:
    """(sentences, misreads, flipped sentences, flipped sentences caught, and the same three
    for `negated_verbs`: its misreads, sentences put in other words, those caught)."""
    sentences, misreads, flips, caught = 0, [], 0, 0
    verb_misreads, reworded, verb_caught, short_caught = [], 0, 0, 0
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])
            for sentence in words.sentences(paragraph):
                if len(sentence.split()) < 4 or sentence.lstrip().startswith(_NOT_PROSE):
                    continue
                sentences += 1
                if reversals.reversed_statements(sentence, [others]):
                    misreads.append((path, sentence))
                if negated_verbs.denied_verbs_asserted(sentence, [others]):
                    verb_misreads.append((path, sentence))
                if other_words := in_other_words(sentence):
                    reworded += 1
                    verb_caught += bool(negated_verbs.denied_verbs_asserted(other_words, [paragraph]))
                    short = shortened(sentence, other_words)
                    short_caught += bool(negated_verbs.denied_verbs_asserted(short, [paragraph]))
                if (flip := flipped(sentence)) and flip != sentence:
                    flips += 1
                    caught += bool(reversals.reversed_statements(flip, [paragraph]))
    return sentences, misreads, flips, caught, verb_misreads, reworded, verb_caught, short_caught


def outcome_swaps(corpus: Path, split: str) -> tuple[int, int]:
    """(sentences with a word of an outcome group, those caught once it is swapped for
    another of its group: "is truncated" said "is dropped")."""
    groups = [g for g in polarity.OPPOSITES if g[0][0] in polarity.OUTCOME_WORDS]
    swaps, caught = 0, 0
    for _, paragraphs in pages(corpus, split):
        for paragraph in paragraphs:
            for sentence in words.sentences(paragraph):
                if len(sentence.split()) < 4 or sentence.lstrip().startswith(_NOT_PROSE):
                    continue
                if (swap := swapped(sentence, groups)) and swap != sentence:
                    swaps += 1
                    caught += bool(reversals.reversed_statements(swap, [paragraph]))
    return swaps, caught


def gold(corpus: Path, qa: Path) -> tuple[int, list[str]]:
    """(answers held, answers flagged): the docs-QA gold answers with sources, each held to
    its whole source files by both checks (a real turn cites chunks of them, so fewer
    sentences can be taken for the opposite)."""
    held, flagged = 0, []
    for row in map(json.loads, qa.read_text().splitlines()):
        if not row["sources"]:
            continue
        held += 1
        pages = [unwrapped((corpus / p).read_text(errors="ignore")) for p in row["sources"]]
        found = reversals.reversed_statements(row["answer"], pages, row["question"])
        found += negated_verbs.denied_verbs_asserted(row["answer"], pages, row["question"])
        if found:
            flagged.append(f"{row['id']}: {found[0][:160]}")
    return held, flagged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--qa", type=Path, default=Path(__file__).with_name("docs_qa.jsonl"))
    parser.add_argument("--list", action="store_true", help="print every misread")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"no corpus folder at {args.corpus}")
    for split in ["dev", "test"] if args.split == "both" else [args.split]:
        sentences, misreads, flips, caught, verb_misreads, reworded, verb_caught, short = measure(
            args.corpus, split
        )
        print(f"{split}: misreads {len(misreads)} of {sentences} sentences; flips caught {caught} of {flips}")
        print(
            f"{split} negated verbs: misreads {len(verb_misreads)} of {sentences}; "
            f"put in other words caught {verb_caught} of {reworded}, shortened {short} of {reworded}"
        )
        swaps, swaps_caught = outcome_swaps(args.corpus, split)
        print(f"{split} outcomes: one swapped for another of its group, caught {swaps_caught} of {swaps}")
        if args.list:
            for path, sentence in misreads + verb_misreads:
                print(f"  {path.relative_to(args.corpus)}: {sentence}")
    held, flagged = gold(args.corpus, args.qa)
    print(f"gold answers held to their source files: {len(flagged)} of {held} flagged")
    if args.list:
        print("\n".join(f"  {f}" for f in flagged))


if __name__ == "__main__":
    main()
