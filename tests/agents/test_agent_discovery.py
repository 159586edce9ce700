"""Agents are discovered, not listed: every module of ``treegym.agents.search`` / ``baselines`` and every
``treegym.agents`` entry point registers its agents on the first lookup, and ``treegym list`` shows them."""
from __future__ import annotations

import argparse
import importlib
import sys
import textwrap

import pytest

from treegym.agents import registry

PLUGIN = textwrap.dedent('''
    """A third-party package's agents."""
    from treegym.agents.registry import register_agent


    class Always:
        def __init__(self, action):
            self.action = action
        def reset(self):
            pass
        def act(self, observation, info):
            return self.action


    @register_agent("plugin-always", needs_llm=False, help="plays one fixed action (a test plugin)")
    def make(env_id, llm=None, action="look", **options):
        return Always(action)
''')


@pytest.fixture
def plugin_installed(tmp_path, monkeypatch):
    """A package ``tg_agent_plugin`` with a ``treegym.agents`` entry point, importable from ``tmp_path``,
    and a registry that has not looked yet."""
    (tmp_path / "tg_agent_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "tg_agent_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tg-agent-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[treegym.agents]\nalways = tg_agent_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.setattr(registry._DISCOVERY, "loaded", False)
    monkeypatch.setattr(registry, "_AGENTS", dict(registry._AGENTS))
    yield
    sys.modules.pop("tg_agent_plugin", None)


def test_every_search_and_baseline_module_registers_without_a_list():
    names = registry.agent_names()
    for name in ("bfs", "dfs", "dfsdt", "mcts", "lats", "elo", "astar", "react", "cot@K", "autogpt", "rule"):
        assert name in names
    assert not hasattr(registry, "_AGENT_MODULES")


def test_an_entry_point_agent_is_made_and_listed(plugin_installed, capsys):
    assert "plugin-always" in registry.agent_names()
    agent = registry.make_agent("plugin-always", "treegym/Game24-v0", action="1 + 2 = 3")
    assert agent.act({}, {}) == "1 + 2 = 3"

    from treegym.scripts import cmd_list

    cmd_list.run(argparse.Namespace())
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("plugin-always"))
    assert "plays one fixed action (a test plugin)" in line
    assert any(ln.startswith("mcts ") and "MCTS" in ln for ln in out.splitlines())
    assert any(ln.startswith("cot@K ") for ln in out.splitlines())


def test_a_broken_entry_point_is_named(tmp_path, monkeypatch):
    dist = tmp_path / "tg_broken-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tg-broken\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[treegym.agents]\nbroken = tg_no_such_module_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.setattr(registry._DISCOVERY, "loaded", False)
    monkeypatch.setattr(registry, "_AGENTS", dict(registry._AGENTS))
    with pytest.raises(ImportError, match="treegym.agents entry point 'broken'"):
        registry.agent_names()
