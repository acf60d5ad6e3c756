"""How often the count check of condition 5 (`agent/checks/counts.py`, `miscounted`) misfires on
real pages and what it catches.

Usage: .venv/bin/python eval/count_checks.py --corpus PATH [--list]

- Misreads: each sentence of a corpus page that counts something ("3 replicas", "two
  options") is held to the other paragraphs of its page. A page may count one thing
  differently in two places and be right both times, so this is an upper bound on the
  false alarms on a faithful answer that cites the other part of its page.
- Caught: the same sentence with its first count changed (3 → 4 and 3 → "a single"; 1 → two;
  once ↔ twice)
  is held to its own paragraph.
- Gold: the docs-QA answers (eval/docs_qa.jsonl) held to their whole source files.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

from pathlib import Path

from corpus_checks import answered, arguments, print_gold
from reversal_checks import pages

from docsassistant.agent.checks import counts, units
from docsassistant.agent.checks.words import sentences
from docsassistant.agent.checks.wrapped_lines import unwrapped


def _changed(sentence: str, match) -> list[str]:
    """The sentence with the count of `match` changed both ways a model changes one: up by
    one ("4 replicas" for 3) and, above one, to "a single" (QA round 11 s55); one becomes two."""
    count = "1" if match.group("one") else units.number_key(match.group("n"))
    start = match.start("one") if match.group("one") else match.start("n")
    noun = match.group("noun")
    if count == "1":
        return [
            sentence[:start] + "two" + match.group("between") + " " + noun + "s" + sentence[match.end() :]
        ]
    single = f"a single{match.group('between')} {counts._singular(noun)}"
    return [
        sentence[:start] + str(int(count) + 1) + sentence[match.end("n") :],
        sentence[:start] + single + sentence[match.end() :],
    ]


def measure(corpus: Path, split: str) -> tuple[int, list[str], int, int]:
    """(sentences that count something, misreads, changed counts made, caught)."""
    counted, misreads, made, caught = 0, [], 0, 0
    for path, paragraphs in pages(corpus, split):
        for i, paragraph in enumerate(paragraphs):
            others = "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])
            for sentence in sentences(paragraph):
                if not counts._counts(sentence, plain_one=False):
                    continue
                counted += 1
                if found := counts.miscounted(sentence, [{"content": others}]):
                    misreads.append(f"{path.name}: {found[0]!r} in {sentence.strip()[:160]}")
                match = next(
                    (
                        m
                        for m in counts._COUNTED.finditer(sentence)
                        if counts._counts(m.group(0), plain_one=False)
                    ),
                    None,
                )
                if match is None:  # "once", "twice": the other one
                    times = counts._TIMES.search(sentence)
                    other = "once" if times.group(0) != "once" else "twice"
                    variants = [sentence[: times.start()] + other + sentence[times.end() :]]
                else:
                    variants = _changed(sentence, match)
                for changed in variants:
                    made += 1
                    caught += bool(counts.miscounted(changed, [{"content": paragraph}]))
    return counted, misreads, made, caught


def gold(corpus: Path, qa: Path) -> tuple[int, list[str]]:
    """(answers held, answers flagged) over the docs-QA set's answers with sources."""
    held, flagged = 0, []
    for row in answered(qa):
        held += 1
        sources = [{"content": unwrapped((corpus / p).read_text(errors="ignore"))} for p in row["sources"]]
        if found := counts.miscounted(row["answer"], sources):
            flagged.append(f"{row['id']}: {found[0]}")
    return held, flagged


def main() -> None:
    args = arguments(__doc__)
    for split in ("dev", "test"):
        counted, misreads, made, caught = measure(args.corpus, split)
        print(
            f"{split}: misreads {len(misreads)} of {counted} counting sentences; "
            f"changed counts caught {caught} of {made}"
        )
        if args.list:
            print("\n".join(f"  {m}" for m in misreads))
    print_gold(*gold(args.corpus, args.qa))


if __name__ == "__main__":
    main()
