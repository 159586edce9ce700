"""TextWorld-v0: a step and a fork (restore + the first step after it) against textworld's own step.

    python -m treegym.scripts.bench.bench_textworld [--depth 10] [--repeats 40] [--games coin_1,cooking_1,...]

TextWorld's restore is lazy: ``restore()`` only puts the snapshot's state in place and the next
``step`` loads it into the game (Jericho's machine state, a fork of the game progression). So
this benchmark never reports a restore alone as the cost of a fork: a fork is restore + first step.

For each game: reset, play ``depth`` seeded random admissible commands (stopping short of an
ending), snapshot there, and take two next commands: ``look`` (changes no fact of the game: our
step keeps the valid actions, textworld's derives them again) and a seeded admissible command that
changes the game's facts (a move, a take: both derive them again). Then, ``repeats`` times,
interleaved in one loop (repetition ``r`` uses next command ``r % 2`` on every side):

* ``tw``: textworld's own env (``textworld.start`` with the same requested infos as ours) resets,
  plays the ``depth`` commands (each ``step`` timed: ``tw step``) and steps the next command (timed:
  textworld's own step of that command from that state, the fork's baseline);
* ``replay``: ``treegym/TextWorld-v0`` resets, replays the ``depth`` commands (each step timed:
  ``our step``) and steps the next command (timed: an ordinary step, no restore before it); the
  whole of it is ``reset+replay+step``, what an env without snapshots pays for that branch;
* ``fork``: from there (one step past the snapshot: a restore always loads another state), restore
  the snapshot and step the next command, timed together (``restore+step``: ``/tw`` against
  textworld's step of that command, ``/ours`` against our ordinary step of it, i.e. what the fork
  adds); then ``snapshot`` + ``restore`` alone (the lazy part, ``snap+rest``) and a search
  expansion (restore, step, snapshot).

Every restore is checked against the replay: the restored observation and info, and the next
step's observation, reward, end flags and info; the first difference stops the run. Figures are
CPU-time medians (``time.process_time``; other jobs on the machine do not count), the load average
printed before and after. The target (issue 37): restore + first step within 1.1x of textworld's own
step of the same command (ratio of the two medians, every game and both commands).
"""
from __future__ import annotations

import argparse
import copy
import statistics
import sys
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

import treegym.envs as te
from treegym.envs.textworld.env import _REQUEST
from treegym.envs.textworld.gamefiles import load_games
from treegym.scripts.bench.bench_support import Samples, interleave, load_text

TARGET = 1.1  # restore + first step / textworld's own step of the same command
NEXT = ("look", "command")


class ForkRefused(RuntimeError):
    """A restored state (or its next step) differed from reset + replay: the figures are void."""


def _walk(env: gym.Env, depth: int, rng: np.random.Generator) -> list[str]:
    actions: list[str] = []
    obs, _ = env.reset()
    while len(actions) < depth:
        snap = te.snapshot(env)
        a = str(rng.choice(obs["valid_actions"]))
        obs, _r, term, trunc, _i = env.step(a)
        if term or trunc:          # keep the branch alive: undo an ending and pick another command
            obs, _info = te.restore(env, snap)
            continue
        actions.append(a)
    return actions


def _facts(env: gym.Env) -> set[str]:
    return {str(f) for f in env.unwrapped.runner.live.progression.state.facts}


def _fact_changing_command(env: gym.Env, snap: Any, commands: Sequence[str], rng: np.random.Generator) -> str:
    """The first command, in a seeded order, that changes the game's facts from ``snap`` and ends no game
    (the costlier kind of step: textworld derives the valid actions again)."""
    te.restore(env, snap)
    before = _facts(env)
    for command in rng.permutation(list(commands)):
        te.restore(env, snap)
        _obs, _r, term, trunc, _info = env.step(str(command))
        if not (term or trunc) and _facts(env) != before:
            return str(command)
    raise SystemExit(f"no admissible command changes the game's facts here: {list(commands)}")


def _check(where: str, got: Any, want: Any) -> None:
    diff = te.first_difference(got, want)
    if diff is not None:
        raise ForkRefused(f"{where} differs from reset + replay: {diff}")


