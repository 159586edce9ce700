"""The framework's cost of one LLM call from a search hook, beside the env's own cost of one expansion.

A :class:`~treegym.agents.search.config.SearchConfig` on the env's ``reset(seed=0)`` state (with a
child and a grandchild expanded) sends through the agents' call budget to the offline simulated
LLM (``synthetic:...``, as ``bench_overhead``), wrapped in a
:class:`~treegym.scripts.bench.bench_support.TimedLLM` whose time is subtracted. Each hook is called
``--calls`` times on the grandchild in a row (its saved-tree excerpts are full by then, as on any node
past its first eight exchanges), CPU time per call minus the LLM's: the request path (typed request,
budget, state references, trajectory, the hook's own work) with the prompt building and answer parsing
the hook does. ``compare`` is two LLM calls. ``path`` is the request path alone, one LLM call without a
hook around it: an imagine request on the grandchild (its messages built once, beforehand) made with
``ImagineRequest.prepared`` and sent through the budget and the timed LLM (the wrapper's work outside
its clock readings is the framework's, as in every row).

The baseline, interleaved with the hooks (baseline, hooks, baseline, hooks, ...), is
``bench_overhead``'s: restore the start state (the env holding another), step, snapshot, every restore
checked against the start observation. Figures are medians of ``--repeats`` interleaved repetitions
(minimum beside them), the ratio hook / baseline, machine load before and after.

    python -m treegym.scripts.bench.bench_request_path --env treegym/ALFWorld-v0 [--calls 2000] [--repeats 7]
"""
from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import gymnasium as gym

from treegym.agents.llm.budget import BudgetedLLM
from treegym.agents.llm_specs import make_llm
from treegym.agents.prompts import get_prompts
from treegym.agents.requests import ImagineRequest
from treegym.agents.search.config import SearchConfig
from treegym.agents.search.tree import SearchTree
from treegym.scripts.bench.bench_overhead import LLM_SPEC, baseline_arm
from treegym.scripts.bench.search_starts import start_states
from treegym.scripts.bench.bench_support import Samples, TimedLLM, interleave, load_text, spread

HOOKS = ("value", "react", "propose", "compare", "imagine", "path")


def _hooks(env: gym.Env, env_id: str, llm_spec: str) -> tuple[dict[str, Callable[[], Any]], TimedLLM]:
    """The hook calls to time (and the bare request path), on a grandchild of the ``reset(seed=0)`` state,
    and the timed LLM."""
    obs, info = env.reset(seed=0)
    timed = TimedLLM(make_llm(llm_spec, env_id=env_id))
    cfg = SearchConfig(env, get_prompts(env_id), BudgetedLLM(timed))
    root = cfg.make_root(obs, info)
    cfg.tree = SearchTree(root)
    valid = list(obs.get("valid_actions") or ())
    if not valid:
        raise SystemExit(f"{env_id}: reset(seed=0) offers no valid_actions to expand")
    child = cfg.expand(root, valid[0])
    other = cfg.expand(root, valid[1]) if len(valid) > 1 else child
    below = list(child.observation.get("valid_actions") or ())
    node = cfg.expand(child, below[0]) if below and not child.terminal else child
    messages = cfg.prompts.imagine_messages(node.observation, node.trajectory())
    return {"value": lambda: cfg.value(node), "react": lambda: cfg.react(node),
            "propose": lambda: cfg.propose(node, 3), "compare": lambda: cfg.compare(node, other),
            "imagine": lambda: cfg.imagine(node),
            "path": lambda: cfg.llm.complete(ImagineRequest.prepared(messages, env, cfg._states(node)))}, timed


def measure(env_id: str, *, calls: int = 2000, repeats: int = 7, llm_spec: str = LLM_SPEC) -> dict[str, Any]:
    """``{"baseline": spread, "hooks": {hook: spread}}`` in seconds (per expansion; per hook call, the
    LLM's time left out)."""
    env = gym.make(env_id)
    try:
        samples = Samples()
        baseline = baseline_arm(env, start_states(env, (0,), 0)[0], samples)
        hooks, timed = _hooks(env, env_id, llm_spec)
        per_call: dict[str, list[float]] = {h: [] for h in hooks}

        def hook_arm(rep: int) -> None:
            for name, call in hooks.items():
                call()  # the node's excerpts and the prompt spec's memos as in the steady state
                c0, llm0 = time.process_time(), timed.cpu_seconds
                for _ in range(calls):
                    call()
                per_call[name].append((time.process_time() - c0 - (timed.cpu_seconds - llm0)) / calls)

        interleave([lambda rep: baseline(), hook_arm], repeats)
        return {"baseline": spread(samples.cpu["env"]), "hooks": {h: spread(v) for h, v in per_call.items()}}
    finally:
        env.close()


def format_result(env_id: str, r: dict[str, Any]) -> str:
    base = r["baseline"]["median"]
    lines = [f"{env_id}: env restore+step+snapshot {base * 1e6:.1f} us; framework CPU per hook call "
             f"(LLM time left out), median [min] of {r['baseline']['n']} interleaved repetitions",
             f"  {'hook':<8} {'us':>7} {'[min]':>8} {'/ env':>7}"]
    for hook, s in r["hooks"].items():
        lines.append(f"  {hook:<8} {s['median'] * 1e6:7.2f} {s['min'] * 1e6:8.2f} {s['median'] / base:6.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="treegym/Game24-v0", help="env id (default Game24)")
    p.add_argument("--calls", type=int, default=2000, help="calls per hook per repetition (default 2000)")
    p.add_argument("--repeats", type=int, default=7, help="interleaved repetitions (default 7)")
    p.add_argument("--llm", default=LLM_SPEC)
    args = p.parse_args(argv)
    if args.calls < 1 or args.repeats < 1:
        p.error("--calls and --repeats must be >= 1")
    print(f"before: {load_text()}")
    print(format_result(args.env, measure(args.env, calls=args.calls, repeats=args.repeats, llm_spec=args.llm)))
    print(f"after: {load_text()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
