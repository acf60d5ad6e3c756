"""How often the figure-label checks (`agent/checks/figure_labels.py`: `relabelled_figures`,
`figure_of_another_name`) misfire.

Usage: .venv/bin/python eval/label_checks.py --corpus PATH

- Misreads: each sentence of a corpus page with a labelled figure ("TLS 1.2", "Milvus 2.4")
  held to the other paragraphs of its page. A page that names several versions of one
  product ("Milvus 2.3 … Milvus 2.4") is right each time, so every misread is a false alarm
  on a faithful sentence cited to the other part of its page: an upper bound, as an
  answer's cited chunk normally holds its own sentence.
- Gold: the docs-QA answers held to the chunks of their source files holding the evidence.
Pages and splits as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

from pathlib import Path

from corpus_checks import answered, arguments, evidence_chunks, print_gold
from reversal_checks import pages

from docsassistant.agent.checks import figure_labels
from docsassistant.agent.checks.words import sentences


def measure(corpus: Path, split: str) -> tuple[int, list[str]]:
    labelled, misreads = 0, []
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = [{"content": "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])}]
            for sentence in sentences(paragraph):
                if not figure_labels._LABELLED.search(sentence):
                    continue
                labelled += 1
                if found := figure_labels.relabelled_figures(sentence, others):
                    misreads.append(f"{path.name}: {found[0]!r} in {sentence[:120]}")
    return labelled, misreads


def gold(corpus: Path, qa: Path) -> tuple[int, list[str]]:
    held, flagged = 0, []
    for row in answered(qa):
        if not (cited := [{"content": c} for c in evidence_chunks(corpus, row)]):
            continue
        held += 1
        found = figure_labels.relabelled_figures(row["answer"], cited) + figure_labels.figure_of_another_name(
            row["answer"], row["question"], cited
        )
        if found:
            flagged.append(f"{row['id']}: {found[0]}")
    return held, flagged


def main() -> None:
    args = arguments(__doc__)
    for split in ("dev", "test"):
        labelled, misreads = measure(args.corpus, split)
        print(f"{split}: misreads {len(misreads)} of {labelled} sentences with a labelled figure")
        if args.list:
            print("\n".join(f"  {m}" for m in misreads))
    print_gold(*gold(args.corpus, args.qa))


if __name__ == "__main__":
    main()
