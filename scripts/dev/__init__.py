"""Developer tools (run from a clone: ``python -m treegym.scripts.dev.<name>``); not shipped in the wheel."""
