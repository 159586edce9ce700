"""The results file of ``treegym run`` / ``sweep``: append-only JSON lines, one episode record each.

What a record holds and which records a rerun reuses is :mod:`.runs`' job; this
module only reads and writes the lines (see :class:`ResultsFile`).
"""
from __future__ import annotations

import json
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ...envs.core.utf8_json import dump_line, load_line


class ResultsFile:
    """Append-only JSONL of episode records, safe to resume after a kill.

    * :meth:`load` keeps every complete record; a torn last line (killed
      mid-write) is removed from the file, but a last record that is complete
      JSON and lacks only its newline is kept (the newline is added).
      A line that is not JSON, or holds a byte that is not UTF-8, stops the
      load with a message naming the file and line.
    * :meth:`append` never loses a record to a character: text without a UTF-8
      form (a lone surrogate an LLM server sent as ``"\\ud800"``) is written as a
      JSON ``\\u`` escape and a warning names the record and field.
    * :meth:`exclusive` holds an advisory lock on the file for one run, so a
      second run writing the same file is refused with a message.
    """

    WHAT_TO_DO = "fix or remove that line (or move the file), it is not a treegym results file"

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._lock = threading.Lock()

    def load(self) -> list[dict]:
        """Records already written (see the class docstring)."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        records, good_end, pos = [], 0, 0
        lines = raw.splitlines(keepends=True)
        for no, line in enumerate(lines, 1):
            end = pos + len(line)
            complete = line.endswith(b"\n")
            if not complete and no == len(lines):
                rec = self._whole_record(line)
                if rec is not None:
                    records.append(rec)
                    self._add_newline()
                    good_end = end + 1
                pos = end
                break
            text = line.strip()
            if text:
                rec = load_line(text, where=str(self.path), line_no=no, what_to_do=self.WHAT_TO_DO)
                if not isinstance(rec, dict):
                    raise ValueError(f"{self.path}:{no}: JSON but not an object; {self.WHAT_TO_DO}")
                records.append(rec)
            good_end = end
            pos = end
        if good_end < len(raw):
            print(f"treegym: dropping an unfinished last line of {self.path} (a run was killed mid-write)",
                  file=sys.stderr)
            with open(self.path, "r+b") as fh:
                fh.truncate(good_end)
        return records

    @staticmethod
    def _whole_record(line: bytes) -> dict | None:
        """The record on a last line without its newline, when it is a complete JSON object."""
        try:
            rec = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            return None
        return rec if isinstance(rec, dict) else None

    def _add_newline(self) -> None:
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, b"\n")
            finally:
                os.close(fd)

    def append(self, record: dict) -> None:
        """Write ``record`` as one line (one ``os.write``, fsynced); see the class docstring."""
        line, escaped = dump_line(record, default=str)
        if escaped:
            print(f"treegym: {self.path}: record for task {record.get('task_id')!r} (agent {record.get('agent')!r}) "
                  f"holds text with no UTF-8 form in {', '.join(escaped)}; written as JSON \\u escapes, "
                  "read back unchanged", file=sys.stderr)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = os.write(fd, line)
                while written < len(line):
                    written += os.write(fd, line[written:])
                os.fsync(fd)
            finally:
                os.close(fd)

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold an exclusive advisory lock (``flock``) on the results file while the block runs.

        Creates the file when missing (and removes it again when the run wrote nothing). Raises ``ValueError`` (one line: the file
        and what to do) when another process holds the lock.
        """
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        fd = os.open(self.path, os.O_RDONLY | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ValueError(f"{self.path} is being written by another treegym run; wait for it to finish "
                                 "or give this run another --out") from None
            try:
                yield
            finally:
                if created and os.fstat(fd).st_size == 0:  # a run that wrote nothing leaves no file behind
                    try:
                        os.unlink(self.path)
                    except OSError:
                        pass
        finally:
            os.close(fd)
