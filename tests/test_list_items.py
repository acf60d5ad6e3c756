"""The invented-list-item check (condition 8): a source's list repeated with an item added
that no source mentions (QA round 13 w05)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.list_items import invented_list_items, list_items

EDITIONS = {
    "n": 1,
    "content": "Nimbus Queue comes in two editions. The Enterprise edition adds exactly-once delivery, "
    "tiered storage and LDAP authentication. Geo-fencing is planned.",
}


def test_items_are_the_parts_of_an_enumeration() -> None:
    """Split at commas and "and"/"or", code spans read as words, stemmed as the checks compare."""
    assert list_items("It adds `tiered storage`, LDAP authentication, or audit logs.") == [
        {"add", "tier", "storag"},
        {"ldap", "authen"},
        {"audit", "log"},
    ]
    assert list_items("one sentence without a list") == [{"one", "senten", "withou", "list"}]


def test_an_item_no_source_mentions_added_to_a_sources_list_is_flagged() -> None:
    wrong = (
        "The Enterprise edition adds exactly-once delivery, tiered storage, LDAP authentication and "
        "geo-replication between regions [1]."
    )
    assert invented_list_items(wrong, [EDITIONS]) == [wrong.replace(" [1]", "")]


@pytest.mark.parametrize(
    "answer",
    [
        "The Enterprise edition adds exactly-once delivery, tiered storage and LDAP authentication [1].",
        "The Enterprise edition adds LDAP auth, tiered storage and exactly-once delivery [1].",  # other words
        "The Enterprise edition adds exactly-once delivery and tiered storage [1].",  # fewer items
        "Enterprise adds exactly-once delivery, tiered storage, LDAP authentication and geo-fencing [1].",
        "It has editions, queues and tiered storage [1].",  # one item in common: not that list
    ],
)
def test_a_list_the_evidence_backs_passes(answer: str) -> None:
    """Geo-fencing is in the evidence (another sentence): not invented, whatever its truth."""
    assert invented_list_items(answer, [EDITIONS]) == []


def test_an_item_of_another_list_of_the_sources_is_not_added() -> None:
    """Blind QA round 17 (r20): "two CPU cores and 512 MiB of RAM, while a relay needs at least
    four cores and 4 GiB" matches the relay's list on its cores; its "512 MiB of RAM" is the
    agent's list's "512 MiB of memory", not an addition. An item sharing no word with any
    list is still one."""
    page = {
        "n": 1,
        "content": "2 CPU cores and 512 MiB of memory are the minimum for the agent; the relay needs "
        "at least 4 cores, 4 GiB and a static address.",
    }
    right = (
        "The agent needs at least two CPU cores and 512 MiB of RAM, while a relay needs at least "
        "four cores, 4 GiB and a static address [1]."
    )
    assert invented_list_items(right, [page]) == []
    added = "A relay needs at least four cores, 4 GiB, a static address and a GPU [1]."
    assert invented_list_items(added, [page]) == [added.replace(" [1]", "")]
