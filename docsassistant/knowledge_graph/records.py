"""Typed records passed between extraction, storage and retrieval of the knowledge graph."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n.,;:!?\"'`()[]{}*_#>|"


def normalise_phrase(text: str) -> str:
    """The key an entity is stored under: lower-cased, spaces collapsed, no edge punctuation."""
    return _SPACE.sub(" ", text).strip(_EDGE_PUNCT).lower()[:200]


class EntityMention(BaseModel):
    """A phrase a chunk mentions, and what kind of thing it is."""

    phrase: str
    kind: str  # identifier | heading | title | name | phrase | document | llm:<type>


class Relation(BaseModel):
    """`subject` – `predicate` – `object`, all as phrases, stated by one chunk."""

    subject: str
    predicate: str
    object: str


class ChunkGraph(BaseModel):
    """What one chunk contributes to the graph."""

    entities: list[EntityMention] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)


class LinkTarget(BaseModel):
    """A Markdown link or AsciiDoc `xref:`/`link:` to another document of the same component."""

    label: str
    target: str  # as written
    target_path: str  # a source_path, or its tail (`api/tools.adoc`) for Antora xrefs
