"""Parity with ALFWorld's official engine (textworld PddlEnv + AlfredDemangler) on all 134 shipped games.

Opt-in: needs ``pip install 'treegym[alfworld-official]'`` (fast-downward compiles from
source) and is marked slow (the official engine takes seconds per reset).
``python -m treegym.scripts.dev.parity_alfworld`` prints the same figure for all games.
"""
from __future__ import annotations

import pytest

from treegym.envs.alfworld.generate import split_task_ids
from treegym.envs.alfworld.official import official_available
from treegym.envs.alfworld.parity import compare_game
from treegym.envs.alfworld.tasks import shipped_games

_MISSING = official_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(_MISSING is not None,
                       reason=f"the official ALFWorld engine is not installed (pip install 'treegym[alfworld-official]'): "
                              f"{_MISSING}"),
]


@pytest.mark.parametrize("task_id", list(shipped_games()))
def test_same_text_commands_and_won_as_the_official_engine(task_id):
    report = compare_game(task_id, shipped_games()[task_id], seed=0, walk_steps=30)
    assert report.mismatches == [], report.mismatches[0]
    assert report.steps > 1
    assert report.plan_won_official and report.plan_won_ours


@pytest.mark.parametrize("task_id", split_task_ids("generated_valid")[:6])  # one per task type
def test_generated_games_play_the_same_in_the_official_engine(task_id):
    from treegym.envs.alfworld.generate import generate_game, parse_task_id

    report = compare_game(task_id, generate_game(*parse_task_id(task_id)), seed=0, walk_steps=30)
    assert report.mismatches == [], report.mismatches[0]
    assert report.plan_won_official and report.plan_won_ours
