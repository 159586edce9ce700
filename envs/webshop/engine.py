"""The WebShop engine: sessions, pages and actions, shared by the Gym env and the Flask site.

A shopping session is a small immutable record, :class:`Session` (goal index,
page kind, query, page number, the top-50 result ASINs, the open product, the
selected options, the sub-page, visited products, done and reward). Every
action maps a session to a new one (:meth:`WebShopEngine.step`), so a native
snapshot *is* the record; the catalog and its search index are referenced by
the engine, never copied into a session.

Pages follow upstream WebShop: a search page (instruction + search bar), result
pages (10 products per page over the top 50, ``< Prev``, ``Next >``,
``Back to Search``), an item page (option buttons, Description / Features /
Reviews tabs, ``Buy Now``), item sub-pages and the done page. A page is a tuple
of :class:`Node` (role, text, clicked, group); ``render.py`` turns it into
upstream's ``text`` ([SEP]-joined), ``text_rich`` and ``html`` renderings.

Actions use upstream's syntax: ``search[free text]`` (only where there is a
search bar, as on the real site) and ``click[label]`` where ``label`` is one of
the page's clickables (matched case-insensitively, as upstream lower-cases it).
A malformed action, an unknown click target or an empty search never raises: the
session stays where it was and the next page carries a notice saying what was
wrong and what to do.

:class:`WebShopEngine` is a treegym :class:`~treegym.envs.core.contract.Engine`
(the state is the :class:`Session`; tasks are goal indices; ``observe`` renders
in the engine's ``observation_mode``), so ``WebShopEnv`` is an ``EngineEnv`` and
the site is the generic session server plus pages for people.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Mapping, NamedTuple

from treegym.envs.core.contract import ExpertAdvice, StepResult

from .catalog import NO_PRICE_LIMIT
from .reward import fuzzy_score, get_reward, FUZZY_THRESHOLD

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


@dataclass(frozen=True)
class Session:
    """The whole state of one shopping episode (immutable; JSON-able via ``to_json``).

    ``goal_index`` indexes ``catalog.goals``. ``page`` is one of ``PAGE_KINDS``.
    ``query`` is the last search text (lower-case), ``results`` its top-50 ASINs
    (kept so restoring never re-queries the index), ``page_num`` the 1-based result
    page. ``asin`` is the open product; ``options`` the selected ``(name, value)``
    pairs in the product's option order; ``sub_page`` one of ``SUB_PAGES`` or "".
    ``visited`` lists opened products in order. ``done``/``reward``/``reward_parts``
    are set by Buy Now. ``notice`` explains why the last action did nothing ("" if it worked).
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
    # object itself (:meth:`WebShopEngine._derived`): never pickled or copied, and not a field, so it
    # takes no part in equality, hashing, ``replace`` or ``to_json``.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop(_DERIVED, None)
        return state


_DERIVED = "_derived"  # the attribute holding a session's memoised _Derived


class _Derived(NamedTuple):
    """Everything ``observe``/``info`` read off one session's page, for one catalog and observation
    mode (all immutable: callers get fresh containers built from it; the parts are shared with the
    engine's page cache, so dropping a session frees little)."""

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


