"""The session at a URL of upstream WebShop's site: :func:`session_at`.

Upstream's pages are functions of their URL (``site_urls``: the URL scheme, parsed into a
:class:`~treegym.envs.webshop.site_urls.PageAddress`); this module walks the engine's own
transitions to the session the env would be in on that page, so the site
(``servers/webshop``) and the env cannot disagree about what a page shows.
"""
from __future__ import annotations

from typing import Any

from treegym.envs.core.records import replaced

from .engine import WebShopEngine
from .session import (BUY_NOW, PAGE_DONE, PAGE_ITEM, PAGE_RESULTS, PAGE_SEARCH, PAGE_SUB, PRODUCTS_PER_PAGE,
                      Session)
from .site_urls import AddressError, PageAddress


def session_at(engine: WebShopEngine, current: Session, address: PageAddress) -> Session:
    """The session the env would be in on the page ``address`` names, for ``current``'s goal.

    Upstream's pages are functions of the URL, so any page can be visited at any
    time (also after a purchase: the session shops again). The search page starts
    over (as upstream's, it forgets the visited products); a result page runs the
    search (or reuses ``current``'s results for the same text: restoring never
    re-queries); a product page opens the product on that result page with the
    given options; ``done`` buys. Raises :class:`AddressError` for a page that
    does not exist (an unknown product, option or page number).
    """
    start = engine.reset_session(current)
    if address.kind == PAGE_SEARCH:
        return start
    visited = () if current.done else current.visited
    query = address.query.lower()
    if address.kind == PAGE_DONE:
        base = replaced(current, done=False, reward=0.0, reward_parts=(), notice="", visited=visited)
    else:
        if current.query == query and current.query:
            base = replaced(current, done=False, reward=0.0, reward_parts=(), visited=visited)
        elif not query and address.kind in (PAGE_ITEM, PAGE_SUB):  # a product page reached without a search
            base = replaced(start, visited=visited)
        else:
            base = engine.step(replaced(start, visited=visited), f"search[{query}]").state
            if base.page != PAGE_RESULTS:
                raise AddressError(f"cannot search for {address.query[:60]!r}: {base.notice}")
        n_pages = max(1, -(-len(base.results) // PRODUCTS_PER_PAGE))
        if not 1 <= address.page_num <= n_pages:
            raise AddressError(f"page {address.page_num} does not exist: the search for {query[:60]!r} "
                               f"has {n_pages} result page(s)")
        base = replaced(base, page=PAGE_RESULTS, page_num=address.page_num, asin="", options=(), sub_page="", notice="")
        if address.kind == PAGE_RESULTS:
            return base
    asin = address.asin if address.asin in engine.catalog.products else address.asin.upper()
    if asin not in engine.catalog.products:
        raise AddressError(f"no product {address.asin[:20]!r} in this shop")
    product = engine.catalog.product(asin)
    options = _product_options(product, address.options)
    s = replaced(base, page=PAGE_ITEM, asin=asin, options=options, sub_page="", notice="",
                      visited=base.visited if asin in base.visited else base.visited + (asin,))
    if address.kind == PAGE_SUB:
        return replaced(s, page=PAGE_SUB, sub_page=address.sub_page)
    if address.kind == PAGE_DONE:
        return engine.step(s, f"click[{BUY_NOW}]").state
    return s


def _product_options(product: Any, wanted: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``wanted`` as the product's own (name, value) pairs in its option order; names match
    case-insensitively (upstream lower-cases them). An option the product lacks is refused: buying
    with it would score an option the product cannot have."""
    own = {n.lower(): (n, set(vs)) for n, vs in product.options}
    chosen: dict[str, str] = {}
    for name, value in wanted:
        hit = own.get(name.lower())
        if hit is None or value not in hit[1]:
            raise AddressError(f"product {product.asin} has no option {name[:40]!r} = {value[:40]!r}")
        chosen[hit[0]] = value
    return tuple((n, chosen[n]) for n, _ in product.options if n in chosen)
