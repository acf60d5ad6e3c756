"""The default-value check (`agent/checks/default_values.py`): a setting's default given as a
value its cited settings-table row does not give it."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.default_values import other_default_values
from docsassistant.agent.checks.table_roles import names_setting

PRODUCER = {
    "content": "| Setting | Default | Allowed | Description |\n|---|---|---|---|\n"
    "| `producer.idempotent` | `true` | `true`, `false` | Discard duplicate retries. |\n"
    "| `producer.compression` | `none` | `none`, `lz4`, `zstd` | Batch compression. |\n"
    "| `producer.acks` | `all` | `0`, `1`, `all` | Acknowledgements awaited. |\n"
    "| `enable` | false | true, false | Turn the feature on. |\n"
    "| `autoEnable` | true | true, false | Turn it on after start-up. |"
}


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        # Blind QA round 19 w31: the 3.x default, given as current.
        ("No, producer.idempotent defaults to false, so turn it on yourself [1].", True),
        ("Yes, `producer.idempotent` is enabled by default [1].", False),
        ("`producer.idempotent` is not enabled by default [1].", True),
        ("By default, producer.idempotent is true [1].", False),
        # An allowed value given as the default.
        ("The default of `producer.compression` is `lz4` [1].", True),
        ("`producer.compression` defaults to `none`; `lz4` and `zstd` are the other choices [1].", False),
        # A word that is not a value of the row says nothing.
        ("`producer.acks` defaults to waiting for every replica [1].", False),
        # An old default, said as old.
        ("In 3.x `producer.idempotent` defaulted to false [1].", False),
        # Two settings in one sentence: whose default is whose is not read.
        ("`producer.acks` defaults to `1` and `producer.compression` to `none` [1].", False),
        # `enable` is not named by `autoEnable`, whose default is true.
        ("`autoEnable` defaults to true [1].", False),
        ("`enable` is on by default [1].", True),
    ],
)
def test_a_default_the_table_row_does_not_give_is_flagged(answer: str, flagged: bool) -> None:
    assert bool(other_default_values(answer, [PRODUCER])) is flagged


def test_a_setting_is_named_as_a_whole_word() -> None:
    """ "autoEnable" named `enable` too, so a sentence about one named two rows."""
    assert names_setting("Set `autoEnable` to true.", "autoenable")
    assert not names_setting("Set `autoEnable` to true.", "enable")
    assert names_setting("producer.idempotent defaults to true", "idempotent")
