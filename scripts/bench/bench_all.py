"""One benchmark for every env family: rollback figures and search overhead, with a results file.

For each env (Game24, WebShop, ToolBench, RestBench, ToolTasks, B-MoCA, ALFWorld, TextWorld):

1. **Rollback** (``bench_rollback.measure_rollback``): snapshot, restore and step times at
   ordinary depth-8 states reached by seeded random valid actions; restore into a sibling state
   of the same episode and into another episode's state (never the state the env holds) against
   reset + replay; every restored state checked equal to a replayed one (observation, info, and
   the next step's observation, reward, end flags, info); an env whose restore is lazy (TextWorld:
   the next step loads the state) has restore + that first step timed as its restore, marked
   ``*``. An env whose check fails is REFUSED: no figure of it is printed or written.
2. **Search overhead** (``bench_overhead.measure_overhead``): per agent (ToT BFS/DFS, DFSDT,
   MCTS, LATS, Elo, A*), CPU per node expansion with the simulated LLM's time subtracted, set
   against the env's own restore + step + snapshot twice (:func:`overhead_ratios`): at the depth-8
   states of part 1 (restore of a sibling state + step + snapshot, CPU medians; target <= 2x) and
   at the search's start state, measured interleaved with the searches (target <= 2.5x). Which of
   the two env costs is lower depends on the env (WebShop's start state steps a catalog search, its
   depth-8 states cheap page moves), so both ratios are printed.

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
from treegym.scripts.bench.bench_overhead import AGENTS, LLM_SPEC, TARGET_RATIO, format_overhead, measure_overhead
from treegym.scripts.bench.bench_rollback import LAZY_NOTE, NoOpenStates, RollbackRefused, measure_rollback
from treegym.scripts.bench.bench_support import load_average, load_text, provenance

SCHEMA = "treegym.bench_all/1"
FAMILIES = {
    "game24": "treegym/Game24-v0", "webshop": "treegym/WebShop-v0", "toolbench": "treegym/ToolBench-v0",
    "restbench": "treegym/RestBench-v0", "tooltasks": "treegym/ToolTasks-v0", "bmoca": "treegym/BMoCA-v0",
    "alfworld": "treegym/ALFWorld-v0", "textworld": "treegym/TextWorld-v0",
}
FULL = {"depth": 8, "repeats": 31, "search_seeds": 3, "search_repeats": 3, "budget": 40}
QUICK = {"depth": 8, "repeats": 5, "search_seeds": 1, "search_repeats": 1, "budget": 20}
DEPTH_TARGET = 2.0  # search overhead / the env's restore + step + snapshot at the depth-8 states


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
        args.env_ids = [_env_id(name) for name in args.envs.split(",") if name.strip()]
    except ValueError as exc:
        p.error(str(exc))
    args.agent_names = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not args.env_ids or (not args.agent_names and not args.no_search):
        p.error("give at least one env and one agent")
    return args


def _env_id(name: str) -> str:
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
    if not isinstance(old, dict) or old.get("schema") != SCHEMA:
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
            try:
                entry["search"] = measure_overhead(lambda: _make(env_id), env_id, agents=args.agent_names,
                                                   seeds=range(args.seed, args.seed + args.search_seeds),
                                                   budget=args.budget, repeats=args.search_repeats,
                                                   llm_spec=args.llm)
            except ValueError as exc:  # e.g. an env whose start state lists no valid actions
                entry["search"] = {"error": str(exc)}
            else:
                entry["search"]["at_depth"] = overhead_ratios(entry["rollback"], entry["search"])
    except RollbackRefused as exc:
        return {"env_id": env_id, "load_before": entry["load_before"], "status": "refused",
                "reason": f"restored state differs from reset + replay: {exc}"}
    except NoOpenStates as exc:
        return {**entry, "status": "skipped", "reason": str(exc)}
    entry.update(status="ok", seconds=round(time.perf_counter() - t0, 2), load_after=load_average())
    return entry


def overhead_ratios(rollback: dict[str, Any], search: dict[str, Any]) -> dict[str, Any]:
    """Each agent's search overhead (framework CPU per expansion, median over its searches) against
    the env's own cost of one expansion at the rollback's states: ``env_cpu`` = restore of a sibling
    state + step + snapshot (CPU medians, depth ``depth``: 8, or the last open depth of shorter
    episodes), and ``ratio_cpu`` per agent (None for an agent that was not measured). The searches
    expand nodes at depths 1 to their own depth while the rollback's states sit at ``depth``, so the
    env's cost there may be above or below its cost along the search; the start-state ratio
    (``search["agents"][a]["ratio_cpu"]``) is reported beside it with its own target."""
    env_cpu = sum(rollback[k]["cpu"]["median"] for k in ("restore", "step", "snapshot"))
    ratios = {a: (s["framework"]["cpu"]["median"] / env_cpu if "framework" in s else None)
              for a, s in search["agents"].items()}
    return {"env_cpu": env_cpu, "depth": rollback["depth"], "ratio_cpu": ratios}


def format_depth_overhead(d: dict[str, Any]) -> str:
    """The depth ratios of :func:`overhead_ratios` as one line."""
    cells = " ".join(f"{a} {r:.1f}x" if r is not None else f"{a} n/a" for a, r in d["ratio_cpu"].items())
    return (f"  against restore+step+snapshot at depth {d['depth']} ({d['env_cpu'] * 1e6:.1f} us CPU): {cells} "
            f"(target <= {DEPTH_TARGET:g}x)")


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


def summary_table(entries: list[dict[str, Any]], agents: list[str]) -> str:
    """Every env in one table: CPU medians in microseconds, ratios, search overhead per agent."""
    head = (f"{'env':<22} {'snap':>6} {'restore':>8} {'other':>8} {'step':>8} {'replay':>9} {'ratio':>7} "
            f"{'env@d':>7} {'env@0':>7}  " + " ".join(f"{a:>10}" for a in agents))
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
        if s and "error" in s:
            row += f"  search not measured: {s['error']}"
        elif s:
            d = s["at_depth"]
            row += f" {d['env_cpu'] * 1e6:>7.1f} {s['baseline']['cpu']['median'] * 1e6:>7.1f}  "
            row += " ".join(f"{d['ratio_cpu'][a]:.1f}/{s['agents'][a]['ratio_cpu']:.1f}x".rjust(10)
                            if d["ratio_cpu"].get(a) is not None else f"{'n/a':>10}" for a in agents)
        lines.append(row)
    lines.append("CPU medians in us: snap(shot), restore (sibling state), other (another task's state), step, "
                 "replay (reset + replay), ratio = replay / restore;")
    if lazy_seen:
        lines.append(LAZY_NOTE)
    lines.append("env@d = restore+step+snapshot at the depth-d states above (d = 8, or the last open depth), "
                 "env@0 = the same at the search's start state;")
    lines.append(f"per agent: search overhead = (search CPU - LLM CPU) per expansion, over env@d / over env@0 "
                 f"(targets <= {DEPTH_TARGET:g}x / <= {TARGET_RATIO:g}x)")
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
    results: dict[str, Any] = {"schema": SCHEMA, "units": "seconds; ratios are replay / restore and "
                               f"search overhead / env cost (targets <= {DEPTH_TARGET:g} at depth 8, <= {TARGET_RATIO:g} at the start state)", **provenance(), "settings": settings,
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
        if "search" in entry:
            search = entry["search"]
            print(f"  search not measured: {search['error']}" if "error" in search else
                  format_overhead(env_id, search) + "\n" + format_depth_overhead(search["at_depth"]))
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
