"""Benchmark: restore into a different state against reset + replay, at ordinary states, for every env.

For each env, two episodes (``reset(seed)`` and ``reset(seed + 1)``: two tasks in most envs)
and two different states in each (branches a and b) are reached by seeded random valid
actions, ``depth`` (8) of them, none ending the episode (an action that ends it is undone by
replaying the prefix and another one drawn; an env whose episodes are shorter, Game of 24,
stops at the last open depth, which the table shows). Each state's reference is what reset +
replay gives: observation, info, reward, and the result of one more (seeded) action. Then,
interleaved repetition after repetition, in the same run:

* ``restore``: while the env holds branch a of an episode, restore its branch b (a sibling
  state, as a tree search does; never the state the env already holds), ``step`` the next
  action, ``snapshot`` the new state (released at once);
* ``restore_other_task``: restore a state of the other episode (the coldest restore), step,
  snapshot;
* ``replay``: ``reset`` + replay of a branch (the baseline an env without snapshots pays).

An env whose restore is lazy (:func:`restores_lazily`: it only records the state and its next step
loads it; TextWorld) would show a restore that costs nothing and a step that pays for it, so for
it ``restore`` and ``restore_other_task`` time the restore together with that first step (the
fork's whole cost: ``restore_timed`` says which), ``step`` still times the step alone, and the
ratio is replay / (restore + first step).

Every restore is checked against the reference (observation and info, then the next step's
observation, reward, end flags and info) and every replay too; the first difference refuses
the env's figures (:class:`RollbackRefused`) instead of printing them. Figures are medians of
CPU time (``time.process_time``: other jobs on the machine do not count) with the wall-time
medians, quartiles and the load average beside them; the ratio is replay / same-episode restore.

    python -m treegym.scripts.bench.bench_rollback [--env ID ...] [--depth 8] [--repeats 31] [--budget S]

``python -m treegym.scripts.bench.bench_all`` runs this for every env family together with the
search-overhead figures and writes a results file.
"""
from __future__ import annotations

import argparse
import copy
import sys
from dataclasses import dataclass
from typing import Any, Callable

import gymnasium as gym
import numpy as np

import treegym.envs as te
from treegym.envs.core.runners import LiveRunner
from treegym.scripts.bench.bench_support import Samples, interleave, load_text

DEFAULT_DEPTH = 8
LAZY_NOTE = ("* lazy restore (the next step loads the state): its restore figures are restore + the first step, "
             "the fork's whole cost")
TARGETS = {"treegym/Game24-v0": 50.0}  # minimum replay/restore ratio (CPU medians)


class RollbackRefused(RuntimeError):
    """A restored (or replayed) state differed from the reference: the env's figures are void."""


class NoOpenStates(RuntimeError):
    """The seeded walks found too few different states that leave the episode open."""


def choose_action(env: gym.Env, obs: Any, step: int) -> Any:
    """The env's expert action when it has one, else the first valid action, else a seeded sample."""
    try:
        advice = env.unwrapped.expert()  # the env-agent contract; None when the env has no expert
    except Exception:  # noqa: BLE001 - an expert that fails just means: use another action
        advice = None
    if advice is not None and advice.next_action is not None:
        return advice.next_action
    valid = obs.get("valid_actions") if isinstance(obs, dict) else None
    if valid:
        return valid[0]
    env.action_space.seed(step)
    return env.action_space.sample()


def play_prefix(env: gym.Env, seed: int, depth: int) -> tuple[list[Any], Any]:
    """Reset and play up to ``depth`` :func:`choose_action` actions (fewer when the episode ends);
    returns the actions and the last observation."""
    obs, _info = env.reset(seed=seed)
    actions: list[Any] = []
    for i in range(depth):
        a = choose_action(env, obs, i)
        obs, _r, term, trunc, _info = env.step(a)
        actions.append(a)
        if term or trunc:
            break
    return actions, obs


