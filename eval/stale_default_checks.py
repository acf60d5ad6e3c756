"""How often the stale-default check (`agent/checks/stale_defaults.py`) misfires on real pages
and what it catches.

Usage: .venv/bin/python eval/stale_default_checks.py --corpus PATH [--list]

Every page of the corpus (both splits: change notes are few) that records a change of default
("`x` changed from A to B", "`x` now defaults to B (was A)"):
- each prose sentence of the page that names a changed setting and says default, held as an
  answer to its page: a flag is a misread;
- for each change, "By default `x` is B [1]." (B in backquotes unless a figure) is a misread if flagged, and "By default `x` is
  A [1]." (the old value as current: blind QA round 20 w28) is caught or not.
- Gold: the docs-QA answers, held to the chunks holding their evidence.
"""

from __future__ import annotations

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import stale_defaults
from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE
from docsassistant.agent.checks.table_roles import names_setting
from docsassistant.agent.checks.wrapped_lines import unwrapped


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    counts = {"pages": 0, "changes": 0, "sentences": 0, "misread": 0, "new_misread": 0, "caught": 0}
    for path in sorted(p for p in args.corpus.rglob("*") if p.suffix in (".md", ".adoc")):
        page = unwrapped(path.read_text(errors="replace"))
        changes = stale_defaults.default_changes(page)
        if not changes:
            continue
        counts["pages"] += 1
        source = [{"content": page}]
        for sentence in SOURCE_SENTENCE.split(page):
            if "default" in sentence.lower() and any(names_setting(sentence, key) for key, _, _ in changes):
                counts["sentences"] += 1
                if stale_defaults.stale_defaults(f"{sentence} [1]", source):
                    counts["misread"] += 1
                    listing.append(f"misread {path.name}: {sentence[:160]}")
        for key, old, new in changes:
            counts["changes"] += 1
            old, new = (v if any(c.isdigit() for c in v) else f"`{v}`" for v in (old, new))
            if stale_defaults.stale_defaults(f"By default `{key}` is {new} [1].", source):
                counts["new_misread"] += 1
                listing.append(f"misread {path.name}: By default `{key}` is {new}")
            counts["caught"] += bool(
                stale_defaults.stale_defaults(f"By default `{key}` is {old} [1].", source)
            )
    print(
        f"{counts['pages']} pages with {counts['changes']} changes of default; their sentences naming a"
        f" changed setting and a default misread {counts['misread']} of {counts['sentences']}; the new value"
        f" misread {counts['new_misread']}, the old value caught {counts['caught']} of {counts['changes']}"
    )
    print_gold(*gold_flags(args.corpus, args.qa, stale_defaults.stale_defaults))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
