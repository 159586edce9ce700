"""Benchmark: search on an env with costly ``external`` snapshots, snapshot-per-node against the store's choice.

A simulated device: Game of 24 whose snapshots are handles to images
(``envs/examples/external_snapshots.py``) that take ``--snapshot-ms`` to write,
and whose steps take ``--step-ms``. The same search (``--agent``, the synthetic
LLM ``--llm``, tasks ``--tasks``) runs twice in the same process:

* **eager** (the baseline): the env declares its snapshots free
  (``snapshot_cost_seconds = 0``), so the search store snapshots every node, as
  search did before the store;
* **by cost**: the env declares its real snapshot cost, and the store snapshots a
  node only when replaying to it would cost more, else replays from the nearest
  snapshotted ancestor.

Both must build the same trees (checked: the chosen actions and every node's
action and observation). The modes alternate task by task, and which one goes
first alternates too. It prints, per mode, the median seconds per search (wall
time: the simulated costs are sleeps) with quartiles, without the time spent
inside the simulated LLM (its oracle reads the truth off env states and may
snapshot the env to do so: the simulation's cost, shown apart), the search's
snapshots taken and released, replayed steps, the ratio eager / by-cost of the medians, and the load
average before and after.

    python scripts/bench/bench_snapshot_store.py [--agent bfs] [--tasks 900:906] [--snapshot-ms 50] [--step-ms 2]
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.envs.examples.external_snapshots import HandleSnapshots
from treegym.envs.game24.env import Game24Env
from treegym.scripts.bench.bench_support import TimedLLM, load_text, spread

ENV = "treegym/Game24-v0"


def device_class(snapshot_s: float, step_s: float, declared: float) -> type:
    class Device(HandleSnapshots, Game24Env):
        snapshot_delay = snapshot_s
        snapshot_cost_seconds = declared

        def step(self, action: Any):
            time.sleep(step_s)
            return super().step(action)

    return Device


def one_search(cls: type, agent: str, llm_spec: str, task: int, budget: int) -> dict:
    env = cls()
    obs, info = env.reset(options={"task_id": task})
    llm = TimedLLM(make_llm(llm_spec, env_id=ENV))
    policy = make_agent(agent, ENV, llm, seed=0, budget=budget)
    policy.reset()
    policy.bind(env)
    t0 = time.perf_counter()
    policy.act(obs, info)
    seconds = time.perf_counter() - t0
    tree = policy.result.tree
    shape = [(n.parent.id if n.parent else None, n.action, n.text) for n in tree.nodes]
    stats = policy.stats()
    # The simulated LLM reads the truth off env states (its oracle snapshots the env when a node holds
    # no snapshot): that is the simulation's cost, not the search's, so its time is left out.
    return {"seconds": seconds - llm.wall_seconds, "llm_seconds": llm.wall_seconds,
            "taken": stats["snapshots_taken"], "released": stats["snapshots_released"], "live": len(env.live),
            "replayed": stats.get("replayed_steps", 0), "nodes": len(tree), "shape": shape,
            "actions": list(policy.result.actions)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default="bfs")
    p.add_argument("--llm", default="synthetic:p_correct=0.5,value_noise=0.4,seed=1")
    p.add_argument("--tasks", default="900:906", help="task ids START:END (end excluded)")
    p.add_argument("--budget", type=int, default=60, help="LLM calls per search")
    p.add_argument("--snapshot-ms", type=float, default=50.0, help="simulated milliseconds per snapshot")
    p.add_argument("--step-ms", type=float, default=2.0, help="simulated milliseconds per env step")
    args = p.parse_args(argv)
    start, end = (int(x) for x in args.tasks.split(":"))
    snap_s, step_s = args.snapshot_ms / 1000, args.step_ms / 1000
    modes = {"eager": device_class(snap_s, step_s, declared=0.0),
             "by cost": device_class(snap_s, step_s, declared=snap_s)}
    rows: dict[str, list[dict]] = {m: [] for m in modes}
    print(f"before: {load_text()}")
    for task in range(start, end):
        order = list(modes) if task % 2 == 0 else list(reversed(modes))
        for mode in order:
            rows[mode].append(one_search(modes[mode], args.agent, args.llm, task, args.budget))
        a, b = rows["eager"][-1], rows["by cost"][-1]
        if (a["shape"], a["actions"]) != (b["shape"], b["actions"]):
            print(f"task {task}: the two modes built different trees; the comparison is void", file=sys.stderr)
            return 1
    print(f"{args.agent} on {ENV} tasks {args.tasks}, snapshot {args.snapshot_ms} ms, step {args.step_ms} ms "
          f"({end - start} searches per mode, same trees in both; seconds without the simulated LLM's own)")
    print(f"{'mode':<8} {'median s/search':>15} {'p25-p75':>13} {'LLM s':>6} {'nodes':>6} {'snapshots':>9} "
          f"{'released':>8} {'replayed steps':>14}")
    medians = {}
    for mode, rs in rows.items():
        s = spread([r["seconds"] for r in rs])
        medians[mode] = s["median"]
        llm_s = spread([r["llm_seconds"] for r in rs])["median"]
        print(f"{mode:<8} {medians[mode]:>15.3f} {s['p25']:>6.3f}-{s['p75']:<6.3f} {llm_s:>6.3f} {sum(r['nodes'] for r in rs):>6} "
              f"{sum(r['taken'] for r in rs):>9} {sum(r['released'] for r in rs):>8} {sum(r['replayed'] for r in rs):>14}")
        leaked = sum(r["live"] for r in rs)
        if leaked:
            print(f"  {mode}: {leaked} snapshots were never released", file=sys.stderr)
            return 1
    print(f"ratio eager / by cost (median seconds per search): {medians['eager'] / medians['by cost']:.1f}x")
    print(f"after: {load_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
