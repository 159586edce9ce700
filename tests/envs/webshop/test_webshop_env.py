"""treegym/WebShop-v0: Gym API, rollback, tasks, step limit, and in-process vs HTTP-mode parity."""
from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import treegym.envs as te
from treegym.envs.webshop.env import WebShopEnv
from treegym.envs.core.engine_env import RemoteState, SessionServerError
from treegym.servers.webshop import create_app
from treegym.servers.run import serve_in_thread



@pytest.fixture(scope="module")
def site(catalog):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TREEGYM_SERVE_EXPERT", "1")  # the HTTP-mode envs play the gold path through /expert
        app = create_app(catalog)
    with serve_in_thread(app) as srv:
        yield srv


def make(catalog, **kw):
    kw.setdefault("split", "all")
    return gym.make("treegym/WebShop-v0", catalog=catalog.root, **kw)


def test_registered_and_passes_check_rollback_and_check_env(catalog):
    env = make(catalog)
    report = te.check_rollback(env, n_trajectories=5, seed=3)
    assert report.kind == "native" and report.check_env == "passed" and report.steps_checked > 0
    env.close()


def test_snapshot_payload_is_the_session_record(catalog):
    env = make(catalog)
    env.reset(seed=0)
    env.step(env.unwrapped.expert_action())
    snap = te.snapshot(env)
    assert snap.payload is env.unwrapped.session and snap.kind == "native"
    assert snap.payload.page == "results" and len(snap.payload.results) > 0
    env.close()


def test_oracle_episode_reward_info_and_termination(catalog):
    env = make(catalog, task_ids=[0])
    obs, info = env.reset(seed=0)
    assert obs["instruction"] == " ".join(catalog.goal(0).instruction_text.split())
    assert obs["instruction"] in obs["text"]
    assert info["page"] == "search" and info["available_actions"]["has_search_bar"]
    total, done = 0.0, False
    while not done:
        obs, r, term, trunc, info = env.step(env.unwrapped.expert_action())
        total += r
        done = term or trunc
    assert term and not trunc and info["page"] == "done"
    parts = info["reward_parts"]
    assert total == pytest.approx(parts["r_type"] * ((parts["r_att"] or 0) * parts["w_att"] + (parts["r_option"] or 0)
                                                     * parts["w_option"] + parts["r_price"] * parts["w_price"]))
    assert total > 0
    assert set(info["reward_parts"]) >= {"r_type", "r_att", "r_option", "r_price", "title_score"}
    assert info["success"] == (total == 1.0) and info["purchased_asin"] == catalog.goal(0).asin
    assert env.unwrapped.expert_action() is None
    env.close()


def test_step_limit_truncates(catalog):
    env = make(catalog, max_steps=3)
    env.reset(seed=0)
    results = [env.step("click[nothing]") for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True] and not any(r[2] for r in results)
    assert "nothing called 'nothing'" in results[0][0]["text"]
    env.close()


def test_task_choice(catalog):
    env = WebShopEnv(catalog=catalog, split="test")
    n = len(catalog.split("test"))
    assert env.reset(seed=1)[1]["task_id"] == list(catalog.split("test"))[1 % n]
    assert env.reset()[1]["task_id"] == list(catalog.split("test"))[2 % n]
    assert env.reset(options={"task_id": 7})[1]["task_id"] == 7
    assert env.task.task_id == 7 and env.task.spec.goal_index == 7
    env2 = WebShopEnv(catalog=catalog, task_ids=[5, 9])
    assert [env2.reset(seed=s)[1]["task_id"] for s in range(3)] == [5, 9, 5]
    for bad in ({"task_ids": [10**6]}, {"task_ids": "12"}, {"task_ids": []}, {"split": "nope"},
                {"max_steps": 0}, {"observation_mode": "pixels"}):
        with pytest.raises((ValueError, KeyError)):
            WebShopEnv(catalog=catalog, **bad)


@pytest.mark.parametrize("mode", ["text_rich", "html"])
def test_other_observation_modes(catalog, mode):
    env = WebShopEnv(catalog=catalog, observation_mode=mode, split="all")
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(env.expert_action())
    if mode == "text_rich":
        assert "[button] Back to Search [button_]" in obs["text"].splitlines()
    else:
        assert obs["text"].startswith("<!DOCTYPE html>") and 'class="product-link"' in obs["text"]


def _same_info(a: dict, b: dict) -> bool:
    return json.loads(json.dumps(a)) == json.loads(json.dumps(b))


