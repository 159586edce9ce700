"""The simulated phone's ``/system/bin/sh``: command lines in, stdout / stderr / exit status out.

A :class:`ShellSession` is one shell (an ``adb shell`` command or an interactive
session): its environment (``export``), its user (``shell``, uid 2000, or
``root`` after ``su`` / ``adb root``) and the last exit status. It runs a line
the way mksh does for the subset adb users send:

* lists joined by ``;``, ``&&`` and ``||``; pipelines with ``|`` (stdout feeds
  the next command's stdin: ``grep``, ``head``, ``wc -l``, ``cat``);
* quoting as POSIX sh (``shlex``); ``> FILE``, ``>> FILE``, ``2> FILE``, ``2>&1``, ``< FILE``;
* built-ins ``export K=V``, ``exec CMD``, ``su`` (alone: the session becomes
  root; ``su 0 CMD`` / ``su root CMD`` / ``su -c 'CMD'``: CMD as root), ``sh -c``,
  ``exit [N]``, ``cd``, ``true``, ``false``, ``sleep`` (returns at once), ``id``, ``whoami``;
* every other name from ``commands.COMMANDS``; an unknown one answers
  ``/system/bin/sh: NAME: not found`` on stderr with status 127, as a device does.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Callable

from .command_api import ShellResult, fail, ok
from .commands import COMMANDS
from .handset import Handset

OPERATORS = (";", "&&", "||", "|")


@dataclass
class ShellSession:
    """One shell on the simulated phone (see the module docstring)."""

    phone: Handset
    root: bool = False
    env: dict[str, str] = field(default_factory=lambda: {"PATH": "/product/bin:/apex/com.android.runtime/bin:"
                                                          "/system/bin:/system/xbin:/odm/bin:/vendor/bin",
                                                          "HOME": "/", "SHELL": "/system/bin/sh"})
    status: int = 0
    exited: bool = False
    stdin: bytes = b""
    cmd_stdin: bytes = b""  # what the running command reads (a pipe's input)
    can_follow: bool = False  # a server streams: a following `logcat` leaves its request in `follow`
    follow: object = None     # (LogcatRequest, buffers announced) of a logcat that keeps running

    # ------------------------------------------------------------------ lines
    def run(self, line: str) -> ShellResult:
        """Run one command line; ``self.status`` is its exit status afterwards."""
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            lexer.commenters = ""
            tokens = list(lexer)
        except ValueError as exc:
            res = fail(f"/system/bin/sh: syntax error: {exc}", 2)
            self.status = 2
            return res
        out, err = bytearray(), bytearray()
        i, skip = 0, False
        while i < len(tokens) and not self.exited:
            j = i
            while j < len(tokens) and tokens[j] not in (";", "&&", "||"):
                j += 1
            if not skip and i < j:
                res = self._pipeline(tokens[i:j])
                out += res.stdout
                err += res.stderr
                self.status = res.status
            op = tokens[j] if j < len(tokens) else ";"
            skip = (op == "&&" and self.status != 0) or (op == "||" and self.status == 0)
            i = j + 1
        return ShellResult(bytes(out), bytes(err), self.status)

    def _pipeline(self, tokens: list[str]) -> ShellResult:
        stages: list[list[str]] = [[]]
        for t in tokens:
            if t == "|":
                stages.append([])
            else:
                stages[-1].append(t)
        data, err, res = self.stdin, bytearray(), ShellResult()
        for stage in stages:
            res = self._redirected(stage, data)
            err += res.stderr
            data = res.stdout
        return ShellResult(data, bytes(err), res.status)

    def _redirected(self, words: list[str], stdin: bytes) -> ShellResult:
        argv: list[str] = []
        out_file, append, err_file, err_to_out = None, False, None, False
        i = 0
        while i < len(words):
            w = words[i]
            if w in (">", ">>") and i + 1 < len(words):
                if argv and argv[-1] == "2" and w == ">":
                    argv.pop()
                    err_file = words[i + 1]
                else:
                    out_file, append = words[i + 1], w == ">>"
                i += 2
            elif w == ">&" and argv and argv[-1] == "2" and i + 1 < len(words) and words[i + 1] == "1":
                argv.pop()
                err_to_out = True
                i += 2
            elif w == "<" and i + 1 < len(words):
                src = words[i + 1]
                try:
                    data = b"" if src == "/dev/null" else self.phone.read_file(src, root=self.root)
                except OSError as exc:
                    return fail(f"/system/bin/sh: can't open {src}: {exc.strerror}", 1)
                if data is None:
                    return fail(f"/system/bin/sh: can't open {src}: No such file or directory", 1)
                stdin = data
                i += 2
            elif w in ("<", "&", ">&", ">", ">>"):
                return fail(f"/system/bin/sh: syntax error: '{w}' unexpected", 2)
            else:
                argv.append(w)
                i += 1
        res = self.command(argv, stdin)
        if err_to_out:
            res = ShellResult(res.stdout + res.stderr, b"", res.status)
        if err_file is not None:
            if err_file != "/dev/null":
                try:
                    self.phone.write_file(err_file, res.stderr, root=self.root)
                except OSError as exc:
                    return fail(f"/system/bin/sh: can't create {err_file}: {exc.strerror}", 1)
            res = ShellResult(res.stdout, b"", res.status)
        if out_file is not None:
            if out_file != "/dev/null":
                try:
                    old = self.phone.read_file(out_file, root=self.root) if append else b""
                    self.phone.write_file(out_file, (old or b"") + res.stdout, root=self.root)
                except OSError as exc:
                    return fail(f"/system/bin/sh: can't create {out_file}: {exc.strerror}", 1)
            res = ShellResult(b"", res.stderr, res.status)
        return res

    # ------------------------------------------------------------------ one command
    def command(self, argv: list[str], stdin: bytes = b"") -> ShellResult:
        """Run one command (argv already split); built-ins first, then ``commands.COMMANDS``."""
        if not argv:
            return ok()
        name, args = argv[0], argv[1:]
        if "=" in name and not name.startswith("="):  # K=V CMD: an environment assignment
            k, _, v = name.partition("=")
            if not args:
                self.env[k] = v
                return ok()
            return self.command(args, stdin)
        builtin = BUILTINS.get(name)
        fn = COMMANDS.get(name) if builtin is None else None
        if builtin is None and fn is None:
            return fail(f"/system/bin/sh: {name}: not found", 127)
        self.cmd_stdin = stdin
        try:
            res = builtin(self, args, stdin) if builtin is not None else fn(self, args)
        except OSError as exc:
            return fail(f"{name}: {exc.filename or ''}: {exc.strerror or exc}", 1)
        except re.error as exc:
            return fail(f"{name}: bad regex: {exc}", 2)
        except (ValueError, IndexError, KeyError, OverflowError) as exc:  # bad arguments, as the tool says them
            return fail(f"{name}: {exc}", 1)
        if isinstance(res, ShellResult):
            return res
        return ok(res)

    def as_root(self, argv: list[str], stdin: bytes) -> ShellResult:
        was, self.root = self.root, True
        try:
            return self.command(argv, stdin)
        finally:
            self.root = was


def _export(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    for a in args:
        k, eq, v = a.partition("=")
        if eq:
            sh.env[k] = v
    return ok()


def _exec(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    res = sh.command(args, stdin)
    sh.exited = True  # exec replaces the shell: nothing after it runs
    return res


def _su(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    if not args:
        sh.root = True  # an interactive `su`: the rest of the session runs as root
        return ok()
    if args[0] == "-c" and len(args) > 1:
        was, sh.root = sh.root, True
        try:
            return ShellSession.run(sh, " ".join(args[1:]))
        finally:
            sh.root = was
    if args[0] in ("0", "root") or args[0].isdigit():
        return sh.as_root(args[1:], stdin) if len(args) > 1 else _su(sh, [], stdin)
    return sh.as_root(args, stdin)


def _sh(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    if args[:1] == ["-c"] and len(args) > 1:
        sub = ShellSession(sh.phone, root=sh.root, env=dict(sh.env))
        return sub.run(args[1])
    return ok()


def _exit(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    sh.exited = True
    return ShellResult(status=int(args[0]) & 0xFF if args and args[0].isdigit() else sh.status)


def _id(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    if sh.root:
        return ok("uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0\n")
    return ok("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),"
              "1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),"
              "3011(uhid) context=u:r:shell:s0\n")


def _grep(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    invert = ignore = count = False
    limit, pattern, files = None, None, []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-e",) and i + 1 < len(args):
            pattern, i = args[i + 1], i + 2
            continue
        if a == "-m" and i + 1 < len(args):
            limit, i = int(args[i + 1]), i + 2
            continue
        if a.startswith("-") and len(a) > 1 and pattern is None:
            invert |= "v" in a
            ignore |= "i" in a
            count |= "c" in a
        elif pattern is None:
            pattern = a
        else:
            files.append(a)
        i += 1
    if pattern is None:
        return fail("usage: grep [-EFHIabchilnoqrsvwxz] [-m MAX] [-e REGEX]... REGEX [FILE...]", 2)
    data = stdin if not files else b"".join(sh.phone.read_file(f, root=sh.root) or b"" for f in files)
    rx = re.compile(pattern, re.I if ignore else 0)
    hits = [ln for ln in data.decode("utf-8", "replace").splitlines() if bool(rx.search(ln)) != invert]
    hits = hits[:limit] if limit is not None else hits
    out = f"{len(hits)}\n" if count else "".join(h + "\n" for h in hits)
    return ShellResult(out.encode(), b"", 0 if hits else 1)


def _head(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    n = 10
    if "-n" in args:
        n = int(args[args.index("-n") + 1])
    lines = stdin.splitlines(keepends=True)
    return ok(b"".join(lines[:n]))


def _wc(sh: ShellSession, args: list[str], stdin: bytes) -> ShellResult:
    return ok(str(stdin.count(b"\n") if "-l" in args else len(stdin.split())) + "\n")


BUILTINS: dict[str, Callable[[ShellSession, list[str], bytes], ShellResult]] = {
    "export": _export, "exec": _exec, "su": _su, "sh": _sh, "exit": _exit, "id": _id, "grep": _grep,
    "head": _head, "wc": _wc,
    "cd": lambda sh, a, i: ok(), "true": lambda sh, a, i: ok(), "false": lambda sh, a, i: ShellResult(status=1),
    "sleep": lambda sh, a, i: ok(), "whoami": lambda sh, a, i: ok("root\n" if sh.root else "shell\n"),
    "toybox": lambda sh, a, i: sh.command(a, i),
}


def run(phone: Handset, cmdline: str) -> ShellResult:
    """Run ``cmdline`` in a fresh shell session (as the ``shell`` user, or root after ``adb root``)."""
    return ShellSession(phone, root=phone.adb_root).run(cmdline)
