"""The verifiers adapter against the real verifiers package (skipped without it): the env verifiers builds from
our config, its tasks, and a WebShop episode played the way verifiers' openenv taskset plays one (its own
action parser, OpenEnv's client, our server)."""
from __future__ import annotations

import asyncio

import gymnasium as gym
import pytest

pytest.importorskip("verifiers.v1", reason="verifiers >= 0.4 is not a treegym extra: pip install verifiers")
pytest.importorskip("flask_sock", reason="the OpenEnv server needs flask-sock: pip install 'treegym[openenv]'")
pytest.importorskip("openenv", reason="openenv-core's client: pip install 'treegym[openenv-client]'")

from treegym.agents.training.adapters.verifiers import load_environment, task_resets, verifiers_config  # noqa: E402
from treegym.servers.openenv import create_openenv_app  # noqa: E402
from treegym.servers.run import serve_in_thread  # noqa: E402

ENV = "treegym/WebShop-v0"


@pytest.mark.slow
def test_verifiers_builds_an_openenv_env_over_our_server_and_plays_webshop():
    from openenv import GenericEnvClient
    from verifiers.v1.tasksets.openenv.taskset import OpenEnvEnv, parse_action

    assert task_resets(ENV, task_ids=[3, 4]) == [{"task_id": 3, "seed": 0}, {"task_id": 4, "seed": 0}]
    with serve_in_thread(create_openenv_app(ENV)) as srv:
        env = load_environment(srv.url, ENV, split="test", limit=3)
        assert isinstance(env, OpenEnvEnv)
        tasks = list(env.taskset)
        assert [t.data.reset for t in tasks] == [{"task_id": i, "seed": 0} for i in range(3)]
        assert all(t.data.base_url == srv.url for t in tasks)
        assert verifiers_config(srv.url + "/", ENV, task_ids=[7])["taskset"]["base_url"] == srv.url

        local = gym.make(ENV)
        local.reset(seed=0, options={"task_id": 2})
        plan, total = list(local.unwrapped.expert().plan), 0.0
        for action in plan:
            total += local.step(action)[1]

        async def play() -> float:
            import httpx

            got = 0.0
            async with GenericEnvClient(base_url=tasks[2].data.base_url) as client, httpx.AsyncClient() as http:
                schema = (await http.get(f"{srv.url}/schema")).json()["action"]
                result = await client.reset(**tasks[2].data.reset)
                for reply in plan:  # a model answering with the expert's actions, as raw text
                    result = await client.step(parse_action(reply, schema))
                    got += result.reward or 0.0
                assert result.done
            return got

        assert asyncio.run(play()) == pytest.approx(total) and total > 0.5
