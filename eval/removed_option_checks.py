"""How often the removed-option check (`agent/checks/removed_options.py`) fires on real pages
and what it catches.

Usage: .venv/bin/python eval/removed_option_checks.py --corpus PATH [--list]

- Statements: the backquoted names each page says are removed, deprecated or replaced.
- Plain mentions: every other sentence of a page naming one of its removed names, held as an
  answer to the page: flagged ones are what the check would say of an answer repeating them
  (a migration note that names the old option without the word is a misfire; `--list` prints
  them to read).
- Caught: a page sentence naming a replacement ("renamed to `y`", "replaced by `y`", "in
  favour of `y`", "use `y` instead") with the removed name put in its place: the answer a
  model writes from an older release's memory.
- Gold: the docs-QA answers, each sentence cited to the chunks holding its evidence.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import removed_options
from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE
from docsassistant.agent.checks.wrapped_lines import unwrapped

_SUCCESSOR = re.compile(
    r"`(?P<old>[^`\s]+)`[^.`]{0,80}?(?:renamed\s+to|replaced\s+by|in\s+favou?r\s+of)\s+(?:\w+\s+){0,3}?`(?P<new>[^`\s]+)`"
    r"|`(?P<old2>[^`\s]+)`[^`]{0,80}?\.\s+use\s+`(?P<new2>[^`\s]+)`\s+instead",
    re.I,
)


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"pages": 0, "names": 0, "mentions": 0, "flagged": 0, "made": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        page = unwrapped(path.read_text(errors="replace"))
        gone = removed_options.removed_names(page)
        if not gone:
            continue
        counts["pages"] += 1
        counts["names"] += len(gone)
        source = [{"n": 1, "content": page}]
        for sentence in SOURCE_SENTENCE.split(page):
            named = {n.lower() for n in re.findall(r"`([^`\s]+)`", sentence)}
            if not named & gone or removed_options.removed_names(sentence):
                continue
            counts["mentions"] += 1
            if removed_options.removed_options(f"{sentence.strip()} [1]", source):
                counts["flagged"] += 1
                listing.append(f"{split} {path.name}: {sentence.strip()[:160]}")
        for m in _SUCCESSOR.finditer(page):
            old, new = (m.group("old") or m.group("old2")), (m.group("new") or m.group("new2"))
            if old.lower() not in gone:
                continue
            for sentence in SOURCE_SENTENCE.split(page):
                if (
                    f"`{new}`" in sentence
                    and f"`{old}`" not in sentence
                    and not removed_options._AWARE.search(sentence)
                ):
                    counts["made"] += 1
                    answer = sentence.strip().replace(f"`{new}`", f"`{old}`") + " [1]"
                    counts["caught"] += bool(removed_options.removed_options(answer, source))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: {c['names']} removed names on {c['pages']} pages; plain mentions flagged"
            f" {c['flagged']} of {c['mentions']}; old name put for its successor, caught {c['caught']}"
            f" of {c['made']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, removed_options.removed_options))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
