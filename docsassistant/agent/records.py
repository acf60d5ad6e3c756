"""The turn record: what one turn asked, answered and did. The contract read by the UI,
`ask --json`, share links and MCP, stored in the `turn_records` table.

Records are tolerant: fields added later have defaults, and trace events, hits and
claims keep keys this file does not name, so a record written by a newer node (or an
older snapshot) still reads. Bump `SCHEMA_VERSION` when a field changes meaning.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# 1: the dicts of the old `turns` checkpoint channel (share snapshots made before the table).
# 2: the table's records (status, thread_id, index, standalone_question, error, timings).
SCHEMA_VERSION = 2

TurnStatus = Literal["running", "completed", "failed"]


class Record(BaseModel):
    """Base of the records: reading `record["answer"]` works like `record.answer`, so
    callers written against the plain dicts these replaced keep working."""

    model_config = ConfigDict(extra="allow")

    def __getitem__(self, key: str) -> Any:
        if key in type(self).model_fields or key in (self.__pydantic_extra__ or {}):
            return getattr(self, key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        """`"hits" in event`: a key given when the record was made (as in the old dicts)."""
        return key in self.model_fields_set or key in (self.__pydantic_extra__ or {})


class TraceEvent(Record):
    """One event of a turn's trace (`docsassistant.agent.events`); other keys vary by type."""

    type: str
    at: float | None = None
    node: str | None = None


class Flag(Record):
    """A flag shown beside the answer: `kind` names it (docs/flags.md), `message` explains."""

    kind: str
    message: str = ""


class Hit(Record):
    """A retrieved chunk as stored with the turn; `n` is its number in the answer's evidence."""

    n: int | None = None
    chunk_id: int | None = None
    source_path: str = ""
    title: str | None = None
    section: str | None = None
    component: str | None = None
    score: float | None = None
    content: str | None = None
    suspicious: Any = None  # False, or why the chunk looks like an injection (a list of reasons)


class Claim(Record):
    claim: str = ""
    supported: bool = False


class Verification(Record):
    status: str = "not_applicable"
    claims: list[Claim] = Field(default_factory=list)
    regenerated: bool = False


class TurnRecord(Record):
    """One turn, complete enough to render it again without re-running anything."""

    model_config = ConfigDict(extra="ignore")

    schema_version: int = SCHEMA_VERSION
    thread_id: str | None = None
    index: int | None = None  # 0-based position in its thread
    status: TurnStatus = "completed"
    question: str
    standalone_question: str | None = None  # the question rewritten with the conversation's context
    component: str | None = None
    answer: str = ""
    citations: list[Hit] = Field(default_factory=list)
    sources: list[Hit] = Field(default_factory=list)
    verification: Verification = Field(default_factory=Verification)
    flags: list[Flag] = Field(default_factory=list)
    trace: list[TraceEvent] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    model_calls: int = 0
    prompt_tokens: int = 0
    stop_reason: str | None = None  # why the turn stopped early (None: it ran to its end)
    error: str | None = None  # a failed turn: what failed, as `ExceptionType: message`
    started_at: float | None = None  # epoch seconds
    duration_ms: float | None = None
    timings: dict[str, float] = Field(default_factory=dict)  # ms spent per node

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (for `ask --json`, share snapshots, MCP)."""
        return self.model_dump(mode="json")


def node_timings(trace: list[TraceEvent]) -> dict[str, float]:
    """Milliseconds per node, summed over the turn's `node_end` events."""
    timings: dict[str, float] = {}
    for evt in trace:
        if evt.type == "node_end" and evt.node:
            timings[evt.node] = round(timings.get(evt.node, 0.0) + float(evt.get("ms") or 0.0), 1)
    return timings
