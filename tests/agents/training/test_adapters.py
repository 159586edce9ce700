"""Trainer adapters: TRL environment_factory classes (by TRL's protocol; with transformers' schema builder when
installed), the fork-cached group starts they share, and the GEM env with spawn(same_state=True) under GEM's
own registry and wrappers."""
from __future__ import annotations

import inspect
import json

import gymnasium as gym
import pytest

from treegym.agents.training.adapters.episode import clear_start_cache
from treegym.agents.training.adapters.trl import (TOOL_ENVS, Game24ToolEnv, ToolBenchToolEnv, TreegymToolEnv, WebShopToolEnv,
                                         dataset_rows, tool_env_class)


def _make_or_skip(cls):
    try:
        return cls()
    except (gym.error.DependencyNotInstalled, ImportError) as exc:
        pytest.skip(str(exc))


def trl_tools(instance) -> list:
    """What TRL's GRPOTrainer takes as tools: public functions of the class other than reset / get_reward."""
    return [getattr(instance, name) for name, _ in inspect.getmembers(type(instance), predicate=inspect.isfunction)
            if name not in ("reset", "get_reward") and not name.startswith("_")]


@pytest.mark.parametrize("env_id", sorted(TOOL_ENVS))
def test_every_family_meets_trls_environment_factory_protocol(env_id):
    env = _make_or_skip(tool_env_class(env_id))
    members = dict(inspect.getmembers(type(env), predicate=inspect.isfunction))
    assert "reset" in members and "get_reward" in members
    tools = trl_tools(env)
    assert tools, f"{env_id} exposes no tools"
    for tool in tools:
        sig = inspect.signature(tool)
        doc = inspect.getdoc(tool) or ""
        assert sig.return_annotation in (str, "str"), tool.__name__
        assert "Args:" in doc and doc.split("\n")[0].strip(), tool.__name__
        for name, p in sig.parameters.items():
            assert p.annotation is not inspect.Parameter.empty, f"{tool.__name__}({name}) has no type hint"
            assert f"{name}:" in doc.split("Args:")[1], f"{tool.__name__}: Args lacks {name}"
    text = env.reset(task_id=type(env._episode.env.unwrapped).split_task_ids(
        _first_split(env))[0], prompt=[{"role": "user", "content": ""}])
    assert isinstance(text, str) and text.strip() and env.get_reward() == 0.0
    try:
        from transformers.utils import get_json_schema
    except ImportError:
        return  # the schema rules above are the ones transformers' get_json_schema enforces
    for tool in tools:
        schema = get_json_schema(tool)
        assert schema["function"]["name"] == tool.__name__


def _first_split(env: TreegymToolEnv) -> str:
    cls = type(env._episode.env.unwrapped)
    for split in ("test", "valid_unseen", "all", "train"):
        try:
            if list(cls.split_task_ids(split)):
                return split
        except (ValueError, KeyError, NotImplementedError):
            continue
    raise AssertionError("no split with tasks")


def _tool_call(env_id: str, action: str) -> tuple[str, dict]:
    """The family tool and arguments that play the env action ``action`` (inverse of the tool bodies)."""
    if env_id == "treegym/WebShop-v0":
        verb, arg = action.split("[", 1)
        return verb, {"query" if verb == "search" else "label": arg[:-1]}
    if env_id == "treegym/Game24-v0":
        return "calculate", {"step": action}
    call = json.loads(action)
    if call["name"] == "Finish":
        return "finish", {"final_answer": call["arguments"]["final_answer"]}
    return "call_function", {"name": call["name"], "arguments": json.dumps(call["arguments"])}


