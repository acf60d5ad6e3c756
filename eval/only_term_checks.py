"""How often the widened-"only" check (`agent/checks/only_terms.py`) misfires on real pages
and what it catches.

Usage: .venv/bin/python eval/only_term_checks.py --corpus PATH [--list]

- Misread: each prose sentence (and table row) of a page that has a restriction ("x86_64
  only", "only on Linux") whose term the page also lists with others, held as an answer to
  its whole page: a flag is a misread (the page's own words are true of it).
- Caught: each such restricting sentence or row with "T only" / "only T" replaced by "T and
  S" (S a sibling the page lists T with), held to the page (blind QA round 17 w24).
- For `narrowed_lists` (blind QA round 19 w20), on every page: each prose sentence (no code
  or link markup, no heading) with an "only", held to its page, is a misread if flagged; each prose sentence listing two names
  ("Pro and Enterprise", a capital, digit or `_` in both) with the list replaced by "only"
  and one of them ("only Enterprise") is caught or not.
- Gold: the docs-QA answers, held to the chunks holding their evidence.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import only_terms
from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE
from docsassistant.agent.checks.wrapped_lines import unwrapped


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"pages": 0, "sentences": 0, "misread": 0, "widened": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        page = unwrapped(path.read_text(errors="replace"))
        siblings = only_terms._siblings(page)
        if not any(term in siblings for term, _ in only_terms._restrictions(page)):
            continue
        counts["pages"] += 1
        source = [{"content": page}]
        for sentence in SOURCE_SENTENCE.split(page):
            if len(sentence.split()) < 3 or sentence.lstrip().startswith(("```", "#")):
                continue
            counts["sentences"] += 1
            if only_terms.widened_restrictions(f"{sentence} [1]", source):
                counts["misread"] += 1
                listing.append(f"{split} misread {path.name}: {sentence[:160]}")
            for m in only_terms._ONLY.finditer(sentence):
                term = only_terms.restricted_term(m, sentence)
                if not term or not siblings.get(term):
                    continue
                other = sorted(siblings[term])[0]
                widened = (
                    f"{sentence[: m.start()]}{m.group(1) or m.group(2)} and {other}{sentence[m.end() :]}"
                )
                counts["widened"] += 1
                found = bool(only_terms.widened_restrictions(f"{widened} [1]", source))
                counts["caught"] += found
                if not found:
                    listing.append(f"{split} missed {path.name}: {widened[:160]}")
                break
    return counts


def measure_narrowed(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    counts = {"only": 0, "misread": 0, "narrowed": 0, "caught": 0}
    for i, path in enumerate(files):
        if i % 2 != (0 if split == "dev" else 1):
            continue
        page = unwrapped(path.read_text(errors="replace"))
        source = [{"content": page}]
        for sentence in SOURCE_SENTENCE.split(page):
            if len(sentence.split()) < 3 or sentence.lstrip().startswith(("```", "#", "|", "=")):
                continue
            if re.search(r"[(){};<>]|\]\[", sentence):
                continue  # code, or a link's markup
            if re.search(r"\bonly\b", sentence, re.I):
                counts["only"] += 1
                if only_terms.narrowed_lists(f"{sentence} [1]", source):
                    counts["misread"] += 1
                    listing.append(f"{split} misread {path.name}: {sentence[:160]}")
            m = next((m for m in only_terms._LISTED.finditer(sentence) if _names(m)), None)
            if m is None:
                continue
            counts["narrowed"] += 1
            narrowed = f"{sentence[: m.start()]}only {m.group(2)}{sentence[m.end() :]}"
            found = bool(only_terms.narrowed_lists(f"{narrowed} [1]", source))
            counts["caught"] += found
            if not found:
                listing.append(f"{split} missed {path.name}: {narrowed[:160]}")
    return counts


def _names(m: re.Match[str]) -> bool:
    return all(re.search(r"[A-Z0-9_]", w) and not w.isdigit() for w in (m.group(1), m.group(2)))


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: {c['pages']} pages; sentences misread {c['misread']} of {c['sentences']}; "
            f"'only' widened, caught {c['caught']} of {c['widened']}"
        )
        n = measure_narrowed(args.corpus, split, listing)
        print(
            f"{split}: sentences with an 'only' misread {n['misread']} of {n['only']}; "
            f"a list narrowed to 'only' one name, caught {n['caught']} of {n['narrowed']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, only_terms.widened_restrictions))
    print_gold(*gold_flags(args.corpus, args.qa, only_terms.narrowed_lists))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
