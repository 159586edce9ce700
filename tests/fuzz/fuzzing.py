"""Seeded, bounded input generators and a hang detector for the fuzz tests (tests/fuzz/).

* :data:`SCALE` multiplies every fuzz test's input count: 1 by default (the size
  the suite runs in CI, about a minute of CPU in all), more with
  ``TREEGYM_FUZZ_SCALE=10 pytest tests/fuzz``; ``TREEGYM_FUZZ_SEED`` picks
  other (still reproducible) input streams.
* :func:`garbage_actions` / :func:`mutate_json` make the inputs: random bytes
  and unicode, huge strings, wrong types, nested JSON, near-valid commands
  (a valid action mutated), and snapshots with fields deleted, retyped or
  replaced.
* :func:`bad_utf8` makes byte strings that are not UTF-8; :func:`route_paths` lists a Flask
  app's routes with their placeholders filled.
* :func:`no_hang` runs one call on a thread and fails the test naming the
  input when it does not return within a generous bound: a hang detector, not
  a speed target (a correct call takes milliseconds; the bound is minutes).
"""
from __future__ import annotations

import http.client
import json
import os
import random
import threading
from typing import Any, Callable, Iterator, Sequence

import pytest

SCALE = max(0.1, float(os.environ.get("TREEGYM_FUZZ_SCALE", "1") or 1))
HANG_SECONDS = float(os.environ.get("TREEGYM_FUZZ_HANG_SECONDS", "120"))
SEED = os.environ.get("TREEGYM_FUZZ_SEED", "0")


def rng_for(name: str) -> random.Random:
    """The seeded generator of one fuzz test (``TREEGYM_FUZZ_SEED`` picks another stream; default 0)."""
    return random.Random(f"{SEED}:{name}")


def count(base: int) -> int:
    """``base`` inputs at scale 1, scaled by :data:`SCALE` (at least 1)."""
    return max(1, int(base * SCALE))


