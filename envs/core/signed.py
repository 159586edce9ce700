"""Signed pickles: how an engine whose state has no plain JSON form crosses HTTP safely.

A session server hands states to clients (snapshot) and takes them back (restore).
When a state is a Python object graph (a TextWorld ``GameProgression``, a
``ForkableEnv`` snapshot), its JSON form is a sealed record (``snapshot_bytes.seal``: format and
treegym version checked on the way back), base64-encoded and signed (HMAC-SHA256): a client can
only hand back states a server holding the key made, and nothing a client sends is unpickled
unchecked. The key is ``TREEGYM_SNAPSHOT_KEY`` when set (then every server process started with it,
on any machine with the same treegym and data, restores the states of the others), else a key of
this process (then states restore on the server process that made them, not after a restart).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Any

from .snapshot_bytes import KEY_VARIABLE, cluster_key, seal, unseal


class StateSigner:
    """``dumps(value) -> {"blob", "mac"}`` and ``loads(data) -> value`` (``ValueError`` when not ours)."""

    def __init__(self, what: str = "state"):
        shared = cluster_key()
        self._key = shared if shared is not None else secrets.token_bytes(32)
        self.shared = shared is not None
        self.what = what

    def _mac(self, blob: bytes) -> str:
        return hmac.new(self._key, blob, hashlib.sha256).hexdigest()

    def dumps(self, value: Any) -> dict[str, str]:
        blob = seal(value, self._key)
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
            where = (f"a server started with this {KEY_VARIABLE}" if self.shared else
                     f"this server process; take snapshots and restore them on the same running server, or start "
                     f"every server with the same {KEY_VARIABLE}")
            raise ValueError(f"this {self.what} was not made by {where} (bad mac)")
        return unseal(blob, self._key, self.what)  # signed with our key: a value a trusted process pickled
