"""UTF-8 JSON lines that never lose a value to a character, and that say where a bad byte is.

Text that enters treegym from outside (an LLM answer the ``openai`` client
decoded from a ``"\\ud800"`` JSON escape, an action, a request body) can hold a
lone surrogate: a Python ``str`` that has no UTF-8 encoding. ``json.dumps(...,
ensure_ascii=False).encode()`` then raises ``UnicodeEncodeError`` and the whole
record is lost.

* :func:`dump_line` encodes a value as one UTF-8 JSON line. When some string
  in it cannot be encoded, the line is written with ``\\uXXXX`` escapes instead
  (still valid JSON, read back to the very same strings) and the JSON paths of
  those strings are returned, so the caller can say so.
* :func:`load_line` parses one line of a UTF-8 JSON-lines file and raises
  ``ValueError`` naming the file, the line, the column of a byte that is not
  UTF-8, and what to do, instead of a bare ``'utf-8' codec can't decode``.
* :func:`without_lone_surrogates` makes text sendable over a UTF-8 wire (U+FFFD for each).
* :func:`utf8_bytes` encodes text for hashing; lone surrogates are kept
  (``surrogatepass``), so distinct texts stay distinct keys.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

#: At most this many paths are reported per value (a huge value full of surrogates names a few).
MAX_PATHS = 5


def unencodable_paths(value: Any, limit: int = MAX_PATHS) -> list[str]:
    """JSON paths (``actions[3]``, ``trace.answer``) of the strings in ``value`` that have no UTF-8 form.

    Keys are checked too (a key without one is shown with ``\\udXXX`` escapes); walked without
    recursion; at most ``limit`` paths.
    """
    found: list[str] = []
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack and len(found) < limit:
        item, path = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                found.append(path or "(the value)")
        elif isinstance(item, dict):
            for k, v in reversed(list(item.items())):
                key = str(k)
                shown = key.encode("utf-8", "backslashreplace").decode("utf-8")  # a path that prints
                name = f"{path}.{shown}" if path else shown
                if not _encodable(key):
                    found.append(f"{name} (a key)")
                stack.append((v, name))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(item))))
    return found


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def dump_line(value: Any, *, default: Callable[[Any], Any] | None = None,
              separators: tuple[str, str] | None = None) -> tuple[bytes, list[str]]:
    """``(line, escaped)``: ``value`` as one JSON line ending in ``\\n``, UTF-8 encoded.

    ``escaped`` is empty when the line is plain UTF-8; otherwise it names the
    fields whose text had no UTF-8 form (lone surrogates). Those lines are
    written with ``ensure_ascii`` escapes, so nothing is dropped or replaced.
    """
    text = json.dumps(value, ensure_ascii=False, default=default, separators=separators)
    try:
        return (text + "\n").encode("utf-8"), []
    except UnicodeEncodeError:
        ascii_text = json.dumps(value, ensure_ascii=True, default=default, separators=separators)
        return (ascii_text + "\n").encode("ascii"), unencodable_paths(value) or ["(unknown field)"]


def load_line(raw: bytes, *, where: str, line_no: int, what_to_do: str) -> Any:
    """The JSON value of one line ``raw`` (line ``line_no`` of the file named by ``where``).

    Raises ``ValueError`` with one line (``FILE:LINE: ...``) naming the file, line and, for bytes
    that are not UTF-8, the byte and its column, followed by ``what_to_do``.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start:exc.start + 1]
        raise ValueError(f"{where}:{line_no}: a byte that is not UTF-8 (0x{bad.hex()} at column "
                         f"{exc.start + 1}); {what_to_do}") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where}:{line_no}: not JSON ({exc}); {what_to_do}") from None


def utf8_bytes(text: str) -> bytes:
    """``text`` as UTF-8 for hashing; a lone surrogate is kept as its 3-byte form instead of raising."""
    return text.encode("utf-8", "surrogatepass")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(value: Any) -> Any:
    """``value`` (a string, or lists/dicts of them) with each lone surrogate replaced by U+FFFD.

    For text that must go out over a UTF-8 wire (an LLM prompt): there it has no
    form at all. Values without one are returned as they are.
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value) if not _encodable(value) else value
    if isinstance(value, dict):
        return {k: without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    return value
