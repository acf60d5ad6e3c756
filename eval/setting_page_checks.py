"""How often the setting-page check (`agent/checks/setting_pages.py`) misfires on real pages
and what it catches.

Usage: .venv/bin/python eval/setting_page_checks.py --corpus PATH [--list]

Pairs of pages naming one backquoted dotted setting with different figures (each page's
line naming it) are made into turns: the answer "`name` is <figure> [1]", citing page P's
line, the other page Q retrieved too, and a question worded as one of the two lines (its
figures and code cut out).
- Misread: asked in P's words, the answer is flagged.
- Caught: asked in Q's words (QA round 14 w28: the Vault's `retention.keep_weekly` asked,
  the agent's page's 4 answered), the answer is flagged.
The questions are the lines' own words, so both figures lean optimistic; the corpus has
few such pairs. Pages alternate dev/test as in `eval/reversal_checks.py` by P.
- Gold: the docs-QA answers with their questions, held to the chunks holding their evidence.
"""

from __future__ import annotations

import re
from collections import defaultdict

from corpus_checks import arguments, gold_flags, print_gold
from reversal_checks import pages

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE
from docsassistant.agent.checks.figures import stated_figures
from docsassistant.agent.checks.setting_figures import setting_names
from docsassistant.agent.checks.setting_pages import settings_of_another_page


def _asked(line: str) -> str:
    return re.sub(r"`[^`]*`|\d[\d.,]*|\|", " ", line).strip() + "?"


def measure(corpus, split: str, listing: list[str]) -> dict[str, int]:
    lines: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # name -> (page, line, text)
    for both in ("dev", "test"):
        for path, paragraphs in pages(corpus, both):
            text = "\n\n".join(paragraphs)
            for line in SOURCE_SENTENCE.split(text):
                for name in setting_names(line):
                    if stated_figures(re.sub(r"`[^`]*`", " ", line)):
                        lines[name].append((f"{both}:{path}", line.strip(), text))
    counts = {"pairs": 0, "misread": 0, "caught": 0}
    for name, found in lines.items():
        for page, line, text in found:
            if not page.startswith(f"{split}:"):
                continue
            figure = stated_figures(re.sub(r"`[^`]*`", " ", line))[0]
            for other, other_line, other_text in found:
                if other == page or figure in stated_figures(re.sub(r"`[^`]*`", " ", other_line)):
                    continue
                counts["pairs"] += 1
                cited = {"n": 1, "source_path": page, "content": text}
                sources = [cited, {"n": 2, "source_path": other, "content": other_text}]
                answer = f"`{name}` is {figure} [1]."
                if settings_of_another_page(answer, [cited], sources, _asked(line)):
                    counts["misread"] += 1
                    listing.append(f"{split} misread: {name} {line[:120]}")
                counts["caught"] += bool(
                    settings_of_another_page(answer, [cited], sources, _asked(other_line))
                )
    return counts


def _check(answer: str, sources: list[dict], question: str) -> list[str]:
    return settings_of_another_page(answer, sources, sources, question)


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: page pairs {c['pairs']}; asked in the cited line's words, misread {c['misread']};"
            f" asked in the other page's words, caught {c['caught']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, _check, marked=True, asked=True))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
