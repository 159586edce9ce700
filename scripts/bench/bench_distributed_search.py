"""One search spread over Ray workers against a 100 ms endpoint: wall time with 1, 4, 16 and 32 workers.

A real OpenAI-compatible server (``tests/support/chat_server.py``, in its own process) answers every
request after ``--latency`` seconds: Game of 24 proposals for the propose prompt (the pairs of the
numbers left, added, subtracted and multiplied), and a value word picked by a hash of the prompt, so
the same state always gets the same answer and every run grows the same tree. The agent is ``bfs``
(ToT: ``--n-propose`` proposals per state, ``--breadth`` kept, ``--max-depth`` levels, 3 value calls
per state) through the real ``openai`` client, at a fixed ``--budget`` that does not bind. ``--agent mcts``
(or ``lats``): ``--n-iters`` simulations, ``--n-propose`` children per expansion, ``--max-depth`` levels,
run on the workers with virtual loss; ``--agent elo``: ``--n-iters`` explorations, each new sequence
judged against ``--comparisons`` earlier ones at once (``agents/search/distributed_sims.py``); ``--agent
astar`` (ToolChain*): ``--n-iters`` expansions of ``--n-propose`` ReAct samples each, the best open nodes
one per worker at once. For A* the endpoint answers the i-th of a request's ``--n-propose`` samples with
the i-th of the state's steps from a hash of the prompt (the same samples on every run), and an
imagination prompt with 0-3 of the state's steps (``impossible`` for 0), also by a hash.

Per repetition the modes run interleaved: in-process (``search_workers=0``), then each worker count
(``search_workers=N``; the workers are started once per mode, before the timed runs). Printed: the
median wall time of one search, the speed-up against the in-process median of the same run, the
tree's size and calls (equal to the in-process search's, else the row says so), and the machine load.

    python -m treegym.scripts.bench.bench_distributed_search --workers 1,4,16,32 --repeat 3
    python -m treegym.scripts.bench.bench_distributed_search --agent mcts --workers 1,4,16,32 --repeat 3
    python -m treegym.scripts.bench.bench_distributed_search --agent astar --workers 1,4,16,32 --repeat 3

With more than one worker an MCTS tree is not the in-process one (a round's leaves are selected without
each other's results): its rows say ``differs (virtual loss)``, and its size and calls are printed. An
A* tree with more than one worker is not either (a batch of best open nodes is chosen before any of
them is expanded): ``differs (batched best-first)``.
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .bench_throughput import start_endpoint

REPO = Path(__file__).resolve().parents[2]
ENV_ID = "treegym/Game24-v0"
VALUES = ("sure", "likely", "impossible")
#: how many ReAct samples an A* request asks for (``--n-propose``), passed to the endpoint process
SAMPLES_VARIABLE = "TREEGYM_BENCH_REACT_SAMPLES"
_asked: dict[str, int] = {}  # ReAct prompt -> samples answered so far (the endpoint's threads share it)
_asked_lock = threading.Lock()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", default="1,4,16,32", help="comma-separated worker counts")
    p.add_argument("--repeat", type=int, default=3, help="timed searches per mode (interleaved)")
    p.add_argument("--latency", type=float, default=0.1, help="seconds the endpoint waits before answering")
    p.add_argument("--budget", type=int, default=400, help="LLM calls per search (should not bind)")
    p.add_argument("--n-propose", type=int, default=8)
    p.add_argument("--breadth", type=int, default=5)
    p.add_argument("--max-depth", type=int, default=3)
    p.add_argument("--agent", default="bfs", choices=("bfs", "mcts", "lats", "elo", "astar"),
                   help="the search algorithm")
    p.add_argument("--n-iters", type=int, default=32, help="mcts/lats simulations, elo explorations, astar expansions")
    p.add_argument("--comparisons", type=int, default=4, help="elo: earlier sequences judged per new one")
    p.add_argument("--ray-address", default=None, help="a running Ray cluster (default: a local Ray)")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # internal: run the endpoint
    return p.parse_args(argv)



def _steps(numbers: list[int]) -> list[str]:
    """Whole-number steps on two of ``numbers`` in the env's action form (``a op b = c (left: ...)``)."""
    out = []
    for i, j in itertools.permutations(range(len(numbers)), 2):
        a, b = numbers[i], numbers[j]
        rest = [n for k, n in enumerate(numbers) if k not in (i, j)]
        for op, value in (("+", a + b), ("-", a - b), ("*", a * b)):
            if op != "-" and a < b:
                continue
            left = " ".join(str(n) for n in sorted(rest + [value]))
            out.append(f"{a} {op} {b} = {value} (left: {left})")
    return out


