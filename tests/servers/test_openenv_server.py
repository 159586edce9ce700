"""The OpenEnv-compatible server, played by openenv-core's own client (GenericEnvClient) over its WebSocket
session and by plain HTTP: a WebShop episode, fork tokens, every env id, and refused input."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs.registration import env_ids

pytest.importorskip("flask_sock", reason="the OpenEnv server needs flask-sock: pip install 'treegym[openenv]'")
openenv_core = pytest.importorskip("openenv.core", reason="openenv-core's client: pip install 'treegym[openenv-client]'")

from treegym.servers.openenv import create_openenv_app  # noqa: E402
from treegym.servers.run import serve_in_thread  # noqa: E402


def call(url: str, method: str = "GET", body=None, headers=None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def webshop():
    with serve_in_thread(create_openenv_app("treegym/WebShop-v0", max_sessions=4)) as srv:
        yield srv


def client(srv):
    return openenv_core.GenericEnvClient(base_url=srv.url).sync()


def test_openenv_client_plays_a_webshop_episode_like_in_process(webshop):
    local = gym.make("treegym/WebShop-v0")
    obs, info = local.reset(seed=0, options={"task_id": 3})
    with client(webshop) as env:
        result = env.reset(task_id=3, seed=0)
        assert result.observation["text"] == obs["text"] and result.observation["instruction"] == obs["instruction"]
        assert result.done is False and result.observation["metadata"]["treegym"]["task_id"] == 3
        plan = list(local.unwrapped.expert().plan)
        assert len(plan) >= 3
        for action in plan:
            obs, reward, terminated, truncated, info = local.step(action)
            result = env.step({"action": action})
            assert result.observation["text"] == obs["text"]
            assert list(result.observation["valid_actions"]) == list(obs["valid_actions"])
            assert result.reward == pytest.approx(reward) and result.done == (terminated or truncated)
        assert result.done and result.reward > 0.5 and result.observation["info"]["success"] is info["success"]
        state = env.state()
        assert state["step_count"] == len(plan) and state["done"] is True and state["env_id"] == "treegym/WebShop-v0"


def test_fork_tokens_start_sessions_in_one_state_and_leave_the_source_alone(webshop):
    with client(webshop) as a, client(webshop) as b, client(webshop) as c:
        first = a.reset(task_id=5, seed=1)
        query = first.observation["instruction"].split(":")[-1].strip()[:40]
        forked = a.step({"action": f"search[{query}]", "metadata": {"treegym": {"fork": True}}})
        token = forked.observation["metadata"]["treegym"]["fork"]
        assert isinstance(token, str) and forked.observation["metadata"]["treegym"]["step"] == 1
        got_b = b.reset(restore=token)
        got_c = c.reset(metadata={"treegym": {"restore": token}})
        assert got_b.observation["text"] == got_c.observation["text"] == forked.observation["text"]
        assert b.state()["step_count"] == 1
        b.step({"action": "click[Back to Search]"})
        links = [v for v in forked.observation["valid_actions"] if v.startswith("click[") and "Next" not in v
                 and "Back" not in v]
        c.step({"action": links[0]})
        # the source session never moved
        assert a.state()["step_count"] == 1
        again = a.step({"action": "click[Back to Search]"})
        assert again.observation["metadata"]["treegym"]["step"] == 2 and a.state()["step_count"] == 2


def test_http_routes_follow_openenv_and_chain_by_fork_token(webshop):
    assert call(f"{webshop.url}/health")[1]["status"] == "healthy"
    schema = call(f"{webshop.url}/schema")[1]
    assert set(schema) == {"action", "observation", "state"} and schema["action"]["required"] == ["action"]
    assert call(f"{webshop.url}/metadata")[1]["name"] == "treegym/WebShop-v0"
    assert call(f"{webshop.url}/state")[1]["step_count"] == 0
    status, reset = call(f"{webshop.url}/reset", "POST", {"task_id": 3, "seed": 0})
    assert status == 200 and set(reset) == {"observation", "reward", "done"}
    token = reset["observation"]["metadata"]["treegym"]["fork"]
    local = gym.make("treegym/WebShop-v0")
    local.reset(seed=0, options={"task_id": 3})
    for action in local.unwrapped.expert().plan:
        obs, reward, *_ = local.step(action)
        status, out = call(f"{webshop.url}/step", "POST",
                           {"action": {"action": action, "metadata": {"treegym": {"restore": token}}}})
        assert status == 200 and out["observation"]["text"] == obs["text"] and out["reward"] == pytest.approx(reward)
        token = out["observation"]["metadata"]["treegym"]["fork"]
    assert out["done"] is True and out["reward"] > 0.5
    # stateless /step without a token, unknown tokens, bad bodies, foreign origins: one clear refusal each
    assert call(f"{webshop.url}/step", "POST", {"action": {"action": "search[x]"}})[0] == 400
    status, out = call(f"{webshop.url}/step", "POST",
                       {"action": {"action": "search[x]", "metadata": {"treegym": {"restore": "nope"}}}})
    assert status == 404 and "fork token" in out["detail"]
    assert call(f"{webshop.url}/reset", "POST", {"task": 3})[0] == 400
    assert call(f"{webshop.url}/reset", "POST", {"task_id": 10 ** 9})[0] == 400
    assert call(f"{webshop.url}/reset", "POST", {"seed": -1})[0] == 400
    assert call(f"{webshop.url}/health", headers={"Origin": "http://evil.example"})[0] == 403
    assert call(f"{webshop.url}/health", headers={"Origin": "null"})[0] == 403
    assert call(f"{webshop.url}/reset", "POST", {}, headers={"Host": "evil.example"})[0] == 403
    assert call(f"{webshop.url}/health", headers={"Origin": webshop.url})[0] == 200


def test_websocket_errors_are_messages_and_the_session_survives(webshop):
    with client(webshop) as env:
        with pytest.raises(RuntimeError, match="reset the env first"):
            env.step({"action": "search[x]"})
        with pytest.raises(RuntimeError, match="unknown action field"):
            env.step({"action": "search[x]", "bogus": 1})
        env.reset(task_id=1)
        out = env.step({"action": "this is not an action"})  # the env answers a malformed action
        assert out.done is False and out.observation["metadata"]["treegym"]["step"] == 1
        with pytest.raises(RuntimeError, match="fork must be true or false"):
            env.step({"action": "search[x]", "metadata": {"treegym": {"fork": "yes"}}})
        with pytest.raises(RuntimeError, match="either restore"):
            env.reset(restore="abc", task_id=2)
        assert env.state()["step_count"] == 1  # refused requests changed nothing


def test_session_cap_is_reported_as_capacity_reached():
    # its own server: no place held by another test's session; a connect() that returned holds its place, so
    # the client past the cap is the one refused (before, connect() returned before the place was claimed)
    with serve_in_thread(create_openenv_app("treegym/Game24-v0", max_sessions=2)) as srv:
        clients = [client(srv) for _ in range(2)]
        for c in clients:
            c.connect()
        try:
            with client(srv) as extra, pytest.raises(RuntimeError, match="CAPACITY_REACHED"):
                extra.reset()
            assert all(c.reset().observation["text"] for c in clients)
        finally:
            for c in clients:
                c.close()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", [e for e in env_ids() if e != "treegym/WebShop-v0"])
def test_every_env_plays_its_expert_step_over_openenv(env_id):
    try:
        app = create_openenv_app(env_id)
    except (gym.error.DependencyNotInstalled, ImportError) as exc:
        pytest.skip(str(exc))
    local = gym.make(env_id)
    obs, info = local.reset(seed=0)
    task_id = info.get("task_id")
    with serve_in_thread(app) as srv, client(srv) as env:
        first = env.reset(seed=0, task_id=task_id) if task_id is not None else env.reset(seed=0)
        assert first.observation["text"] == obs["text"]
        advice = local.unwrapped.expert()
        action = advice.next_action if advice is not None and advice.next_action else "look"
        obs, reward, *_ = local.step(action)
        out = env.step({"action": action, "metadata": {"treegym": {"fork": True}}})
        assert out.observation["text"] == obs["text"] and out.reward == pytest.approx(reward)
        snap_text = te.restore(local, te.snapshot(local))[0]["text"]
        assert env.reset(restore=out.observation["metadata"]["treegym"]["fork"]).observation["text"] == snap_text


def test_serve_openenv_refuses_an_unknown_env_or_port_in_one_line(capsys):
    from treegym.scripts.cli import main

    assert main(["serve", "openenv", "--env", "treegym/Nope-v0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "cannot serve 'treegym/Nope-v0'" in err and err.count("\n") == 1
    assert main(["serve", "openenv", "--port", "70000"]) == 2
    assert "--port must be in 0..65535" in capsys.readouterr().err
