"""How the asked-figure check (`agent/checks/asked_figures.py`) treats the gold answers.

Usage: .venv/bin/python eval/asked_figure_checks.py [--qa FILE]...

For each docs-QA set, the questions asking for a figure ("how long", "what is the default
…"), and how many of their gold answers the check flags (each a false alarm): the gold
answers answer their question. Needs no corpus.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from corpus_checks import QA

from docsassistant.agent.checks.asked_figures import asks_for_figure, figure_not_given


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qa", type=Path, action="append", help=f"a docs-QA file (default {QA.name})")
    for path in parser.parse_args().qa or [QA]:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        asking = [r for r in rows if asks_for_figure(r["question"])]
        flagged = [r for r in asking if figure_not_given(r.get("answer") or "", r["question"])]
        print(
            f"{path.name}: {len(asking)} of {len(rows)} questions ask for a figure; gold flagged {len(flagged)}"
        )
        for row in flagged:
            print(f"  {row['id']}: {row['question']} -> {row['answer']}")


if __name__ == "__main__":
    main()
