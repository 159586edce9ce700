"""Benchmark: ToolBench-v0 rollback (snapshot + restore vs reset + replay) and the tool server under load.

1. **Rollback at depth 8** on a stateful task (a G1 flight-booking task: search,
   book, read, list, cancel, book again, ...; every booking changes seats,
   the wallet and the booking log). A tree search returning to a node 8 calls
   deep either restores a snapshot (``treegym.envs.snapshot``/``restore``: the
   engine state is an immutable value, so this is a reference plus the
   observation) or resets the task and replays the 8 calls (what RaD-Agent
   does for stateful envs). Both are timed in the same run and checked to land
   on the same observation and world. Prints medians and the ratio (target >= 100x).

2. **Server under concurrency** (``--server``): starts ``treegym serve tools``'
   app on 127.0.0.1 in this process, runs ``--sessions`` (default 32) client
   threads, each an HTTP-mode env (``server_url=``, its own session) playing
   its tasks' gold plans with a snapshot/restore detour, and checks that its
   observations equal the in-process env's (no cross-session leakage). Prints
   errors, requests per second and the mismatch count. Then ``--sessions``
   URL-chosen worlds (``/s/<session>/virtual``, the way an upstream ToolBench
   client that can only set its URL calls): each resets to its task and
   replays the gold calls in upstream's payload shape, ``--rounds`` times;
   prints per-call p50/p99 with one client at a time and all at once, and the
   replays whose answers differ from a fresh in-process world.

    python scripts/bench/bench_toolbench.py [--depth 8] [--repeats 300] [--server] [--sessions 32] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import gymnasium as gym

import treegym.envs as te
from treegym.envs.toolbench.data import shipped_splits, shipped_tasks
from treegym.envs.toolbench.env import shipped_engine
from treegym.servers.run import BackgroundServer
from treegym.servers.toolbench import create_app
from treegym.servers.toolbench.client import post_call, upstream_payload


def trajectory(env: gym.Env, depth: int) -> list[str]:
    """``depth`` non-terminal calls on the env's flight-booking task that change the world several times."""
    u = env.unwrapped
    search = json.loads(u.expert_action())
    env.step(json.dumps(search))
    fid = json.loads(json.loads(u.state.observation)["response"])["results"][0]["flight_id"]
    call = lambda name, **a: json.dumps({"name": name, "arguments": a})  # noqa: E731
    cycle = [call("book_flight_for_skyroutes", flight_id=fid, passengers=1),
             call("get_flight_for_skyroutes", flight_id=fid),
             call("list_flight_bookings_for_skyroutes"),
             call("cancel_flight_booking_for_skyroutes", booking_id="BK-0001"),
             call("book_flight_for_skyroutes", flight_id=fid, passengers=1),
             call("list_flight_bookings_for_skyroutes"),
             call("get_flight_for_skyroutes", flight_id=fid)]
    return ([json.dumps(search)] + cycle * depth)[:depth]


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_rollback(depth: int, repeats: int) -> int:
    tid = next(t["query_id"] for t in shipped_tasks() if t["template"] == "book_cheapest_flight")
    env = gym.make("treegym/ToolBench-v0", split="all", max_steps=depth + 4)
    env.reset(options={"task_id": tid})
    actions = trajectory(env, depth)
    env.reset(options={"task_id": tid})
    for a in actions:
        obs, *_ = env.step(a)
    snap = te.snapshot(env)
    world = env.unwrapped.state.world
    if world == env.unwrapped.engine.view(tid).initial_world:
        print("the trajectory changed nothing; not a stateful benchmark", file=sys.stderr)
        return 1
    mutating = sum(1 for a in actions if "book_flight" in a or "cancel" in a)

    def replay():
        env.reset(options={"task_id": tid})
        out = None
        for a in actions:
            out = env.step(a)
        return out

    def restore():
        return te.restore(env, snap)

    replayed = replay()[0]
    restored = restore()[0]
    if replayed != restored or env.unwrapped.state.world != world or obs != restored:
        print("MISMATCH: restore and replay land on different states", file=sys.stderr)
        return 1
    t_restore = median_seconds(lambda: (te.snapshot(env), restore()), repeats)
    raw = env.unwrapped
    raw_snap = raw.snapshot()
    t_raw = median_seconds(lambda: (raw.snapshot(), raw.restore(raw_snap)), repeats)
    t_replay = median_seconds(replay, repeats)
    print(f"ToolBench-v0 rollback at depth {depth} (task {tid}, {mutating} state-changing calls, {repeats} repeats, medians):")
    print(f"  snapshot + restore  {t_restore * 1e6:10.1f} us")
    print(f"  reset + replay      {t_replay * 1e6:10.1f} us")
    print(f"  ratio               {t_replay / t_restore:10.1f}x  (target >= 100x: {'met' if t_replay / t_restore >= 100 else 'NOT met'})")
    print(f"  (on the unwrapped env, without the suite helpers' wrapper bookkeeping: snapshot + restore "
          f"{t_raw * 1e6:.1f} us, ratio {t_replay / t_raw:.0f}x)")
    return 0


