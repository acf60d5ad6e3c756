"""How often the setting-figure check (`agent/checks/setting_figures.py`) misfires on real
pages and what it catches.

Usage: .venv/bin/python eval/setting_figure_checks.py --corpus PATH [--list]

Each sentence or table row of a page that names exactly one backquoted dotted setting and
states a figure is made into a follow-up answer: the setting's name cut out ("It is 4 [1]."
shape: the row's own words without the name), asked about by a question naming the setting.
- Misread: asked about its own setting, held to the page, it is flagged.
- Caught: asked about another setting the page names beside other figures and never beside
  this one (QA round 14 w27: "And its maximum?" answered with another setting's 64).
- Gold: the docs-QA answers with their questions, each sentence cited to the chunks holding
  its evidence.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

from corpus_checks import arguments, gold_flags, print_gold
from reversal_checks import pages

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE
from docsassistant.agent.checks.figures import stated_figures
from docsassistant.agent.checks.setting_figures import _QUOTED, figures_of_other_settings, setting_names


def measure(corpus, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"made": 0, "misread": 0, "other": 0, "caught": 0}
    for _, paragraphs in pages(corpus, split):
        text = "\n\n".join(paragraphs)
        lines = [line.strip() for line in SOURCE_SENTENCE.split(text) if line.strip()]
        named = [(setting_names(line), set(stated_figures(_QUOTED.sub(" ", line))), line) for line in lines]
        source = [{"n": 1, "content": text}]
        for names, figures, line in named:
            if len(names) != 1 or not figures:
                continue
            (setting,) = names
            answer = f"{_QUOTED.sub('it', line).strip(' |.')} [1]."
            counts["made"] += 1
            if figures_of_other_settings(answer, source, source, f"What about `{setting}`?"):
                counts["misread"] += 1
                listing.append(f"{split} misread: {line[:160]}")
            others = {n for names_, figs, _ in named for n in names_ if figs and n != setting} - {
                n for names_, figs, _ in named if figures & figs for n in names_
            }
            if others:
                counts["other"] += 1
                asked = f"What about `{sorted(others)[0]}`?"
                counts["caught"] += bool(figures_of_other_settings(answer, source, source, asked))
    return counts


def _check(answer: str, sources: list[dict], question: str) -> list[str]:
    return figures_of_other_settings(answer, sources, sources, question)


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: setting sentences {c['made']}; asked about their own setting, misread {c['misread']};"
            f" asked about another setting, caught {c['caught']} of {c['other']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, _check, marked=True, asked=True))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
