"""Seeded, bounded fuzzing of treegym/BMoCA-v0 (simulator backend).

Random valid actions mixed with garbage, huge, unicode, near-miss and
wrong-type actions, over several configurations (an RTL tablet included) and
tasks; plus fork checks: a restored snapshot gives the observation it was taken
at, and replaying the same actions from it gives the same observations,
rewards and flags as the first time (restore equals replay).

It asserts that no exception escapes ``step()``, that an action either runs or
is reported invalid with a message, and that no call hangs: each call runs on
a worker thread and must return within ``HANG_SECONDS`` (a hang detector,
generous on purpose, not a speed target).

Size: ``TREEGYM_FUZZ_SCALE`` (default 1) multiplies the 320 fuzzed actions, 600 shell lines and
150 adb protocol requests (the last two: the simulated shell and the fake adb server);
``TREEGYM_FUZZ_HANG_SECONDS`` (default 120) is the hang bound, as for the other fuzz tests.
"""
from __future__ import annotations

import math
import os
import random
import threading
from typing import Any, Callable

from treegym.envs.android.env import BMoCAEnv
from treegym.envs.android.tasks import task_names

SEED = 20250
SCALE = max(0.1, float(os.environ.get("TREEGYM_FUZZ_SCALE", "1") or 1))
HANG_SECONDS = float(os.environ.get("TREEGYM_FUZZ_HANG_SECONDS", "120"))


def scaled(base: int) -> int:
    return max(1, int(base * SCALE))


ACTIONS = scaled(320)
STEPS_PER_EPISODE = 40
CONFIGS = ("test_env_100", "test_env_108", "train_env_003", "test_env_104")

WRONG_TYPES: tuple[Any, ...] = (None, 3, -1, 2.5, float("nan"), float("inf"), True, b"tap(0)", ["tap(0)"],
                                {"action": "tap(0)"}, ("swipe", "up"), object(), 10 ** 400, bytearray(b"x"))
NEAR_MISSES = ("tap(-1)", "tap(999999999)", "tap(" + "9" * 5000 + ")", "tap(0x10)", "tap(1.5)", "tap()", "tap(",
               'swipe("UP")', 'swipe("sideways")', "swipe()", 'press("home")', 'press("POWER")', "press(HOME)",
               "dual-gesture(0.5, 0.5, 0.5, 0.5)", "dual-gesture(1e309, 0, 0, 0)", "dual-gesture(nan, 0, 0, 0)",
               "dual-gesture(0.1, 0.2, 0.3)", "dual-gesture(2, 2, 2, 2)", "dual_gesture(0.9,0.5,0.1,0.5)",
               "Thought: hm\nAction: tap(0)", "Action:", "Action: Action: swipe(\"up\")", "```tap(0)```",
               "tap(0) tap(1)", "TAP(0)", "  tap ( 0 )  ", "\x00tap(0)", "tap(٣)", "tap(３)")


