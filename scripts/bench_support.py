"""Helpers the load scripts share (``bench_webshop_site.py``, ``soak.py``): percentiles and a served site."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank from below; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
