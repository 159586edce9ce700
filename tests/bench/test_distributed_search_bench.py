"""The distributed-search bench's endpoint answers like a model that knows Game of 24: its proposals are
actions the env lists (so the bench grows real trees), and the same prompt gets the same answer."""
from __future__ import annotations

import gymnasium as gym

from treegym.scripts.bench.bench_distributed_search import ENV_ID, VALUES, reply


def test_the_endpoints_proposals_are_listed_actions_and_repeat() -> None:
    import treegym.envs  # noqa: F401
    from treegym.agents.prompts import get_prompts

    env = gym.make(ENV_ID)
    try:
        obs, _ = env.reset(seed=0)
        prompts = get_prompts(ENV_ID)
        prompts.bind(env)
        for _ in range(2):  # the root, then one step deeper
            messages = prompts.propose_messages(obs, [], 8, (), [])
            lines = reply(messages).splitlines()
            assert len(lines) == 8 and set(lines) <= set(obs["valid_actions"])
            assert reply(messages).splitlines() == lines
            obs, *_ = env.step(lines[0])
        value = prompts.value_messages(obs, [])
        assert reply(value) in VALUES and reply(value) == reply(value)
    finally:
        env.close()


def test_the_endpoint_answers_an_astar_request_with_distinct_listed_steps_on_every_run(monkeypatch) -> None:
    import treegym.envs  # noqa: F401
    from treegym.agents.prompts import get_prompts
    from treegym.scripts.bench import bench_distributed_search as bench

    monkeypatch.setenv(bench.SAMPLES_VARIABLE, "4")
    env = gym.make(ENV_ID)
    try:
        obs, _ = env.reset(seed=0)
        prompts = get_prompts(ENV_ID)
        prompts.bind(env)
        react = prompts.react_messages(obs, [])
        runs = [[prompts.parse_action(reply(react), obs) for _ in range(4)] for _ in range(2)]  # two requests of n=4
        assert runs[0] == runs[1] and len(set(runs[0])) == 4 and set(runs[0]) <= set(obs["valid_actions"])
        imagined = reply(prompts.imagine_messages(obs, []))
        assert imagined == "impossible" or set(prompts.parse_imagined(imagined, obs)) <= set(obs["valid_actions"])
    finally:
        env.close()
