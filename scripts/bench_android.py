"""Benchmark the simulated phone behind treegym/BMoCA-v0.

Measured in one run (medians over repeats):

* ``step``: one ``env.step`` (gesture, logcat read, detector, dump + parse);
* ``sim tap``: one ``SimPhone.gesture`` tap without observation;
* ``restore``: ``env.restore(snap)`` of the depth-``--depth`` state while the env is
  at the episode start (so the state changes), checked equal to the replayed observation;
* ``reset+replay``: the baseline, ``env.reset(task)`` plus the same ``--depth`` actions;
* ``adb step`` (when Debian's ``adb`` is installed): ``adb shell input tap`` +
  ``adb shell uiautomator dump`` + ``adb pull`` through the fake adb server, i.e.
  what one step costs on the ADB path.

* ``--server``: the fake adb server under load. 32 clients at once, each opening a
  connection per request (``host:tport:any`` + ``shell,v2:getprop``), against the
  server's listen backlog (128) and, interleaved in the same run, socketserver's
  default of 5 (the baseline): p50 / p99 latency. Then three 50 MB pushes (sync
  protocol): resident memory growth and how much of it the phone keeps (its file
  store is bounded, 64 MB by default; a push past it is refused).

Prints the ratio replay / restore (target >= 100x at depth 8).

    python scripts/bench_android.py [--depth 8] [--repeats 30] [--server]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from typing import Any, Callable

from treegym.envs.android.env import BMoCAEnv
from treegym.envs.android.sim.phone import SimPhone

TASK = "test_env_101/turn_off_the_call_in_process"  # 7 expert steps before the success step


def median_time(fn: Callable[[], Any], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


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


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


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
    from treegym.servers.android.fake_adb import FakeAdbServer

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
        before = _rss_mb()
        kept = [_push(srv.port, f"/sdcard/Download/big{i}.bin", 50 * 1024 * 1024) for i in range(3)]
        after = _rss_mb()
        print(f"  3 x 50 MB pushes: kept {sum(kept)} (store bound {srv.phone.files.max_bytes >> 20} MB, holds "
              f"{srv.phone.files.used >> 20} MB), RSS {before:.0f} -> {after:.0f} MB (+{after - before:.0f} MB); "
              f"request log {srv.requests.bytes} bytes")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--server", action="store_true", help="only the fake adb server load and memory figures")
    args = ap.parse_args(argv)
    if args.server:
        return bench_server(rounds=max(3, args.repeats // 6))

    env = BMoCAEnv(split="test", max_steps=args.depth + 5)
    env.reset(options={"task_id": TASK})
    actions = []
    # the expert's path up to (not including) its success step, then scrolls of the in-call screen
    for _ in range(args.depth):
        plan = env.expert().plan
        a = plan[0] if len(plan) > 1 else 'swipe("down")'
        actions.append(a)
        _o, _r, term, trunc, _i = env.step(a)
        if term or trunc:
            raise SystemExit(f"{TASK} ended before depth {args.depth}; lower --depth")

    def replay() -> None:
        env.reset(options={"task_id": TASK})
        for a in actions:
            env.step(a)

    replay()
    snap = env.snapshot()
    replayed_text = env._last_text
    env.reset(options={"task_id": TASK})
    other = env.snapshot()  # the start of the episode: every timed restore changes the state
    replays, restores = [], []
    for _ in range(args.repeats):  # interleaved repetitions
        t0 = time.perf_counter()
        replay()
        replays.append(time.perf_counter() - t0)
        for _ in range(10):
            env.restore(other)
            t0 = time.perf_counter()
            obs, _info = env.restore(snap)
            restores.append(time.perf_counter() - t0)
        if obs["text"] != replayed_text:
            raise SystemExit("the restored observation differs from the replayed one")
    t_replay, t_restore = statistics.median(replays), statistics.median(restores)
    t_snap = median_time(env.snapshot, args.repeats * 10)

    def one_step() -> None:
        env.restore(snap)
        env.step('press("BACK")')

    t_step_restore = median_time(one_step, args.repeats)
    phone = SimPhone("test_env_100")
    t_tap = median_time(lambda: phone.gesture(540, 1000, 540, 1000), args.repeats * 10)
    print(f"depth {args.depth} on {TASK}, medians of {args.repeats}+ interleaved repeats "
          f"(load average {os.getloadavg()[0]:.2f})")
    print(f"  sim tap (no observation)   {t_tap * 1e6:10.1f} us")
    print(f"  env.step (restore + step)  {t_step_restore * 1e6:10.1f} us")
    print(f"  snapshot                   {t_snap * 1e6:10.1f} us")
    print(f"  restore (other state -> depth {args.depth}, == replayed) {t_restore * 1e6:10.1f} us")
    print(f"  reset + replay             {t_replay * 1e6:10.1f} us")
    ratio = t_replay / t_restore
    print(f"  replay / restore           {ratio:10.1f}x   (target >= 100x: {'met' if ratio >= 100 else 'NOT met'})")
    if shutil.which("adb"):
        try:
            from treegym.servers.android.fake_adb import FakeAdbServer
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
            from treegym.envs.android.adb import AdbBackend

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
