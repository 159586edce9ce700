"""Registration of every treegym id, with string entry points.

Imported by ``treegym.envs``; string entry points keep registration cheap (an
env module is imported only at ``gym.make``) and make ids resolvable in spawned
worker processes (``import treegym.envs`` registers them there too).
Envs own their step limit, so none is registered with a TimeLimit. Every id's
``vector_entry_point`` is the fork-aware vector env (``envs/core/vector.py``), so
``gym.make_vec(id, n)`` works for each of them, asynchronous ones included.

Self-registration: an env family declares its ids in its own package, as a
module-level ``ENV_SPECS`` tuple of :class:`~treegym.envs.core.env_entry.EnvEntry`
in ``envs/<family>/__init__.py``; :func:`discover` finds every sub-package that
has one, so adding a family touches only its own folder. ``ENVS`` (id ->
entry point, default kwargs, extra) and :func:`entries` are what was found. A family's
other servers (``SERVERS``, :class:`~treegym.envs.core.env_entry.ServerEntry`) are found
the same way: :func:`servers`, :func:`server` (what ``treegym serve <name>`` runs).

Users' envs reach the command line (``treegym run``/``check``) two ways
(:func:`ensure_registered`): as ``module:EnvId`` (Gymnasium's own syntax: the
module is imported, from the current folder too, and registers ``EnvId``), or
through the entry-point group :data:`ENTRY_POINT_GROUP` of an installed package
(``[project.entry-points."treegym.envs"] mysuite = "mysuite.envs"``; the object
is imported and, when it is a function, called, so it can register its ids; the same loader,
:mod:`.core.plugins`, reads the ``treegym.agents``, ``treegym.prompts`` and ``treegym.llms`` groups).
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import warnings
from functools import partial
from typing import Any

import gymnasium as gym

from .core.env_entry import EnvEntry, ServerEntry
from .core.plugins import load_entry_points
from .core.remote import local_or_remote_entry
from .core.vector import make_vector_env

NAMESPACE = "treegym"
ENTRY_POINT_GROUP = "treegym.envs"
_PACKAGE = __name__.rpartition(".")[0]  # treegym.envs


def _families() -> list[Any]:
    """The importable sub-packages of ``treegym.envs`` (not ``core``/``examples``); one that fails to
    import is skipped with a warning naming it and the error (one broken family must not stop the others)."""
    package = sys.modules[_PACKAGE]
    modules = []
    for info in pkgutil.iter_modules(package.__path__):
        if not info.ispkg or info.name in ("core", "examples"):
            continue
        try:
            modules.append(importlib.import_module(f"{_PACKAGE}.{info.name}"))
        except ImportError as exc:
            warnings.warn(f"{_PACKAGE}.{info.name} failed to import, its env ids are not registered: "
                          f"{type(exc).__name__}: {exc}", stacklevel=3)
    return modules


def _declared(families: list[Any] | None, attr: str, kind: type, key: str, what: str) -> list[Any]:
    """The ``kind`` entries every family module lists in ``attr``; ``TypeError`` for anything else,
    ``ValueError`` when two entries share ``key`` (``what`` names it in the message)."""
    found: list[Any] = []
    for module in _families() if families is None else families:
        for entry in getattr(module, attr, ()):
            if not isinstance(entry, kind):
                article = "an" if kind.__name__[0] in "AEIOU" else "a"
                raise TypeError(f"{module.__name__}.{attr} holds {entry!r}, not {article} {kind.__name__}")
            found.append(entry)
    keys = [getattr(e, key) for e in found]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValueError(f"{what} declared twice under {_PACKAGE}: {repeated}")
    return found


def discover_servers(families: list[Any] | None = None) -> tuple[ServerEntry, ...]:
    """Every :class:`ServerEntry` declared by a sub-package of ``treegym.envs`` (its ``SERVERS``), by name."""
    found = _declared(families, "SERVERS", ServerEntry, "name", "server names")
    return tuple(sorted(found, key=lambda e: e.name))


def discover(families: list[Any] | None = None) -> tuple[EnvEntry, ...]:
    """Every :class:`EnvEntry` declared by a sub-package of ``treegym.envs`` (its ``ENV_SPECS``),
    in ``order``. A sub-package that fails to import is skipped with a warning naming it and the error
    (one broken family must not stop the others from registering)."""
    found = _declared(families, "ENV_SPECS", EnvEntry, "id", "env ids")
    return tuple(sorted(found, key=lambda e: (e.order, e.id)))


_ENTRIES: tuple[EnvEntry, ...] = ()
# id -> (entry point, default kwargs, extra needed to import it); filled by register_all()
ENVS: dict[str, tuple[str, dict[str, Any], str | None]] = {}


_SERVERS: tuple[ServerEntry, ...] = ()


def servers() -> tuple[ServerEntry, ...]:
    """The servers the families offer besides the session server (:func:`discover_servers`), by name."""
    return _SERVERS


def server(name: str) -> ServerEntry | None:
    """The declared server called ``name`` (case-insensitive), or None."""
    return next((e for e in _SERVERS if e.name == name.lower()), None)


def entries() -> tuple[EnvEntry, ...]:
    """The registered families' entries (see :func:`discover`), in ``treegym list`` order."""
    return _ENTRIES


