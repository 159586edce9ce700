"""The ``treegym`` command line.

Each subcommand lives in its own ``scripts/cmd_*.py`` module with a
``register(subparsers)`` function that adds its parser and sets ``func``
(called with the parsed args, returns an exit code). Add a module to
``COMMAND_MODULES`` to add a command. ``treegym --version`` prints :func:`version`.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
from typing import Sequence

COMMAND_MODULES = [
    "treegym.scripts.cmd_list",
    "treegym.scripts.cmd_check",
    "treegym.scripts.cmd_run",
    "treegym.scripts.cmd_serve",
    "treegym.scripts.cmd_webshop",
    "treegym.scripts.cmd_tree",
    "treegym.scripts.cmd_export",
    "treegym.scripts.cmd_report",
    "treegym.scripts.cmd_sweep",
    "treegym.scripts.cmd_textworld",
]


def version() -> str:
    """The installed distribution's version: pyproject.toml's ``version``, its one source, as pip
    recorded it (``importlib.metadata``); ``"unknown"`` when treegym runs without being installed."""
    try:
        return importlib.metadata.version("treegym")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="treegym", description="Forkable Gymnasium envs and tree-search LLM agents.")
    parser.add_argument("--version", action="version", version=f"treegym {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command whose optional extra is missing
            if exc.name and exc.name.startswith("treegym."):
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
