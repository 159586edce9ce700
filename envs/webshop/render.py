"""Renderings of a WebShop page (a tuple of engine :class:`Node`): ``html``, and the ``text`` and
``text_rich`` that upstream's text env reads off that HTML.

* ``html`` - the page the site serves, in upstream WebShop's structure
  (``web_agent_site/templates``), written here from its documented interface: the
  instruction in ``#instruction-text h4`` ("Instruction: " then the goal); the
  search form posting ``search_query`` from ``#search_input``; buttons
  (``<button class="btn ...">`` in POST forms whose actions are upstream's
  routes); product links ``<a class="product-link" href=...>``; options as
  ``<input type="radio" name=<option> value=<value> data-url=...>`` each with its
  ``<label>`` (a little script follows ``data-url`` on click, as upstream's does);
  the done page's score in ``<h3 id="reward">...<pre>score</pre></h3>``. Links carry
  the session id ``sid`` (``site_urls.LOCAL_SID`` outside the site). There is no
  whitespace between tags, and every node is one element with its text as the only
  content (``data-node="<role>"``), so :func:`parse_html` gets the exact nodes back.
* ``text`` - upstream's simple mode: the page's visible texts, stripped, joined by
  ``" [SEP] "``.
* ``text_rich`` - upstream's rich mode: one line per visible text; buttons as
  ``[button] X [button_]``; option labels indented two spaces, the selected ones as
  ``[clicked button] X [clicked button_]`` with a ``You have clicked X.`` line put
  in front of the page; product links after an empty line, visited ones clicked.

Because the page has exactly the nodes' texts, upstream's HTML-to-text over
:func:`render_html` gives :func:`render_text` / :func:`render_text_rich` of the
same nodes (tests/servers/test_webshop_upstream.py checks it through the site).
"""
from __future__ import annotations

from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

from . import site_urls
from .session import Node, Session

OBSERVATION_MODES = ("text", "text_rich", "html")
SEP = " [SEP] "
_CSS_FILE = Path(__file__).resolve().parent / "templates" / "webshop.css"
# Upstream's item page follows an option's data-url when its radio button is clicked.
_OPTION_SCRIPT = ("<script>document.querySelectorAll('input[type=radio][data-url]').forEach(function(r){"
                  "r.addEventListener('click',function(){window.location.href=r.dataset.url;});});</script>")


def render_text(nodes: tuple[Node, ...]) -> str:
    return SEP.join(n.text.strip() for n in nodes if n.text)


def render_text_rich(nodes: tuple[Node, ...]) -> str:
    out = ""
    for n in nodes:
        t = n.text
        if not t:
            continue
        if n.role in ("button", "searchbox"):
            piece = f"[button] {t} [button_]"
        elif n.role == "option":
            tag = "clicked button" if n.clicked else "button"
            piece = f"  [{tag}] {t} [{tag}_]"
            if n.clicked:
                out = f"You have clicked {t}.\n" + out
        elif n.role == "product":
            tag = "clicked button" if n.clicked else "button"
            piece = f"\n[{tag}] {t} [{tag}_]"
        else:
            piece = t
        out += piece + "\n"
    return out


@lru_cache(maxsize=1)
def stylesheet() -> str:
    try:
        return _CSS_FILE.read_text(encoding="utf-8")
    except OSError:  # a broken install: the page still works unstyled
        return ""


def _attr(value: str) -> str:
    return escape(value, quote=True)


def _post_button(url: str, label: str, cls: str) -> str:
    return (f'<form method="post" action="{_attr(url)}"><button type="submit" class="{cls}" '
            f'data-node="button">{escape(label)}</button></form>')


