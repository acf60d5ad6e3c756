"""Dependencies of one turn, injected through LangGraph's runtime context (not state)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from docsassistant.agent.configuration import AgentLimits
from docsassistant.readonly_sql import count_chunks
from docsassistant.search import list_components, search_docs


@dataclass
class AgentContext:
    llm: BaseChatModel
    limits: AgentLimits = field(default_factory=AgentLimits)
    search: Callable[..., list[dict[str, Any]]] = search_docs
    count: Callable[..., dict[str, Any]] = count_chunks
    components: Callable[[], list[str]] = list_components
    deadline: float = field(default_factory=lambda: time.monotonic() + AgentLimits().turn_timeout_s)

    def time_left(self) -> float:
        return self.deadline - time.monotonic()
