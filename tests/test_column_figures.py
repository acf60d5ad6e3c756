"""The column-figure check (`agent/checks/column_figures.py`): a figure of one column of a
table of peers (editions, plans) given to another column."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.column_figures import figures_of_other_columns, matrices

EDITIONS = {
    "content": "| Limit | Community | Pro | Enterprise |\n|---|---|---|---|\n"
    "| Brokers per cluster | 3 | 12 | Unlimited |\n"
    "| Largest `max_message_bytes` | 8 MiB | 64 MiB | 64 MiB |\n"
    "| Controller quorum size | 3 | 3 or 5 | 3 or 5 |\n\n"
    "| Setting | Default | Maximum |\n|---|---|---|\n| `retries` | 3 | 12 |"
}


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        # Blind QA round 19 w21: Community's 8 MiB given to Pro.
        ("On Pro, max_message_bytes can go up to 8 MiB, while Enterprise allows up to 64 MiB [1].", True),
        ("On Pro, max_message_bytes can go up to 64 MiB, while Community allows 8 MiB [1].", False),
        # Blind QA round 18 w22/w23's shape: the larger edition's figure given to the smaller.
        ("A Community cluster can have up to 12 brokers per cluster [1].", True),
        ("A Pro cluster can have up to 12 brokers per cluster [1].", False),
        # Two columns in one clause: whose figure is whose is not read.
        ("Pro and Enterprise clusters can have 3 or 5 controllers in the quorum [1].", False),
        # A figure no cell of the row holds is the figure check's business.
        ("On Pro, max_message_bytes can go up to 16 MiB [1].", False),
        # A sentence naming no column speaks of the previous sentence's (blind QA round 20 w18).
        ("The Pro edition is for growing teams [1]. It allows 3 brokers per cluster [1].", True),
        ("The Pro edition is for growing teams [1]. It allows 12 brokers per cluster [1].", False),
        ("Pro and Enterprise are sold yearly [1]. Community allows 3 brokers per cluster [1].", False),
        # Columns that are roles, not peers, are the table-role check's.
        ("The Default of retries is 12 [1].", False),
    ],
)
def test_a_figure_of_another_column_is_flagged(answer: str, flagged: bool) -> None:
    assert bool(figures_of_other_columns(answer, [EDITIONS])) is flagged


def test_only_tables_of_peer_columns_are_read() -> None:
    tables = matrices(EDITIONS["content"])
    assert [t.headers for t in tables] == [["Community", "Pro", "Enterprise"]]
    assert len(tables[0].rows) == 3
