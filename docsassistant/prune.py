"""Which documents `ingest --prune` may remove, decided so that it cannot lose data.

A prune removes a document only when all of these hold:
- it was indexed from files by the CLI (`origin = 'cli'`), never an upload or a BEIR record;
- its source path lies under one of the paths given to this run (relative to the base),
  so a run over `docs/guides` never judges documents from `docs/api` or another base;
- its file is no longer there;
- nothing in the run failed and no path fell outside the base: a failure means this run
  cannot tell a deleted file from one it could not see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.loaders import LoaderError
from docsassistant.sources import collect_files, source_path_of, validate_component
from docsassistant.store import open_store


@dataclass
class PrunePlan:
    """What a prune would remove (`doomed`: source path → document id), or why it won't."""

    doomed: dict[str, int] = field(default_factory=dict)
    refused: str | None = None
    note: str | None = None


def scope_of(paths: Iterable[Path | str], base: Path) -> list[str]:
    """Each given path relative to `base`: "" for the base itself, "dir/" for a folder,
    "dir/file.md" for a file. Raises ValueError for a path outside the base."""
    root = base.resolve()
    scope = []
    for raw in paths:
        path = Path(raw).resolve()
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:
            raise ValueError(f"{raw} is outside the base folder {base}") from None
        if rel == ".":
            scope.append("")
        else:
            scope.append(f"{rel}/" if path.is_dir() else rel)
    return scope


def in_scope(source_path: str, scope: list[str]) -> bool:
    return any(s == "" or source_path == s or (s.endswith("/") and source_path.startswith(s)) for s in scope)


def plan_prune(
    engine: sa.Engine,
    component: str,
    paths: Iterable[Path | str],
    base: Path,
    failed: int,
) -> PrunePlan:
    """Decide what a prune of `component` over `paths` may remove; `failed` counts this
    run's failed files and paths (any failure refuses the prune)."""
    paths = list(paths)
    if failed:
        return PrunePlan(
            refused=f"Nothing is pruned: {failed} file(s) or path(s) of this run failed or lie outside the base, so a "
            "missing document could be one this run could not read. Fix the failures (or the --base) and run again."
        )
    try:
        scope = scope_of(paths, base)
    except ValueError as exc:
        return PrunePlan(refused=f"Nothing is pruned: {exc}.")
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT id, source_path FROM documents WHERE component = :c AND origin = 'cli'"),
            {"c": component},
        ).all()
    under = {r.source_path: r.id for r in rows if in_scope(r.source_path, scope)}
    # Source paths drop control characters from file names, so a name is also looked up
    # among the files this run found, not only on disk as stored.
    present = _present_source_paths(paths, base) if under else set()
    doomed = {p: i for p, i in sorted(under.items()) if p not in present and not (base / p).is_file()}
    note = None
    if rows and not under:
        note = (
            f"None of the {len(rows)} documents this component has from the CLI lie under the given "
            "paths relative to the base: if they came from the same files, they were indexed with "
            "another --base (or from another working directory); use that one so paths match."
        )
    return PrunePlan(doomed=doomed, note=note)


def _present_source_paths(paths: list[Path | str], base: Path) -> set[str]:
    """The source paths of the files under `paths` as this run names them."""
    files, _ = collect_files(paths)
    present = set()
    for path in files:
        try:
            present.add(source_path_of(path, base))
        except LoaderError:
            continue
    return present


def copies_note(copies: list[tuple[str, str]]) -> str:
    """What to say when new documents repeat known ones under other paths: (new, old) pairs."""
    new, old = copies[0]
    return (
        f"{len(copies)} new document(s) have the same content as documents already indexed "
        f"under other paths (e.g. {new} = {old}): were they indexed with another --base or from "
        "another working directory? Use the same base as before, or delete the old copies."
    )


def apply_prune(engine: sa.Engine, plan: PrunePlan) -> list[str]:
    """Delete the planned documents (chunks cascade) in one transaction; returns their paths."""
    if plan.refused or not plan.doomed:
        return []
    with engine.begin() as conn:
        conn.execute(
            sa.text("DELETE FROM documents WHERE id = ANY(:ids) AND origin = 'cli'"),
            {"ids": list(plan.doomed.values())},
        )
    return list(plan.doomed)


def preview_prune(
    paths: Iterable[Path | str],
    component: str,
    *,
    base: Path | str | None = None,
    settings: Settings | None = None,
) -> PrunePlan:
    """What `index_paths(..., prune=True)` would remove, changing nothing (`--dry-run`).

    Paths that are missing or outside the base refuse the prune here as they would in a
    real run; files that would fail to load are only found by indexing them.
    """
    settings = settings or get_settings()
    component = validate_component(component)
    base_dir = Path(base) if base is not None else Path.cwd()
    paths = list(paths)
    files, refused = collect_files(paths)
    failed = sum(not r.skipped for r in refused)  # as in a real run: skipped FIFOs do not count
    for path in files:
        try:
            source_path_of(path, base_dir)
        except LoaderError:
            failed += 1
    return plan_prune(open_store(settings), component, paths, base_dir, failed=failed)
