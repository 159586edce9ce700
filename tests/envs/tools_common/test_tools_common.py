"""The tool families share machinery only through ``treegym.envs.tools_common`` (issue 22)."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import gymnasium as gym
import pytest

from fuzzing import deep_json

import treegym.envs as envs_pkg

ENVS = Path(envs_pkg.__file__).parent
FAMILIES = ("toolbench", "restbench", "tooltasks")


def _imports(path: Path) -> set[str]:
    """Absolute names of the treegym modules a file imports (top level and inside functions)."""
    parts = ["treegym", "envs"] + list(path.relative_to(ENVS).with_suffix("").parts)
    package = parts[:-1]   # the package a relative import starts from (for __init__.py too)
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            out.add(".".join(x for x in (base, node.module) if x))
    return {name for name in out if name.startswith("treegym.")}


def test_no_tool_family_imports_another_and_the_shared_package_imports_none():
    seen = 0
    for package in FAMILIES + ("tools_common",):
        for path in sorted((ENVS / package).rglob("*.py")):
            seen += 1
            for name in _imports(path):
                other = [f for f in FAMILIES if f != package and name.startswith(f"treegym.envs.{f}")]
                assert not other, f"{path.relative_to(ENVS)} imports {name}: share it through treegym.envs.tools_common"
    assert seen > 40   # every module of the four packages was read


def test_the_import_reader_sees_relative_and_function_level_imports():
    # the check above is only as good as its reader: it must resolve a family's relative imports
    names = _imports(ENVS / "restbench" / "restbench.py")
    assert "treegym.envs.restbench.plan_runner" in names and "treegym.envs.tools_common.world" in names
    assert "treegym.envs.toolbench.gold" in _imports(ENVS / "toolbench" / "engine.py")


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

@pytest.mark.parametrize("env_id", ["treegym/ToolBench-v0", "treegym/RestBench-v0", "treegym/ToolTasks-v0"])
def test_tool_envs_answer_deeply_nested_json_as_an_invalid_action(env_id):
    env = gym.make(env_id)
    env.reset(seed=0)
    for action in [deep_json(1_000), '{"name": "x", "arguments": ' + deep_json(1_000, "object") + "}",
                   {"name": "x", "arguments": json.loads(deep_json(200, "object"))}]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert reward == 0.0 and not terminated and obs["text"]
    env.close()
