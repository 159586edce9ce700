"""The truth about an LLM request, from the env's own expert (for simulated models).

:func:`truth` answers a typed request (``agents/requests.py``: its kind and the
env states it concerns) by asking the env, never by reading the prompt: it
restores each state on the agent's env itself when its snapshots are native (cheap values:
the env is put back where it was after each look, so the caller sees it unmoved), else on a
private clone of it made once per env (replayed or external snapshots), and uses only the
env-agent contract:
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

The truth of each request *type* is a function registered with :func:`register_kind`
(which may also say how a perfect model words the answer, and how the synthetic
model corrupts it); a new request kind registers its own, and :func:`examine`
gives it the states it concerns.

Memo: the truth about a state is a function of the state, so what the oracle
learns about one (success, the expert's advice, which next actions make
progress) is kept in a least-recently-used memo bounded in (approximate) bytes:
:func:`set_memo_limit`, or ``TREEGYM_ORACLE_MEMO_MB`` for every process (default
``DEFAULT_MEMO_BYTES`` = 32 MB).
"""
from __future__ import annotations

import os
import threading
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from treegym.envs.core import clone, release, restore, snapshot, snapshot_kind
from ..requests import (
    AgentRequest, CompareRequest, ImagineRequest, ProposeRequest, ReactRequest, ReflectRequest, StateRef,
    ValueRequest,
)
from .memo import ByteLRU


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
DEFAULT_MEMO_BYTES = 32 << 20


def _memo_bytes_from_env() -> int:
    raw = os.environ.get("TREEGYM_ORACLE_MEMO_MB", "").strip()
    if not raw:
        return DEFAULT_MEMO_BYTES
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if mb <= 0:
        raise ValueError(f"TREEGYM_ORACLE_MEMO_MB={raw!r} must be a positive number of megabytes (default 32)")
    return int(mb * (1 << 20))


_MEMO = ByteLRU(_memo_bytes_from_env())


def set_memo_limit(max_bytes: int) -> None:
    """Bound the oracle's memo to about ``max_bytes`` (evicting least recently used states now)."""
    _MEMO.resize(max_bytes)


def memo_stats() -> dict[str, int]:
    """The memo's ``entries``, approximate ``bytes``, ``max_bytes`` and ``evictions`` so far."""
    return _MEMO.stats()


def _scratch(env: Any) -> Any:
    """A private clone of ``env`` (made once per env) that the oracle may move freely."""
    with _LOCK:
        scratch = _SCRATCH.get(env)
        if scratch is None:
            scratch = _SCRATCH[env] = clone(env)
        return scratch


@contextmanager
def _moving(env: Any, borrowed: bool) -> Iterator[Any]:
    """``env`` to move: the scratch clone as it is, or (``borrowed``) the live env, put back in its
    state afterwards."""
    if not borrowed:
        yield env
        return
    home = snapshot(env)
    try:
        yield env
    finally:
        restore(env, home)


def _memo_key(env: Any, snap: Any) -> Any:
    """The memo key of a state, or None when it is not hashable (then nothing is memoised)."""
    recorded = getattr(env.unwrapped, "construction_kwargs", None)  # how the env was made (ForkableEnv)
    kwargs = recorded() if callable(recorded) else None
    key = (snap.env_class, repr(sorted(kwargs.items())) if isinstance(kwargs, dict) else None,
           snap.payload, snap.steps, snap.max_steps, snap.task)
    try:
        hash(key)
    except TypeError:
        return None
    return key


class _State:
    """One state of a request, examined on the live env (native snapshots) or the scratch env: success,
    the expert's advice, and (lazily) which listed next actions make progress."""

    def __init__(self, live: Any, ref: StateRef):
        snap, actions = ref
        # native snapshots are cheap values: look on the live env itself (put back after each look)
        self.borrowed = snapshot_kind(live) == "native"
        self.env = live if self.borrowed else _scratch(live)
        self.terminal = False
        if snap is None and self.borrowed:
            snap = snapshot(live)  # the live state
        elif snap is None:
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
            with _moving(self.env, self.borrowed) as env:
                restore(env, self.snap)
                for action in actions:
                    _obs, _r, term, trunc, _info = env.step(action)
                    self.terminal = bool(term or trunc)
                self.snap = snapshot(env)
        self.key = _memo_key(self.env, self.snap)
        self.memo = _MEMO.entry(self.key) if self.key is not None else {}
        if "advice" not in self.memo:
            with _moving(self.env, self.borrowed) as env:
                obs, info = restore(env, self.snap)
                self.memo.update(valid=[str(a) for a in obs.get("valid_actions") or ()],
                                 success=bool(info["success"]), advice=env.unwrapped.expert())
            self._resized()
        self.advice = self.memo["advice"]
        if self.advice is None:
            raise OracleUnavailable(f"{type(self.env.unwrapped).__name__} has no expert(); simulated LLMs read "
                                    "the truth from it (see envs/core/contract.py). Use a real LLM on this env.")

    def _resized(self) -> None:
        if self.key is not None:
            _MEMO.resized(self.key)

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
        with _moving(self.env, self.borrowed) as env:
            restore(env, self.snap)
            _obs, _r, _term, _trunc, info = env.step(action)
            if info["success"]:
                return True
            after = env.unwrapped.expert()
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
            self._resized()
        correct, wrong = self.memo["next"]
        return list(correct), list(wrong)


