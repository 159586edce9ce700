"""The simple policies (oracle, random, react) and the repeated-attempt baselines (cot@K, reflexion,
sc@K) on the hand-built TreeWorld with scripted replies (not the truth)."""
from __future__ import annotations

import pytest

from support.tree_world import TreeLLM, TreePrompts, TreeWorldEnv, run
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.baselines.attempts import Attempts, Reflexion, SelfConsistency
from treegym.agents.baselines.react import OraclePolicy, RandomPolicy, ReactPolicy
from treegym.agents.llm.info import LLMInfo
from treegym.agents.policy import AgentGaveUp
from treegym.agents.registry import make_agent
from treegym.envs.core.contract import ExpertAdvice

TREE = {"": ["a", "b"], "a": ["a1", "a2"], "b": ["b1"]}


class RecordingLLM(TreeLLM):
    """A TreeLLM that also keeps the keyword arguments of every call."""

    info = LLMInfo(grammar=True)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.kwargs: list[dict] = []

    def complete(self, request):
        self.kwargs.append({"n": request.n, "temperature": request.temperature, "choices": request.choices,
                            "seed": request.seed})
        return super().complete(request)


class ExpertWorld(TreeWorldEnv):
    """TreeWorld with an expert that knows the way to ``a/a2`` (and nothing past a lost branch)."""

    def expert(self):
        plan = {"": ("a", "a2"), "a": ("a2",)}.get(self.path)
        if plan is None:
            return None if self.path == "b" else ExpertAdvice(plan=())
        return ExpertAdvice(plan=plan)


def _env(cls=TreeWorldEnv, wins=("a/a2",)):
    env = cls(TREE, wins)
    obs, info = env.reset()
    return env, obs, info


# ----------------------------------------------------------------- oracle and random
def test_oracle_plays_the_experts_next_action_and_gives_up_without_one():
    env, obs, info = _env(ExpertWorld)
    oracle = OraclePolicy()
    with pytest.raises(RuntimeError, match="bound"):
        oracle.act(obs, info)
    oracle.bind(env)
    assert oracle.act(obs, info) == "a" and oracle.propose_actions(obs, info, 3) == ["a"]
    obs, *_ = env.step("a")
    assert oracle.act(obs, info) == "a2"
    env.reset()
    env.step("b")
    with pytest.raises(AgentGaveUp, match=r"^ExpertWorld has no expert\(\); the oracle cannot play it$"):
        oracle.act(obs, info)
    env.reset()
    env.step("a")
    env.step("a2")
    with pytest.raises(AgentGaveUp, match=r"^the expert has no action from this state \(unsolvable or finished\)$"):
        oracle.act(obs, info)
    with pytest.raises(AgentGaveUp, match="^TreeWorldEnv has no expert"):  # an env without an expert
        oracle.bind(_env()[0])
        oracle.act(obs, info)


def test_random_is_uniform_over_the_listed_actions_and_reproducible():
    picks = [RandomPolicy(seed=s).act({"valid_actions": ("x", "y", "z")}, {}) for s in range(60)]
    assert set(picks) == {"x", "y", "z"}
    again = [RandomPolicy(seed=s).act({"valid_actions": ("x", "y", "z")}, {}) for s in range(60)]
    assert picks == again
    with pytest.raises(AgentGaveUp, match="^no valid actions listed in the observation$"):
        RandomPolicy(seed=0).act({"valid_actions": ()}, {})


