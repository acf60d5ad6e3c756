"""How the comparison check (`agent/checks/comparisons.py`) treats real pages' comparisons.

Usage: .venv/bin/python eval/comparison_checks.py --corpus PATH [--list]

- Misreads: each sentence of a page that compares ("faster build times … than HNSW"),
  held as an answer citing its own page; a page is right about itself, so a flag is a misread.
- Caught: the same sentence with its comparison word turned ("slower", "fewer"), held to
  its own page: a flag is a catch. Most comparing sentences of real pages are thresholds
  ("more than 16,384"), which the check leaves to the figure checks; those stating no
  figure are counted apart.
- Gold: the docs-QA answers, each sentence cited to the chunks holding its evidence.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold
from reversal_checks import pages

from docsassistant.agent.checks import comparisons as check
from docsassistant.agent.checks.figures import stated_figures
from docsassistant.agent.checks.words import sentences

_OPPOSITE_PAIRS = (
    ("higher", "lower"), ("larger", "smaller"), ("longer", "shorter"), ("later", "earlier"),
    ("newer", "older"), ("wider", "narrower"), ("heavier", "lighter"), ("better", "worse"),
    ("faster", "slower"), ("cheaper", "costlier"), ("stricter", "looser"), ("more", "less"),
)  # fmt: skip
# Each word turned the other way; "fewer", "greater" and "bigger" have no pair above.
_TURNED = {a: b for pair in _OPPOSITE_PAIRS for a, b in (pair, pair[::-1])} | {
    "fewer": "more",
    "greater": "smaller",
    "bigger": "smaller",
}


def _turned(sentence: str, match: re.Match[str]) -> str:
    word = match.group("word") or match.group("of_two")
    start = match.start("word") if match.group("word") else match.start("of_two")
    new = _TURNED.get(word.lower(), word)
    return sentence[:start] + new + sentence[start + len(word) :]


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"comparisons": 0, "misread": 0, "caught": 0, "bare": 0, "bare_caught": 0}
    for path, paragraphs in pages(corpus, split):
        page = "\n\n".join(paragraphs)
        source = [{"n": 1, "content": page}]
        for sentence in sentences(page):
            match = check.COMPARISON.search(sentence)
            if not match or "[" in sentence:
                continue
            counts["comparisons"] += 1
            if check.comparisons(f"{sentence.rstrip('.')} [1].", source):
                counts["misread"] += 1
                listing.append(f"misread {path.name}: {sentence[:160]}")
            bare = not stated_figures(sentence)
            counts["bare"] += bare
            if check.comparisons(f"{_turned(sentence, match).rstrip('.')} [1].", source):
                counts["caught"] += 1
                counts["bare_caught"] += bare
            else:
                listing.append(f"missed {path.name}: {_turned(sentence, match)[:160]}")
    return counts


def main() -> None:
    args = arguments(__doc__)
    for split in ("dev", "test"):
        listing: list[str] = []
        counts = measure(args.corpus, split, listing)
        print(
            f"{split}: {counts['comparisons']} comparing sentences; misread {counts['misread']}, "
            f"turned the other way caught {counts['caught']} of {counts['comparisons']} "
            f"({counts['bare_caught']} of the {counts['bare']} stating no figure)"
        )
        if args.list:
            print("\n".join(f"  {line}" for line in listing))
    print_gold(*gold_flags(args.corpus, args.qa, check.comparisons, marked=True))


if __name__ == "__main__":
    main()