@pytest.mark.parametrize("cls,task", [(WebShopToolEnv, 3), (Game24ToolEnv, 900), (ToolBenchToolEnv, None)])
def test_tools_play_the_expert_plan_to_the_in_process_reward(cls, task):
    env = cls()
    local = gym.make(cls.env_id)
    if task is None:
        task = type(local.unwrapped).split_task_ids("test")[0]
    obs, _info = local.reset(seed=0, options={"task_id": task})
    plan, total = list(local.unwrapped.expert().plan), 0.0
    first = env.reset(task_id=task, seed=0)
    assert " ".join(obs["text"].split())[:50] in first
    for action in plan:
        _obs, reward, *_ = local.step(action)
        total += reward
        tool, kwargs = _tool_call(cls.env_id, action)
        answer = getattr(env, tool)(**kwargs)
        assert isinstance(answer, str) and answer
    assert env.get_reward() == pytest.approx(total) and total > 0.5 and env._episode.success
    assert "episode is over" in env._act("anything")  # a call after the end changes nothing
    assert env.get_reward() == pytest.approx(total)


def test_rows_of_one_group_start_from_one_fork():
    clear_start_cache()
    rows = dataset_rows("treegym/WebShop-v0", "test", limit=2, prefix=["search[red shoes]"])
    assert len(rows) == 2 and rows[0]["prompt"][0]["role"] == "system" and "search[" in rows[0]["prompt"][0]["content"]
    a, b = WebShopToolEnv(), WebShopToolEnv()
    text_a = a.reset(**rows[0])
    assert a._episode.forked_start is False and a._episode.steps == 1
    a.click("Back to Search")  # the first rollout moves on; the cached start must not
    text_b = b.reset(**rows[0])
    assert b._episode.forked_start is True and text_b == text_a and b._episode.steps == 1
    with pytest.raises(ValueError, match="prefix must be a list"):
        b.reset(task_id=1, prefix="search[x]")


def test_malformed_tool_arguments_get_the_envs_answer_not_an_exception():
    env = ToolBenchToolEnv()
    env.reset(task_id=type(env._episode.env.unwrapped).split_task_ids("test")[0])
    answer = env.call_function("no_such_function", "{not json")
    assert isinstance(answer, str) and answer and env.get_reward() == 0.0


@pytest.mark.slow
def test_gem_env_under_gems_registry_and_wrappers_and_spawn_same_state():
    gem = pytest.importorskip("gem", reason="GEM is an optional extra: pip install 'treegym[gem]'")
    from gem.wrappers.episode_tracking_wrapper import EpisodeTrackingWrapper

    from treegym.agents.training.adapters.gem import TreegymGemEnv, register_with_gem

    env = gem.make(register_with_gem("treegym/ALFWorld-v0", split="valid_unseen"))
    assert isinstance(env, gem.Env) and isinstance(env, TreegymGemEnv)
    tracked = EpisodeTrackingWrapper(env)
    obs, info = tracked.reset(seed=4)
    assert isinstance(obs, str) and "Instruction" in obs and info["step_counter"] == 0
    plan = list(env.episode.env.unwrapped.expert().plan)
    assert len(plan) > 3
    for action in plan[:2]:
        tracked.step(action)
    twin = env.spawn(same_state=True)
    fresh = env.spawn(same_state=False)
    outs = []
    for e in (env, twin):
        texts = [e.step(a)[0] for a in plan[2:]]
        outs.append((texts, e.episode.total_reward, e.episode.success))
    assert outs[0] == outs[1] and outs[0][2] is True and outs[0][1] == pytest.approx(1.0)
    assert fresh.episode.steps == 0 and fresh.episode.obs == {}
    obs2, _ = fresh.reset(seed=4)
    assert obs2 == obs  # the same seed picks the same task of the split
    with pytest.raises(TypeError, match="unknown option"):
        env.spawn(colour="red")
    # GEM's own vector env over the same registry entry: one env per seed, each on a task of the split
    vec = gem.make_vec(["treegym/ALFWorld-v0"] * 2, seed=4)
    texts, _infos = vec.reset()
    assert len(texts) == 2 and all("Instruction" in t for t in texts)
    out = vec.step(["look", "inventory"])
    assert len(out[0]) == 2 and all(isinstance(t, str) and t for t in out[0])
