"""First start: bring the store up and index the bundled documentation if it is empty."""

from __future__ import annotations

from docsassistant.config import PROJECT_ROOT, Settings, get_settings
from docsassistant.documents import store_stats
from docsassistant.ingest import IngestReport, ProgressCallback, index_paths
from docsassistant.store import open_store

BUNDLED_COMPONENT = "docsassistant"


def bootstrap(
    settings: Settings | None = None, progress: ProgressCallback | None = None
) -> IngestReport | None:
    """Migrate the store; index `docs/` as component `docsassistant` when no document exists.

    Returns the ingest report, or None when the store already had documents.
    """
    settings = settings or get_settings()
    open_store(settings)
    if store_stats(settings=settings):
        return None
    return index_paths(
        [PROJECT_ROOT / "docs"], BUNDLED_COMPONENT, base=PROJECT_ROOT, settings=settings, progress=progress
    )
