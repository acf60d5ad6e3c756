"""A figure stated with another unit than its cited source gives it (pure function)."""

from __future__ import annotations

from docsassistant.agent.checks import units
from docsassistant.agent.checks.counts import miscounted
from docsassistant.agent.checks.units import (
    converted_figures,
    mismatched_units,
    reversed_bounds,
    swapped_defaults,
)

PAGE = {
    "content": "The connect timeout is 500 ms. The request timeout is thirty seconds. "
    "Each tenant may send 100 requests per second. Snapshots are kept 14 days; 3 replicas."
}


def test_another_unit_of_the_same_kind_is_found() -> None:
    assert mismatched_units("The connect timeout is 500 seconds [1].", [PAGE]) == ["500 seconds"]
    assert mismatched_units("The request timeout is 30 minutes [1].", [PAGE]) == ["30 minutes"]
    assert mismatched_units("The limit is 100 requests per minute [1].", [PAGE]) == [
        "100 requests per minute"
    ]


def test_weeks_months_and_years_are_units_of_time() -> None:
    """QA round 11 s16: "kept for 14 weeks" for the page's 14 days passed, weeks not being a unit."""
    assert mismatched_units("Snapshots are kept for 14 weeks [1].", [PAGE]) == ["14 weeks"]
    assert mismatched_units("Snapshots are kept for 14 months [1].", [PAGE]) == ["14 months"]
    assert mismatched_units("Snapshots are kept for 14 years [1].", [PAGE]) == ["14 years"]
    assert mismatched_units("Each tenant may send 100 requests per week [1].", [PAGE]) == [
        "100 requests per week"
    ]


def test_the_same_unit_in_other_spellings_is_not() -> None:
    for answer in (
        "The connect timeout is 500 milliseconds [1].",
        "The request timeout is 30 s [1].",
        "The limit is 100 req/s [1].",
        "Snapshots are kept for 14 days [1].",
    ):
        assert mismatched_units(answer, [PAGE]) == [], answer


def test_a_figure_the_source_also_gives_bare_or_of_another_kind_is_left_alone() -> None:
    assert mismatched_units("Three replicas take 3 seconds to sync [1].", [PAGE]) == []  # "3 replicas"
    assert mismatched_units("It waits 42 seconds [1].", [PAGE]) == []  # not in the source: condition 5's


BOUNDS = {
    "content": "Each node supports up to 64 GB of memory. At least 3 replicas are needed. Keep 10 shards."
}


def test_a_ceiling_given_as_a_floor_is_found() -> None:
    """QA round 11 s65: "at least 64 GB" for the page's "up to 64 GB" passed condition 5."""
    assert reversed_bounds("Each node needs at least 64 GB of memory [1].", [BOUNDS]) == ["at least 64"]
    assert reversed_bounds("You need no more than 3 replicas [1].", [BOUNDS]) == ["no more than 3"]


def test_the_same_bound_a_bare_figure_or_a_version_is_left_alone() -> None:
    assert reversed_bounds("A node takes a maximum of 64 GB [1].", [BOUNDS]) == []
    assert reversed_bounds("Keep at most 10 shards [1].", [BOUNDS]) == []  # bare in the source
    versions = {"content": "Requires version >= 0.10.0."}
    assert reversed_bounds("It fails with version < 0.10.0 [1].", [versions]) == []


HEALTH = {
    "content": "The gateway marks a backend down after three failed health checks in a row. "
    "Each node runs 1 worker and keeps 3 replicas of the routing table."
}


def test_a_count_changed_for_the_same_thing_is_caught() -> None:
    """QA round 11 s55: "a single check" for "three checks in a row"; the page's "1 worker"
    does not back it, and neither does a bare figure."""
    assert miscounted("A backend is marked down after a single failed check [1].", [HEALTH]) == [
        "a single failed check"
    ]
    assert miscounted("The gateway marks a backend down after two failed health checks [1].", [HEALTH]) == [
        "two failed health checks"
    ]
    assert miscounted("Each node keeps 5 replicas of the routing table [1].", [HEALTH]) == ["5 replicas"]


def test_counts_the_sources_give_or_do_not_compare_are_left_alone() -> None:
    assert miscounted("A backend is marked down after three failed health checks [1].", [HEALTH]) == []
    assert miscounted("One option is to keep 3 replicas of the routing table [1].", [HEALTH]) == []
    # Another thing counted: the answer's clause shares no words with the source's sentence.
    assert (
        miscounted(
            "Spring AI assumes 1536 dimensions; Milvus accepts 32,768 [1].",
            [{"content": "Milvus can manage vectors with up to 32,768 dimensions by default."}],
        )
        == []
    )
    # "two tool sources" counts sources, not tools; "2 of the 3 options" counts options as 3.
    assert (
        miscounted(
            "A conflict between two tool sources is reported [1].",
            [{"content": "A conflict between three tools in one source is reported."}],
        )
        == []
    )
    assert miscounted("A backend is marked down after a failed check [1].", [HEALTH]) == []


def test_once_and_twice_are_counts() -> None:
    """QA round 12 m42: the page's "retries a failed request once" answered "twice"."""
    proxy = [{"content": "Acme Proxy retries a failed request once, after 1 second."}]
    assert miscounted("Acme Proxy retries a failed request twice, after 1 second [1].", proxy) == ["twice"]
    assert miscounted("Acme Proxy retries a failed request 3 times [1].", proxy) == ["3 times"]
    assert miscounted("Acme Proxy retries a failed request once [1].", proxy) == []


