"""The SHA-256 of a data file's bytes, read once per process per version of the file.

What snapshots record of data an env loaded from disk (a WebShop catalog folder, StableToolBench cache
files: their ``data_settings``) is built from these digests. A file is read again only when its size or
modification time changed, so clones and twins of an env over the same folder hash nothing.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

__all__ = ["file_digest"]

_CHUNK = 1 << 20


def file_digest(path: str | Path) -> bytes | None:
    """The SHA-256 digest of the file at ``path``, or None when there is no readable file there."""
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return _digest(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=65536)
def _digest(path: str, size: int, mtime_ns: int) -> bytes | None:  # size and mtime: a changed file is read again
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                h.update(chunk)
    except OSError:
        return None
    return h.digest()
