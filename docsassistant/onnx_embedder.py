"""The ONNX Runtime embedder: the float32 (or int8) export of a sentence-transformers model,
without torch.

Queries never wait for documents: a query runs on its caller's thread at normal priority,
while document slices run on background worker threads with a lower CPU priority. Documents
share one session (ONNX Runtime's `run` is thread-safe), each run on one thread; queries
have their own session, whose runs use `query_threads` threads, so no query waits for a
thread pool that documents use.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from docsassistant.agent.injection.features import LAYERS
from docsassistant.foreground import FOREGROUND
from docsassistant.onnx_export import ensure_model, with_layer_output

# Tokens per phrase batch: 2,048 tokens is 256 phrases of 8 tokens (measured below).
PHRASE_BATCH_TOKENS = 2048


def _lower_priority(niceness: int) -> None:
    """Thread initializer: on Linux, niceness is per thread (the thread id is its pid). The
    scheduler then serves queries (and PostgreSQL) first whenever both want a core, yet
    gives ingestion every idle cycle. Niceness ranks threads within one autogroup (a
    terminal session): on a machine shared with other busy work in the same session,
    ingestion yields to that work too (DOCSASSISTANT_EMBEDDING_NICENESS=0 turns it off)."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or not permitted
        current = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, current + niceness))


