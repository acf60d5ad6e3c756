"""The checkpointed LangGraph agent: decide → retrieve → grade → (rewrite) → generate → verify."""
