"""The search framework: nodes, trees, the search config and the search-agent policy.

The split follows LLM-Reasoners (world model / search config / algorithm):

* the **world model** is the forkable env itself, reached only through
  :meth:`SearchConfig.expand` (restore the node's snapshot, step, snapshot the
  child) and :meth:`SearchConfig.restore`;
* the **search config** is :class:`SearchConfig` (``TaskHooks`` is its old
  name): ``propose`` candidate actions, ``compare`` two trajectories, ``value``
  a state, ``reflect`` on a failure, ``imagine`` the rest of a plan, all through
  the env's prompt spec (``agents/prompts``) and the LLM;
* the **algorithm** is a :class:`SearchAgent` subclass implementing
  ``search(root, hooks)`` (grow the tree) and ``choose(tree)`` (the final
  leaf), never touching prompts or env internals.

A :class:`SearchAgent` is an ordinary policy. On its first ``act`` of an
episode it runs the algorithm on the bound env inside an LLM call budget
(``BudgetedLLM``; a spent budget stops the search cleanly, the tree so far is
kept), restores the env to the root snapshot, then plays the chosen
trajectory's actions one per ``act``. If the chosen trajectory ends before the
episode does (the chosen leaf is not terminal), it continues greedily: one
propose call from the live state per step, taking the first proposal, while
the budget lasts; when nothing can be proposed it raises ``AgentGaveUp``.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from ...envs.core import Snapshot
from ..llm.about import About, asking
from ..llm.base import LLM, BudgetExceeded, LLMAuthError, LLMError
from ..prompts import Step, get_prompts
from ..policy import AgentGaveUp, BasePolicy
from .snapshot_store import SnapshotStore, timed_step
from .telemetry import PatienceExhausted, SearchTelemetry

OBS_EXCERPT_CHARS = 200
OBSERVATION_CHARS = 1500   # per node in a saved tree: what the tree viewer shows
LLM_EXCERPT_CHARS = 1500   # per prompt / answer kept on a node (of the prompt: its last message)
LLM_CALLS_PER_NODE = 8     # LLM exchanges kept per node in a saved tree (the first ones)


def _success(info: dict) -> bool:
    """``info["success"]``, which every treegym env reports (envs/core/contract.py)."""
    try:
        return bool(info["success"])
    except KeyError:
        raise ValueError("the env's info has no 'success' entry; every treegym env must report it after "
                         "reset and every step (see envs/core/contract.py)") from None


@dataclass(eq=False)
class SearchNode:
    """One state of the search tree.

    ``snapshot`` is the env state *after* ``action`` (the root's is the state the
    search started from), or None when the search's :class:`SnapshotStore` reaches
    the node by replay from an ancestor instead (costly snapshot kinds) or
    released it; ``observation``/``info`` are what the env returned
    there. ``value`` is the algorithm's main number (Elo, f, Q: the tree names it),
    ``visits`` its visit count; ``stats`` holds anything else per node.
    """

    snapshot: Snapshot | None
    observation: dict
    info: dict = field(default_factory=dict)
    action: str | None = None
    thought: str = ""
    reward: float = 0.0
    terminal: bool = False
    success: bool = False
    depth: int = 0
    parent: "SearchNode | None" = None
    children: list["SearchNode"] = field(default_factory=list)
    visits: int = 0
    value: float = 0.0
    id: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return str(self.observation.get("text", "")) if isinstance(self.observation, dict) else str(self.observation)

    def path(self) -> list["SearchNode"]:
        """Nodes from the root to this node, both included."""
        out, node = [], self
        while node is not None:
            out.append(node)
            node = node.parent
        return out[::-1]

    def actions(self) -> list[str]:
        return [n.action for n in self.path()[1:] if n.action is not None]

    def trajectory(self) -> list[Step]:
        """The path as prompt ``Step`` values."""
        return [Step(n.action or "", n.text, n.reward, n.thought) for n in self.path()[1:]]

    def child(self, action: str) -> "SearchNode | None":
        return next((c for c in self.children if c.action == action), None)

    def iter_subtree(self) -> Iterator["SearchNode"]:
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def leaves(self) -> list["SearchNode"]:
        return [n for n in self.iter_subtree() if not n.children]


class SearchTree:
    """All nodes of one search, with ids in creation order, and JSON export.

    ``value_name`` says what ``SearchNode.value`` means (``elo``, ``f``, ``q``).
    """

    def __init__(self, root: SearchNode, *, algorithm: str = "", value_name: str = "value", env_id: str = ""):
        self.root = root
        self.nodes: list[SearchNode] = []
        self.algorithm = algorithm
        self.value_name = value_name
        self.env_id = env_id
        self.chosen: SearchNode | None = None
        self.task_id: Any = root.info.get("task_id") if isinstance(root.info, dict) else None
        self.add(root)

    def add(self, node: SearchNode) -> SearchNode:
        node.id = len(self.nodes)
        self.nodes.append(node)
        return node

    def __len__(self) -> int:
        return len(self.nodes)

    def terminal_nodes(self) -> list[SearchNode]:
        return [n for n in self.nodes if n.terminal]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: one entry per node (see ``treegym tree`` for a reader)."""
        chosen_ids = {n.id for n in self.chosen.path()} if self.chosen is not None else set()
        root_step = getattr(self.root.snapshot, "steps", None) or 0
        return {
            "format": "treegym-search-tree/1",
            "algorithm": self.algorithm,
            "env_id": self.env_id,
            "value_name": self.value_name,
            "instruction": str(self.root.observation.get("instruction", ""))[:500]
            if isinstance(self.root.observation, dict) else "",
            "task_id": _json_safe(self.task_id),
            "chosen": self.chosen.id if self.chosen is not None else None,
            "nodes": [
                {
                    "id": n.id,
                    "parent": n.parent.id if n.parent is not None else None,
                    "action": n.action,
                    "thought": n.thought[:OBS_EXCERPT_CHARS],
                    "observation": n.text[:OBSERVATION_CHARS],
                    "step": root_step + n.depth,
                    "llm": n.llm_calls,
                    "reward": n.reward,
                    "terminal": n.terminal,
                    "success": n.success,
                    "depth": n.depth,
                    "visits": n.visits,
                    "value": round(float(n.value), 6),
                    "chosen": n.id in chosen_ids,
                    "stats": _json_safe(n.stats),
                    **({"text": n.text} if len(n.text) > OBS_EXCERPT_CHARS else {}),  # the full observation
                }
                for n in self.nodes
            ],
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the tree JSON atomically (temp file + rename); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=1))
        os.replace(tmp, path)
        return path


