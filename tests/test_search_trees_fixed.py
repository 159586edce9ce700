"""Seeded searches grow the same trees as when the fixtures were recorded (before the overhead
optimisations of issue 26 item 2): same nodes, actions, values, visit counts, LLM excerpts, and the
same prompts sent (a digest of every request's messages). See ``tests/support/tree_fixtures.py``."""
from __future__ import annotations

import json

import pytest

from tests.support.tree_fixtures import AGENTS, ENVS, fixture_path, search_tree


@pytest.mark.parametrize("env_key", sorted(ENVS))
@pytest.mark.parametrize("agent", AGENTS)
def test_seeded_search_grows_the_recorded_tree(env_key: str, agent: str) -> None:
    expected = json.loads(fixture_path(env_key, agent).read_text())
    got = search_tree(env_key, agent)
    assert [(n["id"], n["parent"], n["action"]) for n in got["nodes"]] == \
        [(n["id"], n["parent"], n["action"]) for n in expected["nodes"]]
    assert [(n["value"], n["visits"], n["stats"]) for n in got["nodes"]] == \
        [(n["value"], n["visits"], n["stats"]) for n in expected["nodes"]]
    assert (got["prompt_calls"], got["prompt_digest"]) == (expected["prompt_calls"], expected["prompt_digest"])
    assert json.loads(json.dumps(got, sort_keys=True)) == expected
