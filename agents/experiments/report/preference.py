"""Preference rank (JUDEC Table 2): how good each method's final decision sequence is, by pairwise judging.

For every condition (env, LLM, budget) and every task that all its methods
ran, the final sequences (the record's ``actions``) of every pair of methods
are compared **in both orders** (JUDEC Eq. 6: A wins both -> 1, loses both ->
0, else 0.5, which cancels a judge's position bias). A method's score on a
task is the sum of its pairwise results (pairwise ranking prompting); its
rank on the task is 1 for the highest score (ties share the mean rank); the
table reports each method's average rank over the tasks (lower is better).

Judges (``judge.prefer(task, first, second) -> True`` when ``first`` is better):

* :class:`OutcomeComparator` - deterministic, no LLM: success first, then
  reward, then an episode that ended without an error, then (between
  successes) the shorter sequence; equal on all of these is a tie (it answers
  "first" for a tie, so both orders give 0.5).
* :class:`LLMJudge` - any treegym LLM asked in ToolEval's style (the task,
  two candidate decision sequences with what the env answered to each step,
  criteria for the better one, an answer ``{"preference": 0|1}``). The
  sequences are re-played in the env to show its observations. Answers are
  cached in a JSONL file keyed by the judge's name and the exact prompt, so a
  second report costs no calls.
* :class:`SimulatedJudge` - a judge of known accuracy and position bias over
  the outcome comparator (``synthetic:judge_acc=0.8,position_bias=0.3``); its
  results say "simulated".
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence

from treegym.envs.core.stats import simulated_verdict

from ...llm.info import info_of
from ...llm.request import Request
from .records import Cell, Runs, succeeded
import treegym.envs  # noqa: F401 - registers the ids
from ...llm_specs import make_llm


@dataclass(frozen=True)
class Candidate:
    """One method's final sequence on one task."""

    method: str
    record: dict

    @property
    def actions(self) -> list[str]:
        return [str(a) for a in (self.record.get("actions") or [])]


class Judge(Protocol):
    name: str
    simulated: bool

    def prefer(self, task: dict, first: Candidate, second: Candidate) -> bool: ...


def _outcome(c: Candidate) -> tuple:
    """Success, then reward, then an episode the env ended (no error: budget spent, gave up), then, among
    successes, the shorter sequence; failures equal on the rest are a tie."""
    success = succeeded(c.record)
    return (success, float(c.record.get("reward") or 0.0), not c.record.get("error"),
            -len(c.actions) if success else 0)


class OutcomeComparator:
    """Deterministic judge: success, then reward, then fewer steps (see module docstring)."""

    name = "outcome comparator (success, reward, no error, fewer steps; deterministic)"
    simulated = False

    def prefer(self, task: dict, first: Candidate, second: Candidate) -> bool:
        return _outcome(first) >= _outcome(second)


class SimulatedJudge:
    """The outcome comparator seen through a judge of accuracy ``judge_acc`` that answers
    "first" with probability ``position_bias`` whatever the sequences (deterministic per question)."""

    simulated = True

    def __init__(self, judge_acc: float = 0.9, position_bias: float = 0.1, seed: int = 0):
        for key, v in (("judge_acc", judge_acc), ("position_bias", position_bias)):
            if not 0.0 <= float(v) <= 1.0:
                raise ValueError(f"simulated judge: {key} must be a probability in [0, 1], got {v}")
        self.judge_acc, self.position_bias, self.seed = float(judge_acc), float(position_bias), int(seed)
        self.name = f"synthetic judge(judge_acc={self.judge_acc:g},position_bias={self.position_bias:g},seed={self.seed})"

    def prefer(self, task: dict, first: Candidate, second: Candidate) -> bool:
        a, b = _outcome(first), _outcome(second)
        truth = 1.0 if a > b else 0.0 if a < b else 0.5
        key = json.dumps([self.seed, task.get("task_id"), first.method, first.actions, second.method, second.actions],
                         default=str)
        rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little"))
        return simulated_verdict(truth, rng, judge_acc=self.judge_acc, position_bias=self.position_bias) >= 0.5


# ----------------------------------------------------------------- the LLM judge
TOOLEVAL_SYSTEM = """You are an evaluator of decision-making agents. You are given a task and two candidate answers, \
each a sequence of actions an agent took and what the environment answered. Decide which answer is better.
Criteria, in order of importance:
1. An answer that completes the task is better than one that does not.
2. If both complete it (or both fail), the one that gets closer to completing it with correct, \
well-formed actions is better.
3. If they are still equal, the shorter, more efficient sequence is better.
Judge only the sequences; the order in which they are shown says nothing about their quality.
Reply with a JSON object and nothing else: {"preference": 0} if answer 0 is better, {"preference": 1} \
if answer 1 is better."""

_PREF_RE = re.compile(r'"?preference"?\s*[:=]\s*"?([01])', re.I)