def resolve(name: str) -> str | None:
    """The registered id a user means by ``name``: an id as is, or a short name / bare name
    (``game24``, ``Game24-v0``, case-insensitive); None when nothing matches."""
    if name in ENVS:
        return name
    low = name.lower()
    for e in _ENTRIES:
        if low in ((e.name or "").lower(), e.id.lower(), e.id.partition("/")[2].lower()):
            return e.id
    return None


def register_all() -> None:
    """Discover the families (:func:`discover`) and register every id not registered yet. Run on
    ``import treegym.envs``; run it again after adding a family folder in a live process."""
    global _ENTRIES, _SERVERS

    families = _families()
    _ENTRIES = discover(families)
    _SERVERS = discover_servers(families)
    ENVS.clear()  # the same dict object: modules that imported ENVS see the update
    ENVS.update({e.id: (e.entry_point, dict(e.kwargs), e.extra) for e in _ENTRIES})
    for env_id, (entry_point, kwargs, extra) in ENVS.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            # server_url= plays it remotely; an id that needs an extra goes through needs_extra, which
            # names the extra when it is missing
            entry_point=local_or_remote_entry(f"{_PACKAGE}.needs_extra:{env_id}" if extra else entry_point),
            kwargs=dict(kwargs),
            max_episode_steps=None,
            disable_env_checker=False,
            vector_entry_point=partial(make_vector_env, env_id),
        )


_plugins_loaded = False


def load_plugins() -> list[str]:
    """Import every entry point of :data:`ENTRY_POINT_GROUP` once (:func:`~.core.plugins.load_entry_points`);
    returns the names loaded. A plugin that fails to import raises ImportError naming it."""
    global _plugins_loaded
    if _plugins_loaded:
        return []
    _plugins_loaded = True
    return load_entry_points(ENTRY_POINT_GROUP)


def ensure_registered(env_id: str) -> str:
    """Make ``env_id`` known to ``gym.registry`` and return the bare id: a treegym id as is;
    ``module:EnvId`` by importing ``module`` (the current folder is searched too, as ``python -m``
    does); else by loading the :data:`ENTRY_POINT_GROUP` plugins. Raises ``gym.error.NameNotFound``
    (or ImportError for a module that cannot be imported) with the ids it knows."""
    if env_id in ENVS or env_id in gym.registry:
        return env_id
    bare = env_id
    if ":" in env_id:
        module_name, _, bare = env_id.partition(":")
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.append(os.getcwd())
        try:
            importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            raise gym.error.NameNotFound(f"cannot import module {module_name!r} of {env_id!r} ({exc}); "
                                         "run from the folder that holds it or install it") from None
        except ValueError as exc:  # an empty or relative module name (":X", "..:X")
            raise gym.error.NameNotFound(f"{env_id!r} is not module:EnvId ({exc})") from None
    if bare not in gym.registry:
        load_plugins()
    if bare not in gym.registry:
        known = ", ".join(sorted(ENVS))
        raise gym.error.NameNotFound(
            f"unknown env {env_id!r}; known ids: {known}; for your own env give module:EnvId (the module "
            f"registers EnvId when imported) or install a package with a {ENTRY_POINT_GROUP!r} entry point")
    return bare


def env_class(env_id: str) -> type:
    """Import and return the env class behind ``env_id`` (may need the id's extra); also a user's env
    given as ``module:EnvId`` or registered by an entry-point plugin (:func:`ensure_registered`)."""
    if env_id not in ENVS:
        bare = ensure_registered(env_id)
        entry = gym.registry[bare].entry_point
        if callable(entry):
            return entry
        module_name, _, attr = str(entry).partition(":")
        return getattr(importlib.import_module(module_name), attr)
    entry_point, _kwargs, extra = ENVS[env_id]
    module_name, _, attr = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if extra:
            raise gym.error.DependencyNotInstalled(
                f"{env_id} needs the {extra} extra: pip install 'treegym[{extra}]' ({exc})"
            ) from exc
        raise
    return getattr(module, attr)


def env_ids() -> list[str]:
    return list(ENVS)
