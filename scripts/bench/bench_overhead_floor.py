"""The floor of a model-driven search's CPU per expansion, per env: the env's own work plus one prompt and one parse.

Issue 37 asks that a search cost at most 2x the env's restore + step + snapshot at the expanded node. Any
search whose actions come from a model must, per expansion, at least do that env work, build one prompt
about the new state and read one answer. This benchmark times exactly that, with nothing else (no request
objects, budget, tree or algorithm), on the expansions real searches made:

* per env (at ``--depth`` 8, Game of 24 at its last open depth 2: ``bench_overhead.start_states``), per
  agent and seed, one search with the simulated LLM (untimed) records its expansions
  (``expansion_replay.py``: counted against the search's ``search_expansions``, every parent rebuilt by
  reset + replay and checked against the tree);
* **replay** arm: for each expansion, restore the parent, step the action, snapshot + release (one block,
  each step's observation checked against the tree): ``bench_overhead``'s ``env@exp``;
* **floor** arm: the same replay, and after each step the child's value prompt, built as the fixture
  searches build it (``without_verdict`` then ``value_messages``: bfs, dfs, mcts and lats ask one value per
  expansion, more than any other prompt; ``react_messages``/``propose_messages`` cost alike: the same
  context block), from the observation the step just returned and the parent's history plus the new step
  (one tuple per node, the parent's reused by its children, as ``SearchNode.trajectory`` does), and one
  ``parse_action`` of an answer naming the expansion's action in the spec's own answer form
  (``render_react``, rendered before the clock starts), read against the parent's observation (where the
  search read the answer that chose it).

The prompt spec's memos are as cold as in a search: every floor block gets a fresh spec bound to the env
(``get_prompts``: what each search's agent gets), builds each prompt once, and the observations are the
ones the block's own steps returned (no index or context block of an earlier block is reused).

Printed per env: the replay and the floor per expansion (CPU medians of interleaved repetitions, replay
then floor, pooled over agents), and per agent floor / replay (the median of its seeds' ratios, each
the median floor block over the median replay block). A floor above 2x means the target cannot be met
there by any search that builds a prompt per expansion: the output says so. Machine load and the git
commit are printed with the figures.

    python -m treegym.scripts.bench.bench_overhead_floor [--envs game24,alfworld] [--agents mcts,bfs] [--repeats 5]
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Sequence

import gymnasium as gym

from treegym.agents.prompts import Step, get_prompts
from treegym.scripts.bench.bench_all import FAMILIES, family_env_id
from treegym.scripts.bench.bench_overhead import AGENTS, LLM_SPEC, checked_search, timed_llm
from treegym.scripts.bench.search_starts import make_with_room, start_states
from treegym.scripts.bench.overhead_table import DEPTH_TARGET
from treegym.scripts.bench.bench_rollback import NoOpenStates, RollbackRefused
from treegym.scripts.bench.bench_support import Samples, interleave, load_text, provenance, spread
from treegym.scripts.bench.expansion_replay import Expansion, ExpansionReplay, expansions_of


def floor_arm(env: gym.Env, env_id: str, replayed: ExpansionReplay, root_obs: Any,
              samples: Samples) -> Callable[[int], None]:
    """One floor block over ``replayed``'s expansions (module docstring), recorded per expansion under
    ``"floor"``; ``root_obs`` is the search root's observation (the parent of the root's children)."""
    items = replayed.items
    parent_of = replayed.parent_of
    answers_spec = get_prompts(env_id)
    answers = [answers_spec.render_react(str(item.action)) for item in items]

    def arm(_rep: int) -> None:
        spec = get_prompts(env_id)
        spec.bind(env)
        trajectories: list[tuple] = [()] * len(items)
        observations: list[Any] = [None] * len(items)
        without_verdict, value_messages, parse_action = spec.without_verdict, spec.value_messages, spec.parse_action

        def each(i: int, item: Expansion, result: tuple) -> None:
            obs, reward = result[0], result[1]
            p = parent_of[i]
            text = str(obs.get("text", "")) if isinstance(obs, dict) else str(obs)
            step = Step(item.action, text, float(reward), item.node.thought)
            trajectories[i] = history = (trajectories[p] if p >= 0 else ()) + (step,)
            observations[i] = obs
            value_messages(*without_verdict(obs, history))
            parse_action(answers[i], observations[p] if p >= 0 else root_obs)

        replayed.run(samples, "floor", each)

    return arm


def replay_arm(replayed: ExpansionReplay, samples: Samples) -> Callable[[int], None]:
    """One replay block over ``replayed``'s expansions, recorded per expansion under ``"expansions"``."""
    return lambda _rep: replayed.run(samples, "expansions")