class OnnxEmbedder:
    """Mean-pooled, L2-normalised float32 vectors from the ONNX model of `recipe`
    (onnx_export.RECIPES), as sentence-transformers computes them from the float model."""

    backend = "onnx"

    def __init__(
        self,
        name: str,
        model_dir: Path,
        cache_dir: Path,
        batch_size: int,
        threads: int,
        niceness: int = 10,
        recipe: str = "fp32-v1",
        query_threads: int = 1,
    ) -> None:
        from tokenizers import Tokenizer

        self.name = name
        self.batch_size = batch_size
        self.identity = f"onnx-{recipe}"
        self.model_file = ensure_model(model_dir, cache_dir, recipe)
        self.max_tokens = int(_read_json(model_dir / "sentence_bert_config.json").get("max_seq_length", 256))
        self.dim = _check_pooling(model_dir)
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json carries its own truncation (128) and fixed padding: use the
        # model's limit instead, and pad each slice only to its longest text.
        self._tokenizer.enable_truncation(max_length=self.max_tokens)
        self._tokenizer.no_padding()
        self._session = self._new_session(1)  # each run on its caller's thread, so priorities apply
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.query_threads = query_threads
        self._query_session = self._session if query_threads == 1 else None  # built at first query
        self._query_session_lock = threading.Lock()
        self._document_runs = 0  # document slices running now (in this process)
        self._workers = ThreadPoolExecutor(
            max_workers=max(1, threads),
            thread_name_prefix="embed-documents",
            initializer=_lower_priority,
            initargs=(niceness,),
        )
        self.niceness = niceness

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Each text runs alone (no padding, and the same vector as `embed_query` gives it:
        int8 activation scales are computed per run, so batch neighbours would shift it, and
        float32 sums in another order when padded). Measured faster per CPU-second than
        batches of 16 or 32 (docs/performance.md).
        Slices of texts go to the background workers, longest first to balance them."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        slices = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        futures = [
            (part, self._workers.submit(self._run_each, [encodings[i] for i in part])) for part in slices
        ]
        for part, future in futures:
            out[part] = future.result()
        return out

    def embed_phrases(self, texts: list[str]) -> np.ndarray:
        """Short texts (the knowledge graph's entity phrases) in batches of equal token count:
        equal lengths need no padding, so each text gets its lone-run vector up to float
        rounding (tested), at one session run per batch instead of one per text. Entity
        vectors are only compared with query vectors by cosine, never required equal."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        parts = self._equal_length_parts(self._tokenizer.encode_batch(texts) if texts else [])
        futures = [(part, self._workers.submit(self._run_batch, encodings)) for part, encodings in parts]
        for part, future in futures:
            out[part] = future.result()
        return out

    @staticmethod
    def _equal_length_parts(encodings: list) -> list[tuple[list[int], list]]:
        """(positions, encodings) groups of one token count, each of at most
        PHRASE_BATCH_TOKENS tokens in all."""
        by_length: dict[int, list[int]] = {}
        for i, encoding in enumerate(encodings):
            by_length.setdefault(len(encoding.ids), []).append(i)
        size = PHRASE_BATCH_TOKENS
        return [
            (part, [encodings[i] for i in part])
            for length, group in by_length.items()
            for start in range(0, len(group), max(1, size // length))
            for part in [group[start : start + max(1, size // length)]]
        ]

    def detector_features(self, texts: list[str]) -> np.ndarray:
        """The injection check's features (`agent/injection/features.py`) of short texts a
        question is waiting for, its hits' sentences: run here on the query session like
        `embed_query`, in batches of equal token count as in `embed_phrases`; every session also
        returns the state after layer 3. On the document workers they queued behind every
        slice an upload had already submitted: a turn's check took 15.9 s during an upload,
        0.85 s idle (QA 8b). Their sentence block is the text's sentence vector."""
        from docsassistant.agent.injection.features import WIDTH, pool

        out = np.zeros((len(texts), WIDTH), dtype=np.float32)
        session = self._query_runner()
        for positions, encodings in self._equal_length_parts(
            self._tokenizer.encode_batch(texts) if texts else []
        ):
            inputs, mask = self._feeds(encodings)
            last, middle = session.run(None, inputs)
            out[positions] = pool([middle, last], mask)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """One text, run right here on the query session: never queued behind document
        slices. Its vector is the one `embed_documents` gives the same text (the thread count
        changes no result here: 560 texts bitwise equal, and tested)."""
        return self._run(self._tokenizer.encode(text), self._query_runner())

    def _query_runner(self):
        """The query session, built at the first query: a process that only indexes never
        pays its memory (~100 MB). Its worker threads take the CPU priority of the thread
        that builds it, which is a query's, never a (niced) document worker's.
        While this process embeds documents, a query runs on one thread (the document
        session, thread-safe): its second thread then competes with the document workers
        for a core, and searches during an ingest measured p95 30-33 ms with two threads
        against 24 ms with one (docs/performance.md)."""
        if self._document_runs:
            return self._session
        if self._query_session is None:
            with self._query_session_lock:
                if self._query_session is None:
                    self._query_session = self._new_session(self.query_threads)
        return self._query_session

    def _new_session(self, threads: int):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # No spinning: ONNX Runtime's workers otherwise busy-wait between operators, taking
        # a core from PostgreSQL (which ranks the lexical lists meanwhile) and from other
        # work; spinning workers were why two threads measured slower on a busy machine.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # A second output (the injection classifier's, `detector_features`) costs a copy of one
        # tensor per run; a session of its own cost ~190 MB (measured RSS).
        model = with_layer_output(self.model_file, DETECTOR_LAYER)
        return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def _run_each(self, encodings: list) -> np.ndarray:
        with self._documents_running():
            return np.stack([self._run_after_searches(encoding) for encoding in encodings])

    def _run_after_searches(self, encoding) -> np.ndarray:
        FOREGROUND.wait_turn()  # a niced thread still takes a core and memory bandwidth
        return self._run(encoding, self._session)

    def _run_batch(self, encodings: list, session=None, *, documents: bool = True) -> np.ndarray:
        """Texts of one token count, so no padding (`session`: the document session by default)."""
        inputs, mask = self._feeds(encodings)
        if documents:
            with self._documents_running():
                hidden = (session or self._session).run(None, inputs)[0]
        else:
            hidden = (session or self._session).run(None, inputs)[0]
        return mean_pool_normalise(hidden, mask)

    def _feeds(self, encodings: list) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The session inputs of encodings of one token count, and their attention mask."""
        feeds = {
            "input_ids": np.asarray([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.asarray([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.asarray([e.type_ids for e in encodings], dtype=np.int64),
        }
        return {k: v for k, v in feeds.items() if k in self._inputs}, feeds["attention_mask"]

    @contextmanager
    def _documents_running(self) -> Iterator[None]:
        """Counts document runs in progress, so a query meanwhile takes one thread."""
        with self._query_session_lock:
            self._document_runs += 1
        try:
            yield
        finally:
            with self._query_session_lock:
                self._document_runs -= 1

    def _run(self, encoding, session) -> np.ndarray:  # a tokenizers.Encoding
        inputs, mask = self._feeds([encoding])
        return mean_pool_normalise(session.run(None, inputs)[0], mask)[0]


DETECTOR_LAYER = LAYERS[0]  # the hidden state after this layer is the session's second output


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over real tokens, then unit length (sentence-transformers' Pooling + Normalize)."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


def _check_pooling(model_dir: Path) -> int:
    """The model's dimension; refuses a pooling this embedder does not reproduce."""
    pooling = _read_json(model_dir / "1_Pooling" / "config.json")
    modules = [m.get("type", "") for m in _read_json_list(model_dir / "modules.json")]
    if not pooling.get("pooling_mode_mean_tokens") or not any(t.endswith("Normalize") for t in modules):
        raise ValueError(
            f"The ONNX embedder supports mean-pooled, normalised sentence-transformers models; "
            f"{model_dir} is not one. Set DOCSASSISTANT_EMBEDDER=torch for this model."
        )
    return int(pooling["word_embedding_dimension"])


def _read_json_list(path: Path) -> list[dict]:
    return json.loads(path.read_text()) if path.is_file() else []