def test_the_factories_name_options_they_do_not_take():
    with pytest.raises(ValueError, match=r"^agent 'random': unknown option\(s\) 'temperature'"):
        make_agent("random", "test/TreeWorld", seed=1, temperature=1)
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'depth', 'width'; its options are: none$"):
        make_agent("random", "test/TreeWorld", width=1, depth=2)
    with pytest.raises(ValueError, match="its options are: seed"):
        make_agent("oracle", "test/TreeWorld", depth=2)
    with pytest.raises(ValueError, match="its options are: none"):
        make_agent("random", "test/TreeWorld", depth=2)
    with pytest.raises(ValueError, match="constrain, seed, temperature"):
        make_agent("react", "test/TreeWorld", TreeLLM(), budget=3)
    assert isinstance(make_agent("oracle", "test/TreeWorld", seed=4), OraclePolicy)
    react = make_agent("react", "treegym/Game24-v0", TreeLLM(), temperature=0.5, constrain=False, seed=9)
    assert (react.temperature, react.constrain, react.seed) == (0.5, False, 9)


# ----------------------------------------------------------------- react
def test_react_keeps_the_episode_history_and_asks_about_the_live_env():
    env, obs, info = _env()
    llm = RecordingLLM(samples={"": ["a"], "a": ["a2"]})
    react = ReactPolicy(TreePrompts.env_id, llm, prompts=TreePrompts(), reflections=["be brief"], seed=7,
                        temperature=0.3)
    assert react.env_id == TreePrompts.env_id and react.history == [] and react.transcript == []
    react.reset()
    react.bind(env)
    assert react.prompts.env is env
    assert react.act(obs, info) == "a"
    obs, reward, *_ , info = env.step("a")
    assert react.act(obs, {**info, "reward": 0.25}) == "a2"
    assert [(s.action, s.observation, s.reward, s.thought) for s in react.history] == [("a", "at a", 0.25, "a")]
    assert llm.kinds == ["react", "react"]  # each request is about the bound env's live state
    assert react.transcript == ["a", "a2"]
    assert "be brief" in llm.prompts[0][1] and llm.log[-1] == ("react", "a")
    # the LLM supports grammars and the env lists actions: the answer is constrained to them
    assert llm.kwargs[0]["choices"] == ("a", "b") and llm.kwargs[1]["choices"] == ("a1", "a2")
    assert all(k["seed"] == 7 and k["temperature"] == 0.3 and k["n"] == 1 for k in llm.kwargs)
    assert react.stats() == {"reflections": 1}
    react.reset()
    assert react.history == [] and react.transcript == []
    free = ReactPolicy(TreePrompts.env_id, RecordingLLM(samples={"": ["a"]}), prompts=TreePrompts(), constrain=False)
    free.reset()
    free.bind(env)
    free.act({"text": "at root", "valid_actions": ("a",)}, {})
    assert free.llm.kwargs[0]["choices"] is None
    plain = ReactPolicy(TreePrompts.env_id, TreeLLM(), prompts=TreePrompts())
    assert plain.constrain is False and plain.temperature == 0.0
    assert ReactPolicy(TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), constrain=True).constrain is True
    from treegym.agents.prompts import get_prompts

    assert type(ReactPolicy("treegym/Game24-v0", TreeLLM()).prompts) is type(get_prompts("treegym/Game24-v0"))


def test_react_unbound_asks_about_no_env_and_an_observation_without_text_or_reward_counts_as_empty():
    class TextOptional(TreePrompts):
        def react_messages(self, obs, history, reflections=(), avoid=()):
            return super().react_messages({"text": obs.get("text", "")}, [], reflections)

    llm = RecordingLLM(samples={"": ["x", "y"]})
    react = ReactPolicy(TreePrompts.env_id, llm, prompts=TextOptional())
    assert react.act({"text": "at root"}, {}) == "x"
    react.act({}, {"reward": None})
    react.act({"text": "t"}, {})
    assert llm.kinds == [None, None, None]  # no bound env: the request is about nothing
    assert [(s.observation, s.reward) for s in react.history] == [("", 0.0), ("t", 0.0)]


# ----------------------------------------------------------------- attempts
SAMPLES = {"": ["a", "b", "a"], "a": ["a1", "a1"], "b": ["b1"]}  # attempts: a/a1, b/b1, a/a1


