"""The search config (LLM-Reasoners' term): how an algorithm asks about states.

:class:`SearchConfig` is the only place where search touches the world model (the forkable env:
:meth:`SearchConfig.expand` restores a node's snapshot, steps, snapshots the child) and the LLM
(``propose`` candidate actions, ``react``, ``compare`` two trajectories, ``value`` a state, ``reflect``
on a failure, ``imagine`` the rest of a plan), all through the env's prompt spec (``agents/prompts``).
Algorithms (``agents/search/<algorithm>.py``) call these hooks and never touch prompts or env internals."""
from __future__ import annotations

from typing import Any, Sequence

from ..llm.base import LLM
from ..llm.info import info_of
from ..prompts import Step
from ..requests import (
    CompareRequest, ImagineRequest, ProposeRequest, ReactRequest, ReflectRequest, StateRef, ValueRequest,
)
from .snapshot_store import SnapshotStore, timed_step
from .telemetry import SearchTelemetry

from .tree import LLM_EXCERPT_CHARS, LLM_CALLS_PER_NODE, SearchNode, SearchTree, _success
from ...envs.core import clone


class SearchConfig:
    """What an algorithm may do (LLM-Reasoners' search config): env access through
    snapshots, LLM access through the env's prompt spec (``agents/prompts``).

    Every LLM request is a typed request (``agents/requests.py``): its prompt and
    the snapshots it concerns, which simulated models read for the truth and real
    ones ignore.

    Options:

    * ``propose_mode``: ``"list"`` - one LLM call asking for k proposals (ToT's
      propose prompt); ``"sample"`` - k ReAct calls at ``temperature`` (> 0).
    * ``filter_valid``: when the observation lists ``valid_actions``, keep only
      proposals among them (matched case-insensitively, rewritten to the listed
      form) or filling one of the env's ``action_templates()`` (a search query).
    * ``value_samples``: LLM calls averaged per ``value``.
    * ``peek_success``: whether the env's verdict may reach the model; without it ``value`` and
      ``compare`` prompts show states without it (the prompt spec's ``without_verdict``: WebShop's
      done page loses its score line).

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
        peek_success: bool = False,
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
        self.peek_success = bool(peek_success)
        self.tree = tree
        self.reflections: list[str] = []
        self.expansions = 0
        self.snapshots = SnapshotStore(env)
        self.telemetry: SearchTelemetry | None = None  # told of every expansion (telemetry.py)
        # set by the search policy for each search: the env id, the policy's seed and the seeded rng
        self.env_id: str | None = None
        self.seed = 0
        self.rng: Any = None
        #: Ray workers that expand nodes for the algorithm (``distributed.RayExpansion``), or None
        self.parallel: Any = None
        self._grammar_of: tuple[Any, bool] = (None, False)  # (the LLM, its info's grammar): see _grammar

    @property
    def restores(self) -> int:
        return self.snapshots.restores

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
        for existing in node.children:
            if existing.action == action:
                return existing
        if node.terminal:
            raise ValueError(f"node {node.id} is terminal; it has no children to expand")
        store = self.snapshots
        if store.at is not node:
            store.restore(node)
        if store.eager:  # every node holds a snapshot: the step's duration decides nothing
            (obs, reward, terminated, truncated, info), seconds = self.env.step(action), 0.0
        else:
            (obs, reward, terminated, truncated, info), seconds = timed_step(self.env, action)
        self.expansions += 1
        child = SearchNode(
            snapshot=None, observation=obs, info=dict(info), action=action, thought=thought,
            reward=float(reward), terminal=bool(terminated or truncated),
            success=_success(info), depth=node.depth + 1, parent=node,
        )
        store.add_child(child, seconds)
        node.children.append(child)
        if self.tree is not None:
            self.tree.add(child)
        if self.telemetry is not None:
            self.telemetry.expanded(self)
        return child

    # ------------------------------------------------------------ what a request is about
    def _ref(self, x: "SearchNode | Sequence[Step]") -> StateRef:
        """A state reference for ``x``: the nearest snapshot at or above a node plus the actions from
        there (the snapshot store may keep no snapshot on the node itself), or the root plus a
        trajectory's actions. A chain with no snapshot at all is a prompt-only chain ending at the
        live state."""
        if isinstance(x, SearchNode):
            return self._states(x)[0]
        root = self.snapshots.root
        return (root.snapshot if root is not None else None, tuple(s.action for s in x))

    @staticmethod
    def _states(node: SearchNode) -> tuple[StateRef]:
        """``(self._ref(node),)``. A node holding a snapshot (every node, with native snapshots) keeps it,
        made again only when its snapshot is another; one without walks up to the nearest holder."""
        snap = node.snapshot
        if snap is not None:
            kept = node.__dict__.get("_states")
            if kept is None or kept[0][0] is not snap:
                kept = node.__dict__["_states"] = ((snap, ()),)
            return kept
        actions: list[str] = []
        holder: SearchNode | None = node
        while holder is not None and holder.snapshot is None:
            actions.append(holder.action)
            holder = holder.parent
        return (((None, ()) if holder is None else (holder.snapshot, tuple(reversed(actions)))),)

    @staticmethod
    def _note(node: "SearchNode | Sequence[Step] | Any", kind: str, messages: Sequence[dict], answers: Sequence[str]) -> None:
        """Keep an LLM exchange on ``node`` for the saved tree (the prompt's last message and the answers)."""
        if not isinstance(node, SearchNode) or len(node.llm_calls) >= LLM_CALLS_PER_NODE:
            return
        last = str(messages[-1].get("content", "")) if messages and isinstance(messages[-1], dict) else ""
        if len(last) > LLM_EXCERPT_CHARS:  # the head names the task, the tail holds this node's state
            last = last[:300] + " … " + last[-(LLM_EXCERPT_CHARS - 300):]
        node.llm_calls.append({"kind": kind, "prompt": last, "answers": [str(a)[:LLM_EXCERPT_CHARS] for a in answers]})

    def _grammar(self) -> bool:
        """``info_of(self.llm).grammar``, looked up again only when ``self.llm`` is another object."""
        llm, grammar = self._grammar_of
        if llm is not self.llm:
            llm = self.llm
            self._grammar_of = (llm, grammar := info_of(llm).grammar)
        return grammar

    def _held_to(self, obs: Any) -> tuple[str, ...] | None:
        """The valid actions an answer is held to (an LLM with grammar support and an observation listing
        them), else None: the model answers freely."""
        return (self._valid(obs) or None) if self._grammar() else None

    # ------------------------------------------------------------ LLM hooks
    def propose(self, node: SearchNode, k: int, avoid: Sequence[str] = (), attempt: int = 0) -> list[str]:
        """Up to ``k`` distinct candidate actions from ``node`` (``avoid`` is shown to the model and filtered).

        ``attempt`` > 0 asks again for the same node (sampled at ``temperature`` with
        seed ``attempt``), e.g. after an answer with nothing usable in it.
        """
        obs = node.observation
        if self._held_to(obs) is not None:
            # A model held to a grammar (the embedded one) cannot write a free list:
            # sample k single actions, each constrained to the env's valid actions.
            raw = self.sample_actions(node, k, avoid=avoid)
        elif self.propose_mode == "list":
            avoid = tuple(avoid)
            messages = self.prompts.propose_messages(obs, node.trajectory(), k, avoid, self.reflections)
            text = self.llm.complete(ProposeRequest.prepared(
                messages, self.env, self._states(node), k=k, avoid=avoid,
                temperature=self.temperature if (k > 1 or attempt) else 0.0, seed=attempt or None))[0]
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
        obs, avoid = node.observation, tuple(avoid)
        messages = self.prompts.react_messages(obs, node.trajectory(), self.reflections, avoid)
        choices = self._held_to(obs)
        if choices is not None:
            # held to the valid actions not tried yet: a small model asked for "a different one"
            # would otherwise pick the avoided favourite again, and the proposal would be wasted
            avoided = set(avoid)
            choices = tuple(v for v in choices if v not in avoided)
            if not choices:
                return []
        texts = self.llm.complete(ReactRequest.prepared(
            messages, self.env, self._states(node), avoid=avoid, n=max(1, int(k)),
            temperature=self.temperature, choices=choices))
        self._note(node, "react", messages, texts)
        parse = self.prompts.parse_action
        actions = [parse(t, obs) for t in texts[:k]]
        return [a for a in actions if a]

    def _valid(self, obs: Any) -> tuple[str, ...]:
        return tuple(str(v) for v in (obs.get("valid_actions") or ())) if isinstance(obs, dict) else ()

    def react(self, node: SearchNode, temperature: float = 0.0, reflections: Sequence[str] = ()) -> str:
        """One ReAct action from ``node`` (greedy by default)."""
        obs = node.observation
        messages = self.prompts.react_messages(obs, node.trajectory(),
                                               list(reflections) if reflections else self.reflections)
        text = self.llm.complete(ReactRequest.prepared(messages, self.env, self._states(node),
                                                       temperature=temperature, choices=self._held_to(obs)))[0]
        self._note(node, "react", messages, [text])
        return self.prompts.parse_action(text, obs)

    def _clean(self, actions: Sequence[str], obs: dict, avoid: Sequence[str]) -> list[str]:
        valid = obs.get("valid_actions") if isinstance(obs, dict) else None
        # listed actions by stripped lower-cased text (the prompt spec's table of this list)
        lookup = self.prompts.action_index(obs).stripped if (self.filter_valid and valid) else None
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
        ta = a.trajectory() if isinstance(a, SearchNode) else tuple(a)
        tb = b.trajectory() if isinstance(b, SearchNode) else tuple(b)
        obs = self.tree.root.observation if self.tree is not None else {}
        if not self.peek_success:
            obs, ta = self.prompts.without_verdict(obs, ta)
            tb = self.prompts.without_verdict(obs, tb)[1]
        choices = _as_tuple(self.prompts.compare_choices)
        ref_a, ref_b = self._ref(a), self._ref(b)
        complete, prepared, env = self.llm.complete, CompareRequest.prepared, self.env
        m1 = self.prompts.compare_messages(obs, ta, tb)
        t1 = complete(prepared(m1, env, (ref_a, ref_b), choices=choices))[0]
        m2 = self.prompts.compare_messages(obs, tb, ta)
        t2 = complete(prepared(m2, env, (ref_b, ref_a), choices=choices))[0]
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
        obs, history = node.observation, node.trajectory()
        if not self.peek_success:
            obs, history = self.prompts.without_verdict(obs, history)
        prompts = self.prompts
        messages = prompts.value_messages(obs, history)
        choices = _as_tuple(prompts.value_choices)
        states, samples, parse = self._states(node), self.value_samples, prompts.parse_value
        if samples == 1:  # one greedy call
            texts = self.llm.complete(ValueRequest.prepared(messages, self.env, states, choices=choices))
            self._note(node, "value", messages, texts)
            return float(parse(texts[0]))  # a float, as the mean of several samples is
        texts = list(self.llm.complete(ValueRequest.prepared(
            messages, self.env, states, choices=choices, temperature=self.temperature)))
        texts += self.answers([ValueRequest.prepared(messages, self.env, states, temperature=self.temperature,
                                                     seed=i, choices=choices) for i in range(1, samples)])
        self._note(node, "value", messages, texts)
        return sum(parse(text) for text in texts) / samples

    def answers(self, requests: Sequence[Any]) -> list[str]:
        """The first answer to each of ``requests``, in order; sent one after another (a Ray worker's config
        sends them at once: ``distributed.py``)."""
        return [request.send(self.llm)[0] for request in requests]

    def reflect(self, trajectory: SearchNode | Sequence[Step], outcome: str) -> str:
        """A short self-reflection on a failed trajectory (one LLM call)."""
        steps = trajectory.trajectory() if isinstance(trajectory, SearchNode) else tuple(trajectory)
        obs = self.tree.root.observation if self.tree is not None else {}
        start = trajectory.path()[0] if isinstance(trajectory, SearchNode) else ()
        messages = self.prompts.reflect_messages(obs, steps, outcome)
        return self.llm.complete(ReflectRequest.prepared(messages, self.env, (self._ref(start),)))[0].strip()

    def imagine(self, node: SearchNode) -> list[str]:
        """The model's imagined rest of the plan from ``node`` (A*'s h2); [] when it sees none. One LLM call."""
        obs = node.observation
        messages = self.prompts.imagine_messages(obs, node.trajectory())
        text = self.llm.complete(ImagineRequest.prepared(messages, self.env, self._states(node)))[0]
        self._note(node, "imagine", messages, [text])
        return self.prompts.parse_imagined(text, obs)

    # ------------------------------------------------------------ env knowledge algorithms may use
    def action_key(self, action: str) -> str:
        """What makes two actions "the same" (dedup, A*'s plan memory): the env's canonical form."""
        return self.prompts.canonical(action) or str(action).strip().lower()

    def demonstrations(self, n: int, seed: int = 0) -> list[list[str]]:
        """Up to ``n`` solved plans (the env expert's, on a private clone) of tasks of the env's
        ``train`` split, shuffled by ``seed``: what seeds A*'s long-term memory. [] when the env
        lists no train tasks or has no expert."""
        import random

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


def _as_tuple(choices: Sequence[str] | None) -> tuple[str, ...] | None:
    return choices if choices is None or type(choices) is tuple else tuple(choices)
