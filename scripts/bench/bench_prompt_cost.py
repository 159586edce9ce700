"""What prompt building and answer parsing cost inside a search, by ablation, per agent, on any env.

Timing each prompt-spec call (``bench_overhead_breakdown``) charges the calls with the timer's own clock
reads, which cost more than a cheap call itself: ``time.process_time`` reads the kernel's CPU clock (about
1 us here), twice per timed call and again for each timed call inside it. This benchmark times whole
searches only. Each search runs as it is (``real``) and again with every outermost call of the prompt
spec's builders (``*_messages``, ``without_verdict``) and parsers (``parse_*``, ``canonical``,
``is_listed_or_templated``) and of ``SearchConfig._clean`` answered from a list recorded in an identical
earlier search (``stubbed``): the answers are rebuilt with new string objects before the search starts,
so what follows them works on fresh values as after a real call, and both runs go through the same thin
wrapper. ``real - stubbed`` is what building prompts and reading answers cost in the search, memory and
cache effects included. A search that does not make the recorded calls again (its tree differs) is refused.

CPU per expansion (``time.process_time`` around the search, the simulated LLM's own time subtracted as in
``bench_overhead``), medians of repetitions interleaved real, stubbed, real, ...; machine load printed.
Beside it, a figure the machine's load cannot move: the function calls the prompt layer makes per expansion
(``py calls/exp``: calls into ``treegym.agents.prompts`` from outside it plus every call its own code makes,
builtins included, not what the env's contract methods it calls do inside), counted by ``cProfile`` in the
recorded search.

    python -m treegym.scripts.bench.bench_prompt_cost --env treegym/ALFWorld-v0 [--depth 8] [--agents mcts,astar] [--repeats 3]
"""
from __future__ import annotations

import cProfile
import os
import pstats
import time
from typing import Any, Callable, Sequence

import gymnasium as gym

from treegym.agents import prompts as prompts_package
from treegym.agents.search import config as search_config
from treegym.scripts.bench.bench_overhead import AGENTS, LLM_SPEC, first_act, run_on_one_env, searching_agent, timed_llm
from treegym.scripts.bench.search_starts import StartState, start_states
from treegym.scripts.bench.bench_support import interleave, spread

MODES = ("real", "stubbed")
PROMPTS_DIR = os.path.dirname(os.path.abspath(prompts_package.__file__)) + os.sep


def prompt_layer_calls(profile: cProfile.Profile) -> int:
    """Function calls in ``profile`` made by the prompt layer's code, or into it from outside."""
    total = 0
    for (filename, _line, _name), (_cc, _nc, _tt, _ct, callers) in pstats.Stats(profile).stats.items():
        inside = filename.startswith(PROMPTS_DIR)
        for (caller, _cline, _cname), counts in callers.items():
            if inside or caller.startswith(PROMPTS_DIR):
                total += counts[0]
    return total


class SearchMismatch(RuntimeError):
    """A stubbed search made other calls than the recorded one: the search is not deterministic."""


def _timed_names(prompts: Any) -> list[str]:
    """The prompt spec's methods a search calls to build prompts and read answers."""
    return [n for n in dir(type(prompts)) if n.endswith("_messages") or n == "without_verdict"
            or n.startswith("parse_") or n in ("canonical", "is_listed_or_templated")]


def fresh(value: Any) -> Any:
    """``value`` rebuilt with new string objects (no cached hash), as a real call returns new text."""
    kind = type(value)
    if kind is str:
        return (value + ".")[:-1] if value else value
    if kind is list:
        return [fresh(v) for v in value]
    if kind is tuple:
        return tuple(fresh(v) for v in value)
    if kind is dict:
        return {fresh(k): fresh(v) for k, v in value.items()}
    return value


class _Calls:
    """The thin wrapper both runs go through: records, passes through, or answers from the record."""

    def __init__(self) -> None:
        self.mode = "record"
        self.log: list[Any] = []
        self.pos = 0
        self._inside = False

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if self._inside:  # a call from inside a timed one: part of it
                return fn(*args, **kwargs)
            if self.mode == "stubbed":
                if self.pos >= len(self.log):
                    raise SearchMismatch("the stubbed search made more prompt calls than the recorded one")
                self.pos += 1
                return self.log[self.pos - 1]
            self._inside = True
            try:
                out = fn(*args, **kwargs)
            finally:
                self._inside = False
            if self.mode == "record":
                self.log.append(out)
            self.pos += 1
            return out
        return call


def _search(env: gym.Env, env_id: str, state: StartState, agent: str, llm_spec: str, budget: int, calls: _Calls,
            profile: cProfile.Profile | None = None) -> tuple[float, int]:
    """One search from ``state`` (reached by reset + replay, untimed) with the prompt calls going through
    ``calls``: (CPU seconds without the LLM's, expansions); ``profile`` (if any) profiles the search."""
    llm = timed_llm(llm_spec, env_id)
    policy, obs, info = searching_agent(env, env_id, state, agent, llm, budget)
    for name in _timed_names(policy.prompts):
        setattr(policy.prompts, name, calls.wrap(getattr(policy.prompts, name)))
    calls.pos = 0
    c0 = time.process_time()
    if profile is not None:
        profile.runcall(first_act, policy, obs, info)
    else:
        first_act(policy, obs, info)
    seconds = time.process_time() - c0 - llm.cpu_seconds
    return seconds, int(policy.stats().get("search_expansions", 0))


