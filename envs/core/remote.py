"""Remote play, chosen explicitly: :func:`remote` and the entry point every treegym id registers.

* :func:`remote` - ``treegym.envs.remote(env_id, server_url, **make_kwargs)``: the env ``env_id``
  played on the session server at ``server_url`` (``treegym serve <env id>``), made like
  ``gym.make`` (same wrappers, a ``spec`` that ``clone`` rebuilds from). A class with a remote mode
  of its own (``takes_server_url``: ``EngineEnv``) is made with ``server_url=``; any other
  ``ForkableEnv`` family, your own included, becomes a
  :class:`~.fork_client.ForkClientEnv` on the server's ``ForkEngine``.
* :func:`make_local_or_remote` - the entry point treegym registers for its ids
  (``functools.partial(make_local_or_remote, "module:Class")``), so ``gym.make(id, server_url=URL)``
  picks the same way; without ``server_url`` it is the class itself.
"""
from __future__ import annotations

import dataclasses
import importlib
from functools import partial
from typing import Any, Callable

import gymnasium as gym

from .fork_client import ForkClientEnv


def _load(entry_point: str | Callable[..., Any]) -> Callable[..., Any]:
    if callable(entry_point):
        return entry_point
    module_name, _, attr = entry_point.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def make_local_or_remote(entry_point: str | Callable[..., Any], **kwargs: Any) -> gym.Env:
    """Build the env behind ``entry_point`` (``"module:Class"`` or the class) with ``kwargs``; with
    ``server_url=`` on a class that has no remote mode of its own, a ``ForkClientEnv`` of it instead."""
    maker = _load(entry_point)
    if not getattr(maker, "takes_server_url", True):
        if kwargs.get("server_url") is not None:
            return ForkClientEnv(maker, **kwargs)
        kwargs.pop("server_url", None)  # server_url=None: in-process, as for every other id
    return maker(**kwargs)


def local_or_remote_entry(entry_point: str | Callable[..., Any]) -> Callable[..., gym.Env]:
    """The registered entry point of an id whose own entry point is ``entry_point`` (see the module
    docstring); an entry point that already is one is returned as it is."""
    if isinstance(entry_point, partial) and entry_point.func is make_local_or_remote:
        return entry_point
    return partial(make_local_or_remote, entry_point)


def remote(env_id: str, server_url: str, **kwargs: Any) -> gym.Env:
    """``env_id`` (registered, or ``module:EnvId``) played on the session server at ``server_url``,
    made as ``gym.make`` makes it; ``kwargs`` are the client's make-kwargs (``split=``, ``task_ids=``...;
    a ``ForkClientEnv`` refuses those that configure the served simulator, naming them)."""
    if not isinstance(server_url, str) or not server_url:
        raise ValueError(f"remote() needs the session server's URL (http://127.0.0.1:PORT), got {server_url!r}")
    spec = gym.spec(env_id)
    spec = dataclasses.replace(spec, entry_point=local_or_remote_entry(spec.entry_point))
    return gym.make(spec, server_url=server_url, **kwargs)
