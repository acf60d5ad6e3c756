"""Share links: snapshots behind unguessable tokens, revocable, never changing the original."""

from __future__ import annotations

import pytest
from conftest import write

from docsassistant.agent.runner import fork_thread, load_turns, run_turn
from docsassistant.ingest import index_paths
from docsassistant.sharing import (
    NothingToShare,
    ShareNotFound,
    ShareRevoked,
    create_share,
    get_share,
    list_shares,
    revoke_share,
)


@pytest.fixture
def thread(clean_db, cooperative_ollama, tmp_path) -> str:
    docs = tmp_path / "kb"
    write(docs / "widgets.md", "# Widgets\n\n## Timeout\n\nThe widget timeout is set with WIDGET_TIMEOUT.\n")
    index_paths([docs], "kb", base=docs)
    return run_turn("How do I configure the widget timeout?")["thread_id"]


def test_create_and_get_a_snapshot(thread):
    token = create_share(thread)
    assert token != thread and len(token) == 22  # token_urlsafe(16)
    assert create_share(thread) != token  # every share gets its own token
    share = get_share(token)
    assert share["thread_id"] == thread
    assert share["title"] == "How do I configure the widget timeout?"
    [turn] = share["turns"]
    assert turn == load_turns(thread)[0]  # everything needed to render it, trace included
    assert any(e["type"] == "tool_call" for e in turn["trace"])
    assert turn["verification"]["status"] == "grounded"


def test_snapshot_does_not_follow_the_thread(thread):
    token = create_share(thread)
    run_turn("What is the widget timeout variable?", thread)
    assert len(load_turns(thread)) == 2
    assert len(get_share(token)["turns"]) == 1


def test_continuing_forks_and_leaves_the_original_alone(thread):
    token = create_share(thread)
    fork = fork_thread(get_share(token)["turns"])
    assert fork != thread
    run_turn("And what is the widget timeout variable?", fork)
    assert len(load_turns(fork)) == 2
    assert len(load_turns(thread)) == 1
    assert len(get_share(token)["turns"]) == 1


def test_revoke_and_unknown(thread):
    token = create_share(thread)
    assert revoke_share(token) is True
    assert revoke_share(token) is False  # already revoked
    with pytest.raises(ShareRevoked, match="revoked"):
        get_share(token)
    with pytest.raises(ShareNotFound, match="does not exist"):
        get_share("not-a-token")
    with pytest.raises(ShareNotFound):
        get_share("")
    assert revoke_share("not-a-token") is False


def test_list_shares_newest_first(thread):
    first = create_share(thread)
    second = create_share(thread)
    revoke_share(first)
    links = list_shares(thread)
    assert [link["token"] for link in links] == [second, first]
    assert links[0]["revoked_at"] is None and links[1]["revoked_at"] is not None
    assert links[0]["turns"] == 1
    assert list_shares("other-thread") == []


def test_nothing_to_share(clean_db):
    with pytest.raises(NothingToShare):
        create_share("no-such-thread")
