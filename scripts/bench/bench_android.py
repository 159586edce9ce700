"""Benchmark the simulated phone behind treegym/BMoCA-v0, honestly.

From ``--states`` ordinary states at depth ``--depth`` (seeded random walks of
valid actions on different tasks and configurations, none terminal), measured in
one run as medians over interleaved repetitions, with the spread (p10-p90) and
the machine load printed beside them:

* ``restore, cold``: ``env.restore(snap)`` from a *different* state, with the env's
  screen cache emptied first, so the restored screen is rendered and read again
  (what a search pays the first time it comes back to a node in a fresh env);
* ``restore, warm``: the same from a different state with the screen cached
  (what a search pays when it comes back to a node it observed);
* ``reset+replay``: the baseline, ``env.reset(task)`` plus the same ``--depth``
  actions, timed in the same rounds;
* every restore is checked equal to the replayed state: observation, info (XML,
  boxes, message), the phone state, its log and the env's logcat cursor and latch;
* ``step``: one ``env.step`` from a restored state (uncached screen), ``snapshot``,
  ``sim tap`` (one ``SimPhone.gesture`` without observation);
* ``screen``: what a cold observation costs on the same states: ``render`` (the node
  tree), then the dump and element list read from the tree (``to_xml`` +
  ``from_tree``, what the env does) vs the XML round trip (``to_xml`` + ``parse``,
  what it did before);
* ``adb step`` (when Debian's ``adb`` is installed): ``adb shell input tap`` +
  ``adb shell uiautomator dump`` + ``adb pull`` through the fake adb server, and
  one ``env.step`` through ``AdbBackend``.

* ``--server``: the fake adb server under load. 32 clients at once, each opening a
  connection per request (``host:tport:any`` + ``shell,v2:getprop``), against the
  server's listen backlog (128) and, interleaved in the same run, socketserver's
  default of 5 (the baseline): p50 / p99 latency. Then three 50 MB pushes (sync
  protocol): resident memory growth and how much of it the phone keeps (its file
  store is bounded, 64 MB by default; a push past it is refused).

Prints the ratios reset+replay / restore (target >= 100x at depth 8).

    python scripts/bench/bench_android.py [--depth 8] [--states 6] [--repeats 20] [--server]
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

from treegym.envs.android.env import BMoCAEnv
from treegym.envs.android.observation import from_tree, parse
from treegym.envs.android.screens import SCREENS
from treegym.envs.android.sim.phone import SimPhone
from treegym.envs.android.sim.window import render
from treegym.envs.android.ui import to_xml
from treegym.envs.core.check import first_difference
from treegym.scripts.bench.bench_support import percentile, rss_mb
from treegym.servers.android.fake_adb import FakeAdbServer

# tasks with long step limits, on configurations of different devices and languages (one RTL)
TASKS = ("test_env_101/turn_off_the_call_in_process", "test_env_100/create_alarm_at_10:30_am",
         "test_env_108/turn_on_wifi", "test_env_104/call_911", "test_env_103/open_the_youtube_app",
         "test_env_106/turn_on_airplane_mode", "test_env_109/create_alarm_at_10:30_am",
         "test_env_102/turn_off_the_call_in_process")


def median_time(fn: Callable[[], Any], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


@dataclass
class Target:
    """One ordinary depth-d state: how to replay it, its snapshot, and what the replay showed."""

    task_id: str
    actions: list[str]
    snap: Any
    seen: Any  # (obs, info, phone state, log lines, env state) right after the replay


def _seen(env: BMoCAEnv, obs: dict, info: dict) -> tuple:
    phone, st = env.backend.state, env.state
    return obs, info, phone, phone.log_lines(0), (st.cursor, st.success, st.message, st.invalid), env.steps


def find_targets(env: BMoCAEnv, count: int, depth: int, seed: int = 0) -> list[Target]:
    """``count`` non-terminal states at ``depth`` from seeded random walks, each on its own task."""
    rng = random.Random(seed)
    targets: list[Target] = []
    tries = 0
    while len(targets) < count:
        tries += 1
        if tries > 50 * count:
            raise SystemExit(f"found only {len(targets)} ordinary states at depth {depth}; lower --depth")
        task_id = TASKS[len(targets) % len(TASKS)]
        obs, _info = env.reset(options={"task_id": task_id})
        actions = []
        for _ in range(depth):
            actions.append(rng.choice(obs["valid_actions"]))
            obs, _r, term, trunc, _info = env.step(actions[-1])
            if term or trunc:
                break
        else:
            targets.append(Target(task_id, actions, None, None))
    for t in targets:  # replay each once: its snapshot and what an agent sees there
        env.reset(options={"task_id": t.task_id})
        for a in t.actions:
            obs, _r, _term, _trunc, info = env.step(a)
        t.snap, t.seen = env.snapshot(), _seen(env, obs, info)
    return targets


def check_equal(env: BMoCAEnv, target: Target, obs: dict, info: dict) -> None:
    diff = first_difference(_seen(env, obs, info), target.seen)
    if diff is not None:
        raise SystemExit(f"the restored state of {target.task_id} differs from the replayed one: {diff}")


def spread(xs: list[float]) -> str:
    return (f"{statistics.median(xs) * 1e6:10.1f} us  (p10-p90 {percentile(xs, 0.1) * 1e6:.1f}-"
            f"{percentile(xs, 0.9) * 1e6:.1f}, n={len(xs)})")


def _request(port: int) -> float:
    """One client: connect, pick the device, run ``getprop`` over shell v2; seconds taken."""
    import socket

    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        for req in (b"host:tport:any", b"shell,v2,raw:getprop ro.build.version.sdk"):
            s.sendall(f"{len(req):04x}".encode() + req)
            assert s.recv(4) == b"OKAY", "the fake adb server refused a request"
            if req.startswith(b"host:tport"):
                s.recv(8)
        while s.recv(65536):
            pass
    return time.perf_counter() - t0


def _burst(port: int, clients: int) -> list[float]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(lambda _i: _request(port), range(clients)))


def _push(port: int, path: str, size: int) -> bool:
    """Push ``size`` bytes to ``path`` over the sync protocol; True when the phone kept it."""
    import socket
    import struct

    chunk = b"\0" * 65536
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        for req in (b"host:tport:any", b"sync:"):
            s.sendall(f"{len(req):04x}".encode() + req)
            assert s.recv(4) == b"OKAY"
            if req.startswith(b"host:tport"):
                s.recv(8)
        arg = f"{path},33188".encode()
        s.sendall(b"SEND" + struct.pack("<I", len(arg)) + arg)
        for i in range(0, size, len(chunk)):
            part = chunk[:min(len(chunk), size - i)]
            s.sendall(b"DATA" + struct.pack("<I", len(part)) + part)
        s.sendall(b"DONE" + struct.pack("<I", 0))
        ok = s.recv(8)[:4] == b"OKAY"
        s.sendall(b"QUIT" + struct.pack("<I", 0))
    return ok


def bench_server(rounds: int = 5, clients: int = 32) -> int:
    """The fake adb server: concurrent clients (backlog 128 vs 5) and memory under large pushes."""
    lat: dict[int, list[float]] = {128: [], 5: []}
    with FakeAdbServer(SimPhone("test_env_100")) as ours, FakeAdbServer(SimPhone("test_env_100"), backlog=5) as base:
        for _ in range(rounds):  # interleaved: each round runs both, so load changes hit both alike
            lat[128] += _burst(ours.port, clients)
            lat[5] += _burst(base.port, clients)
    print(f"fake adb server, {clients} clients at once x {rounds} rounds (load average {os.getloadavg()[0]:.2f})")
    p99s = {}
    for backlog, xs in lat.items():
        xs.sort()
        p50, p99s[backlog] = xs[len(xs) // 2], xs[min(len(xs) - 1, int(len(xs) * 0.99))]
        print(f"  backlog {backlog:3d}: p50 {p50 * 1e3:7.1f} ms  p99 {p99s[backlog] * 1e3:7.1f} ms")
    print(f"  p99 ratio backlog 5 / 128: {p99s[5] / max(1e-9, p99s[128]):.1f}x")
    with FakeAdbServer(SimPhone("test_env_100")) as srv:
        before = rss_mb()
        kept = [_push(srv.port, f"/sdcard/Download/big{i}.bin", 50 * 1024 * 1024) for i in range(3)]
        after = rss_mb()
        print(f"  3 x 50 MB pushes: kept {sum(kept)} (store bound {srv.phone.files.max_bytes >> 20} MB, holds "
              f"{srv.phone.files.used >> 20} MB), RSS {before:.0f} -> {after:.0f} MB (+{after - before:.0f} MB); "
              f"request log {srv.requests.bytes} bytes")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--states", type=int, default=6, help="ordinary depth-d states restored in turn (default 6)")
    ap.add_argument("--repeats", type=int, default=20, help="interleaved rounds (default 20)")
    ap.add_argument("--server", action="store_true", help="only the fake adb server load and memory figures")
    args = ap.parse_args(argv)
    if args.server:
        return bench_server(rounds=max(3, args.repeats // 4))
    if args.states < 2:
        raise SystemExit("--states must be at least 2: every timed restore starts from a different state")

    env = BMoCAEnv(split="test", max_steps=args.depth + 5)
    targets = find_targets(env, args.states, args.depth)
    cold, warm, replays, steps, renders, direct, round_trip = [], [], [], [], [], [], []
    for _ in range(args.repeats):  # interleaved: load changes hit every measurement alike
        for i, t in enumerate(targets):
            other = targets[i - 1]  # the env is in another ordinary state before every timed restore
            env.restore(other.snap)
            SCREENS.clear()  # the screen cache (keyed by phone state): cold means rendered and read again
            t0 = time.perf_counter()
            obs, info = env.restore(t.snap)
            cold.append(time.perf_counter() - t0)
            check_equal(env, t, obs, info)
            env.restore(other.snap)
            t0 = time.perf_counter()
            obs, info = env.restore(t.snap)
            warm.append(time.perf_counter() - t0)
            check_equal(env, t, obs, info)
            t0 = time.perf_counter()
            env.reset(options={"task_id": t.task_id})
            for a in t.actions:
                obs, _r, _term, _trunc, info = env.step(a)
            replays.append(time.perf_counter() - t0)
            check_equal(env, t, obs, info)
            env.restore(t.snap)
            SCREENS.clear()
            t0 = time.perf_counter()
            env.step('swipe("up")')
            steps.append(time.perf_counter() - t0)
            state, (w, h) = t.seen[2], env.backend.screen_size()
            t0 = time.perf_counter()
            tree = render(state)
            t1 = time.perf_counter()
            xml, parsed = to_xml(tree), from_tree(tree, w, h)
            t2 = time.perf_counter()
            again = parse(to_xml(tree), w, h)
            t3 = time.perf_counter()
            renders.append(t1 - t0)
            direct.append(t2 - t1)
            round_trip.append(t3 - t2)
            if again != parsed or xml != t.seen[1]["xml"]:
                raise SystemExit(f"{t.task_id}: the element list read from the tree differs from the parsed dump")
    snap_t = median_time(env.snapshot, args.repeats * 10)
    phone = SimPhone("test_env_100")
    tap_t = median_time(lambda: phone.gesture(540, 1000, 540, 1000), args.repeats * 10)
    t_replay, t_cold, t_warm = (statistics.median(x) for x in (replays, cold, warm))
    print(f"B-MoCA simulator, {args.states} ordinary states at depth {args.depth} ({', '.join(t.task_id for t in targets)}); "
          f"medians of {args.repeats} interleaved rounds; load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print(f"  sim tap (no observation)        {tap_t * 1e6:10.1f} us")
    print(f"  env.step (uncached screen)      {spread(steps)}")
    print(f"  snapshot                        {snap_t * 1e6:10.1f} us")
    print(f"  screen: render (node tree)      {spread(renders)}")
    print(f"  screen: to_xml + from_tree      {spread(direct)}")
    print(f"  screen: to_xml + parse (XML trip){spread(round_trip)}   "
          f"({statistics.median(round_trip) / statistics.median(direct):.1f}x the tree path)")
    print(f"  restore, cold (other state)     {spread(cold)}")
    print(f"  restore, warm (other state)     {spread(warm)}")
    print(f"  reset + replay ({args.depth} steps)       {spread(replays)}")
    print(f"  every restore == the replayed state (obs, info, phone state, log, cursor, latch): "
          f"{len(cold) + len(warm)} checked")
    for name, t in (("cold", t_cold), ("warm", t_warm)):
        ratio = t_replay / t
        print(f"  reset+replay / restore {name:4s}   {ratio:10.1f}x   "
              f"(target >= 100x: {'met' if ratio >= 100 else 'NOT met'})")
    t_step_restore = statistics.median(steps)
    if shutil.which("adb"):
        try:
            from treegym.servers.android.fake_adb import FakeAdbServer  # lazy: only when adb is installed
        except ImportError:
            print("  adb step: the fake adb server is not available in this checkout")
            return 0
        import subprocess
        import tempfile

        with FakeAdbServer(SimPhone("test_env_100")) as srv, tempfile.TemporaryDirectory() as tmp:
            envv = srv.client_env()

            def adb_step() -> None:
                subprocess.run(["adb", "-s", srv.serial, "shell", "input", "tap", "540", "1000"], env=envv, check=True,
                               capture_output=True)
                subprocess.run(["adb", "-s", srv.serial, "shell", "uiautomator", "dump", "/sdcard/window_dump.xml"],
                               env=envv, check=True, capture_output=True)
                subprocess.run(["adb", "-s", srv.serial, "pull", "/sdcard/window_dump.xml", tmp], env=envv, check=True,
                               capture_output=True)
            t_adb = median_time(adb_step, max(5, args.repeats // 3))
            print(f"  adb CLI tap+dump+pull via fake server {t_adb * 1e6:10.1f} us  "
                  f"({t_adb / t_step_restore:.1f}x a simulator env.step)")
            from treegym.envs.android.adb import AdbBackend  # lazy: only when adb is installed

            backend = AdbBackend(serial=srv.serial, server=f"tcp:127.0.0.1:{srv.port}")
            adb_env = BMoCAEnv(split="test", backend=backend, max_steps=1000)
            adb_env.reset(options={"task_id": "test_env_100/open_the_youtube_app"})
            moves = ['swipe("up")', 'swipe("down")']
            counter = iter(range(10 ** 9))
            t_env = median_time(lambda: adb_env.step(moves[next(counter) % 2]), max(5, args.repeats // 3))
            backend.close()
            print(f"  env.step through AdbBackend -> fake server {t_env * 1e6:10.1f} us  "
                  f"({t_env / t_step_restore:.1f}x a simulator env.step)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
