"""The WebShop site: the generic session server over WebShop's engine, plus pages for people.

``create_app(catalog=None, ...)`` serves one catalog (a :class:`Catalog`, a
catalog directory, or None for the shipped default) to many concurrent
sessions. It is :func:`treegym.servers.sessions.create_session_app` over three
:class:`WebShopEngine` variants sharing the catalog (``text``, ``text_rich``,
``html``: how ``observation`` renders the page), so the JSON API is the generic
one (tasks are goal indices, the state is the engine's session record; see
``servers/sessions.py``)::

    POST   /api/sessions             {"task_id": i} | {"split": s} | {"state": record}, "variant"? -> 201
    POST   /api/sessions/<id>/step   {"action": "click[Buy Now]"} -> observation, info, reward, terminated
    GET    /api/sessions/<id>/expert -> {"action": the gold path's next action, "plan": [...], ...}
    ... reset, snapshot, restore, fork, DELETE, GET /api/tasks, GET /api/health

Pages, in upstream WebShop's site protocol (``upstream_routes.py``: the routes,
form fields and HTML that princeton-nlp/WebShop's text and site envs read), on
the same sessions::

    GET  /                       start page: pick a task number or a random one
    POST /start                  form ``goal`` (optional) -> 303 to /<id>, the session's search page
    GET|POST /<session>, /search_results/..., /item_page/..., /item_sub_page/..., /done/...
    GET  /s/<id>                 303 to the page the session is on

Errors are JSON ``{"error": "..."}`` (404 unknown or expired session, 400
malformed request, 413 body too large, 503 too many sessions).
"""
from __future__ import annotations

import os
import re
from typing import Any

from flask import Flask, redirect, request

from treegym.envs.webshop.catalog import Catalog, load_catalog, load_default_catalog
from treegym.envs.webshop.engine import WebShopEngine
from treegym.envs.webshop.render import OBSERVATION_MODES
from treegym.envs.webshop.site_urls import page_url

from ..sessions import (DEFAULT_MAX_CONTENT_LENGTH, DEFAULT_MAX_SESSIONS, DEFAULT_TTL, ApiError, SessionService,
                        create_session_app)
from .upstream_routes import add_upstream_routes


def create_app(catalog: Catalog | str | os.PathLike | None = None, *, ttl: float = DEFAULT_TTL,
               max_sessions: int = DEFAULT_MAX_SESSIONS,
               max_content_length: int = DEFAULT_MAX_CONTENT_LENGTH) -> Flask:
    """A Flask app serving ``catalog`` (see the module docstring)."""
    if catalog is None:
        catalog = load_default_catalog()
    elif not isinstance(catalog, Catalog):
        catalog = load_catalog(catalog)
    engines = {mode: WebShopEngine(catalog, mode) for mode in OBSERVATION_MODES}
    app = create_session_app(engines, ttl=ttl, max_sessions=max_sessions, max_content_length=max_content_length,
                             health=lambda: {"catalog": repr(catalog), "goals": len(catalog.goals)},
                             import_name=__name__)
    service: SessionService = app.extensions["sessions"]
    engine = engines["text"]

    @app.get("/")
    def index():
        n = len(catalog.goals)
        return (
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>WebShop</title>"
            "<style>body{font:16px system-ui,sans-serif;max-width:640px;margin:60px auto;padding:0 20px}"
            "input,button{font-size:16px;padding:6px 10px}</style></head><body>"
            "<h1>WebShop</h1><p>Each visit is one shopping task: read the instruction, search, "
            "choose a product and its options, and buy it. You get a score between 0 and 1.</p>"
            "<form method=\"post\" action=\"/start\"><label>Task number (0&ndash;"
            f"{n - 1}, empty for a random test task) <input name=\"goal\" inputmode=\"numeric\" size=\"6\"></label> "
            "<button type=\"submit\">Start shopping</button></form></body></html>"
        )

    @app.post("/start")
    def start():
        raw = (request.form.get("goal") or "").strip()
        data: dict[str, Any] = {}
        if raw:
            if not re.fullmatch(r"[0-9]{1,9}", raw):  # ASCII digits only: "²".isdigit() is True
                raise ApiError(400, f"task number must be a whole number in 0..{len(catalog.goals) - 1}, "
                                    f"got {raw[:40]!r}")
            data["task_id"] = int(raw)
        sid = service.create(service.new_live(data))
        return redirect(f"/{sid}", code=303)

    @app.get("/s/<sid>")
    def page(sid: str):
        return redirect(page_url(service.get(sid).state, sid), code=303)

    add_upstream_routes(app, service, engine)
    return app
