"""Benchmark: the embedded local LLM (llama.cpp server + SmolLM2-135M) on this machine.

For each thread count (default 1 and 2) it measures, in the same run:

* ``start_s``    - cold start of a ``LocalLLMServer`` until ``/v1/models`` answers (median of ``--repeats``);
* ``gen_tok_s``  - generation speed: completion tokens / seconds of a free-text chat (``--gen-tokens`` max);
* ``prompt_tok_s`` - prompt processing: prompt tokens / seconds of a ~``--prompt-words``-word prompt, 1 token out;
* ``step_s``     - seconds per ReAct step on Game24 (``ReactPolicy``, the agent the runner uses), with the
  answer constrained to the env's valid actions (GBNF) and, as the baseline, free text (``constrain=False``,
  up to 256 tokens, then parsed).

Every figure is a median over ``--repeats`` (``--steps`` for agent steps). Ratios are printed against the
1-thread server (threads) and against free text (constrained decoding). Prompts start with a random
nonce so llama.cpp's prompt cache cannot reuse an earlier request.

    python scripts/bench_local_llm.py [--threads 1,2] [--repeats 3] [--steps 6] [--timeout 300]

Note: with 2 threads llama.cpp slows down sharply when another process holds a core; the library
defaults to 1 thread (TREEGYM_LOCAL_THREADS) for that reason. Check ``uptime`` before trusting numbers.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any, Callable

LOREM = ("the quick brown fox jumps over the lazy dog while a small model reads a long prompt about "
         "forkable environments tree search agents and the game of twenty four ").split()


def median_of(fn: Callable[[], float | None], repeats: int) -> float | None:
    samples = [v for v in (fn() for _ in range(repeats)) if v is not None]
    return statistics.median(samples) if samples else None


def cold_start_seconds(threads: int) -> float:
    from treegym.agents.llm.local import LocalLLMServer

    server = LocalLLMServer(n_threads=threads)
    began = time.perf_counter()
    server.start()
    took = time.perf_counter() - began
    server.stop()
    return took


def timed_complete(llm: Any, messages: list[dict], **kw: Any) -> tuple[float, int, int]:
    """(seconds, prompt tokens, completion tokens) of one request, from the client's usage."""
    before = llm.usage.as_dict()
    began = time.perf_counter()
    llm.complete(messages, **kw)
    took = time.perf_counter() - began
    after = llm.usage.as_dict()
    return took, after["prompt_tokens"] - before["prompt_tokens"], after["completion_tokens"] - before["completion_tokens"]


def nonce() -> str:
    return f"[{random.randrange(10**9)}] "


def generation_rate(llm: Any, max_tokens: int) -> float | None:
    msgs = [{"role": "user", "content": nonce() + "Write a long, detailed story about a dragon who learns arithmetic."}]
    took, _p, c = timed_complete(llm, msgs, max_tokens=max_tokens, temperature=0.0)
    return c / took if c else None


def prompt_rate(llm: Any, words: int) -> float | None:
    rng = random.Random()
    text = " ".join(rng.choice(LOREM) for _ in range(words))
    msgs = [{"role": "user", "content": nonce() + text + "\nSummarize in one word."}]
    took, p, _c = timed_complete(llm, msgs, max_tokens=1, temperature=0.0)
    return p / took if p else None


def react_step_seconds(llm: Any, constrain: bool, steps: int) -> float | None:
    """Median seconds of ``ReactPolicy.act`` over ``steps`` steps of Game24 test tasks."""
    import gymnasium as gym

    import treegym.envs  # noqa: F401 - registers the ids
    from treegym.agents.baselines import ReactPolicy

    env = gym.make("treegym/Game24-v0")
    policy = ReactPolicy("treegym/Game24-v0", llm, constrain=constrain, temperature=0.0)
    task = 900
    obs, info = env.reset(options={"task_id": task})
    policy.reset()
    policy.bind(env)
    samples: list[float] = []
    while len(samples) < steps:
        began = time.perf_counter()
        action = policy.act(obs, info)
        samples.append(time.perf_counter() - began)
        obs, _r, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            task += 1
            obs, info = env.reset(options={"task_id": task})
            policy.reset()
            policy.bind(env)
    env.close()
    return statistics.median(samples)


def fmt(v: float | None, digits: int = 2) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", default="1,2", help="comma list of thread counts; the first is the baseline")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--steps", type=int, default=6, help="ReAct steps per mode")
    ap.add_argument("--gen-tokens", type=int, default=128)
    ap.add_argument("--prompt-words", type=int, default=500)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per request before giving up")
    args = ap.parse_args(argv)

    from treegym.agents.llm.base import LLMError
    from treegym.agents.llm.local import LocalLLM, LocalLLMUnavailable, shutdown

    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores; other work skews these numbers)", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    try:
        for t in threads:
            print(f"threads={t}: cold starts ...", file=sys.stderr)
            row: dict[str, Any] = {"threads": t, "start_s": median_of(lambda: cold_start_seconds(t), args.repeats)}
            llm = LocalLLM(n_threads=t, timeout=args.timeout, max_retries=0)
            try:
                llm.complete([{"role": "user", "content": "warm up"}], max_tokens=4)
                print(f"threads={t}: generation / prompt processing ...", file=sys.stderr)
                row["gen_tok_s"] = median_of(lambda: generation_rate(llm, args.gen_tokens), args.repeats)
                row["prompt_tok_s"] = median_of(lambda: prompt_rate(llm, args.prompt_words), args.repeats)
                print(f"threads={t}: ReAct steps on Game24 ...", file=sys.stderr)
                row["step_constrained_s"] = react_step_seconds(llm, True, args.steps)
                row["step_free_s"] = react_step_seconds(llm, False, args.steps)
            except LLMError as exc:
                print(f"threads={t}: stopped: {exc}", file=sys.stderr)
            rows.append(row)
            shutdown()
    except LocalLLMUnavailable as exc:
        print(f"bench_local_llm: {exc}", file=sys.stderr)
        return 2
    finally:
        shutdown()

    cols = [("threads", 0), ("start_s", 2), ("gen_tok_s", 1), ("prompt_tok_s", 1), ("step_constrained_s", 2), ("step_free_s", 2)]
    print("| " + " | ".join(c for c, _ in cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r["threads"]) if c == "threads" else fmt(r.get(c), d) for c, d in cols) + " |")
    base = rows[0] if rows else {}
    print()
    for r in rows[1:]:
        print(f"threads={r['threads']} vs threads={base['threads']}: start {ratio(r.get('start_s'), base.get('start_s'))} "
              f"time, generation {ratio(r.get('gen_tok_s'), base.get('gen_tok_s'))} speed, "
              f"prompt {ratio(r.get('prompt_tok_s'), base.get('prompt_tok_s'))} speed, "
              f"constrained step {ratio(r.get('step_constrained_s'), base.get('step_constrained_s'))} time")
    for r in rows:
        print(f"threads={r['threads']}: free-text ReAct step takes {ratio(r.get('step_free_s'), r.get('step_constrained_s'))} "
              f"the time of a constrained one")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
