"""Citation markers `[n]` are checked in code, not trusted from the model."""

from __future__ import annotations

import re

MARKER = re.compile(r"\[(\d{1,3})\]")


def check_citations(answer: str, n_sources: int) -> tuple[str, list[int], list[int]]:
    """Remove markers that point to no source.

    Returns the cleaned answer, the valid numbers cited (in order of first use) and the
    bogus numbers removed.
    """
    used: list[int] = []
    bogus: list[int] = []

    def keep_or_drop(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if 1 <= n <= n_sources:
            if n not in used:
                used.append(n)
            return match.group(0)
        if n not in bogus:
            bogus.append(n)
        return ""

    cleaned = MARKER.sub(keep_or_drop, answer)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned)  # no space left before punctuation
    cleaned = re.sub(r"[ \t]{2,}", " ", cleaned)
    return cleaned.strip(), used, bogus
