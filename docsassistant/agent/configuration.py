"""The agent's limits, from the app settings."""

from __future__ import annotations

from dataclasses import dataclass

from docsassistant.config import Settings


@dataclass(frozen=True)
class AgentLimits:
    max_searches: int = 4  # search_docs calls per turn
    max_rewrites: int = 2  # query rewrites per turn
    turn_timeout_s: float = 180.0  # wall clock per turn
    recursion_limit: int = 40  # LangGraph super-steps per turn (a backstop)
    num_ctx: int = 8192  # the model's context window, in tokens
    reserve_output_tokens: int = 1024  # kept free for the reply
    search_k: int = 5
    novelty_threshold: float = 0.8  # a query this similar to an earlier one is no progress
    reserve_s: float = 15.0  # below this much time left, no further search or verification

    @classmethod
    def from_settings(cls, settings: Settings) -> AgentLimits:
        return cls(
            max_searches=settings.max_searches,
            max_rewrites=settings.max_rewrites,
            turn_timeout_s=settings.turn_timeout_s,
            recursion_limit=settings.recursion_limit,
            num_ctx=settings.num_ctx,
        )

    @property
    def prompt_budget(self) -> int:
        return self.num_ctx - self.reserve_output_tokens
