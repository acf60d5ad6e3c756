"""Load what a process's first request would otherwise wait for, in a background thread:
the embedding model (the ONNX session, or torch with DOCSASSISTANT_EMBEDDER=torch: seconds)
then igraph (1.7-2.4 s on this machine) and spaCy with its tokenizer (0.9 s without torch),
which graph searches and an upload's graph extraction need. The app and the MCP server both start it."""

from __future__ import annotations

import contextlib
import threading


def start_warm_up() -> threading.Thread:
    """Start loading in a daemon thread and return it (join it to wait)."""

    def load() -> None:
        from docsassistant.config import get_settings
        from docsassistant.embeddings import get_embedder

        loaded = False
        with contextlib.suppress(Exception):  # the request that needs the model reports errors
            get_embedder(get_settings()).embed_query("warm up")
            loaded = True
        # After the model: a question asked meanwhile needs the model first. A graph search
        # that starts during these imports waits on Python's import lock, no longer than the
        # import it would have done itself.
        with contextlib.suppress(Exception):
            import igraph  # noqa: F401
        if loaded:  # spaCy hides torch while it imports: never while a model load may import it
            from docsassistant.knowledge_graph.extract import load_tokenizer

            load_tokenizer()  # an upload's graph extraction would otherwise build it, GIL held

    thread = threading.Thread(target=load, name="docsassistant-warm-up", daemon=True)
    thread.start()
    return thread