def bench_game(game: str, depth: int, repeats: int) -> dict[str, Any]:
    """One game's CPU medians in seconds (``tw step``, ``our step``, ``tw <next>``, ``our <next>``,
    ``fork <next>`` for next in :data:`NEXT`, ``replay <next>``, ``snap``, ``expand``) and the next
    commands (``commands``). Raises :class:`ForkRefused` when a restore differs from the replay."""
    import textworld  # lazy: the textworld extra

    env = gym.make("treegym/TextWorld-v0", task_ids=[game], max_steps=10 * depth + 10)
    tw = textworld.start(load_games()[game].path, request_infos=_REQUEST)
    try:
        rng = np.random.default_rng(0)
        env.reset(options={"task_id": game})
        actions = _walk(env, depth, rng)
        ref_obs, ref_info = copy.deepcopy(te.restore(env, te.snapshot(env)))
        snap = te.snapshot(env)
        commands = ("look", _fact_changing_command(env, snap, ref_obs["valid_actions"], rng))
        ref_next = []
        for command in commands:
            te.restore(env, snap)
            ref_next.append(copy.deepcopy(env.step(command)))
        samples = Samples()

        def tw_side(rep: int) -> None:
            k = rep % 2
            tw.reset()
            for a in actions:
                samples.time("tw step", tw.step, a)
            samples.time(f"tw {NEXT[k]}", tw.step, commands[k])

        def replay_side(rep: int) -> None:
            k = rep % 2
            c0, w0 = samples.clock()
            env.reset(options={"task_id": game})
            for a in actions:
                samples.time("our step", env.step, a)
            obs, info = env.unwrapped._observe()
            result = samples.time(f"our {NEXT[k]}", env.step, commands[k])
            c1, w1 = samples.clock()
            samples.add(f"replay {NEXT[k]}", c1 - c0, w1 - w0)
            _check(f"{game}: replay, repetition {rep}", (obs, info, result), (ref_obs, ref_info, ref_next[k]))

        def fork_side(rep: int) -> None:  # the env holds the replay's state one step past the snapshot
            k = rep % 2
            c0, w0 = samples.clock()
            obs, info = te.restore(env, snap)
            result = env.step(commands[k])
            c1, w1 = samples.clock()
            samples.add(f"fork {NEXT[k]}", c1 - c0, w1 - w0)
            _check(f"{game}: restore + {commands[k]!r}, repetition {rep}", (obs, info, result),
                   (ref_obs, ref_info, ref_next[k]))
            samples.time("snap", lambda: te.restore(env, te.snapshot(env)))
            samples.time("expand", lambda: (te.restore(env, snap), env.step(commands[k]), te.snapshot(env)))

        interleave([tw_side, replay_side, fork_side], repeats)
    finally:
        env.close()
        tw.close()
    out: dict[str, Any] = {name: statistics.median(values) for name, values in samples.cpu.items()}
    out["commands"] = commands
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=40)
    ap.add_argument("--games", default="coin_1,cooking_1,simple_1,treasure_1")
    args = ap.parse_args(argv)
    if args.depth < 1 or args.repeats < 2:
        ap.error("--depth must be >= 1 and --repeats >= 2 (each repetition times one of the two next commands)")
    print(f"TextWorld-v0, depth {args.depth}, {args.repeats} interleaved repeats, CPU medians in ms; "
          f"before: {load_text()}")
    print(f"{'game':<11} {'tw step':>7} {'ours':>6} {'ours/tw':>7} | {'next':<22} {'tw':>6} {'ours':>6} "
          f"{'restore+step':>12} {'/tw':>6} {'/ours':>6} | {'replay+step':>11} {'/fork':>6} | {'snap+rest':>9} "
          f"{'expand':>7}")
    step_ratios, fork_ratios, own_ratios, replay_ratios = [], [], [], []
    for game in args.games.split(","):
        try:
            r = bench_game(game, args.depth, args.repeats)
        except ForkRefused as exc:
            print(f"{game}: REFUSED, {exc}")
            return 1
        ms = {k: v * 1e3 for k, v in r.items() if k != "commands"}
        step_ratios.append(r["our step"] / r["tw step"])
        for k, (kind, command) in enumerate(zip(NEXT, r["commands"])):
            fork_ratios.append(r[f"fork {kind}"] / r[f"tw {kind}"])
            own_ratios.append(r[f"fork {kind}"] / r[f"our {kind}"])
            replay_ratios.append(r[f"replay {kind}"] / r[f"fork {kind}"])
            head = (f"{game:<11} {ms['tw step']:>7.2f} {ms['our step']:>6.2f} {step_ratios[-1]:>6.2f}x" if k == 0
                    else " " * 34)
            tail = f" | {ms['snap']:>9.3f} {ms['expand']:>7.2f}" if k == 0 else ""
            print(f"{head} | {command[:22]:<22} {ms[f'tw {kind}']:>6.2f} {ms[f'our {kind}']:>6.2f} "
                  f"{ms[f'fork {kind}']:>12.2f} {fork_ratios[-1]:>5.2f}x {own_ratios[-1]:>5.2f}x | "
                  f"{ms[f'replay {kind}']:>11.1f} "
                  f"{replay_ratios[-1]:>5.1f}x{tail}")
    worst = max(fork_ratios)
    print(f"step, ours / textworld's own: median {statistics.median(step_ratios):.2f}x")
    print(f"restore + first step / textworld's own step of the same command: median "
          f"{statistics.median(fork_ratios):.2f}x, worst {worst:.2f}x (target <= {TARGET}x: "
          f"{'met' if worst <= TARGET else 'MISSED'})")
    print(f"restore + first step / our own step of the same command (what the fork adds): median "
          f"{statistics.median(own_ratios):.2f}x, worst {max(own_ratios):.2f}x")
    print(f"reset + replay + step / restore + step: median {statistics.median(replay_ratios):.1f}x "
          f"({min(replay_ratios):.1f}-{max(replay_ratios):.1f}x)")
    print(f"after: {load_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
