"""One benchmark for every env family: rollback figures and search overhead, with a results file.

For each env (Game24, WebShop, ToolBench, RestBench, ToolTasks, B-MoCA, ALFWorld, TextWorld):

1. **Rollback** (``bench_rollback.measure_rollback``): snapshot, restore and step times at
   ordinary depth-8 states reached by seeded random valid actions; restore into a sibling state
   of the same episode and into another episode's state (never the state the env holds) against
   reset + replay; every restored state checked equal to a replayed one (observation, info, and
   the next step's observation, reward, end flags, info); an env whose restore is lazy (TextWorld:
   the next step loads the state) has restore + that first step timed as its restore, marked
   ``*``. An env whose check fails is REFUSED: no figure of it is printed or written.
2. **Search overhead** (``bench_overhead.measure_overhead``, twice, the same code): per agent (ToT
   BFS/DFS, DFSDT, MCTS, LATS, Elo, A*), CPU per node expansion with the simulated LLM's time
   subtracted (``framework``: everything the search spends, the env's steps, restores and
   snapshots included), set against two measures of the env's own restore + step + snapshot, each
   interleaved with the searches, CPU medians: ``env``, at the state the searches start from
   (restore that state while the env holds another, step a listed valid action, snapshot the result,
   every restore checked against the state's observation), and ``env@exp``, at the expanded nodes
   (the replay of each search's own expansions: restore the parent, step the action the search took,
   snapshot; every replayed step checked against the search's tree; ``expansion_replay.py``):

   * **start-state column** (``search["start"]``, ``env@0``): searches from the state
     ``reset(seed)`` returns; target <= 2.5x on ``framework / env`` (``ratio_cpu``: "against the
     start state");
   * **depth column** (``search["depth"]``, ``env@d``, ``env@exp``): searches that start ``--depth`` (8)
     seeded random valid actions into the same episodes (the walks of part 1: its branch-a states of
     seeds ``seed`` and ``seed + 1``), with ``depth`` more steps on the env's step limit so they
     have the same room below their root; Game of 24's episodes end at step 3, so it starts at
     depth 2 (the depth used is printed and stored per env); target <= 2x on ``framework / env@exp``
     (``ratio_at_expansions_cpu``: "at the expanded node"). Each search is checked to have started
     there (its root observation and its first child's equal reset + replay's).

   Both columns store both ratios per agent (``ratio*`` against ``env``, ``ratio_at_expansions*``
   against ``env@exp``: schema 3; schema 2 had the first only). ``timer`` is the LLM wrapper's own
   cost per expansion (part of ``framework``: it penalises the framework; measured by one doubly
   wrapped search per agent).

Medians of interleaved repetitions, quartiles beside them, CPU time first (other jobs on a
shared machine do not count), wall time too, and the load average before and after each env.
The results (with the git commit, Python version, load and settings) go to ``--out`` as JSON;
an existing file from other settings is refused unless ``--overwrite``.

    python -m treegym.scripts.bench.bench_all [--quick] [--envs game24,alfworld] [--out bench_results.json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import treegym.envs as te
from treegym.scripts.bench.bench_overhead import AGENTS, LLM_SPEC, make_with_room, measure_overhead
from treegym.scripts.bench.overhead_table import DEPTH_TARGET, TARGET_RATIO, format_overhead, target_of
from treegym.scripts.bench.bench_rollback import LAZY_NOTE, NoOpenStates, RollbackRefused, measure_rollback
from treegym.scripts.bench.bench_support import load_average, load_text, provenance

SCHEMA = "treegym.bench_all/3"  # 3: per agent also the ratio against its searches' own expansions (env@exp)
FAMILIES = {
    "game24": "treegym/Game24-v0", "webshop": "treegym/WebShop-v0", "toolbench": "treegym/ToolBench-v0",
    "restbench": "treegym/RestBench-v0", "tooltasks": "treegym/ToolTasks-v0", "bmoca": "treegym/BMoCA-v0",
    "alfworld": "treegym/ALFWorld-v0", "textworld": "treegym/TextWorld-v0",
}
FULL = {"depth": 8, "repeats": 31, "search_seeds": 3, "search_repeats": 3, "budget": 40}
QUICK = {"depth": 8, "repeats": 5, "search_seeds": 1, "search_repeats": 1, "budget": 20}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench_all", description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", default=",".join(FAMILIES),
                   help=f"comma-separated families ({', '.join(FAMILIES)}) or env ids (default: all)")
    p.add_argument("--quick", action="store_true", help="a smoke run of about a minute (fewer repetitions)")
    p.add_argument("--out", default="bench_results.json", help="results file (default bench_results.json)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing results file from other settings")
    p.add_argument("--agents", default=",".join(AGENTS), help=f"search agents (default {','.join(AGENTS)})")
    p.add_argument("--llm", default=LLM_SPEC, help=f"the simulated LLM (default {LLM_SPEC})")
    p.add_argument("--seed", type=int, default=0, help="first reset seed (default 0)")
    p.add_argument("--no-search", action="store_true", help="rollback figures only")
    for key, value in FULL.items():
        p.add_argument(f"--{key.replace('_', '-')}", type=int, default=None,
                       help=f"default {value} ({QUICK[key]} with --quick)")
    args = p.parse_args(argv)
    for key in FULL:
        value = getattr(args, key)
        if value is None:
            setattr(args, key, (QUICK if args.quick else FULL)[key])
        elif value < (0 if key == "depth" else 1):
            p.error(f"--{key.replace('_', '-')} must be at least {0 if key == 'depth' else 1}, got {value}")
    try:
        args.env_ids = [family_env_id(name) for name in args.envs.split(",") if name.strip()]
    except ValueError as exc:
        p.error(str(exc))
    args.agent_names = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not args.env_ids or (not args.agent_names and not args.no_search):
        p.error("give at least one env and one agent")
    return args


def family_env_id(name: str) -> str:
    """The env id a `--envs` entry names: a family (`game24`) or a registered env id; ValueError otherwise."""
    name = name.strip()
    if name.lower() in FAMILIES:
        return FAMILIES[name.lower()]
    try:
        return te.ensure_registered(name)
    except (gym.error.Error, ImportError) as exc:
        raise ValueError(f"--envs: {name!r} is neither a family ({', '.join(FAMILIES)}) nor a known env id: {exc}")


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    """What the figures depend on; a results file from other settings is not replaced silently."""
    return {"envs": args.env_ids, "quick": args.quick, "depth": args.depth, "repeats": args.repeats,
            "search": not args.no_search, "agents": args.agent_names, "llm": args.llm, "budget": args.budget,
            "search_seeds": args.search_seeds, "search_repeats": args.search_repeats, "seed": args.seed}


def check_out(path: Path, settings: dict[str, Any], overwrite: bool) -> str | None:
    """None when ``path`` may be written; else why not. Checked before any measuring."""
    if not path.exists() or overwrite:
        return None
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return f"{path} exists and is not a bench_all results file; choose another --out or pass --overwrite"
    schema = old.get("schema") if isinstance(old, dict) else None
    if isinstance(schema, str) and schema.startswith(SCHEMA.split("/")[0] + "/") and schema != SCHEMA:
        return (f"{path} holds results of another bench_all version ({schema}; this one writes {SCHEMA}, whose "
                "columns mean other things); choose another --out or pass --overwrite")
    if schema != SCHEMA:
        return f"{path} exists and is not a bench_all results file; choose another --out or pass --overwrite"
    if old.get("settings") != settings:
        changed = sorted(k for k in set(settings) | set(old.get("settings") or {})
                         if settings.get(k) != (old.get("settings") or {}).get(k))
        return (f"{path} holds results from other settings (differs in: {', '.join(changed)}); "
                "choose another --out or pass --overwrite")
    return None


def _finite(x: Any) -> Any:
    """JSON has no NaN or infinity: those become null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _make(env_id: str, **kwargs: Any) -> gym.Env:
    try:
        return gym.make(env_id, **kwargs)
    except TypeError:  # a user's env without a max_steps option
        return gym.make(env_id)


