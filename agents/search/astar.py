"""A* tree search over actions: ToolChain* (Zhuang et al., ICLR 2024), agent ``astar``.

Best-first search on ``f(n) = g(n) + h(n)`` (ToolChain* Algorithm 1): for
``iterations`` rounds, take the frontier node with the lowest f and expand it
by sampling ``k`` i.i.d. next actions from the LLM in one call (``n=k``),
merging duplicates into one child each. Algorithm 1 has no goal test, and by
default neither has this search: a step that ends the episode is a complete
plan, kept off the frontier (nothing can be expanded below it), and the
answer is the complete plan with the lowest f (else the open node with the
lowest f, continued greedily). With ``peek_success=true`` (an oracle: the
env's success flag) the search stops when it selects a won step, a won step
gets h2 = 1 without an imagination call, and lost steps are never answers.

* **Cumulative cost** ``g(n) = sum over the path's steps i of
  (1 - g1(i))^alpha * (1 - g2(i))^(1 - alpha)`` (Eq. 1), where ``g1(i)`` is
  the best longest-common-subsequence score of the plan up to i against the
  long-term memory, ``LCS(s, m) / min(len(s), len(m))``, and ``g2(i)`` is the
  self-consistency frequency of step i among the k samples it was drawn from
  (``count / k``; an unparseable sample still counts in k). Samples that are
  neither listed in ``valid_actions`` nor a free-form action filling one of the
  env's ``action_templates()`` (a WebShop ``search[...]`` query) make no node.
* **Future cost** ``h(n) = (1 - h1(n))^beta * (1 - h2(n))^(1 - beta)`` (Eq. 2),
  where ``h1(n)`` is the mean relative position (pos / plan length) in memory
  plans of the memory action lexically closest to n's action (character LCS
  score), and ``h2(n)`` the LLM *imagination* score: the model writes the rest
  of the plan and ``h2 = depth(n) / (depth(n) + imagined remaining steps)``
  (0 when it says the task cannot be finished). One LLM call per new node.

Actions are compared through the search config's ``action_key``: the env's
canonical form (for Game of 24 the operation without the board, ``12 * 2``,
so it matches across puzzles).

**Long-term memory**: seeded with the search config's ``demonstrations(n_demos)``
(the env expert's plans for train-split tasks) and, with ``peek_success=true``
only, extended with every successful plan found (ToolChain* 3.2; the memory
feeds later searches of the run, so without the oracle it holds the
demonstrations alone); it lives for the process (the run), keyed by env id and
``memory_id`` (``memory_id=none`` gives each episode a fresh memory).

**Ablations** (the paper's Table 2): ``use_g1``, ``use_g2``, ``use_h1``,
``use_h2`` = false drop a term; the remaining term of a pair is then used
alone, and a pair with both terms dropped costs 1 per step (g) or 0 (h), so
without g1/g2/h1/h2 the search is breadth-first.

Defaults: ``alpha = beta = 0.5`` (the geometric mean; the paper's main text
gives no values), ``k = 5`` samples at temperature 0.7, ``iterations = 30``,
``max_steps = 12``, budget 100 LLM calls, 5 demonstrations (all ours: the
paper is silent on them for our envs). ``rapidfuzz`` (the ``webshop`` extra)
speeds up g1's plan LCS and h1's character LCS when installed; without it a
pure-Python LCS gives the same number.
"""
from __future__ import annotations

import heapq
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .agent import register_algorithm
from .algorithm import SearchAlgorithm
from .options import option
from .config import SearchConfig
from .distributed import fresh_copy, made_by
from .tree import SearchNode, SearchTree


# ----------------------------------------------------------------- the scores (pure functions)
def lcs_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Length of the longest common subsequence of two sequences (dynamic programming; 0 when one is empty)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def lcs_score(a: Sequence[Any], b: Sequence[Any], length: Callable[[Any, Any], int] = lcs_length) -> float:
    """``LCS(a, b) / min(len(a), len(b))`` (0 for an empty sequence); ``length`` computes the LCS length
    (:func:`lcs_length`, or rapidfuzz's where its matching is exact)."""
    if not a or not b:
        return 0.0
    return length(a, b) / min(len(a), len(b))


def combine(x: float | None, y: float | None, weight: float) -> float:
    """Geometric combination ``x^w * y^(1-w)`` of two costs; a dropped term (None) leaves the other
    alone; both dropped gives 1."""
    if x is None and y is None:
        return 1.0
    if x is None:
        return float(y)  # type: ignore[arg-type]
    if y is None:
        return float(x)
    return (x ** weight) * (y ** (1.0 - weight))


