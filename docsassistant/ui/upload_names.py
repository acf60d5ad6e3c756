"""Turning the name a browser sent into a safe stored file name."""

from __future__ import annotations

from pathlib import PurePosixPath

from docsassistant.inputs import strip_name_controls

# Linux and macOS file systems allow 255 bytes per name (ext4 NAME_MAX), not characters:
# 90 CJK characters are 270 bytes.
MAX_NAME_BYTES = 255


class UploadRejected(ValueError):
    """An upload that is refused before indexing; the message says why."""


def safe_filename(name: str) -> str:
    """The base name of an uploaded file's name; raises UploadRejected for unusable names.

    Both `/` and `\\` count as separators, so `../../evil.md` and `..\\evil.md` become
    `evil.md`. Control and bidi-control characters are removed (a bidi override can make
    `txt.md` read as `dm.txt`); a name over 255 UTF-8 bytes is shortened, keeping its
    extension. Empty names, `.`/`..` and hidden (dot) files are refused.
    """
    raw = name or ""
    cleaned = strip_name_controls(raw)
    base = PurePosixPath(cleaned.replace("\\", "/")).name.strip()
    if not base or set(base) == {"."}:
        raise UploadRejected(f"The file name {raw!r} is not a usable file name.")
    if base.startswith("."):
        raise UploadRejected(
            f"Hidden files ({base}) are not accepted: rename the file without the leading dot."
        )
    return shorten_name(base)


def shorten_name(name: str, max_bytes: int = MAX_NAME_BYTES) -> str:
    """`name` cut to at most `max_bytes` UTF-8 bytes at a character boundary, keeping its
    extension (`.md` stays, so the file still loads as Markdown)."""
    if len(name.encode()) <= max_bytes:
        return name
    suffix = PurePosixPath(name).suffix
    if len(suffix.encode()) > max_bytes // 2:  # not a real extension
        suffix = ""
    stem = name[: len(name) - len(suffix)] if suffix else name
    room = max_bytes - len(suffix.encode())
    return stem.encode()[:room].decode(errors="ignore").rstrip() + suffix
