"""JSON parsing for text that comes from outside (agent actions, request bodies, snapshots).

``json.loads`` raises ``RecursionError`` (not ``ValueError``) on deeply nested
input such as ``[[[[...]]]]`` a thousand levels deep, and a value just under
that limit still overflows the stack of whatever walks it next (``json.dumps``,
``copy.deepcopy``). :func:`loads` and :func:`raw_decode` raise ``ValueError``
for both, so callers that already turn a ``ValueError`` into "the action does
not parse" need no other change. :func:`too_deep` checks a value that was
built in Python (a dict action).
"""
from __future__ import annotations

import json
import sys
from typing import Any

MAX_DEPTH = 64  # tool arguments and states are a few levels deep; 64 leaves room and keeps every walk safe


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when ``value`` nests dicts/lists/tuples more than ``limit`` levels (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _checked(value: Any) -> Any:
    if too_deep(value):
        raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep")
    return value


class JSONNumberTooLong(ValueError):
    """Well-formed JSON holding an integer literal with more digits than Python converts."""


def _long_int(exc: ValueError) -> bool:
    return "integer string conversion" in str(exc)  # CPython: "Exceeds the limit (4300 digits) for integer string conversion"


def loads(text: str | bytes, **kwargs: Any) -> Any:
    """``json.loads(text, **kwargs)``, raising ``ValueError`` also for JSON nested too deeply, and
    :class:`JSONNumberTooLong` for an integer literal over Python's digit limit."""
    try:
        return _checked(json.loads(text, **kwargs))
    except RecursionError:
        raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        if _long_int(exc):
            raise JSONNumberTooLong(f"a JSON number has more than {sys.get_int_max_str_digits()} digits; "
                                    "send numbers (task ids, seeds) of at most 19 digits") from None
        raise


# One decoder per strictness: a decoder holds no state between calls (the C scanner clears its memo
# after each, under the GIL), and building one costs ~1 us, more than decoding a short call.
_DECODERS = {True: json.JSONDecoder(strict=True), False: json.JSONDecoder(strict=False)}


def raw_decode(text: str, strict: bool = True) -> tuple[Any, int]:
    """``json.JSONDecoder(strict=strict).raw_decode(text)`` with the depth check of :func:`loads`."""
    try:
        value, end = _DECODERS[bool(strict)].raw_decode(text)
    except RecursionError:
        raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep") from None
    return _checked(value), end