def no_hang(fn: Callable[..., Any], *args: Any, what: str = "", bound: float | None = None) -> Any:
    """``fn(*args)`` on a daemon thread; its result, or its exception re-raised, or a test failure naming
    ``what`` when it has not returned after ``bound`` seconds (default :data:`HANG_SECONDS`)."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            out["error"] = exc

    t = threading.Thread(target=run, name="fuzz-call", daemon=True)
    t.start()
    t.join(HANG_SECONDS if bound is None else bound)
    if t.is_alive():
        tally("hangs")
        pytest.fail(f"hang: no answer after {HANG_SECONDS if bound is None else bound:g} s to {what[:300]}")
    if "error" in out:
        raise out["error"]
    return out.get("value")


ODD_TEXT = ["", " ", "\n", "\t\r\n", "\x00", "\\", "\\c", "\\boxed{look}", " \\q", "\u202e\u200b", "🙂" * 40,
            "ß²³", "é" * 300, "\ud7ff", "NaN", "-1", "1e309", "None", "null", "true", "[]", "{}", "{", "}", "[[",
            "'", '"', "`rm -rf /`", "$(id)", "; ls", "../../etc/passwd", "%s%s%n", "{0}{1}", "<script>x</script>",
            "search[]", "click[]", "click[" + "x" * 500 + "]", "search[" + "ü" * 200, "go to", "take", "1 + ",
            "Action: ", "Action: \nAction Input: {", "Finish", "GET /", "GET " + "/x" * 300,
            # lone surrogates: what an OpenAI-compatible server's "\ud800" escape decodes to, and what
            # Python's surrogateescape makes of a byte that is not UTF-8
            "\ud800", "go \udfff north", "search[\udcff]", "\ud83d"]
WRONG_TYPES: list[Any] = [None, 0, -1, 3.5, float("nan"), float("inf"), True, [], {}, ["look"], {"action": "look"},
                          b"look", ("a", "b"), 10 ** 40]


def deep_json(depth: int, kind: str = "list") -> str:
    """JSON nested ``depth`` levels (lists, or objects under key ``"a"``)."""
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def _random_unicode(rng: random.Random, n: int) -> str:
    chars = []
    for _ in range(n):
        cp = rng.choice([rng.randrange(32, 127), rng.randrange(0, 0x3000), rng.randrange(0x1F300, 0x1FAFF)])
        if 0xD800 <= cp <= 0xDFFF or rng.random() < 0.01:
            cp = rng.choice([0xD800, 0xDBFF, 0xDC80, 0xDCFF, 0xDFFF])  # a lone surrogate, now and then
        chars.append(chr(cp))
    return "".join(chars)


def mutate_text(rng: random.Random, text: str) -> str:
    """``text`` with a random edit: a character dropped, doubled, replaced, or junk spliced in."""
    if not text:
        return rng.choice(ODD_TEXT)
    i = rng.randrange(len(text))
    edit = rng.randrange(5)
    if edit == 0:
        return text[:i] + text[i + 1:]
    if edit == 1:
        return text[:i] + text[i] * rng.randrange(2, 50) + text[i:]
    if edit == 2:
        return text[:i] + _random_unicode(rng, 1) + text[i + 1:]
    if edit == 3:
        return text[:i] + rng.choice(ODD_TEXT) + text[i:]
    return text.upper() if rng.random() < 0.5 else "  " + text + "  "


def tool_call(rng: random.Random, names: Sequence[str]) -> str:
    """A JSON tool call with a known or odd name and arguments of random (often wrong) types."""
    name = rng.choice(list(names) + ["", "Finish", "nope", "__import__"]) if names else "x"
    value = rng.choice([None, -1, 0, 10 ** 30, 1e308, "", "x" * 3000, [1, [2]], {"a": {"b": None}}, True, "ü",
                        "2024-13-45", "-5", "../etc/passwd"])
    args: Any = {rng.choice(["query", "id", "city", "date", "a", "", "return_type", "final_answer"]): value}
    if rng.random() < 0.15:
        args = rng.choice([None, "not json", "{", [], 3])
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=rng.random() < 0.5)


def garbage_actions(rng: random.Random, valid: Sequence[str], n: int, names: Sequence[str] = ()) -> Iterator[Any]:
    """``n`` actions: random, garbage, huge, unicode, wrong-type, nested-JSON and near-valid ones, and
    some valid ones (so episodes go somewhere)."""
    for _ in range(n):
        k = rng.randrange(12)
        if k == 0:
            yield rng.choice(ODD_TEXT)
        elif k == 1:
            yield rng.choice(WRONG_TYPES)
        elif k == 2:
            yield _random_unicode(rng, rng.randrange(1, 80))
        elif k == 3:
            yield rng.choice(["x", "ü", "look ", "{"]) * rng.choice([5_000, 100_000])
        elif k == 4:
            yield deep_json(rng.choice([50, 1_000, 5_000]), rng.choice(["list", "object"]))
        elif k == 5:
            yield '{"name": "x", "arguments": ' + deep_json(rng.choice([70, 2_000]), "object") + "}"
        elif k == 6:
            call = tool_call(rng, names)
            r = rng.random()
            if r < 0.25:
                yield json.loads(call)  # a dict action, as a Python agent might pass it
            elif r < 0.45:
                obj = json.loads(call)
                yield f"Thought: x\nAction: {obj['name']}\nAction Input: {json.dumps(obj['arguments'])}"
            elif r < 0.55:
                yield f"```json\n{call}\n```" if rng.random() < 0.5 else [json.loads(call), json.loads(call)]
            else:
                yield call
        elif k in (7, 8) and valid:
            yield mutate_text(rng, str(rng.choice(list(valid))))
        else:
            yield str(rng.choice(list(valid))) if valid else rng.choice(ODD_TEXT)


_ODD_VALUES: list[Any] = [None, True, False, 0, -1, 2 ** 63, 1e308, -1e308, "", "x", "ü" * 20, [], {}, [None],
                          {"": None}, "1e309", [[[[]]]]]


def mutate_json(rng: random.Random, value: Any, edits: int = 1) -> Any:
    """``value`` (JSON data) with ``edits`` random edits at random depths: a key deleted or added, a
    value replaced by one of another type, a list item dropped or added."""
    for _ in range(edits):
        value = _mutate_once(rng, value)
    return value


def _mutate_once(rng: random.Random, value: Any) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.85:
        out = dict(value)
        key = rng.choice(list(out))
        r = rng.random()
        if r < 0.15:
            del out[key]
        elif r < 0.25:
            out[rng.choice(["extra", key + "_", "__class__"])] = rng.choice(_ODD_VALUES)
        elif r < 0.5:
            out[key] = rng.choice(_ODD_VALUES)
        else:
            out[key] = _mutate_once(rng, out[key])
        return out
    if isinstance(value, list) and value and rng.random() < 0.85:
        out = list(value)
        i = rng.randrange(len(out))
        r = rng.random()
        if r < 0.2:
            del out[i]
        elif r < 0.35:
            out.insert(i, rng.choice(_ODD_VALUES))
        elif r < 0.55:
            out[i] = rng.choice(_ODD_VALUES)
        else:
            out[i] = _mutate_once(rng, out[i])
        return out
    if isinstance(value, str) and value and rng.random() < 0.5:
        return mutate_text(rng, value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and rng.random() < 0.5:
        return rng.choice([-value - 1, value * 10 ** 6, -1, 2 ** 70, float(value) + 0.5])
    return rng.choice(_ODD_VALUES)


def bad_utf8(rng: random.Random, text: str = "") -> bytes:
    """``text`` (or random unicode) as UTF-8 with bytes that are not UTF-8 spliced in: a stray
    continuation byte, 0xff, a cut multi-byte sequence, an encoded surrogate (CESU)."""
    raw = bytearray((text or _random_unicode(rng, rng.randrange(1, 40))).encode("utf-8", "surrogatepass"))
    for _ in range(rng.randrange(1, 4)):
        junk = rng.choice([b"\x80", b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
        i = rng.randrange(len(raw) + 1)
        raw[i:i] = junk
    return bytes(raw)


def route_paths(app: Any) -> list[tuple[str, str]]:
    """``(method, path)`` for every route of the Flask ``app`` (HEAD and OPTIONS left out), each
    ``<placeholder>`` filled with ``abc`` (ids) or ``1``."""
    import re

    out = []
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", lambda m: "abc" if "id" in m.group(1) else "1", rule.rule)
        out += [(method, path) for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})]
    return out


def http_send(srv: Any, method: str, path: str, body: bytes | None = None,
              headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """``(status, body)`` of one request to ``srv`` (a ``BackgroundServer``), under :func:`no_hang`;
    header values are sent as their bytes (a lone surrogate as ``surrogateescape`` makes it)."""
    import http.client

    sent = {k: v.encode("utf-8", "surrogateescape") for k, v in (headers or {}).items()}

    def go() -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(srv.host, srv.port, timeout=300)
        try:
            conn.request(method, path, body=body, headers=sent)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    status, raw = no_hang(go, what=f"{method} {path} {headers} {body[:200] if body else b''!r}")
    tally("server requests")
    if status >= 500:
        tally("5xx")
    return status, raw


#: What the fuzz tests sent, by kind ("actions", "requests", "mutated snapshots", ...) and failures found
#: ("exceptions", "5xx", "hangs" stay 0 when the suite passes); printed at the end of the run (conftest.py).
COUNTS: dict[str, int] = {"5xx": 0, "hangs": 0, "exceptions out of step()": 0, "records lost": 0}
_COUNTS_LOCK = threading.Lock()


def http_request(srv: Any, method: str, path: str, body: bytes | None = None,
                 ctype: str = "application/json") -> tuple[int, bytes]:
    """:func:`http_send` with a JSON (or ``ctype``) body, asserting the answer is not a 5xx."""
    status, raw = http_send(srv, method, path, body, {"Content-Type": ctype} if body is not None else {})
    assert status < 500, (method, path, body[:300] if body else None, raw[:500])
    return status, raw


def tally(kind: str, n: int = 1) -> None:
    with _COUNTS_LOCK:
        COUNTS[kind] = COUNTS.get(kind, 0) + n
