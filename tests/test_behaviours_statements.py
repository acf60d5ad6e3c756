"""Answer behaviours of real local models: a statement read wrong. A value or option from
another statement, an added list item, a dropped condition, a table cell in another role,
steps reversed, another setting's figure, and the page the question is not about.

How the model is faked, and the shared corpus: answer_fixtures.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from answer_fixtures import (
    assert_verdict,
    evidence_number,
    follow_up_turn,
    index_pages,
    pages_turn,
    scripted_turn,
)
from conftest import flags
from fake_ollama import ShapeFake

QUEUE_PAGES = {
    "configuration.md": "# Configuration\n\nThe broker reads `nimbus.yaml`:\n\n```yaml\nbroker:\n  listen_port: 5672\n"
    "  max_connections: 20000\n```\n\n`broker.listen_port` (default 5672) is the port for client connections.\n"
    "`broker.legacy_port`: deprecated in 2.8 and removed in 3.0. Use `broker.listen_port` instead.\n",
    "redelivery.md": "# Redelivery\n\nA message that is not acknowledged within the visibility timeout is "
    "delivered again. The visibility timeout defaults to 30 seconds and can be set per queue up to 12 hours. "
    "Redeliveries are spaced by an exponential backoff: 1 second after the first failure, doubling each "
    "time, capped at 5 minutes.\n",
}


QUEUE_CASES = [
    (  # QA round 13 w01: a wrong value inside the YAML block
        "What does the broker section of nimbus.yaml look like by default?",
        "broker section nimbus.yaml listen_port",
        "Here is the broker section [{configuration}]:\n\n```yaml\nbroker:\n  listen_port: {port}\n"
        "  max_connections: 20000\n```",
    ),
    (  # QA round 13 w10: the ceiling given as the default
        "What is the default visibility timeout?",
        "default visibility timeout",
        "The visibility timeout defaults to {timeout} [{redelivery}].",
    ),
    (  # QA round 13 w34: one of two figures taken from another statement of the page
        "What is the longest wait between two redelivery attempts?",
        "redelivery backoff wait",
        "Redeliveries back off exponentially, starting at 1 second and doubling each time, capped at "
        "{cap} [{redelivery}].",
    ),
    (  # QA round 13 w27: a removed option given as the current one
        "Which setting changes the port clients connect to?",
        "setting port clients connect",
        "Set {key} in nimbus.yaml to change the port for client connections; it defaults to 5672 "
        "[{configuration}].",
    ),
]


@pytest.mark.parametrize(
    ("question", "query", "answer"),
    QUEUE_CASES,
    ids=["yaml-value", "default-as-ceiling", "backoff-cap", "removed-option"],
)
@pytest.mark.parametrize(
    ("values", "grounded"),
    [
        (
            {
                "port": "5762",
                "timeout": "12 hours",
                "cap": "12 hours",
                "key": "`broker.legacy_port`",
            },
            False,
        ),
        (
            {
                "port": "5672",
                "timeout": "30 seconds",
                "cap": "5 minutes",
                "key": "`broker.listen_port`",
            },
            True,
        ),
    ],
    ids=["wrong", "right"],
)
def test_a_value_or_option_from_the_wrong_statement_is_not_grounded(
    clean_db: None,
    model: ShapeFake,
    tmp_path: Path,
    question: str,
    query: str,
    answer: str,
    values: dict[str, str],
    grounded: bool,
) -> None:
    """QA round 13 (w01, w10, w34, w27): a small model writes the page's YAML with another
    port, gives the page's maximum as its default, caps the backoff with another statement's 12
    hours, or recommends the option the page says was removed; a verifier of the writer's kind marks
    each claim supported (ragas#1689). Code was exempt from the figure check, the 12 hours and
    the removed option are on the cited page, so all were shown grounded. The right answers
    must stay grounded."""
    text = answer
    for name, value in values.items():
        text = text.replace(f"{{{name}}}", value)
    record = pages_turn(model, tmp_path, QUEUE_PAGES, question, query, text)
    assert_verdict(record, grounded, "unsupported_claims")


EDITION_PAGES = {
    "editions.md": "# Editions\n\nNimbus Queue comes in two editions: Community and Enterprise. The Enterprise "
    "edition adds exactly-once delivery, tiered storage and LDAP authentication.\n",
    "replication.md": "# Replication\n\nEach partition is copied to three brokers by default. Copies in other "
    "regions are not supported.\n",
}


@pytest.mark.parametrize(
    ("items", "grounded"),
    [
        (
            "exactly-once delivery, tiered storage, LDAP authentication and geo-replication between regions",
            False,
        ),
        ("exactly-once delivery, tiered storage and LDAP authentication", True),
    ],
    ids=["wrong", "right"],
)
def test_an_item_added_to_the_pages_list_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, items: str, grounded: bool
) -> None:
    """QA round 13 (w05): a small model lists what the Enterprise edition adds and appends a
    feature no page mentions; the sentence shares most of its words with its source, so the
    word share passed it, and a verifier of the writer's kind marked it supported
    (ragas#1689). The page's own list must stay grounded."""
    answer = f"The Enterprise edition adds {items} [{{editions}}]."
    record = pages_turn(
        model,
        tmp_path,
        EDITION_PAGES,
        "What does the Enterprise edition add?",
        "Enterprise edition adds",
        answer,
    )
    assert_verdict(record, grounded, "unsupported_claims")


STORAGE_PAGES = {
    "storage.md": "# Storage\n\n`storage.fsync` is `always`, `batch` (default) or `never`. With `never`, "
    "acknowledged messages can be lost if the broker crashes.\n",
    "backup.md": "# Backup\n\nSnapshots are taken every 6 hours and kept for 7 days.\n",
}


RESTORE_PAGES = {
    "restore.md": "# Restore\n\nWindows ACLs are restored only when you restore on Windows onto an NTFS "
    "volume. On Linux or macOS, file contents and timestamps are restored.\n",
}


LOST = (
    STORAGE_PAGES,
    "Can acknowledged messages be lost if a broker crashes?",
    "acknowledged messages lost broker crash",
)


ACLS = (RESTORE_PAGES, "Are Windows ACLs restored when I restore a Windows snapshot?", "Windows ACLs restore")


CATCHUP_PAGES = {
    "scheduling.md": "# Missed runs\n\nOn restart the server starts, for each job, only the most recent "
    "missed run, and only when that run was due within `scheduler.catchup_window` (default 15 "
    "minutes) and the job has `catchup: true`. Older missed runs are recorded as missed.\n",
}


CATCHUP = (
    CATCHUP_PAGES,
    "If the server was down for an hour, are the missed runs started when it comes back?",
    "missed runs restart server",
)


@pytest.mark.parametrize(
    ("asked", "answer", "grounded"),
    [
        (LOST, "Yes, acknowledged messages can be lost if the broker crashes [{storage}].", False),
        (
            LOST,
            "Only with `never`: acknowledged messages can then be lost if the broker crashes [{storage}].",
            True,
        ),
        (ACLS, "Yes, Windows ACLs are restored together with the file contents [{restore}].", False),
        (ACLS, "Only onto an NTFS volume on Windows: there, Windows ACLs are restored [{restore}].", True),
        (
            CATCHUP,
            "Yes. On restart the server starts the most recent missed run of each job, provided the job "
            "has `catchup: true` [{scheduling}].",
            False,
        ),
        (
            CATCHUP,
            "On restart the server starts the most recent missed run of each job, but only when it was "
            "due within `scheduler.catchup_window` (15 minutes by default) and the job has "
            "`catchup: true` [{scheduling}].",
            True,
        ),
    ],
    ids=["opening-wrong", "opening-right", "only-when-wrong", "only-when-right", "half-kept", "both-kept"],
)
def test_a_statement_without_its_sources_condition_is_not_grounded(
    clean_db: None,
    model: ShapeFake,
    tmp_path: Path,
    asked: tuple[dict[str, str], str, str],
    answer: str,
    grounded: bool,
) -> None:
    """QA round 13 (w08): asked whether acknowledged messages can be lost, a small model says
    yes, dropping the page's "With `never`,"; QA round 14 (w18): it says Windows ACLs are
    restored, dropping the page's "only when you restore on Windows onto an NTFS volume";
    blind QA round 15 (w17): it keeps one half of "only when that run was due within
    `scheduler.catchup_window` … and the job has `catchup: true`" as its own "provided …".
    Every word is on the page, so the word checks passed them, and a verifier of the
    writer's kind marked them supported (ragas#1689). Answers keeping the condition must
    stay grounded."""
    record = pages_turn(model, tmp_path, *asked, answer)
    assert_verdict(record, grounded, "unsupported_claims")


TABLE_PAGES = {
    "settings.md": "# Backup settings\n\n| setting | default | allowed values / maximum | description |\n"
    "|---|---|---|---|\n| `backup.parallel_uploads` | 4 | maximum 32 | chunks uploaded at the same time |\n"
    "| `backup.compression_level` | 3 | 1 to 19 | zstd compression level |\n",
    "platforms.md": "# Supported platforms\n\nKeelback Agent and Keelback Vault run on these operating systems "
    "(macOS 12 or later, Windows Server 2019 or later):\n\n| platform | Keelback Agent | Keelback Vault |\n|---|---|---|\n"
    "| Linux x86_64 | yes | yes |\n| macOS 12 or later | yes | no |\n| Windows Server 2019 or later | yes | no |\n",
}


TABLE_CASES = [
    (  # QA round 14 w04: the row's maximum given as its default
        "How many chunks does the agent upload at the same time by default?",
        "parallel uploads default chunks",
        "By default the agent uploads {uploads} chunks at the same time (`backup.parallel_uploads`) [{settings}].",
    ),
    (  # QA round 14 w07: the agent's column read for the Vault
        "Which operating systems can run Keelback Vault?",
        "Keelback Vault platforms operating systems",
        "Keelback Vault runs on {platforms} [{platforms}].",
    ),
]


@pytest.mark.parametrize(
    ("question", "query", "answer"), TABLE_CASES, ids=["default-from-maximum", "other-column"]
)
@pytest.mark.parametrize(
    ("values", "grounded"),
    [
        (
            {
                "uploads": "32",
                "platforms": "Linux x86_64, macOS 12 or later and Windows Server 2019 or later",
            },
            False,
        ),
        ({"uploads": "4", "platforms": "Linux x86_64"}, True),
    ],
    ids=["wrong", "right"],
)
def test_a_tables_figure_or_cell_read_in_another_role_is_not_grounded(
    clean_db: None,
    model: ShapeFake,
    tmp_path: Path,
    question: str,
    query: str,
    answer: str,
    values: dict[str, str],
    grounded: bool,
) -> None:
    """QA round 14 (w04, w07): a small model gives a settings table's maximum as the default,
    or lists the platforms of the agent's column for the Vault, whose cells say no. Both
    figures, and every platform, are in the cited table, so the figure and word checks
    passed them, and a verifier of the writer's kind marked them supported (ragas#1689). The
    right answers must stay grounded."""
    text = answer.replace("{uploads}", values["uploads"]).replace("{platforms} [", values["platforms"] + " [")
    record = pages_turn(model, tmp_path, TABLE_PAGES, question, query, text)
    assert_verdict(record, grounded, "unsupported_claims")


STEP_PAGES = {
    "pruning.md": "# Pruning old snapshots\n\nSnapshots past the retention policy are removed in two steps. "
    "Run `keel forget` first and `keel prune` afterwards: forget drops the snapshot records, prune "
    "frees the chunks no snapshot uses any more.\n",
}


@pytest.mark.parametrize(
    ("first", "then", "grounded"),
    [("keel prune", "keel forget", False), ("keel forget", "keel prune", True)],
    ids=["reversed", "right"],
)
def test_steps_given_in_the_opposite_order_to_the_source_are_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, first: str, then: str, grounded: bool
) -> None:
    """QA round 14 (w33): a small model gives the page's two steps in the opposite order
    ("run `keel prune` first, then `keel forget`"). Every word and command is on the cited
    page, so the word and reversal checks passed it, and a verifier of the writer's kind
    marked it supported (ragas#1689). The right order must stay grounded."""
    answer = f"Run `{first}` first, then run `{then}` [{{pruning}}]."
    record = pages_turn(
        model, tmp_path, STEP_PAGES, "How do I remove old snapshots?", "remove old snapshots prune", answer
    )
    assert_verdict(record, grounded, "unsupported_claims")


SETTING_PAGES = {
    "settings.md": "# Backup settings\n\n| setting | default | maximum | description |\n|---|---|---|---|\n"
    "| `backup.parallel_uploads` | 4 | maximum 32 | chunks uploaded at the same time |\n",
    "restore.md": "# Restore\n\nThe agent downloads 8 chunks at the same time by default. Raise this with "
    "`restore.parallel_downloads` (maximum 64).\n",
}


@pytest.mark.parametrize(
    ("figure", "page", "grounded"),
    [("64", "restore.md", False), ("32", "settings.md", True)],
    ids=["other", "own"],
)
def test_a_follow_up_answered_with_another_settings_figure_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, figure: str, page: str, grounded: bool
) -> None:
    """QA round 14 (w27): "And its maximum?" after a turn about `backup.parallel_uploads`,
    answered "The maximum is 64", citing the restore page whose 64 is the maximum of
    `restore.parallel_downloads`. The figure is on the cited page and the sentence has no
    other word to judge; a verifier of the writer's kind passes it (ragas#1689). The
    setting's own maximum must stay grounded."""
    turns = (
        "What is the default of backup.parallel_uploads?",
        "And its maximum?",
        "What is the maximum of backup.parallel_uploads?",
    )
    record = follow_up_turn(
        model, tmp_path, SETTING_PAGES, turns, "parallel chunks maximum", page, f"The maximum is {figure}"
    )
    assert_verdict(record, grounded, "unsupported_claims")