def test_a_limit_is_a_ceiling_and_no_smaller_than_a_floor() -> None:
    """QA round 12 m17: "The request body size limit is 8 MB" answered "no smaller than 8 MB"."""
    page = [{"content": "The request body size limit is 8 MB; larger bodies are rejected."}]
    assert reversed_bounds("Request bodies must be no smaller than 8 MB [1].", page) == ["no smaller than 8"]
    assert reversed_bounds("Request bodies may be no larger than 8 MB [1].", page) == []


VISIBILITY = {
    "content": "The visibility timeout defaults to 30 seconds and can be set per queue up to 12 hours. "
    "`replication.factor` (default 3, maximum 5). Each collection has a default allowance of up to 4 fields."
}


def test_a_ceiling_given_as_the_default_or_the_default_as_a_ceiling_is_unbacked() -> None:
    assert swapped_defaults("The visibility timeout defaults to 12 hours [1].", [VISIBILITY]) == [
        "defaults to 12"
    ]
    assert swapped_defaults("The replication factor defaults to 5 [1].", [VISIBILITY]) == ["defaults to 5"]
    assert swapped_defaults("The replication factor can be at most 3 [1].", [VISIBILITY]) == ["at most 3"]


def test_defaults_and_bounds_said_as_the_page_says_them_pass() -> None:
    right = [
        "The visibility timeout defaults to 30 seconds and can be raised up to 12 hours [1].",
        "Each queue keeps 3 replicas by default, at most 5 [1].",
        "A collection allows up to 4 fields by default [1].",  # a default bound, said either way
        "The default is 4 fields [1].",
    ]
    for answer in right:
        assert swapped_defaults(answer, [VISIBILITY]) == [], answer


def test_a_ceiling_given_for_a_value_left_out_is_a_swapped_default() -> None:
    """QA round 13 w31: "If you leave out `--partitions`, … 256 partitions", the page saying
    "(default 8, at most 256)": the answer gives the maximum as the default without the word."""
    page = [{"content": "`queue create` takes `--partitions` (default 8, at most 256)."}]
    assert swapped_defaults(
        "If you leave out `--partitions`, the new queue gets 256 partitions [1].", page
    ) == ["256"]
    assert (
        swapped_defaults("If you don't specify `--partitions`, the queue gets 8 partitions [1].", page) == []
    )
    assert swapped_defaults("If you omit it, you can still ask for up to 256 later [1].", page) == []


def test_a_figure_beside_a_setting_is_held_to_that_settings_row() -> None:
    """Blind QA round 16 w04: the page's 500 is both `multiline.timeout`'s 500 ms and
    `multiline.max_lines`' bare 500; the sentence naming the timeout is held to its row."""
    table = {
        "content": "| Setting | Default | Description |\n|---|---|---|\n"
        "| `multiline.timeout` | 500 ms | Flush a pending event after this idle time. |\n"
        "| `multiline.max_lines` | 500 | Lines joined into one event at most. |"
    }
    wrong = "An event is flushed after `multiline.timeout`, which defaults to 500 seconds [1]."
    assert mismatched_units(wrong, [table]) == ["500 seconds"]
    assert mismatched_units(wrong.replace("seconds", "ms"), [table]) == []
    assert mismatched_units("At most 500 lines are joined (`multiline.max_lines`) [1].", [table]) == []


def test_a_quantity_converted_to_another_unit_is_the_same_figure() -> None:
    """Blind QA round 17 (r11, r02, r24): "5 minutes" for the page's "300 s", and "8 GiB" or
    "(32 KiB)" beside the answer's own 8192 MiB or 32768 bytes, are right answers."""
    page = {"content": "`request_timeout` (default 30 s, range 5 s to 300 s). Snapshots are kept 14 days."}
    assert converted_figures("It can be set from 5 s to 5 minutes [1].", [page]) == {"5 s", "5 minutes"}
    assert mismatched_units("It can be set anywhere from 5 seconds to 5 minutes [1].", [page]) == []
    assert converted_figures("Snapshots are kept for two weeks [1].", [page]) == {"two weeks"}
    own = "It goes up to 8192 MiB, i.e. 8 GiB, and lines to 32768 bytes (32 KiB) [1]."
    assert converted_figures(own, [page]) == {"8192 MiB", "8 GiB", "32768 bytes", "32 KiB"}
    # Another quantity is no conversion: 5 minutes is not 30 s, 500 seconds not 500 ms.
    assert converted_figures("The request timeout defaults to 5 minutes [1].", [{"content": "30 s"}]) == set()
    assert mismatched_units("The connect timeout is 500 seconds [1].", [PAGE]) == ["500 seconds"]


def test_minutes_written_onto_their_number_are_a_unit() -> None:
    """Blind QA round 17 (w10): a settings row "`scan_interval` | `10s` | 1s to 5m" answered
    "between 1 second and 5 hours": "5m" was read as a bare 5, which no unit check compares."""
    row = {"content": "| `scan_interval` | `10s` | 1s to 5m | How often new files are looked for. |"}
    assert mismatched_units("It can be set between 1 second and 5 hours [1].", [row]) == ["5 hours"]
    assert mismatched_units("It can be set between 1 second and 5 minutes [1].", [row]) == []
    # Apart or upper-case, "m" is no unit: metres, millions.
    assert units.magnitudes("5 m, 5M") == [("", 5.0), ("", 5.0)]
