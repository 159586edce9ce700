"""``treegym list``: every registered id with its task count per split and snapshot kind."""
from __future__ import annotations

import argparse

import gymnasium as gym


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list environments, task counts per split and snapshot kinds")
    p.set_defaults(func=run)


def rows() -> list[tuple[str, str, str, str]]:
    import treegym.envs as tenvs

    out = []
    for env_id in tenvs.env_ids():
        try:
            cls = tenvs.env_class(env_id)
        except gym.error.DependencyNotInstalled as exc:
            out.append((env_id, "?", "?", f"not installed: {exc}"))
            continue
        except Exception as exc:  # noqa: BLE001 - one broken env must not hide the others
            out.append((env_id, "?", "?", f"unavailable: {type(exc).__name__}: {exc}"))
            continue
        counts = cls.task_counts() if hasattr(cls, "task_counts") else {}
        splits = ", ".join(f"{k} {v}" for k, v in counts.items()) or "-"
        out.append((env_id, getattr(cls, "snapshot_kind", "?"), splits, (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""))
    return out


def run(args: argparse.Namespace) -> int:
    table = [("id", "snapshot", "tasks per split", "about")] + rows()
    widths = [max(len(r[i]) for r in table) for i in range(3)]
    for r in table:
        print(f"{r[0].ljust(widths[0])}  {r[1].ljust(widths[1])}  {r[2].ljust(widths[2])}  {r[3]}")
    return 0
