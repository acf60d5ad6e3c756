"""DocsAssistant: agentic retrieval-augmented answers over a team's documentation."""

__version__ = "0.1.0"