class _Page:
    """Turns one page's nodes into HTML: the URLs come from ``site_urls`` for session ``s`` and id ``sid``."""

    def __init__(self, s: Session, sid: str, catalog: Any):
        self.s, self.sid, self.catalog, self.urls = s, sid, catalog, site_urls

    def node(self, n: Node, index: int) -> str:
        t = escape(n.text)
        if n.role == "searchbox":
            return (f'<form id="search-form" method="post" action="{_attr(self.urls.search_url(self.sid))}">'
                    f'<input id="search_input" type="text" name="search_query" placeholder="Search..." required>'
                    f'<button type="submit" class="btn btn-search" data-node="searchbox">{t}</button></form>')
        if n.role == "button":
            cls = "btn btn-buy purchase" if n.text == "Buy Now" else "btn"
            return _post_button(self.urls.click_url(self.s, self.sid, n, self.catalog), n.text, cls)
        clicked = ' data-clicked="1"' if n.clicked else ""
        if n.role == "product":
            url = self.urls.click_url(self.s, self.sid, n, self.catalog)
            return f'<a class="product-link" href="{_attr(url)}" data-node="product"{clicked}>{t}</a>'
        if n.role == "option":
            url = self.urls.click_url(self.s, self.sid, n, self.catalog)
            name = n.group[4:] if n.group.startswith("opt-") else ""
            rid = f"radio_{index}"
            checked = " checked" if n.clicked else ""
            return (f'<input type="radio" id="{rid}" name="{_attr(name)}" value="{_attr(n.text)}" '
                    f'data-url="{_attr(url)}"{checked}><label for="{rid}" data-node="option"{clicked}>{t}</label>')
        if n.role == "label" and n.group == "score":
            return f'<span data-node="label">{t}</span>'
        if n.role == "text" and n.group == "score":
            return f'<pre data-node="text">{t}</pre>'
        tag = {"heading": "h2", "label": "span", "instruction": "span", "option_name": "h4"}.get(n.role, "p")
        extra = ' class="notice" role="alert"' if n.role == "notice" else ""
        return f'<{tag}{extra} data-node="{n.role}">{t}</{tag}>'

    def group_open(self, group: str) -> str:
        kind = group.split("-", 1)[0]
        if group == "instruction":
            return '<div id="instruction-text"><h4>'
        if group == "score":
            return '<h3 id="reward">'
        if kind == "opt":
            return f'<div class="option-group" data-group="{_attr(group)}"><div class="radio-toolbar">'
        return f'<div class="group {_attr(kind)}" data-group="{_attr(group)}">'

    @staticmethod
    def group_close(group: str) -> str:
        if group == "instruction":
            return "</h4></div>"
        if group == "score":
            return "</h3>"
        if group.startswith("opt-"):
            return "</div></div>"
        return "</div>"


def render_html(nodes: tuple[Node, ...], session: Session, catalog: Any, sid: str | None = None,
                title: str = "WebShop") -> str:
    """The full HTML page for ``session`` (whose page ``nodes`` are); links and forms use upstream's
    routes for session id ``sid`` (default ``site_urls.LOCAL_SID``)."""
    page = _Page(session, site_urls.LOCAL_SID if sid is None else sid, catalog)
    body: list[str] = []
    open_group = ""
    for i, n in enumerate(nodes):
        if n.group != open_group:
            if open_group:
                body.append(page.group_close(open_group))
            if n.group:
                body.append(page.group_open(n.group))
            open_group = n.group
        if n.group == "instruction" and n.role == "instruction":
            body.append("<br>")
        body.append(page.node(n, i))
    if open_group:
        body.append(page.group_close(open_group))
    script = _OPTION_SCRIPT if any(n.role == "option" for n in nodes) else ""
    kind = escape(session.page)
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(title)}</title><style>{stylesheet()}</style></head>"
        f"<body><div class=\"container page-{kind}\" data-page=\"{kind}\">{''.join(body)}</div>{script}</body></html>"
    )


def parse_html(html: str) -> tuple[Node, ...]:
    """The nodes of a page rendered by :func:`render_html` (what a browser shows, read back with bs4)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    nodes = []
    for el in soup.select("[data-node]"):
        parent = el.find_parent(attrs={"data-group": True})
        group = str(parent["data-group"]) if parent is not None else ""
        if parent is None and el.find_parent(id="instruction-text") is not None:
            group = "instruction"
        elif parent is None and el.find_parent(id="reward") is not None:
            group = "score"
        nodes.append(Node(role=str(el["data-node"]), text=el.get_text(),
                          clicked=el.get("data-clicked") == "1", group=group))
    return tuple(nodes)


def render(nodes: tuple[Node, ...], mode: str, session: Session | None = None, catalog: Any = None,
           sid: str | None = None) -> str:
    """``nodes`` in observation mode ``mode`` (one of ``OBSERVATION_MODES``); ``html`` needs the session
    and catalog (for the links)."""
    if mode == "text":
        return render_text(nodes)
    if mode == "text_rich":
        return render_text_rich(nodes)
    if mode == "html":
        if session is None or catalog is None:
            raise ValueError("the html rendering needs the session and the catalog (for its links)")
        return render_html(nodes, session, catalog, sid)
    raise ValueError(f"observation_mode must be one of {', '.join(OBSERVATION_MODES)}, got {mode!r}")
