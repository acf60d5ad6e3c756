"""How the skipped-step check (`agent/checks/skipped_steps.py`) treats real procedures.

Usage: .venv/bin/python eval/skipped_step_checks.py --corpus PATH [--list]

Each numbered list of two steps or more in a corpus chunk (chunked as indexing cuts it) is a
cited procedure; the question is "Is it enough to …?" (the check needs one asking whether
something suffices):
- Whole: "Yes." followed by every step, held to the chunk; a flag is a misread (a step read
  as left out although written).
- Dropped: the same with one step left out (each step in turn); caught, or the step counted
  as restated because the others share half of its words.
- Gold: the docs-QA answers, with their questions, each sentence cited to the chunks holding
  its evidence.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import skipped_steps as ss
from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.wrapped_lines import unwrapped
from docsassistant.chunking import chunk_document
from docsassistant.loaders import LoaderError, load_document

ASKED = "Is it enough to do this?"


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"lists": 0, "misread": 0, "dropped": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        try:
            document = load_document(path)
        except LoaderError:
            continue
        for chunk in chunk_document(document):
            content = unwrapped(chunk.content)
            source = [{"content": content}]
            steps = ss.STEP.findall(FENCED_CODE.sub(" ", content))
            if len(steps) < ss.MIN_STEPS:
                continue
            counts["lists"] += 1
            if ss.skipped_steps("Yes. " + " ".join(steps), ASKED, source):
                counts["misread"] += 1
                listing.append(f"{split} misread {path.name}: {steps[0][:120]}")
            for k in range(len(steps)):
                counts["dropped"] += 1
                counts["caught"] += bool(
                    ss.skipped_steps("Yes. " + " ".join(steps[:k] + steps[k + 1 :]), ASKED, source)
                )
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: {c['lists']} numbered lists; every step said, misread {c['misread']}; "
            f"one step left out, caught {c['caught']} of {c['dropped']}"
        )
    held, flagged = gold_flags(
        args.corpus,
        args.qa,
        lambda answer, sources, question: ss.skipped_steps(answer, question, sources),
        marked=True,
        asked=True,
    )
    print_gold(held, flagged)
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