@pytest.mark.parametrize("mode", ["text", "text_rich"])
def test_http_mode_gives_identical_observations_and_rewards(catalog, site, mode):
    local = WebShopEnv(catalog=catalog, split="all", observation_mode=mode)
    remote = WebShopEnv(catalog=catalog, split="all", observation_mode=mode, server_url=site.url)
    rng = np.random.default_rng(7)
    steps = 0
    for episode in range(4):
        a_obs, a_info = local.reset(seed=episode)
        b_obs, b_info = remote.reset(seed=episode)
        assert a_obs == b_obs and _same_info(a_info, b_info)
        for _ in range(12):
            valid = a_obs["valid_actions"]
            roll = rng.random()
            if roll < 0.55:
                action = local.expert_action()
            elif roll < 0.9:
                action = valid[int(rng.integers(len(valid)))]
            else:
                action = "click[no such button]"
            assert remote.expert_action() == local.expert_action()
            a, b = local.step(action), remote.step(action)
            steps += 1
            assert a[0] == b[0], f"observations differ after {action!r}"
            assert a[1:4] == b[1:4] and _same_info(a[4], b[4])
            a_obs = a[0]
            if a[2] or a[3]:
                break
    assert steps > 20
    remote.close()


def test_http_mode_passes_check_rollback(catalog, site):
    env = make(catalog, server_url=site.url)
    report = te.check_rollback(env, n_trajectories=3, seed=1)
    assert report.kind == "native" and report.restores == 9 and report.check_env == "passed"
    env.close()


def test_http_snapshot_restores_on_the_site(catalog, site):
    env = make(catalog, server_url=site.url)
    env.reset(seed=0)
    env.step(env.unwrapped.expert_action())
    snap = te.snapshot(env)
    assert isinstance(snap.payload, RemoteState) and json.loads(snap.payload.json)["page"] == "results"
    before = env.unwrapped._observe()[0]
    env.step("click[Back to Search]")
    obs, _ = te.restore(env, snap)
    assert obs == before
    twin = te.clone(env)  # a second session on the site, same state
    assert twin.unwrapped.runner.client.session_id != env.unwrapped.runner.client.session_id
    assert twin.unwrapped._observe()[0] == before
    twin.close()
    env.close()


def test_http_mode_without_a_site_says_how_to_start_one(catalog):
    env = WebShopEnv(catalog=catalog, server_url="http://127.0.0.1:9")
    with pytest.raises(SessionServerError, match="treegym serve webshop"):
        env.reset(seed=0)
    with pytest.raises(ValueError, match="http"):
        WebShopEnv(catalog=catalog, server_url="localhost:3000")


# ---------------------------------------------------------------------------- agents on WebShop
ENV_ID = "treegym/WebShop-v0"


def play(env, policy, seed):
    obs, info = env.reset(seed=seed)
    policy.reset()
    policy.bind(env)
    total, actions = 0.0, []
    for _ in range(15):
        action = policy.act(obs, info)
        actions.append(action)
        obs, r, term, trunc, info = env.step(action)
        total += r
        if term or trunc:
            break
    return total, actions, info


def test_rule_baseline_searches_the_instruction_opens_the_first_result_and_buys(catalog):
    from treegym.agents.registry import make_agent

    env = make(catalog)
    total, actions, info = play(env, make_agent("rule", ENV_ID, seed=0), seed=2)
    instruction = " ".join(catalog.goal(list(catalog.split("all"))[2]).instruction_text.split()).lower()
    assert actions[0] == f"search[{instruction}]"
    first = env.unwrapped.session.results[0]
    assert actions[1:] == [f"click[{first}]", "click[Buy Now]"] and info["purchased_asin"] == first
    env.close()


def test_rule_and_gold_are_webshop_only_with_a_clear_error():
    from treegym.agents.registry import make_agent

    for name in ("rule", "gold"):
        with pytest.raises(ValueError, match="only plays treegym/WebShop-v0"):
            make_agent(name, "treegym/Game24-v0")


@pytest.mark.parametrize("agent", ["gold", "oracle"])
def test_gold_path_agents_score_like_the_expert(catalog, agent):
    from treegym.agents.registry import make_agent

    env = make(catalog)
    total, actions, info = play(env, make_agent(agent, ENV_ID, seed=0), seed=0)
    assert info["page"] == "done" and info["purchased_asin"] == catalog.goal(0).asin
    assert actions[0].startswith("search[") and actions[-1] == "click[Buy Now]"
    env.close()


