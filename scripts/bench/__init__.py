"""Benchmark scripts (run from a clone: ``python -m treegym.scripts.bench.<name>``); not shipped in the wheel."""
