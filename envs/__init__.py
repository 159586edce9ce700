"""treegym environments: forkable Gymnasium envs for LLM decision-making agents.

Importing this package registers every ``treegym/...`` id. The snapshot
protocol (``snapshot``, ``restore``, ``clone``, ``check_rollback``) is
re-exported here so users write ``treegym.envs.snapshot(env)``.
"""
from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .core.env_entry import EnvEntry, ServerEntry
from .registration import (ENVS, ensure_registered, entries, env_class, env_ids, register_all, resolve, server,
                           servers)

register_all()

__all__ = list(_core_all) + ["ENVS", "EnvEntry", "ServerEntry", "ensure_registered", "entries", "env_class",
                             "env_ids", "register_all", "resolve", "server", "servers"]
