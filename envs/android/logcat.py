"""Logcat lines in ``-v epoch`` format, the ``Tag:P *:S`` filter semantics android_env uses, and the
``logcat`` command's options and output formats.

A line is ``<sec>.<ms> <pid> <tid> <P> <Tag>: <message>``. ``parse_line`` splits
it the way android_env's logcat thread does; detectors ``re.match`` their regex
against the **message** only, on lines whose tag is named in a filter with a
priority at or above the filter's (everything else is silenced by ``*:S``).

The ``logcat`` command (:func:`parse_args`, :func:`render`) follows Android 10:
``threadtime`` by default (``MM-DD HH:MM:SS.mmm  PID  TID L TAG     : msg``), ``-v``
epoch/time/brief/tag/process/thread/raw/long (modifiers ``year``, ``usec``,
``UTC``... accepted), ``-b`` buffers (main, system, crash by default; ``all``),
filter specs ``TAG[:P]`` with ``*`` as the default (unnamed tags pass at V
unless ``*:S`` / ``-s``), ``ANDROID_LOG_TAGS`` when no spec is given, ``-d``,
``-c``, ``-t``/``-T N``, ``-m N``, ``-e REGEX``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Sequence
from .sim.state import pid_of
from .sim.system import SYSTEM

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


# ---------------------------------------------------------------- the logcat command's options and formats
FORMATS = ("threadtime", "epoch", "time", "brief", "tag", "process", "thread", "raw", "long")
MODIFIERS = ("UTC", "year", "usec", "printable", "color", "zone", "uid", "descriptive", "monotonic", "nsec")
BUFFERS = ("main", "system", "crash", "radio", "events", "kernel", "security", "stats")
DEFAULT_BUFFERS = ("main", "system", "crash")


class LogcatUsage(ValueError):
    """A logcat option error; the message is logcat's own wording."""


@dataclass
class LogcatRequest:
    """What one ``logcat`` invocation asks for (see :func:`parse_args`)."""

    dump: bool = False            # -d: print and exit
    clear: bool = False           # -c
    fmt: str = "threadtime"       # -v FORMAT (the default on Android 10)
    modifiers: tuple[str, ...] = ()
    buffers: tuple[str, ...] = DEFAULT_BUFFERS
    tail: int | None = None       # -t N (implies -d) / -T N: the last N lines
    max_count: int | None = None  # -m N
    regex: str | None = None      # -e REGEX on the message
    rules: dict[str, int] | None = None   # tag -> minimum priority index; "*" the default
    dividers: bool = False

    def wants(self, parsed: tuple[str, str, str]) -> bool:
        pri, tag, msg = parsed
        rules = self.rules or {}
        floor = rules.get(tag, rules.get("*", 0))
        if PRIORITIES.index(pri) < floor:
            return False
        return self.regex is None or re.search(self.regex, msg) is not None


def parse_args(args: Sequence[str], log_tags: str = "") -> LogcatRequest:
    """Parse logcat's options as Android 10's logcat does (the subset adb users send); raises LogcatUsage."""
    req = LogcatRequest()
    specs: list[str] = []
    silent = False
    bufs: list[str] = []
    fmts: list[str] = []
    i = 0
    args = list(args)
    while i < len(args):
        a = args[i]
        val = args[i + 1] if i + 1 < len(args) else None
        if a in ("-v", "--format", "-b", "--buffer", "-t", "-T", "-m", "--max-count", "-e", "--regex"):
            if val is None:
                raise LogcatUsage(f"logcat: option requires an argument -- '{a.lstrip('-')}'")
            i += 2
        elif a.startswith("-v") and len(a) > 2 or a.startswith("-b") and len(a) > 2:
            val, a = a[2:], a[:2]
            i += 1
        else:
            i += 1
        if a in ("-d",):
            req.dump = True
        elif a in ("-c", "--clear"):
            req.clear = True
        elif a in ("-s",):
            silent = True
        elif a == "-D" or a == "--dividers":
            req.dividers = True
        elif a in ("-v", "--format"):
            fmts.extend(v for v in val.replace(",", " ").split() if v)
        elif a in ("-b", "--buffer"):
            bufs.extend(v for v in val.split(",") if v)
        elif a in ("-t", "-T"):
            if not val.isdigit():
                raise LogcatUsage(f"logcat: -{a[1]} \"{val}\" not a number")
            req.tail, req.dump = int(val), req.dump or a == "-t"
        elif a in ("-m", "--max-count"):
            if not val.isdigit():
                raise LogcatUsage(f"logcat: -m \"{val}\" isn't an integer greater than zero")
            req.max_count = int(val)
        elif a in ("-e", "--regex"):
            try:
                re.compile(val)
            except re.error:
                raise LogcatUsage(f"logcat: invalid regex \"{val}\"") from None
            req.regex = val
        elif a.startswith("-"):
            raise LogcatUsage(f"logcat: invalid option -- '{a.lstrip('-')}'\nunknown option: {a}")
        else:
            specs.append(a)
    for f in fmts:
        if f in FORMATS:
            req.fmt = f
        elif f in MODIFIERS:
            req.modifiers += (f,)
        else:
            raise LogcatUsage(f"logcat: Invalid parameter \"{f}\" to -v.")
    for b in bufs:
        if b not in BUFFERS + ("all", "default"):
            raise LogcatUsage(f"logcat: Unknown buffer '{b}'.")
    if bufs:
        chosen: list[str] = []
        for b in bufs:
            chosen.extend(BUFFERS if b == "all" else DEFAULT_BUFFERS if b == "default" else (b,))
        req.buffers = tuple(dict.fromkeys(chosen))
    rules: dict[str, int] = {"*": PRIORITIES.index("S")} if silent else {}
    if not specs and log_tags.strip():
        specs = log_tags.split()
    for s in specs:
        tag, _, pri = s.partition(":")
        p = (pri or "V").upper()[:1]
        if p not in PRIORITIES or not tag:
            raise LogcatUsage(f"logcat: Invalid filter expression '{s}'")
        rules[tag] = PRIORITIES.index(p)
    req.rules = rules
    return req


