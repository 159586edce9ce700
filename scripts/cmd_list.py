"""``treegym list``: every registered id (what the env families declare, ``envs/<family>/__init__.py``)
with its short name, snapshot kind and task count per split; then the servers the families declare
(``SERVERS``: ``treegym serve <server>``); then every registered agent (the modules of
``treegym.agents.search`` / ``baselines`` and the ``treegym.agents`` entry points) with its help line."""
from __future__ import annotations

import argparse

import gymnasium as gym


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list environments (short names, task counts per split, snapshot kinds) and agents")
    p.set_defaults(func=run)


def rows() -> list[tuple[str, str, str, str, str]]:
    """(id, short name, snapshot kind, tasks per split, about) per registered id; a broken env says why."""
    import treegym.envs as tenvs

    names = {e.id: e.name or "" for e in tenvs.entries()}
    out = []
    for env_id in tenvs.env_ids():
        name = names.get(env_id, "")
        try:
            cls = tenvs.env_class(env_id)
        except gym.error.DependencyNotInstalled as exc:
            out.append((env_id, name, "?", "?", f"not installed: {exc}"))
            continue
        except Exception as exc:  # noqa: BLE001 - one broken env must not hide the others
            out.append((env_id, name, "?", "?", f"unavailable: {type(exc).__name__}: {exc}"))
            continue
        try:
            counts = cls.task_counts() if hasattr(cls, "task_counts") else {}
        except Exception as exc:  # noqa: BLE001 - e.g. task data that cannot be read
            counts, about = {}, f"cannot list tasks: {type(exc).__name__}: {exc}"
        else:
            about = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        splits = ", ".join(f"{k} {v}" for k, v in counts.items()) or "-"
        out.append((env_id, name, getattr(cls, "snapshot_kind", "?"), splits, about))
    return out


def agent_rows() -> list[tuple[str, str, str]]:
    """(name, "llm" or "-", help line) per registered agent; a name taking ``@K`` is shown as ``name@K``."""
    from treegym.agents.registry import agents

    return [(a.name + "K" if a.name.endswith("@") else a.name, "llm" if a.needs_llm else "-",
             (a.help or "").strip().splitlines()[0] if (a.help or "").strip() else "") for a in agents()]


def run(args: argparse.Namespace) -> int:
    table = [("id", "name", "snapshot", "tasks per split", "about")] + rows()
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    for r in table:
        print("  ".join(r[i].ljust(widths[i]) for i in range(4)) + f"  {r[4]}")
    print("\nserve any of them over HTTP: treegym serve <id or name>")
    import treegym.envs as tenvs

    servers = tenvs.servers()
    if servers:
        print("servers the families offer (treegym serve <server>):")
        width = max(len(e.name) for e in servers)
        for e in servers:
            print(f"  {e.name.ljust(width)}  {e.env_id or '-'}  port {e.default_port}  {e.about}")
    agents = [("agent", "needs", "about")] + agent_rows()
    width = max(len(r[0]) for r in agents)
    print()
    for name, needs, about in agents:
        print(f"{name.ljust(width)}  {needs.ljust(5)}  {about}")
    print("\nrun one: treegym run --env <id> --agent <agent> [--llm ...]")
    return 0
