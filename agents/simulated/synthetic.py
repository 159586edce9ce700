"""A simulated LLM for controlled, offline studies of search algorithms.

``SyntheticLLM(env_id, p_correct=0.8, judge_acc=0.9, position_bias=0.1,
value_noise=0.2, seed=0)`` answers agents' prompts the way a model of known
quality would. For each request it takes the truth from the env's expert
(``agents/simulated/oracle.py``: the kind and env states of the typed request
in ``request.about``, ``agents/requests.py``, never the prompt text; e.g.
the Game of 24 solver) and corrupts it, writing the answer in the env's prompt
format (its prompt spec's ``render_*``):

* **react / propose** - each action (one per ReAct reply, k lines per propose
  reply) is a correct next step with probability ``p_correct``; otherwise it is
  a legal-but-wrong step (3 in 4) or a malformed one (1 in 4);
* **compare** - with probability ``position_bias`` the answer is "A" whatever
  the trajectories; otherwise it is right with probability ``judge_acc``
  (equal trajectories: A or B at random);
* **value** - the true value (1 = still solvable, 0 = lost) plus Gaussian noise
  of standard deviation ``value_noise``, written as sure (>= 0.75) / likely
  (>= 0.25) / impossible;
* **imagine** - the rest of a solving plan (or "impossible" when there is
  none) with probability ``p_correct``, else the opposite claim;
* **reflect** - the oracle's lesson with probability ``p_correct``, else a vague one;
* another request type registered with ``oracle.register_kind`` - its ``corrupt``
  rule when it gives one, else a perfect model's answer.

Deterministic: each completion draws from a RNG seeded by a hash of
(``seed``, the messages, the call's ``seed`` argument, the completion index),
so the same request gets the same answer in a run, whatever the thread
scheduling. Ask for different samples of one prompt with ``n`` or ``seed``.
The name (``synthetic(p_correct=...,...)``) says it is a simulation in every
run record. One ``complete`` counts as one call; tokens are estimated.

Spec: ``synthetic:p_correct=0.8,judge_acc=0.9,position_bias=0.1,value_noise=0.2,seed=0``
(any subset; the env id comes from the run).

Study knobs (off by default; a knob that is on appears in the name):

* ``follow_opinions=P`` (the Auto-GPT additional-opinions study): when a
  react request carries the ``autogpt`` agent's suggestions (its ``opinions``
  field, never parsed from the prompt text), each reply
  takes the first suggestion with probability P instead of the model's own
  answer (drawn from an RNG of its own, so P = 0 changes nothing).
* the compare rule is :func:`treegym.envs.core.stats.simulated_verdict`, which
  judges outside the LLM protocol share (the report's preference ranking).
"""
from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from treegym.envs.core.stats import simulated_verdict

from ..llm.accounting import CostTracker
from ..llm.base import Usage, approx_tokens
from ..llm.info import SIMULATED_INFO
from ..llm.request import Request
from ..requests import REQUEST_KINDS, ReactRequest
from ..prompts import get_prompts

DEFAULTS: dict[str, float] = {"p_correct": 0.8, "judge_acc": 0.9, "position_bias": 0.1, "value_noise": 0.2, "seed": 0}
#: Study knobs (module docstring): accepted in a spec, passed on only when given.
STUDY_KNOBS: dict[str, float] = {"follow_opinions": 0.0}
_PROBABILITIES = ("p_correct", "judge_acc", "position_bias")


UNREADABLE_PROMPT_REPLY = "(simulated model: the caller did not say what this prompt is about.)"


