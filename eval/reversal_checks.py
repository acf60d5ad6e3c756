"""How often condition 7 (`agent/reversals.py`) misfires on real pages and what it catches.

Usage: .venv/bin/python eval/reversal_checks.py --corpus PATH [--split dev|test|both] [--list]

Each prose sentence of four words or more of a corpus page (code blocks, tables, HTML and
headings left out) is held to the other paragraphs of its page: a reversal found there is
a misread, since a page does not contradict itself (a few real contrasts aside, "To enable
them" beside "To disable them"). The same sentence flipped (its first `not`/`never` dropped,
else a `not` added after its first auxiliary, else one word of an opposite pair swapped)
is held to its own paragraph: found, it is caught. Files alternate between the dev and the
test split by their sorted index. No database or embedder is needed.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from docsassistant.agent import reversals

_AUX = re.compile(r"\b(is|are|can|does|do|will|should|must|was|were)\b(?! not)")
_NEGATION = re.compile(r"\s+(not|never)\b")
_NOT_PROSE = ("|", "<", "#", "*", "-", "[", "image", "=")


def flipped(sentence: str) -> str | None:
    """The sentence saying the opposite by one edit, or None when no edit applies."""
    if _NEGATION.search(sentence):
        return _NEGATION.sub("", sentence, count=1)
    if match := _AUX.search(sentence):
        return f"{sentence[: match.end()]} not{sentence[match.end() :]}"
    for pair in reversals._OPPOSITES:
        for word, other in (pair, pair[::-1]):
            if re.search(rf"\b{word}\b", sentence):
                return re.sub(rf"\b{word}\b", other, sentence, count=1)
    return None


def pages(corpus: Path, split: str) -> Iterator[tuple[Path, list[str]]]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    for i, path in enumerate(files):
        if split != "both" and i % 2 != (0 if split == "dev" else 1):
            continue
        text = re.sub(r"\A---\n.*?\n---\n", "", path.read_text(errors="ignore"), flags=re.S)
        text = re.sub(r"```.*?```|----\n.*?\n----", " ", text, flags=re.S)
        yield path, [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def measure(corpus: Path, split: str) -> tuple[int, list[tuple[Path, str]], int, int]:
    """(sentences, misreads, flipped sentences, flipped sentences caught)."""
    sentences, misreads, flips, caught = 0, [], 0, 0
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])
            for sentence in reversals._sentences(paragraph):
                if len(sentence.split()) < 4 or sentence.lstrip().startswith(_NOT_PROSE):
                    continue
                sentences += 1
                if reversals.reversed_statements(sentence, [others]):
                    misreads.append((path, sentence))
                if (flip := flipped(sentence)) and flip != sentence:
                    flips += 1
                    caught += bool(reversals.reversed_statements(flip, [paragraph]))
    return sentences, misreads, flips, caught


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--list", action="store_true", help="print every misread")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"no corpus folder at {args.corpus}")
    for split in ["dev", "test"] if args.split == "both" else [args.split]:
        sentences, misreads, flips, caught = measure(args.corpus, split)
        print(f"{split}: misreads {len(misreads)} of {sentences} sentences; flips caught {caught} of {flips}")
        if args.list:
            for path, sentence in misreads:
                print(f"  {path.relative_to(args.corpus)}: {sentence}")


if __name__ == "__main__":
    main()