def bench_env(env_id: str, args: argparse.Namespace) -> dict[str, Any]:
    """One env's entry of the results: ``status`` ok / refused / skipped, and its figures when ok."""
    entry: dict[str, Any] = {"env_id": env_id, "load_before": load_average()}
    t0 = time.perf_counter()
    try:
        _make(env_id).close()
    except (gym.error.DependencyNotInstalled, ImportError) as exc:
        return {**entry, "status": "skipped", "reason": f"extra not installed: {exc}"}
    try:
        # room for depth actions and the checked next step; the search runs on the default env
        entry["rollback"] = measure_rollback(lambda: _make(env_id, max_steps=args.depth + 8), seed=args.seed,
                                             depth=args.depth, repeats=args.repeats)
        if not args.no_search:
            entry["search"] = {column: _search_column(env_id, args, depth) for column, depth in
                               (("start", 0), ("depth", args.depth))}
    except RollbackRefused as exc:
        return {"env_id": env_id, "load_before": entry["load_before"], "status": "refused",
                "reason": f"restored state differs from reset + replay: {exc}"}
    except NoOpenStates as exc:
        return {**entry, "status": "skipped", "reason": str(exc)}
    entry.update(status="ok", seconds=round(time.perf_counter() - t0, 2), load_after=load_average())
    return entry


