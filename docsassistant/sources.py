"""Which files a run covers and what they are called in the store: component names,
folder expansion, and source paths relative to the base folder."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from docsassistant.loaders import SUPPORTED_EXTENSIONS, LoaderError

_COMPONENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def validate_component(component: str) -> str:
    """The component name, lower-cased; ValueError when it is not usable."""
    name = component.strip().lower()
    if not name or len(name) > 64 or not set(name) <= _COMPONENT_CHARS:
        raise ValueError(
            f"Invalid component name {component!r}: use 1-64 characters from a-z, 0-9, '-', '_', '.'."
        )
    return name


def collect_files(paths: Iterable[Path | str]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Expand folders to their supported files; missing paths come back as (path, reason)."""
    files: list[Path] = []
    missing: list[tuple[str, str]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if Path(name).suffix.lower() in SUPPORTED_EXTENSIONS:
                        files.append(Path(root) / name)
        elif path.is_file():
            files.append(path)
        else:
            missing.append((str(raw), "No such file or folder."))
    return files, missing


def source_path_of(path: Path, base: Path) -> str:
    """`path` relative to `base`, as stored in `documents.source_path`."""
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        raise LoaderError(f"{path} is outside the base folder {base}; pass --base.") from None
