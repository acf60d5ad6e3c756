"""How often condition 9's figure check (`agent/checks/sibling_figures.py`, `sibling_figures`) misfires
and what it catches.

Usage: .venv/bin/python eval/sibling_figure_checks.py --corpus PATH [--list]

- Misreads: each sentence or table row of a corpus page that names a two-word term and a
  figure, held to the other paragraphs of its page (code blocks left out). A page that
  gives a term one figure in one place and another figure elsewhere can be right both
  times, so every misread is a false alarm the check would raise on a faithful answer
  citing the other part of its page.
- Caught: within one paragraph, two lines giving figures to terms with one head and two
  modifiers ("connect timeout", "request timeout"), no figure in common; the first term
  given the second one's figure ("The connect timeout is 30.") is held to the paragraph.
- Gold: the docs-QA answers (eval/docs_qa.jsonl) held to their whole source files.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reversal_checks import pages

from docsassistant.agent.checks import sibling_figures, sibling_terms
from docsassistant.agent.checks.figures import stated_figures
from docsassistant.agent.checks.wrapped_lines import unwrapped


def _lines(paragraph: str) -> list[tuple[str, set[tuple[str, str]], set[str]]]:
    plain = sibling_figures._plain(paragraph)
    return [
        (s, sibling_terms.terms(s), set(stated_figures(s)))
        for s in sibling_figures._SENTENCE.split(plain)
        if s.strip()
    ]


def measure(corpus: Path, split: str) -> tuple[int, list[str], int, int]:
    """(lines with a term and a figure, misreads, swaps made, swaps caught)."""
    lines, misreads, swaps, caught = 0, [], 0, 0
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = [{"content": "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])}]
            held = _lines(paragraph)
            for line, line_terms, figures in held:
                if not (line_terms and figures):
                    continue
                lines += 1
                if sibling_figures.sibling_figures(line, others):
                    misreads.append(f"{path.name}: {line.strip()[:160]}")
            made = set()
            subjects = [(line, sibling_figures._subjects(line)) for line, _, _ in held]
            for first, first_subjects in subjects:
                for _, second_subjects in subjects:
                    for (modifier, head), figures in sorted(first_subjects.items()):
                        rival = [
                            f
                            for (m, h), f in second_subjects.items()
                            if h == head and m != modifier and not f & figures
                        ]
                        if rival and (modifier, head) not in second_subjects and (modifier, head) not in made:
                            made.add((modifier, head))
                            statement = (
                                f"The {sibling_terms.as_written(first, modifier, head)} is {min(rival[0])}."
                            )
                            swaps += 1
                            caught += bool(
                                sibling_figures.sibling_figures(statement, [{"content": paragraph}])
                            )
    return lines, misreads, swaps, caught


def gold(corpus: Path, qa: Path) -> tuple[int, list[str]]:
    """(answers held, answers flagged) over the docs-QA set's answers with sources."""
    held, flagged = 0, []
    for row in map(json.loads, qa.read_text().splitlines()):
        if not row["sources"]:
            continue
        held += 1
        sources = [{"content": unwrapped((corpus / p).read_text(errors="ignore"))} for p in row["sources"]]
        if found := sibling_figures.sibling_figures(row["answer"], sources):
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
        lines, misreads, swaps, caught = measure(args.corpus, split)
        print(
            f"{split}: misreads {len(misreads)} of {lines} lines; swapped figures caught {caught} of {swaps}"
        )
        if args.list:
            print("\n".join(f"  {m}" for m in misreads))
    held, flagged = gold(args.corpus, args.qa)
    print(f"gold answers: {len(flagged)} of {held} flagged")
    print("\n".join(f"  {f}" for f in flagged))


if __name__ == "__main__":
    main()
