"""A verifiers environment (PrimeIntellect-ai/verifiers, ``verifiers.v1``) for any treegym env.

verifiers 0.4 plays OpenEnv servers with its built-in ``openenv`` taskset:
the model's reply becomes the action, the observation comes back as the next
user turn, and the rewards of the episode are summed (``openenv_reward``). So a
treegym env reaches verifiers through treegym's OpenEnv server
(``treegym serve openenv --env ID``, or ``treegym.servers.openenv`` in a thread), one
task per ``reset`` argument set::

    # treegym serve openenv --env treegym/WebShop-v0 --port 8000
    from treegym.agents.training.adapters.verifiers import load_environment
    env = load_environment("http://127.0.0.1:8000", env_id="treegym/WebShop-v0", split="test", limit=50)

``verifiers_config(...)`` is the same thing as a plain dict, for a verifiers
TOML/CLI config (``[env.taskset] id = "openenv"``, ``base_url``, ``resets``).
Our action schema has one required field (``action``), so verifiers sends the
model's raw reply as the action string, e.g. ``search[red shoes]``.

Needs ``pip install verifiers`` (not a treegym extra: verifiers 0.4 pins
``openai<3`` and pulls transformers, which would change the rest of the env).
"""
from __future__ import annotations

from typing import Any, Sequence
from treegym.envs.registration import env_class


def task_resets(env_id: str, split: str | None = "test", task_ids: Sequence[Any] | None = None,
                limit: int | None = None, seed: int | None = 0) -> list[dict[str, Any]]:
    """OpenEnv ``reset`` arguments, one per task: ``task_ids`` or the tasks of ``split`` (the first ``limit``)."""
    if task_ids is None:
        task_ids = list(env_class(env_id).split_task_ids(split))
    ids = list(task_ids)[:limit]
    return [{"task_id": t, **({"seed": seed} if seed is not None else {})} for t in ids]


def verifiers_config(base_url: str, env_id: str, *, split: str | None = "test", task_ids: Sequence[Any] | None = None,
                     limit: int | None = None, seed: int | None = 0) -> dict[str, Any]:
    """The verifiers env config (as a dict) that plays ``env_id`` on the OpenEnv server at ``base_url``."""
    return {"taskset": {"id": "openenv", "base_url": base_url.rstrip("/"),
                        "resets": task_resets(env_id, split, task_ids, limit, seed)}}


def load_environment(base_url: str, env_id: str = "treegym/WebShop-v0", *, split: str | None = "test",
                     task_ids: Sequence[Any] | None = None, limit: int | None = None, seed: int | None = 0) -> Any:
    """A ``verifiers.v1`` Env over treegym's OpenEnv server at ``base_url`` (which must serve ``env_id``)."""
    try:
        from verifiers.v1.tasksets.openenv.taskset import OpenEnvConfig, OpenEnvEnvConfig
        from verifiers.v1.utils.loaders import load_environment as vf_load_environment
    except ImportError as exc:
        raise ImportError(f"the verifiers adapter needs verifiers >= 0.4 (verifiers.v1): pip install verifiers "
                          f"({exc})") from None
    taskset = verifiers_config(base_url, env_id, split=split, task_ids=task_ids, limit=limit, seed=seed)["taskset"]
    return vf_load_environment(OpenEnvEnvConfig(taskset=OpenEnvConfig(**taskset)))