def _hash(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def reply(messages: list[dict]) -> str:
    """The endpoint's answer: proposals for a propose prompt, a step for each of an A* ReAct request's samples,
    0-3 steps for an A* imagination prompt, a value word (hash of the prompt) otherwise."""
    text = str(messages[-1].get("content", ""))
    found = re.findall(r"Input: ([-\d ]+)", text) or re.findall(r"Numbers left: ([-\d ]+)", text)
    numbers = [int(x) for x in found[-1].split()] if found else []
    steps = _steps(numbers) or ["impossible"]
    start = _hash(text) % len(steps)
    if "Possible next steps" in text:
        return "\n".join((steps[start:] + steps[:start])[:8])
    if text.endswith("Reply with Thought: ... and Action: ..."):
        # the server asks once per sample: the i-th sample of a request is the i-th step after the hash's
        with _asked_lock:
            i = _asked.get(text, 0)
            _asked[text] = i + 1
        return f"Thought: combine two numbers.\nAction: {steps[(start + i % react_samples()) % len(steps)]}"
    if text.endswith("Remaining actions:"):
        n = _hash(text + "#") % 4
        return "\n".join((steps[start:] + steps[:start])[:n]) if n else "impossible"
    return VALUES[_hash(text) % 3]


def react_samples() -> int:
    """The ReAct samples per A* request (``--n-propose``, from the bench process; default 8)."""
    return int(os.environ.get(SAMPLES_VARIABLE, "8"))


def serve(latency: float) -> None:
    """The endpoint process: print the base URL, serve until stdin closes."""
    sys.path.insert(0, str(REPO / "tests"))
    from support.chat_server import ChatServer

    with ChatServer(reply=reply, models=None, latency=latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def agent_options(args: argparse.Namespace) -> dict[str, Any]:
    """The search's options for ``--agent`` (besides budget and seed)."""
    if args.agent == "bfs":
        return dict(n_propose=args.n_propose, breadth=args.breadth, max_depth=args.max_depth)
    if args.agent == "elo":
        return dict(explorations=args.n_iters, comparisons=args.comparisons)
    if args.agent == "astar":
        return dict(iterations=args.n_iters, k=args.n_propose)
    return dict(n_iters=args.n_iters, n_actions=args.n_propose, depth_limit=args.max_depth)


def one_search(policy: Any) -> tuple[float, list, int]:
    """(wall seconds, the tree's (id, parent, action) rows, LLM calls) of one search from the task's start."""
    import gymnasium as gym

    env = gym.make(ENV_ID)
    try:
        obs, info = env.reset(seed=0)
        policy.reset()
        policy.bind(env)
        start = time.perf_counter()
        policy.run_search(obs, info)
        seconds = time.perf_counter() - start
        rows = [(n["id"], n["parent"], n["action"]) for n in policy.result.tree.to_json()["nodes"]]
        return seconds, rows, policy.stats()["search_llm_calls"]
    finally:
        env.close()


def _expected_difference(agent: str) -> str:
    """What a tree grown by several workers says where it is not the in-process one."""
    return {"mcts": "differs (virtual loss)", "lats": "differs (virtual loss)",
            "astar": "differs (batched best-first)"}.get(agent, "DIFFERS")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.serve:
        serve(args.latency)
        return
    # lazy: the --serve child (the endpoint) starts without the env and agent packages
    import treegym.envs  # noqa: F401
    from treegym.agents.llm.openai_client import OpenAICompatibleLLM  # lazy: as above
    from treegym.agents.registry import make_agent  # lazy: as above

    counts = [int(x) for x in args.workers.split(",")]
    os.environ[SAMPLES_VARIABLE] = str(args.n_propose)  # the endpoint process inherits it
    proc, url = start_endpoint(args.latency, "treegym.scripts.bench.bench_distributed_search")
    try:
        llm = OpenAICompatibleLLM("bench", base_url=url, api_key="EMPTY", timeout=30.0)
        opts = dict(budget=args.budget, seed=0, **agent_options(args))
        policies = {0: make_agent(args.agent, ENV_ID, llm, **opts)}
        for n in counts:
            policies[n] = make_agent(args.agent, ENV_ID, llm, search_workers=n, ray_address=args.ray_address, **opts)
        for policy in policies.values():  # start the workers and warm the env (not timed)
            one_search(policy)
        times: dict[int, list[float]] = {n: [] for n in policies}
        shapes: dict[int, tuple[list, int]] = {}
        loads = []
        for _ in range(args.repeat):
            for n, policy in policies.items():
                loads.append(os.getloadavg()[0])
                seconds, rows, calls = one_search(policy)
                times[n].append(seconds)
                shapes[n] = (rows, calls)
        base = statistics.median(times[0])
        settings = " ".join(f"{k}={v}" for k, v in agent_options(args).items())
        print(f"{args.agent} on {ENV_ID}: {settings} "
              f"budget={args.budget}, endpoint latency {args.latency * 1000:.0f} ms, {args.repeat} interleaved "
              f"repetitions, load {statistics.median(loads):.2f} (median of 1-min loadavg, {min(loads):.2f}-{max(loads):.2f})")
        print("timed: one search (the policy's run_search); not timed: starting the endpoint, Ray, the workers and "
              "the budget actor (one warm-up search per mode first)")
        print(f"{'workers':>8} {'median s':>9} {'speed-up':>9} {'nodes':>6} {'calls':>6}  tree")
        for n in policies:
            rows, calls = shapes[n]
            same = "in-process" if n == 0 else ("same as in-process" if shapes[n] == shapes[0] else
                                                (_expected_difference(args.agent) if n > 1 else "DIFFERS"))
            label = "in-proc" if n == 0 else str(n)
            median = statistics.median(times[n])
            print(f"{label:>8} {median:9.2f} {base / median:8.1f}x {len(rows):6d} {calls:6d}  {same}")
        for policy in policies.values():
            policy.close()
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
