"""How often the step-order check (`agent/checks/step_order.py`) fires on real pages and
what it catches.

Usage: .venv/bin/python eval/step_order_checks.py --corpus PATH [--list]

- Orders: the (earlier, later) pairs of backquoted things each page puts in order (numbered
  lists, "first … then" sentences).
- Misreads: each paragraph that orders two things, held as an answer to the rest of its page;
  a page does not reverse its own steps, so a flag is a misread.
- Caught: the same paragraph with its first ordered pair swapped (two numbered items
  exchanged, or two backquoted things of a sentence), held to its own page.
- Gold: the docs-QA answers, each sentence cited to the chunks holding its evidence.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import step_order
from docsassistant.agent.checks.wrapped_lines import unwrapped


def _swapped(paragraph: str, pair: tuple[str, str]) -> str:
    """`paragraph` with the first written forms of the pair's two things exchanged."""
    spans = {m.group(1).lower(): m.group(0) for m in re.finditer(r"`([^`\n]+)`", paragraph)}
    a, b = spans.get(pair[0]), spans.get(pair[1])
    if not a or not b:
        return paragraph
    return paragraph.replace(a, "\0").replace(b, a).replace("\0", b)


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"pages": 0, "pairs": 0, "held": 0, "misread": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        page = unwrapped(path.read_text(errors="replace"))
        if not (order := step_order.source_order(page)):
            continue
        counts["pages"] += 1
        counts["pairs"] += len(order)
        paragraphs = re.split(r"\n\s*\n", page)
        for j, paragraph in enumerate(paragraphs):
            pairs = sorted(step_order.source_order(paragraph))
            if not pairs:
                continue
            counts["held"] += 1
            rest = [{"content": "\n\n".join(paragraphs[:j] + paragraphs[j + 1 :])}]
            if step_order.reordered_steps(paragraph, rest):
                counts["misread"] += 1
                listing.append(f"{split} {path.name}: {paragraph.strip()[:160]}")
            turned = _swapped(paragraph, pairs[0])
            counts["caught"] += bool(step_order.reordered_steps(turned, [{"content": paragraph}]))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: {c['pairs']} ordered pairs on {c['pages']} pages; paragraphs misread {c['misread']} of"
            f" {c['held']}; first pair swapped, caught {c['caught']} of {c['held']}"
        )
    if args.list:
        print("\n".join(f"  {line}" for line in listing))
    print_gold(*gold_flags(args.corpus, args.qa, step_order.reordered_steps, marked=True))


if __name__ == "__main__":
    main()