def tooleval_messages(task: dict, first: Sequence[tuple[str, str]], second: Sequence[tuple[str, str]]) -> list[dict]:
    """The judge prompt: ``first`` / ``second`` are (action, observation) steps."""
    def render(steps: Sequence[tuple[str, str]]) -> str:
        if not steps:
            return "(no actions)"
        return "\n".join(f"{i}. action: {a}\n   environment: {o[:400]}" for i, (a, o) in enumerate(steps, 1))

    user = (f"Task: {task.get('instruction') or task.get('task_id')}\n\n"
            f"Answer 0:\n{render(first)}\n\nAnswer 1:\n{render(second)}\n\n"
            'Which answer is better? Reply {"preference": 0} or {"preference": 1}.')
    return [{"role": "system", "content": TOOLEVAL_SYSTEM}, {"role": "user", "content": user}]


def parse_preference(text: str) -> int | None:
    """0 or 1 from a judge reply (JSON ``preference``, or a bare 0/1), None when it says neither."""
    m = _PREF_RE.search(str(text or ""))
    if m:
        return int(m.group(1))
    bare = str(text or "").strip()
    return int(bare) if bare in ("0", "1") else None


def replay(env_id: str, task_id: Any, seed: Any, actions: Sequence[str],
           env_kwargs: dict | None = None) -> tuple[str, list[tuple[str, str]]]:
    """(instruction, [(action, observation text)]) by re-playing ``actions`` on a fresh env."""
    import gymnasium as gym

    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        obs, _info = env.reset(seed=seed, options={"task_id": task_id} if task_id is not None else None)
        instruction = str(obs.get("instruction") or obs.get("text") or "") if isinstance(obs, dict) else str(obs)
        steps = []
        for action in actions:
            obs, _r, terminated, truncated, _info = env.step(action)
            steps.append((action, str(obs.get("text", "")) if isinstance(obs, dict) else str(obs)))
            if terminated or truncated:
                break
        return instruction, steps
    finally:
        env.close()


