"""Snapshots as bytes that travel: to another process or another machine with the same treegym and data.

``snapshot_to_bytes(snap)`` / ``snapshot_from_bytes(data)`` (re-exported by ``treegym.envs``) write and
read one sealed record::

    b"TGSNAP" | 4-byte header length | header JSON | 32-byte digest | pickle(value) (zlib when large)

The header names the format version (:data:`FORMAT_VERSION`), the treegym version, the seal and the
body's packing; the digest seals header and body. Reading refuses, with one :class:`SnapshotBytesError` line each: bytes that
are not such a record, another format version, another treegym version (a snapshot's payload is the
engine's own value, whose shape may change between versions), and a payload whose digest does not
match (tampered or truncated). Static data (a game, a catalog, a world) is referenced by key inside the
payload and loaded on demand by the process that restores it, cached per process.

The seal is ``sha256`` (catches corruption and edits that do not recompute it), or ``hmac-sha256``
under a key: set ``TREEGYM_SNAPSHOT_KEY`` on every process of a cluster and bytes sealed elsewhere are
refused. The payload is a pickle: load only bytes your own processes made, or set the key.
:class:`~treegym.envs.core.signed.StateSigner` (states a session server hands out) seals with the same
record, under that key when set, else under a key of its own process.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import pickle
import struct
import zlib
from functools import lru_cache
from typing import Any, Callable

from .snapshot import FORMAT_VERSION, Snapshot, SnapshotError

MAGIC = b"TGSNAP"
KEY_VARIABLE = "TREEGYM_SNAPSHOT_KEY"
_LENGTH = struct.Struct(">I")
_DIGEST_SIZE = 32  # SHA-256
COMPRESS_ABOVE = 1024 * 1024  # bytes of pickle: larger bodies are zlib-compressed (inflating costs time)


class SnapshotBytesError(SnapshotError, ValueError):
    """Bytes that do not restore here: not a record, another version, or a payload that fails its seal."""


@lru_cache(maxsize=1)
def treegym_version() -> str:
    """The installed treegym version (``unknown`` when the distribution has no metadata)."""
    from importlib import metadata

    try:
        return metadata.version("treegym")
    except metadata.PackageNotFoundError:
        return "unknown"


def cluster_key() -> bytes | None:
    """The key of ``TREEGYM_SNAPSHOT_KEY`` (any text; None when unset or empty)."""
    text = os.environ.get(KEY_VARIABLE, "")
    return hashlib.sha256(text.encode("utf-8")).digest() if text else None


def _digest(key: bytes | None, header: Any, body: Any) -> bytes:
    h = hashlib.sha256(header) if key is None else hmac.new(key, header, hashlib.sha256)
    h.update(body)
    return h.digest()


def seal(value: Any, key: bytes | None = None) -> bytes:
    """``value`` pickled into one record (see the module docstring), HMAC-sealed when ``key`` is given."""
    body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    packed = "pickle"
    if len(body) > COMPRESS_ABOVE:  # small ones: inflating costs more than the bytes saved
        body, packed = zlib.compress(body, 1), "zlib-pickle"
    header = {"format": FORMAT_VERSION, "treegym": treegym_version(),
              "seal": "sha256" if key is None else "hmac-sha256", "body": packed}
    head = json.dumps(header, sort_keys=True).encode()
    return MAGIC + _LENGTH.pack(len(head)) + head + _digest(key, head, body) + body


@lru_cache(maxsize=64)
def _read_header(head: bytes) -> tuple | None:
    """(format, treegym version, seal, body packing) of a header (records of one writer share theirs),
    or None when it is damaged."""
    try:
        header = json.loads(head)
        return header["format"], header["treegym"], header["seal"], header["body"]
    except (ValueError, KeyError, TypeError):
        return None


def unseal(data: Any, key: bytes | None = None, what: str = "snapshot") -> Any:
    """The value of a :func:`seal` record; one :class:`SnapshotBytesError` saying what is wrong otherwise."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SnapshotBytesError(f"a {what} record is bytes, got {type(data).__name__}")
    if type(data) is not bytes:
        data = bytes(data)
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + _LENGTH.size:
        raise SnapshotBytesError(f"these bytes are not a treegym {what} (no {MAGIC.decode()} record); "
                                 "write them with treegym.envs.snapshot_to_bytes(snapshot)")
    (n,) = _LENGTH.unpack_from(data, len(MAGIC))
    start = len(MAGIC) + _LENGTH.size
    head = data[start:start + n]
    header = _read_header(head) if len(head) == n else None
    if header is None:
        raise SnapshotBytesError(f"this {what} record's header is damaged; take the snapshot again")
    fmt, version, how, packed = header
    if fmt != FORMAT_VERSION:
        raise SnapshotBytesError(f"this {what} is in snapshot format {fmt!r}; this treegym reads format "
                                 f"{FORMAT_VERSION}: restore it with the treegym that wrote it")
    if version != treegym_version():
        raise SnapshotBytesError(f"this {what} was written by treegym {version}; this is treegym "
                                 f"{treegym_version()}: restore it with the same version")
    wanted = "sha256" if key is None else "hmac-sha256"
    if how != wanted:
        hint = (f"set {KEY_VARIABLE} to the key it was sealed with" if key is None
                else f"it was sealed without a key; unset {KEY_VARIABLE} or seal it again")
        raise SnapshotBytesError(f"this {what} is sealed with {how!r} and this process reads {wanted!r}: {hint}")
    view = memoryview(data)  # (slices of a view copy nothing)
    digest, body = view[start + n:start + n + _DIGEST_SIZE], view[start + n + _DIGEST_SIZE:]
    if not hmac.compare_digest(_digest(key, head, body), digest):
        raise SnapshotBytesError(f"this {what}'s payload does not match its seal (tampered, truncated, or sealed "
                                 "under another key): take the snapshot again")
    try:
        return pickle.loads(zlib.decompress(body) if packed == "zlib-pickle" else body)
    except SnapshotError:
        raise
    except Exception as exc:  # noqa: BLE001 - sealed but unreadable here: data this process lacks
        raise SnapshotBytesError(f"this {what} cannot be read here: {type(exc).__name__}: {exc}") from None


