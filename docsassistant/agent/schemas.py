"""Structured outputs the model is asked for (JSON schema sent in Ollama's `format`)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ChunkGrades(BaseModel):
    """Which of the numbered documents help answer the question, and whether they suffice."""

    relevant: list[int] = Field(description="Numbers of the documents that are relevant.")
    sufficient: bool = Field(
        description="True when the relevant documents together answer the whole question."
    )


class RewrittenQuery(BaseModel):
    """A new search query for the documentation."""

    query: str = Field(description="A short keyword query, different from the earlier ones.")


class ClaimCheck(BaseModel):
    claim: str = Field(description="One factual claim from the answer.")
    supported: bool = Field(description="True when the cited documents state this claim.")
    sources: list[int] = Field(default_factory=list, description="Document numbers that support it.")


class Verification(BaseModel):
    """Claim-by-claim check of an answer against its documents."""

    claims: list[ClaimCheck]