def replay(env: gym.Env, seed: int, actions: list[Any]) -> tuple[Any, dict, Any]:
    """``reset(seed)`` then ``actions``; returns the last observation, info and reward (None at depth 0)."""
    obs, info = env.reset(seed=seed)
    reward = None
    for a in actions:
        obs, reward, _term, _trunc, info = env.step(a)
    return obs, info, reward


def _draw(obs: Any, env: gym.Env, rng: np.random.Generator) -> Any:
    valid = list(obs.get("valid_actions") or ()) if isinstance(obs, dict) else []
    if valid:
        return valid[int(rng.integers(len(valid)))]
    env.action_space.seed(int(rng.integers(2**31)))
    return env.action_space.sample()


def open_walk(env: gym.Env, seed: int, depth: int, rng: np.random.Generator, tries: int = 20) -> list[Any]:
    """Up to ``depth`` seeded random valid actions from ``reset(seed)`` that leave the episode open.

    An action that ends the episode is undone by a replay of the prefix (never by a restore: the
    snapshot protocol is what is measured) and another is drawn; after ``tries`` endings in a row
    the walk stops where it is."""
    obs, _ = env.reset(seed=seed)
    actions: list[Any] = []
    ended = 0
    while len(actions) < depth and ended < tries:
        a = _draw(obs, env, rng)
        step_obs, _r, term, trunc, _i = env.step(a)
        if term or trunc:
            ended += 1
            obs = replay(env, seed, actions)[0]
            continue
        ended = 0
        actions.append(a)
        obs = step_obs
    return actions


@dataclass
class Branch:
    """One ordinary state and its reference, all from reset + replay."""

    seed: int
    actions: list[Any]
    obs: Any
    info: dict
    reward: Any
    next_action: Any
    next_result: tuple


def _branch(env: gym.Env, seed: int, actions: list[Any], rng: np.random.Generator) -> Branch:
    obs, info, reward = replay(env, seed, actions)
    next_action = _draw(obs, env, rng)
    next_result = env.step(next_action)
    return Branch(seed, actions, copy.deepcopy(obs), copy.deepcopy(info), reward, next_action,
                  copy.deepcopy(next_result))


def sibling_branches(env: gym.Env, seed: int, depth: int, walks: int = 20) -> tuple[Branch, Branch]:
    """Two different open states of the episode ``reset(seed)`` (seeded walks 0, 1, ...): the second
    has another observation when any of ``walks`` walks gives one, else at least other actions."""
    first = _branch(env, seed, open_walk(env, seed, depth, np.random.default_rng(0)), np.random.default_rng(0))
    other_actions = None
    for w in range(1, walks):
        rng = np.random.default_rng(w)
        actions = open_walk(env, seed, depth, rng)
        if actions == first.actions:
            continue
        candidate = _branch(env, seed, actions, rng)
        if te.first_difference(candidate.obs, first.obs) is not None:
            return first, candidate
        other_actions = other_actions or candidate
    if other_actions is None:
        raise NoOpenStates(f"{walks} seeded walks from reset(seed={seed}) all took the same {len(first.actions)} "
                           "actions: no second state to restore into")
    return first, other_actions


def restores_lazily(env: gym.Env) -> bool:
    """Whether ``env``'s restore only records the state and its next step loads it: an env run by a
    live engine (``LiveRunner``: restore thaws, TextWorld's thaw defers the Z-machine and the game
    progression to the step). A benchmark then times restore + first step as the fork's cost."""
    return isinstance(getattr(env.unwrapped, "runner", None), LiveRunner)


def _check(where: str, pairs: list[tuple[str, Any, Any]]) -> None:
    for name, got, want in pairs:
        d = te.first_difference(got, want)
        if d is not None:
            raise RollbackRefused(f"{where}: {name} differs from reset + replay: {d}")


def _check_step(where: str, got: tuple, want: tuple) -> None:
    _check(where, list(zip(("observation", "reward", "terminated", "truncated", "info"), got, want)))


