"""What a WebShop page shows: a session's page as a tuple of :class:`~.session.Node` (no rendering).

Pages follow upstream WebShop: the search page (instruction + search bar),
result pages (10 products per page over the top 50, ``< Prev``, ``Next >``,
``Back to Search``), the item page (option buttons, Description / Features /
Reviews tabs, ``Buy Now``), item sub-pages and the done page.
"""
from __future__ import annotations

from typing import Any

from .session import (BACK_TO_SEARCH, BUY_NOW, INSTRUCTION_LABEL, NEXT_PAGE, PAGE_DONE, PAGE_ITEM, PAGE_RESULTS,
                      PAGE_SEARCH, PAGE_SUB, PREV_PAGE, PRODUCTS_PER_PAGE, SUB_PAGES, Node, Session, _clean,
                      format_reward)


def build_page(catalog: Any, session: Session, instruction: str) -> tuple[Node, ...]:
    """The visible content of ``session``'s page in reading order (``instruction`` is the goal's text)."""
    nodes: list[Node] = []
    if session.notice:
        nodes.append(Node("notice", session.notice))
    if session.page == PAGE_DONE:
        nodes.extend(_done_nodes(catalog, session))
        return tuple(nodes)
    if session.page == PAGE_SEARCH:
        nodes.append(Node("heading", "WebShop"))
    nodes.append(Node("label", INSTRUCTION_LABEL, group="instruction"))
    nodes.append(Node("instruction", instruction, group="instruction"))
    if session.page == PAGE_SEARCH:
        nodes.append(Node("searchbox", "Search"))
    elif session.page == PAGE_RESULTS:
        nodes.extend(_results_nodes(catalog, session))
    elif session.page == PAGE_ITEM:
        nodes.extend(_item_nodes(catalog, session))
    elif session.page == PAGE_SUB:
        nodes.extend(_sub_nodes(catalog, session))
    return tuple(nodes)

def n_pages(session: Session) -> int:
    """Result pages of the session's search (at least 1)."""
    return max(1, -(-len(session.results) // PRODUCTS_PER_PAGE))

def page_asins(session: Session) -> tuple[str, ...]:
    """The ASINs listed on the session's current result page."""
    start = (session.page_num - 1) * PRODUCTS_PER_PAGE
    return session.results[start:start + PRODUCTS_PER_PAGE]

def _results_nodes(catalog: Any, s: Session) -> list[Node]:
    nodes = [Node("button", BACK_TO_SEARCH, group="nav"),
             Node("text", f"Page {s.page_num} (Total results: {len(s.results)})", group="nav")]
    if s.page_num > 1:
        nodes.append(Node("button", PREV_PAGE, group="nav"))
    if s.page_num < n_pages(s):
        nodes.append(Node("button", NEXT_PAGE, group="nav"))
    if not s.results:
        nodes.append(Node("text", f"No products match {s.query!r}. Go back and try other keywords."))
    for i, asin in enumerate(page_asins(s)):
        p = catalog.product(asin)
        g = f"card-{i}"
        nodes.append(Node("product", asin, clicked=asin in s.visited, group=g))
        nodes.append(Node("text", _clean(p.name), group=g))
        nodes.append(Node("text", _clean(p.price_text), group=g))
    return nodes

def _item_nodes(catalog: Any, s: Session) -> list[Node]:
    p = catalog.product(s.asin)
    selected = dict(s.options)
    nodes = [Node("button", BACK_TO_SEARCH, group="nav"), Node("button", PREV_PAGE, group="nav")]
    for name, values in p.options:
        g = f"opt-{name}"
        nodes.append(Node("option_name", _clean(name), group=g))
        for v in values:
            nodes.append(Node("option", _clean(v), clicked=selected.get(name) == v, group=g))
    rating = "N.A." if p.rating is None else f"{p.rating:.1f}"
    nodes += [Node("text", _clean(p.name), group="info"),
              Node("text", f"Price: {_clean(p.price_text)}", group="info"),
              Node("text", f"Rating: {rating}", group="info")]
    nodes += [Node("button", label, group="tabs") for label in SUB_PAGES]
    nodes.append(Node("button", BUY_NOW, group="buy"))
    return nodes

def _sub_nodes(catalog: Any, s: Session) -> list[Node]:
    p = catalog.product(s.asin)
    nodes = [Node("button", BACK_TO_SEARCH, group="nav"), Node("button", PREV_PAGE, group="nav")]
    if s.sub_page == "Description":
        if _clean(p.description):
            nodes.append(Node("text", _clean(p.description), group="sub"))
    elif s.sub_page == "Features":
        nodes += [Node("text", _clean(b), group="sub") for b in p.bullet_points if _clean(b)]
    else:
        for i, (score, title, body) in enumerate(p.reviews):
            g = f"review-{i}"
            nodes += [Node("text", _clean(title) or "(no title)", group=g),
                      Node("text", f"{score} out of 5 stars", group=g),
                      Node("text", _clean(body) or "(no text)", group=g)]
    return nodes

def _done_nodes(catalog: Any, s: Session) -> list[Node]:
    p = catalog.product(s.asin)
    nodes = [Node("heading", "Thank you for shopping with us!"),
             Node("label", "Purchased:", group="bought"), Node("text", s.asin, group="bought"),
             Node("text", _clean(p.name), group="bought")]
    for name, value in s.options:
        nodes.append(Node("text", f"{_clean(name)}: {_clean(value)}", group="bought"))
    nodes += [Node("label", "Your score (min 0.0, max 1.0)", group="score"),
              Node("text", format_reward(s.reward), group="score")]
    return nodes

