"""Upstream WebShop's URL scheme: the address of every page, both ways.

princeton-nlp/WebShop's site (``web_agent_site``) keeps almost nothing per
session but the goal: a page is addressed by its URL, and clients (its text and
site envs, ReAct/LATS-style HTTP clients) build or follow these URLs::

    /<session>                                                   search page (POST search_query=... searches)
    /search_results/<session>/<keywords>/<page>                  result page <page> (1-based) of a search
    /item_page/<session>/<asin>/<keywords>/<page>/<options>      a product, with its selected options
    /item_sub_page/<session>/<asin>/<keywords>/<page>/<sub>/<options>   Description / Features / Reviews
    /done/<session>/<asin>/<options>                             buy the product with these options

``keywords`` is the search text with words joined by ``+`` (upstream's text
env), a Python list literal (``['red', 'shoes']``, upstream's site), or plain
words; ``options`` a dict literal ``{"option name": "value"}`` (JSON or Python).
This module turns a :class:`~treegym.envs.webshop.engine.Session` into those
URLs (:func:`page_url`, :func:`click_url`: the links and form actions the HTML
page carries) and a URL back into a :class:`PageAddress` (:func:`parse_address`);
``site_navigation.session_at`` turns an address into the session the env would be
in, with the engine's own transitions. This module knows sessions, not the engine
(the engine renders pages with these URLs).
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .session import (BACK_TO_SEARCH, BUY_NOW, NEXT_PAGE, PAGE_DONE, PAGE_ITEM, PAGE_RESULTS, PAGE_SEARCH,
                      PAGE_SUB, PREV_PAGE, SUB_PAGES, Node, Session)

LOCAL_SID = "local"       # the session id in links of pages rendered outside the site (the env's html mode)
MAX_SEGMENT_CHARS = 4000  # a keywords or options segment longer than this is refused, never parsed
_SAFE = "+:,"  # left as they are in generated URLs; everything else is percent-encoded


class AddressError(ValueError):
    """A URL that names no page of this shop; the message says what was wrong."""


@dataclass(frozen=True)
class PageAddress:
    """A parsed upstream URL: ``kind`` is one of the engine's page kinds; the rest as the URL gave them."""

    kind: str
    query: str = ""
    page_num: int = 1
    asin: str = ""
    options: tuple[tuple[str, str], ...] = ()
    sub_page: str = ""


# ---------------------------------------------------------------------------------------------- URLs of a session
def keywords_segment(query: str) -> str:
    """The search text as upstream's text env writes it: words joined by ``+``."""
    return "+".join(query.split()) or "+"


def options_segment(options: tuple[tuple[str, str], ...] | dict) -> str:
    """Selected options as a JSON object (double quotes, as upstream's text env writes them; Python reads it too)."""
    return json.dumps(dict(options), ensure_ascii=False)


def _q(text: str) -> str:
    return quote(text, safe=_SAFE)


def search_url(sid: str) -> str:
    return f"/{_q(sid)}"


def results_url(sid: str, query: str, page_num: int) -> str:
    return f"/search_results/{_q(sid)}/{_q(keywords_segment(query))}/{page_num}"


def item_url(sid: str, asin: str, query: str, page_num: int, options: Any) -> str:
    return f"/item_page/{_q(sid)}/{_q(asin)}/{_q(keywords_segment(query))}/{page_num}/{_q(options_segment(options))}"


def sub_url(sid: str, asin: str, query: str, page_num: int, sub_page: str, options: Any) -> str:
    return (f"/item_sub_page/{_q(sid)}/{_q(asin)}/{_q(keywords_segment(query))}/{page_num}/{_q(sub_page)}/"
            f"{_q(options_segment(options))}")


def done_url(sid: str, asin: str, options: Any) -> str:
    return f"/done/{_q(sid)}/{_q(asin)}/{_q(options_segment(options))}"


def page_url(s: Session, sid: str) -> str:
    """The URL of the page session ``s`` is on."""
    if s.page == PAGE_RESULTS:
        return results_url(sid, s.query, s.page_num)
    if s.page == PAGE_ITEM:
        return item_url(sid, s.asin, s.query, s.page_num, s.options)
    if s.page == PAGE_SUB:
        return sub_url(sid, s.asin, s.query, s.page_num, s.sub_page, s.options)
    if s.page == PAGE_DONE:
        return done_url(sid, s.asin, s.options)
    return search_url(sid)


