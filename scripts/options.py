"""Parsing ``key=value`` command-line options into Python values."""
from __future__ import annotations

import json
from typing import Any, Sequence


def parse_value(text: str) -> Any:
    """``3`` -> 3, ``0.5`` -> 0.5, ``true`` -> True, ``none`` -> None, JSON lists/dicts, else the string."""
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text[:1] in "[{":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            import sys

            print(f"treegym: option {pair!r} must look like key=value", file=sys.stderr)
            raise SystemExit(2)  # a usage error, like argparse's own
        out[key.strip().replace("-", "_")] = parse_value(value)
    return out


def _number(kind: type, minimum: float, what: str) -> Any:
    """An argparse ``type=`` that accepts ``kind`` values >= ``minimum`` (argparse then exits 2 naming the flag)."""
    import argparse

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < minimum or value != value:  # also rejects NaN
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    convert.__name__ = what
    return convert


positive_int = _number(int, 1, "a whole number of at least 1")
nonnegative_int = _number(int, 0, "a whole number of at least 0")
positive_float = _number(float, 1e-9, "a positive number")
