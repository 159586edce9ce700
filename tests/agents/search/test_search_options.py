"""Every search agent's defaults are the values agents/search/README.md labels (paper / authors' code /
ours), and every bad option value is refused with a message naming the option."""
from __future__ import annotations

import pytest

from support.tree_world import TreePrompts, TreeLLM, started
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.search.astar import AStarSearch
from treegym.agents.search.dfsdt import DFSDT
from treegym.agents.search.elo import ELO_K, ELO_R, EloSearch, rejection_value_from_p
from treegym.agents.search.lats import LATS
from treegym.agents.registry import make_agent
from treegym.agents.search.mcts import MCTS
from treegym.agents.search.tot import ToTBFS, ToTDFS


def _make(cls, **options):
    return SearchPolicy(cls, TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), **options)


def test_elo_defaults():
    a = _make(EloSearch)
    assert (a.config.explorations, a.config.max_steps, a.config.k_factor, a.config.r, a.config.tau0) == (20, 12, ELO_K, ELO_R, ELO_R)
    assert (ELO_K, ELO_R) == (50.0, 173.72)
    assert (a.config.anneal, a.config.rejection_elo, a.config.max_children, a.config.comparisons, a.config.final) == ("paper", 0.0, None, 1, "paper")
    assert (a.config.terminal_children, a.algorithm.stop_on_success, a.config.propose_retries, a.options.peek_success) == ("skip", False, 3, False)
    assert a.budget == 100 and not a.algorithm.give_up_without_answer
    a = _make(EloSearch, rejection_p=0.9, max_children="15", final="code", tau0="", propose_retries=1,
              comparisons="2", k_factor="32", r="400", explorations="7", max_steps="18")
    assert a.config.rejection_elo == pytest.approx(rejection_value_from_p(0.9, 400.0)) and a.config.max_children == 15
    assert a.algorithm.give_up_without_answer and a.config.tau0 == 400.0 and a.config.propose_retries == 1
    assert (a.config.comparisons, a.config.k_factor, a.config.r, a.config.explorations, a.config.max_steps) == (2, 32.0, 400.0, 7, 18)
    assert _make(EloSearch, max_children="none").config.max_children is None
    assert _make(EloSearch, max_children="").config.max_children is None
    assert _make(EloSearch, rejection_elo="25").config.rejection_elo == 25.0
    assert _make(EloSearch, rejection_p="").config.rejection_elo == 0.0


@pytest.mark.parametrize("options,word", [({"anneal": "fast"}, "anneal"), ({"final": "best"}, "final"),
                                          ({"terminal_children": "all"}, "terminal_children"),
                                          ({"rejection_p": 1.0}, "rejection_p"),
                                          ({"stop_on_success": "true"}, "peek_success"),
                                          ({"propose_retries": 0}, "propose_retries must be a whole number of at least 1"),
                                          ({"explorations": "many"}, "explorations must be a whole number")])
def test_elo_bad_values(options, word):
    with pytest.raises(ValueError, match=word):
        _make(EloSearch, **options)


def test_astar_defaults():
    a = _make(AStarSearch, memory_id="none")
    assert (a.config.alpha, a.config.beta, a.config.k, a.config.iterations, a.config.max_steps, a.config.n_demos) == (0.5, 0.5, 5, 30, 12, 5)
    assert a.algorithm.use == {"g1": True, "g2": True, "h1": True, "h2": True} and a.options.peek_success is False
    a = _make(AStarSearch, memory_id="none", k=1, use_g1="false", alpha="1", beta="0")
    assert a.config.k == 1 and a.algorithm.use["g1"] is False and (a.config.alpha, a.config.beta) == (1.0, 0.0)


@pytest.mark.parametrize("options,word", [({"alpha": 1.5}, "alpha"), ({"beta": -0.1}, "beta")])
def test_astar_bad_values(options, word):
    with pytest.raises(ValueError, match=f"{word} is a geometric-mean weight"):
        _make(AStarSearch, memory_id="none", **options)


def test_mcts_and_lats_defaults():
    m = _make(MCTS)
    assert (m.config.n_iters, m.config.w_exp, m.config.depth_limit, m.config.n_actions, m.config.simulate) == (10, 1.0, 5, 5, "value")
    assert (m.config.rollout_depth, m.config.rollout_width, m.config.output) == (4, 1, "follow_max")
    assert (m.algorithm.stop_on_success, m.algorithm.peek_success) == (False, False)
    lats = _make(LATS)
    assert (lats.config.n_iters, lats.config.w_exp, lats.config.depth_limit, lats.config.simulate, lats.config.reflect) == \
        (30, pytest.approx(2 ** 0.5), 7, "rollout", True)
    assert _make(MCTS, rollout_depth="none").config.rollout_depth is None
    assert _make(MCTS, rollout_depth=0).config.rollout_depth == 0
    assert started(_make(MCTS, peek_success=True)).algorithm.stop_on_success is True
    assert make_agent("mcts@40", TreePrompts.env_id, TreeLLM(), prompts=TreePrompts()).config.n_iters == 40


@pytest.mark.parametrize("options,word", [({"simulate": "random"}, "simulate"), ({"output": "best"}, "output"),
                                          ({"n_iters": 0}, "n_iters"), ({"depth_limit": 0}, "depth_limit"),
                                          ({"n_actions": 0}, "n_actions"), ({"rollout_width": 0}, "rollout_width"),
                                          ({"rollout_depth": -1}, "rollout_depth")])
def test_mcts_bad_values(options, word):
    with pytest.raises(ValueError, match=f"mcts: {word}"):
        _make(MCTS, **options)
    with pytest.raises(ValueError, match="@40 but n_iters=3"):
        make_agent("mcts@40", TreePrompts.env_id, TreeLLM(), n_iters=3)