class WebShopEngine:
    """Pages, actions, reward and gold path over one shared, read-only :class:`Catalog`.

    ``observation_mode`` (``text``, ``text_rich`` or ``html``) is how
    :meth:`observe` renders pages. Thread-safe: it holds no per-session state;
    sessions are values passed in and out (its caches are memo tables).
    """

    _PAGE_CACHE_SIZE = 4096  # pages kept per engine; a search tree revisits the same sessions

    def __init__(self, catalog: Any, observation_mode: str = "text"):
        from .render import OBSERVATION_MODES

        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"observation_mode must be one of {', '.join(OBSERVATION_MODES)}, "
                             f"got {observation_mode!r}")
        self.catalog = catalog
        self.observation_mode = observation_mode
        self._pages: dict[Session, tuple[Node, ...]] = {}
        self._renders: dict[Session, tuple[str, tuple[str, ...], bool, tuple[str, ...]]] = {}
        self._experts: dict[Session, ExpertAdvice] = {}
        self._tasks: dict[int, WebShopTask] = {}

    # ------------------------------------------------------------------ the Engine protocol
    def splits(self) -> tuple[str, ...]:
        return tuple(s for s in TASK_SPLITS if s in self.catalog.splits) + \
            tuple(s for s in self.catalog.splits if s not in TASK_SPLITS)

    def task_ids(self, split: str) -> tuple[int, ...]:
        return tuple(self.catalog.split(split))

    def task(self, task_id: Any) -> WebShopTask:
        n = len(self.catalog.goals)
        if not isinstance(task_id, int) or isinstance(task_id, bool) or not 0 <= task_id < n:
            raise ValueError(f"task id {task_id!r} is not a goal index of this catalog (0..{n - 1})")
        task = self._tasks.get(task_id)
        if task is None:  # one value per goal: every reset to it shares it (tasks are immutable)
            task = self._tasks[task_id] = WebShopTask(task_id, _clean(self.catalog.goal(task_id).instruction_text))
        return task

    def initial_state(self, task: WebShopTask, seed: int | None = None) -> Session:
        return self.new_session(task.goal_index)

    def is_terminal(self, session: Session) -> bool:
        return session.done

    def observe(self, session: Session) -> tuple[dict[str, Any], dict[str, Any]]:
        """``({"text", "instruction", "valid_actions"}, info)``: the page in ``observation_mode``
        and :meth:`info` (derived once per session object, see :meth:`_derived`); fresh containers
        on every call, so a caller may change what it gets without touching anyone else's."""
        d = self._derived(session)
        return {"text": d.text, "instruction": d.instruction, "valid_actions": d.valid_actions}, \
            self._info(session, d)

    def _derived(self, session: Session) -> _Derived:
        """What this engine reads off ``session``'s page, memoised on the (immutable) session: a
        session restored many times (a search node, a group of forks) is rendered once. Sessions
        equal to one seen before (a replay reaching the same page) share the engine's page caches."""
        d = session.__dict__.get(_DERIVED)
        if d is not None and d.catalog is self.catalog and d.mode == self.observation_mode:
            return d
        hit = self._renders.get(session)
        if hit is None:  # the engine's cache: equal sessions (a replay reaching the page again) share it
            from .render import render

            nodes = self.page_nodes(session)
            if len(self._renders) >= self._PAGE_CACHE_SIZE:
                self._renders.clear()
            actions = available_actions_from_nodes(nodes)
            hit = self._renders[session] = (render(nodes, self.observation_mode, session, self.catalog),
                                            valid_actions_from_nodes(nodes), actions["has_search_bar"],
                                            tuple(actions["clickables"]))
        d = _Derived(self.catalog, self.observation_mode, hit[0], self.instruction(session), *hit[1:])
        session.__dict__[_DERIVED] = d  # benign race: concurrent threads store equal values
        return d

    def state_to_json(self, session: Session) -> dict[str, Any]:
        return session.to_json()

    def state_from_json(self, data: Any) -> Session:
        return self.session_from_json(data)

    def task_fields(self, task: WebShopTask) -> dict[str, Any]:
        return self.goal_fields(task.goal_index)

    def action_templates(self) -> tuple[str, ...]:
        return ACTION_TEMPLATES

    @staticmethod
    def canonical_action(action: Any) -> str | None:
        return canonical_action(action)

    # ------------------------------------------------------------------ sessions
    def new_session(self, goal_index: int) -> Session:
        self.catalog.goal(goal_index)  # validates the index, naming the range
        return Session(goal_index=goal_index)

    def reset_session(self, session: Session) -> Session:
        """Back to the start page for the same goal."""
        return Session(goal_index=session.goal_index)

    def goal(self, session: Session) -> Any:
        return self.catalog.goal(session.goal_index)

    def instruction(self, session: Session) -> str:
        return self.task(session.goal_index).instruction

    def session_from_json(self, data: Any) -> Session:
        """Validate a JSON session record (from a client) and rebuild the :class:`Session`.

        Raises ``ValueError`` naming the first bad field.
        """
        if not isinstance(data, Mapping):
            raise ValueError("session state must be a JSON object (as returned by the snapshot endpoint)")

        def need(name: str, typ: type | tuple[type, ...]) -> Any:
            if name not in data:
                raise ValueError(f"session state lacks {name!r}")
            v = data[name]
            if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
                raise ValueError(f"session state field {name!r} has the wrong type ({type(v).__name__})")
            return v

        gi = need("goal_index", int)
        if not 0 <= gi < len(self.catalog.goals):
            raise ValueError(f"goal_index {gi} out of range (0..{len(self.catalog.goals) - 1})")
        page = need("page", str)
        if page not in PAGE_KINDS:
            raise ValueError(f"page {page!r} is not one of {', '.join(PAGE_KINDS)}")
        results = need("results", list)
        if len(results) > SEARCH_RETURN_N or not all(isinstance(a, str) and a in self.catalog.products for a in results):
            raise ValueError("results must be at most 50 ASINs of this catalog")
        asin = need("asin", str)
        if asin and asin not in self.catalog.products:
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
        if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in parts):
            raise ValueError("reward_parts must be a list of [name, value] pairs")
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

    # ------------------------------------------------------------------ pages
    def page_nodes(self, session: Session) -> tuple[Node, ...]:
        """The visible content of the session's current page, in reading order (memoised per session:
        sessions are immutable values, so a restored or revisited session renders for free)."""
        nodes = self._pages.get(session)
        if nodes is None:
            if len(self._pages) >= self._PAGE_CACHE_SIZE:
                self._pages.clear()  # wholesale: cheap, and safe under concurrent readers
            nodes = self._pages[session] = self._build_page(session)
        return nodes

    def _build_page(self, session: Session) -> tuple[Node, ...]:
        nodes: list[Node] = []
        if session.notice:
            nodes.append(Node("notice", session.notice))
        if session.page == PAGE_DONE:
            nodes.extend(self._done_nodes(session))
            return tuple(nodes)
        if session.page == PAGE_SEARCH:
            nodes.append(Node("heading", "WebShop"))
        nodes.append(Node("label", INSTRUCTION_LABEL, group="instruction"))
        nodes.append(Node("instruction", self.instruction(session), group="instruction"))
        if session.page == PAGE_SEARCH:
            nodes.append(Node("searchbox", "Search"))
        elif session.page == PAGE_RESULTS:
            nodes.extend(self._results_nodes(session))
        elif session.page == PAGE_ITEM:
            nodes.extend(self._item_nodes(session))
        elif session.page == PAGE_SUB:
            nodes.extend(self._sub_nodes(session))
        return tuple(nodes)

    def _n_pages(self, session: Session) -> int:
        return max(1, -(-len(session.results) // PRODUCTS_PER_PAGE))

    def page_asins(self, session: Session) -> tuple[str, ...]:
        start = (session.page_num - 1) * PRODUCTS_PER_PAGE
        return session.results[start:start + PRODUCTS_PER_PAGE]

    def _results_nodes(self, s: Session) -> list[Node]:
        nodes = [Node("button", BACK_TO_SEARCH, group="nav"),
                 Node("text", f"Page {s.page_num} (Total results: {len(s.results)})", group="nav")]
        if s.page_num > 1:
            nodes.append(Node("button", PREV_PAGE, group="nav"))
        if s.page_num < self._n_pages(s):
            nodes.append(Node("button", NEXT_PAGE, group="nav"))
        if not s.results:
            nodes.append(Node("text", f"No products match {s.query!r}. Go back and try other keywords."))
        for i, asin in enumerate(self.page_asins(s)):
            p = self.catalog.product(asin)
            g = f"card-{i}"
            nodes.append(Node("product", asin, clicked=asin in s.visited, group=g))
            nodes.append(Node("text", _clean(p.name), group=g))
            nodes.append(Node("text", _clean(p.price_text), group=g))
        return nodes

    def _item_nodes(self, s: Session) -> list[Node]:
        p = self.catalog.product(s.asin)
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

    def _sub_nodes(self, s: Session) -> list[Node]:
        p = self.catalog.product(s.asin)
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

    def _done_nodes(self, s: Session) -> list[Node]:
        p = self.catalog.product(s.asin)
        nodes = [Node("heading", "Thank you for shopping with us!"),
                 Node("label", "Purchased:", group="bought"), Node("text", s.asin, group="bought"),
                 Node("text", _clean(p.name), group="bought")]
        for name, value in s.options:
            nodes.append(Node("text", f"{_clean(name)}: {_clean(value)}", group="bought"))
        nodes += [Node("label", "Your score (min 0.0, max 1.0)", group="score"),
                  Node("text", format_reward(s.reward), group="score")]
        return nodes

    # ------------------------------------------------------------------ actions
    def available_actions(self, session: Session) -> dict[str, Any]:
        """Upstream's ``get_available_actions`` on this page: ``has_search_bar`` and ``clickables``
        (see :func:`available_actions_from_nodes`)."""
        d = self._derived(session)
        return {"has_search_bar": d.has_search_bar, "clickables": list(d.clickables)}

    def valid_actions(self, session: Session) -> tuple[str, ...]:
        return valid_actions_from_nodes(self.page_nodes(session))

    def step(self, session: Session, action: Any) -> StepResult[Session]:
        """Apply one action: the new session, the reward it earned (non-zero only at Buy Now) and
        whether the episode ended (Buy Now). Unpacks as ``session, reward``."""
        new, reward = self._apply(session, action)
        return StepResult(new, reward, new.done)

    def _apply(self, session: Session, action: Any) -> tuple[Session, float]:
        s = replace(session, notice="") if session.notice else session
        if s.done:
            return replace(s, notice="The episode is over: you already bought a product. Reset to shop again."), 0.0
        text = bounded_action(action)
        parsed = parse_action(text)
        if parsed is None:
            return replace(s, notice=f"Invalid action {_short(text)!r}: write search[keywords] or "
                                     f"click[a button, product or option on this page]."), 0.0
        verb, arg = parsed
        if verb == "search":
            return self._search(s, arg), 0.0
        return self._click(s, arg)

    def _search(self, s: Session, query: str) -> Session:
        if s.page != PAGE_SEARCH:
            return replace(s, notice="There is no search bar on this page; click[Back to Search] first.")
        query = query.lower()[:MAX_QUERY_CHARS]
        if not query.strip():
            return replace(s, notice="Empty search: put keywords inside the brackets, as in search[red running shoes].")
        asins = tuple(a for a in self.catalog.search(query, SEARCH_RETURN_N) if a in self.catalog.products)
        return replace(s, page=PAGE_RESULTS, query=query, results=asins[:SEARCH_RETURN_N], page_num=1,
                       asin="", options=(), sub_page="")

    def _click(self, s: Session, label: str) -> tuple[Session, float]:
        nodes = self.page_nodes(s)
        target = label.lower()
        hit = next((n for n in nodes if n.role in CLICKABLE_ROLES and n.text.lower() == target), None)
        if hit is None:
            clickables = ", ".join(n.text for n in nodes if n.role in CLICKABLE_ROLES) or "nothing"
            if any(n.role == "searchbox" for n in nodes) and target == "search":
                why = "To search, write search[your keywords]."
            else:
                why = f"Clickable here: {_short(clickables, 400)}."
            return replace(s, notice=f"There is nothing called {_short(label)!r} to click on this page. {why}"), 0.0
        if hit.role == "product":
            return replace(s, page=PAGE_ITEM, asin=hit.text, options=(), sub_page="",
                           visited=s.visited if hit.text in s.visited else s.visited + (hit.text,)), 0.0
        if hit.role == "option":
            return self._select_option(s, hit.text), 0.0
        name = hit.text
        if name == BACK_TO_SEARCH:  # a fresh start, as upstream's (it forgets the visited products too)
            return self.reset_session(s), 0.0
        if name == NEXT_PAGE:
            return replace(s, page_num=s.page_num + 1), 0.0
        if name == PREV_PAGE:
            if s.page == PAGE_SUB:
                return replace(s, page=PAGE_ITEM, sub_page=""), 0.0
            if s.page == PAGE_ITEM:
                return replace(s, page=PAGE_RESULTS, asin="", options=(), sub_page=""), 0.0
            return replace(s, page_num=s.page_num - 1), 0.0
        if name in SUB_PAGES:
            return replace(s, page=PAGE_SUB, sub_page=name), 0.0
        if name == BUY_NOW:
            return self._buy(s)
        raise AssertionError(f"unhandled button {name!r}")  # a page lists a button step() does not know

    def _select_option(self, s: Session, value: str) -> Session:
        p = self.catalog.product(s.asin)
        chosen = dict(s.options)
        for name, values in p.options:
            if value in values:
                chosen[name] = value
                break
        ordered = tuple((n, chosen[n]) for n, _ in p.options if n in chosen)
        return replace(s, options=ordered)

    def _buy(self, s: Session) -> tuple[Session, float]:
        product = self.catalog.product(s.asin)
        reward, parts = get_reward(product, self.goal(s), product.price, dict(s.options))
        return replace(s, page=PAGE_DONE, sub_page="", done=True, reward=reward,
                       reward_parts=tuple(parts.items())), reward

    # ------------------------------------------------------------------ metrics and expert
    def info(self, session: Session) -> dict[str, Any]:
        """What the env puts in ``info``: page kind, upstream's available actions, and at Buy Now the
        purchase, ``reward`` parts and ``success`` (reward exactly 1, as ReAct/LATS count it).
        Plain JSON types only, so the site returns the very same dict. A fresh dict on every call."""
        return self._info(session, self._derived(session))

    @staticmethod
    def _info(session: Session, d: _Derived) -> dict[str, Any]:
        info: dict[str, Any] = {
            "page": session.page,
            "available_actions": {"has_search_bar": d.has_search_bar, "clickables": list(d.clickables)},
            "goal_index": session.goal_index,
            "success": False,
        }
        if session.done:
            info.update({"purchased_asin": session.asin, "selected_options": dict(session.options),
                         "reward_parts": dict(session.reward_parts), "success": session.reward == 1.0})
        return info

    def expert_action(self, session: Session) -> str | None:
        """The next action on the gold path (search the target, open it, pick the goal options, buy);
        ``None`` once the episode is over. Works from any page."""
        if session.done:
            return None
        goal = self.goal(session)
        if session.page == PAGE_SEARCH:
            return f"search[{self.expert_query(session)}]"
        if session.page == PAGE_SUB:
            return f"click[{PREV_PAGE}]"
        if session.page == PAGE_ITEM:
            if session.asin != goal.asin:
                return f"click[{PREV_PAGE}]"
            needed = self.goal_option_values(goal)
            selected = dict(session.options)
            for name, value in needed:
                if selected.get(name) != value:
                    return f"click[{value}]"
            return f"click[{BUY_NOW}]"
        # results page
        if goal.asin in self.page_asins(session):
            return f"click[{goal.asin}]"
        if goal.asin in session.results:
            where = session.results.index(goal.asin) // PRODUCTS_PER_PAGE + 1
            return f"click[{NEXT_PAGE if where > session.page_num else PREV_PAGE}]"
        return f"click[{BACK_TO_SEARCH}]"

    def expert_query(self, session: Session) -> str:
        """A search text that finds the goal product: its name, else the instruction."""
        goal = self.goal(session)
        product = self.catalog.product(goal.asin)
        candidates = (_clean(product.name).lower(), _clean(goal.instruction_text).lower())
        for q in candidates:
            if goal.asin in self.catalog.search(q[:MAX_QUERY_CHARS], SEARCH_RETURN_N):
                return q[:MAX_QUERY_CHARS]
        return candidates[0][:MAX_QUERY_CHARS]

    def expert(self, session: Session) -> ExpertAdvice:
        """The gold path from ``session`` to Buy Now and its worth (contract.py's ``expert``).

        ``plan`` follows :meth:`expert_action` to the end; ``value`` is the reward
        the plan earns (the reward earned, once done). The env marks a plan longer
        than its steps left as unsolvable.
        """
        if session.done:
            return ExpertAdvice(plan=(), value=session.reward, solvable=session.reward == 1.0)
        hit = self._experts.get(session)
        if hit is not None:
            return hit
        plan, path, s = [], [session], session
        while not s.done and len(plan) < GOLD_PATH_LIMIT:
            action = self.expert_action(s)
            plan.append(action)
            s, _ = self.step(s, action)
            path.append(s)
        value, solvable = (s.reward, True) if s.done else (0.0, False)
        if len(self._experts) >= self._PAGE_CACHE_SIZE:
            self._experts.clear()
        # the gold path from each session on the way is the rest of this one (an agent following it
        # asks again after every step)
        for i, on_path in enumerate(path[:-1]):
            self._experts[on_path] = ExpertAdvice(plan=tuple(plan[i:]), value=value, solvable=solvable)
        return self._experts[session]

    def goal_fields(self, goal_index: int) -> dict[str, Any]:
        """What the goal's instruction asks for, as fields (contract.py's ``task_fields``).

        ``instruction``; ``attributes`` (the qualities asked for); ``options``
        (``[name, value]`` pairs for synthetic goals, free strings for human ones);
        ``price_upper`` in dollars or None without a price limit. Never the answer:
        the target product's ASIN, name, query and category stay out.
        """
        goal = self.catalog.goal(goal_index)
        options = [list(o) if isinstance(o, tuple) else str(o) for o in goal.goal_options]
        return {
            "instruction": _clean(goal.instruction_text),
            "attributes": list(goal.attributes),
            "options": options,
            "price_upper": None if goal.price_upper >= NO_PRICE_LIMIT else float(goal.price_upper),
        }

    def goal_option_values(self, goal: Any) -> list[tuple[str, str]]:
        """The (option name, value) pairs of the goal product that satisfy the goal's options."""
        product = self.catalog.product(goal.asin)
        pairs: list[tuple[str, str]] = []
        for g in goal.goal_options:
            if isinstance(g, tuple):
                name, value = g
                values = product.option_dict().get(name, ())
                if value in values:
                    pairs.append((name, value))
                continue
            best = None
            for name, values in product.options:
                for v in values:
                    if fuzzy_score(v, g) > FUZZY_THRESHOLD:
                        best = (name, v)
                        break
                if best:
                    break
            if best and best[0] not in dict(pairs):
                pairs.append(best)
        return pairs



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