def measure_rollback(make_env: Callable[[], gym.Env], *, seed: int = 0, depth: int = DEFAULT_DEPTH,
                     repeats: int = 31, budget_s: float | None = None) -> dict[str, Any]:
    """Figures for one env (see the module docstring), in seconds: ``{"kind", "depth", "repeats",
    "checked", "restore_timed", "restore"|"restore_other_task"|"step"|"snapshot"|"replay": {"cpu": spread,
    "wall": spread}, "ratio_cpu", "ratio_wall"}`` (ratios: replay / same-task restore, restore + first
    step for a lazy restore: ``restore_timed``). Raises
    :class:`RollbackRefused` at the first restored or replayed state that differs from its reference,
    :class:`NoOpenStates` when the walks find no two different open states of an episode."""
    env = make_env()
    try:
        tasks = [sibling_branches(env, seed + t, depth) for t in (0, 1)]  # tasks[t] = (a, b)
        snaps = [[None, None], [None, None]]
        for t, pair in enumerate(tasks):
            for k, b in enumerate(pair):
                replay(env, b.seed, b.actions)
                snaps[t][k] = te.snapshot(env)
        replay(env, tasks[0][0].seed, tasks[0][0].actions)  # repetition 0 starts in branch (0, a)
        samples = Samples()
        checked = {"restores": 0, "replays": 0}
        lazy = restores_lazily(env)

        def restore_step_snapshot(name: str, t: int, k: int, rep: int) -> None:
            b = tasks[t][k]
            where = f"{name} to task {t} branch {'ab'[k]} (depth {len(b.actions)}), repetition {rep}"
            c0, w0 = samples.clock()
            obs, info = te.restore(env, snaps[t][k])
            c1, w1 = samples.clock()
            result = env.step(b.next_action)
            c2, w2 = samples.clock()
            samples.add(name, (c2 if lazy else c1) - c0, (w2 if lazy else w1) - w0)
            samples.add("step", c2 - c1, w2 - w1)
            _check(where, [("observation", obs, b.obs), ("info", info, b.info)])
            _check_step(f"{where}, next step {b.next_action!r}", result, b.next_result)
            te.release(env, samples.time("snapshot", te.snapshot, env))
            checked["restores"] += 1

        def restores(rep: int) -> None:  # the env holds task t's branch a
            t = rep % 2
            restore_step_snapshot("restore", t, 1, rep)  # a sibling state of the same episode
            restore_step_snapshot("restore_other_task", 1 - t, 0, rep)  # another episode's state

        def reset_replay(rep: int) -> None:  # leaves the env in branch a of the next repetition's task
            b = tasks[1 - rep % 2][0]
            obs, info, reward = samples.time("replay", replay, env, b.seed, b.actions)
            _check(f"replay of task {1 - rep % 2} branch a, repetition {rep}",
                   [("observation", obs, b.obs), ("info", info, b.info), ("reward", reward, b.reward)])
            checked["replays"] += 1

        done = interleave([restores, reset_replay], repeats, budget_s)
        branches = [b for pair in tasks for b in pair]
        out: dict[str, Any] = {"kind": te.snapshot_kind(env), "depth": min(len(b.actions) for b in branches),
                               "restore_timed": "restore + first step" if lazy else "restore",
                               "depths": [len(b.actions) for b in branches], "repeats": done, "checked": checked}
        for name in ("restore", "restore_other_task", "step", "snapshot", "replay"):
            out[name] = samples.summary(name)
        for clock in ("cpu", "wall"):
            restore_s = out["restore"][clock]["median"]
            out[f"ratio_{clock}"] = out["replay"][clock]["median"] / restore_s if restore_s > 0 else float("inf")
        return out
    finally:
        env.close()


