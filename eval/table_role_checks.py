"""How often the table-role check (`agent/checks/table_roles.py`) misfires on real pages and
what it catches.

Usage: .venv/bin/python eval/table_role_checks.py --corpus PATH [--list]

For each row of a corpus table with a default and a bound column whose default and bound
figures differ (d, b), six answers held to the page:
- "The default of `key` is d", "`key` can be set up to b" and "By default `key` is d and can
  be set up to b": flagged ones are misreads;
- "The default of `key` is b", "`key` can be set up to d" and "Out of the box `key` accepts
  up to b": caught or not (QA round 14 w04, blind round 16 w07: the maximum given as the
  default).
- For `figures_of_other_rows` (blind QA round 19 w33), each time or size a row states:
  "`key` is q" is a misread if flagged; each time or size of the same kind another row of
  the table states and this row does not: "`key` is q" is caught or not.
- For `defaults_of_other_rows` (blind QA round 20 w30), each row with a default d: "By
  default `key` is d" is a misread if flagged; each default of another row of the page that
  this row does not hold: "By default `key` is d'" is caught or not.
- For `default_values.other_default_values` (blind QA round 19 w31), each row of a table
  with a default column whose default is an on/off value or backquoted: "`key` defaults to
  v" and "By default `key` is v" are misreads if flagged; the opposite on/off value, or
  another backquoted value of the row, is caught or not.
- Gold: the docs-QA answers, held to the chunks holding their evidence.
Files alternate dev/test as in `eval/reversal_checks.py`.
"""

from __future__ import annotations

from pathlib import Path

from corpus_checks import arguments, gold_flags, print_gold

from docsassistant.agent.checks import default_values, table_roles
from docsassistant.agent.checks.units import same_quantity
from docsassistant.agent.checks.wrapped_lines import unwrapped


def _pages(corpus: Path, split: str) -> list[tuple[Path, str]]:
    """The split's pages (files alternate dev/test), their hard-wrapped lines joined."""
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".md", ".adoc"))
    return [
        (path, unwrapped(path.read_text(errors="replace")))
        for i, path in enumerate(files)
        if i % 2 == (0 if split == "dev" else 1)
    ]


def measure(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"rows": 0, "misread": 0, "made": 0, "caught": 0}
    for path, page in _pages(corpus, split):
        source = [{"content": page}]
        for row in table_roles.table_rows(page):
            if not row.defaults or not row.bounds or not row.key:
                continue
            d, b = sorted(row.defaults)[0], sorted(row.bounds)[0]
            counts["rows"] += 1
            for answer, wrong in (
                (f"The default of `{row.key}` is {d} [1].", False),
                (f"`{row.key}` can be set up to {b} [1].", False),
                (f"The default of `{row.key}` is {b} [1].", True),
                (f"`{row.key}` can be set up to {d} [1].", True),
                (f"By default `{row.key}` is {d} and can be set up to {b} [1].", False),
                (f"Out of the box `{row.key}` accepts up to {b} [1].", True),
            ):
                found = bool(table_roles.swapped_table_roles(answer, source))
                if wrong:
                    counts["made"] += 1
                    counts["caught"] += found
                elif found:
                    counts["misread"] += 1
                    listing.append(f"{split} {path.name}: {answer}")
    return counts


def measure_other_defaults(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"own": 0, "misread": 0, "made": 0, "caught": 0}
    for path, page in _pages(corpus, split):
        source = [{"content": page}]
        rows = [r for r in table_roles.table_rows(page) if r.key and r.defaults]
        for row in rows:
            counts["own"] += 1
            answer = f"By default `{row.key}` is {sorted(row.defaults)[0]} [1]."
            if table_roles.defaults_of_other_rows(answer, source):
                counts["misread"] += 1
                listing.append(f"{split} {path.name}: {answer}")
            for other in sorted(
                set().union(*(r.defaults for r in rows if r.key != row.key)) - row.defaults - row.bounds
            ):
                counts["made"] += 1
                wrong = f"By default `{row.key}` is {other} [1]."
                counts["caught"] += bool(table_roles.defaults_of_other_rows(wrong, source))
    return counts


