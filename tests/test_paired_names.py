"""The paired-name check (`agent/checks/paired_names.py`): "A (B)" where the cited table holds
A and B in different rows."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.paired_names import mispaired_names

ERRORS = {
    "content": "| Code | Name | Meaning | Retried |\n|---|---|---|---|\n"
    "| `VK-4290` | QUOTA_EXCEEDED | The stored-data quota is used up. | No |\n"
    "| `VK-4291` | RATE_LIMITED | Too many API requests for this token. | Yes |\n"
}


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        # Blind QA round 20 w38: the next row's code given to QUOTA_EXCEEDED.
        ("You get `VK-4291` (QUOTA_EXCEEDED), which is not retried [1].", True),
        ("You get QUOTA_EXCEEDED (`VK-4291`) [1].", True),
        ("You get `VK-4290` (QUOTA_EXCEEDED), which is not retried [1].", False),
        # A name no row holds is the name check's business, not this one's.
        ("You get `VK-4299` (QUOTA_EXCEEDED) [1].", False),
        # Two rows named side by side, not paired.
        ("`VK-4290` means QUOTA_EXCEEDED and `VK-4291` means RATE_LIMITED [1].", False),
    ],
)
def test_names_of_two_rows_paired_are_flagged(answer: str, flagged: bool) -> None:
    assert bool(mispaired_names(answer, [ERRORS])) is flagged