def measure_floor(env_id: str, *, agents: Sequence[str] = AGENTS, seeds: Sequence[int] = (0, 1), depth: int = 8,
                  budget: int = 40, repeats: int = 5, llm_spec: str = LLM_SPEC) -> dict[str, Any]:
    """The replay and floor arms of the module docstring on ``env_id``. Returns ``depth`` (the shallowest
    start depth reached), ``replay`` and ``floor`` (``{"cpu": spread, "wall": spread}`` per expansion, pooled
    over agents and seeds), ``agents``: per agent ``ratio`` (spread over seeds of floor / replay, CPU
    medians), ``ratio_cpu`` (its median), ``expansions`` (per seed), or ``error`` when its search failed or
    expanded nothing. Raises :class:`RollbackRefused` when a replay does not reproduce its search's tree."""
    env = make_with_room(env_id, depth, seed=seeds[0])
    replays: list[ExpansionReplay] = []
    try:
        states = start_states(env, seeds, depth)
        samples = {(a, s): Samples() for a in agents for s in seeds}
        arms: list[Callable[[int], None]] = []
        out: dict[str, Any] = {"depth": min(len(s.actions) for s in states.values()), "agents": {}}
        for agent in agents:
            expansions: dict[int, int] = {}
            for seed, state in states.items():
                try:
                    policy, _cpu, _wall = checked_search(env, env_id, state, agent, timed_llm(llm_spec, env_id), budget)
                except RollbackRefused:
                    raise
                except Exception as exc:  # noqa: BLE001 - an agent failing on one env must not void the others
                    out["agents"][agent] = {"error": f"{type(exc).__name__}: {exc}"}
                    break
                n = int(policy.stats().get("search_expansions", 0))
                if not n:
                    continue
                where = f"{agent}'s search from reset(seed={seed}) + {len(state.actions)} actions"
                root = policy.result.tree.root
                replays.append(replayed := ExpansionReplay(env, state, expansions_of(root, n, where), where))
                expansions[seed] = n
                arms += [replay_arm(replayed, samples[agent, seed]),
                         floor_arm(env, env_id, replayed, root.observation, samples[agent, seed])]
            if agent not in out["agents"]:
                out["agents"][agent] = {"expansions": expansions} if expansions else {"error": "no expansions"}
        for arm in arms:  # once, not counted: imports, first-call caches
            arm(0)
        for s in samples.values():
            s.cpu.clear()
            s.wall.clear()
        interleave(arms, repeats)
        for name, key in (("replay", "expansions"), ("floor", "floor")):
            out[name] = {clock: spread([x for s in samples.values() for x in getattr(s, clock).get(key, [])])
                         for clock in ("cpu", "wall")}
        for agent, a in out["agents"].items():
            if "error" in a:
                continue
            ratios = [spread(samples[agent, seed].cpu["floor"])["median"]
                      / spread(samples[agent, seed].cpu["expansions"])["median"] for seed in a["expansions"]]
            a["ratio"] = spread(ratios)
            a["ratio_cpu"] = a["ratio"]["median"]
        return out
    finally:
        for replayed in replays:
            replayed.close()
        env.close()


