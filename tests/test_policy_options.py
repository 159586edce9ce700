"""Every search agent's defaults are the values agents/search/README.md labels (paper / authors' code /
ours), and every bad option value is refused with a message naming the option."""
from __future__ import annotations

import pytest

from support.tree_world import TreePrompts, TreeLLM
from treegym.agents.search.astar import AStarSearchAgent
from treegym.agents.search.dfsdt import DFSDTAgent
from treegym.agents.search.elo import ELO_K, ELO_R, EloSearchAgent, rejection_value_from_p
from treegym.agents.search.lats import LATSAgent
from treegym.agents.search.mcts import MCTSAgent, make_mcts
from treegym.agents.search.tot import ToTBFSAgent, ToTDFSAgent


def _make(cls, **options):
    return cls(TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), **options)


def test_elo_defaults():
    a = _make(EloSearchAgent)
    assert (a.explorations, a.max_steps, a.k_factor, a.r, a.tau0) == (20, 12, ELO_K, ELO_R, ELO_R)
    assert (ELO_K, ELO_R) == (50.0, 173.72)
    assert (a.anneal, a.rejection_elo, a.max_children, a.comparisons, a.final) == ("paper", 0.0, None, 1, "paper")
    assert (a.terminal_children, a.stop_on_success, a.propose_retries, a.peek_success) == ("skip", False, 3, False)
    assert a.budget == 100 and not a.give_up_without_answer
    a = _make(EloSearchAgent, rejection_p=0.9, max_children="15", final="code", tau0="", propose_retries=0,
              comparisons="2", k_factor="32", r="400", explorations="7", max_steps="18")
    assert a.rejection_elo == pytest.approx(rejection_value_from_p(0.9, 400.0)) and a.max_children == 15
    assert a.give_up_without_answer and a.tau0 == 400.0 and a.propose_retries == 1
    assert (a.comparisons, a.k_factor, a.r, a.explorations, a.max_steps) == (2, 32.0, 400.0, 7, 18)
    assert _make(EloSearchAgent, max_children="none").max_children is None
    assert _make(EloSearchAgent, max_children="").max_children is None
    assert _make(EloSearchAgent, rejection_elo="25").rejection_elo == 25.0
    assert _make(EloSearchAgent, rejection_p="").rejection_elo == 0.0


@pytest.mark.parametrize("options,word", [({"anneal": "fast"}, "anneal"), ({"final": "best"}, "final"),
                                          ({"terminal_children": "all"}, "terminal_children"),
                                          ({"rejection_p": 1.0}, "rejection_p"),
                                          ({"stop_on_success": "true"}, "peek_success")])
def test_elo_bad_values(options, word):
    with pytest.raises(ValueError, match=word):
        _make(EloSearchAgent, **options)


def test_astar_defaults():
    a = _make(AStarSearchAgent, memory_id="none")
    assert (a.alpha, a.beta, a.k, a.iterations, a.max_steps, a.n_demos) == (0.5, 0.5, 5, 30, 12, 5)
    assert a.use == {"g1": True, "g2": True, "h1": True, "h2": True} and a.peek_success is False
    a = _make(AStarSearchAgent, memory_id="none", k=0, use_g1="false", alpha="1", beta="0")
    assert a.k == 1 and a.use["g1"] is False and (a.alpha, a.beta) == (1.0, 0.0)


@pytest.mark.parametrize("options,word", [({"alpha": 1.5}, "alpha"), ({"beta": -0.1}, "beta")])
def test_astar_bad_values(options, word):
    with pytest.raises(ValueError, match=f"{word} is a geometric-mean weight"):
        _make(AStarSearchAgent, memory_id="none", **options)


