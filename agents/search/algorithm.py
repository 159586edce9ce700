"""A search algorithm is only an algorithm: one class with one frozen config, registered in one line.

An algorithm grows a tree through the search config (``search(root, hooks)``) and names the answer
(``choose(tree)``); it never sees an LLM, an env id or the search policy's options. The search
policy (:class:`~.agent.SearchPolicy`) owns acting, budgets, greedy continuation, stats, trees and
seeding, and holds one algorithm value. Before every search the policy calls :meth:`~SearchAlgorithm.start`,
which hands the algorithm what that search may use: the seeded ``rng`` and ``peek_success`` (whether
it may read the env's success flag), both read from the search config.

Registering::

    @register_algorithm("beam", help="beam search over LLM proposals")
    class Beam(SearchAlgorithm):
        Config = BeamConfig                      # a frozen dataclass of options.option fields
        def search(self, root, hooks): ...
        def choose(self, tree): ...

(``register_algorithm`` is in ``agent.py``) makes ``treegym run --agent beam`` (and
``make_agent("beam", ...)``) build a search policy around ``Beam``; ``at="n_iters"`` maps a name's
``@N`` onto that field, ``preset={...}`` pins options (a paper's baseline setting), and decorators
stack to register one class under several names.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

C = TypeVar("C")


class SeededRng:
    """``numpy.random.default_rng(seed)``, built on first use: the same draws, but a search whose
    algorithm never draws does not pay for building a generator (about 6 us). An algorithm that draws
    (``SearchAlgorithm.draws``) is handed the generator itself, so its draws pay no forwarding."""

    __slots__ = ("seed", "_generator")

    def __init__(self, seed: int):
        self.seed = seed
        self._generator: Any = None

    def generator(self) -> Any:
        """The numpy ``Generator``, built on the first call."""
        if self._generator is None:
            import numpy as np  # lazy: numpy only when a search draws

            self._generator = np.random.default_rng(self.seed)
        return self._generator

    def __getattr__(self, name: str) -> Any:  # only for what is not a slot: the generator's methods
        if name.startswith("_"):  # no private or special name is forwarded (copying, pickling, an unset slot)
            raise AttributeError(name)
        return getattr(self.generator(), name)


@dataclass(frozen=True)
class NoConfig:
    """The settings of an algorithm that has none of its own."""


class SearchAlgorithm(Generic[C]):
    """One search algorithm: ``Config`` (its settings) plus ``search`` and ``choose``.

    ``config`` is a ``Config`` value (None: its defaults). Per-search state lives on the instance and
    is emptied by ``_fresh`` (called here, and by an algorithm's ``search`` where it keeps such
    state); ``stats()`` returns the algorithm's own numbers for the run record.
    """

    name = "search"
    #: what ``node.value`` means in saved trees
    value_name = "value"
    #: The algorithm's settings (a frozen dataclass of ``option`` fields).
    Config: type = NoConfig
    #: When ``choose`` returns None: False = continue greedily, True = raise AgentGaveUp.
    give_up_without_answer = False
    #: Whether the algorithm draws from ``rng`` (then ``start`` hands it the generator itself, built at once).
    draws = False

    def __init__(self, config: C | None = None):
        self.config: C = config if config is not None else self.Config()
        self.rng: Any = None
        self.peek_success = False
        self.stop_on_success = False
        self._fresh()

    @classmethod
    def for_env(cls, config: C, env_id: str) -> C:
        """``config`` with its env-dependent settings resolved for ``env_id`` (e.g. LATS's per-benchmark
        iterations, with ``dataclasses.replace``); by default ``config`` itself."""
        return config

    def option_defaults(self) -> dict[str, Any]:
        """Defaults of search-policy options that follow this config (e.g. ToT's ``value_samples`` =
        ``n_evaluate``); given options override them."""
        return {}

    def check(self, peek_success: bool) -> None:
        """Refuse (ValueError) settings that need the env's success flag when the search may not read it."""
        self._stop_on_success(peek_success)

    def start(self, hooks: Any) -> None:
        """Called by the policy before every search: the seeded ``hooks.rng`` and ``hooks.peek_success``."""
        rng = hooks.rng
        self.rng = rng.generator() if self.draws and isinstance(rng, SeededRng) else rng
        self.peek_success = bool(hooks.peek_success)
        self.stop_on_success = self._stop_on_success(self.peek_success)

    def finish(self, result: Any) -> None:
        """Called by the policy after every search with its ``SearchResult`` (A* learns from it here)."""

    def _stop_on_success(self, peek_success: bool) -> bool:
        """Resolve a ``stop_on_success`` field: unset follows ``peek_success``; true needs it."""
        value = getattr(self.config, "stop_on_success", False)
        if value is None or value == "default":
            return peek_success
        stop = bool(value)
        if stop and not peek_success:
            raise ValueError(f"{self.name}: stop_on_success=true reads the env's success flag during the "
                             "search; pass peek_success=true as well to allow that oracle")
        return stop

    def _fresh(self) -> None:
        """The per-search state, empty; an algorithm with such state overrides this."""

    # ------------------------------------------------------------ what the search may know
    def known_win(self, node: Any) -> bool:
        """Whether the search may treat ``node`` as won: only with ``peek_success`` (the env's success
        flag is an oracle the papers' agents do not have); otherwise always False."""
        return self.peek_success and node.success

    def terminal_value(self, node: Any, hooks: Any) -> float:
        """The value of a step that ended the episode: the env's verdict (1 won / 0 not) with
        ``peek_success``, else the LLM's own value of the final state (one ``value`` call)."""
        if self.peek_success:
            return 1.0 if node.success else 0.0
        return float(hooks.value(node))

    # ------------------------------------------------------------ to implement
    def search(self, root: Any, hooks: Any) -> None:  # pragma: no cover - abstract
        """Grow ``hooks.tree`` from ``root``; may stop any time (``BudgetExceeded`` is caught outside)."""
        raise NotImplementedError

    def choose(self, tree: Any) -> Any:  # pragma: no cover - abstract
        """The leaf whose trajectory is the answer (None: nothing worth playing)."""
        raise NotImplementedError

    def stats(self) -> dict[str, Any]:
        """The algorithm's own numbers for the run record (the policy adds the search's)."""
        return {}
