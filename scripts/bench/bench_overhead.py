"""Search overhead per node expansion, per agent, on any env, beside the env's own cost of one expansion.

Each agent searches from a start state of episode ``reset(seed)``, for each seed, with the offline
simulated LLM (``synthetic:...``; the same factory ``treegym run`` uses) and a fixed call budget.
The start state is the episode's first state (``--depth 0``, the default) or the state after
``depth`` seeded random valid actions that leave the episode open (``search_starts.start_states``: the
walks of ``bench_rollback``, so ``bench_all``'s depth-8 searches start at its rollback states; an
episode that cannot stay open that long, Game of 24 after 2 moves, stops at its last open depth).
The env is replayed to that state before each search (untimed), with ``depth`` steps of extra room
on its step limit so a search from depth 8 may go as deep below its root as one from the start.
Every search is checked to have started there: its root observation, and its first child's, must
equal what reset + replay gives, else the figures are refused (:class:`RollbackRefused`).

Time spent inside the LLM's ``complete`` is measured by wrapping the LLM object handed to the agent
(:class:`~treegym.scripts.bench.bench_support.TimedLLM`) and subtracted, so what is left,
divided by the search's expansions, is the framework's cost of one expansion: prompt building,
parsing, tree bookkeeping, and the env work the expansion needs. The wrapper's own cost outside
its clock readings stays in that figure (it penalises the framework); it is measured in the same
run by one search per agent with the wrapper wrapped again (the outer clock minus the inner one)
and printed beside it (``timer``).

Two baselines, measured in the same run, interleaved with the searches (baseline, search, replay,
baseline, search, replay, ...), each the env's own restore + step + snapshot:

* **at the start state** (``env``, ratio ``/start``): ``restore`` the start state (the env holding
  another state), ``step`` one valid action, ``snapshot`` the result (released at once), every restore
  checked against the start observation; 20 cycles per block. Each search's framework / its own start
  state's median baseline is its ratio (``ratio_cpu``).
* **at the expanded nodes** (``env@exp``, ratio ``/exp``): the replay of the expansions of the search
  that ran just before (``expansion_replay.py``: every non-root node of its tree, their count checked
  against its ``search_expansions``; each parent built untimed by reset + replay and checked against the
  tree; then, timed as one block, restore the parent, step the node's action, snapshot + release, each
  step's observation checked against the tree's child). Three blocks per search, so that one block hit
  by a garbage collection or a cache eviction (14x the others, seen on B-MoCA) does not decide a median
  of two repetitions. The search just run is replayed rather than one recorded search so that every
  replayed workload is exactly the tree it is set against, whatever the search did; the searches of one
  agent from one seed repeat the same seeded search, so each is set against the median replay of its
  agent and seed (``ratio_at_expansions_cpu``).

The ratio of each search is taken against its own baseline; the median over searches is reported, with
quartiles. Issue 37's targets apply to one ratio each: from the start state (``--depth 0``) ``/start``
<= 2.5x ("against the start state"), from a deeper state (``bench_all``'s depth column, ``--depth 8``)
``/exp`` <= 2x ("at the expanded node"); both ratios are printed, the verdict is on the one the target
names. Each agent searches once first, not counted (imports, first-call caches). Figures are medians of
CPU time (``time.process_time``), wall time beside them.

What could tilt ``/exp``: the replay runs right after its search and on the same env, so the env's memo
tables (WebShop's rendered pages and search results) are as warm as the search left them; that makes the
replay cheaper and the ratio higher (it can only penalise the framework). The replay restores where the
search did: not before a follow-on expansion (the search expanded the child it had just made, so the env
already holds the parent). It snapshots every child where a search's store may keep fewer (costly snapshot
kinds only): that makes the replay dearer and the ratio lower there.

What the figure does not show: a search started at depth ``d`` has no steps above its root, so its
prompts carry the history below the root only (a node ``d`` steps deep in a search from the start
shows ``d`` more history lines); the simulated LLM examines the states it is asked about on the
search's own env (restore, step, put back: LLM time, subtracted), which can leave the env's own
memo tables (WebShop's rendered pages) warm for the expansion that follows; the baseline repeats
its restores and steps on one state, warm the same way.

    python -m treegym.scripts.bench.bench_overhead --env treegym/ToolTasks-v0 [--depth 8] [--agents bfs,mcts] [--budget 40]
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Sequence

import gymnasium as gym

import treegym.envs as te
from treegym.scripts.bench.bench_rollback import RollbackRefused
from treegym.scripts.bench.bench_support import Samples, TimedLLM, interleave, load_text, spread
from treegym.scripts.bench.expansion_replay import ExpansionReplay, expansions_of
from treegym.scripts.bench.overhead_table import format_overhead
from treegym.scripts.bench.search_starts import StartState, check_search_start, go_to, make_with_room, start_states
from treegym.agents.llm_specs import make_llm
from treegym.agents.policy import AgentGaveUp
from treegym.agents.registry import make_agent

AGENTS = ("bfs", "dfs", "dfsdt", "mcts", "lats", "elo", "astar")  # ToT BFS/DFS, DFSDT, MCTS, LATS, Elo, A*
LLM_SPEC = "synthetic:p_correct=0.5,judge_acc=0.8,value_noise=0.3,seed=0"
BASELINE_CYCLES = 20  # restore + step + snapshot cycles per baseline arm
REPLAY_BLOCKS = 3  # timed replays of each search's expansions (one block hit by a collection does not decide)


def timed_llm(llm_spec: str, env_id: str) -> TimedLLM:
    """The LLM ``treegym run --llm LLM_SPEC`` uses on ``env_id``, wrapped in a :class:`TimedLLM`."""
    return TimedLLM(make_llm(llm_spec, env_id=env_id))


def build_agent(agent: str, env_id: str, llm_spec: str, **options: Any) -> tuple[Any, TimedLLM]:
    """The agent ``treegym run --agent AGENT --llm LLM_SPEC`` plays, with its LLM wrapped in a
    :class:`TimedLLM`."""
    llm = timed_llm(llm_spec, env_id)
    return make_agent(agent, env_id, llm, **options), llm


def baseline_arm(env: gym.Env, state: StartState, samples: Samples) -> Callable[[], None]:
    """``BASELINE_CYCLES`` x (restore ``state``, step valid action i, snapshot), timed as one block (as a
    search is) and recorded per cycle under ``"env"``; the env is first moved off ``state`` (the first
    restore comes from another state), and every restore is then checked to have returned its observation."""
    obs, _info = go_to(env, state)
    root = te.snapshot(env)
    valid = list(obs.get("valid_actions") or ()) if isinstance(obs, dict) else []
    if not valid:
        raise ValueError(f"the start state of reset(seed={state.seed}) at depth {len(state.actions)} offers no "
                         "valid_actions to step")

    def arm() -> None:
        te.restore(env, root)
        env.step(valid[0])  # whatever state the env held, it now holds another than the start
        restored = []
        c0, w0 = samples.clock()
        for i in range(BASELINE_CYCLES):
            restored.append(te.restore(env, root)[0])
            env.step(valid[i % len(valid)])
            te.release(env, te.snapshot(env))
        c1, w1 = samples.clock()
        samples.add("env", (c1 - c0) / BASELINE_CYCLES, (w1 - w0) / BASELINE_CYCLES)
        for got in restored:
            d = te.first_difference(got, state.obs)
            if d is not None:
                raise RollbackRefused(f"restore of the start state of reset(seed={state.seed}) at depth "
                                      f"{len(state.actions)} differs from it: {d}")

    return arm


def searching_agent(env: gym.Env, env_id: str, state: StartState, agent: str, llm: Any,
                    budget: int) -> tuple[Any, Any, dict]:
    """``agent`` (seed 0, ``budget`` LLM calls through ``llm``) reset and bound to ``env``, which is put in
    ``state`` (untimed): ``(policy, obs, info)``, ready for ``policy.act(obs, info)`` to search."""
    obs, info = go_to(env, state)
    policy = make_agent(agent, env_id, llm, seed=0, budget=budget)
    policy.reset()
    policy.bind(env)
    return policy, obs, info


def first_act(policy: Any, obs: Any, info: dict) -> None:
    """``policy.act(obs, info)``: the search and the first action of its answer. An agent that gives up
    after its search (no answer, or nothing to play after it: ``AgentGaveUp``) still searched, so that is
    not an error here."""
    try:
        policy.act(obs, info)
    except AgentGaveUp:
        pass


def checked_search(env: gym.Env, env_id: str, state: StartState, agent: str, llm: Any,
                   budget: int) -> tuple[Any, float, float]:
    """One search of ``agent`` from ``state`` with ``llm``: (policy, CPU, wall seconds of its ``act``),
    checked to have started at ``state``."""
    policy, obs, info = searching_agent(env, env_id, state, agent, llm, budget)
    c0, w0 = Samples.clock()
    first_act(policy, obs, info)
    c1, w1 = Samples.clock()
    check_search_start(env, state, policy.result.tree.root)
    return policy, c1 - c0, w1 - w0


def _search_arm(env: gym.Env, env_id: str, state: StartState, agent: str, llm_spec: str, budget: int,
                rows: dict[str, dict[str, list]], searched: dict[str, tuple[Any, int]]) -> Callable[[], None]:
    """One timed search, recorded in ``rows[agent]``; its tree and expansion count are left in
    ``searched[agent]`` for the replay arm that follows it (:func:`_replay_arm`)."""
    def arm() -> None:
        llm = timed_llm(llm_spec, env_id)
        policy, cpu, wall = checked_search(env, env_id, state, agent, llm, budget)
        expansions = int(policy.stats().get("search_expansions", 0))
        searched[agent] = (policy.result.tree.root, expansions)
        row = rows[agent]
        row["expansions"].append(expansions)
        row["llm_calls"].append(int(policy.stats().get("search_llm_calls", 0)))
        if expansions:
            row["seed"].append(state.seed)
            row["cpu"].append((cpu - llm.cpu_seconds) / expansions)
            row["wall"].append((wall - llm.wall_seconds) / expansions)
            row["llm_cpu"].append(llm.cpu_seconds / expansions)

    return arm


def _replay_arm(env: gym.Env, state: StartState, agent: str, searched: dict[str, tuple[Any, int]],
                samples: Samples, follow_ons: list[float]) -> Callable[[], None]:
    """The env's cost of the expansions of ``agent``'s search that ran just before (``searched[agent]``,
    taken): parents built untimed, the replay timed ``REPLAY_BLOCKS`` times (``expansion_replay.ExpansionReplay``),
    recorded in ``samples`` under ``"expansions"`` and the share of its follow-on expansions in ``follow_ons``, the
    parents' snapshots released after."""
    def arm() -> None:
        root, expansions = searched.pop(agent, (None, 0))
        if not expansions:
            return
        where = f"{agent}'s search from reset(seed={state.seed}) + {len(state.actions)} actions"
        replayed = ExpansionReplay(env, state, expansions_of(root, expansions, where), where)
        try:
            for _ in range(REPLAY_BLOCKS):
                replayed.run(samples, "expansions")
            follow_ons.append(replayed.follow_ons / len(replayed))
        finally:
            replayed.close()

    return arm