def measure_prompt_cost(make_env: Callable[[], gym.Env], env_id: str, *, agents: Sequence[str] = AGENTS,
                        seeds: Sequence[int] = (0, 1), budget: int = 40, repeats: int = 3,
                        llm_spec: str = LLM_SPEC, depth: int = 0) -> dict[str, dict[str, Any]]:
    """Per agent: ``real`` and ``stubbed`` (CPU seconds per expansion, spreads over searches), ``cost``
    (their medians' difference), ``calls`` (prompt calls per expansion) and ``py_calls`` (the prompt layer's
    function calls per expansion, :func:`prompt_layer_calls`), or ``error``; each search starts
    ``depth`` actions into its episode (``bench_overhead.start_states``)."""
    env = make_env()
    states = start_states(env, seeds, depth)
    calls = _Calls()
    clean = search_config.SearchConfig.__dict__["_clean"]
    search_config.SearchConfig._clean = calls.wrap(clean)
    rows = {a: {"real": [], "stubbed": [], "calls": [], "py_calls": []} for a in agents}
    errors: dict[str, str] = {}
    recorded: dict[tuple[str, int], tuple[list[Any], int]] = {}

    def arm(agent: str, seed: int, mode: str) -> Callable[[int], None]:
        def run(_rep: int) -> None:
            if agent in errors:
                return
            log, expansions = recorded[(agent, seed)]
            calls.mode, calls.log = mode, (fresh(log) if mode == "stubbed" else log)
            try:
                seconds, n = _search(env, env_id, states[seed], agent, llm_spec, budget, calls)
                if calls.pos != len(log) or n != expansions:
                    raise SearchMismatch(f"the {mode} search made {calls.pos} prompt calls and {n} expansions, "
                                         f"the recorded one {len(log)} and {expansions}")
            except Exception as exc:  # noqa: BLE001 - one agent failing on one env must not void the others
                errors[agent] = f"{type(exc).__name__}: {exc}"
                return
            rows[agent][mode].append(seconds / max(1, n))
        return run

    try:
        for agent in agents:
            for seed in seeds:
                try:
                    calls.mode, calls.log = "real", []
                    _search(env, env_id, states[seed], agent, llm_spec, budget, calls)  # first-search caches, not counted
                    calls.mode, calls.log = "record", []
                    profile = cProfile.Profile()
                    _, n = _search(env, env_id, states[seed], agent, llm_spec, budget, calls, profile)
                    recorded[(agent, seed)] = (calls.log, n)
                    rows[agent]["calls"].append(len(calls.log) / max(1, n))
                    rows[agent]["py_calls"].append(prompt_layer_calls(profile) / max(1, n))
                except Exception as exc:  # noqa: BLE001 - as above
                    errors[agent] = f"{type(exc).__name__}: {exc}"
        interleave([arm(a, s, m) for a in agents for s in seeds for m in MODES if (a, s) in recorded], repeats)
    finally:
        search_config.SearchConfig._clean = clean
        env.close()
    out: dict[str, dict[str, Any]] = {}
    for agent, r in rows.items():
        if agent in errors or not r["real"] or not r["stubbed"]:
            out[agent] = {"error": errors.get(agent, "no searches")}
            continue
        real, stubbed = spread(r["real"]), spread(r["stubbed"])
        out[agent] = {"real": real, "stubbed": stubbed, "cost": real["median"] - stubbed["median"],
                      "calls": spread(r["calls"])["median"], "py_calls": spread(r["py_calls"])["median"]}
    return out


def format_prompt_cost(env_id: str, result: dict[str, dict[str, Any]]) -> str:
    lines = [f"{env_id}: framework CPU per expansion in us (LLM time left out), medians; real - stubbed = prompt "
             "building and answer parsing",
             f"  {'agent':<7} {'real':>8} {'stubbed':>8} {'prompts':>8} {'calls/exp':>10} {'py calls/exp':>13}"]
    for agent, a in result.items():
        if "error" in a:
            lines.append(f"  {agent:<7} not measured: {a['error']}")
            continue
        lines.append(f"  {agent:<7} {a['real']['median'] * 1e6:>8.1f} {a['stubbed']['median'] * 1e6:>8.1f} "
                     f"{a['cost'] * 1e6:>8.1f} {a['calls']:>10.2f} {a['py_calls']:>13.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return run_on_one_env(argv, __doc__.split("\n\n")[0], measure_prompt_cost, format_prompt_cost)


if __name__ == "__main__":
    raise SystemExit(main())