def test_cot_stops_at_the_first_won_attempt_and_scores_any_of_them():
    agent = run(Attempts, TREE, TreeLLM(samples={"": ["b", "a"], "a": ["a2"], "b": ["b1"]}), ["a/a2"],
                peek_success=True)
    assert ["/".join(n.actions()) for n in agent.algorithm.finished] == ["b/b1", "a/a2"]
    assert agent.result.chosen.success and [n.value for n in agent.algorithm.finished] == [0, 1]
    stats = agent.stats()
    assert (stats["attempts"], stats["attempts_succeeded"], stats["decision_sequences"],
            stats["sequences_success_any"]) == (2, 1, 2, True)
    lost = run(Attempts, TREE, TreeLLM(samples=SAMPLES), [], peek_success=True)
    assert len(lost.algorithm.finished) == 3 and lost.result.chosen is lost.algorithm.finished[-1]
    assert lost.stats()["sequences_success_any"] is False
    with pytest.raises(ValueError, match="peek_success"):
        SearchPolicy(Attempts, TreePrompts.env_id, TreeLLM())
    for bad in ({"attempts": 0}, {"max_steps": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SearchPolicy(Attempts, TreePrompts.env_id, TreeLLM(), peek_success=True, **bad)


def test_attempts_stop_at_max_steps_and_at_an_empty_answer():
    deep = {"": ["a"], "a": ["a1"], "a/a1": ["x"]}
    agent = run(Attempts, deep, TreeLLM(samples={"": ["a"], "a": ["a1"], "a/a1": ["x"]}), peek_success=True,
                attempts=1, max_steps=2)
    assert agent.algorithm.finished[0].actions() == ["a", "a1"] and not agent.algorithm.finished[0].terminal
    assert agent.algorithm.finished[0].visits == 1 and agent.algorithm.finished[0].parent.visits == 1
    empty = run(Attempts, deep, TreeLLM(samples={"": [""]}), peek_success=True, attempts=1)
    assert empty.algorithm.finished[0] is empty.result.tree.root and empty.algorithm.finished[0].stats["empty_answer"]


def test_reflexion_reflects_after_each_failed_attempt_but_the_last():
    llm = TreeLLM(samples=SAMPLES)
    agent = run(Reflexion, TREE, llm, [], peek_success=True, max_reflections=1)
    reflections = [e for e in llm.log if e[0] == "reflect"]
    assert len(reflections) == 2  # after attempts 1 and 2, not after the last
    assert agent.algorithm.reflections == ["lesson"] and agent.stats()["reflections"] == 1
    outcomes = [p for kind, p in llm.prompts if kind == "reflect"]
    assert all("ended without success after 2 steps" in p for p in outcomes)
    assert agent.algorithm.finished[0].stats["reflection"] == "lesson"
    # the lesson reaches the later attempts' prompts
    react_prompts = [p for kind, p in llm.prompts if kind == "react"]
    assert "lesson" not in react_prompts[0] and "lesson" in react_prompts[-1]
    cut = run(Reflexion, {"": ["a"], "a": ["a1"], "a/a1": ["x"]},
              TreeLLM(samples={"": ["a"], "a": ["a1"]}), [], peek_success=True, attempts=2, max_steps=1)
    assert "not finished after 1 steps" in [p for kind, p in cut.llm.prompts if kind == "reflect"][0]


def test_self_consistency_plays_every_attempt_and_takes_the_majority_answer():
    agent = run(SelfConsistency, TREE, TreeLLM(samples=SAMPLES), ["b/b1"], attempts=3)
    assert len(agent.algorithm.finished) == 3 and not agent.algorithm.stop_on_success
    assert "/".join(agent.result.chosen.actions()) == "a/a1"  # 2 of 3 attempts ended at a/a1
    assert agent.result.chosen is agent.algorithm.finished[0]  # the first attempt of the winning answer
    assert agent.stats()["sc_votes"] == {"at a/a1": 2, "at b/b1": 1}
    assert agent.stats()["sequences_success_any"] is True  # b/b1 won, though the vote did not pick it
    tie = run(SelfConsistency, TREE, TreeLLM(samples={"": ["b", "a"], "a": ["a1"], "b": ["b1"]}), attempts=2)
    assert "/".join(tie.result.chosen.actions()) == "b/b1"  # a tie goes to the answer seen first
    assert SearchPolicy(SelfConsistency, TreePrompts.env_id, TreeLLM()).config.attempts == 5
    assert "sc_votes" not in SearchPolicy(SelfConsistency, TreePrompts.env_id, TreeLLM()).stats()


def test_attempts_are_seeded_apart_share_nodes_and_record_which_attempts_ended_where():
    llm = RecordingLLM(samples=SAMPLES)
    agent = run(Attempts, TREE, llm, [], peek_success=True, seed=5, temperature=0.4)
    assert agent.env_id == TreePrompts.env_id
    # one react call per step; attempt i samples with seed + i at the search's temperature
    assert [(k["seed"], k["temperature"]) for k in llm.kwargs] == [(5, 0.4), (5, 0.4), (6, 0.4), (6, 0.4),
                                                                   (7, 0.4), (7, 0.4)]
    nodes = {"/".join(n.actions()): n for n in agent.result.tree.nodes}
    assert nodes["a/a1"].stats["attempts"] == [0, 2] and nodes["b/b1"].stats["attempts"] == [1]
    assert nodes["a"].visits == 2 and nodes["a/a1"].visits == 2 and nodes["b"].visits == 1  # shared prefix
    assert nodes["a/a1"].thought == "a1"  # the reply the step came from


def test_cot_without_stopping_still_answers_with_the_first_won_attempt():
    samples = {"": ["a", "b", "a"], "a": ["a2", "a1"], "b": ["b1"]}  # attempts: a/a2 (won), b/b1, a/a1
    agent = run(Attempts, TREE, TreeLLM(samples=samples), ["a/a2"], peek_success=True,
                stop_on_success=False)
    assert len(agent.algorithm.finished) == 3 and "/".join(agent.result.chosen.actions()) == "a/a2"


def test_attempt_baselines_keep_their_env_id_and_refuse_without_the_signal_in_words():
    for cls in (Reflexion, SelfConsistency):
        assert SearchPolicy(cls, TreePrompts.env_id, TreeLLM(), peek_success=True).env_id == TreePrompts.env_id
    with pytest.raises(ValueError, match=r"^cot: this baseline counts an episode as solved when any attempt "
                                         r"succeeds \(and reflects after failed ones\), which reads the env's success "
                                         r"flag; pass peek_success=true \(--agent-opt peek_success=true\) to allow "
                                         r"that oracle, or use sc@K$"):
        SearchPolicy(Attempts, TreePrompts.env_id, TreeLLM())
    assert make_agent("reflexion", "treegym/Game24-v0", TreeLLM(), peek_success=True, attempts=2).config.attempts == 2
    defaults = SearchPolicy(Reflexion, TreePrompts.env_id, TreeLLM(), peek_success=True)
    assert (defaults.config.attempts, defaults.config.max_steps, defaults.config.max_reflections) == (3, 12, 3)  # JUDEC 5.1; ours
    assert make_agent("sc@4", "treegym/Game24-v0", TreeLLM()).config.attempts == 4


def test_self_consistency_reports_the_ten_largest_vote_groups_largest_first():
    wide = {"": [f"c{i}" for i in range(12)]}
    agent = run(SelfConsistency, wide, TreeLLM(samples=wide), attempts=13)  # c0 is drawn twice
    votes = agent.stats()["sc_votes"]
    assert list(votes.items()) == [("at c0", 2)] + [(f"at c{i}", 1) for i in range(1, 10)]
    agent.reset()
    agent.run_search(*agent.env.reset())  # a fresh search forgets the last vote until it votes again
    assert agent.algorithm.votes is not None and sum(agent.algorithm.votes.values()) == 13
