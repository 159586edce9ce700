"""The request guard every treegym server installs: foreign ``Host`` and ``Origin`` headers are refused.

The servers have no authentication and bind 127.0.0.1, but a web page open in
the user's browser can still send requests to 127.0.0.1 (a cross-origin
``text/plain`` POST needs no preflight) and DNS rebinding makes a foreign name
resolve to 127.0.0.1. Both are stopped here: a request is answered 403 unless

* its ``Host`` names an allowed host (default: ``127.0.0.1``, ``localhost``,
  ``::1``; any port), and
* its ``Origin``, when the browser sends one, is ``http(s)://`` an allowed host,
* it is not a cross-site browser request: ``Sec-Fetch-Site: cross-site`` is
  refused, and so is a ``Referer`` whose host is not an allowed host. Browsers
  send no ``Origin`` on ``<img src>``, links and form GETs, and upstream
  WebShop changes state on GET (search, buy, new sessions), so without this a
  page on another site could drive the shop. Requests with neither header
  (python clients, curl, upstream's own text env) and a browser's own
  navigation (``none``, ``same-origin``, ``same-site`` from a loopback page)
  still pass.

Allow more hosts with ``allowed_hosts=`` (``"*"`` allows every host and
origin), ``treegym serve --allow-host NAME``, or the environment variable
``TREEGYM_ALLOWED_HOSTS`` (comma-separated). :func:`install_guard` is called
by :func:`treegym.servers.sessions.create_session_app`, so every app built on
it (WebShop, the tool server, any engine) has the guard.
"""
from __future__ import annotations

import os
from typing import Iterable, Mapping
from urllib.parse import urlsplit

from flask import Flask, jsonify, request

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
ALLOWED_HOSTS_ENV = "TREEGYM_ALLOWED_HOSTS"


def allowed_host_set(extra: Iterable[str] | None = None) -> frozenset[str]:
    """Loopback names, plus ``extra`` (None: ``$TREEGYM_ALLOWED_HOSTS``), lower-cased."""
    if extra is None:
        extra = os.environ.get(ALLOWED_HOSTS_ENV, "").split(",")
    return frozenset(h.strip().lower().strip("[]") for h in (*LOOPBACK_HOSTS, *extra) if h and h.strip())


def _hostname(netloc: str) -> str | None:
    """``"127.0.0.1:3000"`` -> ``"127.0.0.1"``; ``"[::1]:80"`` -> ``"::1"``; None when it does not parse."""
    try:
        return urlsplit("//" + netloc).hostname
    except ValueError:
        return None


def refusal(host_header: str | None, origin_header: str | None, allowed: frozenset[str]) -> str | None:
    """Why a request with these headers is refused, or None when it may pass."""
    if "*" in allowed:
        return None
    host = _hostname(host_header or "")
    if host not in allowed:
        return (f"refused: Host {str(host_header)[:80]!r} is not one this server answers to "
                f"({', '.join(sorted(allowed))}); start it with --allow-host NAME to allow another")
    if origin_header is not None:
        try:
            parts = urlsplit(origin_header) if origin_header.startswith(("http://", "https://")) else None
        except ValueError:  # "http://[::1" does not split
            parts = None
        if parts is None or _safe_hostname(parts) not in allowed:
            return (f"refused: cross-origin request from {origin_header[:80]!r}; only pages of "
                    f"{', '.join(sorted(allowed))} may call this server (--allow-host NAME to allow another)")
    return None


def cross_site_refusal(fetch_site: str | None, referer: str | None, allowed: frozenset[str]) -> str | None:
    """Why a browser request with these ``Sec-Fetch-Site`` / ``Referer`` headers is refused, or None."""
    if "*" in allowed:
        return None
    site = (fetch_site or "").strip().lower()
    ref_host = None
    if referer:
        try:
            ref_host = _safe_hostname(urlsplit(referer)) if referer.startswith(("http://", "https://")) else "?"
        except ValueError:  # "http://[::1/" does not split
            ref_host = "?"
    if site == "cross-site" or (ref_host is not None and ref_host not in allowed):
        came_from = f" from a page of {referer[:80]!r}" if referer else ""
        return (f"refused: a cross-site request{came_from} (Sec-Fetch-Site: {fetch_site or 'absent'}); this server "
                f"answers only its own pages and programs (python, curl); open it at one of "
                f"{', '.join(sorted(allowed))} (--allow-host NAME to allow another)")
    return None


def request_refusal(headers: Mapping[str, str], allowed: frozenset[str]) -> str | None:
    """Why a request with ``headers`` is refused (:func:`refusal`, then :func:`cross_site_refusal`), or None."""
    return (refusal(headers.get("Host"), headers.get("Origin"), allowed)
            or cross_site_refusal(headers.get("Sec-Fetch-Site"), headers.get("Referer"), allowed))


def _safe_hostname(parts) -> str | None:
    try:
        return parts.hostname
    except ValueError:
        return None


def install_guard(app: Flask, allowed_hosts: Iterable[str] | None = None) -> None:
    """Answer 403 (JSON ``{"error": ...}``) to requests :func:`refusal` refuses, before any route runs."""
    allowed = allowed_host_set(allowed_hosts)
    app.extensions["treegym_allowed_hosts"] = allowed

    @app.before_request
    def _guard():
        why = request_refusal(request.headers, allowed)
        if why is not None:
            return jsonify(error=why), 403
        return None
