"""The generic prompt builders and parsers (agents/prompts/spec.py), on any env."""
import gymnasium as gym
import pytest

from treegym.agents.prompts import PromptSpec, Step, get_prompts
from treegym.agents.prompts.spec import template_regex


@pytest.mark.parametrize("text,expected", [
    ("A", 1.0), ("B", 0.0), ("b", 0.0), ("**A**", 1.0),
    ("Answer: B", 0.0), ("ANSWER: A\n", 1.0), ("Preference: B", 0.0),
    ("Trajectory A is longer. Answer: B", 0.0), ("A looks good but the answer is B", 0.0),
    ("Both look fine", 0.5), ("", 0.5), ("Apples", 0.5),
])
def test_parse_comparison_reads_the_verdict(text, expected):
    assert PromptSpec().parse_comparison(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("Thought: hmm\nAction: click[Buy Now]", "click[Buy Now]"),
    ("search[red shoes]", "search[red shoes]"),
    ("", ""),
])
def test_parse_action_default(text, expected):
    assert PromptSpec().parse_action(text, {}) == expected


def test_templates_match_whole_actions_with_filled_slots():
    rx = template_regex("search[<query>]")
    assert rx.match("search[red shoes]") and rx.match("Search[x]")
    assert not rx.match("search[]") and not rx.match("click[x]") and not rx.match("search[x] now")


def test_an_env_without_a_spec_gets_the_generic_prompts(walk_env):
    prompts = get_prompts("treegym/NumberWalk-v0")
    assert type(prompts) is PromptSpec
    obs, _ = walk_env.reset(seed=0)
    prompts.bind(walk_env)
    history = [Step("add 3", "You did add 3. You are at 3.")]
    user = prompts.react_messages(obs, history, reflections=["go up"])[-1]["content"]
    assert "Reach 7." in user and "target: 7" in user and "Action 1: add 3" in user
    assert "Valid actions: add 1 | add 2" in user and "- go up" in user
    # the env's own parser matches answers to the listed actions
    assert prompts.parse_action("Thought: up\nAction: ADD  2", obs) == "add 2"
    assert prompts.parse_proposals("1. add 3\nwalk north\n- sub 1", obs) == ["add 3", "sub 1"]
    assert prompts.parse_imagined("impossible") == [] and prompts.parse_imagined("add 3\nadd 1", obs) == ["add 3", "add 1"]


def test_game24_spec_uses_the_envs_parser_and_tots_prompts():
    env = gym.make("treegym/Game24-v0")
    obs, _ = env.reset(options={"task_id": 900})  # 4 5 6 10
    prompts = get_prompts("treegym/Game24-v0").bind(env)
    assert prompts.parse_action("Action: 4 + 5", obs) == "5 + 4 = 9 (left: 6 9 10)"
    assert prompts.parse_action("Action: 10 - 4 = 7 (left: 5 6 7)", obs) == "10 - 4 = 6 (left: 5 6 6)"
    assert prompts.parse_action("Action: 11 * 3", obs) == "11 * 3"  # illegal here: the env will say why
    propose = prompts.propose_messages(obs, [Step("x", "y")], 3)[-1]["content"]
    assert propose.endswith("Input: 4 5 6 10\nPossible next steps:") and "Step" not in propose
    assert prompts.value_messages(obs, [])[-1]["content"] == "Input: 4 5 6 10"
    env.close()


def test_a_simulated_llm_on_an_env_without_an_expert_says_what_is_missing():
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.requests import ReactRequest
    from treegym.agents.simulated.oracle import OracleUnavailable
    from treegym.envs.examples.number_walk import NumberWalkEnv

    class NoExpert(NumberWalkEnv):
        def expert(self):
            return None

    env = NoExpert()
    obs, _ = env.reset(seed=0)
    llm = make_llm("synthetic:seed=0", env_id="mysuite/NoExpert-v0")
    with pytest.raises(OracleUnavailable, match="no expert"):
        ReactRequest(get_prompts("mysuite/NoExpert-v0").react_messages(obs, []), env).send(llm)
