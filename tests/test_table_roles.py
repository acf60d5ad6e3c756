"""The table-role check (condition 5): a settings table's maximum given as the default, or
its default as the maximum (QA round 14 w04)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.table_roles import figures_of_other_rows, swapped_table_roles, table_rows

TABLE = {
    "n": 1,
    "content": "| setting | default | allowed values / maximum | description |\n"
    "|---|---|---|---|\n"
    "| `backup.parallel_uploads` | 4 | maximum 32 | chunks uploaded at the same time |\n"
    "| `backup.compression_level` | 3 | 1 to 19 | zstd compression level |\n",
}


def test_rows_of_a_table_with_a_default_and_a_bound_column_are_read() -> None:
    rows = {r.key: (r.defaults, r.bounds) for r in table_rows(TABLE["content"])}
    assert rows == {
        "backup.parallel_uploads": ({"4"}, {"32"}),
        "backup.compression_level": ({"3"}, {"1", "19"}),
    }
    assert table_rows("| setting | value |\n|---|---|\n| `a` | 4 |\n") == []  # no roles in the header


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        (
            "By default the agent uploads 32 chunks at a time (`backup.parallel_uploads`) [1].",
            ["32 as the default of backup.parallel_uploads"],
        ),
        (
            "`backup.parallel_uploads` can be raised up to 4 [1].",
            ["4 as the limit of backup.parallel_uploads"],
        ),
        ("By default the agent uploads 4 chunks at a time (`backup.parallel_uploads`) [1].", []),
        ("`backup.parallel_uploads` can be raised up to 32 [1].", []),
        ("`backup.parallel_uploads` defaults to 4 and goes up to 32 [1].", []),  # each role its figure
        (  # both roles' words, the default's figure missing (blind QA round 16 w07)
            "Out of the box `backup.parallel_uploads` runs up to 32 uploads [1].",
            ["32 as the default of backup.parallel_uploads"],
        ),
        ("The agent uploads 32 chunks at a time [1].", []),  # no setting named
        (  # the range restated beside a default the figure check cannot read (blind QA round 19 r11)
            "By default it compresses at a moderate level, and `backup.compression_level` can be set"
            " anywhere from 1 to 19 [1].",
            [],
        ),
        (  # a range restated does not excuse a wrong default beside it
            "By default `backup.compression_level` is 19, and it accepts anything from 1 to 19 [1].",
            ["19 as the default of backup.compression_level"],
        ),
    ],
)
def test_a_figure_in_the_other_columns_role_is_found(answer: str, found: list[str]) -> None:
    assert swapped_table_roles(answer, [TABLE]) == found


def test_a_no_of_a_support_table_said_as_yes_is_found() -> None:
    """QA round 14 w07: the Vault's column says no for macOS; the agent's says yes."""
    from docsassistant.agent.checks.support_matrix import matrix_denials

    table = {
        "n": 1,
        "content": "| platform | Keelback Agent | Keelback Vault |\n|---|---|---|\n"
        "| Linux x86_64 | yes | yes |\n| macOS 12 or later | yes | no |\n",
    }
    assert matrix_denials("Keelback Vault runs on Linux and macOS 12 or later [1].", [table])
    assert matrix_denials("Keelback Vault runs on Linux only [1].", [table]) == []  # no yes for macOS
    assert matrix_denials("The agent runs on Linux and macOS [1].", [table]) == []
    assert (
        matrix_denials("The Vault runs on Linux, the agent also on macOS [1].", [table]) == []
    )  # both named
    assert matrix_denials("The Vault does not run on macOS [1].", [table]) == []


def test_a_no_said_yes_beside_another_column_or_a_contrast_is_found() -> None:
    """Blind QA round 17: "supported for both the agent and the relay" of a row whose relay
    cell says no (w23), and "the agent is supported on macOS, although the relay is not" of a
    row whose agent cell says no (w25)."""
    from docsassistant.agent.checks.support_matrix import matrix_denials

    table = {
        "n": 1,
        "content": "| Platform | Agent | Relay | Notes |\n|---|---|---|---|\n"
        "| Debian 12 | Supported | Supported | x86_64 and arm64 |\n"
        "| Fedora 40 | Supported | Not supported | x86_64 only |\n"
        "| macOS 14+ | Not supported | Not supported | development builds |\n",
    }
    assert matrix_denials("Yes, Fedora 40 is supported for both the agent and the relay [1].", [table])
    assert matrix_denials("Yes, the agent runs on macOS 14, though the relay does not [1].", [table])
    assert matrix_denials("Debian 12 is supported for both the agent and the relay [1].", [table]) == []
    assert matrix_denials("On Fedora 40 the agent is supported, but the relay is not [1].", [table]) == []


def test_out_of_the_box_says_default() -> None:
    """QA round 15 w06: "Out of the box … 400 days", 400 being the table's maximum."""
    table = {
        "n": 2,
        "content": "| setting | default | maximum | description |\n|---|---|---|---|\n"
        "| `history.retention_days` | 30 days | 400 days | How long run records are kept. |",
    }
    answer = "Out of the box the server keeps run records for 400 days (`history.retention_days`) [1]."
    assert swapped_table_roles(answer, [table]) == ["400 as the default of history.retention_days"]


