"""Adding an env family touches only its own folder: a new package with an Engine, a small
EngineEnv and ENV_SPECS (plus SERVERS for a server of its own) in its __init__.py is found by
registration, listed, made with gym.make (tasks by split, seed and options), served by the generic
session server and played through it, its own server looked up by ``treegym serve``, and passes the
import-graph check; nothing central is edited (two files: __init__.py and env.py; a third for a site)."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs import registration
from treegym.scripts.dev import import_graph

FAMILY = {
    "__init__.py": '''
        """treegym/Countdown-v0: count a number down to zero."""
        from ..core.env_entry import EnvEntry, ServerEntry

        ENV_SPECS = (EnvEntry("treegym/Countdown-v0", "treegym.envs.countdown.env:CountdownEnv", name="countdown"),)
        SERVERS = (ServerEntry("countdown-board", "treegym.envs.countdown.board:create_app",
                               env_id="treegym/Countdown-v0", about="a scoreboard page", default_port=8765),)
        ''',
    "board.py": '''
        """A page a family offers beside its env (declared in SERVERS)."""


        def create_app(title="Countdown"):
            def app(environ, start_response):  # a WSGI app
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [title.encode()]
            return app
        ''',
    "env.py": '''
        """Count down: the engine (pure, immutable int states) and its Gym class."""
        from treegym.envs.core import EngineEnv, ExpertAdvice, StepResult


        class CountdownEngine:
            def splits(self):
                return ("test", "train")

            def task_ids(self, split):
                return (3, 4) if split == "test" else (5, 6, 7)

            def task(self, task_id):
                if task_id not in (3, 4, 5, 6, 7):
                    raise ValueError(f"unknown countdown task {task_id!r}")
                return task_id

            def initial_state(self, task, seed):
                return (task, "")

            def step(self, state, action):
                n, _ = state
                if action.strip() != "down":
                    return StepResult((n, f"Invalid action {action!r}: say down"), 0.0, False)
                return StepResult((n - 1, "down"), float(n == 1), n == 1)

            def is_terminal(self, state):
                return state[0] == 0

            def observe(self, state):
                text = f"{state[1]} at {state[0]}".strip()
                return ({"text": text, "instruction": "Reach 0.", "valid_actions": ("down",)},
                        {"success": state[0] == 0})

            def expert(self, state):
                return ExpertAdvice(("down",) * state[0], 1.0)

            def state_to_json(self, state):
                return list(state)

            def state_from_json(self, data):
                if not (isinstance(data, list) and len(data) == 2 and isinstance(data[0], int) and data[0] >= 0
                        and isinstance(data[1], str)):
                    raise ValueError("a countdown state is [n >= 0, message]")
                return (data[0], data[1])


        class CountdownEnv(EngineEnv):
            """Count a number down to zero."""

            def __init__(self, split=None, task_ids=None, max_steps=10, render_mode=None, server_url=None):
                super().__init__(CountdownEngine(), split=split, task_ids=task_ids, max_steps=max_steps,
                                 render_mode=render_mode, server_url=server_url)
        ''',
}


@pytest.fixture()
def countdown_family(tmp_path):
    """The family as a folder of its own, put on treegym.envs' search path (as a new folder in
    envs/ would be), then registered the way ``import treegym.envs`` registers every family."""
    folder = tmp_path / "countdown"
    folder.mkdir()
    for name, text in FAMILY.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    te.__path__.append(str(tmp_path))
    try:
        registration.register_all()
        yield folder
    finally:
        te.__path__.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("treegym.envs.countdown")]:
            del sys.modules[name]
        gym.registry.pop("treegym/Countdown-v0", None)
        registration.register_all()


def test_a_new_family_is_registered_listed_made_and_served_from_its_folder_alone(countdown_family, capsys):
    from treegym.scripts.cli import main
    from treegym.servers.env_server import create_env_app
    from treegym.servers.run import serve_in_thread

    assert "treegym/Countdown-v0" in te.env_ids() and te.resolve("countdown") == "treegym/Countdown-v0"
    assert main(["list"]) == 0
    assert any(line.startswith("treegym/Countdown-v0") and "test 2, train 3" in line
               for line in capsys.readouterr().out.splitlines())
    env = gym.make("treegym/Countdown-v0")
    assert env.reset(seed=1)[1]["task_id"] == 4  # the test split's task 1 % 2
    assert env.reset(options={"split": "train"})[1]["task_id"] == 5
    with serve_in_thread(create_env_app("countdown")) as srv:
        remote = gym.make("treegym/Countdown-v0", server_url=srv.url)
        obs, info = remote.reset(options={"task_id": 3})
        steps = [remote.step("down") for _ in range(3)]
        assert obs["text"] == "at 3" and steps[-1][1] == 1.0 and steps[-1][2] and steps[-1][4]["success"]
        remote.close()
    # the family's own server: looked up by treegym serve, shown by treegym list and serve --help
    site = te.server("countdown-board")
    assert site is not None and site.env_id == "treegym/Countdown-v0"
    assert main(["list"]) == 0
    assert any("countdown-board" in line and "a scoreboard page" in line for line in capsys.readouterr().out.splitlines())
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "countdown-board" in capsys.readouterr().out
    assert main(["serve", "countdown-board", "--opt", "colour=red", "--port", "0"]) == 2
    assert "countdown-board takes no option colour (its options: title)" in capsys.readouterr().err
    lines, clean = import_graph.report(["countdown"], countdown_family.parent)
    assert clean, lines
