"""Live search telemetry and the patience rule, written once for every search algorithm.

A :class:`SearchTelemetry` rides on a search's :class:`~treegym.agents.search.config.SearchConfig`
(``hooks.telemetry``); ``SearchConfig.expand`` calls :meth:`SearchTelemetry.expanded` after
every env step, so no algorithm needs to know it exists. It tracks

* ``nodes`` and ``expansions`` (env steps the search took),
* ``best_value``: the highest value the algorithm has given any node so far, read by
  :func:`search_value` (higher is better for every algorithm, None before the first judgement),
* ``llm_calls`` and ``tokens`` spent by the search (its budgeted LLM's usage),
* ``since_improvement``: expansions since ``best_value`` last rose.

The best value is re-read from the tree every ``nodes / 32`` expansions (every expansion while
the tree has under 64 nodes), so its cost per expansion stays bounded as a tree grows; a rise
is therefore seen up to that many expansions late (``best_at_expansion`` is when it was seen),
and the tree is always re-read before patience stops a search and after it
(:meth:`SearchTelemetry.refresh`). That scan is what the record's ``search_best_value`` and
``search_best_at_expansion`` are made of, so it runs whether or not anyone listens; the LLM's usage
is read only for listeners and after the search.

**Patience.** With ``patience=N`` (the ``patience`` option of every search agent,
``--agent-opt patience=N``), the search stops with ``search_stopped == "patience"`` once the
best value has not risen for N expansions in a row (the tree so far is kept and the best
answer in it is played, as when the budget runs out). The count starts once some node has a
value (Elo's first comparison, MCTS's first backup): a search that has not valued anything
yet is never stopped by patience.

**Listeners.** :func:`listening` registers a callable that receives :meth:`SearchTelemetry.as_dict`
after every expansion (from whichever thread runs the search); ``treegym run`` uses one to show
the figures in its progress bar. A listener that raises is dropped, never breaking a search.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, Sequence

Listener = Callable[[dict[str, Any]], None]
SCAN_SHARE = 32  # the best value is re-read every (nodes / SCAN_SHARE) expansions
_LISTENERS: list[Listener] = []
_LOCK = threading.Lock()


class PatienceExhausted(Exception):
    """Raised out of ``SearchConfig.expand`` when the patience rule ends a search."""


def search_value(algorithm: str, value: float, visits: int, stats: Mapping[str, Any]) -> float | None:
    """How good ``algorithm`` judged a node, higher is better; None when it never judged it.

    Per algorithm (what each one stores, see its module docstring):

    * ``elo``: the node's Elo once a comparison touched it (``stats["elo_updates"]``);
    * ``astar``: ``-f`` (``f = g + h`` is a cost) once scored (``stats["g"]`` present);
    * ``mcts``, ``lats``: Q once visited, else the expansion-time prior (``stats["prior"]``);
    * ``bfs``, ``dfs`` (and any other algorithm): ``value`` once visited;
    * ``dfsdt``: its value is the visit order, not a judgement: the LLM's answer check
      (``stats["judged"]``) where it ran, else None.
    """
    if algorithm == "elo":
        return float(value) if stats.get("elo_updates") else None
    if algorithm == "astar":
        return -float(value) if "g" in stats else None
    if algorithm == "dfsdt":
        judged = stats.get("judged")
        return float(judged) if judged is not None else None
    if algorithm in ("mcts", "radagent-mcts", "lats"):
        if visits:
            return float(value)
        prior = stats.get("prior")
        return float(prior) if prior is not None else None
    return float(value) if visits else None


def _judged_values(algorithm: str) -> Callable[[Sequence[Any]], list[float]]:
    """``nodes -> [search_value(...) of each node the algorithm judged]`` (the others left out), in node
    order, the algorithm's branch chosen once: one comprehension per read of the tree, which
    :meth:`SearchTelemetry._best` does every few expansions. Values are as the nodes hold them (floats
    for every algorithm here); the readers convert the one they return."""
    if algorithm == "elo":
        return lambda nodes: [n.value for n in nodes if n.stats.get("elo_updates")]
    if algorithm == "astar":
        return lambda nodes: [-n.value for n in nodes if "g" in n.stats]
    if algorithm in ("mcts", "radagent-mcts", "lats"):
        return lambda nodes: [v for n in nodes
                              if (v := n.value if n.visits else n.stats.get("prior")) is not None]
    if algorithm == "dfsdt":
        return lambda nodes: [v for n in nodes if (v := n.stats.get("judged")) is not None]
    return lambda nodes: [n.value for n in nodes if n.visits]


def _value_reader(algorithm: str) -> Callable[[Any], float | None]:
    """``node -> search_value(algorithm, node.value, node.visits, node.stats)``, the algorithm's branch
    chosen once."""
    judged = _judged_values(algorithm)

    def read(node: Any) -> float | None:
        values = judged((node,))
        return float(values[0]) if values else None
    return read


class SearchTelemetry:
    """Counters of one search (see module docstring); ``patience`` None or 0 means never stop early."""

    def __init__(self, algorithm: str, patience: int | None = None):
        if patience is not None and int(patience) < 0:
            raise ValueError(f"patience must be a number of expansions >= 0, got {patience}")
        self.algorithm = algorithm
        self._judged = _judged_values(algorithm)
        self.patience = int(patience) if patience else None
        self.nodes = 1
        self.expansions = 0
        self.best_value: float | None = None
        self.best_at_expansion = 0
        self.since_improvement = 0
        self.llm_calls = 0
        self.tokens = 0

    def expanded(self, hooks: Any) -> None:
        """Update after one expansion of ``hooks`` (a SearchConfig); tell listeners; apply patience."""
        tree = hooks.tree
        self.expansions = expansions = hooks.expansions
        best = self.best_value
        if best is not None:  # patience counts only once there is a value to improve on
            self.since_improvement += 1
        if tree is None:
            self.nodes += 1
        else:
            nodes = tree.nodes
            self.nodes = count = len(nodes)
            # Reading every node's value costs O(nodes): do it every nodes/SCAN_SHARE expansions (so the
            # cost per expansion stays bounded as the tree grows), and always before patience may stop.
            if expansions % (count // SCAN_SHARE or 1) == 0 or (self.patience and self.since_improvement >= self.patience):
                values = self._judged(nodes)  # _best, inlined: this runs after every expansion of small trees
                if values:
                    seen = float(max(values))
                    if best is None or seen > best + 1e-12:
                        self.best_value, self.best_at_expansion, self.since_improvement = seen, expansions, 0
        if _LISTENERS:  # figures are built only for someone listening
            self._read_usage(hooks)
            _notify(self.as_dict())
        if self.patience and self.since_improvement >= self.patience:
            raise PatienceExhausted(f"the best value has not improved for {self.since_improvement} expansions")

    def refresh(self, hooks: Any) -> None:
        """Re-read the tree and the LLM usage after the search (values set after its last expansion)."""
        self._read_usage(hooks)
        best = self._best(hooks.tree.nodes) if hooks.tree is not None else None
        if best is not None and (self.best_value is None or best > self.best_value + 1e-12):
            self.best_value, self.best_at_expansion = best, hooks.expansions

    def _read_usage(self, hooks: Any) -> None:
        usage = getattr(hooks.llm, "usage", None)
        if usage is not None:
            self.llm_calls, self.tokens = int(usage.calls), int(usage.total_tokens)

    def _best(self, nodes: list[Any]) -> float | None:
        """The highest judged value among ``nodes`` (the first of equals), None when none is judged."""
        best = max(self._judged(nodes), default=None)
        return None if best is None else float(best)

    def as_dict(self) -> dict[str, Any]:
        """The figures as record fields (``search_*``, as ``agent_stats`` carries them)."""
        return {
            "search_algorithm": self.algorithm,
            "search_nodes": self.nodes,
            "search_expansions": self.expansions,
            "search_best_value": None if self.best_value is None else round(self.best_value, 6) + 0.0,
            "search_best_at_expansion": self.best_at_expansion,
            "search_llm_calls": self.llm_calls,
            "search_tokens": self.tokens,
        }



def progress_line(figures: Mapping[str, Any]) -> str:
    """One short progress-bar line from :meth:`SearchTelemetry.as_dict` figures."""
    best = figures.get("search_best_value")
    return (f"nodes={figures.get('search_nodes', 0)} best={'-' if best is None else format(best, '.3g')} "
            f"calls={figures.get('search_llm_calls', 0)} tok={figures.get('search_tokens', 0)}")


def _notify(figures: dict[str, Any]) -> None:
    with _LOCK:
        listeners = list(_LISTENERS)
    for fn in listeners:
        try:
            fn(figures)
        except Exception:  # noqa: BLE001 - a display must never break a search
            with _LOCK:
                if fn in _LISTENERS:
                    _LISTENERS.remove(fn)


@contextmanager
def listening(fn: Listener) -> Iterator[Listener]:
    """Call ``fn(figures)`` after every expansion of every search in this process while inside the block."""
    with _LOCK:
        _LISTENERS.append(fn)
    try:
        yield fn
    finally:
        with _LOCK:
            if fn in _LISTENERS:
                _LISTENERS.remove(fn)
