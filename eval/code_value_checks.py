"""How often the code-value check (`agent/checks/code_values.py`) misfires on real pages and
what it catches.

Usage: .venv/bin/python eval/code_value_checks.py --corpus PATH [--list]

Each code block of a corpus page, chunked as indexing cuts it, is an answer's code:
- held to its own chunk, a flagged line is a misread (the parser disagrees with itself);
- held to each other chunk of its page that gives the line's key a value: a flagged line is
  an answer quoting one example while its evidence is another part of the page, which sets the
  key to something else (the value is then really not backed; not a misread, a context figure);
- each line with its value changed (a number plus one, a word reversed), held to its own
  chunk, caught or not.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments

from docsassistant.agent.checks import code_values
from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.wrapped_lines import unwrapped
from docsassistant.chunking import chunk_document
from docsassistant.loaders import LoaderError, load_document


def _changed(value: str) -> str:
    bare = value.strip("\"'")
    if re.fullmatch(r"\d+", bare):
        return value.replace(bare, str(int(bare) + 1))
    return value.replace(bare, bare[::-1] + "x")


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"lines": 0, "own": 0, "others_held": 0, "others_flagged": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        try:
            chunks = [unwrapped(c.content) for c in chunk_document(load_document(path))]
        except LoaderError:
            continue
        for j, chunk in enumerate(chunks):
            for block in FENCED_CODE.finditer(chunk):
                answer = block.group(0)
                for m in code_values._ASSIGNMENT.finditer(answer):
                    value = m.group("value").strip("\"'")
                    if not value or code_values._PLACEHOLDER.search(value):
                        continue
                    counts["lines"] += 1
                    line = m.group(0)
                    if code_values.unbacked_code_values(f"```\n{line}\n```", [{"content": chunk}]):
                        counts["own"] += 1
                        listing.append(f"own {path.name}: {line.strip()}")
                    last = m.group("key").rsplit(".", 1)[-1].lower()
                    for k, other in enumerate(chunks):
                        if k != j and (
                            code_values._documented(m.group("key"), other)
                            or code_values._documented(last, other)
                        ):
                            counts["others_held"] += 1
                            if code_values.unbacked_code_values(f"```\n{line}\n```", [{"content": other}]):
                                counts["others_flagged"] += 1
                                listing.append(f"other {path.name}: {line.strip()}")
                    changed = line.replace(m.group("value"), _changed(m.group("value")), 1)
                    counts["caught"] += bool(
                        code_values.unbacked_code_values(f"```\n{changed}\n```", [{"content": chunk}])
                    )
    return counts


def main() -> None:
    args = arguments(__doc__)
    for split in ("dev", "test"):
        listing: list[str] = []
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: {c['lines']} code lines; misread against their own chunk {c['own']}; "
            f"not backed by another chunk of the page that sets the key {c['others_flagged']} of "
            f"{c['others_held']}; values changed caught {c['caught']} of {c['lines']}"
        )
        if args.list:
            print("\n".join(f"  {line}" for line in listing))


if __name__ == "__main__":
    main()