def _json_safe(x: Any) -> Any:
    try:
        json.dumps(x)
        return x
    except TypeError:
        return json.loads(json.dumps(x, default=str))


class SearchConfig:
    """What an algorithm may do (LLM-Reasoners' search config): env access through
    snapshots, LLM access through the env's prompt spec (``agents/prompts``).

    Every LLM request goes out with its side channel (``agents/llm/about.py``):
    the kind and the snapshots it concerns, which simulated models read for the
    truth and real ones ignore.

    Options:

    * ``propose_mode``: ``"list"`` - one LLM call asking for k proposals (ToT's
      propose prompt); ``"sample"`` - k ReAct calls at ``temperature`` (> 0).
    * ``filter_valid``: when the observation lists ``valid_actions``, keep only
      proposals among them (matched case-insensitively, rewritten to the listed
      form) or filling one of the env's ``action_templates()`` (a search query).
    * ``value_samples``: LLM calls averaged per ``value``.

    Counters: ``expansions`` (env steps taken by ``expand``), ``restores``.

    Snapshots live in ``self.snapshots``, a per-search :class:`SnapshotStore`
    (``snapshot_store.py``): it decides which nodes hold one by the snapshot
    kind's declared cost, replays from the nearest stored ancestor otherwise, and
    frees them on :meth:`prune` and when the search ends.

    ``reflections`` (a list an algorithm may fill, e.g. LATS) are shown in every
    propose and ReAct prompt.
    """

    def __init__(
        self,
        env: Any,
        prompts: Any,
        llm: LLM,
        *,
        propose_mode: str = "list",
        temperature: float = 0.7,
        filter_valid: bool = True,
        value_samples: int = 1,
        tree: SearchTree | None = None,
    ):
        if propose_mode not in ("list", "sample"):
            raise ValueError(f"propose_mode must be 'list' or 'sample', not {propose_mode!r}")
        self.env = env
        prompts.bind(env)
        self.prompts = prompts
        self.llm = llm
        self.propose_mode = propose_mode
        self.temperature = float(temperature)
        self.filter_valid = bool(filter_valid)
        self.value_samples = max(1, int(value_samples))
        self.tree = tree
        self.reflections: list[str] = []
        self.expansions = 0
        self.snapshots = SnapshotStore(env)
        self.telemetry: SearchTelemetry | None = None  # told of every expansion (telemetry.py)

    @property
    def restores(self) -> int:
        return self.snapshots.restores

    @property
    def adapter(self) -> Any:
        """Deprecated name of :attr:`prompts`."""
        return self.prompts

    # ------------------------------------------------------------ env access
    def make_root(self, observation: dict, info: dict) -> SearchNode:
        """The root node: the live env's current state (the env is not moved)."""
        root = SearchNode(snapshot=None, observation=observation, info=dict(info))
        self.snapshots.add_root(root)
        return root

    def restore(self, node: SearchNode) -> None:
        """Put the env in ``node``'s state (skipped when it is already there)."""
        self.snapshots.restore(node)

    def prune(self, node: SearchNode) -> None:
        """The search will not come back to ``node``'s subtree: free its snapshots."""
        self.snapshots.release_subtree(node)

    def expand(self, node: SearchNode, action: str, thought: str = "") -> SearchNode:
        """The child of ``node`` reached by ``action`` (an existing one is reused).

        Restores ``node``'s snapshot, steps the env once and snapshots the result.
        """
        existing = node.child(action)
        if existing is not None:
            return existing
        if node.terminal:
            raise ValueError(f"node {node.id} is terminal; it has no children to expand")
        self.restore(node)
        (obs, reward, terminated, truncated, info), seconds = timed_step(self.env, action)
        self.expansions += 1
        child = SearchNode(
            snapshot=None, observation=obs, info=dict(info), action=action, thought=thought,
            reward=float(reward), terminal=bool(terminated or truncated),
            success=_success(info), depth=node.depth + 1, parent=node,
        )
        self.snapshots.add_child(child, seconds)
        node.children.append(child)
        if self.tree is not None:
            self.tree.add(child)
        if self.telemetry is not None:
            self.telemetry.expanded(self)
        return child

    # ------------------------------------------------------------ the side channel
    def _ref(self, x: "SearchNode | Sequence[Step]") -> tuple[Any, tuple[str, ...]]:
        """A state reference for ``x``: the nearest snapshot at or above a node plus the actions from
        there (the snapshot store may keep no snapshot on the node itself), or the root plus a
        trajectory's actions. A chain with no snapshot at all is a prompt-only chain ending at the
        live state."""
        if isinstance(x, SearchNode):
            actions: list[str] = []
            node: SearchNode | None = x
            while node is not None and node.snapshot is None:
                actions.append(node.action)
                node = node.parent
            if node is None:
                return (None, ())
            return (node.snapshot, tuple(reversed(actions)))
        root = self.snapshots.root
        return (root.snapshot if root is not None else None, tuple(s.action for s in x))

    @staticmethod
    def _note(node: "SearchNode | Sequence[Step] | Any", kind: str, messages: Sequence[dict], answers: Sequence[str]) -> None:
        """Keep an LLM exchange on ``node`` for the saved tree (the prompt's last message and the answers)."""
        if not isinstance(node, SearchNode) or len(node.llm_calls) >= LLM_CALLS_PER_NODE:
            return
        last = str(messages[-1].get("content", "")) if messages and isinstance(messages[-1], dict) else ""
        if len(last) > LLM_EXCERPT_CHARS:  # the head names the task, the tail holds this node's state
            last = last[:300] + " … " + last[-(LLM_EXCERPT_CHARS - 300):]
        node.llm_calls.append({"kind": kind, "prompt": last, "answers": [str(a)[:LLM_EXCERPT_CHARS] for a in answers]})

    def _ask(self, kind: str, *states: Any, k: int = 1, avoid: Sequence[str] = ()) -> Any:
        return asking(About(kind, self.env, tuple(self._ref(x) for x in states), k=k, avoid=tuple(avoid)))

    # ------------------------------------------------------------ LLM hooks
    def propose(self, node: SearchNode, k: int, avoid: Sequence[str] = (), attempt: int = 0) -> list[str]:
        """Up to ``k`` distinct candidate actions from ``node`` (``avoid`` is shown to the model and filtered).

        ``attempt`` > 0 asks again for the same node (sampled at ``temperature`` with
        seed ``attempt``), e.g. after an answer with nothing usable in it.
        """
        obs, history = node.observation, node.trajectory()
        if self._constrained(obs):
            # A model held to a grammar (the embedded one) cannot write a free list:
            # sample k single actions, each constrained to the env's valid actions.
            raw = self.sample_actions(node, k, avoid=avoid)
        elif self.propose_mode == "list":
            messages = self.prompts.propose_messages(obs, history, k, avoid, self.reflections)
            with self._ask("propose", node, k=k, avoid=avoid):
                text = self.llm.complete(messages, n=1, temperature=self.temperature if (k > 1 or attempt) else 0.0,
                                         seed=attempt or None)[0]
            self._note(node, "propose", messages, [text])
            raw = self.prompts.parse_proposals(text, obs)
        else:
            raw = self.sample_actions(node, k, avoid=avoid)
        return self._clean(raw, obs, avoid)[:k]

    def sample_actions(self, node: SearchNode, k: int, avoid: Sequence[str] = ()) -> list[str]:
        """``k`` i.i.d. ReAct actions at ``temperature`` in one LLM request (``n=k``; the embedded
        model's client sends k seeded requests). Duplicates are kept: their counts are the
        self-consistency frequencies. Unparseable answers are dropped. With a grammar-capable
        LLM the answers are held to the valid actions not in ``avoid`` ([] when none is left)."""
        messages = self.prompts.react_messages(node.observation, node.trajectory(), self.reflections, avoid)
        choices = None
        if self._constrained(node.observation):
            # held to the valid actions not tried yet: a small model asked for "a different one"
            # would otherwise pick the avoided favourite again, and the proposal would be wasted
            avoided = set(avoid)
            choices = [v for v in self._valid(node.observation) if v not in avoided]
            if not choices:
                return []
        with self._ask("react", node, avoid=avoid):
            texts = self.llm.complete(messages, n=k, temperature=self.temperature, choices=choices)
        self._note(node, "react", messages, texts)
        actions = [self.prompts.parse_action(t, node.observation) for t in texts[:k]]
        return [a for a in actions if a]

    def _valid(self, obs: Any) -> tuple[str, ...]:
        return tuple(str(v) for v in (obs.get("valid_actions") or ())) if isinstance(obs, dict) else ()

    def _constrained(self, obs: Any) -> bool:
        """Whether answers are held to the env's valid actions (an LLM with grammar support)."""
        return bool(getattr(self.llm, "supports_grammar", False)) and bool(self._valid(obs))

    def react(self, node: SearchNode, temperature: float = 0.0, reflections: Sequence[str] = ()) -> str:
        """One ReAct action from ``node`` (greedy by default)."""
        choices = self._valid(node.observation) if self._constrained(node.observation) else None
        messages = self.prompts.react_messages(node.observation, node.trajectory(),
                                               list(reflections) or self.reflections)
        with self._ask("react", node):
            text = self.llm.complete(messages, n=1, temperature=temperature, choices=choices)[0]
        self._note(node, "react", messages, [text])
        return self.prompts.parse_action(text, node.observation)

    def _clean(self, actions: Sequence[str], obs: dict, avoid: Sequence[str]) -> list[str]:
        valid = obs.get("valid_actions") if isinstance(obs, dict) else None
        lookup = {str(v).strip().lower(): str(v) for v in valid} if (self.filter_valid and valid) else None
        out: list[str] = []
        for a in actions:
            a = str(a).strip()
            if lookup is not None:
                # Listed actions are matched case-insensitively to the env's exact text; a
                # free-text one (a WebShop search query) passes if it fills an action template.
                a = lookup.get(a.lower(), "") or (a if self.prompts.is_listed_or_templated(a, obs) else "")
            if a and a not in out and a not in avoid:
                out.append(a)
        return out

    def compare(self, a: SearchNode | Sequence[Step], b: SearchNode | Sequence[Step]) -> float:
        """Is trajectory ``a`` better than ``b``? Judged twice with the order swapped (Eq. 6):
        1.0 if ``a`` wins both, 0.0 if ``b`` wins both, else 0.5. Two LLM calls."""
        ta = a.trajectory() if isinstance(a, SearchNode) else list(a)
        tb = b.trajectory() if isinstance(b, SearchNode) else list(b)
        obs = self.tree.root.observation if self.tree is not None else {}
        choices = self.prompts.compare_choices
        with self._ask("compare", a, b):
            m1 = self.prompts.compare_messages(obs, ta, tb)
            t1 = self.llm.complete(m1, choices=choices)[0]
        with self._ask("compare", b, a):
            m2 = self.prompts.compare_messages(obs, tb, ta)
            t2 = self.llm.complete(m2, choices=choices)[0]
        first, second = self.prompts.parse_comparison(t1), self.prompts.parse_comparison(t2)
        for node in (a, b):
            self._note(node, "compare", m1, [t1, t2])
        if first == 1.0 and second == 0.0:
            return 1.0
        if first == 0.0 and second == 1.0:
            return 0.0
        return 0.5

    def value(self, node: SearchNode) -> float:
        """The LLM's value of ``node``'s state in [0, 1], averaged over ``value_samples`` calls."""
        messages = self.prompts.value_messages(node.observation, node.trajectory())
        choices = self.prompts.value_choices
        with self._ask("value", node):
            texts = list(self.llm.complete(messages, n=1, temperature=self.temperature if self.value_samples > 1
                                           else 0.0, choices=choices))
            scores = [self.prompts.parse_value(texts[0])]
            for i in range(1, self.value_samples):
                texts.append(self.llm.complete(messages, n=1, temperature=self.temperature, seed=i, choices=choices)[0])
                scores.append(self.prompts.parse_value(texts[-1]))
        self._note(node, "value", messages, texts)
        return sum(scores) / len(scores)

    def reflect(self, trajectory: SearchNode | Sequence[Step], outcome: str) -> str:
        """A short self-reflection on a failed trajectory (one LLM call)."""
        steps = trajectory.trajectory() if isinstance(trajectory, SearchNode) else list(trajectory)
        obs = self.tree.root.observation if self.tree is not None else {}
        start = trajectory.path()[0] if isinstance(trajectory, SearchNode) else []
        with self._ask("reflect", start):
            return self.llm.complete(self.prompts.reflect_messages(obs, steps, outcome))[0].strip()

    def imagine(self, node: SearchNode) -> list[str]:
        """The model's imagined rest of the plan from ``node`` (A*'s h2); [] when it sees none. One LLM call."""
        with self._ask("imagine", node):
            messages = self.prompts.imagine_messages(node.observation, node.trajectory())
            text = self.llm.complete(messages)[0]
        self._note(node, "imagine", messages, [text])
        return self.prompts.parse_imagined(text, node.observation)

    # ------------------------------------------------------------ env knowledge algorithms may use
    def action_key(self, action: str) -> str:
        """What makes two actions "the same" (dedup, A*'s plan memory): the env's canonical form."""
        return self.prompts.canonical(action) or str(action).strip().lower()

    def demonstrations(self, n: int, seed: int = 0) -> list[list[str]]:
        """Up to ``n`` solved plans (the env expert's, on a private clone) of tasks of the env's
        ``train`` split, shuffled by ``seed``: what seeds A*'s long-term memory. [] when the env
        lists no train tasks or has no expert."""
        import random

        from ...envs.core import clone

        base = getattr(self.env, "unwrapped", self.env)
        try:
            ids = list(type(base).split_task_ids("train"))
        except (NotImplementedError, ValueError, KeyError):
            return []
        random.Random(seed).shuffle(ids)
        scratch, plans = clone(self.env), []
        for task_id in ids:
            if len(plans) >= n:
                break
            scratch.reset(options={"task_id": task_id})
            advice = scratch.unwrapped.expert()
            if advice is None:
                return []
            if advice.plan:
                plans.append(list(advice.plan))
        return plans