def garbage(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:  # random printable noise
        return "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randrange(0, 60)))
    if kind == 1:  # unicode, surrogates and controls included
        return "".join(chr(rng.choice([rng.randrange(0, 0x20), rng.randrange(0x80, 0xD7FF),
                                       rng.randrange(0xE000, 0x10FFFF)])) for _ in range(rng.randrange(1, 40)))
    if kind == 2:  # huge
        return rng.choice(["tap(0)", "swipe(\"up\")", "x"]) * rng.choice([1000, 100_000])
    if kind == 3:  # a valid function name with garbage arguments
        return f"{rng.choice(['tap', 'swipe', 'press', 'dual-gesture'])}({garbage(rng)[:30]})"
    return rng.choice(["", " ", "\n\n", "Action: ", "None", "null", "[]", "{}", "tap", "🙂", "\u202etap(0)"])


def pick_action(rng: random.Random, obs: dict) -> Any:
    r = rng.random()
    valid = obs.get("valid_actions") or ()
    if r < 0.5 and valid:
        return rng.choice(valid)
    if r < 0.6:
        return f"dual-gesture({rng.random():.3f}, {rng.random():.3f}, {rng.random():.3f}, {rng.random():.3f})"
    if r < 0.75:
        return rng.choice(NEAR_MISSES)
    if r < 0.9:
        return garbage(rng)
    return rng.choice(WRONG_TYPES)


def bounded(fn: Callable[[], Any], what: str) -> Any:
    """Run ``fn`` on a worker thread; fail on a hang, re-raise (as a test failure) what escapes it."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - reported below
            box["error"] = exc

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(HANG_SECONDS)
    assert not t.is_alive(), f"{what} did not return within {HANG_SECONDS} s (hang)"
    if "error" in box:
        raise AssertionError(f"{what} raised {type(box['error']).__name__}: {box['error']}") from box["error"]
    return box["value"]


def same_obs(a: dict, b: dict) -> bool:
    return a["text"] == b["text"] and tuple(a["valid_actions"]) == tuple(b["valid_actions"])


def test_fuzzed_actions_never_escape_step_and_forks_replay_exactly():
    rng = random.Random(SEED)
    names = task_names()
    env = BMoCAEnv(split="test", task_ids=[f"{c}/{n}" for c in CONFIGS for n in names])
    actions = invalid = forks = episodes = 0
    obs, left, task_id = {}, 0, ""
    while actions < ACTIONS:
        if left == 0:  # a new episode on the next configuration
            task_id = f"{CONFIGS[episodes % len(CONFIGS)]}/{rng.choice(names)}"
            episodes += 1
            obs, _info = bounded(lambda: env.reset(options={"task_id": task_id}), f"reset({task_id})")
            env.max_steps = left = STEPS_PER_EPISODE  # past the task limits, so more screens are reached
        if rng.random() < 0.15:  # fork: snapshot, a branch of a few actions, restore, replay it
            forks += 1
            snap, here = env.snapshot(), obs
            branch = [pick_action(rng, obs) for _ in range(rng.randrange(1, 5))]
            first = [bounded(lambda a=a: env.step(a), f"step({a!r:.80})") for a in branch]
            back, _ = bounded(lambda: env.restore(snap), "restore()")
            assert same_obs(back, here), f"{task_id}: restore did not give the snapshot's observation"
            again = [bounded(lambda a=a: env.step(a), f"step({a!r:.80})") for a in branch]
            for (o1, r1, t1, u1, i1), (o2, r2, t2, u2, i2) in zip(first, again):
                assert same_obs(o1, o2) and (r1, t1, u1) == (r2, t2, u2), \
                    f"{task_id}: replay after restore differs from the first branch ({branch!r:.200})"
                assert i1["message"] == i2["message"] and i1["invalid_action"] == i2["invalid_action"]
            obs = again[-1][0]
            continue
        a = pick_action(rng, obs)
        obs, reward, term, trunc, info = bounded(lambda a=a: env.step(a), f"{task_id}: step({a!r:.80})")
        actions += 1
        left -= 1
        assert isinstance(info["message"], str) and info["message"], "every step says what happened"
        assert reward in (0.0, 1.0) and not math.isnan(reward)
        if info["invalid_action"]:
            invalid += 1
            assert info["message"].startswith("Invalid action"), info["message"]
        if term or trunc:
            left = 0
    env.close()
    print(f"B-MoCA fuzz: {actions} actions ({invalid} invalid) in {episodes} episodes, {forks} fork checks, "
          "0 exceptions, 0 hangs")
    assert forks > 0 and 0 < invalid < actions


# ---------------------------------------------------------------- the simulated shell and the fake adb server
SHELL_WORDS = ("-p", "-c", "-d", "-v", "-b", "-t", "-n", "-a", "-e", "--user", "0", "-1", "999999999999", "x", "",
               ";", "&&", "||", "|", ">", "<", "2>&1", ">>", "/sdcard/x", "/data/x", "/dev/tty", "'", '"', "a=b",
               "epoch", "all", "packages", "volume", "--stream", "--set", "--get", "start", "dump", "tap", "keyevent",
               "put", "get", "system", "size", "density", "reset", "night", "persist.sys.locale", "ctl.restart",
               "zygote", "disable-user", "install", "com.android.settings", "KEYCODE_HOME", "1e309", "nan", "é",
               "🙂", "*:S", "Tag:I", "(", "[", "1234x")


def test_fuzzed_shell_lines_never_raise():
    """Random command lines over every command and built-in: an answer and a status, never an exception."""
    from treegym.envs.android.sim.commands import COMMANDS
    from treegym.envs.android.sim.phone import SimPhone
    from treegym.envs.android.sim.shell import BUILTINS, ShellSession

    rng = random.Random(SEED)
    names = sorted(COMMANDS) + sorted(BUILTINS) + ["nosuchcommand"]
    phone = SimPhone("test_env_108")
    statuses = set()
    for i in range(scaled(600)):
        words = [rng.choice(names)] + [rng.choice(SHELL_WORDS) for _ in range(rng.randrange(0, 8))]
        line = " ".join(words) + ("".join(chr(rng.randrange(1, 0x3000)) for _ in range(8)) if i % 4 == 0 else "")
        res = bounded(lambda: ShellSession(phone, root=bool(i % 2)).run(line), f"shell {line!r}")
        assert isinstance(res.stdout, bytes) and isinstance(res.stderr, bytes) and 0 <= res.status <= 255
        statuses.add(res.status)
    assert {0, 1, 127} <= statuses


def _raw(port: int, data: bytes) -> bytes:
    import socket

    out = b""
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_SECONDS) as s:
        try:  # the server may answer FAIL and close before it has read everything: that is allowed
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            while chunk := s.recv(65536):
                out += chunk
        except (ConnectionResetError, BrokenPipeError, OSError) as exc:
            if isinstance(exc, socket.timeout):
                raise
    return out


def _frame(text: bytes) -> bytes:
    return f"{len(text):04x}".encode() + text


def test_fuzzed_adb_protocol_requests_leave_the_server_serving():
    """Garbage, truncated, oversized and wrong-service requests: FAIL or a closed connection, and the server
    keeps answering (``host:version``) with the phone intact."""
    import struct

    from treegym.envs.android.sim.phone import SimPhone
    from treegym.servers.android.fake_adb import FakeAdbServer

    rng = random.Random(SEED)
    services = [b"shell:", b"shell,v2,raw:", b"exec:", b"sync:", b"root:", b"frob:", b"shell,v2,pty:", b"reboot:x"]
    with FakeAdbServer(SimPhone("test_env_100"), boot_seconds=0.05) as srv:
        before = srv.phone.dump_ui()
        for i in range(scaled(150)):
            kind = i % 6
            if kind == 0:
                data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
            elif kind == 1:
                data = f"{rng.randrange(0, 0x10000):04x}".encode() + garbage(rng).encode()[:200]
            elif kind == 2:
                data = _frame(b"host:" + garbage(rng).encode()[:300])
            elif kind == 3:
                cmd = rng.choice(services) + " ".join(rng.choice(SHELL_WORDS) for _ in range(4)).encode()
                data = _frame(b"host:transport-any") + _frame(cmd[:4000])
            elif kind == 4:
                head = rng.choice([b"STAT", b"RECV", b"LIST", b"SEND", b"DATA", b"ZZZZ"])
                arg = rng.choice([b"/sdcard/x", b"/data/y", garbage(rng).encode()[:50]])
                data = _frame(b"host:transport-any") + _frame(b"sync:") + head + struct.pack("<I", len(arg)) + arg
                data += rng.choice([b"", b"DATA\xff\xff\xff\xff", b"DONE\0\0\0\0", b"QUIT\0\0\0\0"])
            else:
                data = _frame(b"host:transport-any") + _frame(b"shell,v2,raw:") + bytes(rng.randrange(256)
                                                                                      for _ in range(30))
            bounded(lambda: _raw(srv.port, data), f"request {data[:60]!r}")
            for _ in range(100):  # after a reboot: the device is back within boot_seconds
                if srv.online():
                    break
                bounded(lambda: __import__("time").sleep(0.02), "sleep")
            assert bounded(lambda: _raw(srv.port, _frame(b"host:version")), "host:version") == b"OKAY00040029"
        srv.phone.reset_device("test_env_100")
        assert srv.phone.dump_ui() == before
