"""How often the paired-name check (`agent/checks/paired_names.py`) misfires on real pages and
what it catches.

Usage: .venv/bin/python eval/paired_name_checks.py --corpus PATH [--list]

Files alternate dev/test as in `eval/reversal_checks.py`. On each page:
- each prose sentence with a pair "A (B)" of names, held to its page: a flag is a misread;
- each table row holding two names a, b: "`a` (`b`) [1]." is a misread if flagged; with b
  replaced by the name in the same cell of the next row that holds two names (blind QA round
  20 w38: a code paired with the next row's error name), it is caught or not.
- Gold: the docs-QA answers, held to the chunks holding their evidence.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import paired_names
from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, TABLE_CELLS
from docsassistant.agent.checks.wrapped_lines import unwrapped


def _row_names(line: str) -> list[str]:
    """The first name of each cell of a table line that holds one, in cell order."""
    m = TABLE_CELLS.match(line)
    cells = m.group(1).split("|") if m else []
    return [found.group(0).strip("`") for c in cells if (found := re.search(paired_names._NAME, c))]


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"sentences": 0, "misread": 0, "rows": 0, "row_misread": 0, "made": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        page = unwrapped(path.read_text(errors="replace"))
        source = [{"content": page}]
        for sentence in SOURCE_SENTENCE.split(page):
            if TABLE_CELLS.match(sentence) or not paired_names._PAIR.search(sentence):
                continue
            counts["sentences"] += 1
            if paired_names.mispaired_names(f"{sentence} [1]", source):
                counts["misread"] += 1
                listing.append(f"{split} misread {path.name}: {sentence[:160]}")
        rows = [names for line in page.splitlines() if len(names := _row_names(line)) >= 2]
        for row, following in zip(rows, [*rows[1:], []], strict=False):
            counts["rows"] += 1
            if paired_names.mispaired_names(f"`{row[0]}` (`{row[1]}`) [1].", source):
                counts["row_misread"] += 1
                listing.append(f"{split} misread {path.name}: `{row[0]}` (`{row[1]}`)")
            if len(following) >= 2 and following[1].lower() != row[1].lower():
                counts["made"] += 1
                wrong = f"`{row[0]}` (`{following[1]}`) [1]."
                counts["caught"] += bool(paired_names.mispaired_names(wrong, source))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: prose pairs misread {c['misread']} of {c['sentences']}; a row's own pair misread"
            f" {c['row_misread']} of {c['rows']}; the next row's name paired, caught {c['caught']} of {c['made']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, paired_names.mispaired_names))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
