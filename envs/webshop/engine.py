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

from typing import Any

from treegym.envs.core.records import replaced

from treegym.envs.core.contract import ExpertAdvice, StepResult
from treegym.envs.core.value_table import ValueTable

from .lru import ByteLRU, text_bytes
from .model import NO_PRICE_LIMIT
from .pages import build_page, page_asins
from .render import OBSERVATION_MODES, render
from .reward import FUZZY_THRESHOLD, fuzzy_score, get_reward
from .session import (ACTION_TEMPLATES, BACK_TO_SEARCH, BUY_NOW, CLICKABLE_ROLES, _DERIVED, _Derived,
                      GOLD_PATH_LIMIT, MAX_QUERY_CHARS, NEXT_PAGE, Node, PAGE_DONE, PAGE_ITEM, PAGE_RESULTS,
                      PAGE_SEARCH, PAGE_SUB, PREV_PAGE, PRODUCTS_PER_PAGE, SEARCH_RETURN_N, Session,
                      SUB_PAGES, TASK_SPLITS, WebShopTask, available_actions_from_nodes, bounded_action,
                      canonical_action, _clean, nodes_bytes, parse_action, session_bytes, session_from_json,
                      _short, valid_actions_from_nodes)


class WebShopEngine:
    """Pages, actions, reward and gold path over one shared, read-only :class:`Catalog`.

    ``observation_mode`` (``text``, ``text_rich`` or ``html``) is how
    :meth:`observe` renders pages. Thread-safe: it holds no per-session state;
    sessions are values passed in and out (its caches are memo tables).
    """

    # Memo tables per engine, bounded in (estimated) bytes: a search tree revisits the same sessions.
    # Sessions rarely recur across goals, so a few MB serve a search; memory stays flat after the
    # first ~20 searches (scripts/bench/bench_webshop_memory.py).
    PAGE_CACHE_BYTES = 3 << 20      # page nodes
    RENDER_CACHE_BYTES = 4 << 20    # rendered observations (html pages are the large ones)
    EXPERT_CACHE_BYTES = 2 << 20    # gold paths
    TASK_CACHE_BYTES = 1 << 20      # tasks (instructions)
    SHARED_SEARCHES = 20_000        # queries and result lists kept shared (value_table.py; ~1 KB each)

    def __init__(self, catalog: Any, observation_mode: str = "text"):
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"observation_mode must be one of {', '.join(OBSERVATION_MODES)}, "
                             f"got {observation_mode!r}")
        self.catalog = catalog
        self.observation_mode = observation_mode
        self._pages: ByteLRU[Session, tuple[Node, ...]] = ByteLRU(
            self.PAGE_CACHE_BYTES, lambda k, v: session_bytes(k) + nodes_bytes(v))
        self._renders: ByteLRU[Session, _Derived] = ByteLRU(
            self.RENDER_CACHE_BYTES, lambda k, v: session_bytes(k) + text_bytes(v[2:]))
        self._experts: ByteLRU[Session, ExpertAdvice] = ByteLRU(
            self.EXPERT_CACHE_BYTES, lambda k, v: session_bytes(k) + text_bytes(v.plan))
        self._tasks: ByteLRU[int, WebShopTask] = ByteLRU(self.TASK_CACHE_BYTES, lambda k, v: 200 + len(v.instruction))
        self._searches = ValueTable(self.SHARED_SEARCHES)  # one object per query and per result list

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
            task = WebShopTask(task_id, _clean(self.catalog.goal(task_id).instruction_text))
            self._tasks.put(task_id, task)
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
        d = session._derived
        if d is not None and d.catalog is self.catalog and d.mode == self.observation_mode:
            return d
        d = self._renders.get(session)
        if d is None:  # the engine's cache: equal sessions (a replay reaching the page again) share one memo
            nodes = self.page_nodes(session)
            actions = available_actions_from_nodes(nodes)
            d = _Derived(self.catalog, self.observation_mode, render(nodes, self.observation_mode, session, self.catalog),
                         self.instruction(session), valid_actions_from_nodes(nodes), actions["has_search_bar"],
                         tuple(actions["clickables"]))
            self._renders.put(session, d)
        object.__setattr__(session, _DERIVED, d)  # benign race: concurrent threads store equal values
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
        """Validate a JSON session record (from a client) and rebuild the :class:`Session`
        (:func:`~.session.session_from_json`; ``ValueError`` naming the first bad field)."""
        return session_from_json(data, self.catalog)

    # ------------------------------------------------------------------ pages
    def page_nodes(self, session: Session) -> tuple[Node, ...]:
        """The visible content of the session's current page, in reading order (memoised per session:
        sessions are immutable values, so a restored or revisited session renders for free)."""
        nodes = self._pages.get(session)
        if nodes is None:
            nodes = self._build_page(session)
            self._pages.put(session, nodes)
        return nodes

    def _build_page(self, session: Session) -> tuple[Node, ...]:
        return build_page(self.catalog, session, self.instruction(session))

    def page_asins(self, session: Session) -> tuple[str, ...]:
        return page_asins(session)

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
        s = replaced(session, notice="") if session.notice else session
        if s.done:
            return replaced(s, notice="The episode is over: you already bought a product. Reset to shop again."), 0.0
        text = bounded_action(action)
        parsed = parse_action(text)
        if parsed is None:
            return replaced(s, notice=f"Invalid action {_short(text)!r}: write search[keywords] or "
                              f"click[a button, product or option on this page]."), 0.0
        verb, arg = parsed
        if verb == "search":
            return self._search(s, arg), 0.0
        return self._click(s, arg)

    def _search(self, s: Session, query: str) -> Session:
        if s.page != PAGE_SEARCH:
            return replaced(s, notice="There is no search bar on this page; click[Back to Search] first.")
        query = query.lower()[:MAX_QUERY_CHARS]
        if not query.strip():
            return replaced(s, notice="Empty search: put keywords inside the brackets, as in search[red running shoes].")
        # The index is built from this catalog's products (its stamp is checked on open), so every hit
        # is a product: no per-hit existence check.
        shared = self._searches
        asins = shared.one(tuple(self.catalog.search(query, SEARCH_RETURN_N))[:SEARCH_RETURN_N])
        return replaced(s, page=PAGE_RESULTS, query=shared.one(query), results=asins, page_num=1,
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
            return replaced(s, notice=f"There is nothing called {_short(label)!r} to click on this page. {why}"), 0.0
        if hit.role == "product":
            return replaced(s, page=PAGE_ITEM, asin=hit.text, options=(), sub_page="",
                              visited=s.visited if hit.text in s.visited else s.visited + (hit.text,)), 0.0
        if hit.role == "option":
            return self._select_option(s, hit.text), 0.0
        name = hit.text
        if name == BACK_TO_SEARCH:  # a fresh start, as upstream's (it forgets the visited products too)
            return self.reset_session(s), 0.0
        if name == NEXT_PAGE:
            return replaced(s, page_num=s.page_num + 1), 0.0
        if name == PREV_PAGE:
            if s.page == PAGE_SUB:
                return replaced(s, page=PAGE_ITEM, sub_page=""), 0.0
            if s.page == PAGE_ITEM:
                return replaced(s, page=PAGE_RESULTS, asin="", options=(), sub_page=""), 0.0
            return replaced(s, page_num=s.page_num - 1), 0.0
        if name in SUB_PAGES:
            return replaced(s, page=PAGE_SUB, sub_page=name), 0.0
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
        return replaced(s, options=ordered)

    def _buy(self, s: Session) -> tuple[Session, float]:
        product = self.catalog.product(s.asin)
        reward, parts = get_reward(product, self.goal(s), product.price, dict(s.options))
        return replaced(s, page=PAGE_DONE, sub_page="", done=True, reward=reward,
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
        # the gold path from each session on the way is the rest of this one (an agent following it
        # asks again after every step)
        for i, on_path in enumerate(path[:-1]):
            self._experts.put(on_path, ExpertAdvice(plan=tuple(plan[i:]), value=value, solvable=solvable))
        return ExpertAdvice(plan=tuple(plan), value=value, solvable=solvable)

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