NOTES_PAGES = {
    "release-notes.md": "# Release notes\n\n## 3.0.0 (2024-02-20)\n\n- Removed the `--password` option. Use "
    "`KEEL_PASSPHRASE` instead.\n- Dropped support for 32-bit platforms.\n\n## 2.9.0 (2023-08-15)\n\n"
    "- The `--password` option is deprecated.\n- Up to 8 passphrases per repository.\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("It was deprecated in 2.9.0 and removed in 3.0.0", True),
        ("It was deprecated in 2.7.0 and removed in 3.0.0", False),
        ("It was deprecated in 2.9.0 and removed in 3.0.0, 8 years on", False),
    ],
    ids=["same-page", "invented", "same-page-other-subject"],
)
def test_a_figure_from_another_retrieved_chunk_of_the_cited_page_is_backed(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """QA round 14 (r26): "deprecated in 2.9.0 and removed in 3.0.0", citing the release
    notes' 3.0.0 chunk; the 2.9.0 chunk of the same page was retrieved and shown too. Small
    models cite one chunk of a page for what the page says across two. The page backs the
    figure, so this is no invented figure; one the page does not give still is, and so is
    one the page gives about something else (QA round 13 w33: the page's 24 hours being its
    token expiry, given as the account lockout)."""
    index_pages(tmp_path, "products", NOTES_PAGES)
    query = "password option deprecated removed"
    from docsassistant.search import search_docs

    hits = search_docs(query, "products", 2)
    assert len({h["source_path"] for h in hits}) == 1 and len(hits) == 2, hits  # two chunks, one page
    removed = next(i for i, h in enumerate(hits, 1) if "Removed" in h["content"])
    answer = f"{answer} [{removed}]."
    record = scripted_turn(
        model,
        "When was --password deprecated and removed?",
        query,
        answer,
        [(answer[:-5], removed)],
        component="products",
    )
    assert ("grounded" in flags(record)) is grounded, record["flags"]


KEEP_PAGES = {
    "retention.md": "# Retention policy\n\n| setting | default | description |\n|---|---|---|\n"
    "| `retention.keep_weekly` | 4 | keep the last snapshot of each of the last N weeks |\n",
    "vault-server.md": "# Vault server settings\n\n| setting | default | description |\n|---|---|---|\n"
    "| `retention.keep_weekly` | 8 | weekly snapshots the Vault keeps when it prunes |\n",
}


@pytest.mark.parametrize(
    ("figure", "page", "grounded"),
    [("4", "retention.md", False), ("8", "vault-server.md", True)],
    ids=["other-page", "asked-page"],
)
def test_a_setting_answered_from_the_page_not_asked_about_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, figure: str, page: str, grounded: bool
) -> None:
    """QA round 14 (w28): "And how many weekly ones?" after a turn about the Vault's
    retention, answered with the agent's page's `retention.keep_weekly` (4), the Vault's page
    giving the same setting as 8 "when it prunes". Name, figure and words are on the cited
    page; a verifier of the writer's kind passes it (ragas#1689)."""
    turns = (
        "How many daily snapshots does the Vault keep when it prunes?",
        "And how many weekly ones?",
        "How many weekly snapshots does the Vault keep when it prunes?",
    )
    answer = f"It keeps {figure} weekly snapshots by default (`retention.keep_weekly`)"
    record = follow_up_turn(model, tmp_path, KEEP_PAGES, turns, "keep_weekly weekly snapshots", page, answer)
    assert_verdict(record, grounded, "off_question")


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Set `CLIENT_TIMEOUT` to change the request timeout [{t}].", False),
        ("The default request timeout is thirty seconds [{t}].", True),
    ],
    ids=["another-question's-sentence", "the-figure"],
)
def test_a_figure_asked_for_and_answered_with_none_is_not_grounded(
    answer_docs: Path, model: ShapeFake, answer: str, grounded: bool
) -> None:
    """QA round 14 (w25), round 13 (w09): asked how long or what the default is, a model
    answers with a true sentence of the page about something else; every word is the
    page's and a verifier of the writer's kind passes it (ragas#1689), so the reader is
    never told that the figure asked for is missing."""
    query = "default request timeout"
    t = evidence_number(query, "core", "core/timeouts.md")
    text = answer.format(t=t)
    record = scripted_turn(
        model, "What is the default request timeout?", query, text, [(text, t)], component="core"
    )
    assert_verdict(record, grounded, "off_question")


