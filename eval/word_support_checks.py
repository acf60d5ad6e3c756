"""How the word-support check (`agent/checks/word_support.py`) treats right answers and
answers cited to the wrong page.

Usage: .venv/bin/python eval/word_support_checks.py --corpus PATH [--list]

Per split of the docs-QA set, each gold answer (its question restated before it as a cited
sentence, as models write) is held to:
- the chunks holding its evidence: a flag is a false alarm;
- the chunks holding the next answered row's evidence, from other files: a flag is a catch
  (the citation points at a page that does not say it).
"""

from __future__ import annotations

from corpus_checks import answered, arguments, evidence_chunks

from docsassistant.agent.checks.word_support import weakly_supported


def _flagged(question: str, answer: str, chunks: list[str]) -> list[str]:
    sources = [{"n": i, "content": c} for i, c in enumerate(chunks, 1)]
    marks = "".join(f"[{i}]" for i in range(1, len(chunks) + 1))
    text = f"{question.rstrip('?')} {marks}. {answer.rstrip('.')} {marks}."
    return weakly_supported(text, sources, question)


def main() -> None:
    args = arguments(__doc__)
    rows = [(r, c) for r in answered(args.qa) if (c := evidence_chunks(args.corpus, r))]
    for split in ("dev", "test"):
        mine = [(r, c) for r, c in rows if r["split"] == split]
        alarms, caught, wrong = [], 0, 0
        for i, (row, chunks) in enumerate(mine):
            if found := _flagged(row["question"], row["answer"], chunks):
                alarms.append(f"{row['id']}: {found[0]}")
            other = next(
                (c for r, c in mine[i + 1 :] + mine[:i] if not set(r["sources"]) & set(row["sources"])), None
            )
            if other:
                wrong += 1
                caught += bool(_flagged(row["question"], row["answer"], other))
        print(
            f"{split}: gold answers flagged {len(alarms)} of {len(mine)}; cited to another page, caught {caught} of {wrong}"
        )
        if args.list:
            print("\n".join(f"  {a}" for a in alarms))


if __name__ == "__main__":
    main()