class JudgeCache:
    """Verdicts by key in an append-only JSONL file (a torn last line is ignored)."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._data: dict[str, int] = {}
        if self.path is not None and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").split("\n")[:-1]:
                try:
                    row = json.loads(line)
                    self._data[str(row["key"])] = int(row["preference"])
                except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                    continue
        self.hits = self.misses = 0

    def get(self, key: str) -> int | None:
        v = self._data.get(key)
        if v is None:
            self.misses += 1
        else:
            self.hits += 1
        return v

    def put(self, key: str, value: int) -> None:
        with self._lock:
            self._data[key] = value
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"key": key, "preference": value}) + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())


class LLMJudge:
    """A ToolEval-style judge over any treegym LLM (see module docstring).

    An answer without a readable preference counts as "first" (a judge that
    cannot decide shows its position bias; both orders then give 0.5).
    """

    def __init__(self, llm: Any, cache_path: str | Path | None = None):
        self.llm = llm
        self.name = f"LLM judge {getattr(llm, 'name', type(llm).__name__)}"
        self.simulated = info_of(llm).simulated
        self.cache = JudgeCache(cache_path)
        self.calls = 0
        self.unreadable = 0
        self._replays: dict[str, tuple[str, list[tuple[str, str]]]] = {}

    def _steps(self, c: Candidate) -> tuple[str, list[tuple[str, str]]]:
        r = c.record
        key = json.dumps([r.get("env_id"), r.get("task_id"), r.get("seed"), c.actions], default=str)
        if key not in self._replays:
            env_kwargs = (r.get("config") or {}).get("env_options") if isinstance(r.get("config"), dict) else None
            try:
                self._replays[key] = replay(r["env_id"], r.get("task_id"), r.get("seed"), c.actions, env_kwargs)
            except Exception as exc:  # noqa: BLE001 - an env that cannot replay still gets judged on its actions
                self._replays[key] = ("", [(a, f"(not replayed: {type(exc).__name__})") for a in c.actions])
        return self._replays[key]

    def prefer(self, task: dict, first: Candidate, second: Candidate) -> bool:
        instruction, s1 = self._steps(first)
        _, s2 = self._steps(second)
        messages = tooleval_messages({**task, "instruction": instruction}, s1, s2)
        key = hashlib.sha256(json.dumps([self.name, messages], ensure_ascii=False).encode()).hexdigest()
        verdict = self.cache.get(key)
        if verdict is None:
            text = self.llm.complete(Request(messages))[0]
            self.calls += 1
            verdict = parse_preference(text)
            if verdict is None:
                self.unreadable += 1
                verdict = 0
            self.cache.put(key, verdict)
        return verdict == 0


# ----------------------------------------------------------------- ranking
@dataclass
class PreferenceResult:
    """Average ranks per method for one condition."""

    env_id: str
    llm: str
    budget: int | None
    judge: str
    simulated: bool
    tasks: int
    mean_rank: dict[str, float]
    wins: dict[str, float] = field(default_factory=dict)  # mean pairwise score per comparison

    def to_json(self) -> dict:
        return {"env_id": self.env_id, "llm": self.llm, "budget": self.budget, "judge": self.judge,
                "simulated": self.simulated, "tasks": self.tasks, "mean_rank": self.mean_rank,
                "mean_pairwise_score": self.wins}


def match(judge: Judge, task: dict, a: Candidate, b: Candidate) -> float:
    """Eq. 6: 1.0 if ``a`` wins in both orders, 0.0 if ``b`` does, else 0.5."""
    first = judge.prefer(task, a, b)
    second = judge.prefer(task, b, a)
    if first and not second:
        return 1.0
    if second and not first:
        return 0.0
    return 0.5


def ranks(scores: dict[str, float]) -> dict[str, float]:
    """Rank 1 = highest score; tied methods share the mean of their ranks."""
    order = sorted(scores, key=lambda m: -scores[m])
    out: dict[str, float] = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for m in order[i:j + 1]:
            out[m] = (i + j) / 2 + 1
        i = j + 1
    return out


def preference_ranks(runs: Runs, judge: Judge) -> list[PreferenceResult]:
    """One result per condition (env, LLM, budget) with at least two methods and a task they all ran."""
    groups: dict[tuple, dict[Cell, list[dict]]] = {}
    for cell, recs in runs.cells().items():
        groups.setdefault((cell.env_id, cell.llm, cell.budget), {})[cell] = recs
    results = []
    for (env_id, llm, budget), cells in groups.items():
        if len(cells) < 2:
            continue
        by_task: dict[str, dict[str, dict]] = {}
        for cell, recs in cells.items():
            for r in recs:
                by_task.setdefault(json.dumps(r.get("task_id"), default=str), {})[cell.agent_label] = r
        methods = sorted(c.agent_label for c in cells)
        common = [t for t, per in by_task.items() if len(per) == len(methods)]
        if not common:
            continue
        rank_sum = {m: 0.0 for m in methods}
        score_sum = {m: 0.0 for m in methods}
        for t in sorted(common):
            per = by_task[t]
            task = {"task_id": per[methods[0]].get("task_id"), "env_id": env_id}
            scores = {m: 0.0 for m in methods}
            for a, b in itertools.combinations(methods, 2):
                res = match(judge, task, Candidate(a, per[a]), Candidate(b, per[b]))
                scores[a] += res
                scores[b] += 1.0 - res
            for m, rk in ranks(scores).items():
                rank_sum[m] += rk
            for m in methods:
                score_sum[m] += scores[m] / (len(methods) - 1)
        n = len(common)
        results.append(PreferenceResult(
            env_id, llm, budget, judge.name, bool(judge.simulated) or any(c.simulated for c in cells), n,
            {m: round(rank_sum[m] / n, 4) for m in methods}, {m: round(score_sum[m] / n, 4) for m in methods}))
    return results


def to_markdown(results: Sequence[PreferenceResult]) -> str:
    if not results:
        return "No preference ranks: no condition (env, LLM, budget) has two methods on common tasks."
    lines = []
    for res in results:
        title = f"### Preference rank: {res.env_id}, LLM {res.llm}" + (
            f", budget {res.budget}" if res.budget is not None else "")
        lines += [title, "", f"Judge: {res.judge}; {res.tasks} tasks; both orders per pair."
                  + (" Simulated." if res.simulated else ""), "",
                  "| method | average rank (1 = best) | mean pairwise score |", "|---|---|---|"]
        for m in sorted(res.mean_rank, key=lambda m: res.mean_rank[m]):
            lines.append(f"| {m} | {res.mean_rank[m]:.2f} | {res.wins[m]:.3f} |")
        lines.append("")
    return "\n".join(lines)


def make_judge(spec: str | None, cache_path: str | Path | None = None, env_id: str | None = None) -> Judge:
    """``None``/``outcome`` -> OutcomeComparator; ``synthetic:judge_acc=..,position_bias=..,seed=..`` ->
    SimulatedJudge; any other LLM spec (``openai:MODEL``, ``local``) -> LLMJudge."""
    if spec in (None, "", "outcome"):
        return OutcomeComparator()
    prefix, _, arg = spec.partition(":")
    if prefix == "synthetic":
        knobs: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in arg.split(","))):
            k, sep, v = part.partition("=")
            if not sep or k.strip() not in ("judge_acc", "position_bias", "seed"):
                raise ValueError(f"judge spec {spec!r}: use synthetic:judge_acc=P,position_bias=P,seed=N")
            try:
                knobs[k.strip()] = float(v)
            except ValueError:
                raise ValueError(f"judge spec {spec!r}: {k}={v!r} is not a number") from None
        if "seed" in knobs:
            knobs["seed"] = int(knobs["seed"])
        return SimulatedJudge(**knobs)  # type: ignore[arg-type]

    return LLMJudge(make_llm(spec, env_id=env_id), cache_path)
