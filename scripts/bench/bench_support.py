"""Helpers the benchmark scripts share: percentiles and spreads, CPU + wall timing of interleaved
repetitions, the machine load, an LLM wrapper that adds up the time spent inside it, the run's
provenance (git commit, Python), and a served site for the load scripts."""
from __future__ import annotations

import inspect
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank from below; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def spread(values: Sequence[float]) -> dict[str, float | int]:
    """Median, quartiles (p25, p75), min, max and count of ``values`` (NaN figures for none)."""
    if not values:
        nan = float("nan")
        return {"median": nan, "p25": nan, "p75": nan, "min": nan, "max": nan, "n": 0}
    ordered = sorted(values)
    n = len(ordered)
    mid = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return {"median": mid, "p25": percentile(ordered, 0.25), "p75": percentile(ordered, 0.75),
            "min": ordered[0], "max": ordered[-1], "n": n}


def rss_mb() -> float:
    """This process's resident set size in MB (VmRSS from /proc; NaN where there is no /proc)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages (``os.getloadavg``); NaNs where the OS has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return [float("nan")] * 3


def load_text() -> str:
    """``load average 1.20 0.80 0.50 on 2 CPUs``: printed beside every figure."""
    one, five, fifteen = load_average()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


class Samples:
    """CPU time (``time.process_time``) and wall time of named operations, sample by sample.

    ``samples.time("restore", fn, *args)`` calls ``fn(*args)``, records both clocks under
    ``"restore"`` and returns ``fn``'s result. Figures are reported with :func:`spread`."""

    def __init__(self) -> None:
        self.cpu: dict[str, list[float]] = {}
        self.wall: dict[str, list[float]] = {}

    def time(self, name: str, fn: Callable[..., Any], *args: Any) -> Any:
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn(*args)
        self.add(name, time.process_time() - c0, time.perf_counter() - w0)
        return result

    @staticmethod
    def clock() -> tuple[float, float]:
        """Both clocks now (CPU, wall), for timing a block rather than one call."""
        return time.process_time(), time.perf_counter()

    def add(self, name: str, cpu: float, wall: float) -> None:
        self.cpu.setdefault(name, []).append(cpu)
        self.wall.setdefault(name, []).append(wall)

    def summary(self, name: str) -> dict[str, dict[str, float | int]]:
        """``{"cpu": spread, "wall": spread}`` of ``name``'s samples, in seconds."""
        return {"cpu": spread(self.cpu.get(name, [])), "wall": spread(self.wall.get(name, []))}


def interleave(arms: Sequence[Callable[[int], Any]], repeats: int, budget_s: float | None = None,
               min_repeats: int = 5) -> int:
    """Run ``arm(rep)`` for every arm in turn, repetition after repetition (A, B, A, B, ...), so a
    change of machine load hits every arm alike. Stops after ``repeats`` repetitions, or earlier once
    ``min_repeats`` are done and ``budget_s`` seconds have passed; returns the repetitions run."""
    start = time.perf_counter()
    done = 0
    while done < repeats:
        if budget_s is not None and done >= min_repeats and time.perf_counter() - start > budget_s:
            break
        for arm in arms:
            arm(done)
        done += 1
    return done


class TimedLLM:
    """An LLM that forwards everything to ``llm`` and adds up the CPU and wall time spent inside its
    ``complete`` (the model's work), so a benchmark can subtract the model's time from a search. Every
    other attribute is the wrapped LLM's own, untimed: its accounting hooks (``last_cost``, a few
    counter reads per call) stay on the framework's side of the figure, which can only make the
    framework look dearer, never cheaper.

    The wrapper's own cost per call is one Python call, a read of this thread's tally (a ``complete`` that
    calls ``complete`` again through us is counted once) and two reads of each clock, the CPU clock's
    read right around the wrapped call. Each thread adds its spans to its own tally, so no lock is
    taken per call; ``cpu_seconds`` and ``wall_seconds`` add up the tallies. The wrapped LLM's bound
    methods are looked up once and kept."""

    def __init__(self, llm: Any):
        self._llm = llm
        self._tallies: list[list[Any]] = []  # per thread that called complete: [inside?, cpu, wall]
        self._lock = threading.Lock()  # taken once per thread, to add its tally
        self._local = threading.local()
        self.complete = self._timed(llm.complete)

    @property
    def cpu_seconds(self) -> float:
        """CPU seconds spent inside ``complete``, over every thread."""
        return sum(tally[1] for tally in self._tallies)

    @property
    def wall_seconds(self) -> float:
        """Wall seconds spent inside ``complete``, over every thread."""
        return sum(tally[2] for tally in self._tallies)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # our own state, not set yet (copy, pickle): never the wrapped LLM's
            raise AttributeError(name)
        attr = getattr(self._llm, name)
        if inspect.ismethod(attr) and attr.__self__ is self._llm:
            self.__dict__[name] = attr  # a bound method of the wrapped LLM: the same for every call
        return attr

    def _tally(self) -> list[Any]:
        """This thread's tally, made on its first call."""
        tally = self._local.tally = [False, 0.0, 0.0]
        with self._lock:
            self._tallies.append(tally)
        return tally

    def _timed(self, complete: Callable[[Any], Any]) -> Callable[[Any], Any]:
        local, cpu, wall = self._local, time.process_time, time.perf_counter

        def timed(request: Any) -> Any:
            tally = getattr(local, "tally", None) or self._tally()
            if tally[0]:  # called from inside our own complete on this thread: the outer call counts it
                return complete(request)
            tally[0] = True
            w0 = wall()
            c0 = cpu()  # the CPU clock read last on the way in and first on the way out: its own
            try:        # system call falls half inside, half outside the counted span, as it must
                return complete(request)
            finally:
                c1 = cpu()
                w1 = wall()
                tally[0] = False
                tally[1] += c1 - c0
                tally[2] += w1 - w0

        return timed


def provenance() -> dict[str, Any]:
    """Where the figures come from: git commit of this checkout (None when not a git checkout) and
    whether it had local changes, Python version, platform, CPU count."""
    here = Path(__file__).resolve().parent
    commit, dirty = None, None
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                                timeout=10).stdout.strip() or None
        if commit:
            status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                                    capture_output=True, text=True, timeout=10).stdout
            dirty = bool(status.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return {"git_commit": commit, "git_dirty": dirty, "python": platform.python_version(),
            "platform": platform.platform(), "cpus": os.cpu_count()}


def start_cli_server(site: str, *extra: str) -> tuple[subprocess.Popen, str]:
    """``treegym serve SITE --port 0 --quiet EXTRA...`` in a child process; returns it and its base URL.

    Exits with the server's own error output when it does not start."""
    err = tempfile.TemporaryFile(mode="w+")
    cmd = [sys.executable, "-m", "treegym.scripts.cli", "serve", site, "--port", "0", "--quiet", *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    m = re.search(r"(http://127\.0\.0\.1:\d+)", line)
    if not m:
        proc.kill()
        err.seek(0)
        raise SystemExit(f"treegym serve {site} did not start: {line!r} {err.read()[-2000:]}")
    return proc, m.group(1)
