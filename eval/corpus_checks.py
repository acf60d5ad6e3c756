"""What the corpus-measuring scripts of this folder share: their arguments, the docs-QA
rows they hold gold answers of, and the chunks holding a row's evidence."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from docsassistant.agent.checks.wrapped_lines import unwrapped
from docsassistant.chunking import chunk_document
from docsassistant.loaders import load_document

QA = Path(__file__).with_name("docs_qa.jsonl")


def arguments(doc: str) -> argparse.Namespace:
    """--corpus (required, an existing folder), --qa and --list, described by `doc`'s first line."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--list", action="store_true", help="print every misread")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"no corpus folder at {args.corpus}")
    return args


def answered(qa: Path) -> Iterator[dict]:
    """The docs-QA rows that have source files (answerable, not counting)."""
    for row in map(json.loads, qa.read_text().splitlines()):
        if row["sources"]:
            yield row


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def evidence_chunks(corpus: Path, row: dict) -> list[str]:
    """The chunks (as indexing cuts them, their wrapped lines joined as verify reads them) of
    the row's source files that hold one of its evidence strings (their first 60 characters)."""
    chunks = [unwrapped(c.content) for p in row["sources"] for c in chunk_document(load_document(corpus / p))]
    return [c for c in chunks if any(_flat(e)[:60] in _flat(c) for e in row["evidence"])]


def print_gold(held: int, flagged: list[str]) -> None:
    print(f"gold answers: {len(flagged)} of {held} flagged")
    print("\n".join(f"  {f}" for f in flagged))


def gold_flags(
    corpus: Path, qa: Path, check: Callable[..., list[str]], *, marked: bool = False, asked: bool = False
) -> tuple[int, list[str]]:
    """(answers held, the flagged ones) of `check(answer, sources)` on the docs-QA gold answers,
    each held to the chunks holding its evidence. `marked`: each sentence cited to all those
    chunks, as a model would cite them; `asked`: the question is passed as a third argument."""
    held, flagged = 0, []
    for row in answered(qa):
        if not (cited := evidence_chunks(corpus, row)):
            continue
        held += 1
        sources = [{"n": i, "content": c} for i, c in enumerate(cited, 1)]
        answer = row["answer"]
        if marked:
            marks = "".join(f"[{i}]" for i in range(1, len(cited) + 1))
            answer = " ".join(f"{s.rstrip('.')} {marks}." for s in re.split(r"(?<=[.!?])\s+", answer.strip()))
        if found := check(answer, sources, *([row["question"]] if asked else [])):
            flagged.append(f"{row['id']}: {found[0]}")
    return held, flagged
