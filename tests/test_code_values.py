"""Values in the answer's code blocks held to the cited sources (agent/checks/code_values.py)."""

from __future__ import annotations

from docsassistant.agent.checks.code_values import unbacked_code_values

PAGE = {
    "content": "# Configuration\n\n```yaml\nbroker:\n  listen_port: 5672\n  max_connections: 20000\n```\n\n"
    "- `broker.idle_timeout_s` (default 300): seconds before an idle connection is closed.\n"
    '- `tls.min_version` defaults to "1.2".\n- `storage.path`: where messages are kept.\n'
}


def _answer(*lines: str) -> str:
    return (
        "The broker section [1]:\n\n```yaml\nbroker:\n" + "\n".join(f"  {line}" for line in lines) + "\n```"
    )


def test_a_documented_setting_with_another_value_is_unbacked() -> None:
    assert unbacked_code_values(_answer("listen_port: 5762", "max_connections: 20000"), [PAGE]) == [
        "listen_port: 5762"
    ]
    assert unbacked_code_values(_answer("idle_timeout_s: 30"), [PAGE]) == ["idle_timeout_s: 30"]
    assert unbacked_code_values('```toml\nmin_version = "1.0"\n```', [PAGE]) == ['min_version = "1.0"']


def test_a_number_set_in_code_needs_a_source_even_for_a_key_none_documents() -> None:
    """QA round 13 w01 as it ran: the chunk setting `listen_port` was not retrieved, and the
    block's figures came from nowhere."""
    intro = {"content": "Changes to the `broker` and `storage` sections require a restart."}
    assert unbacked_code_values(_answer("listen_port: 5762", "max_connections: 20000"), [intro]) == [
        "listen_port: 5762",
        "max_connections: 20000",
    ]
    assert unbacked_code_values(_answer("segment_size_mb: 512"), [intro], "Can segments be 512 MB?") == []


def test_documented_values_placeholders_and_the_users_own_values_pass() -> None:
    assert unbacked_code_values(_answer("listen_port: 5672", "idle_timeout_s: 300"), [PAGE]) == []
    assert unbacked_code_values(_answer("listen_port: <your-port>", "max_connections: ${MAX}"), [PAGE]) == []
    # the user asked for it
    assert (
        unbacked_code_values(_answer("listen_port: 6000"), [PAGE], "Can I move the broker to port 6000?")
        == []
    )
    # a key the sources name without giving it a value, or do not name at all
    assert unbacked_code_values("```yaml\nstorage:\n  path: /srv/queue\n  fsync: always\n```", [PAGE]) == []
    # prose is the figure check's business, not this one's
    assert unbacked_code_values("Set listen_port: 5762 in the file [1].", [PAGE]) == []


def test_the_name_an_example_gives_itself_is_the_answers_own() -> None:
    """Blind QA round 15 r06: `name: sync-orders` for the page's `name: nightly-report`."""
    from docsassistant.agent.checks.code_values import own_names, unbacked_code_values

    page = [{"content": "```yaml\nname: nightly-report\nretries: 2\ntimezone: UTC\n```"}]
    answer = "```yaml\nname: sync-orders\nretries: 2\ntimezone: Mars/Olympus\n```"
    assert unbacked_code_values(answer, page) == ["timezone: Mars/Olympus"]
    assert own_names(answer) == {"sync-orders"}
    assert unbacked_code_values("```yaml\nid: 7\n```", page) == ["id: 7"]  # a number still needs a source
