"""The documented defaults (agents/search/README.md, "Defaults and their sources") are the code's.

Every default of every agent's constructor (and of the variants' presets) must have a row with
the same value and a source: "paper (...)", "authors' code (...)" or "ours (reason)". A default
changed in the code without the table, or a row for an option that does not exist, fails here.
"""
from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import pytest

from treegym.agents.baselines.attempts import AttemptsAgent, ReflexionAgent, SelfConsistencyAgent
from treegym.agents.baselines.autogpt import _make_autogpt
from treegym.agents.baselines.react import RandomPolicy, ReactPolicy
from treegym.agents.search import lats, mcts, tot, dfsdt
from treegym.agents.search.astar import AStarSearchAgent
from treegym.agents.search.agent import SearchAgent
from treegym.agents.search.dfsdt import DFSDTAgent
from treegym.agents.search.elo import EloSearchAgent

README = Path(mcts.__file__).resolve().parent / "README.md"  # agents/search/README.md, beside the code

#: table label -> the function whose own keyword defaults the rows document
CONSTRUCTORS = {
    "search": SearchAgent.__init__, "elo": EloSearchAgent.__init__, "astar": AStarSearchAgent.__init__,
    "mcts": mcts.MCTSAgent.__init__, "lats": lats.LATSAgent.__init__, "tot": tot._ToTAgent.__init__,
    "bfs": tot.ToTBFSAgent.__init__, "dfs": tot.ToTDFSAgent.__init__, "dfsdt": DFSDTAgent.__init__,
    "cot": AttemptsAgent.__init__, "reflexion": ReflexionAgent.__init__, "sc": SelfConsistencyAgent.__init__,
    "react": ReactPolicy.__init__, "random": RandomPolicy.__init__, "autogpt": _make_autogpt,
}
#: table label -> the settings the variant's name fixes
PRESETS = {
    "judec-bfs": tot.JUDEC_BFS, "judec-dfs": tot.JUDEC_DFS, "judec-dfsdt": dfsdt.JUDEC_DFSDT,
    "radagent-mcts": {"per_step": True, "n_iters": mcts.RADAGENT_SIMULATIONS},
}


def _rows() -> list[tuple[str, str, str, str]]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Defaults and their sources", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("agent", "---"):
            rows.append((cells[0], cells[1].strip("`"), cells[2], cells[3]))
    return rows


def _own_defaults(fn) -> dict:
    return {p.name: p.default for p in inspect.signature(fn).parameters.values()
            if p.default is not p.empty and p.kind is not p.VAR_KEYWORD}


def _same(code, documented: str) -> bool:
    if code is None:
        return documented == "none"
    if isinstance(code, bool):
        return documented == str(code).lower()
    if isinstance(code, (int, float)):
        try:
            return math.isclose(float(code), float(documented), abs_tol=5e-3)
        except ValueError:
            return False
    return str(code) == documented


def test_every_default_of_every_agent_is_documented_with_its_value():
    rows = _rows()
    documented: dict[str, dict[str, str]] = {}
    for agent, option, default, _source in rows:
        assert option not in documented.setdefault(agent, {}), f"{agent}.{option} is documented twice"
        documented[agent][option] = default
    assert set(documented) == set(CONSTRUCTORS) | set(PRESETS)
    for label, fn in CONSTRUCTORS.items():
        code = _own_defaults(fn)
        assert set(documented[label]) == set(code), label
        for option, value in code.items():
            if label == "lats" and option == "n_iters":
                continue  # resolved from the env id: checked below
            assert _same(value, documented[label][option]), f"{label}.{option}: code {value!r}, README {documented[label][option]!r}"
    for label, preset in PRESETS.items():
        assert {k: str(v).lower() for k, v in preset.items()} == {k: v.lower() for k, v in documented[label].items()}, label


def test_lats_iterations_per_benchmark_are_the_documented_ones():
    cell = {(a, o): d for a, o, d, _ in _rows()}[("lats", "n_iters")]
    assert _own_defaults(lats.LATSAgent.__init__)["n_iters"] is None  # resolved per env
    pairs = dict(re.findall(r"(\w+) (\d+)", cell.split(":", 1)[1]))
    assert pairs.pop("else") == str(lats.LATS_DEFAULT_ITERATIONS)
    assert pairs == {k: str(v) for k, v in lats.LATS_ITERATIONS.items()}


@pytest.mark.parametrize("row", _rows(), ids=lambda r: f"{r[0]}.{r[1]}")
def test_every_default_names_its_source(row):
    agent, option, _default, source = row
    assert re.match(r"(paper|authors' code|ours) \(.{8,}\)", source), \
        f"{agent}.{option}: the source must be paper (...), authors' code (...) or ours (reason), got {source!r}"
