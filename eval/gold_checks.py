"""Every code check at once on the docs-QA gold answers: how many right answers the checks,
together, keep from `grounded`.

Usage: .venv/bin/python eval/gold_checks.py --corpus PATH [--list]

Each gold answer is held, as `verify` holds an answer, to the chunks holding its evidence
(every sentence cited to all of them, every claim verified supported), with its question as
the user's message. A finding of any check (`agent/checks/findings.py`) counts as a flag:
the answer is right, so each flag is a false alarm. The per-check scripts of this folder
measure one check each; this one measures what the reader sees.
"""

from __future__ import annotations

import re
from collections import Counter

from corpus_checks import answered, arguments, evidence_chunks

from docsassistant.agent.checks.findings import code_findings
from docsassistant.agent.schemas import ClaimCheck


def main() -> None:
    args = arguments(__doc__)
    held, flagged, kinds = 0, [], Counter()
    for row in answered(args.qa):
        if not (cited := evidence_chunks(args.corpus, row)):
            continue
        held += 1
        sources = [{"n": i, "content": c} for i, c in enumerate(cited, 1)]
        numbers = list(range(1, len(cited) + 1))
        marks = "".join(f"[{i}]" for i in numbers)
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", row["answer"].strip()) if s]
        answer = " ".join(f"{s.rstrip('.')} {marks}." for s in sentences)
        claims = [ClaimCheck(claim=s, supported=True, sources=numbers) for s in sentences]
        found = code_findings(
            answer,
            sources,
            row["question"],
            seen=sources,
            cited=numbers,
            claims=claims,
            user_messages=[row["question"]],
            standalone_question=row["question"],
            sufficient=True,
            chunks=[],
        )
        lists = {k: getattr(found, k) for k in ("unbacked", "reversals", "weak", "off_question", "unchecked")}
        if any(lists.values()):
            kind, items = next((k, v) for k, v in lists.items() if v)
            kinds[kind] += 1
            flagged.append(f"{row['id']} ({kind}): {items[0]}")
    print(f"gold answers flagged by any check: {len(flagged)} of {held} ({dict(kinds)})")
    if args.list:
        print("\n".join(f"  {f}" for f in flagged))


if __name__ == "__main__":
    main()
