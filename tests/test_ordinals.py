"""Which item of the previous answer "the second one" points at (pure functions)."""

from __future__ import annotations

from docsassistant.agent.ordinals import listed_names, names_another, picked_name

TEAMS = "Two teams are on call:\n\n- **Falcon**: pages within 15 minutes [1].\n- **Heron**: pages within 30 minutes [2]."


def test_list_items_and_enumerations_are_counted_in_order() -> None:
    assert listed_names(TEAMS) == ["Falcon", "Heron"]
    assert listed_names("1. Falcon team pages in 15 minutes.\n2. Heron team pages in 30 minutes.") == [
        "Falcon",
        "Heron",
    ]
    assert listed_names("Backups are owned by the Falcon team and the Heron team [1].") == ["Falcon", "Heron"]
    assert listed_names("The store supports HNSW, IVFFlat and DiskANN indexes [1].") == [
        "HNSW",
        "IVFFlat",
        "DiskANN",
    ]
    assert listed_names("Set it in the settings and restart the app.") == []


def test_the_place_picks_the_item() -> None:
    assert picked_name("And the second one?", TEAMS) == "Heron"
    assert picked_name("what about the latter?", TEAMS) == "Heron"
    assert picked_name("And the first?", TEAMS) == "Falcon"
    assert picked_name("And the third one?", TEAMS) is None  # there is none
    assert picked_name("When does the first backup run?", "Backups run nightly.") is None


def test_only_a_rewrite_naming_another_listed_item_is_misread() -> None:
    assert names_another("How fast does the Falcon team page?", "Heron", TEAMS)
    assert not names_another("How fast does the Heron team page?", "Heron", TEAMS)
    assert not names_another("How fast does the second team page?", "Heron", TEAMS)  # names none
