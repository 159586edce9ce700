"""Benchmark the simulated phone behind treegym/BMoCA-v0.

Measured in one run (medians over repeats):

* ``step``: one ``env.step`` (gesture, logcat read, detector, dump + parse);
* ``sim tap``: one ``SimPhone.gesture`` tap without observation;
* ``snapshot+restore``: ``env.snapshot()`` then ``env.restore(snap)`` at depth ``--depth``;
* ``reset+replay``: the baseline, ``env.reset(task)`` plus the same ``--depth`` actions;
* ``adb step`` (when Debian's ``adb`` is installed): ``adb shell input tap`` +
  ``adb shell uiautomator dump`` + ``adb pull`` through the fake adb server, i.e.
  what one step costs on the ADB path.

Prints the ratio replay / restore (target >= 100x at depth 8).

    python scripts/bench_android.py [--depth 8] [--repeats 30]
"""
from __future__ import annotations

import argparse
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args(argv)

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
    t_replay = median_time(replay, args.repeats)
    t_restore = median_time(lambda: env.restore(env.snapshot()), args.repeats * 10)
    t_snap = median_time(env.snapshot, args.repeats * 10)

    def one_step() -> None:
        env.restore(snap)
        env.step('press("BACK")')

    t_step_restore = median_time(one_step, args.repeats)
    phone = SimPhone("test_env_100")
    t_tap = median_time(lambda: phone.gesture(540, 1000, 540, 1000), args.repeats * 10)
    print(f"depth {args.depth} on {TASK}, medians of {args.repeats}+ repeats")
    print(f"  sim tap (no observation)   {t_tap * 1e6:10.1f} us")
    print(f"  env.step (restore + step)  {t_step_restore * 1e6:10.1f} us")
    print(f"  snapshot                   {t_snap * 1e6:10.1f} us")
    print(f"  snapshot + restore         {t_restore * 1e6:10.1f} us")
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
