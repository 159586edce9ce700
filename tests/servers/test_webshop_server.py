"""The WebShop site: JSON API, HTML forms, errors, expiry, concurrency, and `treegym serve`."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from treegym.envs.webshop.engine import WebShopEngine
from treegym.envs.webshop.render import render_text
from treegym.servers.session_store import SessionStore
from treegym.servers.webshop import create_app
from treegym.servers.run import serve_in_thread



@pytest.fixture(scope="module")
def site(catalog):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TREEGYM_SERVE_EXPERT", "1")  # these tests drive sessions with the gold path
        app = create_app(catalog, max_content_length=4096)
    with serve_in_thread(app) as srv:
        yield srv


def call(url: str, method: str = "GET", body=None, raw: bytes | None = None,
         content_type: str = "application/json") -> tuple[int, object]:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req) as resp:
            payload = resp.read().decode()
            status, ctype = resp.status, resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        payload, status, ctype = exc.read().decode(), exc.code, exc.headers.get("Content-Type", "")
    return status, (json.loads(payload) if "json" in ctype else payload)


def test_session_lifecycle_over_json(site, catalog):
    engine = WebShopEngine(catalog)
    status, made = call(f"{site.url}/api/sessions", "POST", {"task_id": 3})
    assert status == 201 and made["observation"]["instruction"] == engine.instruction(engine.new_session(3))
    sid = made["session_id"]
    expert = call(f"{site.url}/api/sessions/{sid}/expert")[1]["action"]
    assert expert.startswith("search[")
    status, stepped = call(f"{site.url}/api/sessions/{sid}/step", "POST", {"action": expert})
    assert status == 200 and stepped["info"]["page"] == "results" and stepped["reward"] == 0.0
    state = call(f"{site.url}/api/sessions/{sid}/snapshot", "POST")[1]["state"]
    assert state["page"] == "results" and state["goal_index"] == 3
    call(f"{site.url}/api/sessions/{sid}/step", "POST", {"action": "click[Back to Search]"})
    assert call(f"{site.url}/api/sessions/{sid}")[1]["state"]["page"] == "search"
    status, restored = call(f"{site.url}/api/sessions/{sid}/restore", "POST", {"state": state})
    assert status == 200 and restored["info"]["page"] == "results"
    got = call(f"{site.url}/api/sessions/{sid}")[1]
    assert got["state"] == state
    assert got["observation"]["text"] == render_text(engine.page_nodes(engine.session_from_json(state)))
    assert call(f"{site.url}/api/sessions/{sid}", "DELETE") == (200, {"closed": sid})
    status, err = call(f"{site.url}/api/sessions/{sid}")
    assert status == 404 and "no session" in err["error"]


def test_errors_are_json_and_say_what_to_do(site):
    status, err = call(f"{site.url}/api/sessions/nope/step", "POST", {"action": "click[x]"})
    assert status == 404 and "POST /api/sessions" in err["error"]
    status, err = call(f"{site.url}/s/not-a-session")
    assert status == 404 and isinstance(err, dict) and "error" in err
    status, err = call(f"{site.url}/api/sessions/{'x' * 100}")
    assert status == 404 and "session ids" in err["error"]
    sid = call(f"{site.url}/api/sessions", "POST", {"task_id": 0})[1]["session_id"]
    assert call(f"{site.url}/api/sessions/{sid}/step", "POST", raw=b"{not json")[0] == 400
    status, err = call(f"{site.url}/api/sessions/{sid}/step", "POST", {"action": 42})
    assert status == 400 and "string action" in err["error"]
    status, err = call(f"{site.url}/api/sessions", "POST", {"task_id": -1})
    assert status == 400 and "not a goal index" in err["error"]
    status, err = call(f"{site.url}/api/sessions", "POST", {"split": "holdout"})
    assert status == 400 and "holdout" in err["error"]
    status, err = call(f"{site.url}/api/sessions/{sid}/restore", "POST", {"state": {"page": "done"}})
    assert status == 400 and "bad session state" in err["error"]
    status, err = call(f"{site.url}/api/sessions/{sid}/step", "POST", {"action": "x" * 10_000})
    assert status == 413 and "too large" in err["error"]
    # the session survived every bad request
    assert call(f"{site.url}/api/sessions/{sid}")[1]["state"]["page"] == "search"
    status, stepped = call(f"{site.url}/api/sessions/{sid}/step", "POST", {"action": "dance[]"})
    assert status == 200 and stepped["reward"] == 0.0 and not stepped["terminated"]
    assert "Invalid action" in call(f"{site.url}/api/sessions/{sid}")[1]["observation"]["text"]


def test_browsing_with_forms_buys_a_product(site, catalog):
    """What a person does: start, search, click through, buy - by forms and links, on the session the
    start page made, which the JSON API sees too."""
    from support.upstream_webshop import UpstreamStyleClient

    resp = urllib.request.urlopen(urllib.request.Request(f"{site.url}/start", data=b"goal=0", method="POST"))
    sid = resp.geturl().rsplit("/", 1)[1]
    assert re.fullmatch(r"[A-Za-z0-9_-]+", sid)
    html = resp.read().decode()
    assert 'id="search_input"' in html and 'name="search_query"' in html
    assert catalog.goal(0).instruction_text.split()[0] in html
    shopper = UpstreamStyleClient(site.url)
    shopper.reset(sid)
    for _ in range(12):
        action = call(f"{site.url}/api/sessions/{sid}/expert")[1]["action"]
        if action is None:
            break
        shopper.step(action)
        assert call(f"{site.url}/s/{sid}")[1] == shopper.html  # /s/<id> leads to the page the session is on
    assert "Thank you for shopping with us!" in shopper.html
    state = call(f"{site.url}/api/sessions/{sid}")[1]["state"]
    assert state["done"] and shopper.reward() == state["reward"] > 0


def test_start_page_and_health(site):
    status, html = call(f"{site.url}/")
    assert status == 200 and 'action="/start"' in html
    status, health = call(f"{site.url}/api/health")
    assert status == 200 and health["status"] == "ok" and health["goals"] > 0
    status, err = call(f"{site.url}/start", "POST", raw=b"goal=abc", content_type="application/x-www-form-urlencoded")
    assert status == 400 and "whole number" in err["error"]
    for bad in ("²".encode(), "٣".encode(), b"99999999999", b"-1"):  # str.isdigit() is True for the first two
        status, err = call(f"{site.url}/start", "POST", raw=b"goal=" + bad,
                           content_type="application/x-www-form-urlencoded")
        assert status == 400 and "whole number" in err["error"], (bad, status, err)
    status, err = call(f"{site.url}/start", "POST", raw=b"goal=999999", content_type="application/x-www-form-urlencoded")
    assert status == 400 and "not a goal index" in err["error"]


def test_store_expires_and_bounds_sessions(catalog):
    now = [0.0]
    store = SessionStore(ttl=10, max_sessions=2, clock=lambda: now[0])
    engine = WebShopEngine(catalog)
    a = store.create(engine.new_session(0))
    b = store.create(engine.new_session(1))
    with pytest.raises(RuntimeError, match="limit"):
        store.create(engine.new_session(2))
    now[0] = 5
    store.get(a)  # touching keeps a alive
    now[0] = 12
    assert store.get(a).goal_index == 0
    with pytest.raises(KeyError):
        store.get(b)  # expired
    c = store.create(engine.new_session(2))
    assert len(store) == 2 and store.delete(c) and not store.delete(c)
    now[0] = 100
    assert store.purge_expired() == 1 and len(store) == 0


def test_expired_sessions_give_404_on_the_site(catalog):
    app = create_app(catalog, ttl=0.05)
    client = app.test_client()
    sid = client.post("/api/sessions", json={"task_id": 0}).get_json()["session_id"]
    assert client.get(f"/api/sessions/{sid}").status_code == 200
    time.sleep(0.1)
    resp = client.get(f"/api/sessions/{sid}")
    assert resp.status_code == 404 and "expired" in resp.get_json()["error"]


def test_concurrent_sessions_stay_separate(site, catalog):
    goals = list(range(min(12, len(catalog.goals))))
    errors: list[str] = []

    def shopper(gi: int) -> None:
        try:
            sid = call(f"{site.url}/api/sessions", "POST", {"task_id": gi})[1]["session_id"]
            for _ in range(10):
                action = call(f"{site.url}/api/sessions/{sid}/expert")[1]["action"]
                if action is None:
                    break
                out = call(f"{site.url}/api/sessions/{sid}/step", "POST", {"action": action})[1]
                if out["info"]["goal_index"] != gi:
                    errors.append(f"session for goal {gi} saw goal {out['info']['goal_index']}")
            state = call(f"{site.url}/api/sessions/{sid}")[1]["state"]
            if not state["done"] or state["asin"] != catalog.goal(gi).asin:
                errors.append(f"goal {gi}: ended on {state['page']} with {state['asin']}")
            call(f"{site.url}/api/sessions/{sid}", "DELETE")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(f"goal {gi}: {exc!r}")

    threads = [threading.Thread(target=shopper, args=(gi,)) for gi in goals]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_treegym_serve_runs_the_site(catalog):
    proc = subprocess.Popen([sys.executable, "-m", "treegym.scripts.cli", "serve", "webshop", "--port", "0",
                             "--catalog", str(catalog.root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line + proc.stderr.read()
        status, health = call(f"http://127.0.0.1:{m.group(1)}/api/health")
        assert status == 200 and health["status"] == "ok"
        # upstream's text env's way in: its server asks for goal 4's search page (the site's fixed_4)
        from support.upstream_webshop import instruction_text

        from treegym.servers.webshop.upstream_client import SiteServer

        html, url, status = SiteServer(f"http://127.0.0.1:{m.group(1)}").receive("abc", None, session_int=4)
        assert url.endswith("/fixed_4") and status == {"reward": 0.0, "done": False}
        assert instruction_text(html) == "Instruction: " + " ".join(catalog.goal(4).instruction_text.split())
    finally:
        proc.terminate()
        proc.wait()


def test_serve_rejects_a_bad_catalog(tmp_path, capsys):
    from treegym.scripts.cli import main

    assert main(["serve", "webshop", "--catalog", str(tmp_path / "missing"), "--port", "0"]) == 1
    assert "cannot load the catalog" in capsys.readouterr().err


def test_the_site_is_the_session_server_with_observation_variants(site, catalog):
    engine = WebShopEngine(catalog)
    status, health = call(f"{site.url}/api/health")
    assert health["variants"] == ["text", "text_rich", "html"]
    assert call(f"{site.url}/api/tasks")[1]["splits"]["test"] == list(catalog.split("test"))
    status, made = call(f"{site.url}/api/sessions", "POST", {"task_id": 4, "variant": "html"})
    assert status == 201 and made["observation"]["text"].startswith("<!DOCTYPE html>")
    sid = made["session_id"]
    expert = call(f"{site.url}/api/sessions/{sid}/expert")[1]
    gold = engine.expert(engine.new_session(4))
    assert expert["plan"] == list(gold.plan) and expert["action"] == gold.plan[0] and expert["value"] == gold.value
    call(f"{site.url}/api/sessions/{sid}/step", "POST", {"action": expert["action"]})
    status, fork = call(f"{site.url}/api/sessions/{sid}/fork", "POST")
    assert status == 201 and fork["info"]["page"] == "results"
    call(f"{site.url}/api/sessions/{fork['session_id']}/step", "POST", {"action": "click[Back to Search]"})
    assert call(f"{site.url}/api/sessions/{sid}")[1]["state"]["page"] == "results"  # the fork moved alone
    assert call(f"{site.url}/api/sessions/{fork['session_id']}")[1]["variant"] == "html"


# ---- bodies sent without Content-Type: application/json (issue 8)
def test_json_body_without_a_json_content_type_is_read(site):
    import http.client

    # urllib and `curl -d` label a body form-urlencoded unless told otherwise
    status, made = call(f"{site.url}/api/sessions", "POST", {"task_id": 3},
                        content_type="application/x-www-form-urlencoded")
    assert status == 201
    assert call(f"{site.url}/api/sessions/{made['session_id']}")[1]["state"]["goal_index"] == 3
    # and with no Content-Type header at all
    host, port = site.url.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port))
    conn.putrequest("POST", "/api/sessions")
    payload = json.dumps({"task_id": 7}).encode()
    conn.putheader("Content-Length", str(len(payload)))
    conn.endheaders(payload)
    resp = conn.getresponse()
    made = json.loads(resp.read())
    conn.close()
    assert resp.status == 201
    assert call(f"{site.url}/api/sessions/{made['session_id']}")[1]["state"]["goal_index"] == 7


def test_a_form_body_is_refused_not_turned_into_a_random_goal(site):
    status, answer = call(f"{site.url}/api/sessions", "POST", raw=b"task_id=3",
                          content_type="application/x-www-form-urlencoded")
    assert status == 400 and "JSON object" in answer["error"] and "task_id=3" in answer["error"]
