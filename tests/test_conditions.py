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
    assert [c[:3] for c in conditioned("If the pool is full, new requests wait for a free connection.")] == [
        ({"pool", "full"}, {"new", "reques", "wait", "fre", "connec"}, "If the pool is full")
    ]
    assert conditioned("The pool waits, if it is full.") == []  # a bare trailing one is incidental
    # ... unless "only" introduces it (QA round 14 w18)
    read = conditioned("Windows ACLs are restored only when you restore onto an NTFS volume.")
    assert [c[:3] for c in read] == [
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


def test_an_only_before_the_verb_still_conditions_the_statement() -> None:
    """Blind QA round 17 (w06, w07): "is only permitted when TLS is enabled; with TLS off …"
    answered "They can also use basic authentication on any HTTP output", and "Setting
    `proxy.verify = false` is only allowed when …" answered "you can turn it off at any time"."""
    page = {
        "n": 1,
        "content": "Outputs may authenticate with a token or a password. Password authentication is "
        "only permitted when TLS is enabled; with TLS off the output refuses to start. Setting "
        "`proxy.verify = false` is only allowed when `proxy.ca_file` is also set.",
    }
    dropped = "Outputs can also use password authentication on any connection [1]."
    assert dropped_conditions(dropped, [page]) == [dropped.replace(" [1]", "")]
    unset = "You can switch the check off at any time by setting `proxy.verify = false` [1]."
    assert dropped_conditions(unset, [page]) == [unset.replace(" [1]", "").replace("`", "")]
    kept = "Outputs can use password authentication, but only when TLS is enabled [1]."
    assert dropped_conditions(kept, [page]) == []


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


CATCHUP = {
    "n": 1,
    "content": "On restart the server starts, for each job, only the most recent missed run, and only "
    "when that run was due within `scheduler.catchup_window` (default 15 minutes) and the job has "
    "`catchup: true` (the default).",
}


def test_a_condition_kept_in_part_is_dropped() -> None:
    """Blind QA round 15 w17: "only when A and B" after commas in the main clause, answered
    with B alone as the answer's own "provided …"; each part must keep a word."""
    half = "Yes. On restart the server starts the most recent missed run of each job, provided the job has `catchup: true` [1]."
    assert dropped_conditions(half, [CATCHUP])
    whole = (
        "On restart the server starts the most recent missed run of each job, provided it was due within "
        "`scheduler.catchup_window` (15 minutes by default) and the job has `catchup: true` [1]."
    )
    assert dropped_conditions(whole, [CATCHUP]) == []


def test_an_if_inside_the_main_clause_is_not_the_answers_own_condition() -> None:
    """ "… can be lost if the broker crashes" restates the main clause's own "if": it keeps
    nothing of "With `never`," (an answer's own condition word counts only outside it)."""
    assert dropped_conditions("Acknowledged messages can be lost if the broker crashes [1].", [STORAGE])


def test_a_condition_restated_in_other_words_passes() -> None:
    """Blind QA round 15 r09 and r18, right answers a first version (two in three of the
    condition's words) flagged: the condition said with few of the page's words."""
    page = {
        "n": 1,
        "content": "When a run writes more than `worker.max_output`, the worker keeps the first part of "
        "the output and drops the rest.",
    }
    answer = (
        "Beyond `worker.max_output` the worker keeps the first part of the output and drops the rest; "
        "the run is not failed for this [1]."
    )
    assert dropped_conditions(answer, [page]) == []
    lease = {
        "n": 1,
        "content": "If the leader stops renewing its lease, another node takes over when the lease expires "
        "and scheduling resumes.",
    }
    answer = "Another node takes over when the leader's lease expires, and scheduling resumes [1]."
    assert dropped_conditions(answer, [lease]) == []