HEALTH_PAGES = {
    "health.md": "# Health checks\n\n`GET /healthz` on the API port returns 200 when the server can "
    "reach its database and 503 otherwise. `GET /readyz` returns 200 only once the schema version "
    "matches the server version; load balancers should use it.\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("`GET /healthz` returns 200 when the server can reach its database [{health}].", False),
        ("`GET /readyz` returns 200 once the schema version matches the server version [{health}].", True),
    ],
    ids=["the-other-endpoint", "the-asked-endpoint"],
)
def test_an_identifier_asked_and_another_answered_is_not_grounded(
    model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """Blind QA round 15 (w25): asked what one endpoint checks, a model answers with its
    sibling's sentence from the same chunk. Every word is the page's, so a verifier of the
    writer's kind passes it (ragas#1689); the reader takes one check for the other."""
    question = "What does the /readyz endpoint check?"
    record = pages_turn(model, tmp_path, HEALTH_PAGES, question, "readyz endpoint check", answer)
    assert_verdict(record, grounded, "off_question")


JOB_PAGES = {
    "jobs.md": "# Job definitions\n\nA job is a YAML file:\n\n```yaml\nname: nightly-report\n"
    'schedule: "0 2 * * *"\nretries: 2\n```\n\n`retries` may be at most 10. Apply a file with '
    "`quillctl job apply -f nightly-report.yaml`.\n",
}


@pytest.mark.parametrize(
    ("retries", "grounded"),
    [("3", True), ("30", False)],
    ids=["its-own-name", "a-number-beyond-the-page"],
)
def test_an_example_named_by_the_answer_is_not_invented(
    clean_db: None, model: ShapeFake, tmp_path: Path, retries: str, grounded: bool
) -> None:
    """Blind QA round 15 (r06): asked for a job with 3 retries, a model writes the page's
    example under a name of its own (`name: sync-orders`) and applies `sync-orders.yaml`; the
    name is the answer's choice, not a documented value it got wrong. A number in the block
    still needs a source or the user's words."""
    answer = (
        "A job definition like this does it [{jobs}]:\n\n```yaml\nname: sync-orders\n"
        f'schedule: "*/15 * * * *"\nretries: {retries}\n```\n\n'
        "Apply it with `quillctl job apply -f sync-orders.yaml` [{jobs}]."
    )
    question = "Show me a job that runs every 15 minutes with 3 retries."
    record = pages_turn(model, tmp_path, JOB_PAGES, question, "job definition yaml example apply", answer)
    assert_verdict(record, grounded, "unsupported_claims")


WORKER_PAGES = {
    "install.md": "# Install a worker\n\n1. Install the package: `sudo apt install quill-worker`.\n"
    "2. Copy the server's CA certificate to `/etc/quillrun/ca.pem` and set `worker.ca_file` to it. A "
    "worker without a trusted CA cannot connect.\n3. Set `worker.server_url` and `worker.token` in "
    "`/etc/quillrun/worker.yaml`.\n4. Start the service: `sudo systemctl enable --now quill-worker`.\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        (
            "Yes. Set `worker.server_url` and `worker.token` in `/etc/quillrun/worker.yaml` and start the "
            "service with `sudo systemctl enable --now quill-worker` [{install}].",
            False,
        ),
        (
            "No. Besides `worker.server_url` and `worker.token` in `/etc/quillrun/worker.yaml`, copy the "
            "server's CA certificate to `/etc/quillrun/ca.pem` and set `worker.ca_file` to it [{install}].",
            True,
        ),
    ],
    ids=["yes-without-the-ca-step", "no-and-the-step"],
)
def test_a_yes_that_leaves_out_a_required_step_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """Blind QA round 15 (w35): asked whether two settings are enough to connect a worker, a
    model says yes and restates the steps that set them and start the service, leaving out
    the page's CA-certificate step. Each sentence is a step of the page, so a verifier of the
    writer's kind passes it (ragas#1689); only the yes is wrong."""
    question = "Is it enough to set worker.server_url and worker.token to connect a new worker?"
    record = pages_turn(model, tmp_path, WORKER_PAGES, question, "install worker server_url token", answer)
    assert_verdict(record, grounded, "unsupported_claims")


