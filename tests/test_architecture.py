"""The layering docs/DESIGN.md draws, checked on the real tree.

``python -m treegym.scripts.dev.import_graph`` reads every module's imports (``ast``, nothing
runs) and prints cycles, upward arrows and long modules; these tests hold the whole
package to it: no import cycle anywhere, no arrow up the layers (envs → nothing above,
servers → no agents/scripts, the LLM transport → nothing else from agents), and no
module over the line limit unless it is listed here as data.
"""
from __future__ import annotations

from treegym.scripts.dev import import_graph

PACKAGES = ["envs", "agents", "servers", "scripts"]

# Modules allowed over import_graph.MAX_LINES because they are data, not logic
# (tables, prompt text, generated vocabularies). Each entry says what it holds.
DATA_MODULES: dict[str, str] = {}


def _report() -> tuple[list[str], bool]:
    return import_graph.report(PACKAGES, import_graph.package_root())


def test_no_import_cycle_and_no_upward_arrow_anywhere():
    lines, clean = _report()
    problems = [line for line in lines if line.startswith(("cycle:", "upward arrow:"))]
    assert clean and not problems, "\n".join(problems)


def test_no_long_module_except_data():
    lines, _ = _report()
    long = [line for line in lines if line.startswith("long module")]
    offenders = [line for line in long if line.rsplit(": ", 1)[-1] not in DATA_MODULES]
    assert not offenders, "\n".join(offenders)


def test_the_transport_imports_nothing_else_from_agents():
    files = import_graph.module_files(import_graph.package_root(), ["agents"])
    transport = {name: path for name, path in files.items() if name.startswith("treegym.agents.llm")}
    assert transport, "agents/llm not found"
    lines, _ = _report()
    upward = [line for line in lines if line.startswith("upward arrow: treegym.agents.llm")]
    assert not upward, "\n".join(upward)