def _search_column(env_id: str, args: argparse.Namespace, depth: int) -> dict[str, Any]:
    """``measure_overhead`` from ``depth`` actions into each episode (the env with ``depth`` steps of extra
    room), or ``{"error": ...}`` when it cannot run (e.g. a start state listing no valid actions)."""
    try:
        return measure_overhead(lambda: make_with_room(env_id, depth, seed=args.seed), env_id, agents=args.agent_names,
                                seeds=range(args.seed, args.seed + args.search_seeds), budget=args.budget,
                                repeats=args.search_repeats, llm_spec=args.llm, depth=depth)
    except ValueError as exc:
        return {"error": str(exc)}


def format_rollback(env_id: str, r: dict[str, Any]) -> str:
    us = {k: {c: r[k][c] for c in ("cpu", "wall")} for k in ("restore", "restore_other_task", "step", "snapshot",
                                                               "replay")}
    cpu = {k: v["cpu"] for k, v in us.items()}

    def cell(k: str) -> str:
        return f"{cpu[k]['median'] * 1e6:.1f} [{cpu[k]['p25'] * 1e6:.1f}-{cpu[k]['p75'] * 1e6:.1f}]"

    restore = r.get("restore_timed", "restore")
    lazy = f" (lazy restore: {restore} timed together)" if restore != "restore" else ""
    return (f"{env_id}: {r['kind']} snapshots{lazy}, depth {r['depth']}, {r['repeats']} repetitions, "
            f"{r['checked']['restores']} restores and {r['checked']['replays']} replays checked equal\n"
            f"  CPU us, median [p25-p75]: snapshot {cell('snapshot')}  {restore} {cell('restore')}  "
            f"{restore} other task {cell('restore_other_task')}  step {cell('step')}  reset+replay {cell('replay')}\n"
            f"  reset+replay / {restore}: {r['ratio_cpu']:.1f}x CPU, {r['ratio_wall']:.1f}x wall "
            f"(wall medians: restore {us['restore']['wall']['median'] * 1e6:.1f} us, "
            f"replay {us['replay']['wall']['median'] * 1e6:.1f} us)")


def _ratio_cells(search: dict[str, Any], agents: list[str]) -> str:
    """Per agent ``depth ratio/start ratio``, each the ratio its column's target judges (``target_of``: the
    depth column's against the env at the expanded nodes, the start column's against the start state),
    ``n/a`` where a column has no figure for it."""
    def ratio(column: str, agent: str) -> str:
        s = search[column]
        a = s.get("agents", {}).get(agent, {})
        judged = target_of(s.get("depth", 0 if column == "start" else 1))[0]
        return f"{a[judged]:.1f}" if judged in a else "n/a"
    return " ".join(f"{ratio('depth', a)}/{ratio('start', a)}x".rjust(10) for a in agents)


def _env_at_expansions(column: dict[str, Any]) -> str:
    """The range over agents of the env's median cost of replaying their expansions (``env@exp``), us."""
    costs = [a["expansion_env"]["cpu"]["median"] * 1e6 for a in column.get("agents", {}).values()
             if "expansion_env" in a]
    if not costs:
        return "n/a"
    low, high = min(costs), max(costs)
    return f"{low:.0f}" if round(low) == round(high) else f"{low:.0f}-{high:.0f}"