PARSING_PAGES = {
    # Wrapped at ~80 columns, as many real pages are; the negation ends one line, its verb's
    # subject the line before.
    "parsing.md": "# Parsing\n\nEach line is matched against `parse.pattern`. When the match takes longer than\n"
    "`parse.timeout` (for example because of catastrophic\nbacktracking), the event is **not dropped**:\n"
    "it is forwarded unparsed with the tag `_parse_timeout`.\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("When the match takes longer than `parse.timeout`, the event is dropped [{parsing}].", False),
        (
            "When the match takes longer than `parse.timeout`, the event is not dropped: it is forwarded "
            "unparsed with the tag `_parse_timeout` [{parsing}].",
            True,
        ),
    ],
    ids=["dropped", "forwarded"],
)
def test_the_opposite_of_a_hard_wrapped_sentence_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """Blind QA round 16 (w18): the page wraps its lines, so "the event is **not dropped**:"
    and "backtracking)," were read as sentences of their own; the fragment without the
    negation "restated" the answer's "the event is dropped" and cleared it. A verifier of the
    writer's kind passes it too (ragas#1689). The page's own statement stays grounded."""
    question = "What happens to an event when parsing takes longer than parse.timeout?"
    record = pages_turn(model, tmp_path, PARSING_PAGES, question, "parse timeout event dropped", answer)
    assert_verdict(record, grounded, "unsupported_claims")