def bench_server(sessions: int, rounds: int) -> int:
    import threading

    os.environ.setdefault("TREEGYM_SERVE_EXPERT", "1")  # the remote envs play the expert over HTTP
    server = BackgroundServer(create_app(), "127.0.0.1", 0, quiet=True).start()
    ids = list(shipped_splits()["dev"])
    ref: dict = {}  # reference observations, in-process
    env = gym.make("treegym/ToolBench-v0", split="all")
    for tid in ids:
        env.reset(options={"task_id": tid})
        texts = []
        while True:
            o, r, t, tr, i = env.step(env.unwrapped.expert_action())
            texts.append(o["text"])
            if t or tr:
                break
        ref[tid] = texts
    errors, mismatches, requests = [], [0], [0]
    lock = threading.Lock()

    def worker(k: int) -> None:
        try:
            remote = gym.make("treegym/ToolBench-v0", split="all", server_url=server.url)
            for r in range(rounds):
                tid = ids[(k * rounds + r) % len(ids)]
                remote.reset(options={"task_id": tid})
                texts, n, snap = [], 1, None
                while True:
                    o, rew, t, tr, i = remote.step(remote.unwrapped.expert_action())  # expert + step
                    n += 2
                    texts.append(o["text"])
                    if snap is None:
                        snap = te.snapshot(remote)                                     # 1 request
                        remote.step('{"name": "Finish", "arguments": {}}')             # a detour ...
                        te.restore(remote, snap)                                       # ... undone
                        n += 3
                    if t or tr:
                        break
                with lock:
                    requests[0] += n
                    if texts != ref[tid]:
                        mismatches[0] += 1
            remote.close()
        except Exception as exc:  # noqa: BLE001 - counted and printed
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(sessions)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    server.stop()
    print(f"tool server, {sessions} concurrent sessions x {rounds} episodes: {requests[0]} requests in {wall:.2f} s "
          f"= {requests[0] / wall:.0f} requests/s; errors {len(errors)}; episodes whose observations differ "
          f"from in-process: {mismatches[0]}")
    for e in errors[:5]:
        print(f"  error: {e}")
    return 1 if errors or mismatches[0] else 0


def bench_url_sessions(sessions: int, rounds: int) -> int:
    """Upstream-shaped calls on ``sessions`` URL-chosen worlds at once: per-call p50/p99, checked against in-process."""
    import os
    import threading

    engine = shipped_engine("terminal")
    tasks = [t for t in shipped_tasks() if t["gold"]["reference_calls"]][:sessions]
    want = {}
    for t in tasks:  # the answers of a fresh in-process world
        state, out = engine.initial_state(t["query_id"], None), []
        for c in t["gold"]["reference_calls"]:
            state = engine.step(state, json.dumps({"name": c["name"], "arguments": c["arguments"]})).state
            out.append({"error": state.calls[-1].error, "response": state.calls[-1].response})
        want[t["query_id"]] = out
    server = BackgroundServer(create_app(), "127.0.0.1", 0, quiet=True).start()

    def play(k: int, task: dict, lat: list, bad: list) -> None:
        base = f"{server.url}/s/bench-{k}"
        for _ in range(rounds):
            post_call(base + "/reset", {"task_id": task["query_id"]})
            got = []
            for c in task["gold"]["reference_calls"]:
                t0 = time.perf_counter()
                got.append(post_call(base + "/virtual", upstream_payload(task, c["name"], c["arguments"])))
                lat.append(time.perf_counter() - t0)
            if got != want[task["query_id"]]:
                bad.append(task["query_id"])

    def run(concurrent: bool) -> tuple[list, list, list]:
        lat: list = []
        bad: list = []
        errors: list = []

        def worker(k: int, task: dict) -> None:
            try:
                play(k, task, lat, bad)
            except Exception as exc:  # noqa: BLE001 - counted and printed
                errors.append(f"{type(exc).__name__}: {exc}")

        if concurrent:
            threads = [threading.Thread(target=worker, args=(k, t)) for k, t in enumerate(tasks)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        else:
            for k, t in enumerate(tasks):
                worker(k, t)
        return lat, bad, errors

    def pct(xs: list, q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1e3

    alone, bad1, err1 = run(False)
    together, bad2, err2 = run(True)
    server.stop()
    print(f"URL-chosen sessions (/s/<session>/virtual, upstream payloads), {len(tasks)} worlds x {rounds} "
          f"replays of their gold calls; load average {os.getloadavg()[0]:.2f}:")
    print(f"  one client at a time   p50 {pct(alone, .5):7.2f} ms  p99 {pct(alone, .99):7.2f} ms  ({len(alone)} calls)")
    print(f"  {len(tasks)} clients at once    p50 {pct(together, .5):7.2f} ms  p99 {pct(together, .99):7.2f} ms  "
          f"({len(together)} calls; p50 ratio {pct(together, .5) / pct(alone, .5):.1f}x)")
    print(f"  replays differing from a fresh in-process world: {len(bad1) + len(bad2)}; errors {len(err1) + len(err2)}")
    for e in (err1 + err2)[:5]:
        print(f"  error: {e}")
    return 1 if bad1 or bad2 or err1 or err2 else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=300)
    ap.add_argument("--server", action="store_true", help="also benchmark the tool server under concurrent sessions")
    ap.add_argument("--sessions", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3, help="episodes per session thread (default 3)")
    args = ap.parse_args(argv)
    rc = bench_rollback(args.depth, args.repeats)
    if args.server:
        rc = bench_server(args.sessions, args.rounds) or rc
        rc = bench_url_sessions(args.sessions, args.rounds) or rc
    return rc


if __name__ == "__main__":
    sys.exit(main())
