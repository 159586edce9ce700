"""Upstream WebShop's site protocol on our sessions: the routes princeton-nlp/WebShop's clients use.

Registered on the WebShop app by :func:`add_upstream_routes` (GET and POST alike, as upstream)::

    /<session>                                 search page; POST search_query=<text> -> 302 to the results
    /search_results/<session>/<keywords>/<page>
    /item_page/<session>/<asin>/<keywords>/<page>/<options>
    /item_sub_page/<session>/<asin>/<keywords>/<page>/<sub page>/<options>
    /done/<session>/<asin>/<options>           buys; the page's #reward block holds the reward

``<session>`` is any name of 1-64 letters, digits, ``-`` or ``_``: ``fixed_<n>``
plays goal ``n`` (upstream's convention), the id of a session made by the JSON
API or the start page is that session, and any other name gets its own session
on a random test goal the first time it is seen. A page request moves the
session to that page (``envs/webshop/site_urls.py`` says which state that is),
so the JSON API (``/api/sessions/<id>``) sees what the pages did, and the page is
rendered by the same renderer as the env's observations. A URL naming no page
(an unknown product, option or result page) answers 404 JSON saying why.
"""
from __future__ import annotations

import re
import threading
from typing import Any

from flask import Flask, redirect, request

from treegym.envs.webshop.engine import MAX_QUERY_CHARS, PAGE_DONE, PAGE_ITEM, PAGE_RESULTS, PAGE_SEARCH, PAGE_SUB, WebShopEngine
from treegym.envs.webshop.render import render_html
from treegym.envs.webshop.site_navigation import session_at
from treegym.envs.webshop.site_urls import AddressError, PageAddress, parse_address, results_url

from ..session_store import SESSION_ID_RE
from ..sessions import ApiError, Live, SessionService

_FIXED = re.compile(r"^fixed_(\d{1,9})$")
HTML = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}


class SessionNames:
    """The session names clients put in upstream URLs -> our session ids (thread-safe, bounded)."""

    def __init__(self, service: SessionService):
        self.service = service
        self._ids: dict[str, str] = {}
        self._lock = threading.Lock()

    def resolve(self, name: str) -> str:
        """The session id for ``name``, creating the session on first sight (see the module docstring)."""
        if not SESSION_ID_RE.match(name):
            raise ApiError(404, f"no page {name[:70]!r}: a session name is 1-64 letters, digits, '-' or '_'")
        with self._lock:  # one lock: two first requests for a name must not make two sessions
            for candidate in (self._ids.get(name), name):  # a mapped name, else a JSON API / start page session
                if candidate is not None and self._alive(candidate):
                    return candidate
            sid = self.service.create(self.service.new_live(self._task(name)))
            if len(self._ids) >= self.service.store.max_sessions:
                self._ids = {k: v for k, v in self._ids.items() if self._alive(v)}
            self._ids[name] = sid
            return sid

    def _alive(self, sid: str) -> bool:
        try:
            self.service.get(sid)
        except ApiError:
            return False
        return True

    def _task(self, name: str) -> dict[str, Any]:
        m = _FIXED.match(name)
        if not m:
            return {}
        n = len(self.service.engine().task_ids("all"))
        if int(m[1]) >= n:
            raise ApiError(404, f"no goal {m[1]} for session {name!r}: fixed_<n> takes a goal index 0..{n - 1}")
        return {"task_id": int(m[1])}


def add_upstream_routes(app: Flask, service: SessionService, engine: WebShopEngine) -> SessionNames:
    """Register upstream's routes (module docstring) on ``app``; returns the name table."""
    names = SessionNames(service)
    methods = ["GET", "POST"]

    def show(name: str, address: PageAddress):
        sid = names.resolve(name)

        def move(old: Live) -> tuple[Live, Any]:
            try:
                new = session_at(engine, old.state, address)
            except AddressError as exc:
                raise ApiError(404, f"no such page: {exc}") from None
            return Live(old.variant, new, old.task_id), new

        state = service.update(sid, move)
        return render_html(engine.page_nodes(state), state, engine.catalog, sid=name), 200, HTML

    @app.route("/<name>", methods=methods)
    def upstream_index(name: str):
        if request.method == "POST" and "search_query" in request.form:
            query = " ".join(request.form["search_query"].lower().split())[:MAX_QUERY_CHARS]  # as the engine cuts it
            if query:
                names.resolve(name)
                return redirect(results_url(name, query, 1), code=302)
        return show(name, PageAddress(PAGE_SEARCH))

    @app.route("/search_results/<name>/<path:rest>", methods=methods)
    def upstream_results(name: str, rest: str):
        return show(name, _address(PAGE_RESULTS, rest))

    @app.route("/item_page/<name>/<asin>/<path:rest>", methods=methods)
    def upstream_item(name: str, asin: str, rest: str):
        return show(name, _address(PAGE_ITEM, rest, asin))

    @app.route("/item_sub_page/<name>/<asin>/<path:rest>", methods=methods)
    def upstream_sub_page(name: str, asin: str, rest: str):
        return show(name, _address(PAGE_SUB, rest, asin))

    @app.route("/done/<name>/<asin>/<path:rest>", methods=methods)
    def upstream_done(name: str, asin: str, rest: str):
        return show(name, _address(PAGE_DONE, rest, asin))

    return names


def _address(kind: str, rest: str, asin: str = "") -> PageAddress:
    try:
        return parse_address(kind, rest, asin)
    except AddressError as exc:
        raise ApiError(404, f"no such page: {exc}") from None
