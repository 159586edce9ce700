"""Benchmark: many concurrent shoppers against the real WebShop site.

Starts ``treegym serve webshop --quiet`` in its own process (or uses ``--url``),
then runs shoppers from threads, each with its own session over a persistent
HTTP/1.1 connection. A shopper plays whole episodes along the gold path
(``GET /expert``, ``POST /step``, and ``GET /s/<id>``, which redirects to the
page a browser would load, then that page) and checks after every request that the answer is about *its*
session: the goal index, the instruction on the page and the last search text
must be its own. The same work is first done by 1 shopper (the baseline) and
then by ``--sessions`` shoppers (default 32); the script prints requests per
second for both, their ratio, latency medians, errors and isolation
violations (both must be zero).

Then the same through upstream WebShop's routes (what its text and site envs
and ReAct-style clients request): each shopper walks a gold path by URL
(``GET /fixed_<n>``, ``POST`` ``search_query``, the result page, the product with
its options, a sub-page and back, ``/done``), each shopper on its own goals,
and the script prints p50/p99 latency of every page kind with ``--sessions``
in flight and for the same walks made by 1 shopper (both after a warm-up pass
over them), checking every page shows its own goal's instruction
(and the done page its ``#reward``).

    python scripts/bench/bench_webshop_site.py [--sessions 32] [--episodes 3] [--catalog DIR] [--url URL]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from html import unescape
from urllib.parse import urlencode, urlsplit

from treegym.scripts.bench.bench_support import percentile, start_cli_server
from treegym.envs.webshop import load_catalog, load_default_catalog
from treegym.envs.webshop.engine import PAGE_SEARCH, WebShopEngine
from treegym.envs.webshop.session import format_reward
from treegym.envs.webshop.site_urls import page_url, search_url


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

    def call(self, method: str, path: str, body: dict | None = None, form: dict | None = None) -> tuple[int, str]:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if form is not None:
            data, headers = urlencode(form), {"Content-Type": "application/x-www-form-urlencoded"}
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
        self.last_location = resp.getheader("Location", "")
        if resp.status >= 400:
            self.errors.append(f"{method} {path}: HTTP {resp.status} {text[:200]}")
        return resp.status, text

    def page(self, sid: str) -> str:
        """The HTML page the session is on: ``/s/<id>`` answers 303 to it (a browser follows it)."""
        status, _ = self.call("GET", f"/s/{sid}")
        location = urlsplit(self.last_location)
        path = location.path + (f"?{location.query}" if location.query else "")
        return self.call("GET", path)[1] if status == 303 and location.path else ""

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
            if out.get("terminated"):
                continue
            page = self.page(sid)
            if instruction not in unescape(page):
                self.violations.append(f"session {sid}: page does not show its own instruction")
        state = json.loads(self.call("GET", f"/api/sessions/{sid}")[1])["state"]
        if state["goal_index"] != self.goal_index or not state["done"]:
            self.violations.append(f"session {sid}: ended in state of goal {state['goal_index']}, done={state['done']}")
        if query is not None and state.get("query") not in ("", query):
            self.violations.append(f"session {sid}: query {state.get('query')!r} is not its own {query!r}")
        self.call("DELETE", f"/api/sessions/{sid}")


def run_together(shoppers: list, episodes: int) -> float:
    """Start every shopper at once (threads behind a barrier), each playing ``episodes`` episodes; wall seconds."""
    barrier = threading.Barrier(len(shoppers) + 1)

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
    return time.perf_counter() - t0


def run(url: str, n_sessions: int, episodes: int, n_goals: int) -> dict:
    shoppers = [Shopper(url, i % n_goals) for i in range(n_sessions)]
    wall = run_together(shoppers, episodes)
    lat = [x for s in shoppers for x in s.latencies]
    return {
        "sessions": n_sessions, "requests": sum(s.requests for s in shoppers), "seconds": wall,
        "rps": sum(s.requests for s in shoppers) / wall, "median_ms": statistics.median(lat) * 1e3,
        "p90_ms": sorted(lat)[int(0.9 * (len(lat) - 1))] * 1e3,
        "errors": [e for s in shoppers for e in s.errors],
        "violations": [v for s in shoppers for v in s.violations],
    }


@dataclass(frozen=True)
class PageVisit:
    """One request of an upstream-route walk and what its answer must show."""

    kind: str                  # the page kind, the key its latency is filed under
    method: str
    path: str
    form: dict | None = None   # POST form fields
    instruction: str = ""      # the goal's instruction: every page but done shows it
    reward: str = ""           # the done page's #reward text


class UpstreamShopper(Shopper):
    """A shopper that uses only upstream WebShop's routes, following gold paths' URLs; latencies by page kind."""

    def __init__(self, url: str, walks: list[list[PageVisit]]):
        super().__init__(url, 0)
        self.walks = walks
        self.by_kind: dict[str, list[float]] = {}

    def episode(self) -> None:
        for walk in self.walks:
            for v in walk:
                status, page = self.call(v.method, v.path, form=v.form)
                self.by_kind.setdefault(v.kind, []).append(self.latencies[-1])
                if v.method == "POST":
                    if status != 302:
                        self.errors.append(f"POST {v.path}: HTTP {status}, expected a 302 to the results")
                elif v.kind == "done":
                    if 'id="reward"' not in page or f">{v.reward}<" not in page:
                        self.violations.append(f"{v.path}: #reward does not hold {v.reward}")
                elif v.instruction not in unescape(page):
                    self.violations.append(f"{v.path}: the page does not show its own goal's instruction")


def gold_walks(catalog_dir: str | None, goals: list[int]) -> dict[int, list[PageVisit]]:
    """For each goal, the upstream URLs of its gold path, with a Features sub-page and back on the way."""
    catalog = load_default_catalog() if catalog_dir is None else load_catalog(catalog_dir)
    engine = WebShopEngine(catalog)
    walks = {}
    for goal in goals:
        name, s = f"fixed_{goal}", engine.new_session(goal)
        ins = engine.instruction(s)
        walk = [PageVisit("search", "GET", search_url(name), instruction=ins)]
        while not s.done:
            action = engine.expert_action(s)
            if s.page == PAGE_SEARCH:
                walk.append(PageVisit("search POST (302)", "POST", search_url(name), {"search_query": action[7:-1]}))
            elif action == "click[Buy Now]":
                sub = engine.step(s, "click[Features]").state
                walk += [PageVisit("item_sub", "GET", page_url(sub, name), instruction=ins),
                         PageVisit("item", "GET", page_url(s, name), instruction=ins)]
            s = engine.step(s, action).state
            walk.append(PageVisit(s.page, "GET", page_url(s, name), instruction=ins,
                                  reward=format_reward(s.reward) if s.done else ""))
        walks[goal] = walk
    return walks


def run_upstream(url: str, walks: dict[int, list], n_sessions: int, episodes: int) -> dict:
    goals = sorted(walks)
    shoppers = [UpstreamShopper(url, [walks[goals[(i + k * n_sessions) % len(goals)]] for k in range(episodes)])
                for i in range(n_sessions)]
    wall = run_together(shoppers, 1)  # one episode = all of a shopper's walks
    kinds: dict[str, list[float]] = {}
    for s in shoppers:
        for kind, lat in s.by_kind.items():
            kinds.setdefault(kind, []).extend(lat)
    return {"sessions": n_sessions, "seconds": wall, "requests": sum(s.requests for s in shoppers),
            "kinds": {k: (len(v), percentile(v, 0.5) * 1e3, percentile(v, 0.99) * 1e3) for k, v in kinds.items()},
            "errors": [e for s in shoppers for e in s.errors],
            "violations": [v for s in shoppers for v in s.violations]}


def start_site(catalog: str | None) -> tuple[subprocess.Popen, str]:
    return start_cli_server("webshop", "--expert", *(["--catalog", catalog] if catalog else []))


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
        walks = gold_walks(args.catalog, list(range(min(n_goals, args.sessions * args.episodes))))
        run_upstream(url, walks, 4, len(walks) // 4)  # warm-up: searches cached, pages memoised for both runs
        up_base = run_upstream(url, walks, 1, len(walks))  # the same walks, one after the other
        up_many = run_upstream(url, walks, args.sessions, args.episodes)
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
    print(f"Upstream WebShop routes (gold paths by URL, a sub-page on the way; {len(walks)} goals):")
    print(f"  {'page kind':20s} {'1 shopper p50 / p99 ms':>24s} {str(args.sessions) + ' in flight p50 / p99 ms':>28s}"
          f" {'requests':>9s}")
    for kind in ("search", "search POST (302)", "results", "item", "item_sub", "done"):
        if kind in up_many["kinds"]:
            n, p50, p99 = up_many["kinds"][kind]
            _, b50, b99 = up_base["kinds"].get(kind, (0, float("nan"), float("nan")))
            print(f"  {kind:20s} {b50:11.1f} / {b99:8.1f}    {p50:13.1f} / {p99:8.1f}    {n:9d}")
    for label, r in (("1 shopper", up_base), (f"{args.sessions} in flight", up_many)):
        print(f"  {label:12s} {r['requests']} requests in {r['seconds']:.2f} s = {r['requests'] / r['seconds']:.1f} "
              f"req/s, errors {len(r['errors'])}, wrong pages {len(r['violations'])}")
    print(f"  throughput ratio {args.sessions} vs 1: "
          f"{(up_many['requests'] / up_many['seconds']) / (up_base['requests'] / up_base['seconds']):.2f}x")
    print(f"  load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs; other work on the machine skews latency)")
    problems = [x for r in (base, many, up_base, up_many) for x in r["errors"] + r["violations"]]
    for problem in problems[:10]:
        print("  !", problem)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
