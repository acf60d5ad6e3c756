"""Which files a run covers and what they are called in the store: component names,
folder expansion, and source paths relative to the base folder."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from docsassistant.inputs import strip_name_controls
from docsassistant.loaders import SUPPORTED_EXTENSIONS, LoaderError

_COMPONENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def validate_component(component: str) -> str:
    """The component name, lower-cased; ValueError when it is not usable."""
    name = component.strip().lower()
    # Not starting with a dot: a component names a folder of stored uploads, and `..` (or
    # `.`) put them in the data folder itself, beside the database (QA round 8b).
    if not name or len(name) > 64 or not set(name) <= _COMPONENT_CHARS or name.startswith("."):
        raise ValueError(
            f"Invalid component name {component!r}: use 1-64 characters from a-z, 0-9, '-', '_', '.', "
            "not starting with '.'."
        )
    return name


class Refused(NamedTuple):
    """A path that cannot be indexed: as given (or found), why, and whether it was only
    skipped (a FIFO, socket or device found in a folder) rather than failed."""

    path: str
    reason: str
    skipped: bool = False


def collect_files(paths: Iterable[Path | str]) -> tuple[list[Path], list[Refused]]:
    """Expand folders to their supported files; paths that cannot be indexed come back as
    Refused: missing ones and dangling links (failed), and FIFOs, sockets or devices
    (opening a FIFO waits for a writer forever), which are never opened: skipped when
    found in a folder, failed when named. Each refused path is listed once, also when a
    folder and a path inside it are both given (named wins: it was asked for)."""
    files: list[Path] = []
    refused: dict[str, Refused] = {}  # keyed by absolute path, in the order found
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if Path(name).suffix.lower() in SUPPORTED_EXTENSIONS:
                        entry = Path(root) / name
                        why = not_a_regular_file(entry)
                        if why:
                            special = _is_special(entry)
                            found = Refused(str(entry), why + (" It is skipped." if special else ""), special)
                            refused.setdefault(os.path.abspath(entry), found)
                        else:
                            files.append(entry)
        elif why := not_a_regular_file(path):
            key = os.path.abspath(path)
            if key not in refused or refused[key].skipped:
                refused[key] = Refused(str(raw), why)
        else:
            files.append(path)
    return files, list(refused.values())


def _is_special(path: Path) -> bool:
    """A FIFO, socket or device (not a dangling link or a missing path)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return any(test(mode) for test, _ in _KINDS)


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def not_a_regular_file(path: Path) -> str | None:
    """Why `path` cannot be indexed as a file (None for a regular file or a link to one)."""
    try:
        mode = path.stat().st_mode  # follows links, without opening anything
    except OSError:
        if path.is_symlink():
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            return f"A symbolic link to {target}, which does not exist (or loops)."
        return "No such file or folder."
    if stat.S_ISREG(mode):
        return None
    kind = next((what for test, what in _KINDS if test(mode)), "something else")
    link = " (through a symbolic link)" if path.is_symlink() else ""
    # The path is not repeated: it is listed beside the reason.
    return f"{kind[0].upper()}{kind[1:]}{link}, not a regular file; it is not opened."


def read_regular_file(path: Path) -> bytes:
    """The bytes of `path`, refusing (LoaderError) anything but a regular file.

    Opened non-blocking and checked with fstat, so a FIFO swapped in after the folder was
    listed is refused instead of waiting for a writer forever.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb", closefd=True) as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LoaderError(f"{path} is not a regular file; it is not read.")
        return file.read()


def source_path_of(path: Path, base: Path) -> str:
    """`path` relative to `base`, as stored in `documents.source_path`.

    Control and bidi-control characters are removed from each part, as for uploaded file
    names (a U+202E override makes `txt.md` display as `dm.txt`).
    """
    try:
        rel = path.resolve().relative_to(base.resolve())
    except ValueError:
        raise LoaderError(_outside_message(path, base)) from None
    if not rel.parts:  # --base named the file itself: it would be stored as "."
        raise LoaderError(
            f"{path} is the base itself; pass --base as the folder that holds it ({path.parent})."
        )
    return "/".join(_clean_part(part) for part in rel.parts) or rel.as_posix()


def _clean_part(part: str) -> str:
    cleaned = strip_name_controls(part).strip()
    return cleaned or part  # a name of nothing but controls keeps its raw form


def _outside_message(path: Path, base: Path) -> str:
    """Why `path` is outside `base`: a link leading out is not fixed by another --base."""
    inside_unresolved = Path(os.path.abspath(path)).is_relative_to(Path(os.path.abspath(base)))
    if inside_unresolved:
        return (
            f"{path} is a symbolic link (or lies under one) pointing to {path.resolve()}, outside the "
            f"base folder {base}; links that leave the folder are not followed."
        )
    return f"{path} is outside the base folder {base}; pass --base."
