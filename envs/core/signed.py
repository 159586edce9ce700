"""Signed pickles: how an engine whose state has no plain JSON form crosses HTTP safely.

A session server hands states to clients (snapshot) and takes them back (restore).
When a state is a Python object graph (a TextWorld ``GameProgression``, a
``ForkableEnv`` snapshot), its JSON form is the pickle, compressed, base64-encoded
and signed with a key of this process (HMAC-SHA256): a client can only hand back
states this process made, and nothing a client sends is unpickled unchecked.
States therefore restore on the server process that made them, not after a restart.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import pickle
import secrets
import zlib
from typing import Any


class StateSigner:
    """``dumps(value) -> {"blob", "mac"}`` and ``loads(data) -> value`` (``ValueError`` when not ours)."""

    def __init__(self, what: str = "state"):
        self._key = secrets.token_bytes(32)
        self.what = what

    def _mac(self, blob: bytes) -> str:
        return hmac.new(self._key, blob, hashlib.sha256).hexdigest()

    def dumps(self, value: Any) -> dict[str, str]:
        blob = zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)
        return {"blob": base64.b64encode(blob).decode("ascii"), "mac": self._mac(blob)}

    def loads(self, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("blob"), str) or not isinstance(data.get("mac"), str):
            raise ValueError(f"a {self.what} is {{\"blob\": ..., \"mac\": ...}} as this server's snapshot endpoint "
                             "returned it")
        try:
            blob = base64.b64decode(data["blob"], validate=True)
        except ValueError:
            raise ValueError(f"the {self.what}'s blob is not base64") from None
        mac = data["mac"].encode("utf-8", "replace")  # bytes: compare_digest refuses non-ASCII text
        if not hmac.compare_digest(self._mac(blob).encode("ascii"), mac):
            raise ValueError(f"this {self.what} was not made by this server process (bad mac); take snapshots and "
                             "restore them on the same running server")
        return pickle.loads(zlib.decompress(blob))  # signed by this process: a value it pickled itself
