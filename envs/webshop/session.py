"""WebShop sessions, page nodes and the action syntax: the values the engine, renderers and site share.

* :class:`Session` -- the whole state of one shopping episode (immutable);
* :class:`Node` -- one visible element of a page (``render.py`` renders tuples of them);
* :func:`parse_action`, :func:`canonical_action`, :func:`bounded_action` -- upstream's
  ``search[...]`` / ``click[...]`` syntax;
* :func:`available_actions_from_nodes`, :func:`valid_actions_from_nodes` -- what a page offers;
* :func:`session_from_json` -- validate a client's JSON session against a catalog.

This module imports nothing else from the package, so the engine, ``render``
and ``site_urls`` all build on it without import cycles.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Mapping, NamedTuple

from treegym.envs.core.state_json import StateReader

SEARCH_RETURN_N = 50      # products a search returns
PRODUCTS_PER_PAGE = 10    # products per result page
MAX_QUERY_CHARS = 500     # longer search text is cut (a query, not a document)

PAGE_SEARCH, PAGE_RESULTS, PAGE_ITEM, PAGE_SUB, PAGE_DONE = "search", "results", "item", "item_sub", "done"
PAGE_KINDS = (PAGE_SEARCH, PAGE_RESULTS, PAGE_ITEM, PAGE_SUB, PAGE_DONE)
BACK_TO_SEARCH, NEXT_PAGE, PREV_PAGE, BUY_NOW = "Back to Search", "Next >", "< Prev", "Buy Now"
SUB_PAGES = ("Description", "Features", "Reviews")
INSTRUCTION_LABEL = "Instruction: "  # upstream's #instruction-text h4 reads "Instruction: <goal>"
SEARCH_TEMPLATE = "search[...]"   # how valid_actions lists the search bar
ACTION_TEMPLATES = ("search[<query>]",)  # the free-text action (contract.py's action_templates)
GOLD_PATH_LIMIT = 30      # actions the expert plans at most (a gold path takes 3-8)

_ACTION_RE = re.compile(r"^\s*(search|click)\s*\[(.*)\]\s*$", re.IGNORECASE | re.DOTALL)


def _clean(text: Any) -> str:
    """Page text as one line: whitespace runs collapsed, so every rendering agrees."""
    return " ".join(str(text).split())


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


@dataclass(frozen=True)
class Node:
    """One visible element of a page: ``role`` says what it is, ``text`` what it shows.

    Roles: ``heading``, ``label``, ``instruction``, ``notice``, ``text``, ``searchbox``
    (the search bar's button), ``button``, ``product`` (a product link, text = ASIN),
    ``option_name``, ``option`` (an option value button). ``clicked`` marks selected
    options and visited products; ``group`` is a layout hint for the HTML page only.
    """

    role: str
    text: str
    clicked: bool = False
    group: str = ""


CLICKABLE_ROLES = ("button", "product", "option")


@dataclass(frozen=True, slots=True)
class Session:
    """The whole state of one shopping episode (immutable; JSON-able via ``to_json``).

    ``goal_index`` indexes ``catalog.goals``. ``page`` is one of ``PAGE_KINDS``.
    ``query`` is the last search text (lower-case), ``results`` its top-50 ASINs
    (kept so restoring never re-queries the index), ``page_num`` the 1-based result
    page. ``asin`` is the open product; ``options`` the selected ``(name, value)``
    pairs in the product's option order; ``sub_page`` one of ``SUB_PAGES`` or "".
    ``visited`` lists opened products in order. ``done``/``reward``/``reward_parts``
    are set by Buy Now. ``notice`` explains why the last action did nothing ("" if it worked).

    Slotted (no instance dict): a session is one object, so dropping one (a fork replacing a
    sub-env's session) frees that object and whatever it alone holds, nothing more.
    """

    goal_index: int
    page: str = PAGE_SEARCH
    query: str = ""
    results: tuple[str, ...] = ()
    page_num: int = 1
    asin: str = ""
    options: tuple[tuple[str, str], ...] = ()
    sub_page: str = ""
    visited: tuple[str, ...] = ()
    done: bool = False
    reward: float = 0.0
    reward_parts: tuple[tuple[str, Any], ...] = ()
    notice: str = ""

    def to_json(self) -> dict[str, Any]:
        """A plain-JSON dict (lists for tuples) that :meth:`WebShopEngine.session_from_json` reads back."""
        return {
            "goal_index": self.goal_index, "page": self.page, "query": self.query,
            "results": list(self.results), "page_num": self.page_num, "asin": self.asin,
            "options": [list(o) for o in self.options], "sub_page": self.sub_page,
            "visited": list(self.visited), "done": self.done, "reward": self.reward,
            "reward_parts": [[k, v] for k, v in self.reward_parts], "notice": self.notice,
        }

    # What an engine derives from a session (its page, rendering, actions) is memoised on the session
    # object itself (:meth:`WebShopEngine._derived`), in a slot that takes no part in equality,
    # hashing, ``replace`` (a replaced session starts without it) or ``to_json``. It is pickled along
    # when its catalog travels by key (the shipped one, or one loaded from a directory): a session
    # restored in another process is then observed without rendering its page again (a cold restore
    # costs less than a step).
    _derived: Any = field(default=None, init=False, compare=False, hash=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        d = state.pop(_DERIVED)
        if d is not None and getattr(d.catalog, "travels_by_key", False):
            state[_DERIVED] = d
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """From :meth:`__getstate__`'s dict (also a pickle of the unslotted class: its ``__dict__``)."""
        put = object.__setattr__
        put(self, _DERIVED, None)
        for f in fields(self):
            if f.name in state:
                put(self, f.name, state[f.name])
            elif f.name != _DERIVED:
                put(self, f.name, f.default)


_DERIVED = "_derived"  # the attribute holding a session's memoised _Derived


class _Derived(NamedTuple):
    """Everything ``observe``/``info`` read off one session's page, for one catalog and observation
    mode (all immutable: callers get fresh containers built from it). One per engine and equal
    session (the engine's render cache holds it), so dropping a session frees no memo."""

    catalog: Any
    mode: str
    text: str
    instruction: str
    valid_actions: tuple[str, ...]
    has_search_bar: bool
    clickables: tuple[str, ...]


@dataclass(frozen=True)
class WebShopTask:
    """The goal an episode is on: its index in the catalog and its instruction."""

    goal_index: int
    instruction: str


TASK_SPLITS = ("test", "dev", "train", "all")


def session_from_json(data: Any, catalog: Any) -> Session:
    """Validate a JSON session record (from a client) against ``catalog`` and rebuild the :class:`Session`.

    Raises ``ValueError`` naming the first bad field.
    """
    if not isinstance(data, Mapping):
        raise ValueError("session state must be a JSON object (as returned by the snapshot endpoint)")
    reader = StateReader(dict(data), "WebShop session state")

    def need(name: str, typ: type | tuple[type, ...]) -> Any:
        if name not in data:
            raise ValueError(f"session state lacks {name!r}")
        v = data[name]
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise ValueError(f"session state field {name!r} has the wrong type ({type(v).__name__})")
        return reader.plain_of(v, name)  # strings writable as UTF-8, numbers finite and bounded

    gi = need("goal_index", int)
    if not 0 <= gi < len(catalog.goals):
        raise ValueError(f"goal_index {gi} out of range (0..{len(catalog.goals) - 1})")
    page = need("page", str)
    if page not in PAGE_KINDS:
        raise ValueError(f"page {page!r} is not one of {', '.join(PAGE_KINDS)}")
    results = need("results", list)
    if len(results) > SEARCH_RETURN_N or not all(isinstance(a, str) and a in catalog.products for a in results):
        raise ValueError("results must be at most 50 ASINs of this catalog")
    asin = need("asin", str)
    if asin and asin not in catalog.products:
        raise ValueError(f"asin {asin!r} is not in this catalog")
    if page in (PAGE_ITEM, PAGE_SUB, PAGE_DONE) and not asin:
        raise ValueError(f"page {page!r} needs an asin")
    options = need("options", list)
    if not all(isinstance(o, list) and len(o) == 2 and all(isinstance(x, str) for x in o) for o in options):
        raise ValueError("options must be a list of [name, value] string pairs")
    sub_page = need("sub_page", str)
    if sub_page not in ("",) + SUB_PAGES:
        raise ValueError(f"sub_page must be one of {SUB_PAGES} or empty")
    visited = need("visited", list)
    if not all(isinstance(a, str) for a in visited):
        raise ValueError("visited must be a list of ASIN strings")
    parts = need("reward_parts", list)
    if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
               and (p[1] is None or isinstance(p[1], (bool, int, float))) for p in parts):
        raise ValueError("reward_parts must be a list of [name, value] pairs (a value: a number, a flag or null)")
    page_num = need("page_num", int)
    if not 1 <= page_num <= max(1, -(-len(results) // PRODUCTS_PER_PAGE)):
        raise ValueError(f"page_num {page_num} out of range for {len(results)} results")
    return Session(
        goal_index=gi, page=page, query=need("query", str)[:MAX_QUERY_CHARS], results=tuple(results),
        page_num=page_num, asin=asin, options=tuple((n, v) for n, v in options),
        sub_page=sub_page, visited=tuple(visited), done=bool(need("done", bool)),
        reward=float(need("reward", (int, float))), reward_parts=tuple((k, v) for k, v in parts),
        notice=need("notice", str)[:1000],
    )


def parse_action(action: Any) -> tuple[str, str] | None:
    """The engine's parser: ``(verb, argument)`` with the verb lower-case (``search`` or
    ``click``) and the argument's whitespace collapsed, or None when malformed."""
    m = _ACTION_RE.match(action if isinstance(action, str) else str(action))
    if not m:
        return None
    return m.group(1).lower(), _clean(m.group(2))


def canonical_action(action: Any) -> str | None:
    """The canonical form of an action (contract.py's ``canonical_action``), or None when malformed.

    Two actions with the same canonical form do the same thing on every page:
    the verb and argument are lower-cased (search text is lower-cased, click
    labels match case-insensitively) and whitespace runs collapsed. An empty
    argument is malformed (an empty search and an empty label do nothing).
    """
    parsed = parse_action(bounded_action(action))
    if parsed is None or not parsed[1]:
        return None
    verb, arg = parsed
    if verb == "search":
        arg = arg[:MAX_QUERY_CHARS]
    return f"{verb}[{arg.lower()}]"


def bounded_action(action: Any) -> str:
    """An action of at most ~1,000 characters that the engine treats exactly like ``action``.

    Search text is cut at ``MAX_QUERY_CHARS`` and no label is that long, so a
    longer argument can be trimmed; an action that does not parse keeps the
    characters its notice quotes and stays unparseable. The HTTP client sends
    this, so huge actions behave the same in-process and over HTTP.
    """
    text = action if isinstance(action, str) else str(action)
    if len(text) <= 1000:
        return text
    m = _ACTION_RE.match(text)
    if m:
        return f"{m.group(1)}[{_clean(m.group(2))[: 2 * MAX_QUERY_CHARS]}]"
    return text[:100] + "\x00"  # "\x00" ends it, so it cannot parse; the notice quotes the first 77 characters


def format_reward(reward: float) -> str:
    """The score as the done page shows it: Python's ``str`` of the float, as upstream's page, so a
    client reading it back with ``float()`` gets exactly the reward."""
    return str(float(reward))


def available_actions_from_nodes(nodes: tuple[Node, ...]) -> dict[str, Any]:
    """Upstream's ``get_available_actions`` over the page: the buttons' texts (the search button's
    ``search`` included) lower-cased in page order, then the product links' lower-cased, then the
    option values as they are; a text seen before keeps its first place (upstream keys a dict by it)."""
    has_search_bar = any(n.role == "searchbox" for n in nodes)
    keys: dict[str, None] = {}
    for roles, lower in ((("searchbox", "button"), True), (("product",), True), (("option",), False)):
        for n in nodes:
            if n.role in roles:
                keys[n.text.lower() if lower else n.text] = None
    return {"has_search_bar": has_search_bar, "clickables": list(keys)}


def valid_actions_from_nodes(nodes: tuple[Node, ...]) -> tuple[str, ...]:
    """Commands for a page: where there is a search bar, one suggested search (the instruction's
    text; any ``search[...]`` is allowed there), then ``click[x]`` for every clickable."""
    acts = []
    if any(n.role == "searchbox" for n in nodes):
        instruction = next((n.text for n in nodes if n.role == "instruction"), "")
        acts.append(f"search[{instruction.lower()[:MAX_QUERY_CHARS]}]" if instruction.strip() else SEARCH_TEMPLATE)
    acts += [f"click[{n.text}]" for n in nodes if n.role in CLICKABLE_ROLES]
    return tuple(acts)


def session_bytes(s: Session) -> int:
    """A cheap estimate of a session's memory (a cache key), from its field sizes."""
    return (400 + len(s.query) + len(s.notice) + 64 * (len(s.results) + len(s.visited))
            + 120 * (len(s.options) + len(s.reward_parts)))


def nodes_bytes(nodes: tuple[Node, ...]) -> int:
    """A cheap estimate of a page's memory: per-node overhead plus its text."""
    return sum(160 + len(n.text) for n in nodes)
