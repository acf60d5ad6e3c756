"""How often the support-table check (`agent/checks/support_matrix.py`) misfires on real
pages and what it catches.

Usage: .venv/bin/python eval/matrix_checks.py --corpus PATH [--list]

For each cell of a corpus yes/no table, the answer "<column header> supports <row label> [1]."
held to the page: for a "yes" cell a flag is a misread, for a "no" cell it is a catch (QA
round 14 w07: the Vault said to run on macOS, its column saying no).
- For `column_figures.figures_of_other_columns` (blind QA round 19 w21), each row of a table
  whose columns are peers (no default, bound or description header) and each column whose
  cell states a figure: "On <header>, <row label> is <that figure> [1]." is a misread if
  flagged; the same with a figure only another column's cell of the row states is caught or
  not.
- Gold: the docs-QA answers, held to the chunks holding their evidence.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import column_figures, support_matrix
from docsassistant.agent.checks.wrapped_lines import unwrapped

_ROW = re.compile(r"^\s*\|(.*)\|\s*$")


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"yes": 0, "misread": 0, "no": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        page = unwrapped(path.read_text(errors="replace"))
        if not any(r for _, r in support_matrix.denied_cells(page)) and "yes" not in page.lower():
            continue
        source = [{"content": page}]
        rows = [
            [c.strip() for c in m.group(1).split("|")]
            for line in page.splitlines()
            if (m := _ROW.match(line))
        ]
        columns = {c for c, _ in support_matrix.denied_cells(page)}
        header: list[str] | None = None
        for row in rows:
            if support_matrix._SEPARATOR.match("|".join(row)):
                continue
            if header is None or len(row) != len(header):
                header = row
                continue
            for j in range(1, len(row)):
                said = set(support_matrix.tokens(header[j]))
                if not any(set(c.split()) <= said for c in columns) or not support_matrix.tokens(row[0]):
                    continue
                answer = f"{header[j]} supports {row[0]} [1]."
                found = bool(support_matrix.matrix_denials(answer, source))
                if support_matrix._NO.match(row[j]):
                    counts["no"] += 1
                    counts["caught"] += found
                elif support_matrix._YES.match(row[j]):
                    counts["yes"] += 1
                    if found:
                        counts["misread"] += 1
                        listing.append(f"{split} {path.name}: {answer}")
    return counts


def measure_columns(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"own": 0, "misread": 0, "made": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        page = unwrapped(path.read_text(errors="replace"))
        source = [{"content": page}]
        for table in column_figures.matrices(page):
            for label, cells in table.rows:
                for j, own in enumerate(cells):
                    if not own:
                        continue
                    answer = f"On {table.headers[j]}, {label} is {sorted(own)[0]} [1]."
                    counts["own"] += 1
                    if column_figures.figures_of_other_columns(answer, source):
                        counts["misread"] += 1
                        listing.append(f"{split} {path.name}: {answer}")
                    for other in sorted(set().union(*cells) - own):
                        counts["made"] += 1
                        wrong = f"On {table.headers[j]}, {label} is {other} [1]."
                        counts["caught"] += bool(column_figures.figures_of_other_columns(wrong, source))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: yes cells misread {c['misread']} of {c['yes']}; no cells caught {c['caught']} of {c['no']}"
        )
        k = measure_columns(args.corpus, split, listing)
        print(
            f"{split}: a peer column's own figure misread {k['misread']} of {k['own']}; "
            f"another column's, caught {k['caught']} of {k['made']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, support_matrix.matrix_denials))
    print_gold(*gold_flags(args.corpus, args.qa, column_figures.figures_of_other_columns))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
