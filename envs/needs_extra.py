"""Entry points of the ids whose env needs a pip extra: ``treegym.envs.needs_extra:<env id>``.

Gymnasium imports an id's entry point at ``gym.make``; for these ids it imports this module and
asks it for the attribute named by the id, which is the env class behind it
(:func:`~treegym.envs.registration.env_class`). A package of the extra that is not installed then
surfaces as ``gymnasium.error.DependencyNotInstalled`` with one line naming the id and the
``pip install 'treegym[<extra>]'`` that fixes it, instead of a bare ``ModuleNotFoundError`` from
deep inside the family. The entry point stays a string, so specs still pickle and serialise.
"""
from __future__ import annotations

from .registration import env_class


def __getattr__(env_id: str) -> type:
    if "/" not in env_id:  # not an id: an ordinary missing attribute
        raise AttributeError(f"module {__name__!r} has no attribute {env_id!r}")
    return env_class(env_id)