def buffer_of(line: str) -> str:
    """The buffer an epoch-format line of the simulator belongs to (system_server's lines: "system")."""
    m = LINE_RE.match(line)
    return "system" if m is not None and int(m.group("pid")) == pid_of(SYSTEM) else "main"


def format_line(line: str, req: LogcatRequest) -> str:
    """An epoch-format line (as the simulator stores it) in ``req``'s format, with a trailing newline."""
    m = LINE_RE.match(line)
    if m is None:
        return line + "\n"
    sec_s, ms_s = m.group("ts").split(".")
    sec, ms = int(sec_s), int(ms_s[:3].ljust(3, "0"))
    pid, tid, pri, tag, msg = int(m.group("pid")), int(m.group("tid")), m.group("pri"), m.group("tag"), m.group("msg")
    frac = f"{ms:03d}000" if "usec" in req.modifiers else f"{ms:03d}"
    if req.fmt == "epoch":
        when = f"{sec:19d}.{frac}"  # right-aligned like AOSP logprint.cpp, which android_env's pattern needs
    else:
        t = datetime.fromtimestamp(sec, tz=timezone.utc)
        when = t.strftime("%Y-%m-%d %H:%M:%S" if "year" in req.modifiers else "%m-%d %H:%M:%S") + "." + frac
    f = req.fmt
    if f in ("threadtime", "epoch"):
        return f"{when} {pid:5d} {tid:5d} {pri} {tag:<8}: {msg}\n"
    if f == "time":
        return f"{when} {pri}/{tag:<8}({pid:5d}): {msg}\n"
    if f == "brief":
        return f"{pri}/{tag:<8}({pid:5d}): {msg}\n"
    if f == "tag":
        return f"{pri}/{tag:<8}: {msg}\n"
    if f == "process":
        return f"{pri}({pid:5d}) {msg}  ({tag})\n"
    if f == "thread":
        return f"{pri}({pid:5d}:{tid:5d}) {msg}\n"
    if f == "raw":
        return f"{msg}\n"
    return f"[ {when} {pid:5d}:{tid:5d} {pri}/{tag:<8} ]\n{msg}\n\n"  # long


def render(lines: Sequence[str], req: LogcatRequest, printed: set[str]) -> str:
    """The output for ``lines`` (epoch format, oldest first): buffer selection, filters, format and the
    ``--------- beginning of BUFFER`` line logcat prints before a buffer's first line when it reads several.
    ``printed`` holds the buffers already announced (updated)."""
    out = []
    several = len(req.buffers) > 1
    for line in lines:
        parsed = parse_line(line)
        buf = buffer_of(line)
        if parsed is None or buf not in req.buffers or not req.wants(parsed):
            continue
        if several and (buf not in printed or req.dividers):
            out.append(f"--------- {'switch to' if buf in printed else 'beginning of'} {buf}\n")
            printed.add(buf)
        out.append(format_line(line, req))
    return "".join(out)
