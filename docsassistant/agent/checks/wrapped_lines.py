"""Source text with its hard-wrapped prose lines joined, as a reader of the rendered page sees it.

Many pages wrap their paragraphs at ~80 columns. Every check splits a source into sentences
at line ends too (table rows and list items are lines), so a wrapped sentence became two
fragments: "The event is **not dropped**:" and "it is retried …". A fragment then "restates"
an answer on its own, or hides the negation from the half that holds the verb (blind QA
round 16 w18). Joining only continuation lines keeps every line a check reads per line —
table rows, list items, headings, code, label lines ("Default: 30") — as it was.
"""

from __future__ import annotations

import re

# A line that starts a block of its own rather than continuing the one above it: a heading,
# table row, list item, quote, fence, HTML, an AsciiDoc title/attribute/admonition/block
# delimiter, or a "Label: value" line.
_STARTS_BLOCK = re.compile(
    r"""\s*(?:
        [#|>=<\[:]                                # heading, table, quote, AsciiDoc heading, HTML, attribute
      | //                                         # an AsciiDoc comment
      | [-*+•]\s | \*+\s                           # bullet (AsciiDoc nests as "** ")
      | \d+[.)]\s | [a-z][.)]\s                    # ordered item
      | ```|~~~|----|\.\.\.\.|____|\+$             # fences and AsciiDoc delimiters, list continuation
      | \.[A-Za-z]                                 # AsciiDoc block title
      | \*\*[^*]+\*\*\s*:                          # a bold label: "**Server**: 7401"
      | [A-Z][\w .()/-]{0,40}:(?:\s|$)             # a label line: "Default: 30", "NOTE: …"
      | [\w-]+:(?:\s|$)                           # a YAML-style key: "id: limits.md"
      | [-=*_]{3,}\s*$                             # a rule, a setext underline, front matter
      | .*\s\|\s                                  # a table row without its leading pipe
      | \w+::?\S*\[                                # an AsciiDoc macro line: "image:x.png[…]"
    )""",
    re.X,
)
# A line no other line may join: a heading, table row, fence, HTML, block delimiter, or blank.
_STANDS_ALONE = re.compile(
    r"\s*(?:$|[#|=<]|```|~~~|----|\.\.\.\.|____|\+$|//|:|\[.*\]$|[-=*_]{3,}\s*$|.*\s\|\s|\w+::?\S*\[.*\]$)"
)
_OPENS_CODE = re.compile(r"\s*(```|~~~|----(?=\s*$)|\.\.\.\.(?=\s*$))")
_INDENTED = re.compile(r"(?: {4}|\t)")  # Markdown's indented code, unless it continues a list item
_LIST_ITEM = re.compile(r"\s*(?:[-*+•]|\*+|\d+[.)])\s")
_ENDS_SENTENCE = re.compile(r"[.!?:;]\**[)\"'`]*$")


def unwrapped(text: str) -> str:
    """`text` with each wrapped continuation line joined to the line above it.

    A line continues the one above when both are prose (or the one above is a list item),
    it does not start a block of its own, and either the line above does not end a sentence
    or the line starts in lower case ("… is **not dropped**:" / "it is retried"). Lines in
    fenced code are left alone."""
    out: list[str] = []
    fence = ""  # the delimiter of the code block the line is in
    for line in text.split("\n"):
        if fence and line.strip() == fence:  # only its own delimiter, with no info string, ends it
            fence = ""
            out.append(line)
            continue
        if not fence and (opening := _OPENS_CODE.match(line)):
            fence = opening.group(1)
            out.append(line)
            continue
        in_code = bool(fence)
        above = out[-1] if out else ""
        continues = (
            not in_code
            and out
            and not _STANDS_ALONE.match(above)
            and not _OPENS_CODE.match(above)
            and line.strip()
            and not _STARTS_BLOCK.match(line)
            and (not _INDENTED.match(line) or _LIST_ITEM.match(above))
            and (not _ENDS_SENTENCE.search(above.rstrip()) or line.lstrip()[:1].islower())
            and not above.endswith(("  ", "\\"))  # a Markdown hard line break
        )
        if continues:
            out[-1] = f"{above.rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def unwrapped_sources(sources: list[dict]) -> list[dict]:
    """Copies of source dicts with `content` and `prompt_text` unwrapped (the turn's records
    keep the text as stored)."""
    return [
        {**s, **{key: unwrapped(str(s[key])) for key in ("content", "prompt_text") if s.get(key)}}
        for s in sources
    ]
