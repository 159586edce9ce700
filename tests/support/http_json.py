"""One raw HTTP request to a server started in the test (``srv.host``, ``srv.port``): its status and
its body, parsed when it is JSON. Raw on purpose: the tests send what no client library would."""
from __future__ import annotations

import http.client
import json


def http_json(srv, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or ({"Content-Type": "application/json"} if body else {}))
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, (json.loads(raw) if raw.startswith((b"{", b"[")) else raw)
    finally:
        conn.close()
