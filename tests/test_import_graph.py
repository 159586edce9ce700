"""``python -m treegym.scripts.dev.import_graph``: finds import cycles (module- and function-level) and upward
arrows against the layering, and the env and server packages have none."""
from __future__ import annotations

from pathlib import Path

from treegym.scripts.dev import import_graph


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_it_finds_a_function_level_cycle_and_an_upward_arrow(tmp_path):
    _write(tmp_path, {
        "envs/__init__.py": "",
        "envs/a.py": "from . import b\n",
        "envs/b.py": "def f():\n    from .a import x\n",
        "envs/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from treegym.agents import y\n",
        "envs/d.py": "import treegym.agents.policy\n",
        "agents/__init__.py": "",
        "agents/policy.py": "from treegym.envs import a\n",
    })
    lines, clean = import_graph.report(["envs", "agents"], tmp_path)
    text = "\n".join(lines)
    assert not clean
    assert "cycle: treegym.envs.a <-> treegym.envs.b" in text
    assert "treegym.envs.b -> treegym.envs.a  (function-level import, line 2)" in text
    assert "treegym.envs.a -> treegym.envs.b  (module-level import, line 1)" in text
    assert "upward arrow: treegym.envs.d -> treegym.agents.policy  (module-level import, line 1)" in text
    # a TYPE_CHECKING import never runs, but it is an arrow a reader follows: it counts
    assert "upward arrow: treegym.envs.c -> treegym.agents  (type-checking-level import, line 3)" in text


def test_a_clean_tree_passes_and_long_modules_are_reported(tmp_path):
    _write(tmp_path, {"envs/__init__.py": "", "envs/a.py": "x = 1\n" * 401, "envs/b.py": "from .a import x\n"})
    lines, clean = import_graph.report(["envs"], tmp_path)
    assert clean and "long module (401 lines > 400): treegym.envs.a" in lines


def test_envs_and_servers_have_no_upward_arrow_and_no_cycle(capsys):
    status = import_graph.main(["envs", "servers"])
    out = capsys.readouterr().out
    assert "upward arrow:" not in out and "0 upward arrow(s)" in out
    found = [line for line in out.splitlines() if line.startswith("cycle: ")]
    assert not found and "0 cycle(s)" in out, found
    assert status == 0


def test_nothing_that_ships_imports_a_clone_only_package(tmp_path):
    _write(tmp_path, {
        "scripts/__init__.py": "", "scripts/bench/__init__.py": "",
        "scripts/bench/bench_x.py": "from treegym.scripts import cli\n",
        "scripts/cli.py": "def main():\n    from treegym.scripts.bench import bench_x\n",
    })
    lines, clean = import_graph.report(["scripts"], tmp_path)
    assert not clean
    bad = [line for line in lines if line.startswith("upward arrow:")]
    assert len(bad) == 1 and "treegym.scripts.cli" in bad[0] and "treegym.scripts.bench.bench_x" in bad[0], lines


def test_siblings_on_one_floor_may_not_import_each_other_and_lazy_imports_need_a_reason(tmp_path):
    _write(tmp_path, {
        "agents/__init__.py": "", "agents/policy.py": "", "agents/discovery.py": "",
        "agents/registry.py": "from . import policy\n",
        "agents/requests.py": "def f():\n    from . import policy\n",
        "agents/prompts.py": ("def f():\n    # lazy: a plugin load\n    from . import discovery\n"
                              "def g():\n    from . import discovery  # lazy: same reason\n"
                              "    from . import policy\n"),  # the comment above is the other import's
    })
    lines, clean = import_graph.report(["agents"], tmp_path)
    assert not clean
    assert [line for line in lines if line.startswith("upward arrow:")] == [
        "upward arrow: treegym.agents.requests -> treegym.agents.policy  (function-level import, line 2)"]
    assert [line for line in lines if line.startswith("lazy import")] == [
        "lazy import without a reason: treegym.agents.prompts:6 -> treegym.agents.policy",
        "lazy import without a reason: treegym.agents.requests:2 -> treegym.agents.policy"]


def test_a_module_no_unit_holds_is_refused(tmp_path):
    _write(tmp_path, {"agents/__init__.py": "", "agents/newthing.py": "x = 1\n"})
    lines, clean = import_graph.report(["agents"], tmp_path)
    assert not clean and "unplaced module (no unit of LAYERS holds it): treegym.agents.newthing" in lines