def step_cost(g1: float | None, g2: float | None, alpha: float) -> float:
    """Eq. 1 per step: ``(1 - g1)^alpha * (1 - g2)^(1 - alpha)`` (None = term dropped)."""
    return combine(None if g1 is None else 1.0 - g1, None if g2 is None else 1.0 - g2, alpha)


def future_cost(h1: float | None, h2: float | None, beta: float) -> float:
    """Eq. 2: ``(1 - h1)^beta * (1 - h2)^(1 - beta)``; both dropped gives 0 (no heuristic)."""
    if h1 is None and h2 is None:
        return 0.0
    return combine(None if h1 is None else 1.0 - h1, None if h2 is None else 1.0 - h2, beta)


# ----------------------------------------------------------------- long-term memory
class LongTermMemory:
    """Successful plans (lists of action keys), shared by the episodes of a run. Thread-safe."""

    def __init__(self, plans: Sequence[Sequence[str]] = ()):
        self._lock = threading.Lock()
        self.plans: list[tuple[str, ...]] = []
        # g1 / h1 answers by (argument, number of plans): plans are only ever appended
        self._scores: dict[tuple[str, Any, int], float] = {}
        # each action key of the plans as a small int, and the plans so coded (same order as ``plans``): g1's
        # LCS compares ints, which rapidfuzz matches exactly (a small int hashes to itself)
        self._ids: dict[str, int] = {}
        self._coded: list[tuple[int, ...]] = []
        for p in plans:
            self.add(p)

    def __reduce__(self) -> tuple:
        return LongTermMemory, (list(self.plans),)  # travels to search workers as its plans (no lock, no cache)

    def add(self, plan: Sequence[str]) -> None:
        plan = tuple(plan)
        with self._lock:
            if plan and plan not in self.plans:
                ids = self._ids
                self._coded.append(tuple([ids.setdefault(key, len(ids)) for key in plan]))
                self.plans.append(plan)

    def __len__(self) -> int:
        return len(self.plans)

    def g1(self, plan: Sequence[str]) -> float:
        """The best LCS score of ``plan`` against a memory plan."""
        with self._lock:
            known = len(self.plans)  # plans are only appended: the first ``known`` are this call's memory
        key = ("g1", tuple(plan), known)
        found = self._scores.get(key)
        if found is None:
            found = self._remember(key, self._best_lcs_score(plan, known))
        return found

    def _best_lcs_score(self, plan: Sequence[str], known: int) -> float:
        """``max(lcs_score(plan, m) for m in self.plans[:known])`` (0 for none), on the coded plans: a key no
        plan holds is coded -1, which matches nothing (rapidfuzz when installed, else :func:`lcs_length`)."""
        if not plan:
            return 0.0
        ids = self._ids
        coded = tuple([ids.get(key, -1) for key in plan])
        length = _lcs_similarity() or lcs_length
        return max((lcs_score(coded, m, length) for m in self._coded[:known]), default=0.0)

    def _remember(self, key: tuple[str, Any, int], value: float) -> float:
        if len(self._scores) > 50_000:
            self._scores.clear()
        self._scores[key] = value
        return value

    def h1(self, action: str) -> float:
        """Mean relative position (1-based pos / length) of the memory action lexically closest to
        ``action`` (character LCS score), over the plans that contain it."""
        with self._lock:
            known = len(self.plans)
        key = ("h1", action, known)
        found = self._scores.get(key)
        if found is not None:
            return found
        plans = self.plans[:known]
        actions = {a for m in plans for a in m}
        if not actions:
            return 0.0
        closest = max(sorted(actions), key=lambda a: _char_lcs_score(action, a))
        positions = [(m.index(closest) + 1) / len(m) for m in plans if closest in m]
        return self._remember(key, sum(positions) / len(positions))


def _char_lcs_score(a: str, b: str) -> float:
    """``LCS(a, b) / min(len)`` over characters: rapidfuzz when installed (the ``webshop`` extra), else
    the pure-Python :func:`lcs_length` (same number, slower)."""
    return lcs_score(a, b, _lcs_similarity() or lcs_length)


_RAPIDFUZZ: list[Any] = []  # [rapidfuzz's LCSseq.similarity or None] once looked up


def _lcs_similarity() -> Any:
    """rapidfuzz's ``LCSseq.similarity`` (None without rapidfuzz), imported once."""
    if not _RAPIDFUZZ:
        try:
            from rapidfuzz.distance import LCSseq
        except ImportError:
            _RAPIDFUZZ.append(None)
        else:
            _RAPIDFUZZ.append(LCSseq.similarity)
    return _RAPIDFUZZ[0]