def env_arguments(description: str, repeats: int) -> argparse.ArgumentParser:
    """The options of a per-env state benchmark: ``--env`` (repeatable), ``--depth``, ``--seed``, ``--repeats``."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--env", action="append", help="env id to measure (repeatable; default: every registered id)")
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help=f"actions before each state (default {DEFAULT_DEPTH})")
    p.add_argument("--seed", type=int, default=0, help="reset seed of the first task (default 0)")
    p.add_argument("--repeats", type=int, default=repeats, help=f"interleaved repetitions (default {repeats})")
    return p


def chosen_env_ids(p: argparse.ArgumentParser, args: argparse.Namespace, min_repeats: int = 1) -> list[str]:
    """The ids ``args`` names (every registered one by default); ``p.error`` on bad options or unknown ids."""
    if args.depth < 0 or args.repeats < min_repeats:
        p.error(f"--depth must be >= 0 and --repeats >= {min_repeats}")
    ids = args.env or list(te.ENVS)
    unknown = [i for i in ids if i not in te.ENVS]
    if unknown:
        p.error(f"unknown env id(s) {unknown}; registered: {', '.join(te.ENVS)}")
    return ids


def attempt(env_id: str, rows: list[str], measure: Callable[[], dict]) -> tuple[dict | None, bool]:
    """``(measure(), False)``; or None with a row saying why: a restored state differed or no states were
    found (``True``: the run fails), or the env's extra is not installed (skipped, ``False``)."""
    try:
        return measure(), False
    except RollbackRefused as exc:
        rows.append(f"{env_id}: REFUSED, a restored state differs: {exc}")
    except NoOpenStates as exc:
        rows.append(f"{env_id}: not measured: {exc}")
    except (gym.error.DependencyNotInstalled, ImportError) as exc:
        rows.append(f"{env_id}: skipped (extra not installed: {exc})")
        return None, False
    return None, True


def print_table(header: str, rows: list[str], failed: bool) -> int:
    """Print a benchmark's table and the load after it; the exit status (1 when ``failed``)."""
    print(header)
    print("-" * len(header))
    print("\n".join(rows))
    print(f"after: {load_text()}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    p = env_arguments(__doc__.split("\n\n")[0], 31)
    p.add_argument("--budget", type=float, default=None, help="stop an env's repetitions after S seconds (at least 5)")
    args = p.parse_args(argv)
    ids = chosen_env_ids(p, args)

    print(f"before: {load_text()}")
    header = (f"{'env':<28} {'kind':<8} {'depth':>5} {'snapshot us':>12} {'restore us':>11} "
              f"{'replay us':>11} {'replay/restore':>15}  (CPU medians; wall: restore, replay, ratio)")
    rows, failed, lazy_seen = [], False, False
    for env_id in ids:
        max_steps = {"max_steps": args.depth + 8}
        print(f"measuring {env_id} at depth {args.depth} ...", file=sys.stderr, flush=True)
        r, refused = attempt(env_id, rows, lambda: measure_rollback(
            lambda: gym.make(env_id, **max_steps), seed=args.seed, depth=args.depth, repeats=args.repeats,
            budget_s=args.budget))
        failed = failed or refused
        if r is None:
            continue
        med = {k: {c: r[k][c]["median"] * 1e6 for c in ("cpu", "wall")} for k in ("snapshot", "restore", "replay")}
        lazy = r["restore_timed"] != "restore"
        lazy_seen = lazy_seen or lazy
        kind = r["kind"] + ("*" if lazy else "")
        rows.append(f"{env_id:<28} {kind:<8} {r['depth']:>5} {med['snapshot']['cpu']:>12.1f} "
                    f"{med['restore']['cpu']:>11.1f} {med['replay']['cpu']:>11.1f} {r['ratio_cpu']:>14.1f}x"
                    f"  (wall {med['restore']['wall']:.1f}, {med['replay']['wall']:.1f}, {r['ratio_wall']:.1f}x)")
        target = TARGETS.get(env_id)
        if target is not None:
            met = r["ratio_cpu"] >= target
            failed = failed or not met
            rows.append(f"target {env_id}: restore >= {target:.0f}x faster than replay: {'met' if met else 'MISSED'}")
    if lazy_seen:
        rows.append(LAZY_NOTE)
    return print_table(header, rows, failed)


if __name__ == "__main__":
    sys.exit(main())
