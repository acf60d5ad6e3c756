"""The dropped-condition check (condition 8): a source's conditioned statement restated
without its condition (QA round 13 w08)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.conditions import conditioned, dropped_conditions

STORAGE = {
    "n": 1,
    "content": "`storage.fsync`: `always`, `batch` (default) or `never`. With `never`, acknowledged "
    "messages can be lost if the broker crashes.",
}


def test_a_sentence_opening_with_a_condition_is_read_as_condition_and_main_clause() -> None:
    assert conditioned("If the pool is full, new requests wait for a free connection.") == [
        ({"pool", "full"}, {"new", "reques", "wait", "fre", "connec"}, "If the pool is full")
    ]
    assert conditioned("The pool waits, if it is full.") == []  # a bare trailing one is incidental
    # ... unless "only" introduces it (QA round 14 w18)
    assert conditioned("Windows ACLs are restored only when you restore onto an NTFS volume.") == [
        ({"onto", "ntf", "volum"}, {"window", "acl", "restor"}, "only when you restore onto an NTFS volume")
    ]


def test_a_statement_without_its_trailing_only_condition_is_flagged() -> None:
    """QA round 14 w18: "Windows ACLs are restored only when you restore on Windows onto an
    NTFS volume" answered "Yes, Windows ACLs are restored together with the file contents"."""
    page = {
        "n": 1,
        "content": "Windows ACLs are restored only when you restore on Windows onto an NTFS volume.",
    }
    asked = "Are Windows ACLs restored when I restore a Windows snapshot?"
    answer = "Yes, Windows ACLs are restored together with the file contents and timestamps [1]."
    assert dropped_conditions(answer, [page], asked) == [answer.replace(" [1]", "")]
    kept = "Yes, if you restore on Windows onto an NTFS volume, Windows ACLs are restored [1]."
    assert dropped_conditions(kept, [page], asked) == []


def test_the_statement_without_its_condition_is_flagged() -> None:
    answer = "Yes, acknowledged messages can be lost if the broker crashes [1]."
    assert dropped_conditions(answer, [STORAGE]) == [answer.replace(" [1]", "")]


@pytest.mark.parametrize(
    ("answer", "asked"),
    [
        ("With `never`, acknowledged messages can be lost if the broker crashes [1].", ""),
        ("Only when fsync is off: acknowledged messages can then be lost if the broker crashes [1].", ""),
        (
            "Set fsync to `never` for speed. Then acknowledged messages can be lost if the broker crashes [1].",
            "",
        ),
        (
            "Yes, acknowledged messages can be lost if the broker crashes [1].",
            "With fsync never, is data lost?",
        ),
        ("The default fsync mode is batch [1].", ""),
    ],
)
def test_a_condition_kept_or_given_passes(answer: str, asked: str) -> None:
    assert dropped_conditions(answer, [STORAGE], asked) == []
