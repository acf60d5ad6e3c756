"""How the peer-figure check (`agent/checks/peer_figures.py`) treats real pages.

Usage: .venv/bin/python eval/peer_figure_checks.py --corpus PATH [--list]

- Gold: the docs-QA answers, with their questions, held to the chunks holding their
  evidence (each a false alarm when flagged).
- Swapped: in each chunk of the corpus, a sentence stating a figure under one part's place
  (a list label, a row's first cell, a sentence's subject) asked about a peer in the same
  kind of place: "What is it for the worker?" answered with the server's sentence, its part
  named as the peer. Caught, per split.
- Kept: the same sentence asked about its own part; flagged is a misread.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold
from reversal_checks import pages

from docsassistant.agent.checks import peer_figures as pf


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"kept": 0, "misread": 0, "swapped": 0, "caught": 0}
    for _, paragraphs in pages(corpus, split):
        for paragraph in paragraphs:
            placed = pf.placed_sentences(paragraph)
            source = [{"n": 1, "content": paragraph}]
            for sentence, kind, word, written in placed:
                if not kind or not pf.all_figures(sentence) or len(sentence.split()) < 4:
                    continue
                peers = sorted({wr for _, k, w, wr in placed if k == kind and w != word})
                counts["kept"] += 1
                if pf.peer_figures(f"{sentence} [1]", f"What about the {written}?", source):
                    counts["misread"] += 1
                    listing.append(f"{split} misread: {sentence[:160]}")
                if peers:
                    counts["swapped"] += 1
                    answer = re.sub(rf"\b{re.escape(written)}\b", "it", sentence, flags=re.I)
                    counts["caught"] += bool(
                        pf.peer_figures(f"{answer} [1]", f"What about the {peers[0]}?", source)
                    )
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: a part's figure sentence asked about its own part, misread {c['misread']} of "
            f"{c['kept']}; asked about a peer, caught {c['caught']} of {c['swapped']}"
        )
    held, flagged = gold_flags(
        args.corpus,
        args.qa,
        lambda answer, sources, question: pf.peer_figures(answer, question, sources),
        marked=True,
        asked=True,
    )
    print_gold(held, flagged)
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
