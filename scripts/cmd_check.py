"""``treegym check ENV_ID``: Gymnasium's check_env plus check_rollback, readable report."""
from __future__ import annotations

import argparse
import sys

import gymnasium as gym

from .options import nonnegative_int, parse_options, positive_int


MAX_TRAJECTORIES = 10_000


def _trajectories(text: str) -> int:
    value = positive_int(text)
    if value > MAX_TRAJECTORIES:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_TRAJECTORIES} trajectories")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="run check_env and check_rollback on an env")
    p.add_argument("env_id")
    p.add_argument("--trajectories", type=_trajectories, default=5,
                   help=f"random branching trajectories (default 5, at most {MAX_TRAJECTORIES})")
    p.add_argument("--seed", type=nonnegative_int, default=0)
    p.add_argument("--env-opt", action="append", default=[], metavar="KEY=VALUE", help="make-kwargs for gym.make")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import treegym.envs as tenvs
    from treegym.envs.core.snapshot import SnapshotError

    try:
        tenvs.ensure_registered(args.env_id)
    except (gym.error.Error, ImportError) as exc:
        print(f"treegym: {exc}", file=sys.stderr)
        return 2
    try:
        env = gym.make(args.env_id, **parse_options(args.env_opt))
    except Exception as exc:  # noqa: BLE001 - report any construction failure readably
        print(f"FAIL {args.env_id}: cannot make the env: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    try:
        report = tenvs.check_rollback(env, n_trajectories=args.trajectories, seed=args.seed)
    except tenvs.RollbackCheckError as exc:
        print(f"FAIL {args.env_id}: {exc}", file=sys.stderr)
        return 1
    except SnapshotError as exc:  # not a forkable env at all (e.g. Gymnasium's CartPole-v1)
        print(f"FAIL {args.env_id}: cannot check rollback: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - an env that crashes during the check is a failed check, said plainly
        print(f"FAIL {args.env_id}: the env raised during the check: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        env.close()
    print(f"OK   {report.summary()}")
    for note in report.notes:
        print(f"     note: {note}")
    return 0
