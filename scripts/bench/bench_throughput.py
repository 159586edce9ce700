"""Episode throughput against a slow LLM endpoint: sequential vs. concurrent episodes, threads, processes and Ray.

A real OpenAI-compatible server (``tests/support/chat_server.py``, in its own
process so it does not share this process's GIL) answers every chat request
after ``--latency`` seconds (default 0.1) with one fixed ReAct reply (an
illegal Game of 24 step, so every episode runs to the env's step limit: the
same number of calls in every setting). The ``react`` agent plays
``--episodes`` Game of 24 puzzles through the real ``openai`` client, via
``treegym.agents.experiments.evaluation.evaluate`` (the code ``treegym run`` uses), in
these settings, each ``--repeats`` times into a fresh results file:

* sequential: one episode at a time (the baseline);
* threads: ``--concurrency`` episodes in flight (``--backend thread``);
* processes: ``--concurrency`` episodes in flight on ``--ray-workers`` spawned
  processes (``--backend process --max-in-flight``);
* Ray: ``--concurrency`` episodes in flight on ``--ray-workers`` Ray actors
  (``--backend ray --max-in-flight``).

For processes and Ray a warm-up run starts the workers first (Ray itself, its
actors, the spawned processes and their imports: seconds, paid once per
``treegym`` process, since later runs reuse them), so the timed runs measure
throughput, not start-up.

Prints the median wall time of each and its speed-up over the sequential
median (target: at least 20x at 32 in flight), and the LLM calls made (they
must be equal in every setting, or the numbers are not comparable).

``--in-process`` adds the same pair with an in-process model that sleeps
``--latency`` per request instead of the HTTP endpoint: the framework's own
ceiling, without the ``openai`` client's and the endpoint's CPU per request
(on 2 cores shared with the endpoint, that CPU is what keeps the HTTP
speed-up below the in-process one).

    python -m treegym.scripts.bench.bench_throughput --episodes 32 --concurrency 32
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence
from treegym.agents.experiments.evaluation import RunConfig, evaluate
from treegym.agents.llm_specs import register_llm_backend
from treegym.agents.simulated.scripted import ScriptedLLM
from treegym.envs.registration import env_class

ENV_ID = "treegym/Game24-v0"
REPO = Path(__file__).resolve().parents[2]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench_throughput", description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=32, help="puzzles per setting (default 32)")
    p.add_argument("--concurrency", type=int, default=32, help="episodes in flight (default 32)")
    p.add_argument("--latency", type=float, default=0.1, help="seconds the endpoint takes per request (default 0.1)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per setting; medians are reported (default 3)")
    p.add_argument("--ray-workers", type=int, default=2, help="Ray actors, and processes of the process setting (default 2)")
    p.add_argument("--no-ray", action="store_true", help="skip the Ray setting")
    p.add_argument("--in-process", action="store_true",
                   help="also time sequential vs threads with an in-process model that sleeps --latency (no HTTP)")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # internal: run the endpoint
    return p.parse_args(argv)


def serve(latency: float) -> None:
    """The endpoint process: print the base URL, serve until stdin closes."""
    sys.path.insert(0, str(REPO / "tests"))
    from support.chat_server import ChatServer

    def reply(messages: list[dict]) -> str:
        return REPLY

    with ChatServer(reply=reply, models=None, latency=latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def start_endpoint(latency: float, module: str = "treegym.scripts.bench.bench_throughput") -> tuple[subprocess.Popen, str]:
    """``python -m module --serve --latency L`` in its own process; (the process, its base URL)."""
    name = module.rsplit(".", 1)[-1]
    if not (REPO / "tests" / "support" / "chat_server.py").exists():
        raise SystemExit(f"{name}: run it from a treegym checkout (it needs tests/support/chat_server.py)")
    proc = subprocess.Popen([sys.executable, "-m", module, "--serve",
                             "--latency", str(latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip() if proc.stdout else ""
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit(f"{name}: the endpoint process did not start")
    return proc, url


REPLY = "Thought: add the first two numbers.\nAction: 1 + 1 = 2"


def register_sleeping_model() -> None:
    """``sleeping:SECONDS``: an in-process model answering ``REPLY`` after SECONDS (no HTTP)."""
    def factory(arg: str, env_id: str | None = None, **kwargs: object) -> ScriptedLLM:
        latency = float(arg)

        def reply(messages: list[dict]) -> str:
            time.sleep(latency)
            return REPLY

        return ScriptedLLM(reply, name=f"sleeping:{arg}")

    register_llm_backend("sleeping", factory)


def timed_run(url: str | None, tasks: list[int], latency: float = 0.1, **settings: object) -> tuple[float, int]:
    """(wall seconds, LLM calls) of one evaluate() into a fresh results file; ``url`` None: the
    in-process sleeping model."""
    llm = {"llm_spec": "openai:test-model", "llm_kwargs": {"base_url": url, "api_key": "EMPTY"}} if url else \
        {"llm_spec": f"sleeping:{latency}"}
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(env_id=ENV_ID, agent="react", task_ids=tasks, preflight=False, **llm, **settings)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        records = evaluate(config, Path(tmp) / "r.jsonl", progress=False, log=None)
        wall = time.perf_counter() - t0
    if any(r.get("error") for r in records):
        raise SystemExit(f"bench_throughput: an episode failed: {next(r['error'] for r in records if r.get('error'))}")
    return wall, sum(int(r["llm_calls"]) for r in records)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve:
        serve(args.latency)
        return 0

    tasks = list(env_class(ENV_ID).split_task_ids("test"))[: args.episodes]
    settings = {"sequential": {"workers": 1},
                f"threads, {args.concurrency} in flight": {"workers": args.concurrency, "backend": "thread"}}
    settings[f"processes, {args.ray_workers} workers, {args.concurrency} in flight"] = {
        "workers": args.ray_workers, "backend": "process", "max_in_flight": args.concurrency}
    if not args.no_ray:
        settings[f"Ray, {args.ray_workers} actors, {args.concurrency} in flight"] = {
            "workers": args.ray_workers, "backend": "ray", "max_in_flight": args.concurrency}
    if args.in_process:
        register_sleeping_model()
        settings["in-process model, sequential"] = {"workers": 1, "in_process": True}
        settings[f"in-process model, threads, {args.concurrency} in flight"] = {
            "workers": args.concurrency, "backend": "thread", "in_process": True}
    proc, url = start_endpoint(args.latency)
    results: dict[str, tuple[float, int]] = {}
    try:
        for name, s in settings.items():
            s = dict(s)
            target = None if s.pop("in_process", False) else url
            if s.get("backend") in ("ray", "process"):
                timed_run(target, tasks[:2], **s)  # warm-up: starts Ray, and the workers later runs reuse
            walls, calls = [], set()
            for _ in range(args.repeats):
                wall, n = timed_run(target, tasks, args.latency, **s)
                walls.append(wall)
                calls.add(n)
                print(f"  {name}: {wall:.2f} s, {n} LLM calls", file=sys.stderr, flush=True)
            results[name] = (statistics.median(walls), max(calls) if len(calls) == 1 else -1)
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait()
    base = results["sequential"][0]
    import os

    print(f"{len(tasks)} Game of 24 episodes (react, run to the step limit), endpoint latency {args.latency * 1000:.0f} ms, "
          f"median of {args.repeats}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end:")
    for name, (wall, calls) in results.items():
        ref = results["in-process model, sequential"][0] if name.startswith("in-process") else base
        target = "" if name.endswith("sequential") or args.concurrency < 32 else f"   (target >= 20x: {'met' if ref / wall >= 20 else 'NOT met'})"
        print(f"  {name:48s} {wall:7.2f} s   {len(tasks) / wall:6.1f} episodes/s   speed-up {ref / wall:5.1f}x"
              f"   {calls} LLM calls{target}")
    if len({calls for _, calls in results.values()}) != 1 or -1 in {c for _, c in results.values()}:
        print("warning: the settings made different numbers of LLM calls; the work was not the same", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
