"""The ``treegym`` command line.

Each subcommand lives in its own ``scripts/cmd_*.py`` module with a
``register(subparsers)`` function that adds its parser and sets ``func``
(called with the parsed args, returns an exit code). The commands are found
by scanning this package for ``cmd_*`` modules (:func:`command_modules`), so
adding a command is adding its module. ``treegym --version`` prints :func:`version`.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import pkgutil
import sys
from pathlib import Path
from typing import Sequence

_PACKAGE = __package__ or "treegym.scripts"


def command_modules() -> list[str]:
    """The ``cmd_*`` modules of this package, by name (each adds one subcommand)."""
    here = [str(Path(__file__).resolve().parent)]
    return sorted(f"{_PACKAGE}.{m.name}" for m in pkgutil.iter_modules(here) if m.name.startswith("cmd_"))


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
    for name in command_modules():
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