#: Deprecated name of :class:`SearchConfig`.
TaskHooks = SearchConfig


@dataclass
class SearchResult:
    """What one search produced: the chosen leaf and its actions, every explored
    trajectory (root-to-leaf action lists), the tree, and why the search stopped."""

    chosen: SearchNode | None
    actions: list[str]
    trajectories: list[list[str]]
    tree: SearchTree
    stopped: str  # "done", "budget", "patience" or "llm_error"


class SearchAgent(BasePolicy):
    """A policy that searches on its first ``act`` and then plays the chosen trajectory.

    Subclasses set ``name`` and ``value_name`` and implement ``search(root, hooks)``
    and ``choose(tree)``; ``self.rng`` (numpy Generator) is seeded per search from
    ``seed`` and the root observation, so the same seed on the same task gives the
    same tree.

    Options common to all algorithms: ``budget`` (LLM calls per search; default: the
    run's ``--budget`` when the LLM handed in is a ``BudgetedLLM`` with a limit, else
    ``default_budget`` = 100),
    ``max_tokens`` (token budget, default none), ``seed``, ``tree_out`` (path of the
    tree JSON; ``{task}`` in it is replaced by the task id (``info["task_id"]``),
    ``{episode}`` by this agent object's episode count; without either the file
    is overwritten per episode), ``propose_mode``, ``temperature``,
    ``filter_valid``, ``value_samples`` (passed to :class:`SearchConfig`);
    ``patience`` (stop when the best value has not risen for that many expansions,
    ``telemetry.py``; default never);
    ``prompts`` (a prompt spec; default: the env's, ``agents/prompts``), and
    ``peek_success`` (default false): whether the search may read the env's success
    flag and reward (an oracle). Without it an algorithm sees what a deployed agent
    sees: observations, and whether the episode ended; every record carries the
    setting (``peek_success`` in ``stats()``).
    """

    name = "search"
    value_name = "value"
    #: When ``choose`` returns None: False = continue greedily, True = raise AgentGaveUp.
    give_up_without_answer = False
    #: LLM calls per search when neither ``budget=`` nor the run's ``--budget`` says.
    default_budget = 100

    def __init__(
        self,
        env_id: str,
        llm: LLM,
        *,
        budget: int | str | None = "default",
        max_tokens: int | None = None,
        seed: int = 0,
        tree_out: str | None = None,
        propose_mode: str = "list",
        temperature: float = 0.7,
        filter_valid: bool = True,
        value_samples: int = 1,
        peek_success: bool = False,
        prompts: Any = None,
        patience: int | None = None,
    ):
        if llm is None:
            raise ValueError(f"agent {self.name!r} needs an LLM")
        self.env_id = env_id
        self.llm = llm
        self.prompts = prompts or get_prompts(env_id)
        if budget == "default":
            # the run's --budget when the runner handed us a budgeted LLM, else the paper's default
            budget = getattr(llm, "max_calls", None) or self.default_budget
        self.budget = None if budget in (None, "", "none") else int(budget)
        self.max_tokens = None if max_tokens in (None, "", "none") else int(max_tokens)
        self.seed = int(seed)
        self.tree_out = tree_out
        self.hook_options = dict(propose_mode=propose_mode, temperature=float(temperature),
                                 filter_valid=_as_bool(filter_valid), value_samples=int(value_samples))
        self.peek_success = _as_bool(peek_success)
        self.patience = None if patience in (None, "", "none") else int(patience)
        if self.patience is not None and self.patience < 0:
            raise ValueError(f"{self.name}: patience is a number of expansions >= 0, got {patience}")
        self.result: SearchResult | None = None
        self.episode = 0
        self._plan: list[str] | None = None
        self._played: list[tuple[str, dict]] = []
        self._root_obs: dict = {}
        self._stats: dict[str, Any] = {}
        self._llm_view: Any = None

    # ------------------------------------------------------------ what the search may know
    def known_win(self, node: SearchNode) -> bool:
        """Whether the search may treat ``node`` as won: only with ``peek_success`` (the env's success
        flag is an oracle the papers' agents do not have); otherwise always False."""
        return self.peek_success and node.success

    def terminal_value(self, node: SearchNode, hooks: "SearchConfig") -> float:
        """The value of a step that ended the episode: the env's verdict (1 won / 0 not) with
        ``peek_success``, else the LLM's own value of the final state (one ``value`` call)."""
        if self.peek_success:
            return 1.0 if node.success else 0.0
        return float(hooks.value(node))

    def stop_on_success_option(self, value: Any) -> bool:
        """Resolve a ``stop_on_success`` option: unset follows ``peek_success``; true needs it."""
        if value in (None, "", "default"):
            return self.peek_success
        stop = _as_bool(value)
        if stop and not self.peek_success:
            raise ValueError(f"{self.name}: stop_on_success=true reads the env's success flag during the "
                             "search; pass peek_success=true as well to allow that oracle")
        return stop

    # ------------------------------------------------------------ to implement
    @property
    def adapter(self) -> Any:
        """Deprecated name of :attr:`prompts`."""
        return self.prompts

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:  # pragma: no cover - abstract
        """Grow ``hooks.tree`` from ``root``; may stop any time (``BudgetExceeded`` is caught outside)."""
        raise NotImplementedError

    def choose(self, tree: SearchTree) -> SearchNode | None:  # pragma: no cover - abstract
        """The leaf whose trajectory is the answer (None: nothing worth playing)."""
        raise NotImplementedError

    # ------------------------------------------------------------ policy protocol
    def reset(self) -> None:
        self._plan = None
        self.result = None
        self._stats = {}
        self._played = []

    def act(self, observation: dict, info: dict) -> str:
        if self.env is None:
            raise RuntimeError(f"the {self.name} agent must be bound to its env: call policy.bind(env) after reset")
        if self._played:
            self._played[-1] = (self._played[-1][0], observation)
        if self._plan is None:
            self._root_obs = observation
            result = self.run_search(observation, info)
            self._plan = list(result.actions)
            if result.chosen is None and self.give_up_without_answer:
                raise AgentGaveUp(f"{self.name}: the search chose no answer ({result.stopped}, "
                                  f"{len(result.tree)} nodes)")
        action = self._plan.pop(0) if self._plan else self._greedy_step(observation, info)
        self._played.append((action, {}))
        return action

    def stats(self) -> dict[str, Any]:
        return dict(self._stats)

    # ------------------------------------------------------------ the search run
    def _budgeted(self) -> Any:
        from ..llm.budget import BudgetedLLM

        return BudgetedLLM(self.llm, max_calls=self.budget, max_tokens=self.max_tokens)

    def run_search(self, observation: dict, info: dict) -> SearchResult:
        """Search from the bound env's current state, leave the env there, return the result."""
        import numpy as np

        self._llm_view = self._budgeted()
        hooks = SearchConfig(self.env, self.prompts, self._llm_view, **self.hook_options)
        root = hooks.make_root(observation, info)
        tree = SearchTree(root, algorithm=self.name, value_name=self.value_name, env_id=self.env_id)
        if tree.task_id is None:  # an env whose info does not name its task: its current task
            task = getattr(getattr(self.env, "unwrapped", self.env), "task", None)
            tree.task_id = task if isinstance(task, (str, int)) else getattr(task, "task_id", None)
        hooks.tree = tree
        hooks.telemetry = telemetry = SearchTelemetry(self.name, self.patience)
        digest = hashlib.sha256(f"{self.seed}:{observation.get('instruction', '')}:{root.text}".encode()).digest()
        self.rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        stopped, llm_error = "done", None
        try:
            self.search(root, hooks)
        except BudgetExceeded:
            stopped = "budget"
        except PatienceExhausted:
            stopped = "patience"
        except LLMAuthError:
            raise  # bad credentials or model name: retrying or continuing will not help
        except LLMError as exc:
            # A backend failure (timeout after retries, server error) ends the search, not the
            # episode: the tree so far is kept and the best answer in it is played.
            stopped, llm_error = "llm_error", str(exc)
        finally:
            try:
                hooks.snapshots.return_to_root()
            finally:
                hooks.snapshots.close()  # frees external snapshots; native ones stay on the tree
        telemetry.refresh(hooks)
        chosen = self.choose(tree)
        tree.chosen = chosen
        trajectories = [leaf.actions() for leaf in tree.nodes if not leaf.children and leaf is not root]
        self.result = SearchResult(chosen, chosen.actions() if chosen else [], trajectories, tree, stopped)
        self.episode += 1
        self._stats = {
            "search_nodes": len(tree),
            "search_expansions": hooks.expansions,
            "search_trajectories": len(trajectories),
            "search_stopped": stopped,
            "search_llm_calls": self._llm_view.usage.calls,
            "search_tokens": self._llm_view.usage.total_tokens,
            "search_best_value": telemetry.as_dict()["search_best_value"],
            "search_best_at_expansion": telemetry.best_at_expansion,
            "chosen_success": bool(chosen.success) if chosen is not None else False,
            "peek_success": self.peek_success,
        }
        if hooks.snapshots.kind != "native":
            self._stats.update(hooks.snapshots.stats())
        if llm_error:
            self._stats["search_llm_error"] = llm_error[:500]
        if self.tree_out:
            task = tree.task_id if tree.task_id is not None else hashlib.sha256(root.text.encode()).hexdigest()[:8]
            path = str(self.tree_out).replace("{episode}", str(self.episode)).replace("{task}", str(task))
            self._stats["tree_json"] = str(tree.save(path))
        return self.result

    def _greedy_step(self, observation: dict, info: dict) -> str:
        """After the chosen trajectory: one greedy proposal from the live state."""
        hooks = SearchConfig(self.env, self.prompts, self._llm_view or self._budgeted(), **self.hook_options)
        # A prompt-only chain of the steps played so far, ending at the live state (no snapshots:
        # nothing restores these nodes; the side channel reads it as the live state).
        node = SearchNode(snapshot=None, observation=self._root_obs, info={})
        for action, obs in self._played:
            node = SearchNode(snapshot=None, observation=obs, action=action, parent=node, depth=node.depth + 1)
        node.observation, node.info = observation, dict(info)
        try:
            proposals = hooks.propose(node, 1)
        except BudgetExceeded:
            raise AgentGaveUp(f"{self.name}: the chosen trajectory ended before the episode and the "
                              "LLM budget is spent") from None
        if not proposals:
            raise AgentGaveUp(f"{self.name}: the chosen trajectory ended before the episode and the "
                              "model proposed no further action")
        self._stats["greedy_steps"] = self._stats.get("greedy_steps", 0) + 1
        return proposals[0]


def agent_options(cls: type) -> list[str]:
    """The keyword options ``cls`` accepts (its own and those of its SearchAgent bases)."""
    import inspect

    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        for p in inspect.signature(init).parameters.values():
            if p.kind is p.KEYWORD_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and p.name not in ("self", "env_id", "llm")):
                names.add(p.name)
    return sorted(names)


def build_search_agent(cls: type, env_id: str, llm: Any, options: dict[str, Any]) -> "SearchAgent":
    """``cls(env_id, llm, **options)``, or a ValueError naming an unknown option and the known ones."""
    known = agent_options(cls)
    unknown = [k for k in options if k not in known and k != "at"]
    if unknown:
        raise ValueError(f"agent {cls.name!r}: unknown option(s) {', '.join(map(repr, unknown))}; "
                         f"its options are: {', '.join(known)}")
    options = {k: v for k, v in options.items() if k != "at"}
    return cls(env_id, llm, **options)


def _as_bool(x: Any) -> bool:
    if isinstance(x, str):
        return x.strip().lower() not in ("0", "false", "no", "off", "")
    return bool(x)