_MEMORIES: dict[tuple[str, str], LongTermMemory] = {}
_MEMORIES_LOCK = threading.Lock()


def run_memory(env_id: str, memory_id: str | None, seed_plans: Callable[[], list[list[str]]]) -> LongTermMemory:
    """The memory shared by this process's episodes of ``env_id`` under ``memory_id`` (seeded once);
    ``memory_id`` None (``memory_id=none``, typed by ``AStarConfig``): a fresh memory per call."""
    if memory_id is None:
        return LongTermMemory(seed_plans())
    with _MEMORIES_LOCK:
        key = (env_id, memory_id)
        if key not in _MEMORIES:
            _MEMORIES[key] = LongTermMemory(seed_plans())
        return _MEMORIES[key]


# ----------------------------------------------------------------- the agent
@dataclass(frozen=True)
class AStarConfig:
    """ToolChain*'s A* settings."""

    alpha: float = option(
        0.5, "ours (ToolChain* Eq. 1 names alpha, the main text gives no value; 0.5 is the plain geometric mean)",
        "g's geometric-mean weight in [0, 1]")
    beta: float = option(0.5, "ours (the same for Eq. 2)", "h's geometric-mean weight in [0, 1]")
    k: int = option(5, "ours (ToolChain* 3.2 samples k actions, no value for our envs)",
                    "ReAct samples per expansion", minimum=1)
    iterations: int = option(30, "ours (Algorithm 1's T, no value for our envs)", "expansions", minimum=0)
    max_steps: int = option(12, "ours (JUDEC 5.1's 12 steps, for comparable agents)", "steps per plan", minimum=1)
    use_g1: bool = option(True, "paper (ToolChain* 3.2, Eq. 1)", "memory LCS term of g")
    use_g2: bool = option(True, "paper (ToolChain* 3.2, Eq. 1)", "self-consistency term of g")
    use_h1: bool = option(True, "paper (ToolChain* 3.3, Eq. 2)", "memory position term of h")
    use_h2: bool = option(True, "paper (ToolChain* 3.3, Eq. 2)", "imagination term of h")
    n_demos: int = option(5, "ours (the paper's demonstrations are per benchmark; ours come from the env's expert)",
                          "expert plans seeding the memory", minimum=0)
    memory_id: str | None = option(
        "run", "paper (ToolChain* 3.2: the long-term memory spans tasks; it learns only with `peek_success`)",
        "name of the long-term memory shared across tasks (none: one per search)")

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"astar: {name} is a geometric-mean weight in [0, 1], got {getattr(self, name)}")


