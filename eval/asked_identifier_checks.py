"""How the asked-identifier check (`agent/checks/asked_identifiers.py`) treats the gold answers.

Usage: .venv/bin/python eval/asked_identifier_checks.py [--qa FILE]...

For each docs-QA set, the questions naming a path, a command-line option or an environment
variable, and how many of their gold answers the check flags (each a false alarm): the gold
answers answer their question. Then the same gold answers with each asked identifier
swapped for another of its kind from the question's evidence: how many the check catches.
Needs no corpus.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from corpus_checks import QA

from docsassistant.agent.checks.asked_identifiers import JUDGED, identifiers, other_identifier


def swapped(row: dict) -> str | None:
    """The gold answer with every asked identifier replaced by another of its kind that the
    evidence names, or None when the evidence names no other or the answer names none."""
    asked = identifiers(row["question"])
    evidence = identifiers(" ".join(row.get("evidence") or []))
    answer = row.get("answer") or ""
    changed = answer
    for kind in JUDGED:
        names = asked.get(kind, set())
        others = sorted(evidence.get(kind, set()) - names)
        for name in names:
            if others and name in changed.lower():
                changed = re.sub(re.escape(name), others[0], changed, flags=re.I)
    return changed if changed != answer else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qa", type=Path, action="append", help=f"a docs-QA file (default {QA.name})")
    for path in parser.parse_args().qa or [QA]:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for split in sorted({r.get("split", "all") for r in rows}):
            part = [r for r in rows if r.get("split", "all") == split]
            naming = [r for r in part if set(identifiers(r["question"])) & set(JUDGED)]
            flagged = [r for r in naming if other_identifier(r.get("answer") or "", r["question"])]
            swaps = [(r, s) for r in naming if (s := swapped(r))]
            caught = [r for r, s in swaps if other_identifier(s, r["question"])]
            print(
                f"{path.name} {split}: {len(naming)} of {len(part)} questions name a path, option or variable; "
                f"gold flagged {len(flagged)}; swapped for another of the evidence's caught "
                f"{len(caught)} of {len(swaps)}"
            )
            for row in flagged:
                print(f"  flagged {row['id']}: {row['question']} -> {row['answer']}")


if __name__ == "__main__":
    main()
