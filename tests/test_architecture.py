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


def _arrows_from(prefix: str) -> list[import_graph.Arrow]:
    files = import_graph.module_files(import_graph.package_root(), PACKAGES)
    known = set(files)
    return [a for name, path in files.items() if name == prefix or name.startswith(prefix + ".")
            for a in import_graph.arrows_of(name, path, known)]


def test_the_report_reads_records_and_imports_no_agent_or_simulated_model():
    """The report knows runs from their records (``llm_info``, ``agent_stats``): into agents it may
    import only the experiments runner's record rules, the transport's declared types and the LLM
    factory (an LLM judge), function-level imports included."""
    allowed = ("treegym.agents.experiments", "treegym.agents.llm", "treegym.agents.llm_specs")
    wrong = [f"{a.source}:{a.line} -> {a.target}" for a in _arrows_from("treegym.agents.experiments.report")
             if a.target.startswith("treegym.agents") and not a.target.startswith(allowed)]
    assert not wrong, "\n".join(wrong)


def test_the_simulated_models_import_no_agent():
    """Simulated models read what they act on from the request (``about``), so they import no agent."""
    wrong = [f"{a.source}:{a.line} -> {a.target}" for a in _arrows_from("treegym.agents.simulated")
             if a.target.startswith(("treegym.agents.search", "treegym.agents.baselines",
                                     "treegym.agents.experiments", "treegym.agents.training"))]
    assert not wrong, "\n".join(wrong)
