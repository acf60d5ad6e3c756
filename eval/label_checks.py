"""How often the figure-label checks (`agent/siblings.py`: `relabelled_figures`,
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

import argparse
import json
import re
from pathlib import Path

from reversal_checks import pages

from docsassistant.agent import siblings
from docsassistant.agent.reversals import sentences
from docsassistant.chunking import chunk_document
from docsassistant.loaders import load_document


def measure(corpus: Path, split: str) -> tuple[int, list[str]]:
    labelled, misreads = 0, []
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = [{"content": "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])}]
            for sentence in sentences(paragraph):
                if not siblings._LABELLED.search(sentence):
                    continue
                labelled += 1
                if found := siblings.relabelled_figures(sentence, others):
                    misreads.append(f"{path.name}: {found[0]!r} in {sentence[:120]}")
    return labelled, misreads


def gold(corpus: Path, qa: Path) -> tuple[int, list[str]]:
    held, flagged = 0, []
    flat = lambda text: re.sub(r"\s+", " ", text)  # noqa: E731
    for row in map(json.loads, qa.read_text().splitlines()):
        if not row["sources"]:
            continue
        chunks = [c.content for p in row["sources"] for c in chunk_document(load_document(corpus / p))]
        cited = [{"content": c} for c in chunks if any(flat(e)[:60] in flat(c) for e in row["evidence"])]
        if not cited:
            continue
        held += 1
        found = siblings.relabelled_figures(row["answer"], cited) + siblings.figure_of_another_name(
            row["answer"], row["question"], cited
        )
        if found:
            flagged.append(f"{row['id']}: {found[0]}")
    return held, flagged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--qa", type=Path, default=Path(__file__).with_name("docs_qa.jsonl"))
    parser.add_argument("--list", action="store_true", help="print every misread")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"no corpus folder at {args.corpus}")
    for split in ("dev", "test"):
        labelled, misreads = measure(args.corpus, split)
        print(f"{split}: misreads {len(misreads)} of {labelled} sentences with a labelled figure")
        if args.list:
            print("\n".join(f"  {m}" for m in misreads))
    held, flagged = gold(args.corpus, args.qa)
    print(f"gold answers: {len(flagged)} of {held} flagged")
    print("\n".join(f"  {f}" for f in flagged))


if __name__ == "__main__":
    main()
