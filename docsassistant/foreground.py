"""Searches before background indexing, within one process.

An upload indexes in a thread of the same process that serves chat (the app) or MCP
calls. Lowering the indexing threads' CPU priority (onnx_embedder) is not enough: the
indexing thread holds Python's GIL while it reads, chunks and tokenises files, and its
PostgreSQL backend competes with the search's for a core. So a search marks itself as
running (`FOREGROUND.running()`), and indexing steps call `FOREGROUND.wait_turn()` first:
while a search runs they wait (holding no GIL), up to `MAX_WAIT_S` per step, so a stream
of searches slows an upload but never stops it. With no search running the check is one
integer read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# Longest one indexing step waits for searches to finish; a search takes 10-30 ms.
MAX_WAIT_S = 0.2


class Foreground:
    """Counts the searches running in this process; indexing steps wait while there are any."""

    def __init__(self, max_wait_s: float = MAX_WAIT_S) -> None:
        self.max_wait_s = max_wait_s
        self._running = 0
        self._idle = threading.Condition()
        self.waited_s = 0.0  # total time indexing steps spent waiting (for benchmarks)

    @contextmanager
    def running(self) -> Iterator[None]:
        """Mark a search in progress for the duration of the block."""
        with self._idle:
            self._running += 1
        try:
            yield
        finally:
            with self._idle:
                self._running -= 1
                if not self._running:
                    self._idle.notify_all()

    def wait_turn(self) -> None:
        """Called by an indexing step before it starts: wait while a search runs (bounded)."""
        if not self._running:  # the common case: no lock taken
            return
        start = time.perf_counter()
        with self._idle:
            self._idle.wait_for(lambda: not self._running, timeout=self.max_wait_s)
        self.waited_s += time.perf_counter() - start


FOREGROUND = Foreground()