def summary_table(entries: list[dict[str, Any]], agents: list[str]) -> str:
    """Every env in one table: CPU medians in microseconds, ratios, search overhead per agent."""
    head = (f"{'env':<22} {'snap':>6} {'restore':>8} {'other':>8} {'step':>8} {'replay':>9} {'ratio':>7} "
            f"{'d':>2} {'env@d':>7} {'env@exp':>9} {'env@0':>7}  " + " ".join(f"{a:>10}" for a in agents))
    lines = [head, "-" * len(head)]
    lazy_seen = False
    for e in entries:
        name = e["env_id"].removeprefix("treegym/")
        if e["status"] != "ok":
            lines.append(f"{name:<22} {e['status'].upper()}: {e['reason']}")
            continue
        r = e["rollback"]
        if r.get("restore_timed", "restore") != "restore":
            name, lazy_seen = name + "*", True
        m = {k: r[k]["cpu"]["median"] * 1e6 for k in ("snapshot", "restore", "restore_other_task", "step", "replay")}
        row = (f"{name:<22} {m['snapshot']:>6.1f} {m['restore']:>8.1f} {m['restore_other_task']:>8.1f} "
               f"{m['step']:>8.1f} {m['replay']:>9.1f} {r['ratio_cpu']:>6.0f}x")
        s = e.get("search")
        if s:
            env_cpu = {c: f"{s[c]['baseline']['cpu']['median'] * 1e6:.1f}" if "baseline" in s[c] else "n/a"
                       for c in ("depth", "start")}
            row += (f" {s['depth'].get('depth', '?'):>2} {env_cpu['depth']:>7} {_env_at_expansions(s['depth']):>9} "
                    f"{env_cpu['start']:>7}  "
                    + _ratio_cells(s, agents))
            errors = [f"{column}: {s[column]['error']}" for column in ("depth", "start") if "error" in s[column]]
            if errors:
                row += "  search not measured from " + "; ".join(errors)
        lines.append(row)
    lines.append("CPU medians in us: snap(shot), restore (sibling state), other (another task's state), step, "
                 "replay (reset + replay), ratio = replay / restore;")
    if lazy_seen:
        lines.append(LAZY_NOTE)
    lines.append("d = the depth the depth column's searches start at (8, or the last open depth); env@d, env@0 = the env's "
                 "restore+step+snapshot at those start states / at reset's state, each measured interleaved with "
                 "its searches; env@exp = the same replaying the depth column's searches' own expansions (range over "
                 "agents);")
    lines.append(f"per agent: search overhead = (search CPU - LLM CPU) per expansion, from depth d over env@exp (at the "
                 f"expanded nodes) / from reset over env@0 (against the start state); targets <= {DEPTH_TARGET:g}x / "
                 f"<= {TARGET_RATIO:g}x")
    lines.append("Read the CPU figures: wall-time ratios set a long interval (a replay, a search) against short "
                 "ones, and a loaded machine preempts the long one more, so they grow with the load.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    settings = settings_of(args)
    problem = check_out(out, settings, args.overwrite)
    if problem:
        print(f"bench_all: {problem}", file=sys.stderr)
        return 2
    if out.exists():
        print(f"bench_all: {out} will be replaced ({'--overwrite' if args.overwrite else 'same settings'})",
              file=sys.stderr)
    results: dict[str, Any] = {"schema": SCHEMA, "units": "seconds; ratios are replay / restore and search "
                               "overhead / env cost: ratio* against the env where the searches start, "
                               "ratio_at_expansions* against the env replaying the searches' own expansions "
                               f"(targets: <= {DEPTH_TARGET:g} on ratio_at_expansions_cpu from depth 8, <= "
                               f"{TARGET_RATIO:g} on ratio_cpu from reset's state)", **provenance(), "settings": settings,
                               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "load_before": load_average(), "envs": []}
    print(f"bench_all: {len(args.env_ids)} envs, {'quick' if args.quick else 'full'} settings; {load_text()}")
    t0 = time.perf_counter()
    for env_id in args.env_ids:
        print(f"\n== {env_id} ({load_text()})", flush=True)
        entry = bench_env(env_id, args)
        results["envs"].append(entry)
        if entry["status"] != "ok":
            print(f"  {entry['status'].upper()}: {entry['reason']}")
            continue
        print(format_rollback(env_id, entry["rollback"]))
        for column, search in entry.get("search", {}).items():
            print(f"  search from the {column} state not measured: {search['error']}" if "error" in search else
                  format_overhead(env_id, search))
    results.update(seconds=round(time.perf_counter() - t0, 1), load_after=load_average())
    print(f"\n{summary_table(results['envs'], [] if args.no_search else args.agent_names)}")
    print(f"{results['seconds']:.0f} s; before: load average {results['load_before']}, after: {load_text()}; "
          f"commit {results['git_commit']}{' (with local changes)' if results['git_dirty'] else ''}")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(_finite(results), indent=1) + "\n")
    tmp.replace(out)
    print(f"results: {out}")
    return 1 if any(e["status"] == "refused" for e in results["envs"]) else 0


if __name__ == "__main__":
    sys.exit(main())
