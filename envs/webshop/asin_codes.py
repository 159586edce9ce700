"""ASINs as two u64 values, so the search index keeps them in fast fields (no stored-document reads).

An ASIN of 1-16 ASCII characters without NUL is its bytes, NUL-padded to 16,
split in two big-endian u64 halves; anything else encodes as ``(0, 0)`` and is
read from the index's stored ``asin`` field instead.
"""
from __future__ import annotations

_ASIN_BYTES = 16  # an ASIN of up to 16 ASCII characters is kept in two u64 fast fields


def encode_asin(asin: str) -> tuple[int, int]:
    """``asin`` as two u64 (its ASCII bytes, NUL-padded to 16, big-endian halves), or ``(0, 0)`` when it
    is empty, longer than 16 characters, not ASCII or holds NUL (those are read from stored docs)."""
    try:
        raw = asin.encode("ascii")
    except UnicodeEncodeError:
        return 0, 0
    if not 0 < len(raw) <= _ASIN_BYTES or b"\0" in raw:
        return 0, 0
    raw = raw.ljust(_ASIN_BYTES, b"\0")
    return int.from_bytes(raw[:8], "big"), int.from_bytes(raw[8:], "big")


def decode_asin(hi: int, lo: int) -> str:
    """The ASIN :func:`encode_asin` turned into ``(hi, lo)`` (``""`` for ``(0, 0)``)."""
    return (hi.to_bytes(8, "big") + lo.to_bytes(8, "big")).rstrip(b"\0").decode("ascii")
