"""Soak test: many concurrent sessions on each treegym server for N minutes, with fuzz mixed in.

    python scripts/dev/soak.py --minutes 10 [--clients 32] [--fuzz 0.2] [--seed 0]

Starts ``treegym serve webshop`` and ``treegym serve tools`` as their own
processes on 127.0.0.1 (free ports; nothing else is contacted), then runs
``--clients`` client threads per server (the tool server's clients spread over
its ToolBench, RestBench and ToolTasks session APIs). Each client plays
sessions: create, step listed actions, snapshot, fork, restore, delete; a
``--fuzz`` share of its requests are garbage (malformed, nested, huge and
wrong-type bodies, odd actions, mutated snapshots). At the end it prints, per
server: requests, answers by class, errors (5xx, refused connections, broken
answers), latency p50/p99 and the server's RSS at start, after warm-up and at
the end. Exit 1 when any error was seen. Bounded: every request has a timeout,
the run stops at the deadline.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from treegym.scripts.bench.bench_support import percentile, start_cli_server

SERVERS = {"webshop": [""], "tools": ["", "/restbench", "/tooltasks"]}
ODD = ["", "\x00", "\\c", "🙂" * 30, "[" * 3000 + "]" * 3000, "x" * 50_000, "{", "1e309", "click[]", "search[]",
       "Action: x\nAction Input: {", '{"name": "Finish", "arguments": {"return_type": 3}}']


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, seconds: float, status: int | None, error: str | None = None) -> None:
        with self.lock:
            self.latencies.append(seconds)
            self.statuses[f"{status // 100}xx" if status else "failed"] += 1
            if error:
                self.errors.append(error)


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kb / 1024


def _serve(site: str) -> tuple[subprocess.Popen, int]:
    """The site served in a child process, and its port."""
    proc, url = start_cli_server(site)
    return proc, int(url.rsplit(":", 1)[1])


class Client:
    """One client thread's session loop against one server (see the module docstring)."""

    def __init__(self, port: int, prefixes: list[str], stats: Stats, rng: random.Random, fuzz: float):
        self.port, self.prefixes, self.stats, self.rng, self.fuzz = port, prefixes, stats, rng, fuzz

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int | None, dict]:
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
            resp = conn.getresponse()
            raw = resp.read()
            status = resp.status
        except (OSError, http.client.HTTPException) as exc:
            self.stats.add(time.perf_counter() - t0, None, f"{method} {path}: {type(exc).__name__}: {exc}")
            return None, {}
        finally:
            conn.close()
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            data = {}
            if status < 300 or status >= 500:
                self.stats.add(time.perf_counter() - t0, status, f"{method} {path}: {status} not JSON: {raw[:80]!r}")
                return status, data
        error = f"{method} {path}: {status} {str(data.get('error'))[:160]}" if status >= 500 else None
        self.stats.add(time.perf_counter() - t0, status, error)
        return status, data if isinstance(data, dict) else {}

    def junk_body(self) -> bytes:
        r = self.rng
        return r.choice([b"", b"{", b"[]", b"null", b'{"action": 5}', b'{"task_id": 1e309}', b'{"task_id": [1]}',
                         b'{"state": {"task_id": null}}', ("[" * 2000 + "]" * 2000).encode(),
                         b'{"action": "' + b"x" * 60_000 + b'"}', json.dumps({"action": r.choice(ODD)}).encode(),
                         bytes(r.randrange(256) for _ in range(40))])

    def mutate(self, value):
        r = self.rng
        if isinstance(value, dict) and value:
            out = dict(value)
            k = r.choice(list(out))
            out[k] = self.mutate(out[k]) if r.random() < 0.5 else r.choice([None, -1, "", [], {}, "x", 2 ** 70])
            return out
        if isinstance(value, list) and value:
            out = list(value)
            out[r.randrange(len(out))] = r.choice([None, 3, "x", {}])
            return out
        return r.choice([None, -1, "", [], {"a": 1}])

    def session(self, deadline: float) -> None:
        r, prefix = self.rng, self.rng.choice(self.prefixes)
        api = f"{prefix}/api/sessions"
        status, made = self.request("POST", api, json.dumps({"seed": r.randrange(10 ** 6)}).encode())
        if status != 201:
            return
        sid = made["session_id"]
        obs = made.get("observation") or {}
        for _ in range(r.randrange(3, 15)):
            if time.monotonic() > deadline:
                break
            roll = r.random()
            if roll < self.fuzz:
                kind = r.randrange(4)
                if kind == 0:
                    self.request("POST", f"{api}/{sid}/step", self.junk_body())
                elif kind == 1:
                    self.request("POST", f"{api}/{sid}/step", json.dumps({"action": r.choice(ODD)}).encode())
                elif kind == 2:
                    _, snap = self.request("POST", f"{api}/{sid}/snapshot")
                    if "state" in snap:
                        self.request("POST", f"{api}/{sid}/restore",
                                     json.dumps({"state": self.mutate(snap["state"])}).encode())
                else:
                    self.request("POST", api, self.junk_body())
            elif roll < 0.85:
                valid = list(obs.get("valid_actions") or []) or ["look"]
                status, out = self.request("POST", f"{api}/{sid}/step",
                                           json.dumps({"action": r.choice(valid)}).encode())
                if status == 200:
                    obs = out.get("observation") or {}
                    if out.get("terminated"):
                        break
            elif roll < 0.9:
                _, snap = self.request("POST", f"{api}/{sid}/snapshot")
                if "state" in snap:
                    self.request("POST", f"{api}/{sid}/restore", json.dumps({"state": snap["state"]}).encode())
            elif roll < 0.95:
                status, forked = self.request("POST", f"{api}/{sid}/fork")
                if status == 201:
                    self.request("DELETE", f"{api}/{forked['session_id']}")
            else:
                self.request("GET", f"{api}/{sid}")
        self.request("DELETE", f"{api}/{sid}")

    def run(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            self.session(deadline)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--clients", type=int, default=32, help="concurrent client threads per server (default 32)")
    ap.add_argument("--fuzz", type=float, default=0.2, help="share of requests that are garbage (default 0.2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--servers", default="webshop,tools", help="comma list of webshop, tools")
    args = ap.parse_args(argv)
    sites = [s for s in args.servers.split(",") if s]
    started = {site: _serve(site) for site in sites}
    stats = {site: Stats() for site in sites}
    rss = {site: [rss_mb(proc.pid)] for site, (proc, _port) in started.items()}
    deadline = time.monotonic() + args.minutes * 60
    threads = []
    for site, (_proc, port) in started.items():
        for i in range(args.clients):
            client = Client(port, SERVERS[site], stats[site], random.Random(f"{args.seed}:{site}:{i}"), args.fuzz)
            threads.append(threading.Thread(target=client.run, args=(deadline,), daemon=True))
    t0 = time.monotonic()
    for t in threads:
        t.start()
    warm = min(60.0, args.minutes * 60 / 5)
    time.sleep(warm)
    for site, (proc, _port) in started.items():
        rss[site].append(rss_mb(proc.pid))
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    failed = False
    print(f"soak: {args.minutes:g} min, {args.clients} clients per server, fuzz {args.fuzz:g}, "
          f"load {os.getloadavg()[0]:.2f}")
    for site, (proc, _port) in started.items():
        s = stats[site]
        rss[site].append(rss_mb(proc.pid))
        alive = proc.poll() is None
        proc.terminate()
        proc.wait(timeout=30)
        n = len(s.latencies)
        errors = len(s.errors) + (0 if alive else 1)
        failed |= errors > 0
        print(f"  {site:8s} requests {n} ({n / wall:.0f}/s)  answers {dict(sorted(s.statuses.items()))}  "
              f"errors {errors}  p50 {percentile(s.latencies, 0.5) * 1000:.1f} ms  "
              f"p99 {percentile(s.latencies, 0.99) * 1000:.1f} ms  RSS {rss[site][0]:.0f} -> "
              f"{rss[site][1]:.0f} (after {warm:.0f} s) -> {rss[site][2]:.0f} MB "
              f"(growth after warm-up {rss[site][2] - rss[site][1]:+.0f} MB)" + ("" if alive else "  SERVER DIED"))
        for e in s.errors[:5]:
            print(f"    error: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
