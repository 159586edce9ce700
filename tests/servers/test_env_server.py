"""``treegym serve <env-id>``: one session server for every registered family, started for real on
127.0.0.1; a client env plays a few steps through it and sees what the in-process env sees, and a
snapshot taken over HTTP restores to the same observation."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs.core import EngineEnv, ForkClientEnv
from treegym.envs.examples.number_walk import NumberWalkEnv
from treegym.servers.env_server import ForkEngine, create_env_app, session_engines
from treegym.servers.run import serve_in_thread

TASKS = {  # a task each, and make-kwargs that keep the in-process env and the server alike
    "treegym/Game24-v0": (900, {}),
    "treegym/WebShop-v0": (0, {}),
    "treegym/ToolBench-v0": (None, {}),
    "treegym/RestBench-v0": (None, {}),
    "treegym/ToolTasks-v0": (None, {}),
    "treegym/BMoCA-v0": ("test_env_100/turn_on_airplane_mode", {}),
    "treegym/ALFWorld-v0": (None, {}),
    "treegym/TextWorld-v0": (None, {}),
}


class Listed(NumberWalkEnv):
    """docs/envs.md's NumberWalk with one listed task (what ForkEngine serves tasks by)."""

    @classmethod
    def default_task_pool(cls):
        return te.TaskPool({"all": (0,)})

    def reset(self, *, seed=None, options=None):
        return super().reset(seed=seed)


def _client(env_id: str, url: str) -> gym.Env:
    """What a user plays a served env with: gym.make(id, server_url=URL) for every family (an EngineEnv
    family's own remote mode, else a ForkClientEnv on the server's ForkEngine)."""
    env = gym.make(env_id, server_url=url)
    cls = te.env_class(env_id)
    assert isinstance(env.unwrapped, cls if issubclass(cls, EngineEnv) else ForkClientEnv)
    return env


def _actions(env: gym.Env, obs: dict) -> str:
    advice = env.unwrapped.expert()
    if advice is not None and advice.next_action is not None:
        return advice.next_action
    return obs["valid_actions"][0] if obs["valid_actions"] else "look"


@pytest.mark.parametrize("env_id", list(TASKS))
def test_a_served_env_plays_like_the_in_process_one(env_id):
    if env_id not in te.env_ids():
        pytest.skip(f"{env_id} is not registered here")
    try:
        te.env_class(env_id)
    except gym.error.DependencyNotInstalled as exc:
        pytest.skip(str(exc))
    task_id, kwargs = TASKS[env_id]
    local = gym.make(env_id, **kwargs)
    if task_id is None:
        task_id = local.unwrapped.split_task_ids(local.unwrapped.task_counts() and next(iter(local.unwrapped.task_counts())))[0]
    with serve_in_thread(create_env_app(env_id, kwargs, serve_expert=True)) as srv:
        remote = _client(env_id, srv.url)
        obs_l, info_l = local.reset(seed=0, options={"task_id": task_id})
        obs_r, info_r = remote.reset(seed=0, options={"task_id": task_id})
        assert obs_r["text"] == obs_l["text"] and tuple(obs_r["valid_actions"]) == tuple(obs_l["valid_actions"])
        assert info_r["success"] == info_l["success"] is False
        snap, at_snap, played = None, None, []
        for i in range(3):
            if i == 1:
                snap, at_snap = te.snapshot(remote), obs_r["text"]
            action = _actions(local, obs_l)
            played.append(action)
            obs_l, r_l, term_l, _, info_l = local.step(action)
            obs_r, r_r, term_r, _, info_r = remote.step(action)
            assert (obs_r["text"], r_r, term_r, info_r["success"]) == (obs_l["text"], r_l, term_l, info_l["success"]), \
                (env_id, i, action)
            if term_l:
                break
        # restore the HTTP snapshot (a different state from the current one) and replay: same again
        obs_back, _ = te.restore(remote, snap)
        assert obs_back["text"] == at_snap
        if len(played) > 1:
            assert remote.step(played[1])[0]["text"] == local_replay(env_id, kwargs, task_id, played[:2])
        remote.close()
    local.close()


def local_replay(env_id: str, kwargs: dict, task_id, actions: list[str]) -> str:
    env = gym.make(env_id, **kwargs)
    obs, _ = env.reset(seed=0, options={"task_id": task_id})
    for a in actions:
        obs = env.step(a)[0]
    env.close()
    return obs["text"]


def test_short_names_resolve_and_unknown_names_are_refused():
    assert te.resolve("game24") == "treegym/Game24-v0" and te.resolve("ALFWorld-v0") == "treegym/ALFWorld-v0"
    with pytest.raises(ValueError, match="unknown env 'nope'.*treegym/Game24-v0"):
        session_engines("nope")


def test_fork_engine_refuses_a_state_it_did_not_sign():
    engine = ForkEngine(Listed())
    state = engine.step(engine.initial_state(0, 0), "add 2").state
    data = engine.state_to_json(state)
    assert engine.observe(engine.state_from_json(data))[1]["position"] == 2
    forged = dict(data, mac="0" * 64)
    with pytest.raises(ValueError, match="not made by this server"):
        engine.state_from_json(forged)
    with pytest.raises(ValueError, match="not made by this server"):
        ForkEngine(Listed()).state_from_json(data)  # another server process has another key


def test_the_cli_refuses_an_unknown_env(capsys):
    from treegym.scripts.cli import main

    assert main(["serve", "nope", "--port", "0"]) == 2
    assert "neither a registered env" in capsys.readouterr().err