LINE_PAGES = {
    "inputs.md": "# Inputs\n\nA line longer than `input.max_line_bytes` (64 KiB by default) is truncated to that "
    "size and shipped with the tag `_truncated`. Lines are read in order, oldest file first.\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        (
            "A line longer than `input.max_line_bytes` (64 KiB by default) is dropped [{inputs}]. Lines are "
            "read in order, oldest file first [{inputs}].",
            False,
        ),
        ("Lines are read in order, newest file first [{inputs}].", False),
        (
            "A line longer than `input.max_line_bytes` (64 KiB by default) is truncated to that size and "
            "shipped with the tag `_truncated` [{inputs}].",
            True,
        ),
    ],
    ids=["dropped", "newest-first", "truncated"],
)
def test_another_outcome_than_the_sources_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """Blind QA round 16 (w12): a model says an over-long line is dropped where the page says
    it is truncated (or reads the newest file first for the oldest). No "not" lies between
    them and the two words were no opposite pair, so the sentence, all its other words the
    page's, passed; a verifier of the writer's kind passes it too (ragas#1689)."""
    question = "What happens to a line longer than input.max_line_bytes?"
    record = pages_turn(model, tmp_path, LINE_PAGES, question, "line longer than max_line_bytes", answer)
    assert_verdict(record, grounded, "unsupported_claims")