def timer_cost(env: gym.Env, env_id: str, state: StartState, agent: str, llm_spec: str, budget: int) -> float | None:
    """CPU seconds per expansion that :class:`TimedLLM` itself adds to the framework figure: one search with
    the timed LLM wrapped in a second one, whose clock sees the inner wrapper's work around the inner
    clock's readings (outer minus inner). None when the search expanded nothing."""
    inner = timed_llm(llm_spec, env_id)
    outer = TimedLLM(inner)
    policy, _cpu, _wall = checked_search(env, env_id, state, agent, outer, budget)
    expansions = int(policy.stats().get("search_expansions", 0))
    return (outer.cpu_seconds - inner.cpu_seconds) / expansions if expansions else None


def _pooled(parts: Any, name: str) -> dict[str, dict[str, float | int]]:
    """``{"cpu": spread, "wall": spread}`` of the ``name`` samples of every :class:`Samples` in ``parts``."""
    return {clock: spread([x for samples in parts for x in getattr(samples, clock).get(name, [])])
            for clock in ("cpu", "wall")}


def measure_overhead(make_env: Callable[[], gym.Env], env_id: str, *, agents: Sequence[str] = AGENTS,
                     seeds: Sequence[int] = (0,), budget: int = 40, repeats: int = 3,
                     llm_spec: str = LLM_SPEC, depth: int = 0) -> dict[str, Any]:
    """The searches, baselines and expansion replays of the module docstring from the states ``depth``
    actions into each episode (:func:`start_states`; ``make_env`` should leave room for the search below
    them: :func:`make_with_room`). Returns, in seconds per expansion: ``depth`` (the shallowest start
    depth reached; ``depths`` per seed), ``max_steps`` (the env's step limit, None when it has none),
    ``baseline`` ``{"cpu": spread, "wall": spread}`` (the start-state baseline), and ``agents``: per agent
    ``framework`` (spreads), ``llm_cpu_per_expansion``, ``expansions``, ``llm_calls``, ``ratio`` (spreads
    of each search's framework cost / its start state's median baseline) with its medians ``ratio_cpu``
    and ``ratio_wall``, ``expansion_env`` (spreads of the replays of its searches' expansions, per
    expansion), ``ratio_at_expansions`` (spreads of each search's framework cost / the median replay of
    the searches of its agent and seed) with its medians ``ratio_at_expansions_cpu`` and
    ``ratio_at_expansions_wall``, ``replays_checked`` (replay blocks whose every step matched the tree:
    ``REPLAY_BLOCKS`` per counted search),
    ``follow_on_share`` (median share of expansions whose parent the previous expansion made: the module
    docstring's restore the search skips),
    ``timer_cpu_per_expansion`` (:func:`timer_cost`, part of ``framework``) and ``starts_checked``
    (searches checked to have started at their state); or ``error`` when the agent failed on this env.
    Raises :class:`RollbackRefused` when a baseline restore returns another observation, a search did not
    start at its state, or a replayed expansion differs from its search's tree."""
    env = make_env()
    try:
        states = start_states(env, seeds, depth)
        base = {seed: Samples() for seed in seeds}
        replays = {(agent, seed): Samples() for agent in agents for seed in seeds}
        follow_ons: dict[str, list[float]] = {agent: [] for agent in agents}
        keys = ("seed", "cpu", "wall", "llm_cpu", "expansions", "llm_calls")
        rows: dict[str, dict[str, list]] = {a: {k: [] for k in keys} for a in agents}
        searched: dict[str, tuple[Any, int]] = {}
        errors: dict[str, str] = {}

        def guarded(arm: Callable[[], Any], agent: str | None) -> Callable[[int], Any]:
            def run(_rep: int) -> Any:
                if agent in errors:
                    return None
                try:
                    return arm()
                except RollbackRefused:
                    raise  # a search, baseline or replay that did not hold voids the env's figures
                except Exception as exc:  # noqa: BLE001 - one agent failing on one env must not void the others
                    if agent is None:
                        raise
                    errors[agent] = f"{type(exc).__name__}: {exc}"
                    return None
            return run

        arms: list[Callable[[int], None]] = []
        warm_ups: list[Callable[[int], None]] = []
        for seed in seeds:
            baseline = guarded(baseline_arm(env, states[seed], base[seed]), None)
            for agent in agents:
                search = guarded(_search_arm(env, env_id, states[seed], agent, llm_spec, budget, rows, searched), agent)
                arms += [baseline, search,
                         guarded(_replay_arm(env, states[seed], agent, searched, replays[agent, seed],
                                             follow_ons[agent]), agent)]
                if seed == seeds[0]:
                    warm_ups.append(search)
        for warm_up in warm_ups:  # every agent once (imports, first-call caches), not counted
            warm_up(0)
        first = states[seeds[0]]
        timers = {a: guarded(lambda a=a: timer_cost(env, env_id, first, a, llm_spec, budget), a)(0) for a in agents}
        for row in rows.values():
            for values in row.values():
                values.clear()
        searched.clear()
        errors.clear()
        interleave(arms, repeats)
        per_seed = {seed: {clock: spread(getattr(samples, clock).get("env", []))["median"] for clock in ("cpu", "wall")}
                    for seed, samples in base.items()}
        depths = {seed: len(s.actions) for seed, s in states.items()}
        out: dict[str, Any] = {"depth": min(depths.values()), "depths": depths,
                               "max_steps": getattr(env.unwrapped, "max_steps", None),
                               "baseline": _pooled(base.values(), "env"), "agents": {}}
        for agent in agents:
            r = rows[agent]
            if agent in errors or not r["cpu"]:
                out["agents"][agent] = {"error": errors.get(agent, "no expansions"), "expansions": r["expansions"]}
                continue
            # each search against the baseline of its own start state, then the spread of those ratios
            ratios = {clock: spread([x / per_seed[seed][clock] for seed, x in zip(r["seed"], r[clock])])
                      for clock in ("cpu", "wall")}
            # and against the median replay of the expansions of its agent's searches from its seed
            own = {seed: {clock: spread(getattr(replays[agent, seed], clock).get("expansions", []))["median"]
                          for clock in ("cpu", "wall")} for seed in seeds}
            at_expansions = {clock: spread([x / own[seed][clock] for seed, x in zip(r["seed"], r[clock])])
                             for clock in ("cpu", "wall")}
            replayed = _pooled([replays[agent, seed] for seed in seeds], "expansions")
            out["agents"][agent] = {
                "framework": {"cpu": spread(r["cpu"]), "wall": spread(r["wall"])},
                "llm_cpu_per_expansion": spread(r["llm_cpu"]),
                "expansions": spread(r["expansions"]), "llm_calls": spread(r["llm_calls"]),
                "ratio": ratios, "ratio_cpu": ratios["cpu"]["median"], "ratio_wall": ratios["wall"]["median"],
                "expansion_env": replayed,
                "ratio_at_expansions": at_expansions, "ratio_at_expansions_cpu": at_expansions["cpu"]["median"],
                "ratio_at_expansions_wall": at_expansions["wall"]["median"],
                "replays_checked": replayed["cpu"]["n"],
                "follow_on_share": spread(follow_ons[agent])["median"],
                "timer_cpu_per_expansion": timers[agent], "starts_checked": len(r["expansions"]),
            }
        return out
    finally:
        env.close()


