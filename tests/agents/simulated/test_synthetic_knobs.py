"""Synthetic-LLM knobs for the studies: following additional opinions (Auto-GPT), a position-biased judge."""
from __future__ import annotations

import random

import pytest

from treegym.agents.experiments.evaluation import RunConfig, evaluate
from treegym.agents.llm_specs import make_llm
from treegym.agents.simulated.synthetic import simulated_verdict

ENV = "treegym/Game24-v0"


def test_follow_opinions_is_off_by_default_and_named_when_on():
    base = make_llm("synthetic:", env_id=ENV)
    assert "follow_opinions" not in base.name and base.follow_opinions == 0.0
    on = make_llm("synthetic:follow_opinions=0.7", env_id=ENV)
    assert on.name.endswith(",follow_opinions=0.7)")
    with pytest.raises(ValueError, match="follow_opinions"):
        make_llm("synthetic:follow_opinions=1.5", env_id=ENV)


def _autogpt_agreement(tmp_path, follow: float) -> tuple[float, float]:
    """(pass rate, share of steps that took the opinion) of autogpt with oracle opinions and a weak model."""
    spec = f"synthetic:p_correct=0.1,follow_opinions={follow}"
    out = tmp_path / f"f{follow}.jsonl"
    recs = evaluate(RunConfig(env_id=ENV, agent="autogpt", llm_spec=spec, task_ids=list(range(900, 912)),
                              agent_options={"opinions": "oracle"}), out, progress=False, log=None)
    given = sum(r["agent_stats"]["opinions_given"] for r in recs)
    followed = sum(r["agent_stats"]["opinions_followed"] for r in recs)
    return sum(r["success"] for r in recs) / len(recs), followed / given


@pytest.mark.slow
def test_a_model_that_follows_opinions_solves_with_an_oracle_expert(tmp_path):
    follow_rate, follow_share = _autogpt_agreement(tmp_path, 1.0)
    ignore_rate, ignore_share = _autogpt_agreement(tmp_path, 0.0)
    assert follow_share == 1.0 and follow_rate > 0.9  # solvable puzzles are solved by taking the oracle's step
    assert ignore_share < 0.5 and ignore_rate < follow_rate


def test_simulated_verdict_accuracy_and_position_bias():
    rng = random.Random(0)
    n = 4000
    first_better = sum(simulated_verdict(1.0, rng, judge_acc=0.8, position_bias=0.0) for _ in range(n)) / n
    assert abs(first_better - 0.8) < 0.03
    # position bias: says "first" that often whatever it is shown
    second_better = [simulated_verdict(0.0, rng, judge_acc=1.0, position_bias=0.3) for _ in range(n)]
    assert abs(sum(second_better) / n - 0.3) < 0.03
    ties = [simulated_verdict(0.5, rng, judge_acc=1.0, position_bias=0.0) for _ in range(n)]
    assert abs(sum(ties) / n - 0.5) < 0.03