TIMEOUT_PAGES = {
    "outputs.md": "# Outputs\n\n`request_timeout` (default 30 s, range 5 s to 300 s) applies to each HTTP "
    "request sent to an output.\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        (
            "Each HTTP request to an output times out after 30 seconds by default, and `request_timeout` "
            "can be set anywhere from 5 seconds to 5 minutes [{outputs}].",
            True,
        ),
        (
            "Each HTTP request to an output times out after 30 seconds by default, and `request_timeout` "
            "can be set anywhere from 5 seconds to 5 hours [{outputs}].",
            False,
        ),
    ],
    ids=["minutes-for-seconds", "another-quantity"],
)
def test_a_figure_converted_to_another_unit_is_still_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """Blind QA round 17 (r11): a model writes the page's "300 s" as "5 minutes", a right
    answer that was flagged for a 5 the page gives only in seconds; 5 hours is still wrong."""
    question = "How long does the agent wait for an HTTP request to an output?"
    record = pages_turn(model, tmp_path, TIMEOUT_PAGES, question, "request timeout output", answer)
    assert_verdict(record, grounded, "unsupported_claims")


PLATFORM_PAGES = {
    "platforms.md": "# Supported platforms\n\n| Platform | Agent | Relay | Notes |\n|---|---|---|---|\n"
    "| Debian 12 | Supported | Supported | x86_64 and arm64 |\n"
    "| Fedora 40 | Supported | Supported | x86_64 only |\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        (
            "Yes. Fedora 40 is supported on both x86_64 and arm64, for the agent and the relay [{platforms}].",
            False,
        ),
        ("No. Fedora 40 is supported for the agent and the relay on x86_64 only [{platforms}].", True),
    ],
    ids=["widened", "kept"],
)
def test_an_only_widened_to_a_sibling_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """Blind QA round 17 (w24): "is arm64 supported on RHEL 9?" answered "Yes ... on both x86_64
    and arm64", the row saying "x86_64 only"; every word is the page's, and a verifier of the
    writer's kind passes it (ragas#1689)."""
    question = "Is arm64 supported on Fedora 40?"
    record = pages_turn(model, tmp_path, PLATFORM_PAGES, question, "fedora arm64 platform", answer)
    assert_verdict(record, grounded, "unsupported_claims")