class SyntheticLLM:
    """A simulated model of controlled accuracy over an env's oracle (see module docstring)."""

    info = SIMULATED_INFO

    def __init__(
        self,
        env_id: str,
        *,
        p_correct: float = 0.8,
        judge_acc: float = 0.9,
        position_bias: float = 0.1,
        value_noise: float = 0.2,
        seed: int = 0,
        prompts: Any = None,
        follow_opinions: float = 0.0,
    ) -> None:
        knobs = {"p_correct": p_correct, "judge_acc": judge_acc, "position_bias": position_bias}
        for key, v in knobs.items():
            if not 0.0 <= float(v) <= 1.0:
                raise ValueError(f"synthetic LLM: {key} must be a probability in [0, 1], got {v}")
        if float(value_noise) < 0:
            raise ValueError(f"synthetic LLM: value_noise is a standard deviation and must be >= 0, got {value_noise}")
        if prompts is None:
            prompts = get_prompts(env_id)
        self.env_id = env_id
        self.prompts = prompts
        self.p_correct = float(p_correct)
        self.judge_acc = float(judge_acc)
        self.position_bias = float(position_bias)
        self.value_noise = float(value_noise)
        self.seed = int(seed)
        self.name = (f"synthetic(p_correct={self.p_correct:g},judge_acc={self.judge_acc:g},"
                     f"position_bias={self.position_bias:g},value_noise={self.value_noise:g},seed={self.seed})")
        self.follow_opinions = _probability("follow_opinions", follow_opinions)
        if self.follow_opinions:
            self.name = self.name[:-1] + f",follow_opinions={self.follow_opinions:g})"
        self._cost = CostTracker()
        self.usage: Usage = self._cost.usage

    def __repr__(self) -> str:
        return f"SyntheticLLM({self.name}, env_id={self.env_id!r})"

    def last_cost(self) -> Usage:
        return self._cost.last()

    def complete(self, request: Request) -> list[str]:
        from . import oracle  # lazy: the prompts package imports this one

        self._cost.begin()
        msgs, n, seed, about = request.plain_messages(), request.n, request.seed, request.about
        key = json.dumps(msgs, sort_keys=True, ensure_ascii=False)
        if not oracle.knows(about):
            # A request nobody said anything about: answer as a confused model
            # would, so the caller's parser sees garbage, not a crash.
            replies = [UNREADABLE_PROMPT_REPLY] * n
        else:
            truth = oracle.truth(about, self.prompts.malformed_examples)
            corrupt = oracle.kind_of(about).corrupt
            if corrupt is not None:
                replies = [corrupt(truth, self._rng(key, seed, i), self) for i in range(n)]
            elif about.kind not in REQUEST_KINDS:  # a kind registered elsewhere, without a corrupt rule
                replies = [oracle.render(about, truth, self.prompts)] * n
            else:
                replies = [self._reply(truth, self._rng(key, seed, i)) for i in range(n)]
            if self.follow_opinions and truth.kind == "react":
                replies = self._follow_opinions(replies, about.opinions if isinstance(about, ReactRequest) else (), key, seed)
        self._cost.charge(
            calls=1,
            prompt_tokens=sum(approx_tokens(str(m.get("content") or "")) for m in msgs),
            completion_tokens=sum(approx_tokens(r) for r in replies),
        )
        return replies

    # ------------------------------------------------------------ study knobs
    def _follow_opinions(self, replies: list[str], opinions: tuple[str, ...], key: str,
                         seed: int | None) -> list[str]:
        """Replace each reply by the request's first additional opinion (``ReactRequest.opinions``) with
        probability ``follow_opinions``."""
        if not opinions:
            return replies
        out = []
        for i, reply in enumerate(replies):
            rng = self._rng("opinions\x00" + key, seed, i)
            out.append(self.prompts.render_react(opinions[0]) if rng.random() < self.follow_opinions else reply)
        return out

    # ------------------------------------------------------------ corruption
    def _rng(self, key: str, call_seed: int | None, index: int) -> random.Random:
        digest = hashlib.sha256(f"{self.seed}\x00{call_seed}\x00{index}\x00{key}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "little"))

    def _action(self, truth: Any, rng: random.Random, correct_pool: list[str]) -> str:
        if correct_pool and rng.random() < self.p_correct:
            return correct_pool.pop(rng.randrange(len(correct_pool)))
        if truth.wrong and (not truth.malformed or rng.random() < 0.75):
            return rng.choice(truth.wrong)
        if truth.malformed:
            return rng.choice(truth.malformed)
        return rng.choice(truth.correct) if truth.correct else ""

    def _reply(self, truth: Any, rng: random.Random) -> str:
        render = self.prompts
        if truth.kind == "react":
            return render.render_react(self._action(truth, rng, list(truth.correct)))
        if truth.kind == "propose":
            pool = list(truth.correct)
            lines = [self._action(truth, rng, pool) for _ in range(max(1, truth.k))]
            return render.render_proposals([ln for ln in lines if ln])
        if truth.kind == "compare":
            pref = truth.preference if truth.preference is not None else 0.5
            return render.render_comparison(
                simulated_verdict(pref, rng, judge_acc=self.judge_acc, position_bias=self.position_bias))
        if truth.kind == "value":
            v = (truth.value or 0.0) + rng.gauss(0.0, self.value_noise) if self.value_noise else (truth.value or 0.0)
            return render.render_value(min(1.0, max(0.0, v)))
        if truth.kind == "imagine":
            # right about whether (and how) the task can be finished with probability p_correct
            if rng.random() < self.p_correct:
                return render.render_plan(list(truth.correct))
            return render.render_plan([] if truth.correct else list(truth.wrong))
        if truth.kind == "reflect":
            return truth.text if rng.random() < self.p_correct else "I should be more careful next time."
        return truth.text


def parse_spec(arg: str) -> dict[str, float]:
    """``"p_correct=0.8,seed=1"`` -> the knobs, with defaults filled in; ValueError names bad keys."""
    knobs = dict(DEFAULTS)
    for part in filter(None, (p.strip() for p in (arg or "").split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or (key not in DEFAULTS and key not in STUDY_KNOBS):
            raise ValueError(f"synthetic LLM spec: bad part {part!r}; use key=value with keys "
                             f"{', '.join([*DEFAULTS, *STUDY_KNOBS])} (e.g. synthetic:p_correct=0.8,seed=0)")
        try:
            knobs[key] = int(value) if key == "seed" else float(value)
        except ValueError:
            raise ValueError(f"synthetic LLM spec: {key}={value!r} is not a number") from None
    return knobs


def make_synthetic_llm(arg: str = "", env_id: str | None = None, **kwargs: Any) -> SyntheticLLM:
    """``synthetic:key=value,...`` (``parse_spec``) for ``env_id``."""
    if not env_id:
        raise ValueError("the synthetic LLM simulates a model over an env's oracle and needs the env id: "
                         "make_llm('synthetic:p_correct=0.8', env_id='treegym/Game24-v0') or treegym run --env ID")
    knobs = parse_spec(arg)
    knobs.update(kwargs)
    return SyntheticLLM(env_id, **knobs)



def _probability(name: str, value: Any) -> float:
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"synthetic LLM: {name} must be a probability in [0, 1], got {value}")
    return float(value)