def test_mcts_and_lats_defaults():
    m = _make(MCTSAgent)
    assert (m.n_iters, m.w_exp, m.depth_limit, m.n_actions, m.simulate_mode) == (10, 1.0, 5, 5, "value")
    assert (m.rollout_depth, m.rollout_width, m.reflect, m.max_reflections, m.output) == (4, 1, False, 3, "max_reward")
    assert (m.stop_on_success, m.per_step, m.peek_success) == (False, False, False)
    lats = _make(LATSAgent)
    assert (lats.n_iters, lats.w_exp, lats.depth_limit, lats.simulate_mode, lats.reflect) == \
        (30, pytest.approx(2 ** 0.5), 7, "rollout", True)
    assert _make(MCTSAgent, rollout_depth="none").rollout_depth is None
    assert _make(MCTSAgent, rollout_depth=0).rollout_depth == 0
    assert _make(MCTSAgent, peek_success=True).stop_on_success is True
    assert make_mcts(TreePrompts.env_id, TreeLLM(), at=40, prompts=TreePrompts()).n_iters == 40


@pytest.mark.parametrize("options,word", [({"simulate": "random"}, "simulate"), ({"output": "best"}, "output"),
                                          ({"n_iters": 0}, "n_iters"), ({"depth_limit": 0}, "depth_limit"),
                                          ({"n_actions": 0}, "n_actions"), ({"rollout_width": 0}, "rollout_width"),
                                          ({"rollout_depth": -1}, "rollout_depth")])
def test_mcts_bad_values(options, word):
    with pytest.raises(ValueError, match=f"mcts: {word}"):
        _make(MCTSAgent, **options)
    with pytest.raises(ValueError, match="@40 but n_iters=3"):
        make_mcts(TreePrompts.env_id, TreeLLM(), at=40, n_iters=3)


def test_tot_defaults():
    b = _make(ToTBFSAgent)
    assert (b.n_propose, b.max_depth, b.breadth, b.select, b.stop_on_success) == (8, 4, 5, "value", False)
    assert b.hook_options["value_samples"] == 3 and b.value_states
    d = _make(ToTDFSAgent)
    assert (d.value_threshold, d.max_children, d.max_sequences, d.n_propose, d.max_depth) == (0.3, 3, None, 8, 4)  # ToT crosswords DFS: max_per_state=3
    assert _make(ToTBFSAgent, n_evaluate=2).hook_options["value_samples"] == 2
    assert _make(ToTBFSAgent, select="compare").value_states is False
    assert _make(ToTDFSAgent, max_sequences="3").max_sequences == 3


@pytest.mark.parametrize("cls,options,word", [
    (ToTBFSAgent, {"n_propose": 0}, "bfs: n_propose"), (ToTBFSAgent, {"n_evaluate": 0}, "bfs: n_evaluate"),
    (ToTBFSAgent, {"max_depth": 0}, "bfs: max_depth"), (ToTBFSAgent, {"breadth": 0}, "bfs: breadth"),
    (ToTBFSAgent, {"select": "vote"}, "bfs: select"), (ToTDFSAgent, {"max_children": 0}, "dfs: max_children"),
    (ToTDFSAgent, {"max_sequences": 0}, "dfs: max_sequences")])
def test_tot_bad_values(cls, options, word):
    with pytest.raises(ValueError, match=word):
        _make(cls, **options)


def test_dfsdt_defaults():
    d = _make(DFSDTAgent)
    assert (d.width, d.prune_back, d.max_depth, d.max_sequences, d.answer_threshold) == (2, 2, 12, None, 0.5)
    assert _make(DFSDTAgent, max_sequences="3").max_sequences == 3
    assert _make(DFSDTAgent, max_sequences="none").max_sequences is None


@pytest.mark.parametrize("options,word", [({"width": 0}, "width"), ({"prune_back": 0}, "prune_back"),
                                          ({"max_depth": 0}, "max_depth"), ({"max_sequences": -2}, "max_sequences")])
def test_dfsdt_bad_values(options, word):
    with pytest.raises(ValueError, match=f"dfsdt: {word} must be at least 1"):
        _make(DFSDTAgent, **options)


@pytest.mark.parametrize("cls", [EloSearchAgent, AStarSearchAgent, MCTSAgent, LATSAgent, ToTBFSAgent, ToTDFSAgent,
                                 DFSDTAgent])
def test_every_agent_keeps_its_env_id(cls):
    """The env id keys A*'s run memory and is written into every search tree."""
    agent = _make(cls, **({"memory_id": "none"} if cls is AStarSearchAgent else {}))
    assert agent.env_id == TreePrompts.env_id
