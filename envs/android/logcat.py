"""Logcat lines in ``-v epoch`` format and the ``Tag:P *:S`` filter semantics android_env uses.

A line is ``<sec>.<ms> <pid> <tid> <P> <Tag>: <message>``. ``parse_line`` splits
it the way android_env's logcat thread does; detectors ``re.match`` their regex
against the **message** only, on lines whose tag is named in a filter with a
priority at or above the filter's (everything else is silenced by ``*:S``).
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

PRIORITIES = "VDIWEFS"
LINE_RE = re.compile(r"^\s*(?P<ts>\d+\.\d+)\s+(?P<pid>\d+)\s+(?P<tid>\d+)\s+(?P<pri>[VDIWEFS])\s+"
                     r"(?P<tag>[^:]*?)\s*:\s(?P<msg>.*)$")


def parse_line(line: str) -> tuple[str, str, str] | None:
    """``(priority, tag, message)`` of an epoch-format line, or None when it is not one."""
    m = LINE_RE.match(line)
    if m is None:
        return None
    return m.group("pri"), m.group("tag"), m.group("msg")


def parse_filters(filters: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in filters:
        tag, _, pri = f.rpartition(":")
        if not tag or pri.upper() not in PRIORITIES:
            raise ValueError(f"bad logcat filter {f!r}; expected Tag:P with P one of {PRIORITIES}")
        out[tag] = PRIORITIES.index(pri.upper())
    return out


def passes(parsed: tuple[str, str, str], rules: dict[str, int]) -> bool:
    pri, tag, _ = parsed
    if tag in rules:
        return PRIORITIES.index(pri) >= rules[tag]
    if "*" in rules:
        return PRIORITIES.index(pri) >= rules["*"]
    return not rules


def filter_lines(lines: Iterable[str], filters: Sequence[str]) -> list[str]:
    rules = parse_filters(filters)
    out = []
    for line in lines:
        p = parse_line(line)
        if p is not None and passes(p, rules):
            out.append(line)
    return out


def matching_messages(lines: Iterable[str], filters: Sequence[str], regex: str) -> list[str]:
    """Messages of filtered lines that ``re.match`` the detector regex."""
    rules = parse_filters(filters)
    pat = re.compile(regex)
    out = []
    for line in lines:
        p = parse_line(line)
        if p is not None and passes(p, rules) and pat.match(p[2]):
            out.append(p[2])
    return out