def examine(req: AgentRequest, index: int = 0) -> "_State":
    """State ``index`` of ``req`` examined on its env (put back) or a private clone: ``success``, ``value``,
    ``score()``, ``advice`` (the expert's), ``next_actions()`` -> (correct, wrong), ``terminal``."""
    return _State(req.env, req.states[index])


TruthFn = Callable[[Any, Sequence[str]], OracleAnswer]  # (typed request, malformed examples) -> the truth
RenderFn = Callable[[OracleAnswer, Any], str]  # (the truth, the env's PromptSpec) -> a perfect model's answer


@dataclass(frozen=True)
class SimulatedKind:
    """How simulated models answer one request type: its ``truth``; how a perfect model words it
    (``render``; default: the prompt spec's ``render_oracle``); and how the synthetic model answers
    (``corrupt(truth, rng, model) -> str``; default: the synthetic model's rule for the kind, else ``render``)."""

    truth: TruthFn
    render: RenderFn | None = None
    corrupt: Callable[[OracleAnswer, Any, Any], str] | None = None


_KINDS: dict[type, SimulatedKind] = {}


def register_kind(request_type: type, truth: TruthFn, render: RenderFn | None = None,
                  corrupt: Callable[[OracleAnswer, Any, Any], str] | None = None) -> None:
    """Teach the simulated models a request type (a subclass of ``AgentRequest``)."""
    _KINDS[request_type] = SimulatedKind(truth, render, corrupt)


def kind_of(req: Any) -> SimulatedKind | None:
    """The registered handling of ``req``'s type (or of its nearest registered base type)."""
    for cls in type(req).__mro__:
        if cls in _KINDS:
            return _KINDS[cls]
    return None


def knows(req: Any) -> bool:
    """Whether a simulated model can find the truth about ``req``: a registered typed request with an env."""
    return req is not None and getattr(req, "env", None) is not None and kind_of(req) is not None


def truth(req: Any, malformed: Sequence[str] = ("I need to think more.",)) -> OracleAnswer:
    """The truth about the typed request ``req`` (module docstring), from its env's expert."""
    kind = kind_of(req)
    if kind is None:
        raise OracleUnavailable(f"simulated LLMs do not know the request type {type(req).__name__}; "
                                "teach them with treegym.agents.simulated.oracle.register_kind")
    return kind.truth(req, malformed)


def render(req: Any, answer: OracleAnswer, prompts: Any) -> str:
    """A perfect model's answer to ``req`` (whose truth is ``answer``), in the env's prompt format."""
    kind = kind_of(req)
    if kind is not None and kind.render is not None:
        return kind.render(answer, prompts)
    return prompts.render_oracle(answer)


def _compare(req: Any, malformed: Sequence[str]) -> OracleAnswer:
    a, b = (_State(req.env, ref).score() for ref in req.states[:2])
    return OracleAnswer("compare", preference=1.0 if a > b else 0.0 if a < b else 0.5)


def _value(req: Any, malformed: Sequence[str]) -> OracleAnswer:
    return OracleAnswer("value", value=examine(req).value)


def _reflect(req: Any, malformed: Sequence[str]) -> OracleAnswer:
    plan = examine(req).advice.plan  # the request is about the start state
    text = ("The attempt did not accomplish the task. A plan that works from the start: "
            + "; ".join(plan) + ".") if plan else "The attempt failed, and the task cannot be accomplished from the start."
    return OracleAnswer("reflect", text=text)


def _imagine(req: Any, malformed: Sequence[str]) -> OracleAnswer:
    state = examine(req)
    _correct, wrong = state.next_actions()
    plan = () if state.terminal else state.advice.plan
    return OracleAnswer("imagine", correct=plan, wrong=tuple(wrong[:2]), value=1.0 if plan else 0.0)


def _next_action(req: Any, malformed: Sequence[str]) -> OracleAnswer:
    state = examine(req)
    correct, wrong = state.next_actions()
    avoid = getattr(req, "avoid", ())
    if req.kind == "propose" and avoid:
        key = state.env.unwrapped.canonical_action
        tried = {key(a) or a for a in avoid}
        correct = [a for a in correct if (key(a) or a) not in tried] or correct
        wrong = [a for a in wrong if (key(a) or a) not in tried] or wrong
    return OracleAnswer(req.kind, correct=tuple(correct), wrong=tuple(wrong), malformed=tuple(malformed),
                        k=getattr(req, "k", 1))


register_kind(ReactRequest, _next_action)
register_kind(ProposeRequest, _next_action)
register_kind(CompareRequest, _compare)
register_kind(ValueRequest, _value)
register_kind(ReflectRequest, _reflect)
register_kind(ImagineRequest, _imagine)
