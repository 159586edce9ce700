"""One search over Ray workers: frontier nodes travel as snapshot bytes, their expansions run remotely.

:class:`RayExpansion` (``search_workers=N``, ``ray_address=``) starts ``N`` Ray actors, each holding
its own env (``gym.make(env_id)``), the search's LLM and prompt spec. An algorithm hands it the nodes
it would expand one after another (BFS: a level's frontier) and a function of one node
(``algorithm.children``: propose, step every proposal, value every child); each node goes to a worker
as its snapshot's bytes (``treegym.envs.snapshot_to_bytes``) plus the path's observations (for the
prompts), the worker restores it, runs the function there (env steps and LLM calls), and sends back
the nodes it made, in creation order (children, and their descendants where the function went deeper,
as an MCTS rollout does: observations, values, LLM excerpts, snapshot bytes). The driver grafts them
onto the tree in the order the nodes were handed in, so node ids follow that order whatever the timing.

The call budget is shared through one Ray actor (:class:`_CallBudget`): every worker reserves a call
there before sending it, so the search never makes more calls than its budget. What changes with
more workers: nodes of one batch are expanded at once, so when the budget runs out mid-batch, which
nodes got their calls depends on timing (with one worker it is the in-process order: the same tree);
and ``stop_on_success`` stops after the batch that found the win, not at the win.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

from ...envs import restore, snapshot_from_bytes, snapshot_to_bytes
from ..llm.base import BudgetExceeded
from ..prompts import get_prompts
from .config import SearchConfig
from .tree import SearchNode

#: fields of a node that travel (with the snapshot bytes) and come back for every child
_NODE_FIELDS = ("observation", "info", "action", "thought", "reward", "terminal", "success", "depth",
                "visits", "value", "stats", "llm_calls")


def _ray(address: str | None) -> Any:
    """Ray, joined to ``address`` or started locally (the search layer may not import the experiments'
    executors, whose Ray backend does the same for episodes)."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("search_workers needs Ray: pip install 'treegym[ray]'") from None
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
    return ray


class _CallBudget:
    """The search's call budget, held by one Ray actor that every worker asks before a call."""

    def __init__(self, max_calls: int | None):
        self.max_calls, self.calls, self.reserved = max_calls, 0, 0
        self.tokens = 0
        self._lock = threading.Lock()

    def reserve(self, need: int) -> bool:
        with self._lock:
            if self.max_calls is not None and self.calls + self.reserved + need > self.max_calls:
                return False
            self.reserved += need
            return True

    def spent(self, reserved: int, calls: int, tokens: int) -> None:
        with self._lock:
            self.reserved -= reserved
            self.calls += calls
            self.tokens += tokens

    def where(self) -> list[tuple[str, int]]:
        """(Ray node id, process id) of every worker."""
        return self._ray.get([w.where.remote() for w in self.workers])

    def usage(self) -> tuple[int, int]:
        return self.calls, self.tokens


class _SharedBudgetLLM:
    """A worker's LLM: reserves each call on the shared budget actor, reports what it cost."""

    def __init__(self, llm: Any, budget: Any):
        self.llm, self.budget = llm, budget
        self.name = getattr(llm, "name", "llm")
        self.info = getattr(llm, "info", None)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("llm", "budget"):
            raise AttributeError(name)
        return getattr(self.llm, name)

    def complete(self, request: Any) -> list[str]:
        import ray

        need = getattr(self.llm, "calls_needed", None)
        need = max(1, int(need(request.n))) if callable(need) else 1
        if not ray.get(self.budget.reserve.remote(need)):
            raise BudgetExceeded("call budget spent (shared by the search's workers); stop the search or raise budget")
        usage = getattr(self.llm, "usage", None)
        before = (usage.calls, usage.total_tokens) if usage is not None else (0, 0)
        calls, tokens = need, 0
        try:
            return self.llm.complete(request)
        finally:
            if usage is not None:
                calls, tokens = usage.calls - before[0] or need, usage.total_tokens - before[1]
            ray.get(self.budget.spent.remote(need, calls, tokens))  # counted before the unit returns


