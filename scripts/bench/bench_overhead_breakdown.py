"""Where a search expansion's framework time goes, per agent, on any env: the breakdown behind
``bench_overhead``'s ratios.

Each agent searches from the start state of ``reset(seed)`` (``--depth 0``, the default) or from
the state ``depth`` seeded random valid actions into the episode, with the offline simulated LLM, as in
:mod:`~treegym.scripts.bench.bench_overhead` (same start states, same check that each search started
there), twice per repetition (interleaved): once plain (the
framework's CPU per expansion, as ``bench_overhead`` reports it) and once with the search's parts
timed. Timing is exclusive: a timed part that calls another stops its own clock until the inner
one returns, so the parts add up to the whole search. The parts:

* ``env step``: the env's ``step`` (in an expansion, and any replay the snapshot store does);
* ``restore+snap``: the snapshot store's restores, snapshots and releases;
* ``prompt build``: the prompt spec's ``*_messages`` and ``without_verdict``;
* ``parse``: the prompt spec's ``parse_*``, ``canonical``, ``is_listed_or_templated`` and the search
  config's ``_clean`` (valid-action filtering);
* ``request path``: what the search config's LLM hooks (``propose``, ``value``, ...) spend beyond
  those: typed and transport requests, the call budget, state references, trajectories;
* ``telemetry``, ``_note`` (the saved tree's LLM excerpts), ``expand`` (the node and tree
  bookkeeping of ``SearchConfig.expand`` beyond the env);
* ``algorithm``: the rest of ``search()`` (the algorithm's own loops and node updates);
* ``outside``: the policy's ``act`` beyond ``search()`` (the search's setup and its result).

The simulated LLM's own time is measured and left out, as in ``bench_overhead``: everything inside its
methods (``complete`` and the budget's ``calls_needed`` / ``last_cost``), the env steps and prompt-spec
calls it makes to find the truth included (before, those counted as the framework's ``env step`` and
``parse``, so the parts overstated the env's share and the timed search the plain one: on WebShop
MCTS, ``env step`` 170 -> 89 us per expansion and timed 411 -> 330 us against 300 plain). The timers cost
something themselves (two clock reads and a few list operations per timed call), so the timed
search is dearer than the plain one; both figures are printed and the parts are best read as
shares. CPU time (``time.process_time``), medians over searches, machine load printed.

    python -m treegym.scripts.bench.bench_overhead_breakdown --env treegym/ALFWorld-v0 [--depth 8] [--agents mcts,bfs]
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import gymnasium as gym

from treegym.agents.search import config as search_config, snapshot_store
from treegym.agents.search.telemetry import SearchTelemetry
from treegym.scripts.bench.bench_overhead import AGENTS, LLM_SPEC, first_act, run_on_one_env, searching_agent, timed_llm
from treegym.scripts.bench.search_starts import StartState, check_search_start, start_states
from treegym.scripts.bench.bench_rollback import RollbackRefused
from treegym.scripts.bench.bench_support import interleave, spread

PARTS = ("env step", "restore+snap", "prompt build", "parse", "request path", "telemetry", "_note", "expand",
         "algorithm", "outside")
HOOKS = ("propose", "sample_actions", "react", "compare", "value", "reflect", "imagine")


class ExclusiveClock:
    """CPU seconds per part, each part's time without the timed parts it called; except inside an
    ``opaque`` part, whose calls are all its own (the simulated LLM steps and restores the search's env
    and reads its prompt spec to find the truth: that is the LLM's time, not the env's or the parser's)."""

    def __init__(self, opaque: Sequence[str] = ("llm",)) -> None:
        self.seconds: dict[str, float] = {}
        self._stack: list[str] = []
        self._mark = 0.0
        self._opaque = frozenset(opaque)
        self._inside_opaque = 0

    def enter(self, part: str) -> None:
        now = time.process_time()
        if self._stack:
            top = self._stack[-1]
            self.seconds[top] = self.seconds.get(top, 0.0) + now - self._mark
        self._stack.append(part)
        self._mark = now

    @property
    def mark(self) -> float:
        """The CPU clock reading of the last part change."""
        return self._mark

    def leave(self) -> None:
        now = time.process_time()
        part = self._stack.pop()
        self.seconds[part] = self.seconds.get(part, 0.0) + now - self._mark
        self._mark = now

    def wrap(self, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        opaque = part in self._opaque

        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._inside_opaque:
                return fn(*args, **kwargs)
            self.enter(part)
            self._inside_opaque += opaque
            try:
                return fn(*args, **kwargs)
            finally:
                self._inside_opaque -= opaque
                self.leave()
        return timed


@contextmanager
def _patched(targets: list[tuple[Any, str, Callable[..., Any]]]) -> Iterator[None]:
    """Set ``owner.name = value`` for each target, and put the old attributes back afterwards."""
    missing = object()
    saved = [(owner, name, owner.__dict__.get(name, missing) if isinstance(owner, type) else
              vars(owner).get(name, missing)) for owner, name, _ in targets]
    try:
        for owner, name, value in targets:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, old in reversed(saved):
            if old is missing:
                delattr(owner, name)
            else:
                setattr(owner, name, old)


def _timed_targets(clock: ExclusiveClock, policy: Any, env: gym.Env, llm: Any) -> list[tuple[Any, str, Any]]:
    """What to time for one search of ``policy`` on ``env``: class attributes of the search layer,
    instance attributes of this env, prompt spec and LLM wrapper."""
    cfg = search_config.SearchConfig
    out: list[tuple[Any, str, Any]] = [(env, "step", clock.wrap("env step", env.step))]
    for name in ("restore", "snapshot", "release"):
        out.append((snapshot_store, name, clock.wrap("restore+snap", getattr(snapshot_store, name))))
    prompts = policy.prompts
    for name in dir(type(prompts)):
        if name.endswith("_messages") or name == "without_verdict":
            out.append((prompts, name, clock.wrap("prompt build", getattr(prompts, name))))
        elif name.startswith("parse_") or name in ("canonical", "is_listed_or_templated"):
            out.append((prompts, name, clock.wrap("parse", getattr(prompts, name))))
    out.append((cfg, "_clean", clock.wrap("parse", cfg._clean)))
    for name in HOOKS:
        if name in cfg.__dict__:
            out.append((cfg, name, clock.wrap("request path", cfg.__dict__[name])))
    out.append((cfg, "expand", clock.wrap("expand", cfg.expand)))
    out.append((cfg, "_note", staticmethod(clock.wrap("_note", cfg._note))))
    out.append((SearchTelemetry, "expanded", clock.wrap("telemetry", SearchTelemetry.expanded)))
    algorithm = type(policy.algorithm)
    out.append((algorithm, "search", clock.wrap("algorithm", algorithm.search)))
    for name in ("complete", "calls_needed", "last_cost"):  # what the budget calls on the LLM: the LLM's time
        if callable(getattr(llm, name, None)):
            out.append((llm, name, clock.wrap("llm", getattr(llm, name))))
    return out


def _search(env: gym.Env, env_id: str, state: StartState, agent: str, llm_spec: str, budget: int,
            clock: ExclusiveClock | None) -> tuple[float, int, dict[str, float]]:
    """One search from ``state``: (framework CPU seconds, expansions, seconds per part)."""
    llm = timed_llm(llm_spec, env_id)
    policy, obs, info = searching_agent(env, env_id, state, agent, llm, budget)
    if clock is None:
        c0 = time.process_time()
        first_act(policy, obs, info)
        total = time.process_time() - c0 - llm.cpu_seconds
        parts: dict[str, float] = {}
    else:
        with _patched(_timed_targets(clock, policy, env, llm)):
            clock.enter("outside")
            start = clock.mark
            try:
                first_act(policy, obs, info)
            finally:
                clock.leave()
                total = clock.mark - start  # the parts' clock: every instant of it is in exactly one part
        parts = dict(clock.seconds)
        clock.seconds.clear()
        total -= parts.pop("llm", 0.0)
    check_search_start(env, state, policy.result.tree.root)
    return total, int(policy.stats().get("search_expansions", 0)), parts


def measure_breakdown(make_env: Callable[[], gym.Env], env_id: str, *, agents: Sequence[str] = AGENTS,
                      seeds: Sequence[int] = (0, 1), budget: int = 40, repeats: int = 3,
                      llm_spec: str = LLM_SPEC, depth: int = 0) -> dict[str, Any]:
    """``{"depth", "depths", "agents"}``: the searches start ``depth`` actions into each episode
    (``bench_overhead.start_states``; ``depth`` is the shallowest start reached, ``depths`` per seed);
    per agent ``plain`` and ``timed`` (framework CPU seconds per expansion, spreads over searches) and
    ``parts`` (part -> median seconds per expansion of the timed searches), or ``error``. Raises
    ``RollbackRefused`` when a search did not start at its state."""
    env = make_env()
    clock = ExclusiveClock()
    rows: dict[str, dict[str, Any]] = {a: {"plain": [], "timed": [], "parts": {p: [] for p in PARTS}} for a in agents}
    errors: dict[str, str] = {}

    def arm(agent: str, seed: int, timed: bool) -> Callable[[int], None]:
        def run(_rep: int) -> None:
            if agent in errors:
                return
            try:
                total, expansions, parts = _search(env, env_id, states[seed], agent, llm_spec, budget,
                                                   clock if timed else None)
            except RollbackRefused:
                raise
            except Exception as exc:  # noqa: BLE001 - one agent failing on one env must not void the others
                errors[agent] = f"{type(exc).__name__}: {exc}"
                return
            if expansions and _rep >= 0:
                rows[agent]["timed" if timed else "plain"].append(total / expansions)
                for part in PARTS if timed else ():
                    rows[agent]["parts"][part].append(parts.get(part, 0.0) / expansions)
        return run

    try:
        states = start_states(env, seeds, depth)
        arms = [arm(a, s, timed) for a in agents for s in seeds for timed in (False, True)]
        for warm_up in arms:  # imports and first-call caches, not counted
            warm_up(-1)
        interleave(arms, repeats)
    finally:
        env.close()
    depths = {seed: len(state.actions) for seed, state in states.items()}
    out: dict[str, Any] = {"depth": min(depths.values()), "depths": depths, "agents": {}}
    for agent, r in rows.items():
        if agent in errors or not r["plain"]:
            out["agents"][agent] = {"error": errors.get(agent, "no expansions")}
            continue
        out["agents"][agent] = {"plain": spread(r["plain"]), "timed": spread(r["timed"]),
                      "parts": {p: spread(v)["median"] for p, v in r["parts"].items()}}
    return out


def format_breakdown(env_id: str, result: dict[str, Any]) -> str:
    head = f"  {'agent':<7} {'plain':>7} {'timed':>7}  " + " ".join(f"{p:>12}" for p in PARTS)
    depths = ", ".join(f"seed {s}: {d}" for s, d in result["depths"].items())
    lines = [f"{env_id}: searches from depth {result['depth']} ({depths}); framework CPU per expansion in us "
             "(LLM time left out), medians; parts of the timed searches", head]
    for agent, a in result["agents"].items():
        if "error" in a:
            lines.append(f"  {agent:<7} not measured: {a['error']}")
            continue
        lines.append(f"  {agent:<7} {a['plain']['median'] * 1e6:>7.1f} {a['timed']['median'] * 1e6:>7.1f}  "
                     + " ".join(f"{a['parts'][p] * 1e6:>12.1f}" for p in PARTS))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return run_on_one_env(argv, __doc__.split("\n\n")[0], measure_breakdown, format_breakdown)


if __name__ == "__main__":
    sys.exit(main())