def test_a_forged_game24_state_is_refused_and_the_session_kept():
    import json
    import urllib.error
    import urllib.request

    def call(url: str, body: dict) -> tuple[int, dict]:
        req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    with serve_in_thread(create_env_app("game24")) as srv:
        status, made = call(f"{srv.url}/api/sessions", {"task_id": 900})
        sid = made["session_id"]
        status, snap = call(f"{srv.url}/api/sessions/{sid}/snapshot", {})
        forged = dict(snap["state"], done=True, won=True)  # 4 numbers left, yet "won"
        status, answer = call(f"{srv.url}/api/sessions/{sid}/restore", {"state": forged})
        assert status == 400 and "won is true only" in answer["error"]
        status, answer = call(f"{srv.url}/api/sessions/{sid}/restore", {"state": dict(snap["state"], left=["1/0"])})
        assert status == 400 and "left" in answer["error"]
        status, answer = call(f"{srv.url}/api/sessions/{sid}/restore", {"state": snap["state"]})
        assert status == 200 and answer["observation"]["text"] == made["observation"]["text"]


def test_envs_with_external_snapshots_are_not_served():
    class OnADevice(Listed):
        snapshot_kind = "external"

    with pytest.raises(ValueError, match="external snapshots"):
        ForkEngine(OnADevice())


def test_a_generic_client_plays_the_servers_default_split():
    with serve_in_thread(create_env_app("game24")) as srv:
        remote = EngineEnv(None, server_url=srv.url)
        assert remote.reset(seed=0)[1]["task_id"] == 900  # the test split, as in-process
        assert remote.reset(options={"split": "train"}, seed=0)[1]["task_id"] == 0
        remote.close()


def test_treegym_serve_runs_an_env_server_from_the_command_line(tmp_path):
    import json
    import os
    import signal
    import subprocess
    import urllib.request

    csv = tmp_path / "mine.csv"
    csv.write_text("Rank,Puzzles\n1,4 9 10 13\n2,1 3 4 6\n", encoding="utf-8")
    proc = subprocess.Popen([os.path.join(os.path.dirname(__import__("sys").executable), "treegym"), "serve",
                             "game24", "--port", "0", "--quiet", "--env-opt", f"data_path={csv}", "--env-opt", "split=all"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline()
        assert "treegym/Game24-v0 sessions at http://127.0.0.1:" in banner, (banner, proc.stderr.read())
        url = banner.split(" sessions at ")[1].split("/api/")[0]
        with urllib.request.urlopen(f"{url}/api/tasks") as r:
            assert json.loads(r.read())["splits"]["all"] == [0, 1]  # the user's own two puzzles
        remote = EngineEnv(None, server_url=url)  # plays the server's split=all by default
        assert remote.reset(seed=1)[0]["instruction"].endswith("Input: 1 3 4 6")
        remote.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait()
    assert proc.returncode == 0


def test_the_served_envs_own_step_limit_reaches_the_client_as_truncated():
    from treegym.servers.sessions import create_session_app

    local = Listed(max_steps=2)
    local.reset(seed=0)
    want = [local.step("add 1")[2:4] for _ in range(2)]
    with serve_in_thread(create_session_app(ForkEngine(Listed(max_steps=2)))) as srv:
        remote = EngineEnv(None, server_url=srv.url, max_steps=None)  # the served env's limit is the one
        remote.reset(seed=0)
        got = [remote.step("add 1")[2:4] for _ in range(2)]
        remote.close()
    assert got == want == [(False, False), (False, True)]


def test_game24s_solver_helpers_read_the_served_state():
    local = gym.make("treegym/Game24-v0").unwrapped
    local.reset(options={"task_id": 900})
    with serve_in_thread(create_env_app("game24")) as srv:
        remote = gym.make("treegym/Game24-v0", server_url=srv.url).unwrapped
        remote.reset(options={"task_id": 900})
        assert remote.numbers_left == local.numbers_left and remote.expert_plan() == local.expert_plan()
        remote.step(local.expert_action())
        local.step(local.expert_action())
        assert remote.expert_action() == local.expert_action() and len(remote.solutions()) == len(local.solutions())
        remote.close()


def test_alfworlds_helpers_read_the_served_state():
    local = gym.make("treegym/ALFWorld-v0").unwrapped
    local.reset(seed=0)
    with serve_in_thread(create_env_app("alfworld")) as srv:
        remote = gym.make("treegym/ALFWorld-v0", server_url=srv.url).unwrapped
        remote.reset(seed=0)
        assert remote.admissible() == local.admissible() and remote.task_fields() == local.task_fields()
        remote.close()
    with pytest.raises(ValueError, match="planner expert"):
        gym.make("treegym/ALFWorld-v0", server_url="http://127.0.0.1:9", expert="handcoded")


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_treegym_serve_stops_on_a_signal_even_when_started_with_sigint_ignored(sig):
    """A background job of a non-interactive shell starts with SIGINT ignored (inherited through
    exec); `treegym serve` must still stop on Ctrl-C / kill, or whoever waits for it hangs."""
    import os
    import signal
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "treegym")
    proc = subprocess.Popen([exe, "serve", "game24", "--port", "0", "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        banner = proc.stdout.readline()
        assert "sessions at http://127.0.0.1:" in banner, (banner, proc.stderr.read())
        proc.send_signal(getattr(signal, sig))
        try:
            proc.wait(timeout=60)  # a guard against hanging the suite, not a speed limit
        except subprocess.TimeoutExpired:
            pytest.fail(f"treegym serve ignored {sig}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, proc.stderr.read()