def test_the_table_may_be_in_another_retrieved_chunk_of_the_cited_page() -> None:
    """QA round 15 w06: the answer cites the page's pruning section; its settings table, which
    backs the 400 (condition 5's same-page rule), is another retrieved chunk and is read too."""
    from docsassistant.agent.checks.findings import code_findings
    from docsassistant.agent.schemas import ClaimCheck

    page = "server-configuration.md"
    pruning = {
        "n": 1,
        "source_path": page,
        "content": "Run records older than `history.retention_days` are pruned nightly.",
    }
    table = {
        "n": 2,
        "source_path": page,
        "content": "| setting | default | maximum | description |\n|---|---|---|---|\n"
        "| `history.retention_days` | 30 days | 400 days | How long run records are kept. |",
    }
    question = "How long are run records kept by default?"
    answer = "Out of the box run records are kept for 400 days (`history.retention_days`) [1]."
    found = code_findings(
        answer,
        [pruning, table],
        question,
        seen=[pruning, table],
        cited=[1],
        claims=[ClaimCheck(claim=answer, supported=True, sources=[1])],
        user_messages=[question],
        standalone_question=question,
        sufficient=True,
        chunks=[pruning, table],
    )
    assert "400 as the default of history.retention_days" in found.unbacked


def test_a_yes_no_row_of_a_table_of_figures_is_a_support_row() -> None:
    """Blind QA round 17 (w14): "| `drop_oldest` buffer policy | no | yes | yes |" among limits
    per edition, answered "available in every edition, Community included"."""
    from docsassistant.agent.checks.support_matrix import matrix_denials

    table = {
        "n": 1,
        "content": "| Limit | Community | Team | Enterprise |\n|---|---|---|---|\n"
        "| Outputs per agent | 2 | 8 | 32 |\n| Inputs per agent | 10 | 50 | 500 |\n"
        "| `evict_oldest` buffer policy | no | yes | yes |\n"
        "| Dead-letter file | - | - | - |\n",
    }
    said = "Yes, the `evict_oldest` buffer policy is available in every edition, Community included [1]."
    assert matrix_denials(said, [table])
    assert matrix_denials("The Team edition has the `evict_oldest` buffer policy [1].", [table]) == []
    # A row of dashes is no denial: a setting with no values.
    assert matrix_denials("Community includes a dead-letter file [1].", [table]) == []


def test_rows_starting_with_the_same_word_are_named_by_all_their_words() -> None:
    """Blind QA round 20 r24 (and round 19 r15): "Team does include single sign-on with OIDC"
    was read as the SAML row, both labels starting with "Single"."""
    from docsassistant.agent.checks.support_matrix import matrix_denials

    table = {
        "n": 1,
        "content": "| Feature | Community | Team | Enterprise |\n|---|---|---|---|\n"
        "| Single sign-on with OIDC | No | Yes | Yes |\n| Single sign-on with SAML | No | No | Yes |\n",
    }
    assert matrix_denials("Team does include single sign-on with OIDC [1].", [table]) == []
    assert matrix_denials("Team does include single sign-on with SAML [1].", [table])


