"""How often the figure-binding check of condition 8 (`agent/word_support.py`,
`misbound_figures`) misfires and what it catches.

Usage: .venv/bin/python eval/binding_checks.py --corpus PATH

- Caught: within one paragraph, two sentences stating one figure each, different ones;
  the first given the second one's figure ("Version 2.5 introduced rate limiting" beside
  "Version 2.5 removed the XML format") is held to the paragraph.
- Gold: the docs-QA answers (eval/docs_qa.jsonl), each sentence cited to the chunks of
  their source files holding the evidence.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from reversal_checks import pages

from docsassistant.agent import word_support
from docsassistant.agent.grounding import stated_figures
from docsassistant.chunking import chunk_document
from docsassistant.loaders import load_document

_FIGURE = re.compile(r"(?<![\w.\[])\d+(?:[.,]\d+)*(?![\d\]])")


def measure(corpus: Path, split: str) -> tuple[int, int]:
    """(swapped figures made, caught)."""
    made, caught = 0, 0
    for _, paragraphs in pages(corpus, split):
        for paragraph in paragraphs:
            lines = [s for s in word_support.SOURCE_SENTENCE.split(paragraph) if len(stated_figures(s)) == 1]
            for first in lines:
                for second in lines:
                    mine, theirs = stated_figures(first)[0], stated_figures(second)[0]
                    numbers = _FIGURE.findall(first)
                    if mine == theirs or len(numbers) != 1 or len(word_support._words(first)) < 3:
                        continue
                    swapped = _FIGURE.sub(
                        _FIGURE.findall(second)[0] if _FIGURE.findall(second) else theirs, first
                    )
                    if stated_figures(swapped) != [theirs]:
                        continue
                    made += 1
                    caught += bool(
                        word_support.misbound_figures(f"{swapped} [1]", [{"n": 1, "content": paragraph}])
                    )
                    break
    return made, caught


def gold(corpus: Path, qa: Path) -> tuple[int, list[str]]:
    held, flagged = 0, []
    flat = lambda text: re.sub(r"\s+", " ", text)  # noqa: E731
    for row in map(json.loads, qa.read_text().splitlines()):
        if not row["sources"]:
            continue
        chunks = [c.content for p in row["sources"] for c in chunk_document(load_document(corpus / p))]
        evidence = [flat(e)[:60] for e in row["evidence"]]
        cited = [c for c in chunks if any(e in flat(c) for e in evidence)]
        if not cited:
            continue
        held += 1
        sources = [{"n": i, "content": c} for i, c in enumerate(cited, 1)]
        marks = "".join(f"[{i}]" for i in range(1, len(cited) + 1))
        answer = " ".join(
            f"{s.rstrip('.')} {marks}." for s in re.split(r"(?<=[.!?])\s+", row["answer"].strip())
        )
        if found := word_support.misbound_figures(answer, sources):
            flagged.append(f"{row['id']}: {found[0]}")
    return held, flagged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--qa", type=Path, default=Path(__file__).with_name("docs_qa.jsonl"))
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"no corpus folder at {args.corpus}")
    for split in ("dev", "test"):
        made, caught = measure(args.corpus, split)
        print(f"{split}: swapped figures caught {caught} of {made}")
    held, flagged = gold(args.corpus, args.qa)
    print(f"gold answers: {len(flagged)} of {held} flagged")
    print("\n".join(f"  {f}" for f in flagged))


if __name__ == "__main__":
    main()
