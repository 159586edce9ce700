"""The truth about an LLM request, from the env's own expert (for simulated models).

:func:`truth` answers an :class:`~treegym.agents.llm.about.About` (what a request
is about: its kind and the env states it concerns) by asking the env, never by
reading the prompt: it restores each state on a private clone of the agent's env
(the live env is never moved), and uses only the env-agent contract:
``valid_actions``, ``info["success"]``, ``expert()`` (plan, value, solvable) and
``canonical_action``.

* **react / propose**: a listed action is *correct* when it wins or keeps the task
  solvable while shortening the expert's remaining plan (it makes progress), else
  *wrong*; the expert's own next action is always correct (a free-text action such
  as a search query is not listed). ``malformed`` are answers the env rejects
  (the prompt spec's examples).
* **value**: 1 for a won state, else the expert's value (1/0 from ``solvable``
  when it gives none).
* **compare**: the better of two states: won (2) beats any other; otherwise the value.
* **imagine**: the expert's plan from the state (a wrong claim: two wrong steps).
* **reflect**: a lesson naming the expert's plan from the start.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Sequence

from treegym.envs.core import clone, release, restore, snapshot
from ..llm.about import About, StateRef


class OracleUnavailable(ValueError):
    """The env cannot tell the truth about a request (it has no ``expert()``)."""


@dataclass(frozen=True)
class OracleAnswer:
    """The truth about one request (see the module docstring for each kind).

    ``correct``/``wrong``/``malformed``: next actions (react, propose) or a plan
    and a wrong plan (imagine); ``k`` proposals asked for; ``preference`` 1.0 when
    A is truly better, 0.0 when B is, 0.5 for equal; ``value`` in [0, 1]; ``text``
    a useful reflection.
    """

    kind: str
    correct: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()
    k: int = 1
    preference: float | None = None
    value: float | None = None
    text: str = ""
    extra: dict = field(default_factory=dict, compare=False)


_SCRATCH: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
# The truth about a state is a function of the state: memoised by (env class, construction
# kwargs, snapshot payload, steps, limit, task) when those are hashable (searches and
# repeated runs ask about the same states again and again).
_MEMO: "OrderedDict[Any, dict]" = OrderedDict()
_MEMO_SIZE = 1 << 16


def _scratch(env: Any) -> Any:
    """A private clone of ``env`` (made once per env) that the oracle may move freely."""
    with _LOCK:
        scratch = _SCRATCH.get(env)
        if scratch is None:
            scratch = _SCRATCH[env] = clone(env)
        return scratch


def _memo_for(env: Any, snap: Any) -> dict:
    kwargs = getattr(env.unwrapped, "_init_kwargs", None)
    key = (snap.env_class, repr(sorted(kwargs.items())) if isinstance(kwargs, dict) else None,
           snap.payload, snap.steps, snap.max_steps, snap.task)
    try:
        hash(key)
    except TypeError:
        return {}
    with _LOCK:
        entry = _MEMO.get(key)
        if entry is None:
            entry = _MEMO[key] = {}
            if len(_MEMO) > _MEMO_SIZE:
                _MEMO.popitem(last=False)
        return entry


class _State:
    """One state of a request, examined on the scratch env: success, the expert's advice,
    and (lazily) which listed next actions make progress."""

    def __init__(self, live: Any, ref: StateRef):
        snap, actions = ref
        self.env = _scratch(live)
        self.terminal = False
        if snap is None:
            # The live state: copy it onto the scratch env and free the live env's snapshot at
            # once (an external one holds a device handle; the search's store owns the others).
            snap = snapshot(live)
            try:
                restore(self.env, snap)
            finally:
                release(live, snap)
            snap = snapshot(self.env)
        self.snap = snap
        if actions:
            restore(self.env, self.snap)
            for action in actions:
                _obs, _r, term, trunc, _info = self.env.step(action)
                self.terminal = bool(term or trunc)
            self.snap = snapshot(self.env)
        self.memo = _memo_for(self.env, self.snap)
        if "advice" not in self.memo:
            obs, info = restore(self.env, self.snap)
            self.memo.update(valid=[str(a) for a in obs.get("valid_actions") or ()], success=bool(info["success"]),
                             advice=self.env.unwrapped.expert())
        self.advice = self.memo["advice"]
        if self.advice is None:
            raise OracleUnavailable(f"{type(self.env.unwrapped).__name__} has no expert(); simulated LLMs read "
                                    "the truth from it (see envs/core/contract.py). Use a real LLM on this env.")

    @property
    def success(self) -> bool:
        return self.memo["success"]

    @property
    def value(self) -> float:
        if self.success:
            return 1.0
        if self.advice.value is not None:
            return float(self.advice.value)
        return 1.0 if self.advice.solvable else 0.0

    def score(self) -> float:
        return 2.0 if self.success else self.value

    def progress(self, action: str) -> bool:
        """Does ``action`` win, or keep the task solvable with a shorter expert plan?"""
        restore(self.env, self.snap)
        _obs, _r, _term, _trunc, info = self.env.step(action)
        if info["success"]:
            return True
        after = self.env.unwrapped.expert()
        return after is not None and after.solvable and len(after.plan) < len(self.advice.plan)

    def next_actions(self) -> tuple[list[str], list[str]]:
        """(correct, wrong) next actions (module docstring)."""
        if self.terminal:
            return [], []
        if "next" not in self.memo:
            correct, wrong = [], []
            for action in self.memo["valid"]:
                (correct if self.progress(action) else wrong).append(action)
            nxt = self.advice.next_action
            key = self.env.unwrapped.canonical_action
            if nxt is not None and (key(nxt) or nxt) not in {key(a) or a for a in correct}:
                correct.insert(0, nxt)
                wrong = [a for a in wrong if (key(a) or a) != (key(nxt) or nxt)]
            self.memo["next"] = (tuple(correct), tuple(wrong))
        correct, wrong = self.memo["next"]
        return list(correct), list(wrong)


def truth(about: About, malformed: Sequence[str] = ("I need to think more.",)) -> OracleAnswer:
    """The truth about ``about``'s request (module docstring), from its env's expert."""
    if about.kind == "compare":
        a, b = (_State(about.env, ref).score() for ref in about.states[:2])
        return OracleAnswer("compare", preference=1.0 if a > b else 0.0 if a < b else 0.5)
    state = _State(about.env, about.states[0])
    if about.kind == "value":
        return OracleAnswer("value", value=state.value)
    if about.kind == "reflect":
        plan = state.advice.plan  # the request is about the start state
        text = ("The attempt did not accomplish the task. A plan that works from the start: "
                + "; ".join(plan) + ".") if plan else "The attempt failed, and the task cannot be accomplished from the start."
        return OracleAnswer("reflect", text=text)
    correct, wrong = state.next_actions()
    if about.kind == "imagine":
        plan = () if state.terminal else state.advice.plan
        return OracleAnswer("imagine", correct=plan, wrong=tuple(wrong[:2]), value=1.0 if plan else 0.0)
    if about.kind == "propose" and about.avoid:
        key = state.env.unwrapped.canonical_action
        tried = {key(a) or a for a in about.avoid}
        correct = [a for a in correct if (key(a) or a) not in tried] or correct
        wrong = [a for a in wrong if (key(a) or a) not in tried] or wrong
    return OracleAnswer(about.kind, correct=tuple(correct), wrong=tuple(wrong), malformed=tuple(malformed), k=about.k)
