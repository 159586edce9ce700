"""Snapshots as bytes that travel: to another process or another machine with the same treegym and data.

``snapshot_to_bytes(snap)`` / ``snapshot_from_bytes(data)`` (re-exported by ``treegym.envs``) write and
read one sealed record::

    b"TGSNAP" | 4-byte header length | header JSON | 32-byte digest | pickle(value) (zlib when large)

The header names the format version (:data:`FORMAT_VERSION`), the treegym version, the seal and the
body's packing; the digest seals header and body. Reading refuses, with one
:class:`SnapshotBytesError` line each: bytes that are not such a record, another format version,
another treegym version (a snapshot's payload is the engine's own value, whose shape may change
between versions), and a payload whose digest does not match (tampered or truncated). Static data (a
game, a catalog, a configuration) is referenced by key inside the payload (:func:`reduce_by_key` and
the families' own ``__reduce__``) and loaded on demand by the process that restores it, cached there.

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
_LENGTH = struct.Struct(">I")  # (MAGIC is 6 bytes, the length 4: the header starts at byte 10)
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
    return _key_of(os.environ.get(KEY_VARIABLE, ""))


@lru_cache(maxsize=4)
def _key_of(text: str) -> bytes | None:
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


# Headers this process accepted, by (header bytes, whether it reads with a key) -> the body's packing: records
# of one writer share their header, so it is read and checked once.
_ACCEPTED: dict[tuple[bytes, bool], str] = {}


def _accept(head: bytes, keyed: bool, what: str) -> str:
    """Check a header (format, treegym version, seal); its body packing, or one SnapshotBytesError."""
    try:
        header = json.loads(head)
        fmt, version, how, packed = header["format"], header["treegym"], header["seal"], header["body"]
    except (ValueError, KeyError, TypeError):
        raise SnapshotBytesError(f"this {what} record's header is damaged; take the snapshot again") from None
    if fmt != FORMAT_VERSION:
        raise SnapshotBytesError(f"this {what} is in snapshot format {fmt!r}; this treegym reads format "
                                 f"{FORMAT_VERSION}: restore it with the treegym that wrote it")
    if version != treegym_version():
        raise SnapshotBytesError(f"this {what} was written by treegym {version}; this is treegym "
                                 f"{treegym_version()}: restore it with the same version")
    wanted = "hmac-sha256" if keyed else "sha256"
    if how != wanted:
        hint = (f"it was sealed without a key; unset {KEY_VARIABLE} or seal it again" if keyed
                else f"set {KEY_VARIABLE} to the key it was sealed with")
        raise SnapshotBytesError(f"this {what} is sealed with {how!r} and this process reads {wanted!r}: {hint}")
    if packed not in ("pickle", "zlib-pickle"):
        raise SnapshotBytesError(f"this {what}'s body is packed as {packed!r}, which this treegym does not read")
    if len(_ACCEPTED) < 64:
        _ACCEPTED[head, keyed] = packed
    return packed


def unseal(data: Any, key: bytes | None = None, what: str = "snapshot") -> Any:
    """The value of a :func:`seal` record; one :class:`SnapshotBytesError` saying what is wrong otherwise."""
    if type(data) is not bytes:
        if not isinstance(data, (bytearray, memoryview)):
            raise SnapshotBytesError(f"a {what} record is bytes, got {type(data).__name__}")
        data = bytes(data)
    if data[:6] != MAGIC or len(data) < 10:
        raise SnapshotBytesError(f"these bytes are not a treegym {what} (no {MAGIC.decode()} record); "
                                 "write them with treegym.envs.snapshot_to_bytes(snapshot)")
    end = 10 + int.from_bytes(data[6:10], "big")  # (the hot path: a cold restore pays every line here)
    head = data[10:end]
    packed = _ACCEPTED.get((head, key is not None))
    if packed is None:
        packed = _accept(head, key is not None, what)
    body = data[end + _DIGEST_SIZE:]
    if not hmac.compare_digest(_digest(key, head, body), data[end:end + _DIGEST_SIZE]):
        raise SnapshotBytesError(f"this {what}'s payload does not match its seal (tampered, truncated, or sealed "
                                 "under another key): take the snapshot again")
    try:
        return pickle.loads(body if packed == "pickle" else zlib.decompress(body))
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