def click_url(s: Session, sid: str, node: Node, catalog: Any) -> str:
    """Where clicking ``node`` (a button, product link or option on ``s``'s page) leads."""
    if node.role == "product":
        return item_url(sid, node.text, s.query, s.page_num, ())
    if node.role == "option":
        chosen = dict(s.options)
        for name, values in catalog.product(s.asin).options:
            if node.group == f"opt-{name}" or (not node.group and node.text in values):
                chosen[name] = node.text
                break
        ordered = [(n, chosen[n]) for n, _ in catalog.product(s.asin).options if n in chosen]
        return item_url(sid, s.asin, s.query, s.page_num, ordered)
    label = node.text
    if node.role == "searchbox" or label == BACK_TO_SEARCH:
        return search_url(sid)
    if label == NEXT_PAGE:
        return results_url(sid, s.query, s.page_num + 1)
    if label == PREV_PAGE:
        if s.page == PAGE_SUB:
            return item_url(sid, s.asin, s.query, s.page_num, s.options)
        if s.page == PAGE_ITEM:
            return results_url(sid, s.query, s.page_num)
        return results_url(sid, s.query, s.page_num - 1)
    if label in SUB_PAGES:
        return sub_url(sid, s.asin, s.query, s.page_num, label, s.options)
    if label == BUY_NOW:
        return done_url(sid, s.asin, s.options)
    raise ValueError(f"no URL for button {label!r}")  # a page shows a button this scheme does not know


# ---------------------------------------------------------------------------------------------- parsing URLs
def parse_keywords(segment: str) -> str:
    """The search text of a keywords segment (``red+shoes``, ``['red', 'shoes']`` or ``red shoes``)."""
    if len(segment) > MAX_SEGMENT_CHARS:
        raise AddressError(f"the keywords in the URL are longer than {MAX_SEGMENT_CHARS} characters")
    text = segment.strip()
    if text.startswith("["):
        words = _literal(text, "keywords")
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise AddressError("keywords in brackets must be a list of strings, as in ['red', 'shoes']")
        return " ".join(words)
    return " ".join(text.replace("+", " ").split())


def parse_options(segment: str) -> tuple[tuple[str, str], ...]:
    """The ``(name, value)`` pairs of an options segment (``{}``, ``{"color": "red"}``, ``{'color': 'red'}``)."""
    if len(segment) > MAX_SEGMENT_CHARS:
        raise AddressError(f"the options in the URL are longer than {MAX_SEGMENT_CHARS} characters")
    value = _literal(segment.strip() or "{}", "options")
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise AddressError('options must be a dict of option name to value, as in {"color": "red"}')
    return tuple(value.items())


def parse_page(segment: str) -> int:
    if not (segment.isascii() and segment.isdigit()) or len(segment) > 6:
        raise AddressError(f"the page number in the URL must be a whole number from 1, got {segment[:20]!r}")
    return int(segment)


def _literal(text: str, what: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise AddressError(f"cannot read the {what} in the URL: {text[:60]!r}") from None


_ITEM_TAIL = re.compile(r"^(?P<kw>.*?)/(?P<page>[^/]+)/(?P<opts>\{.*\})$", re.DOTALL)
_SUB_TAIL = re.compile(r"^(?P<kw>.*?)/(?P<page>[^/]+)/(?P<sub>[^/]+)/(?P<opts>\{.*\})$", re.DOTALL)
_RESULTS_TAIL = re.compile(r"^(?P<kw>.*)/(?P<page>[^/]+)$", re.DOTALL)


def parse_address(kind: str, rest: str = "", asin: str = "") -> PageAddress:
    """The page a route names. ``rest`` is the URL after the session (and asin) segments: keywords may
    hold ``/`` and options are a literal that may too, so the route hands over the tail whole."""
    if kind == PAGE_SEARCH:
        return PageAddress(PAGE_SEARCH)
    if kind == PAGE_RESULTS:
        m = _RESULTS_TAIL.match(rest)
        if not m:
            raise AddressError("a result page URL is /search_results/<session>/<keywords>/<page>")
        return PageAddress(PAGE_RESULTS, parse_keywords(m["kw"]), parse_page(m["page"]))
    if kind == PAGE_DONE:
        return PageAddress(PAGE_DONE, asin=asin, options=parse_options(rest))
    m = (_SUB_TAIL if kind == PAGE_SUB else _ITEM_TAIL).match(rest)
    if not m:
        shape = "<keywords>/<page>/<sub page>/<options>" if kind == PAGE_SUB else "<keywords>/<page>/<options>"
        raise AddressError(f"a product page URL is /{'item_sub_page' if kind == PAGE_SUB else 'item_page'}"
                           f"/<session>/<asin>/{shape}")
    sub = ""
    if kind == PAGE_SUB:
        sub = next((t for t in SUB_PAGES if t.lower() == m["sub"].lower()), "")
        if not sub:
            raise AddressError(f"sub page {m['sub'][:40]!r} is not one of {', '.join(SUB_PAGES)}")
    return PageAddress(kind, parse_keywords(m["kw"]), parse_page(m["page"]), asin, parse_options(m["opts"]), sub)
