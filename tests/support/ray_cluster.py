"""A two-node Ray cluster on this machine for tests, and fresh driver processes that use it.

:func:`two_node_cluster` (a module-scoped pytest fixture; import it into a test module) starts a head
(``ray start --head``) and a second node, each with one CPU and its own ports, waits until both are
registered, yields the head's address and, at teardown, stops the processes of this cluster only (by its
temp dir; ``ray stop`` would stop every Ray on the machine).

Code that joins the cluster runs in a fresh Python driver (:func:`in_fresh_driver`), never in the pytest
process: a Ray session an earlier test started in this process (the Ray executors keep theirs, with their
actors, for the process's lifetime) cannot join another cluster, and shutting it down would cancel the
actors it holds. So the cluster tests pass whatever ran before them in the worker.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

RAY = Path(sys.executable).with_name("ray")
ROOT = Path(__file__).resolve().parents[2]  # the checkout: `tests.support` imports in the driver
#: Ray 2.x: token auth is off for the cluster's processes and every driver joining it
RAY_ENV = {"RAY_AUTH_MODE": "disabled"}
_RESULT = "ray-cluster-driver-result:"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def in_fresh_driver(target: str, **kwargs: Any) -> Any:
    """``module:function(**kwargs)`` called in a new Python process (this interpreter, the checkout on its
    path, :data:`RAY_ENV` set); returns what the function returned, through JSON. A failure in the driver
    raises AssertionError with its stderr's tail."""
    module, function = target.split(":")
    code = (f"import json, {module} as m\n"
            f"out = m.{function}(**json.loads({json.dumps(json.dumps(kwargs))}))\n"
            f"print({_RESULT!r} + json.dumps(out, default=str))\n")
    env = {**os.environ, **RAY_ENV, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith(_RESULT)]
    if done.returncode != 0 or not lines:
        raise AssertionError(f"driver {target} exited {done.returncode}:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1][len(_RESULT):])


def alive_nodes(address: str, at_least: int = 1) -> list[str]:
    """The ids of the cluster's live nodes once there are ``at_least`` (run in a driver: it joins ``address``)."""
    import ray

    ray.init(address=address, log_to_driver=False)
    try:
        while True:
            nodes = sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))
            if len(nodes) >= at_least:  # a node registers a moment after `ray start` returns
                return nodes
            time.sleep(0.2)
    finally:
        ray.shutdown()


def _stop_processes_under(path: str) -> None:
    """Stop the Ray processes of one cluster (those whose command lines name its temp dir, and their
    descendants: dashboard and runtime-env agents, workers)."""
    import psutil

    named = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            if any(path in a for a in (p.info["cmdline"] or ())):
                named.append(p)
        except psutil.Error:
            continue
    mine: dict[int, Any] = {}
    for q in named:
        try:
            mine.update({p.pid: p for p in (q, *q.children(recursive=True))})
        except psutil.Error:
            mine[q.pid] = q
    for p in mine.values():
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(list(mine.values()), timeout=10)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass


def _start(args: list[str], temp: str) -> None:
    env = {**os.environ, **RAY_ENV}
    done = subprocess.run([str(RAY), "start", *args, "--num-cpus=1", "--disable-usage-stats",
                           f"--dashboard-agent-listen-port={_free_port()}", f"--temp-dir={temp}"],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"ray start {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


@pytest.fixture(scope="module")
def two_node_cluster() -> Iterator[str]:
    """The address (``127.0.0.1:port``) of a Ray head and a second node started on this machine for this
    test module; both stopped at teardown. Join it from :func:`in_fresh_driver`, not from the test process."""
    pytest.importorskip("ray")
    pytest.importorskip("psutil")
    # short: Ray's socket paths under it must fit AF_UNIX's 107 bytes (pytest-xdist's tmp paths do not)
    temp = tempfile.mkdtemp(prefix="raytest-", dir="/tmp")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    try:
        _start(["--head", f"--port={port}", "--include-dashboard=false"], temp)
        _start([f"--address={address}"], temp)
        in_fresh_driver("tests.support.ray_cluster:alive_nodes", address=address, at_least=2)
        yield address
    finally:
        _stop_processes_under(temp)
        shutil.rmtree(temp, ignore_errors=True)