def reduce_by_key(value: Any, loader: Callable[[Any], Any], key: Any) -> tuple:
    """A ``__reduce__`` value for static data (a device configuration, a task): a reference,
    ``loader(key)``, when that gives a value equal to ``value`` in this process (then the restoring
    process loads it on demand, cached there), else a copy of ``value``'s fields."""
    try:
        same = loader(key) == value
    except Exception:  # noqa: BLE001 - not loadable by key here: copy it
        same = False
    if same:
        return loader, (key,)
    return _fields_copy, (type(value), dict(value.__dict__))


def _fields_copy(cls: type, fields: dict) -> Any:
    value = object.__new__(cls)
    value.__dict__.update(fields)
    return value


def snapshot_to_bytes(snap: Snapshot) -> bytes:
    """``snap`` as a sealed record that restores in any process with the same treegym and data
    (under ``TREEGYM_SNAPSHOT_KEY`` when set)."""
    if not isinstance(snap, Snapshot):
        raise TypeError(f"snapshot_to_bytes takes a Snapshot (from treegym.envs.snapshot(env)), got "
                        f"{type(snap).__name__}")
    return seal(snap, cluster_key())


def snapshot_from_bytes(data: bytes) -> Snapshot:
    """The :class:`Snapshot` of :func:`snapshot_to_bytes`'s record; :class:`SnapshotBytesError` (one line)
    for bytes of another format or treegym version, or whose payload fails the seal."""
    snap = unseal(data, cluster_key())
    if not isinstance(snap, Snapshot):
        raise SnapshotBytesError(f"this record holds a {type(snap).__name__}, not a snapshot")
    return snap
