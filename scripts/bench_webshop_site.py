"""Benchmark: many concurrent shoppers against the real WebShop site.

Starts ``treegym serve webshop --quiet`` in its own process (or uses ``--url``),
then runs shoppers from threads, each with its own session over a persistent
HTTP/1.1 connection. A shopper plays whole episodes along the gold path
(``GET /expert``, ``POST /step``, and ``GET /s/<id>`` for the page a browser
would load) and checks after every request that the answer is about *its*
session: the goal index, the instruction on the page and the last search text
must be its own. The same work is first done by 1 shopper (the baseline) and
then by ``--sessions`` shoppers (default 32); the script prints requests per
second for both, their ratio, latency medians, errors and isolation
violations (both must be zero).

    python scripts/bench_webshop_site.py [--sessions 32] [--episodes 3] [--catalog DIR] [--url URL]
"""
from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import threading
import time
from html import unescape
from urllib.parse import urlsplit


class Shopper:
    """One session on the site over one keep-alive connection; records latencies and problems."""

    def __init__(self, url: str, goal_index: int):
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.goal_index = goal_index
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.violations: list[str] = []
        self.requests = 0

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, str]:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            text = resp.read().decode("utf-8")
        except (OSError, http.client.HTTPException):
            self.conn.close()  # one retry on a fresh connection (the server may close idle ones)
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            text = resp.read().decode("utf-8")
        self.latencies.append(time.perf_counter() - t0)
        self.requests += 1
        if resp.status >= 400:
            self.errors.append(f"{method} {path}: HTTP {resp.status} {text[:200]}")
        return resp.status, text

    def episode(self) -> None:
        status, text = self.call("POST", "/api/sessions", {"task_id": self.goal_index})
        if status != 201:
            return
        made = json.loads(text)
        sid, instruction = made["session_id"], made["observation"]["instruction"]
        query = None
        for _ in range(20):
            action = json.loads(self.call("GET", f"/api/sessions/{sid}/expert")[1])["action"]
            if action is None:
                break
            if action.startswith("search["):
                query = action[7:-1].lower()
            out = json.loads(self.call("POST", f"/api/sessions/{sid}/step", {"action": action})[1])
            if out.get("info", {}).get("goal_index") != self.goal_index or out.get("observation", {}).get("instruction") != instruction:
                self.violations.append(f"session {sid} of goal {self.goal_index} got another session's answer")
            page = self.call("GET", f"/s/{sid}")[1]
            if out.get("terminated"):
                continue
            if instruction not in unescape(page):
                self.violations.append(f"session {sid}: page does not show its own instruction")
        state = json.loads(self.call("GET", f"/api/sessions/{sid}")[1])["state"]
        if state["goal_index"] != self.goal_index or not state["done"]:
            self.violations.append(f"session {sid}: ended in state of goal {state['goal_index']}, done={state['done']}")
        if query is not None and state.get("query") not in ("", query):
            self.violations.append(f"session {sid}: query {state.get('query')!r} is not its own {query!r}")
        self.call("DELETE", f"/api/sessions/{sid}")


def run(url: str, n_sessions: int, episodes: int, n_goals: int) -> dict:
    shoppers = [Shopper(url, i % n_goals) for i in range(n_sessions)]
    barrier = threading.Barrier(n_sessions + 1)

    def work(s: Shopper) -> None:
        barrier.wait()
        for _ in range(episodes):
            try:
                s.episode()
            except Exception as exc:  # noqa: BLE001 - counted as an error
                s.errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(s,)) for s in shoppers]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    lat = [x for s in shoppers for x in s.latencies]
    return {
        "sessions": n_sessions, "requests": sum(s.requests for s in shoppers), "seconds": wall,
        "rps": sum(s.requests for s in shoppers) / wall, "median_ms": statistics.median(lat) * 1e3,
        "p90_ms": sorted(lat)[int(0.9 * (len(lat) - 1))] * 1e3,
        "errors": [e for s in shoppers for e in s.errors],
        "violations": [v for s in shoppers for v in s.violations],
    }


def start_site(catalog: str | None) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "treegym.scripts.cli", "serve", "webshop", "--port", "0", "--quiet", "--expert"]
    if catalog:
        cmd += ["--catalog", catalog]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
    if not m:
        proc.kill()
        raise SystemExit(f"the site did not start: {line}{proc.stderr.read()}")
    return proc, m.group(1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=32)
    ap.add_argument("--episodes", type=int, default=3, help="episodes per shopper")
    ap.add_argument("--catalog", default=None, help="catalog directory for the site it starts")
    ap.add_argument("--url", default=None, help="use this running site instead of starting one")
    args = ap.parse_args(argv)

    proc = None
    url = args.url
    if url is None:
        proc, url = start_site(args.catalog)
    try:
        conn = Shopper(url, 0)
        health = json.loads(conn.call("GET", "/api/health")[1])
        n_goals = int(health["goals"])
        run(url, 2, 1, n_goals)  # warm-up: index opened, pages rendered once
        base = run(url, 1, args.episodes * 4, n_goals)
        many = run(url, args.sessions, args.episodes, n_goals)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()
    print(f"WebShop site at {url} ({health['catalog']})")
    for label, r in (("1 shopper (baseline)", base), (f"{args.sessions} concurrent shoppers", many)):
        print(f"  {label:26s} {r['requests']:6d} requests in {r['seconds']:6.2f} s = {r['rps']:7.1f} req/s, "
              f"latency median {r['median_ms']:.1f} ms, p90 {r['p90_ms']:.1f} ms, "
              f"errors {len(r['errors'])}, isolation violations {len(r['violations'])}")
    print(f"  throughput ratio {args.sessions} vs 1: {many['rps'] / base['rps']:.2f}x")
    for problem in (many["errors"] + many["violations"] + base["errors"] + base["violations"])[:10]:
        print("  !", problem)
    return 0 if not (many["errors"] or many["violations"] or base["errors"] or base["violations"]) else 1


if __name__ == "__main__":
    sys.exit(main())
