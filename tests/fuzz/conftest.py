"""The fuzz tests' totals at the end of the run (``fuzzing.COUNTS``), e.g. for the release notes."""
from __future__ import annotations


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    try:
        from fuzzing import COUNTS, SCALE
    except ImportError:  # the fuzz tests were not collected
        return
    if COUNTS:
        parts = ", ".join(f"{v} {k}" for k, v in sorted(COUNTS.items()))
        terminalreporter.write_line(f"fuzz (scale {SCALE:g}): {parts}")
