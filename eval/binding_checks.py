"""How often the figure-binding check of condition 8 (`agent/checks/figure_binding.py`,
`misbound_figures`) misfires and what it catches.

Usage: .venv/bin/python eval/binding_checks.py --corpus PATH

- Caught: within one paragraph, two sentences stating one figure each, different ones;
  the first given the second one's figure ("Version 2.5 introduced rate limiting" beside
  "Version 2.5 removed the XML format") is held to the paragraph.
- Several figures: a sentence stating two or more figures, one of them
  replaced by a figure another sentence of its paragraph states, is caught; the sentence
  as written, cited to its paragraph, is misread when flagged (QA round 13 w34).
- Gold: the docs-QA answers (eval/docs_qa.jsonl), each sentence cited to the chunks of
  their source files holding the evidence.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import answered, arguments, evidence_chunks, print_gold
from reversal_checks import pages

from docsassistant.agent.checks import cited_clauses, figure_binding
from docsassistant.agent.checks.figures import stated_figures

_FIGURE = re.compile(r"(?<![\w.\[])\d+(?:[.,]\d+)*(?![\d\]])")


def measure(corpus: Path, split: str) -> tuple[int, int]:
    """(swapped figures made, caught)."""
    made, caught = 0, 0
    for _, paragraphs in pages(corpus, split):
        for paragraph in paragraphs:
            lines = [s for s in cited_clauses.SOURCE_SENTENCE.split(paragraph) if len(stated_figures(s)) == 1]
            for first in lines:
                for second in lines:
                    mine, theirs = stated_figures(first)[0], stated_figures(second)[0]
                    numbers = _FIGURE.findall(first)
                    if mine == theirs or len(numbers) != 1 or len(cited_clauses.prose_words(first)) < 3:
                        continue
                    swapped = _FIGURE.sub(
                        _FIGURE.findall(second)[0] if _FIGURE.findall(second) else theirs, first
                    )
                    if stated_figures(swapped) != [theirs]:
                        continue
                    made += 1
                    caught += bool(
                        figure_binding.misbound_figures(f"{swapped} [1]", [{"n": 1, "content": paragraph}])
                    )
                    break
    return made, caught


def measure_several(corpus: Path, split: str) -> tuple[int, int, int, int]:
    """(sentences of several figures, misread as written, swapped figures made, caught)."""
    held, misread, made, caught = 0, 0, 0, 0
    for _, paragraphs in pages(corpus, split):
        for paragraph in paragraphs:
            source = [{"n": 1, "content": paragraph}]
            lines = cited_clauses.SOURCE_SENTENCE.split(paragraph)
            for first in lines:
                numbers = _FIGURE.findall(first)
                if len(set(stated_figures(first))) < 2 or len(numbers) < 2 or "[" in first:
                    continue
                held += 1
                misread += bool(figure_binding.misbound_figures(f"{first} [1]", source))
                last = numbers[-1]
                theirs = next(
                    (n for s in lines if s != first for n in _FIGURE.findall(s) if n not in numbers), None
                )
                if theirs is None:
                    continue
                head, _, tail = first.rpartition(last)
                made += 1
                caught += bool(figure_binding.misbound_figures(f"{head}{theirs}{tail} [1]", source))
    return held, misread, made, caught


def gold(corpus: Path, qa: Path) -> tuple[int, list[str]]:
    held, flagged = 0, []
    for row in answered(qa):
        if not (cited := evidence_chunks(corpus, row)):
            continue
        held += 1
        sources = [{"n": i, "content": c} for i, c in enumerate(cited, 1)]
        marks = "".join(f"[{i}]" for i in range(1, len(cited) + 1))
        answer = " ".join(
            f"{s.rstrip('.')} {marks}." for s in re.split(r"(?<=[.!?])\s+", row["answer"].strip())
        )
        if found := figure_binding.misbound_figures(answer, sources):
            flagged.append(f"{row['id']}: {found[0]}")
    return held, flagged


def main() -> None:
    args = arguments(__doc__)
    for split in ("dev", "test"):
        made, caught = measure(args.corpus, split)
        print(f"{split}: swapped figures caught {caught} of {made}")
        held, misread, made, caught = measure_several(args.corpus, split)
        print(
            f"{split}: sentences of several figures misread {misread} of {held};"
            f" one figure swapped, caught {caught} of {made}"
        )
    print_gold(*gold(args.corpus, args.qa))


if __name__ == "__main__":
    main()
