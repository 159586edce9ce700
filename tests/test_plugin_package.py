"""An installed package outside the repo adds an env family, an algorithm, a prompt spec and an LLM
backend, one file each, through the four entry-point groups, with no edit to treegym; ``treegym run``
(a subprocess, as a user runs it) plays the plugin env with the plugin agent, the plugin LLM
(``--llm plugllm:ARG``) and the plugin prompt spec, and each is seen to be really used.

The package is written to a temp folder with its ``.dist-info`` (``METADATA`` and
``entry_points.txt``), exactly what ``pip install`` leaves behind, and put on ``PYTHONPATH``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ENV_FILE = '''
"""plugenv: a counter to bring to a target with "inc" / "dec" (the target is 2 + task id)."""
import gymnasium as gym
from treegym.envs import ExpertAdvice, ForkableEnv, action_space, text_observation_space


class CounterEnv(ForkableEnv):
    def __init__(self, max_steps: int = 8, render_mode=None):
        super().__init__(max_steps=max_steps, render_mode=render_mode)
        self.observation_space, self.action_space = text_observation_space(), action_space()
        self.at, self.target = 0, 2

    def _get_state(self):
        return (self.at, self.target)

    def _set_state(self, state):
        self.at, self.target = state

    def _observe(self):
        obs = {"text": f"You are at {self.at}.", "instruction": f"Reach {self.target}.",
               "valid_actions": ("inc", "dec")}
        return obs, {"success": self.at == self.target}

    def expert(self):
        gap = self.target - self.at
        return ExpertAdvice(("inc",) * gap if gap >= 0 else ("dec",) * -gap)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps, self.at = 0, 0
        self.target = 2 + int((options or {}).get("task_id") or 0)
        return self._observe()

    def step(self, action):
        self.at += {"inc": 1, "dec": -1}.get(str(action).strip(), 0)
        truncated = self._count_step()
        obs, info = self._observe()
        return obs, float(info["success"]), info["success"], truncated and not info["success"], info


def register():
    if "plug/Counter-v0" not in gym.registry:
        gym.register("plug/Counter-v0", entry_point=CounterEnv)
'''

AGENT_FILE = '''
"""plugagent: "plug-greedy", an algorithm that expands the first proposed action until the episode ends."""
from treegym.agents.search import SearchAlgorithm, register_algorithm


@register_algorithm("plug-greedy", help="greedy: expand the first proposal (a plugin)")
class Greedy(SearchAlgorithm):
    name = "plug-greedy"

    def _fresh(self):
        self.end = None

    def search(self, root, hooks):
        node = self.end = root
        while not node.terminal and node.depth < 10:
            actions = hooks.propose(node, 1)
            if not actions:
                return
            node = self.end = hooks.expand(node, actions[0])

    def choose(self, tree):
        return max(tree.nodes, key=lambda n: (n.terminal, n.depth))

    def stats(self):
        return {"plug_greedy_depth": self.end.depth if self.end else None}
'''

PROMPTS_FILE = '''
"""plugprompts: the prompt spec of plug/Counter-v0; its system prompt carries the marker COUNTER-SPEC."""
from treegym.agents import PromptSpec, register_spec


@register_spec("plug/Counter-v0")
class CounterPrompts(PromptSpec):
    task = "COUNTER-SPEC: bring the counter to the target, one inc or dec at a time."
'''

LLM_FILE = '''
"""plugllm: a rule-following "model" that reads the prompt (only the COUNTER-SPEC format)."""
import re

from treegym.agents import LLMInfo, Usage, register_llm_backend


class CounterLLM:
    info = LLMInfo(price=(1.0, 2.0))

    def __init__(self, arg):
        self.name, self.usage = f"plugllm({arg})", Usage()

    def complete(self, request):
        self.usage.add(calls=1, prompt_tokens=10, completion_tokens=1)
        text = "\\n".join(str(m["content"]) for m in request.messages)
        at, target = re.search(r"You are at (-?\\d+)", text), re.search(r"Reach (-?\\d+)", text)
        if "COUNTER-SPEC" not in text or not at or not target:
            return ["I cannot read this prompt."] * request.n
        return ["inc" if int(at.group(1)) < int(target.group(1)) else "dec"] * request.n


register_llm_backend("plugllm", lambda arg, env_id=None, **kw: CounterLLM(arg))
'''

ENTRY_POINTS = """\
[treegym.envs]
counter = plugenv:register

[treegym.agents]
greedy = plugagent

[treegym.prompts]
counter = plugprompts

[treegym.llms]
plugllm = plugllm
"""


def _install(site: Path) -> None:
    """The package as pip leaves it: four modules and a dist-info naming their entry points."""
    for name, text in (("plugenv", ENV_FILE), ("plugagent", AGENT_FILE), ("plugprompts", PROMPTS_FILE),
                       ("plugllm", LLM_FILE)):
        (site / f"{name}.py").write_text(textwrap.dedent(text).lstrip())
    dist = site / "treegym_counter_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: treegym-counter-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)


def _treegym(*args: str, site: Path, cwd: Path) -> subprocess.CompletedProcess:
    code = "import sys; from treegym.scripts.cli import main; sys.exit(main())"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH"))))}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, env=env)


def test_a_plugin_package_adds_env_algorithm_prompt_spec_and_llm_backend(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    done = _treegym("run", "plug/Counter-v0", "--agent", "plug-greedy", "--llm", "plugllm:v1", "--tasks", "0,1",
                    "--out", "runs.jsonl", "--no-progress", "--no-preflight", site=site, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert [r["task_id"] for r in records] == [0, 1]
    for r in records:
        target = 2 + r["task_id"]
        # the plugin env (its target) and the plugin LLM's answers, readable only in the plugin spec's prompt
        assert r["env_id"] == "plug/Counter-v0" and r["success"] is True and r["actions"] == ["inc"] * target
        assert r["agent"] == "plug-greedy" and r["agent_stats"]["plug_greedy_depth"] == target  # the plugin agent
        assert r["llm"] == "plugllm(v1)" and r["llm_calls"] >= target  # the plugin backend, by its prefix
        assert r["llm_info"]["price"] == [1.0, 2.0]  # what the plugin LLM declared, carried to the report


def test_without_the_plugin_spec_the_plugin_llm_cannot_read_the_prompt(tmp_path):
    """The control for the test above: the same run with the prompt-spec entry point left out fails,
    so the plugin spec was really what the LLM read."""
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    entry_points = site / "treegym_counter_plugin-0.1.dist-info" / "entry_points.txt"
    entry_points.write_text(ENTRY_POINTS.replace("[treegym.prompts]\ncounter = plugprompts\n", ""))
    done = _treegym("run", "plug/Counter-v0", "--agent", "plug-greedy", "--llm", "plugllm:v1", "--tasks", "0",
                    "--out", "runs.jsonl", "--no-progress", "--no-preflight", site=site, cwd=tmp_path)
    records = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert records and not any(r["success"] for r in records), done.stderr


def test_an_unknown_llm_prefix_names_the_known_ones_including_plugins(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    done = _treegym("run", "plug/Counter-v0", "--agent", "plug-greedy", "--llm", "nosuch:x", "--tasks", "0",
                    "--out", "runs.jsonl", "--no-progress", site=site, cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown LLM spec 'nosuch:x'" in done.stderr and "plugllm" in done.stderr
