"""How often the invented-list-item check (`agent/checks/list_items.py`) misfires on real
pages and what it catches.

Usage: .venv/bin/python eval/list_item_checks.py --corpus PATH [--list]

- Misread: a corpus sentence listing three items or more, held as an answer to its own
  paragraph, is flagged.
- Caught: the same sentence with an item added from a list of another page of the split
  (one whose words its paragraph never uses): "…, tiered storage and LDAP authentication,
  and <item>" (QA round 13 w05).
- Gold: the docs-QA answers, held to the chunks holding their evidence.
Pages and splits as in `eval/reversal_checks.py`; no database or embedder is needed.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold
from reversal_checks import pages

from docsassistant.agent.checks import list_items
from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE
from docsassistant.agent.checks.words import content_stems

_LAST_ITEM = re.compile(r"(?:,\s*|\s+)(?:and|or)\s+([^,;]{3,60}?)[.!?]?$")


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    listed = [
        (paragraph, sentence)
        for _, paragraphs in pages(corpus, split)
        for paragraph in paragraphs
        for sentence in SOURCE_SENTENCE.split(paragraph)
        if len(list_items.list_items(sentence)) >= 3
    ]
    # Items to add: the last item of each listing sentence, in order, so the pairs are fixed.
    extras = [m.group(1) for _, s in listed if (m := _LAST_ITEM.search(s.strip()))]
    counts = {"sentences": 0, "misread": 0, "made": 0, "caught": 0}
    for i, (paragraph, sentence) in enumerate(listed):
        source = [{"n": 1, "content": paragraph}]
        counts["sentences"] += 1
        if list_items.invented_list_items(f"{sentence.strip()} [1]", source):
            counts["misread"] += 1
            listing.append(f"{split} misread: {sentence.strip()[:160]}")
        words = content_stems(paragraph)
        extra = next(
            (e for e in extras[i + 1 :] + extras[:i] if (s := content_stems(e)) and not s & words), None
        )
        if extra is None:
            continue
        counts["made"] += 1
        answer = f"{sentence.strip().rstrip('.:')}, and {extra} [1]."
        counts["caught"] += bool(list_items.invented_list_items(answer, source))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: listing sentences misread {c['misread']} of {c['sentences']};"
            f" an item from another page added, caught {c['caught']} of {c['made']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, list_items.invented_list_items))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
