"""Benchmark: the embedded local LLM (SmolLM2-135M) on each installed llama.cpp runtime, in one run.

For every runtime installed here (xllamacpp, the default; llama-cpp-python, the compiled
fallback), each with its own server on 127.0.0.1 and the same thread count, it measures:

* ``start_s``      - cold start: a new server until ``/v1/models`` answers;
* ``ttft_s``       - time to first token: a streamed chat with a ~``--prompt-words``-word prompt
  (prompt processing included), until the first content chunk arrives;
* ``gen_tok_s``    - generation speed: completion tokens / seconds of a free-text chat
  (``--gen-tokens`` at most, short prompt);
* ``grammar_calls_s`` - grammar-constrained calls per second: ``LocalLLM.complete`` with the
  48 first moves (every ordered pair and operation) of a Game of 24 puzzle as ``choices`` (a GBNF grammar), as the agents
  send them (every answer is checked to be one of the choices), each prompt new (a random nonce first);
* ``search_calls_s`` - the same, as a search sends them: the Game of 24 ReAct prompt of the prompt
  spec (fixed instructions first) at the nodes of a short random walk, several calls per node, so
  the server's prompt cache reuses the shared start;
* ``..._full`` - the two call rates with the old settings: the grammar holds the model to the whole
  choices instead of their decisive prefixes (``TREEGYM_LOCAL_SHORT_CHOICES=0``).

Every figure is the median over ``--repeats`` repetitions; the repetitions are interleaved
(runtime A, runtime B, A, B, ...) so that a change in machine load hits both alike. Every
prompt starts with a random nonce, so no server can reuse an earlier prompt from its cache.
Ratios are printed against the first runtime, and the new call settings against the old. The load average is printed before and after:
on a shared 2-core machine, compare runtimes within one run, never across runs.

    python scripts/bench/bench_local_llm.py [--runtimes xllamacpp,llama-cpp-python] [--threads 1]
                                      [--repeats 3] [--calls 8]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

from treegym.agents.llm.request import Request
from treegym.agents.llm.local.llm import LocalLLM
from treegym.agents.llm.local.runtime import LocalLLMUnavailable, choose_runtime, installed_runtimes, runtime_version
from treegym.agents.llm.local.server import LocalLLMServer, shutdown
import treegym.envs  # noqa: F401 - registers the envs
from treegym.agents.prompts import get_prompts
from treegym.agents.prompts.spec import Step

LOREM = ("the quick brown fox jumps over the lazy dog while a small model reads a long prompt about "
         "forkable environments tree search agents and the game of twenty four ").split()


def nonce() -> str:
    return f"[{random.randrange(10**9)}] "


def game24_choices() -> list[str]:
    """The legal first moves of 4 5 6 10, worded as the Game of 24 env lists them."""
    nums, out = [4, 5, 6, 10], []
    for i, a in enumerate(nums):
        for j, b in enumerate(nums):
            if i == j:
                continue
            for op, r in (("+", a + b), ("-", a - b), ("*", a * b), ("/", a / b)):
                rest = sorted([n for k, n in enumerate(nums) if k not in (i, j)] + [r])
                r_text = str(int(r)) if float(r).is_integer() else f"{a}/{b}"
                out.append(f"{a} {op} {b} = {r_text} (left: {' '.join(f'{x:g}' for x in rest)})")
    return list(dict.fromkeys(out))


def cold_start_seconds(runtime: str, threads: int) -> float:
    server = LocalLLMServer(runtime=runtime, n_threads=threads)
    began = time.perf_counter()
    server.start()
    took = time.perf_counter() - began
    server.stop()
    return took


def ttft_seconds(llm: Any, words: int) -> float | None:
    """Seconds until the first streamed content chunk of a ~``words``-word prompt."""
    text = " ".join(random.choice(LOREM) for _ in range(words))
    began = time.perf_counter()
    stream = llm._client.chat.completions.create(
        model=llm.model, messages=[{"role": "user", "content": nonce() + text + "\nSummarize it."}],
        max_tokens=8, temperature=0.0, stream=True)
    try:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                return time.perf_counter() - began
    finally:
        stream.close()
    return None


def generation_rate(llm: Any, max_tokens: int) -> float | None:
    msgs = [{"role": "user", "content": nonce() + "Write a long, detailed story about a dragon who learns arithmetic."}]
    before = llm.usage.completion_tokens
    began = time.perf_counter()
    llm.complete(Request(msgs, max_tokens=max_tokens, temperature=0.0))
    took = time.perf_counter() - began
    tokens = llm.usage.completion_tokens - before
    return tokens / took if tokens else None


def search_calls_per_second(llm: Any, calls: int, per_node: int = 3) -> float:
    """Constrained calls/s with the Game of 24 ReAct prompt along a random walk (``per_node`` calls a node)."""
    import gymnasium as gym

    prompts, env = get_prompts("treegym/Game24-v0"), gym.make("treegym/Game24-v0")
    obs, _ = env.reset(seed=random.randrange(10**6))
    history: list[Step] = []
    took = 0.0
    for i in range(calls):
        if i and i % per_node == 0:
            action = random.choice(list(obs["valid_actions"]))
            obs, _, done, _, _ = env.step(action)
            history.append(Step(action, str(obs.get("text", ""))))
            if done or not obs.get("valid_actions"):
                obs, _ = env.reset(seed=random.randrange(10**6))
                history = []
        messages = prompts.react_messages(obs, history)
        choices = list(obs["valid_actions"])
        began = time.perf_counter()
        [answer] = llm.complete(Request(messages, temperature=2.0, choices=choices))
        took += time.perf_counter() - began
        if answer not in choices:
            raise AssertionError(f"constrained answer {answer!r} is not one of the choices")
    env.close()
    return calls / took


def grammar_calls_per_second(llm: Any, calls: int) -> float:
    choices = game24_choices()
    began = time.perf_counter()
    for i in range(calls):
        msgs = [{"role": "user", "content": nonce() + "Use 4 5 6 10 to make 24. Your first step?"}]
        [answer] = llm.complete(Request(msgs, temperature=0.7, choices=choices, seed=i))
        if answer not in choices:
            raise AssertionError(f"constrained answer {answer!r} is not one of the choices")
    return calls / (time.perf_counter() - began)


MEASURES = ("start_s", "ttft_s", "gen_tok_s", "grammar_calls_s_full", "grammar_calls_s", "search_calls_s_full",
            "search_calls_s")
HIGHER_IS_BETTER = {"start_s": False, "ttft_s": False, "gen_tok_s": True, "grammar_calls_s_full": True,
                    "grammar_calls_s": True, "search_calls_s_full": True, "search_calls_s": True}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runtimes", default="", help="comma list (default: every installed runtime, default first)")
    ap.add_argument("--threads", type=int, default=1, help="CPU threads per server (default 1, the library default)")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repetitions per figure (median)")
    ap.add_argument("--calls", type=int, default=8, help="constrained calls per repetition")
    ap.add_argument("--gen-tokens", type=int, default=128)
    ap.add_argument("--prompt-words", type=int, default=300)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per request before giving up")
    args = ap.parse_args(argv)

    try:
        runtimes = [choose_runtime(r) for r in args.runtimes.split(",") if r.strip()] or installed_runtimes()
    except (LocalLLMUnavailable, ValueError) as exc:
        print(f"bench_local_llm: {exc}", file=sys.stderr)
        return 2
    if not runtimes:
        print("bench_local_llm: no llama.cpp runtime is installed (pip install 'treegym[local]')", file=sys.stderr)
        return 2
    print(f"runtimes: {', '.join(runtime_version(r) for r in runtimes)}; threads={args.threads}; "
          f"load average before: {os.getloadavg()[0]:.2f} (2 cores shared: other work skews these numbers)")
    samples: dict[str, dict[str, list[float]]] = {r: {m: [] for m in MEASURES} for r in runtimes}
    try:
        llms, old = {}, {}
        for r in runtimes:
            llms[r] = LocalLLM(runtime=r, n_threads=args.threads, timeout=args.timeout, max_retries=0)
            old[r] = LocalLLM(runtime=r, n_threads=args.threads, timeout=args.timeout, max_retries=0,
                              short_choices=False)  # the same server, the old choice grammar
            llms[r].complete(Request([{"role": "user", "content": "warm up"}], max_tokens=4))
        for rep in range(args.repeats):
            print(f"repetition {rep + 1}/{args.repeats} ...", file=sys.stderr)
            for r in runtimes:  # interleaved: each repetition measures every runtime once
                llm, got = llms[r], samples[r]
                got["start_s"].append(cold_start_seconds(r, args.threads))
                value = ttft_seconds(llm, args.prompt_words)
                if value is not None:
                    got["ttft_s"].append(value)
                value = generation_rate(llm, args.gen_tokens)
                if value is not None:
                    got["gen_tok_s"].append(value)
                # old and new settings interleaved, in alternating order
                pairs = [("_full", old[r]), ("", llm)][::1 if rep % 2 == 0 else -1]
                for suffix, client in pairs:
                    got["grammar_calls_s" + suffix].append(grammar_calls_per_second(client, args.calls))
                for suffix, client in pairs:
                    got["search_calls_s" + suffix].append(search_calls_per_second(client, args.calls))
    except LocalLLMUnavailable as exc:
        print(f"bench_local_llm: {exc}", file=sys.stderr)
        return 2
    finally:
        shutdown()

    def med(r: str, m: str) -> float | None:
        return statistics.median(samples[r][m]) if samples[r][m] else None

    print("| runtime | " + " | ".join(MEASURES) + " |")
    print("|---|" + "---|" * len(MEASURES))
    for r in runtimes:
        cells = ["n/a" if med(r, m) is None else f"{med(r, m):.2f}" for m in MEASURES]
        print(f"| {runtime_version(r)} | " + " | ".join(cells) + " |")
    base = runtimes[0]
    for r in runtimes[1:]:
        parts = []
        for m in MEASURES:
            a, b = med(r, m), med(base, m)
            if a and b:
                better = (a / b) if HIGHER_IS_BETTER[m] else (b / a)
                parts.append(f"{m} {better:.2f}x")
        print(f"{r} vs {base} (above 1x: {r} is better): " + ", ".join(parts))
    for r in runtimes:
        parts = [f"{m} {med(r, m) / med(r, m + '_full'):.2f}x" for m in ("grammar_calls_s", "search_calls_s")
                 if med(r, m) and med(r, m + "_full")]
        print(f"{r}: decisive-prefix grammar vs whole-choice grammar (above 1x: faster now): " + ", ".join(parts))
    print(f"medians of {args.repeats} interleaved repetitions; load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