def format_floor(rows: list[tuple[str, dict[str, Any]]], agents: Sequence[str]) -> str:
    """Every env as one table row, then a verdict line per env whose floor exceeds the 2x target."""
    head = (f"{'env':<22} {'d':>2} {'replay us':>10} {'floor us':>9}  " + " ".join(f"{a:>6}" for a in agents)
            + "   floor / replay")
    lines = [head, "-" * len(head)]
    verdicts = []
    for env_id, r in rows:
        name = env_id.removeprefix("treegym/")
        if "error" in r:
            lines.append(f"{name:<22} {r['error']}")
            continue
        cells = " ".join((f"{r['agents'][a]['ratio_cpu']:.2f}x" if "ratio_cpu" in r["agents"].get(a, {})
                          else "n/a").rjust(6) for a in agents)
        lines.append(f"{name:<22} {r['depth']:>2} {r['replay']['cpu']['median'] * 1e6:>10.1f} "
                     f"{r['floor']['cpu']['median'] * 1e6:>9.1f}  {cells}")
        over = [a for a in agents if r["agents"].get(a, {}).get("ratio_cpu", 0) > DEPTH_TARGET]
        if over:
            verdicts.append(f"{name}: the floor alone exceeds {DEPTH_TARGET:g}x for {', '.join(over)}: the target is "
                            "unreachable there for a search that builds a prompt per expansion")
    lines.append("replay = the env's restore+step+snapshot replaying the searches' own expansions; floor = that plus, per "
                 "expansion, the child's value prompt and one parse_action (CPU medians in us per expansion, pooled "
                 "over agents); per agent: floor / replay, median over seeds")
    lines += verdicts or [f"no env's floor exceeds {DEPTH_TARGET:g}x"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench_overhead_floor", description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", default=",".join(FAMILIES), help=f"families ({', '.join(FAMILIES)}) or env ids")
    p.add_argument("--agents", default=",".join(AGENTS))
    p.add_argument("--seeds", type=int, default=2, help="episodes reset(seed=0..N-1) (default 2)")
    p.add_argument("--depth", type=int, default=8, help="start depth of the recorded searches (default 8)")
    p.add_argument("--budget", type=int, default=40, help="LLM calls per recorded search (default 40)")
    p.add_argument("--repeats", type=int, default=5, help="interleaved repetitions (default 5)")
    p.add_argument("--llm", default=LLM_SPEC)
    args = p.parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not agents or args.seeds < 1 or args.budget < 1 or args.repeats < 1 or args.depth < 0:
        p.error("give at least one agent, --seeds, --budget, --repeats >= 1 and --depth >= 0")
    try:
        env_ids = [family_env_id(name) for name in args.envs.split(",") if name.strip()]
    except ValueError as exc:
        p.error(str(exc))
    info = provenance()
    print(f"bench_overhead_floor: commit {info['git_commit']}{' (with local changes)' if info['git_dirty'] else ''}; "
          f"{load_text()}")
    rows: list[tuple[str, dict[str, Any]]] = []
    refused = False
    for env_id in env_ids:
        print(f"== {env_id} ({load_text()})", flush=True)
        try:
            gym.make(env_id).close()
            r = measure_floor(env_id, agents=agents, seeds=range(args.seeds), depth=args.depth, budget=args.budget,
                              repeats=args.repeats, llm_spec=args.llm)
        except (gym.error.DependencyNotInstalled, ImportError) as exc:
            r = {"error": f"SKIPPED: extra not installed: {exc}"}
        except NoOpenStates as exc:
            r = {"error": f"SKIPPED: {exc}"}
        except RollbackRefused as exc:
            r, refused = {"error": f"REFUSED: a replay does not reproduce its search: {exc}"}, True
        for agent, a in r.get("agents", {}).items():
            if "error" in a:
                print(f"  {agent} not measured: {a['error']}")
        rows.append((env_id, r))
    print(format_floor(rows, agents))
    print(f"after: {load_text()}")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