@register_algorithm("astar", help="A* over actions (ToolChain*): f = g + h from memory LCS, self-consistency, imagination")
class AStarSearch(SearchAlgorithm[AStarConfig]):
    """ToolChain* A* search (see module docstring for options)."""

    name = "astar"
    value_name = "f"
    distributes = True  # search_workers: the best open nodes, one per worker, are expanded at once on Ray workers
    _key: Callable[[str], str]  # the search config's action_key, set when a search starts

    Config = AStarConfig

    def __init__(self, config: AStarConfig | None = None):
        super().__init__(config)
        self.use = {"g1": self.config.use_g1, "g2": self.config.use_g2, "h1": self.config.use_h1,
                    "h2": self.config.use_h2}
        self.memory: LongTermMemory | None = None  # built on the first search, from the env's expert
        self.searched = False
        self._plan_cache: dict[SearchNode, tuple[str, ...]] = {}  # per search: node -> its plan's keys

    def _demonstrations(self, hooks: SearchConfig) -> list[list[str]]:
        return [[self._key(a) for a in plan] for plan in hooks.demonstrations(self.config.n_demos)]

    # ------------------------------------------------------------ costs
    def _plan_keys(self, node: SearchNode) -> tuple[str, ...]:
        """The action keys of ``node``'s plan; each node's keys are computed once per search (a child's
        keys are its parent's plus its own)."""
        keys = self._plan_cache.get(node)
        if keys is None:
            if node.parent is None:  # the root's own action (none) is not part of the plan
                keys = ()
            else:
                above = self._plan_keys(node.parent)
                keys = above + (self._key(node.action),) if node.action is not None else above
            self._plan_cache[node] = keys
        return keys

    def _score_child(self, child: SearchNode, frequency: float, hooks: SearchConfig) -> None:
        parent_g = float(child.parent.stats["g"])  # a scored child has a parent, and every parent has g
        keys = self._plan_keys(child)  # its last is the child's own action's key
        g1 = self.memory.g1(keys) if self.use["g1"] else None
        g2 = frequency if self.use["g2"] else None
        g = parent_g + step_cost(g1, g2, self.config.alpha)
        h1 = self.memory.h1(keys[-1]) if self.use["h1"] else None
        h2 = None
        if self.use["h2"]:
            # With peek_success a won step needs no imagination (nothing is left to do); without it
            # every step is scored the same way, won or not.
            h2 = 1.0 if self.known_win(child) else self._imagination(child, hooks)
        h = future_cost(h1, h2, self.config.beta)
        child.stats.update({"g": g, "h": h, "g1": g1, "g2": g2, "h1": h1, "h2": h2})
        child.value = g + h

    def _imagination(self, node: SearchNode, hooks: SearchConfig) -> float:
        """h2: depth / (depth + imagined remaining steps); 0 when the model sees no way to finish."""
        if node.terminal:
            return 0.0
        rest = hooks.imagine(node)
        return node.depth / (node.depth + len(rest)) if rest else 0.0

    # ------------------------------------------------------------ search
    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._key = hooks.action_key
        self._plan_cache = {}
        if self.memory is None:
            self.memory = run_memory(hooks.env_id, self.config.memory_id, lambda: self._demonstrations(hooks))
        root.stats.update({"g": 0.0, "h": 0.0})
        # (f, id, node): a node's f is set once, before it joins, so the heap's order is the lowest (f, id)
        frontier: list[tuple[float, int, SearchNode]] = [(root.value, root.id, root)]
        left = self.config.iterations
        while left > 0 and frontier:
            # in-process one node per round; with search_workers, as many as there are workers, expanded at once
            batch: list[SearchNode] = []
            while left > 0 and frontier and len(batch) < (hooks.parallel.size if hooks.parallel else 1):
                node = heapq.heappop(frontier)[2]
                left -= 1
                node.visits = 1  # a node leaves the frontier once: this is its only visit
                if self.known_win(node):
                    return  # the goal test: only with peek_success (Alg. 1 has none); choose() returns it
                if not (node.terminal or node.depth >= self.config.max_steps):
                    batch.append(node)
            if hooks.parallel is None:
                for node in batch:
                    self.expand(node, hooks)
            else:
                worker = fresh_copy(self)
                worker.memory = self.memory
                hooks.parallel.run(batch, [made_by(worker.expand)] * len(batch), hooks)
            for node in batch:
                for child in node.children:
                    if not child.terminal or self.known_win(child):
                        heapq.heappush(frontier, (child.value, child.id, child))

    def expand(self, node: SearchNode, hooks: SearchConfig) -> None:
        """Sample ``k`` actions from ``node`` in one call and make and score a child per distinct valid one."""
        self._key = hooks.action_key
        samples = hooks.sample_actions(node, self.config.k)
        counts: dict[str, int] = {}
        for a in samples:
            counts[a] = counts.get(a, 0) + 1
        valid = node.observation.get("valid_actions") if hooks.filter_valid else None
        for action, count in counts.items():
            if valid and action not in valid and not hooks.prompts.is_listed_or_templated(action, node.observation):
                continue  # the env would reject it: no node (the sample still lowers others' frequency)
            child = hooks.expand(node, action)  # a new child: the node had none, the keys are distinct
            # g2 = #{j : a_j = a} / k (ToolChain* 3.2): unparseable samples count in k
            self._score_child(child, count / self.config.k, hooks)

    def choose(self, tree: SearchTree) -> SearchNode | None:
        # The lowest-f complete plan. With peek_success only won plans count, and the lowest-(f, id) one
        # is the goal the search stopped at: every won step goes on the frontier, the first one selected
        # is its minimum (envs report success on the step that ends the episode: envs/core/contract.py).
        complete = [n for n in tree.nodes if n.terminal and not (self.peek_success and not n.success)]
        if complete:
            return min(complete, key=lambda n: (n.value, n.id))  # the lowest-f complete plan
        open_nodes = [n for n in tree.nodes if n is not tree.root and not n.terminal]
        return min(open_nodes, key=lambda n: (n.value, n.id)) if open_nodes else None

    def finish(self, result: Any) -> None:
        # ToolChain* 3.2 adds successful plans to the memory. The memory feeds every later search
        # of the run, so reading the env's success flag here is the same oracle as reading it
        # during a search: only with peek_success (known_win) does a plan join it.
        if result.chosen is not None and self.known_win(result.chosen) and self.memory is not None:
            self.memory.add(self._plan_keys(result.chosen))
        self.searched = True

    def stats(self) -> dict[str, Any]:
        return {"astar_memory_plans": len(self.memory or ())} if self.searched else {}

