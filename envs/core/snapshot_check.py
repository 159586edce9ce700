"""The field-by-field check of a :class:`~.snapshot.Snapshot` that ``snapshot()`` did not make.

A snapshot an env made itself is marked (``CHECKED`` in its instance dict, kept by pickling) and
restores without checks, thousands of times a second. Any other one (built by hand with
``Snapshot(...)``, or edited with ``dataclasses.replace``) is checked on its first restore: every
field must be something the env can continue from, else one ``SnapshotError`` names the field and
what it holds (:func:`check_fields`). The env's own check of the payload and task
(``ForkableEnv.check_snapshot_payload``, :func:`check_payload`) runs where the base class puts the
payload live. A snapshot that passes both is marked, so the checks run once per snapshot.
"""
from __future__ import annotations

from typing import Any, Callable

from .snapshot import CHECKED, Snapshot, SnapshotError

__all__ = ["CHECKED", "check_fields", "check_payload"]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_rng(rng: Any) -> str | None:
    """What is wrong with ``rng`` as a numpy bit-generator state (None when nothing is)."""
    if rng is None:
        return None
    if not isinstance(rng, dict) or not isinstance(rng.get("bit_generator"), str):
        return "a numpy bit-generator state dict (from np_random.bit_generator.state) or None"
    import numpy as np

    try:
        generator = getattr(np.random, rng["bit_generator"])
        if not (isinstance(generator, type) and issubclass(generator, np.random.BitGenerator)):
            raise TypeError(rng["bit_generator"])
        generator().state = rng
    except Exception as exc:  # noqa: BLE001 - numpy says what it refused; we name the field
        return f"a state numpy accepts ({type(exc).__name__}: {_shown(str(exc))})"
    return None


def check_fields(snapshot: Snapshot, kind: str) -> None:
    """Refuse ``snapshot`` with one ``SnapshotError`` naming the first field an env of snapshot kind
    ``kind`` cannot continue from (all but the payload and the task: :func:`check_payload`)."""
    problems = (
        ("kind", snapshot.kind, f"{kind!r} (this env's kind)" if snapshot.kind != kind else None),
        ("steps", snapshot.steps, None if _is_int(snapshot.steps) and snapshot.steps >= 0 else
         "an int >= 0"),
        ("max_steps", snapshot.max_steps, None if snapshot.max_steps is None or
         (_is_int(snapshot.max_steps) and snapshot.max_steps >= 1) else "None or an int >= 1"),
        ("rng_state", snapshot.rng_state, _check_rng(snapshot.rng_state)),
        ("wrappers", snapshot.wrappers, None if isinstance(snapshot.wrappers, tuple) and all(
            isinstance(w, tuple) and len(w) == 2 and isinstance(w[0], str) for w in snapshot.wrappers)
         else "a tuple of (wrapper name, state) pairs"),
    )
    for name, value, wanted in problems:
        if wanted is not None:
            raise SnapshotError(f"snapshot field {name!r} holds {_shown(value)}; it must be {wanted} "
                                "(take snapshots with env.snapshot() / treegym.envs.snapshot(env))")


def check_payload(snapshot: Snapshot, check: Callable[[Snapshot], None]) -> None:
    """Run the env's ``check`` of ``snapshot``'s payload and task; any failure is one ``SnapshotError``."""
    try:
        check(snapshot)
    except SnapshotError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to read the payload is one clear refusal
        raise SnapshotError(f"snapshot payload or task cannot be restored on this env: {type(exc).__name__}: "
                            f"{_shown(str(exc))} (take snapshots with env.snapshot())") from None
