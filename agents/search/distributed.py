"""One search over Ray workers: frontier nodes travel as snapshot bytes, their expansions run remotely.

:class:`RayExpansion` (``search_workers=N``, ``ray_address=``) starts ``N`` Ray actors, each holding
its own env (``gym.make(env_id, **env_kwargs)``: built with the searched env's construction arguments),
the search's LLM and prompt spec. An algorithm hands
:meth:`RayExpansion.run` the nodes it would expand and one *unit* per node, a function of the node
(BFS: every frontier state's proposals, then every proposal's step and value; ToT DFS: a state's
children; A*: the best open nodes, one per worker; DFSDT: one child at a time); each node goes to a
worker as its snapshot's bytes (``treegym.envs.snapshot_to_bytes``) plus the path's observations (for
the prompts), the worker restores it, runs the unit there (env steps and LLM calls), and sends back
the nodes it made, in creation order (children, and their descendants where the unit went deeper, as
an MCTS rollout does: observations, values, LLM excerpts, snapshot bytes). The driver grafts them onto the
tree in the order the nodes were handed in, so node ids follow that order whatever the timing.

The call budget is shared through one Ray actor (:class:`_CallBudget`): a worker reserves calls there
(up to :data:`LEASE` per trip) before sending them and gives back what its unit left unused, so the
search never makes more calls than its budget. With several workers a node's independent value samples
are also sent at once (:class:`_WorkerConfig`). What changes with more workers: the units of one batch
run at once, so when the budget runs out mid-batch, which nodes got their calls depends on timing (a
worker may hold reserved calls another is refused; with one worker it is the in-process order: the
same tree); ``stop_on_success`` stops after the batch that found the win, not at the win; and A*
expands its best open nodes a batch at a time, so its later choices differ from the in-process ones.
"""
from __future__ import annotations

import functools
import pickle
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

from ...envs import restore, snapshot_from_bytes, snapshot_to_bytes
from ...envs.core.ray_session import ray_session
from ..llm.base import BudgetExceeded, LLMError
from ..prompts import get_prompts
from .config import SearchConfig
from .tree import SearchNode

#: fields of a node that travel (with the snapshot bytes) and come back for every child
_NODE_FIELDS = ("observation", "info", "action", "thought", "reward", "terminal", "success", "depth",
                "visits", "value", "stats", "llm_calls")


def travelling_path(node: SearchNode) -> list[dict[str, Any]]:
    """What a worker needs of ``node``'s path to rebuild it (:func:`rebuilt_path`), root first: the fields
    that travel, without the LLM excerpts (they stay on the driver's tree)."""
    return [{**_fields(n), "llm_calls": []} for n in node.path()]


def rebuilt_path(path: list[dict[str, Any]]) -> SearchNode:
    """The last node of ``path`` (:func:`travelling_path`), its ancestors rebuilt above it, no snapshots."""
    node = None
    for fields in path:
        node = SearchNode(snapshot=None, parent=node, **fields)
    return node


def made_by(make: Callable[[SearchNode, Any], Any]) -> Callable[[SearchNode, Any], None]:
    """``make(node, hooks)`` as a unit for :meth:`RayExpansion.run` that returns nothing: the children it made
    travel back on their own (a returned node would drag its snapshot and tree along)."""
    return functools.partial(_discard, make)


def _discard(make: Callable[[SearchNode, Any], Any], node: SearchNode, hooks: Any) -> None:
    make(node, hooks)


def fresh_copy(algorithm: Any) -> Any:
    """A copy of ``algorithm`` without its per-search state (its config and the search's oracle switches)
    to travel to the workers inside a unit."""
    copy = type(algorithm)(algorithm.config)
    copy.peek_success, copy.stop_on_success = algorithm.peek_success, algorithm.stop_on_success
    return copy


#: calls a worker reserves per trip to the budget actor (a ToT child's three value samples in one trip); what a
#: unit leaves unused goes back when it ends
LEASE = 4


