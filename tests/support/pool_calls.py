"""Module-level calls for process-pool tests (a spawned worker imports them by reference)."""
from __future__ import annotations

import os
import threading
import time


def timed_sleep(seconds: float) -> tuple[int, float, float]:
    """(worker pid, start, end) of a sleep."""
    t0 = time.time()
    time.sleep(seconds)
    return os.getpid(), t0, time.time()


def pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def divide(a: float, b: float) -> float:
    return a / b


def a_lock() -> threading.Lock:
    """A result that cannot be pickled."""
    return threading.Lock()


def announce_then_sleep(path: str, seconds: float) -> int:
    """Write this worker's pid to ``path``, then sleep (a call to kill the worker under)."""
    with open(path + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(path + ".tmp", path)
    time.sleep(seconds)
    return os.getpid()
