"""The requests agents send to an LLM, one type per kind: what is asked, and about which states.

Each request kind (``react``, ``propose``, ``compare``, ``value``, ``reflect``,
``imagine``) is a frozen dataclass holding

* its prompt: the chat ``messages`` (built by the env's prompt spec, ``agents/prompts``);
* the states it concerns: ``env`` (the agent's bound env) and ``states``, one
  :data:`StateRef` per state (a compare request: trajectory A, then B).
  ``(snapshot, actions)`` means "the state reached by playing ``actions`` from
  ``snapshot``"; a ``None`` snapshot means the env's live state at the time of
  the call;
* the sampling settings the caller wants (``n``, ``temperature``, ``choices``, ``seed``),
  and per kind what else the truth depends on (``k`` proposals, ``avoid``-ed actions).

A typed request is itself what the transport reads (a
:class:`~treegym.agents.llm.request.ChatRequest`, its ``about`` being itself), so
``request.send(llm)`` hands this one object to the backend: no second request is
built per call. ``request.to_llm()`` is a plain transport
:class:`~treegym.agents.llm.request.Request` copy, for whoever needs one.
``Kind.prepared(messages, env, states, **settings)`` builds the same value as the
constructor without its per-field checks, for a caller whose arguments are
already in stored form (the search config's hooks, once per LLM call).
Real backends read only the prompt; simulated ones (``agents/simulated``) read
the kind and the states and ask the env's expert for the truth (their truth per
request type lives in ``agents/simulated/oracle.py``).

A new request kind is one subclass of :class:`AgentRequest` with its ``kind``
and its prompt text (see ``tests/agents/test_new_request_kind.py``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

from .llm.base import LLM
from .llm.request import ChatRequest, Message, Request, chat_messages

StateRef = tuple[Any, tuple[str, ...]]  # (Snapshot | None, actions played from it)
LIVE: StateRef = (None, ())
_new = object.__new__
_FIELD_DEFAULTS: dict[type, dict[str, Any]] = {}  # per request type: its fields' defaults (``prepared``)


@dataclass(frozen=True)
class AgentRequest(ChatRequest):
    """A typed LLM request (module docstring). Subclasses set ``kind``."""

    kind: ClassVar[str] = ""
    max_tokens: ClassVar[None] = None  # the transport's settings agents leave to the backend
    stop: ClassVar[None] = None

    messages: Sequence[Message]
    env: Any = None
    states: tuple[StateRef, ...] = (LIVE,)
    n: int = 1
    temperature: float = 0.0
    choices: Sequence[str] | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if not self.kind:
            raise TypeError(f"{type(self).__name__} must set the class attribute `kind` (e.g. kind = 'critique')")
        self._normalise()
        states = self.states
        plain = type(states) is tuple and len(states) > 0  # already (snapshot, tuple of actions) pairs?
        if plain:
            for ref in states:
                if type(ref) is not tuple or len(ref) != 2 or type(ref[1]) is not tuple:
                    plain = False
                    break
        if not plain:
            object.__setattr__(self, "states", tuple((s, tuple(a)) for s, a in states) or (LIVE,))
        avoid = getattr(self, "avoid", None)
        if avoid is not None and type(avoid) is not tuple:
            object.__setattr__(self, "avoid", tuple(avoid))

    @classmethod
    def prepared(cls, messages: Sequence[Message], env: Any, states: tuple[StateRef, ...], **settings: Any) -> Any:
        """A request of this type from arguments already in the form the constructor would store:
        ``states`` a non-empty tuple of ``(snapshot, tuple of actions)`` pairs and every setting as
        stored (``n`` an int >= 1, sequences as tuples). Only ``messages`` is checked (and made a
        tuple), so the result equals ``cls(messages, env, states, **settings)``; the per-field checks,
        which cost more than the rest of a call's bookkeeping, are left to the callers that build
        these arguments once per hook (``SearchConfig``). Anyone else uses the constructor."""
        fields = _FIELD_DEFAULTS.get(cls)
        if fields is None:
            fields = _FIELD_DEFAULTS[cls] = _plain_defaults(cls)
        if not fields:  # no kind, or a field without a plain default: the constructor says what is wrong
            return cls(messages, env, states, **settings)
        request = _new(cls)
        values = request.__dict__
        values.update(fields)
        values.update(settings)
        values["messages"], values["env"], values["states"] = chat_messages(messages), env, states
        return request

    @property
    def about(self) -> "AgentRequest | None":
        """This request, for the simulated backends (None when there is no ``env``: a request about no env
        is about nothing)."""
        return self if self.env is not None else None

    def to_llm(self) -> Request:
        """A plain transport :class:`Request` copy of the prompt and sampling settings, this request as ``about``."""
        return self.replace()

    def send(self, llm: LLM) -> list[str]:
        """``llm.complete(self)``: the ``n`` answers."""
        return llm.complete(self)


def _plain_defaults(cls: type[AgentRequest]) -> dict[str, Any]:
    """``cls``'s field defaults, or {} when ``cls`` sets no ``kind`` or a field other than ``messages`` has
    no plain default (a default factory): ``prepared`` then leaves the work to the constructor."""
    defaults = {f.name: f.default for f in dataclasses.fields(cls) if f.name != "messages"}
    if not cls.kind or any(v is dataclasses.MISSING for v in defaults.values()):
        return {}
    return defaults


@dataclass(frozen=True)
class ReactRequest(AgentRequest):
    """The next action from ``states[0]`` (``avoid``: actions the prompt says were tried; ``opinions``:
    the next actions an expert suggested in the prompt, best first, as the ``autogpt`` agent sends them)."""

    kind: ClassVar[str] = "react"
    avoid: tuple[str, ...] = ()
    opinions: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProposeRequest(AgentRequest):
    """``k`` candidate next actions from ``states[0]``, in one answer (not among ``avoid``)."""

    kind: ClassVar[str] = "propose"
    k: int = 1
    avoid: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompareRequest(AgentRequest):
    """Which of two trajectories is better: ``states`` = (A's end, B's end)."""

    kind: ClassVar[str] = "compare"


@dataclass(frozen=True)
class ValueRequest(AgentRequest):
    """How promising ``states[0]`` is, in [0, 1]."""

    kind: ClassVar[str] = "value"


@dataclass(frozen=True)
class ReflectRequest(AgentRequest):
    """A lesson from a failed attempt; ``states[0]`` is where the attempt started."""

    kind: ClassVar[str] = "reflect"


@dataclass(frozen=True)
class ImagineRequest(AgentRequest):
    """The rest of a plan from ``states[0]`` (A*'s imagined future)."""

    kind: ClassVar[str] = "imagine"


REQUEST_TYPES: tuple[type[AgentRequest], ...] = (
    ReactRequest, ProposeRequest, CompareRequest, ValueRequest, ReflectRequest, ImagineRequest,
)
REQUEST_KINDS: tuple[str, ...] = tuple(t.kind for t in REQUEST_TYPES)
