"""The documented defaults (agents/search/README.md, "Defaults and their sources") are the code's.

Every field of every algorithm's config (``agents/search/options.py``: its default and the source in
its metadata), every default of the other policies' constructors, and the variants' presets must have
a row with the same value and (for a config field) the same source: "paper (...)", "authors' code
(...)" or "ours (reason)". A default or source changed in the code without the table, or a row for
an option that does not exist, fails here.
"""
from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import pytest

from treegym.agents.baselines.attempts import AttemptsConfig, ReflexionConfig, SCConfig
from treegym.agents.baselines.autogpt import AutoGPTConfig
from treegym.agents.baselines.react import RandomPolicy, ReactPolicy
from treegym.agents.search import dfsdt, lats, mcts, radagent_mcts, tot
from treegym.agents.search.astar import AStarConfig
from treegym.agents.search.agent import SearchOptions
from treegym.agents.search.dfsdt import DFSDTConfig
from treegym.agents.search.elo import EloConfig
from treegym.agents.search.options import fields_of, own_fields

README = Path(mcts.__file__).resolve().parent / "README.md"  # agents/search/README.md, beside the code

#: table label -> the config class whose own fields the rows document (default and source)
CONFIGS = {
    "search": SearchOptions, "elo": EloConfig, "astar": AStarConfig, "mcts": mcts.MCTSConfig,
    "lats": lats.LATSConfig, "radagent-mcts": radagent_mcts.RaDAgentMCTSConfig, "tot": tot.ToTConfig, "bfs": tot.BFSConfig, "dfs": tot.DFSConfig,
    "dfsdt": DFSDTConfig, "cot": AttemptsConfig, "reflexion": ReflexionConfig, "sc": SCConfig, "autogpt": AutoGPTConfig,
}
#: table label -> the function whose own keyword defaults the rows document (policies without a config)
CONSTRUCTORS = {"react": ReactPolicy.__init__, "random": RandomPolicy.__init__}
#: table label -> the settings the variant's name fixes
PRESETS = {
    "judec-bfs": tot.JUDEC_BFS, "judec-dfs": tot.JUDEC_DFS, "judec-dfsdt": dfsdt.JUDEC_DFSDT,
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


def _documented() -> dict[str, dict[str, tuple[str, str]]]:
    documented: dict[str, dict[str, tuple[str, str]]] = {}
    for agent, option, default, source in _rows():
        assert option not in documented.setdefault(agent, {}), f"{agent}.{option} is documented twice"
        documented[agent][option] = (default, source)
    return documented


def test_every_default_of_every_agent_is_documented_with_its_value():
    documented = _documented()
    assert set(documented) == set(CONFIGS) | set(CONSTRUCTORS) | set(PRESETS)
    for label, fn in CONSTRUCTORS.items():
        code = _own_defaults(fn)
        assert set(documented[label]) == set(code), label
        for option, value in code.items():
            assert _same(value, documented[label][option][0]), f"{label}.{option}: code {value!r}, README {documented[label][option][0]!r}"
    for label, preset in PRESETS.items():
        assert {k: str(v).lower() for k, v in preset.items()} == {k: v[0].lower() for k, v in documented[label].items()}, label


@pytest.mark.parametrize("label", sorted(CONFIGS))
def test_every_config_field_is_documented_with_its_value_and_source(label):
    config = CONFIGS[label]
    fields = fields_of(config)
    own = own_fields(config)
    assert list(documented := _documented()[label]) == own, f"{label}: README rows vs the config's own fields"
    for option in own:
        f = fields[option]
        default, source = documented[option]
        if not (label == "lats" and option in ("n_iters", "rollout_max_depth")):  # by env id: checked below
            assert _same(f.default, default), f"{label}.{option}: code {f.default!r}, README {default!r}"
        assert source == f.metadata["source"], \
            f"{label}.{option}: the README's source differs from the field's; the row should read\n" \
            f"| {label} | `{option}` | {default} | {f.metadata['source']} |"


@pytest.mark.parametrize("option,table,default", [
    ("n_iters", lats.LATS_ITERATIONS, lats.LATS_DEFAULT_ITERATIONS),
    ("rollout_max_depth", lats.LATS_ROLLOUT_DEPTH, lats.LATS_DEFAULT_ROLLOUT_DEPTH)])
def test_lats_settings_per_benchmark_are_the_documented_ones(option, table, default):
    cell = {(a, o): d for a, o, d, _ in _rows()}[("lats", option)]
    assert getattr(lats.LATSConfig(), option) is None  # resolved per env
    pairs = dict(re.findall(r"(\w+) (\d+)", cell.split(":", 1)[1]))
    assert pairs.pop("else") == str(default)
    assert pairs == {k: str(v) for k, v in table.items()}


@pytest.mark.parametrize("row", _rows(), ids=lambda r: f"{r[0]}.{r[1]}")
def test_every_default_names_its_source(row):
    agent, option, _default, source = row
    assert re.match(r"(paper|authors' code|ours) \(.{8,}\)", source), \
        f"{agent}.{option}: the source must be paper (...), authors' code (...) or ours (reason), got {source!r}"
