"""Renderings of a WebShop page (a tuple of engine :class:`Node`): ``text``, ``text_rich``, ``html``.

* ``text`` - upstream's rendering: the visible texts joined by ``" [SEP] "``
  (``WebShop [SEP] Instruction: [SEP] i need ... [SEP] Search``).
* ``text_rich`` - one node per line; buttons, product links and option values as
  ``[button] X [button_]``, selected options and visited products as
  ``[clicked button] X [clicked button_]``.
* ``html`` - the page the Flask site serves: plain HTML forms (every click is a
  POST to ``{base}/click`` with ``target``, the search bar posts ``q`` to
  ``{base}/search``) with an inline stylesheet. Every node is one element
  carrying ``data-node="<role>"`` whose only content is the node text, so
  :func:`parse_html` gets the exact nodes back (the env's HTTP mode relies on it).
"""
from __future__ import annotations

from functools import lru_cache
from html import escape
from pathlib import Path

from .engine import CLICKABLE_ROLES, Node

OBSERVATION_MODES = ("text", "text_rich", "html")
SEP = " [SEP] "
_CSS_FILE = Path(__file__).resolve().parent / "templates" / "webshop.css"


def render_text(nodes: tuple[Node, ...]) -> str:
    return SEP.join(n.text for n in nodes)


def render_text_rich(nodes: tuple[Node, ...]) -> str:
    lines = []
    for n in nodes:
        if n.role in CLICKABLE_ROLES or n.role == "searchbox":
            tag = "clicked button" if n.clicked else "button"
            lines.append(f"[{tag}] {n.text} [{tag}_]")
        else:
            lines.append(n.text)
    return "\n".join(lines)


@lru_cache(maxsize=1)
def stylesheet() -> str:
    try:
        return _CSS_FILE.read_text(encoding="utf-8")
    except OSError:  # a broken install: the page still works unstyled
        return ""


def _node_html(n: Node, base: str) -> str:
    t = escape(n.text)
    clicked = ' data-clicked="1"' if n.clicked else ""
    if n.role == "searchbox":
        return (f'<form class="search" method="post" action="{escape(base)}/search">'
                f'<input type="text" name="q" placeholder="Search products" aria-label="Search products" '
                f'autofocus required><button type="submit" class="btn btn-primary" data-node="searchbox">{t}</button></form>')
    if n.role in CLICKABLE_ROLES:
        cls = {"button": "btn", "product": "product-link", "option": "btn option"}[n.role]
        if n.clicked:
            cls += " clicked"
        if n.text == "Buy Now":
            cls += " btn-buy"
        return (f'<form class="inline" method="post" action="{escape(base)}/click">'
                f'<button type="submit" name="target" value="{t}" class="{cls}" data-node="{n.role}"{clicked}>{t}</button></form>')
    tag = {"heading": "h1", "label": "div", "instruction": "div", "notice": "div",
           "option_name": "div", "text": "div"}.get(n.role, "div")
    extra = ' role="alert"' if n.role == "notice" else ""
    return f'<{tag} class="{n.role}" data-node="{n.role}"{extra}>{t}</{tag}>'


def render_html(nodes: tuple[Node, ...], base: str = "", page: str = "", title: str = "WebShop") -> str:
    """The full HTML page; ``base`` prefixes form actions (the site passes ``/s/<session id>``)."""
    body: list[str] = []
    open_group = None
    for n in nodes:
        if n.group != open_group:
            if open_group:
                body.append("</div>")
            if n.group:
                kind = n.group.split("-", 1)[0]
                body.append(f'<div class="group {escape(kind)}" data-group="{escape(n.group)}">')
            open_group = n.group or None
        body.append(_node_html(n, base))
    if open_group:
        body.append("</div>")
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(title)}</title><style>{stylesheet()}</style></head>"
        f"<body><header class=\"topbar\"><a class=\"logo\" href=\"/\">WebShop</a></header>"
        f"<main class=\"page page-{escape(page)}\" data-page=\"{escape(page)}\">{''.join(body)}</main></body></html>"
    )


def parse_html(html: str) -> tuple[Node, ...]:
    """The nodes of a page rendered by :func:`render_html` (what a browser shows, read back with bs4)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    nodes = []
    for el in soup.select("[data-node]"):
        parent = el.find_parent(attrs={"data-group": True})
        nodes.append(Node(role=str(el["data-node"]), text=el.get_text(),
                          clicked=el.get("data-clicked") == "1",
                          group=str(parent["data-group"]) if parent is not None else ""))
    return tuple(nodes)


def parse_page_kind(html: str) -> str:
    from bs4 import BeautifulSoup

    main = BeautifulSoup(html, "html.parser").find(attrs={"data-page": True})
    return str(main["data-page"]) if main is not None else ""


def render(nodes: tuple[Node, ...], mode: str, base: str = "", page: str = "") -> str:
    """``nodes`` in observation mode ``mode`` (one of ``OBSERVATION_MODES``)."""
    if mode == "text":
        return render_text(nodes)
    if mode == "text_rich":
        return render_text_rich(nodes)
    if mode == "html":
        return render_html(nodes, base=base, page=page)
    raise ValueError(f"observation_mode must be one of {', '.join(OBSERVATION_MODES)}, got {mode!r}")