def test_tot_defaults():
    b = _make(ToTBFS)
    assert (b.config.n_propose, b.config.max_depth, b.config.breadth, b.config.select, b.algorithm.stop_on_success) == (8, 4, 5, "value", False)
    assert b.options.value_samples == 3 and b.algorithm.value_states
    d = _make(ToTDFS)
    assert (d.config.value_threshold, d.config.max_children, d.config.max_sequences, d.config.n_propose, d.config.max_depth) == (0.3, 3, None, 8, 4)  # ToT crosswords DFS: max_per_state=3
    assert _make(ToTBFS, n_evaluate=2).options.value_samples == 2
    assert _make(ToTBFS, select="compare").algorithm.value_states is False
    assert _make(ToTDFS, max_sequences="3").config.max_sequences == 3


@pytest.mark.parametrize("cls,options,word", [
    (ToTBFS, {"n_propose": 0}, "bfs: n_propose"), (ToTBFS, {"n_evaluate": 0}, "bfs: n_evaluate"),
    (ToTBFS, {"max_depth": 0}, "bfs: max_depth"), (ToTBFS, {"breadth": 0}, "bfs: breadth"),
    (ToTBFS, {"select": "vote"}, "bfs: select"), (ToTDFS, {"max_children": 0}, "dfs: max_children"),
    (ToTDFS, {"max_sequences": 0}, "dfs: max_sequences")])
def test_tot_bad_values(cls, options, word):
    with pytest.raises(ValueError, match=word):
        _make(cls, **options)


def test_dfsdt_defaults():
    d = _make(DFSDT)
    assert (d.config.width, d.config.prune_back, d.config.max_depth, d.config.max_sequences, d.config.answer_threshold) == (2, 2, 12, None, 0.5)
    assert _make(DFSDT, max_sequences="3").config.max_sequences == 3
    assert _make(DFSDT, max_sequences="none").config.max_sequences is None


@pytest.mark.parametrize("options,word", [({"width": 0}, "width"), ({"prune_back": 0}, "prune_back"),
                                          ({"max_depth": 0}, "max_depth"), ({"max_sequences": -2}, "max_sequences")])
def test_dfsdt_bad_values(options, word):
    with pytest.raises(ValueError, match=f"dfsdt: {word} must be a whole number of at least 1"):
        _make(DFSDT, **options)


@pytest.mark.parametrize("cls", [EloSearch, AStarSearch, MCTS, LATS, ToTBFS, ToTDFS,
                                 DFSDT])
def test_every_agent_keeps_its_env_id(cls):
    """The env id keys A*'s run memory and is written into every search tree."""
    agent = _make(cls, **({"memory_id": "none"} if cls is AStarSearch else {}))
    assert agent.env_id == TreePrompts.env_id


def test_options_are_typed_once_from_the_config_fields_and_errors_name_option_agent_and_values():
    from treegym.agents.registry import make_agent
    from treegym.scripts.options import parse_options

    # --agent-opt strings arrive as parse_options gives them; every field is typed from its dataclass
    opts = parse_options(["n_iters=7", "w_exp=2", "rollout_depth=none", "output=max_visit",
                          "temperature=0.5", "filter_valid=off", "budget=9"])
    agent = make_agent("mcts", TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), **opts)
    assert (agent.config.n_iters, agent.config.w_exp) == (7, 2.0)
    assert type(agent.config.w_exp) is float and agent.config.rollout_depth is None
    o = agent.options
    assert (o.propose_mode, o.temperature, o.filter_valid, o.value_samples, o.peek_success) == ("list", 0.5, False, 1, False)
    assert agent.budget == 9
    with pytest.raises(ValueError, match=r"^mcts: n_iters must be a whole number of at least 1, not 'ten' "
                                         r"\(an option of agent 'mcts'\)$"):
        _make(MCTS, n_iters="ten")
    with pytest.raises(ValueError, match=r"lats: reflect must be true or false, not 'maybe'"):
        _make(LATS, reflect="maybe")
    with pytest.raises(ValueError, match=r"mcts: output must be 'follow_max' or 'max_reward' or 'max_visit', not 'best'"):
        _make(MCTS, output="best")
    with pytest.raises(ValueError, match=r"lats: propose_mode must be 'list' or 'sample'"):
        _make(LATS, propose_mode="vote")
    with pytest.raises(ValueError, match=r"agent 'elo': unknown option\(s\) 'n_iters'; its options are: .*explorations"):
        _make(EloSearch, n_iters=3)


def test_a_config_value_can_be_handed_in_whole():
    from dataclasses import FrozenInstanceError, replace

    from treegym.agents.search.mcts import MCTSConfig

    config = replace(MCTSConfig(), n_iters=4, output="max_visit")
    agent = SearchPolicy(MCTS, TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), config=config)
    assert agent.config is config
    with pytest.raises(FrozenInstanceError):
        config.n_iters = 5  # type: ignore[misc]
    with pytest.raises(ValueError, match="either config= or its fields"):
        SearchPolicy(MCTS, TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), config=config, n_iters=3)


def test_numbers_are_typed_strictly():
    assert _make(MCTS, n_iters=3.0).config.n_iters == 3 and _make(MCTS, w_exp=2).config.w_exp == 2.0
    for bad in (2.5, True, "3.5", [3]):
        with pytest.raises(ValueError, match="n_iters must be a whole number"):
            _make(MCTS, n_iters=bad)
    for bad in (False, "nan", float("inf"), "-inf"):
        with pytest.raises(ValueError, match="w_exp must be a number"):
            _make(MCTS, w_exp=bad)