class _CallBudget:
    """The search's call budget, held by one Ray actor that every worker asks before a call."""

    def __init__(self) -> None:
        self.reset(None)

    def reset(self, max_calls: int | None) -> None:
        """Open a search's budget: ``max_calls`` (None: no limit), nothing spent."""
        self.max_calls, self.calls, self.reserved, self.tokens = max_calls, 0, 0, 0

    def reserve(self, need: int, extra: int = 0) -> int:
        """Reserve ``need`` calls and up to ``extra`` more while they are free: how many were reserved (0:
        not even ``need`` are left)."""
        free = None if self.max_calls is None else self.max_calls - self.calls - self.reserved
        if free is not None and need > free:
            return 0
        granted = need + (extra if free is None else max(0, min(extra, free - need)))
        self.reserved += granted
        return granted

    def spent(self, reserved: int, calls: int, tokens: int) -> None:
        """Release ``reserved`` calls, ``calls`` of which were made (``tokens`` used)."""
        self.reserved -= reserved
        self.calls += calls
        self.tokens += tokens

    def usage(self) -> tuple[int, int]:
        return self.calls, self.tokens


class _SharedBudgetLLM:
    """An LLM drawing on the shared budget actor. A worker's (``lease`` > 0) reserves up to ``lease`` spare
    calls per trip and reports at :meth:`settle` (the end of a unit: its calls are the LLM's usage since the
    last settle, right with a unit's calls sent at once on threads); the driver's reports every call."""

    def __init__(self, llm: Any, budget: Any, lease: int = 0):
        self.llm, self.budget, self.lease = llm, budget, lease
        self.name = getattr(llm, "name", "llm")
        self.info = getattr(llm, "info", None)
        self._lock = threading.Lock()
        self._open()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("llm", "budget", "lease"):
            raise AttributeError(name)
        return getattr(self.llm, name)

    def _open(self) -> None:
        """Start counting: nothing reserved (``held``: reserved and not yet sent) or sent (``made``)."""
        usage = getattr(self.llm, "usage", None)
        self._since = (usage.calls, usage.total_tokens) if usage is not None else None
        self.held = self.reserved = self.made = 0

    def complete(self, request: Any) -> list[str]:
        import ray

        need = getattr(self.llm, "calls_needed", None)
        need = max(1, int(need(request.n))) if callable(need) else 1
        with self._lock:
            if not self.lease:
                self._open()
            if self.held < need:
                got = ray.get(self.budget.reserve.remote(need - self.held, self.lease))
                if not got:
                    raise BudgetExceeded("call budget spent (shared by the search's workers); stop the search or "
                                         "raise budget")
                self.held += got
                self.reserved += got
            self.held -= need
            self.made += need
        try:
            return self.llm.complete(request)
        finally:
            if not self.lease:
                self.settle()

    def settle(self) -> None:
        """Count the calls made since the last settle and release the reserved calls left unused (blocking:
        counted before the unit returns, so the search's usage is whole when its last unit is back)."""
        import ray

        with self._lock:
            if self.reserved:
                calls, tokens = self.made, 0
                usage = getattr(self.llm, "usage", None)
                if usage is not None and self._since is not None:  # a call that failed before the model: `made`
                    calls, tokens = usage.calls - self._since[0] or self.made, usage.total_tokens - self._since[1]
                ray.get(self.budget.spent.remote(self.reserved, calls, tokens))
            self._open()


class _WorkerConfig(SearchConfig):
    """A worker's search config: with ``pool`` (a search of several workers), a node's independent samples
    (ToT's value samples) are sent at once on its threads; their answers keep the requests' order."""

    pool: ThreadPoolExecutor | None = None

    def answers(self, requests: Sequence[Any]) -> list[str]:
        if self.pool is None or len(requests) < 2:
            return super().answers(requests)
        return list(self.pool.map(lambda request: request.send(self.llm)[0], requests))