def measure_rows(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"own": 0, "misread": 0, "made": 0, "caught": 0}
    for path, page in _pages(corpus, split):
        source = [{"content": page}]
        rows = [r for r in table_roles.table_rows(page) if r.key]
        for row in rows:
            own = row.amounts
            for text, _, _ in own:
                counts["own"] += 1
                if table_roles.figures_of_other_rows(f"`{row.key}` is {text} [1].", source):
                    counts["misread"] += 1
                    listing.append(f"{split} {path.name}: `{row.key}` is {text}")
            for other in rows:
                for text, kind, value in other.amounts if other.key != row.key else []:
                    if any(k == kind and same_quantity(v, value) for _, k, v in own):
                        continue
                    counts["made"] += 1
                    answer = f"`{row.key}` is {text} [1]."
                    counts["caught"] += bool(table_roles.figures_of_other_rows(answer, source))
    return counts


_OPPOSITE = {
    "true": "false",
    "false": "true",
    "on": "off",
    "off": "on",
    "enabled": "disabled",
    "disabled": "enabled",
}


def measure_defaults(corpus: Path, split: str, listing: list[str]) -> dict[str, int]:
    counts = {"rows": 0, "misread": 0, "made": 0, "caught": 0}
    for path, page in _pages(corpus, split):
        source = [{"content": page}]
        for row in default_values.default_rows(page):
            default = sorted(row.default)[0] if len(row.default) == 1 else ""
            switch = default in _OPPOSITE
            if not row.key or not default or not (switch or f"`{default}`" in page):
                continue
            shown = default if switch else f"`{default}`"
            counts["rows"] += 1
            for answer in (
                f"`{row.key}` defaults to {shown} [1].",
                f"By default `{row.key}` is {shown} [1].",
            ):
                if default_values.other_default_values(answer, source):
                    counts["misread"] += 1
                    listing.append(f"{split} {path.name}: {answer}")
            wrong = [_OPPOSITE[default]] if switch else [f"`{v}`" for v in sorted(row.others)]
            for value in wrong:
                counts["made"] += 1
                answer = f"`{row.key}` defaults to {value} [1]."
                counts["caught"] += bool(default_values.other_default_values(answer, source))
    return counts


def main() -> None:
    args = arguments(__doc__)
    listing: list[str] = []
    for split in ("dev", "test"):
        c = measure(args.corpus, split, listing)
        print(
            f"{split}: {c['rows']} table rows with a default and a bound; right answers misread"
            f" {c['misread']} of {3 * c['rows']}; roles swapped, caught {c['caught']} of {c['made']}"
        )
        r = measure_rows(args.corpus, split, listing)
        print(
            f"{split}: a row's own times and sizes misread {r['misread']} of {r['own']}; another row's,"
            f" caught {r['caught']} of {r['made']}"
        )
        o = measure_other_defaults(args.corpus, split, listing)
        print(
            f"{split}: a row's own default misread {o['misread']} of {o['own']}; another row's default,"
            f" caught {o['caught']} of {o['made']}"
        )
        d = measure_defaults(args.corpus, split, listing)
        print(
            f"{split}: {d['rows']} rows with an on/off or backquoted default; right answers misread"
            f" {d['misread']} of {2 * d['rows']}; another value given, caught {d['caught']} of {d['made']}"
        )
    print_gold(*gold_flags(args.corpus, args.qa, table_roles.swapped_table_roles))
    print_gold(*gold_flags(args.corpus, args.qa, table_roles.figures_of_other_rows))
    print_gold(*gold_flags(args.corpus, args.qa, default_values.other_default_values))
    print_gold(*gold_flags(args.corpus, args.qa, table_roles.defaults_of_other_rows))
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
