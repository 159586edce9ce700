"""A web page on another site cannot drive any treegym server (servers/guard.py).

Browsers send no ``Origin`` on ``<img src>``, links and form GETs, and upstream
WebShop changes state on GET, so the guard decides on ``Sec-Fetch-Site`` and
``Referer``. Every route of every server (WebShop site, tool APIs, the session
server of an env, OpenEnv) is sent the headers Chromium sends for a cross-site
``<img>`` and must answer 403 with a message; the same route with the headers
of the site's own page, or of a program (no such headers), is not refused by
the guard. Then real headless Chromium loads a page of another site
(``localhost`` vs ``127.0.0.1``: another host name is another site) that embeds
``<img src=...>`` pointing at the shop, and no session is created.
"""
from __future__ import annotations

import http.client
import time

import pytest

from fuzzing import route_paths
from support.http_json import http_json
from treegym.servers.run import serve_in_thread


# what Chromium sends for an <img> on a page of http://localhost:PORT pointing at 127.0.0.1
CROSS_SITE_IMG = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image",
                  "Referer": "http://localhost:9/evil.html"}
OLD_BROWSER_LINK = {"Referer": "http://evil.example/page.html"}  # no Sec-Fetch-* at all, only the Referer


def _apps(catalog):
    from support.line_engine import LineEngine

    from treegym.servers.env_server import create_env_app
    from treegym.servers.sessions import create_session_app
    from treegym.servers.toolbench import create_app as tools_app
    from treegym.servers.webshop import create_app as webshop_app

    apps = {"webshop": webshop_app(catalog), "tools": tools_app(), "sessions": create_session_app(LineEngine()),
            "env-server": create_env_app("treegym/Game24-v0")}
    try:
        from treegym.servers.openenv import create_openenv_app
    except ImportError:
        pass
    else:
        try:
            apps["openenv"] = create_openenv_app("treegym/Game24-v0")
        except ImportError:
            pass
    return apps


def _send(srv, method: str, path: str, headers: dict) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=120)
    try:
        body = b"{}" if method in ("POST", "PUT", "PATCH") else None
        conn.request(method, path, body=body, headers={"Content-Type": "application/json", **headers})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_every_route_of_every_server_refuses_a_cross_site_browser_request(catalog):
    for name, app in _apps(catalog).items():
        routes = route_paths(app)
        assert len(routes) >= 3, name
        with serve_in_thread(app) as srv:
            own = {"Sec-Fetch-Site": "same-origin", "Referer": f"{srv.url}/"}
            for method, path in routes:
                for headers in (CROSS_SITE_IMG, OLD_BROWSER_LINK):
                    status, body = _send(srv, method, path, headers)
                    assert status == 403 and b"cross-site request" in body, (name, method, path, headers, body[:200])
                for headers in (own, {"Sec-Fetch-Site": "none"}, {}):  # its own pages, the address bar, python
                    status, body = _send(srv, method, path, headers)
                    assert b"cross-site request" not in body, (name, method, path, headers, status)
                    assert status < 500, (name, method, path, headers, status, body[:300])


def test_a_page_on_another_site_cannot_create_or_drive_shop_sessions(catalog, tmp_path):
    from support.browser import browser_missing, start_chromium

    from treegym.servers.webshop import create_app as webshop_app

    why = browser_missing()
    if why:
        pytest.skip(why)
    from flask import Flask

    seen: list[dict] = []
    arrived: list[str] = []
    shop_app = webshop_app(catalog)
    inner = shop_app.wsgi_app

    def record_arrivals(environ, start_response):  # every request, before the guard sees it
        arrived.append(environ.get("HTTP_SEC_FETCH_SITE", ""))
        return inner(environ, start_response)

    shop_app.wsgi_app = record_arrivals

    @shop_app.before_request
    def _log():  # runs after the guard: only requests the guard let through are logged
        from flask import request
        seen.append(dict(request.headers))

    with serve_in_thread(shop_app) as shop:
        evil = Flask("evil")
        targets = [f"{shop.url}/fixed_1", f"{shop.url}/search_results/fixed_1/shoes/1",
                   f"{shop.url}/api/sessions"]
        page = "".join(f'<img src="{t}">' for t in targets) + '<p id="done">loaded</p>'
        evil.add_url_rule("/evil.html", "evil", lambda: page)
        with serve_in_thread(evil, host="127.0.0.1") as other:
            driver = start_chromium(tmp_path / "profile")
            try:
                driver.get(f"http://localhost:{other.port}/evil.html")  # another host name: another site
                assert driver.find_element("id", "done").text == "loaded"
                time.sleep(1.0)  # let the image requests finish; nothing to poll for when they are refused
                driver.get(f"{shop.url}/fixed_1")  # the user's own visit, typed in the address bar
                own_page = driver.page_source
            finally:
                driver.quit()
    assert arrived.count("cross-site") >= len(targets), arrived  # Chromium sent the <img> requests, so marked
    passed = [h.get("Sec-Fetch-Site") for h in seen]
    assert "cross-site" not in passed and passed[0] == "none", passed
    assert "search" in own_page.lower()


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

def test_every_server_refuses_foreign_host_and_origin_unless_allowed(catalog):
    from treegym.servers.run import serve_in_thread
    from treegym.servers.toolbench import create_app as tools_app
    from treegym.servers.webshop import create_app as webshop_app

    for app in (tools_app(), webshop_app(catalog)):
        with serve_in_thread(app) as srv:
            # a web page's cross-origin text/plain POST (no preflight), and DNS rebinding (a foreign Host)
            status, body = http_json(srv, "POST", "/api/sessions", b"{}", {"Content-Type": "text/plain",
                                                                      "Origin": "http://evil.example"})
            assert status == 403 and "cross-origin" in body["error"]
            status, body = http_json(srv, "POST", "/api/sessions", b"{}", {"Host": "evil.example"})
            assert status == 403 and "evil.example" in body["error"]
            status, _ = http_json(srv, "POST", "/api/sessions", b"{}", {"Origin": f"http://127.0.0.1:{srv.port}"})
            assert status == 201  # the site's own pages, and clients sending no Origin, are served
    from treegym.servers.sessions import create_session_app
    from support.line_engine import LineEngine

    with serve_in_thread(create_session_app(LineEngine(), allowed_hosts=["shop.lan"])) as srv:
        assert http_json(srv, "POST", "/api/sessions", b"{}", {"Host": "shop.lan:80"})[0] == 201
        assert http_json(srv, "POST", "/api/sessions", b"{}", {"Host": "evil.example"})[0] == 403