def worker_env_kwargs(env: Any) -> dict[str, Any]:
    """The arguments ``env`` (its unwrapped base) was constructed with: each worker's env is built with them
    (an env of other settings, e.g. another judging protocol, would grow the tree under those settings without
    saying so). Refused in one line when they cannot travel to another process."""
    base = getattr(env, "unwrapped", env)
    kwargs = base.construction_kwargs() if hasattr(base, "construction_kwargs") else {}
    try:
        pickle.dumps(kwargs)
    except Exception as exc:
        raise ValueError(f"search_workers: the env was built with arguments that cannot be sent to the workers "
                         f"({sorted(kwargs)}: {exc}); build it from plain values (ids, paths, numbers) or drop "
                         "search_workers") from None
    return kwargs


class _ExpansionWorker:
    """One Ray actor: an env of ``env_id`` and the search's LLM; expands nodes that arrive as bytes."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], llm: Any, prompts: Any, options: dict[str, Any],
                 together: bool):
        import gymnasium as gym

        self.env = gym.make(env_id, **env_kwargs)
        self.llm = _SharedBudgetLLM(llm, None, lease=LEASE)
        self.prompts = prompts if prompts is not None else get_prompts(env_id)
        self.options = options
        self.pool = ThreadPoolExecutor(8, thread_name_prefix="samples") if together else None

    def where(self) -> tuple[str, int]:
        """(the Ray node id, the process id) this worker runs in."""
        import os

        import ray

        return ray.get_runtime_context().get_node_id(), os.getpid()

    def expand(self, func: Callable[[SearchNode, Any], Any], path: list[dict], data: bytes, budget: Any) -> dict:
        """Restore ``data`` (the last node of ``path``), run ``func(node, hooks)`` drawing on ``budget`` (the
        search's :class:`_CallBudget` actor); its result, the children it made, the LLM excerpts it noted."""
        restore(self.env, snapshot_from_bytes(data))
        node = rebuilt_path(path)
        self.llm.budget = budget
        hooks = _WorkerConfig(self.env, self.prompts, self.llm, **self.options)
        hooks.pool = self.pool
        hooks.tree = made = _Made(node.path()[0])
        hooks.snapshots.add_root(node)
        calls_before = len(node.llm_calls)
        stopped = result = None
        try:
            result = func(node, hooks)
        except BudgetExceeded as exc:
            stopped = str(exc)  # the children made so far are kept, as in-process
        finally:
            self.llm.settle()
        index = {id(node): -1, **{id(n): i for i, n in enumerate(made.nodes)}}
        return {"made": [{**_travel(n), "parent": index[id(n.parent)]} for n in made.nodes],
                "llm_calls": node.llm_calls[calls_before:], "budget": stopped, "result": result}


class _Made:
    """A worker's stand-in for the search tree: the root (prompts show its observation) and the nodes a
    unit made, in creation order (children, and their descendants where the unit went deeper)."""

    def __init__(self, root: SearchNode):
        self.root, self.nodes = root, []

    def add(self, node: SearchNode) -> SearchNode:
        self.nodes.append(node)
        return node


def _fields(node: SearchNode) -> dict:
    return {f: getattr(node, f) for f in _NODE_FIELDS}


def _travel(node: SearchNode) -> dict:
    return {**_fields(node), "bytes": snapshot_to_bytes(node.snapshot)}


class RayExpansion:
    """``workers`` Ray actors expanding a search policy's nodes (see the module docstring). They are started
    once and serve every search of the policy; :meth:`start` opens one search's call budget."""

    def __init__(self, workers: int, env_id: str, llm: Any, prompts: Any, options: dict[str, Any],
                 address: str | None = None, env_kwargs: dict[str, Any] | None = None):
        if workers < 1:
            raise ValueError(f"search_workers must be at least 1, not {workers}")
        self.env_kwargs = dict(env_kwargs or {})  # each worker's env is gym.make(env_id, **env_kwargs)
        ray = self._ray = ray_session(address, "search_workers")
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        # pinned round-robin to the cluster's nodes (SPREAD, and soft affinity under load, left zero-CPU actors on one node)
        nodes = sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))
        actor = ray.remote(num_cpus=0)(_ExpansionWorker)
        self.workers = [actor.options(scheduling_strategy=NodeAffinitySchedulingStrategy(nodes[i % len(nodes)], soft=False))
                        .remote(env_id, self.env_kwargs, llm, prompts, options, workers > 1) for i in range(workers)]
        self.size = workers
        # one thread: calls from one worker are served in the order it sent them (a release before its next reserve)
        self.budget: Any = ray.remote(num_cpus=0)(_CallBudget).remote()
        self._where: list[tuple[str, int]] | None = None

    def start(self, max_calls: int | None) -> None:
        """Open a search's call budget (on the budget actor every worker asks before a call; started once, like
        the workers: an actor's start costs a process)."""
        self._ray.get(self.budget.reset.remote(max_calls))

    def end(self) -> None:
        """Close the search's budget (no call is allowed until the next :meth:`start`)."""
        if self.budget is not None:
            self._ray.get(self.budget.reset.remote(0))

    def share_budget(self, llm: Any) -> Any:
        """``llm`` drawing on the workers' shared budget (the driver's own calls: comparisons, ...)."""
        return _SharedBudgetLLM(llm, self.budget)

    def where(self) -> list[tuple[str, int]]:
        """(Ray node id, process id) of every worker (asked once: actors do not move)."""
        if self._where is None:
            self._where = self._ray.get([w.where.remote() for w in self.workers])
        return self._where

    def usage(self) -> tuple[int, int]:
        """(calls, tokens) the search has spent: the workers' and the driver's through :meth:`share_budget`."""
        return self._ray.get(self.budget.usage.remote())

    def close(self) -> None:
        """Stop the workers and the budget actor."""
        for actor in [*self.workers, *([self.budget] if self.budget is not None else [])]:
            self._ray.kill(actor)
        self.workers, self.budget = [], None

    def run(self, nodes: Sequence[SearchNode], funcs: Sequence[Callable[[SearchNode, Any], Any]], hooks: Any) -> list[Any]:
        """``funcs[i](nodes[i], hooks)`` on the workers (unit ``i`` on worker ``i mod N``); the children they
        made are grafted onto the tree in the units' order; returns what each func returned (None for a
        unit stopped by the budget). Raises ``BudgetExceeded`` after grafting when a unit ran out of budget."""
        ray = self._ray
        pending, sent = [], {}
        for i, (node, func) in enumerate(zip(nodes, funcs)):
            if id(node) not in sent:  # a node's path and bytes are serialised once per batch
                sent[id(node)] = (ray.put(travelling_path(node)), ray.put(snapshot_to_bytes(node.snapshot)))
            path_ref, data_ref = sent[id(node)]
            pending.append(self.workers[i % len(self.workers)].expand.remote(func, path_ref, data_ref, self.budget))
        results, stopped = [], None
        try:
            answers = ray.get(pending)
        except ray.exceptions.RayTaskError as exc:
            if isinstance(getattr(exc, "cause", None), LLMError):
                raise exc.cause from None  # the backend's own one-line message, not Ray's remote traceback
            raise
        for node, answer in zip(nodes, answers):
            node.keep_llm_calls(answer["llm_calls"])
            grafted: list[SearchNode] = []
            for fields in answer["made"]:
                data, at = fields.pop("bytes"), fields.pop("parent")
                parent = node if at < 0 else grafted[at]
                child = SearchNode(snapshot=snapshot_from_bytes(data), parent=parent, **fields)
                parent.children.append(child)
                grafted.append(child)
                hooks.tree.add(child)
                hooks.expansions += 1
                if hooks.telemetry is not None:
                    hooks.telemetry.expanded(hooks)
            results.append(answer["result"])
            stopped = stopped or answer["budget"]
        if stopped:
            raise BudgetExceeded(stopped)
        return results