def run_on_one_env(argv: list[str] | None, description: str, measure: Callable[..., Any],
                   fmt: Callable[[str, Any], str]) -> int:
    """The command line of a search benchmark on one env: ``measure(make_env, env_id, agents=, seeds=,
    budget=, repeats=, llm_spec=, depth=)`` with the parsed options (the env with ``depth`` steps of extra
    room: :func:`make_with_room`), printed by ``fmt(env_id, result)`` between the machine load before and after."""
    args = parse_search_args(argv, description)
    print(f"before: {load_text()}")
    result = measure(lambda: make_with_room(args.env, args.depth, seed=0), args.env, agents=args.agents,
                     seeds=range(args.seeds), budget=args.budget, repeats=args.repeats, llm_spec=args.llm,
                     depth=args.depth)
    print(fmt(args.env, result))
    print(f"after: {load_text()}")
    return 0


def parse_search_args(argv: list[str] | None, description: str) -> argparse.Namespace:
    """The options of the search benchmarks run on one env (``--env``, ``--agents``, ``--seeds``,
    ``--budget``, ``--repeats``, ``--llm``, ``--depth``), checked; ``agents`` is the list of agent names."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--env", default="treegym/Game24-v0", help="env id (default Game24)")
    p.add_argument("--agents", default=",".join(AGENTS))
    p.add_argument("--seeds", type=int, default=2, help="episodes reset(seed=0..N-1) (default 2)")
    p.add_argument("--budget", type=int, default=40, help="LLM calls per search (default 40)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--depth", type=int, default=0,
                   help="start each search this many seeded random valid actions into its episode (default 0: "
                        "the state reset returns; fewer where the episode cannot stay open that long)")
    p.add_argument("--llm", default=LLM_SPEC)
    args = p.parse_args(argv)
    args.agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not args.agents or args.seeds < 1 or args.budget < 1 or args.repeats < 1 or args.depth < 0:
        p.error("give at least one agent, --seeds, --budget, --repeats >= 1 and --depth >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    return run_on_one_env(argv, __doc__.split("\n\n")[0], measure_overhead, format_overhead)


if __name__ == "__main__":
    sys.exit(main())
