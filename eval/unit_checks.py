"""How the unit check (`units.mismatched_units`) treats real pages.

Usage: .venv/bin/python eval/unit_checks.py --corpus PATH [--list]

Each corpus chunk (cut as indexing cuts it) line stating a figure with a time or size unit
is an answer cited to its chunk:
- as written, a flag is a misread;
- with that figure's unit swapped for another of its kind (ms <-> seconds, minutes <->
  hours, MB <-> GB …), caught or not.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

from pathlib import Path

from corpus_checks import arguments

from docsassistant.agent.checks import units
from docsassistant.agent.checks.wrapped_lines import unwrapped
from docsassistant.chunking import chunk_document
from docsassistant.loaders import LoaderError, load_document

_SWAP = {
    "ms": "seconds",
    "s": "ms",
    "min": "hours",
    "h": "minutes",
    "d": "weeks",
    "wk": "days",
    "mo": "years",
    "yr": "months",
    "b": "KB",
    "kb": "MB",
    "mb": "GB",
    "gb": "MB",
    "tb": "GB",
    "pb": "TB",
}


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"lines": 0, "misread": 0, "swapped": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        try:
            chunks = [unwrapped(c.content) for c in chunk_document(load_document(path))]
        except LoaderError:
            continue
        for chunk in chunks:
            source = [{"content": chunk}]
            for line in chunk.splitlines():
                m = units.WITH_UNIT.search(line)
                if not m or line.lstrip().startswith(("```", "#")):
                    continue
                counts["lines"] += 1
                if units.mismatched_units(f"{line} [1]", source):
                    counts["misread"] += 1
                    listing.append(f"{split} misread {path.name}: {line[:140]}")
                _, unit = units.unit_of(m)
                swapped = line[: m.start(2)] + _SWAP[unit] + line[m.end(2) :]
                counts["swapped"] += 1
                counts["caught"] += bool(units.mismatched_units(f"{swapped} [1]", source))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: {c['lines']} lines with a unit; as written, misread {c['misread']}; "
            f"unit swapped, caught {c['caught']} of {c['swapped']}"
        )
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
