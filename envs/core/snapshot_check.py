"""The field-by-field check of a :class:`~.snapshot.Snapshot` that ``snapshot()`` did not make.

A snapshot an env made itself is marked (``CHECKED`` in its instance dict, kept by pickling) and
restores without checks, thousands of times a second. Any other one (built by hand with
``Snapshot(...)``, or edited with ``dataclasses.replace``) is checked on its first restore: every
field must be something the env can continue from, else one ``SnapshotError`` names the field and
what it holds (:func:`check_fields`). The env's own check of the payload and task
(``ForkableEnv.check_snapshot_payload``, :func:`check_payload`) runs where the base class puts the
payload live. A snapshot that passes both is marked, so the checks run once per snapshot.

Settings: a class names the constructor parameters that change what a restored state does next
(``ForkableEnv.restore_settings``: a judging protocol, a reward or observation mode). An env reads
those of its own construction not at their default (:func:`settings_of`, once, when it is built) into
its ``snapshot_class_key``, which every snapshot carries as ``env_class`` (``snapshot.settings_key``):
the restore's one comparison of keys covers them, and a restore into an env whose settings differ
is refused with one line naming the setting, both values and what to build instead (:func:`check_settings`).

Data settings (``ForkableEnv.data_settings``: WebShop's ``catalog``, ToolBench's ``transport``) name data
the env loads rather than a mode: the value recorded is an identity of the loaded data (a content digest,
a server URL; None for the shipped data), which the env records itself once it has loaded them
(``ForkableEnv.record_data_setting``, :func:`key_with`), not the constructor argument: one catalog named
by two paths is one value, and the same path over other files is another.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from .snapshot import CHECKED, Snapshot, SnapshotError, key_settings, settings_key

__all__ = ["CHECKED", "check_fields", "check_payload", "check_settings", "key_with", "setting_defaults", "settings_of"]


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


def setting_defaults(cls: type, names: tuple[str, ...]) -> dict[str, Any]:
    """The default of each of ``names`` as a setting of ``cls``: its constructor's default, or, when the
    constructor passes ``**kwargs`` on, the base class's. A name the constructor does not take is
    dropped when inherited (the subclass fixes that value itself; it lists ``restore_settings`` of its
    own when it derives it from other arguments) and a ``TypeError`` when ``cls`` declares it."""
    parameters = inspect.signature(cls.__init__).parameters
    passes_on = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    # read before the class's own is set: the nearest base's
    inherited = {} if "restore_settings" in cls.__dict__ else getattr(cls, "restore_setting_defaults", {})
    defaults: dict[str, Any] = {}
    for name in names:
        param = parameters.get(name)
        if param is not None and param.default is not inspect.Parameter.empty:
            defaults[name] = param.default
        elif param is None and name in inherited and passes_on:
            defaults[name] = inherited[name]
        elif param is not None or name not in inherited:
            raise TypeError(f"{cls.__qualname__}.restore_settings names {name!r}, which is not a parameter of "
                            f"{cls.__qualname__}.__init__ with a default")
    return defaults


def settings_of(cls: type, args: tuple, kwargs: dict) -> tuple[tuple[str, Any], ...]:
    """The ``(name, value)`` pairs of ``cls``'s settings (``restore_setting_defaults``) that the constructor call
    ``cls(*args, **kwargs)`` sets to other than their default; () for a class without settings or a call its
    constructor will refuse anyway. Data settings (``data_settings``) are left out: the env records their
    identity itself (:func:`key_with`)."""
    defaults = cls.restore_setting_defaults  # type: ignore[attr-defined]
    if not defaults:
        return ()
    data = cls.data_settings  # type: ignore[attr-defined]
    given = kwargs
    if args:
        signature = inspect.signature(cls.__init__)
        try:
            given = dict(signature.bind_partial(None, *args, **kwargs).arguments)
        except TypeError:
            return ()
        for name, param in signature.parameters.items():
            if param.kind is inspect.Parameter.VAR_KEYWORD:
                given.update(given.pop(name, {}))
    return tuple((name, given[name]) for name in defaults
                 if name in given and name not in data and not _same(given[name], defaults[name]))


def key_with(key: str, cls: type, name: str, value: Any) -> str:
    """``key`` (the ``snapshot_class_key`` of an env of class ``cls``) with setting ``name`` set to ``value``
    (dropped at its default), the settings in ``cls``'s order: the one key an env built alike has."""
    defaults = cls.restore_setting_defaults  # type: ignore[attr-defined]
    if name not in defaults:
        raise TypeError(f"{cls.__qualname__} has no setting {name!r} (its restore_settings: {', '.join(defaults)})")
    class_key, settings = key_settings(key) or (key, ())
    values = dict(settings)
    values.pop(name, None)
    if not _same(value, defaults[name]):
        values[name] = value
    return settings_key(class_key, tuple((n, values[n]) for n in defaults if n in values))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are different settings
        return False


def check_settings(theirs: str, mine: str, cls: type) -> None:
    """When ``theirs`` (a snapshot's ``env_class``) and ``mine`` (the ``snapshot_class_key`` of an env of
    class ``cls``) name that class under other settings, refuse with one ``SnapshotError`` naming the
    setting, both values and the env to build; otherwise return (another class: the caller says so)."""
    their_class, recorded = key_settings(theirs) or (theirs, ())
    my_class, own = key_settings(mine) or (mine, ())
    if their_class != my_class:
        if theirs.partition("[")[0] == mine.partition("[")[0]:  # a key of settings this process never read
            raise SnapshotError(f"snapshot was taken on {theirs}; this env is {mine}: build the env with the "
                                "settings in brackets to restore it")
        return
    defaults = getattr(cls, "restore_setting_defaults", {})
    recorded_values, own_values = dict(recorded), dict(own)
    unknown = [name for name in recorded_values if name not in defaults]
    if unknown:
        raise SnapshotError(f"snapshot was taken with setting {unknown[0]!r}, which {cls.__qualname__} does not "
                            "have; restore it on an env of the treegym that took it")
    for name, default in defaults.items():
        then, now = recorded_values.get(name, default), own_values.get(name, default)
        if _same(then, now):
            continue
        if name in cls.data_settings:  # type: ignore[attr-defined]
            raise SnapshotError(f"snapshot was taken on a {cls.__qualname__} with {name}={then!r}; this env has "
                                f"{name}={now!r}, whose data would answer the state's next steps differently: "
                                f"{cls.data_settings[name]}")  # type: ignore[attr-defined]
        raise SnapshotError(f"snapshot was taken on a {cls.__qualname__} with {name}={then!r}; this env has "
                            f"{name}={now!r}, under which the state would play by other rules: build the env "
                            f"with {name}={then!r} to restore it")