class _ExpansionWorker:
    """One Ray actor: an env of ``env_id`` and the search's LLM; expands nodes that arrive as bytes."""

    def __init__(self, env_id: str, llm: Any, prompts: Any, options: dict[str, Any]):
        import gymnasium as gym

        self.env = gym.make(env_id)
        self.llm = _SharedBudgetLLM(llm, None)
        self.prompts = prompts if prompts is not None else get_prompts(env_id)
        self.options = options

    def where(self) -> tuple[str, int]:
        """(the Ray node id, the process id) this worker runs in."""
        import os

        import ray

        return ray.get_runtime_context().get_node_id(), os.getpid()

    def expand(self, func: Callable[[SearchNode, Any], Any], path: list[dict], data: bytes, budget: Any) -> dict:
        """Restore ``data`` (the last node of ``path``), run ``func(node, hooks)`` drawing on ``budget`` (the
        search's :class:`_CallBudget` actor); its result, the children it made, the LLM excerpts it noted."""
        restore(self.env, snapshot_from_bytes(data))
        node = None
        for fields in path:
            node = SearchNode(snapshot=None, parent=node, **fields)
        self.llm.budget = budget
        hooks = SearchConfig(self.env, self.prompts, self.llm, **self.options)
        hooks.tree = made = _Made(node.path()[0])
        hooks.snapshots.add_root(node)
        calls_before = len(node.llm_calls)
        stopped = result = None
        try:
            result = func(node, hooks)
        except BudgetExceeded as exc:
            stopped = str(exc)  # the children made so far are kept, as in-process
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
                 address: str | None = None):
        if workers < 1:
            raise ValueError(f"search_workers must be at least 1, not {workers}")
        ray = self._ray = _ray(address)
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        # pinned round-robin to the cluster's nodes (SPREAD, and soft affinity under load, left zero-CPU actors on one node)
        nodes = sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))
        actor = ray.remote(num_cpus=0)(_ExpansionWorker)
        self.workers = [actor.options(scheduling_strategy=NodeAffinitySchedulingStrategy(nodes[i % len(nodes)], soft=False))
                        .remote(env_id, llm, prompts, options) for i in range(workers)]
        self.size = workers
        self.budget: Any = None

    def start(self, max_calls: int | None) -> None:
        """Open a search's call budget (one Ray actor every worker asks before a call)."""
        self.end()
        self.budget = self._ray.remote(num_cpus=0, max_concurrency=max(4, 2 * self.size))(_CallBudget).remote(max_calls)

    def end(self) -> None:
        """Close the search's budget actor (the workers stay for the next search)."""
        if self.budget is not None:
            self._ray.kill(self.budget)
            self.budget = None

    def share_budget(self, llm: Any) -> Any:
        """``llm`` drawing on the workers' shared budget (the driver's own calls: comparisons, ...)."""
        return _SharedBudgetLLM(llm, self.budget)

    def where(self) -> list[tuple[str, int]]:
        """(Ray node id, process id) of every worker."""
        return self._ray.get([w.where.remote() for w in self.workers])

    def usage(self) -> tuple[int, int]:
        """(calls, tokens) the search has spent: the workers' and the driver's through :meth:`share_budget`."""
        return self._ray.get(self.budget.usage.remote())

    def close(self) -> None:
        """Stop the workers."""
        self.end()
        for w in self.workers:
            self._ray.kill(w)
        self.workers = []

    def run(self, nodes: Sequence[SearchNode], funcs: Sequence[Callable[[SearchNode, Any], Any]], hooks: Any) -> list[Any]:
        """``funcs[i](nodes[i], hooks)`` on the workers (unit ``i`` on worker ``i mod N``); the children they
        made are grafted onto the tree in the units' order; returns what each func returned (None for a
        unit stopped by the budget). Raises ``BudgetExceeded`` after grafting when a unit ran out of budget."""
        ray = self._ray
        pending, sent = [], {}
        for i, (node, func) in enumerate(zip(nodes, funcs)):
            if id(node) not in sent:  # a node's path and bytes are serialised once per batch
                path = [{**_fields(n), "llm_calls": []} for n in node.path()]  # excerpts stay on the driver's tree
                sent[id(node)] = (ray.put(path), ray.put(snapshot_to_bytes(node.snapshot)))
            path_ref, data_ref = sent[id(node)]
            pending.append(self.workers[i % len(self.workers)].expand.remote(func, path_ref, data_ref, self.budget))
        results, stopped = [], None
        for node, answer in zip(nodes, ray.get(pending)):
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
