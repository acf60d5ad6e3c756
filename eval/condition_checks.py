"""How often the dropped-condition check (`agent/checks/conditions.py`) misfires on real
pages and what it catches.

Usage: .venv/bin/python eval/condition_checks.py --corpus PATH [--list]

- Misread: every prose sentence of a paragraph holding a conditioned sentence ("If …, …"),
  held as an answer to that paragraph, is flagged: the page itself says it that way.
- Caught: a conditioned sentence's main clause alone, held to its paragraph (QA round 13
  w08: "acknowledged messages can be lost if the broker crashes" for "With `never`, …").
- Gold: the docs-QA answers, held with their questions to the chunks holding their evidence.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold
from reversal_checks import pages

from docsassistant.agent.checks import conditions
from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"sentences": 0, "misread": 0, "made": 0, "caught": 0}
    for _, paragraphs in pages(corpus, split):
        for paragraph in paragraphs:
            if not conditions.conditioned(paragraph):
                continue
            source = [{"n": 1, "content": paragraph}]
            for sentence in SOURCE_SENTENCE.split(paragraph):
                sentence = sentence.strip()
                if len(sentence.split()) < 4 or sentence.startswith(("|", "#", "=")):
                    continue
                counts["sentences"] += 1
                if conditions.dropped_conditions(f"{sentence} [1]", source):
                    counts["misread"] += 1
                    listing.append(f"{split} misread: {sentence[:160]}")
                if m := conditions.split_condition(sentence):
                    counts["made"] += 1
                    main = m[1].strip()
                    answer = f"{main[0].upper()}{main[1:].rstrip('.')} [1]."
                    counts["caught"] += bool(conditions.dropped_conditions(answer, source))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: sentences beside a conditioned one misread {c['misread']} of {c['sentences']};"
            f" main clause without its condition, caught {c['caught']} of {c['made']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, conditions.dropped_conditions, marked=True, asked=True))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