CONNECTIONS = {
    "n": 1,
    "content": "| Setting | Default | Range | Description |\n"
    "|---|---|---|---|\n"
    "| `connect_timeout` | 10 s | 1 s – 5 m | Time to open a connection. |\n"
    "| `request_timeout` | 30 s | 1 s – 10 m | Time a client waits for one response. |\n"
    "| `buffer_memory` | 32 MiB | 1 MiB – 1 GiB | Memory for records not yet sent. |\n"
    "| `retry_backoff` | 100 ms | 10 ms – 1 m | Wait between retries. |\n",
}


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        # Blind QA round 19 w33: the 10 s is connect_timeout's; the 10 in the row is minutes.
        (
            "A client waits up to ten seconds for a response, set by request_timeout [1].",
            ["ten seconds for request_timeout"],
        ),
        ("A client waits thirty seconds for a response, set by request_timeout [1].", []),
        ("request_timeout waits half a minute, i.e. 30 seconds, by default [1].", []),
        ("request_timeout can be raised to 10 minutes [1].", []),  # its own row's bound
        ("buffer_memory holds 32768 KiB by default [1].", []),  # the same quantity
        ("request_timeout waits 45 seconds [1].", []),  # in no row: the figure checks' question
        # two settings named: whose figure is whose is not this check's to say ...
        ("connect_timeout is 10 s and request_timeout is 30 s [1].", []),
        ("connect_timeout is 30 s and request_timeout is 10 s [1].", []),
        # a size beside a timeout is not the timeout's: its row holds no size (blind QA round 21 r14)
        ("A batch goes out at 32 MiB or after the request_timeout of 30 seconds [1].", []),
        # ... but a figure neither named row holds, another row does (blind QA round 19 w32)
        (
            "A client waits 100 ms between retries, and connect_timeout must stay below request_timeout [1].",
            ["100 ms for connect_timeout / request_timeout"],
        ),
    ],
)
def test_a_figure_another_row_holds_is_found(answer: str, found: list[str]) -> None:
    assert figures_of_other_rows(answer, [CONNECTIONS]) == found


RETENTION = {
    "n": 1,
    "content": "| Setting | Type | Default | Range / Allowed | Description |\n|---|---|---|---|---|\n"
    "| `keep_daily` | integer | 7 | 0–366 | Daily snapshots kept. |\n"
    "| `keep_weekly` | integer | 4 | 0–520 | Weekly snapshots kept. |\n"
    "| `copy_delay` | duration | 15 m | 0 – 24 h | Wait after a commit before copying. |\n"
    "| `retry_interval` | duration | 5 m | 30 s – 1 h | Wait after a failed copy. |\n",
}


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        # Blind QA round 20 w30: keep_daily's default given to keep_weekly, as a number word.
        (
            "By default the vault keeps seven weekly snapshots (`keep_weekly`) [1].",
            ["7 as the default of keep_weekly"],
        ),
        ("By default the vault keeps four weekly snapshots (`keep_weekly`) [1].", []),
        ("By default `keep_weekly` is 4, and `keep_daily` can go up to 366 [1].", []),  # two settings
        ("`keep_weekly` can be set to 7 if you want a week of them [1].", []),  # not the default
    ],
)
def test_another_rows_default_is_found(answer: str, found: list[str]) -> None:
    from docsassistant.agent.checks.table_roles import defaults_of_other_rows

    assert defaults_of_other_rows(answer, [RETENTION]) == found


def test_minutes_apart_from_their_number_are_minutes_in_a_duration_row() -> None:
    """Blind QA round 20 w31: "15 m" in a duration row was no time, so "five minutes" for
    `copy_delay` (5 m being `retry_interval`'s) was not compared."""
    answer = "By default the relay waits five minutes before it copies the snapshot (`copy_delay`) [1]."
    assert figures_of_other_rows(answer, [RETENTION]) == ["five minutes for copy_delay"]
    assert (
        figures_of_other_rows("`copy_delay` waits a quarter of an hour, 15 minutes [1].", [RETENTION]) == []
    )


UPLOADS = {
    "n": 1,
    "content": "| Setting | Default | Range | Description |\n|---|---|---|---|\n"
    "| `request_body_max` | 64 MiB | 1 MiB – 256 MiB | Largest upload request. |\n"
    "| `metadata_max_age` | 5 m | 10 s – 1 h | How often clients refresh metadata. |\n",
}


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        # Blind QA round 20 w02: the default's sentence names no setting, the next one does.
        (
            "By default the vault accepts upload requests of up to 256 MiB [1]. The setting is "
            "`request_body_max`, and it can be lowered to 1 MiB [1].",
            ["256 as the default of request_body_max"],
        ),
        (
            "By default the vault accepts upload requests of up to 64 MiB [1]. The setting is "
            "`request_body_max`, and it can be raised to 256 MiB [1].",
            [],
        ),
        # Only a default is borrowed: "at least every five minutes" is no bound (round 19 r17).
        (
            "Clients refresh cluster metadata at least every five minutes [1]. The interval is "
            "metadata_max_age, which accepts values from ten seconds to one hour [1].",
            [],
        ),
    ],
)
def test_a_default_sentence_speaks_of_the_setting_its_neighbour_names(answer: str, found: list[str]) -> None:
    assert swapped_table_roles(answer, [UPLOADS]) == found
