"""How often the bound checks of condition 5 (`agent/checks/units.py`, `reversed_bounds`) misfires
on real pages and what it catches.

Usage: .venv/bin/python eval/bound_checks.py --corpus PATH [--list]

Each sentence of a corpus page with a bounded figure ("up to 64 GB", "at least 3") is held
to the other paragraphs of its page: a reversed bound found there is a misread. The same
sentence with its first bound turned over ("up to" for a floor, "at least" for a ceiling)
is held to its own paragraph: found, it is caught. Pages and splits as in
`eval/reversal_checks.py`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from reversal_checks import pages

from docsassistant.agent.checks import units
from docsassistant.agent.checks.words import sentences


def measure(corpus: Path, split: str) -> tuple[int, list[str], int]:
    """(bounded sentences, misreads, bounds turned over and caught)."""
    bounded, misreads, caught = 0, [], 0
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])
            for sentence in sentences(paragraph):
                if not (match := units._BOUND.search(sentence)):
                    continue
                bounded += 1
                if units.reversed_bounds(sentence, [{"content": others}]):
                    misreads.append(f"{path.name}: {sentence}")
                other = "at least " if match.group("ceiling") else "up to "
                turned = sentence[: match.start()] + other + sentence[match.start(3) :]
                caught += bool(units.reversed_bounds(turned, [{"content": paragraph}]))
    return bounded, misreads, caught


def measure_defaults(corpus: Path, split: str) -> tuple[int, list[str], int, int]:
    """(sentences with a default, a bound or a figure for a value left out, misreads of `swapped_defaults`, roles swapped
    (a default turned into "up to", a bound into "defaults to"), swaps caught)."""
    held, misreads, swapped, caught = 0, [], 0, 0
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])
            for sentence in sentences(paragraph):
                default, bound = units._DEFAULT.search(sentence), units._BOUND.search(sentence)
                if not (default or bound or units._omitted_figures(sentence)):
                    continue
                held += 1
                if units.swapped_defaults(sentence, [{"content": others}]):
                    misreads.append(f"{path.name}: {sentence}")
                if not (default or bound):
                    continue  # "if you leave it out, … 5": held for misreads only
                if default:
                    figure = default.group(1) or default.group(2)
                    turned = sentence[: default.start()] + f"up to {figure}" + sentence[default.end() :]
                else:
                    turned = (
                        sentence[: bound.start()] + f"defaults to {bound.group(3)}" + sentence[bound.end() :]
                    )
                swapped += 1
                caught += bool(units.swapped_defaults(turned, [{"content": paragraph}]))
    return held, misreads, swapped, caught


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--list", action="store_true", help="print every misread")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"no corpus folder at {args.corpus}")
    for split in ("dev", "test"):
        bounded, misreads, caught = measure(args.corpus, split)
        print(
            f"{split}: misreads {len(misreads)} of {bounded} bounded sentences; turned over caught {caught} of {bounded}"
        )
        if args.list:
            print("\n".join(f"  {m}" for m in misreads))
        held, misreads, swapped, caught = measure_defaults(args.corpus, split)
        print(
            f"{split} defaults: misreads {len(misreads)} of {held} sentences with a default or a bound; "
            f"roles swapped caught {caught} of {swapped}"
        )
        if args.list:
            print("\n".join(f"  {m}" for m in misreads))


if __name__ == "__main__":
    main()
