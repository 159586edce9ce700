"""WebShop's side of the env-agent contract: expert(), task_fields(), action_templates(), canonical_action()."""
from __future__ import annotations

import pytest

from treegym.envs.core import ExpertAdvice
from treegym.envs.webshop.env import WebShopEnv


@pytest.fixture()
def env(catalog):
    e = WebShopEnv(catalog=catalog, split="all")
    yield e
    e.close()


def test_expert_plan_reaches_its_value_and_shrinks_step_by_step(env, catalog):
    for seed in range(5):
        env.reset(seed=seed)
        advice = env.expert()
        assert isinstance(advice, ExpertAdvice) and advice.solvable
        assert advice.plan[0].startswith("search[") and advice.plan[-1] == "click[Buy Now]"
        assert advice.next_action == env.expert_action()
        assert f"click[{catalog.goal(env.task.task_id).asin}]" in advice.plan
        total, plan = 0.0, list(advice.plan)
        while plan:
            _, r, term, trunc, info = env.step(plan.pop(0))
            total += r
            if plan:
                assert env.expert().plan == tuple(plan)  # the gold path from the new page is the rest
        assert term and not trunc and total == pytest.approx(advice.value) and info["success"] == (total == 1.0)
        done = env.expert()
        assert done.plan == () and done.value == pytest.approx(total)


def test_demonstrations_come_from_the_expert_of_any_task_without_moving_the_env(env, catalog):
    env.reset(seed=0)
    before = env.session
    train = env.split_task_ids("train", catalog)
    demo = env.task_expert(train[0])
    assert demo.plan[0].startswith("search[") and demo.plan[-1] == "click[Buy Now]" and demo.value == 1.0
    assert f"click[{catalog.goal(train[0]).asin}]" in demo.plan and env.session is before
    twin = WebShopEnv(catalog=catalog, split="train")
    twin.reset(options={"task_id": train[0]})
    assert twin.expert() == demo


def test_expert_recovers_from_a_wrong_turn_and_knows_the_step_limit(catalog):
    env = WebShopEnv(catalog=catalog, split="all", max_steps=15)
    env.reset(seed=0)
    env.step(env.expert_action())
    wrong = next(f"click[{asin}]" for asin in env.session.results if asin != catalog.goal(env.task.task_id).asin)
    env.step(wrong)
    advice = env.expert()
    assert advice.plan[0] == "click[< Prev]" and advice.value == 1.0
    for a in advice.plan:
        *_, info = env.step(a)
    assert info["success"]
    tight = WebShopEnv(catalog=catalog, split="all", max_steps=10)
    tight.reset(seed=0)
    need = len(tight.expert().plan)
    for _ in range(10 - need):
        tight.step("click[nothing]")
    assert tight.expert().solvable  # exactly enough steps left
    tight.step("click[nothing]")
    advice = tight.expert()
    assert len(advice.plan) == need and not advice.solvable and advice.value == 0.0
    assert tight.expert() is not None and WebShopEnv(catalog=catalog, split="all").expert() is None


def test_task_fields_say_what_the_instruction_asks_never_the_answer(env, catalog):
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        goal = catalog.goal(env.task.task_id)
        fields = env.task_fields()
        assert set(fields) == {"instruction", "attributes", "options", "price_upper"}
        assert fields["instruction"] == obs["instruction"]
        assert fields["attributes"] == list(goal.attributes)
        assert fields["price_upper"] == (None if goal.price_upper >= 1e6 else goal.price_upper)
        for option in fields["options"]:
            assert (option[1] if isinstance(option, list) else option) in obs["instruction"]
        text = repr(fields)
        assert goal.asin not in text and goal.name not in text
    assert WebShopEnv(catalog=catalog, split="all").task_fields() == {}


def test_action_templates_only_where_there_is_a_search_bar(env):
    env.reset(seed=0)
    assert env.action_templates() == ("search[<query>]",)
    env.step(env.expert_action())
    assert env.action_templates() == ()
    env.step("click[Back to Search]")
    assert env.action_templates() == ("search[<query>]",)


def test_canonical_action_is_the_engines_parser(env, catalog):
    assert env.canonical_action("  Click [ Buy   Now ] ") == "click[buy now]"
    assert env.canonical_action("SEARCH[Red\tShoes ]") == "search[red shoes]"
    for bad in ("buy it", "click[]", "search[   ]", "", "click Buy Now", "jump[x]"):
        assert env.canonical_action(bad) is None, bad
    # an action and its canonical form do the same thing
    twin = WebShopEnv(catalog=catalog, split="all")
    env.reset(seed=2)
    twin.reset(seed=2)
    for action in ("Search[  " + env.expert().plan[0][7:-1].upper() + " ]", "CLICK[next  >]", "click[< prev]",
                   "click[" + env.expert().plan[1][6:-1].lower() + "]", "click[DESCRIPTION]"):
        a, b = env.step(action), twin.step(env.canonical_action(action))
        assert a[0] == b[0] and a[1:4] == b[1:4], action
    twin.close()


def test_the_webshop_engine_is_an_engine(catalog):
    import json

    from treegym.envs.core import Engine, StepResult
    from treegym.envs.webshop.engine import WebShopEngine

    engine = WebShopEngine(catalog, "text_rich")
    assert isinstance(engine, Engine)
    assert engine.splits()[0] == "test" and engine.task_ids("dev") == tuple(catalog.split("dev"))
    for bad in (-1, len(catalog.goals), True, "3", None):
        with pytest.raises(ValueError, match="not a goal index"):
            engine.task(bad)
    s = engine.initial_state(engine.task(3), seed=None)
    result = engine.step(s, engine.expert(s).next_action)
    assert isinstance(result, StepResult) and not result.terminated and not engine.is_terminal(result.state)
    state, reward = result  # unpacks as the common pair
    assert reward == 0.0 and state.page == "results"
    assert engine.state_from_json(json.loads(json.dumps(engine.state_to_json(state)))) == state
    (o1, i1), (o2, i2) = engine.observe(state), engine.observe(state)
    assert o1 == o2 and i1 == i2 and o1 is not o2 and i1 is not i2 and i1["available_actions"] is not i2["available_actions"]
    assert "[button] Back to Search [button_]" in o1["text"].splitlines()
    for action in engine.expert(state).plan:
        result = engine.step(result.state, action)
    assert result.terminated and engine.is_terminal(result.state) and result.reward == engine.expert(state).value
    with pytest.raises(ValueError, match="observation_mode"):
        WebShopEngine(catalog, "pixels")