def test_react_on_the_scripted_llm_follows_the_gold_path(catalog, site):
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.registry import make_agent

    for server_url in (None, site.url):
        env = make(catalog, server_url=server_url)
        gold = [a for a in play(env, make_agent("gold", ENV_ID), seed=1)[1]]
        total, actions, _ = play(env, make_agent("react", ENV_ID, make_llm("scripted", env_id=ENV_ID)), seed=1)
        assert actions == gold
        env.close()


def test_prompt_parsers_are_tolerant(catalog):
    from treegym.agents.prompts import get_prompts

    env = WebShopEnv(catalog=catalog, split="all")
    env.reset(seed=0)
    ad = get_prompts(ENV_ID).bind(env)  # the env's search template and canonical actions
    obs = {"valid_actions": ("click[Back to Search]", "click[< Prev]", "click[Buy Now]", "click[pink]")}
    assert ad.parse_action("Thought: ok\nAction: Click [Buy Now]", obs) == "click[Buy Now]"
    assert ad.parse_action("I will search[red shoes] now", obs) == "search[red shoes]"
    assert ad.parse_action("Action: `pink`", obs) == "click[pink]"
    assert ad.parse_action("", obs) == ""
    assert ad.parse_proposals("1. click[pink]\n- search[x y]\nnonsense\nclick[pink]", obs) == ["click[pink]", "search[x y]"]
    assert [ad.parse_comparison(t) for t in ("Answer: B", "answer: a", "A", "B.", "Answer: tie", "??")] == \
        [0.0, 1.0, 1.0, 0.0, 0.5, 0.5]


def test_the_oracle_judges_from_the_env_state(catalog):
    """The scripted LLM's truth comes from the env (its gold path), whatever the prompt says."""
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.prompts import Step, get_prompts
    from treegym.agents.search.config import SearchConfig
    from treegym.agents.search.tree import SearchTree

    env = WebShopEnv(catalog=catalog, split="all")
    obs, info = env.reset(options={"task_id": 0})
    hooks = SearchConfig(env, get_prompts(ENV_ID), make_llm("scripted", env_id=ENV_ID))
    root = hooks.make_root(obs, info)
    hooks.tree = SearchTree(root, env_id=ENV_ID)
    gold, node = [], root
    while not node.terminal:
        action = env.expert_action()
        gold.append(action)
        node = hooks.expand(node, action)
    good = node
    goal = catalog.goal(0)
    wrong = next(x for x in catalog.search(catalog.product(goal.asin).name) if x != goal.asin)
    bad = root
    for action in (gold[0], f"click[{wrong}]", "click[Buy Now]"):
        bad = hooks.expand(bad, action)
    assert good.success and bad.terminal and not bad.success
    assert hooks.compare(good, bad) == 1.0 and hooks.compare(bad, good) == 0.0
    assert hooks.value(good.parent) == 1.0
    assert hooks.propose(root.children[0], 2)[0] == gold[1]
    assert hooks.propose(root, 1) == [gold[0]]  # a free-text search: the template admits it
    assert hooks.imagine(root.children[0]) == gold[1:]
    assert hooks.compare([Step(a, "") for a in gold], [Step(gold[0], "")]) == 1.0  # trajectories replayed from the root


def test_huge_and_odd_actions_behave_the_same_in_both_modes(catalog, site):
    local = WebShopEnv(catalog=catalog, split="all")
    remote = WebShopEnv(catalog=catalog, split="all", server_url=site.url)
    actions = ["x" * 200_000, "click[" + "a" * 100_000 + "]", "search[" + "hair dryer " * 20_000 + "]",
               "click[Back to Search]", "search[\n  Hair\tDryer ]", None, 12345, "click[  next  > ]"]
    local.reset(seed=0)
    remote.reset(seed=0)
    for action in actions:
        a, b = local.step(action), remote.step(action)
        assert a[0] == b[0] and a[1:4] == b[1:4] and _same_info(a[4], b[4]), action if isinstance(action, int) else str(action)[:40]
    assert local.session.query == "hair dryer" and local.session.page_num == 2
    remote.close()


def test_search_hooks_keep_free_text_search_proposals():
    import gymnasium as gym

    from treegym.agents.prompts import get_prompts

    env = gym.make("treegym/WebShop-v0")
    obs, _ = env.reset(seed=0, options={"task_id": 0})
    prompts = get_prompts("treegym/WebShop-v0").bind(env)
    assert prompts.is_listed_or_templated("search[red lip gloss]", obs)
    assert not prompts.is_listed_or_templated("click[nothing]", obs)
    assert not prompts.is_listed_or_templated("search[]", obs)
    results, *_ = env.step("search[red lip gloss]")  # no search bar on a result page
    assert not prompts.is_listed_or_templated("search[red lip gloss]", results)
    env.close()
