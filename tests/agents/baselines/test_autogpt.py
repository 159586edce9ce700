"""Auto-GPT with additional opinions: robust JSON parsing, retries, clear failure, opinions in the prompt."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

from support.agent_runs import ACCURATE, ENV, WEAK, assert_call_budget_holds_under_threads, episode, pass_rate
from treegym.agents.baselines.autogpt import AutoGPTPolicy, command_to_action, opinion_prompt, parse_command
from treegym.agents.simulated.scripted import ScriptedLLM
from treegym.agents.llm_specs import make_llm
from treegym.agents.policy import BasePolicy
from treegym.agents.registry import make_agent


def _reply(action: str, **extra) -> str:
    return json.dumps({"thoughts": {"text": "t", "reasoning": "r", "plan": "- p", "criticism": "c"},
                       "command": {"name": "act", "args": {"action": action}}, **extra})


# ----------------------------------------------------------------- parsing
@pytest.mark.parametrize("text,action", [
    (_reply("4 + 5"), "4 + 5"),
    ("Sure! Here is my answer:\n```json\n" + _reply("6 * 4") + "\n```\nGood luck.", "6 * 4"),
    ('{"thoughts": {"text": "t",}, "command": {"name": "act", "args": {"action": "10 - 6",},},}', "10 - 6"),
    ("{'thoughts': {'text': 'x'}, 'command': {'name': 'act', 'args': {'action': '5 * 4'}}}", "5 * 4"),
    ('{"thoughts": {"text": “quoted”}, "command": {"name": "act", "args": {"action": "5 * 4"}}}', "5 * 4"),
    ('{"command": {"name": "act", "args": {"action": "5 * 4", "final": True}}}', "5 * 4"),
    ('{"command": {"name": "act", "args": {"action": "5 * 4"}', "5 * 4"),  # closing braces missing
    ('{"command": "20 + 4"}', "20 + 4"),
    ("Thought: I will multiply.\nAction: 6 * 4", "6 * 4"),  # no JSON, an explicit Action line
])
def test_parse_command_repairs_common_breakage(text, action):
    cmd, problem = parse_command(text)
    assert cmd is not None, problem
    assert command_to_action(cmd, {}) == action


@pytest.mark.parametrize("text,problem", [
    ("", "empty"),
    ("I think we should multiply.", "no JSON"),
    ('{"thoughts": {"text": "hmm"}}', '"command"'),
    ('{"command": {"args": {"action": "x"}}}', '"name"'),
    ("{" * 100_000, "no JSON"),
    ('[1, 2, 3]', "no JSON"),
])
def test_parse_command_names_what_is_wrong(text, problem):
    cmd, why = parse_command(text)
    assert cmd is None and problem in why


def test_tool_style_commands_map_to_listed_actions():
    obs = {"valid_actions": ["click[Buy Now]", "search[red shoes]", "go to desk 1"]}
    assert command_to_action({"name": "click", "args": {"tool_input": "Buy Now"}}, obs) == "click[Buy Now]"
    assert command_to_action({"name": "go to", "args": {"input": "desk 1"}}, obs) == "go to desk 1"
    assert command_to_action({"name": "search", "args": {"query": "blue"}}, obs) == "search[blue]"
    assert command_to_action({"name": "look", "args": {}}, obs) == "look"


# ----------------------------------------------------------------- the policy on Game of 24
def _first_act(llm, **options):
    env = gym.make(ENV)
    obs, info = env.reset(options={"task_id": 900})
    policy = make_agent("autogpt", ENV, llm, seed=0, **options)
    policy.reset()
    policy.bind(env)
    return policy, env, policy.act(obs, info)


def test_garbage_json_is_retried_with_the_problem_named_then_used():
    llm = ScriptedLLM(["total garbage", '{"thoughts": {"text": "no command"}}', _reply("5 * 4")])
    policy, env, action = _first_act(llm)
    assert action == "5 * 4"
    assert policy.stats()["json_retries"] == 2
    assert "no JSON object" in llm.calls[1][-1]["content"]
    assert '"command"' in llm.calls[2][-1]["content"]
    assert "It began: 'total garbage'" in llm.calls[1][-1]["content"]
    assert llm.calls[1][-1]["content"].startswith(llm.calls[0][-1]["content"])  # the same prompt, plus the note
    assert len(llm.calls[1]) == len(llm.calls[0])
    *_, info = env.step(action)
    assert not info["invalid_action"]


def test_garbage_forever_is_a_clear_failure_in_the_run_record():
    llm = ScriptedLLM(["{{{{ not json", "still not", "]]]"], cycle=True)
    record, policy = episode("autogpt", llm, 901, retries=2)
    assert not record["success"] and record["steps"] == 0
    assert "no usable JSON command after 3 replies" in record["error"]
    assert len(llm.calls) == 3


def test_oracle_opinion_is_in_the_prompt_with_the_papers_template():
    llm = ScriptedLLM([_reply("4 + 5")])
    policy, env, action = _first_act(llm, opinions="oracle")
    expert = env.unwrapped.expert_action()
    prompt = llm.calls[0][-1]["content"]
    assert f"Here's one suggestion for the command: {expert}" in prompt
    assert "Please use this suggestion as a reference and make your own judgement." in prompt
    # the paper's Algorithm 1: the regular "determine which next command" prompt only without an opinion
    assert prompt.rstrip().endswith("make your own judgement.") and "Determine which next command" not in prompt
    assert policy.stats()["opinions_given"] == 1 and policy.stats()["opinions_followed"] == 0
    assert policy.stats()["expert_knows_answer"] is True  # the env's scripted expert knows the answer
    plain = ScriptedLLM([_reply("4 + 5")])
    policy, env, action = _first_act(plain)
    assert plain.calls[0][-1]["content"].rstrip().endswith("respond using the JSON format specified above:")
    assert policy.temperature == 0.01 and "expert_knows_answer" not in policy.stats()


def test_webshop_actions_are_tools_with_examples_and_purchases_are_counted(catalog):
    from treegym.agents.baselines.autogpt import tool_section
    from treegym.agents.experiments.report.paper_metrics import purchase_metrics

    obs = {"valid_actions": ("click[Back to Search]", "click[B01]", "click[B02]", "click[B03]", "click[B04]",
                             "search[...]", "4 + 5")}
    section = tool_section(obs)
    assert '1. click: "click"' in section and '2. search: "search"' in section
    assert section.count('"name": "click"') == 3 and section.count('"name": "search"') == 1  # 1 to 3 examples
    assert tool_section({"valid_actions": ("4 + 5 = 9",)}) == ""
    env = gym.make("treegym/WebShop-v0", catalog=catalog.root, split="all")
    try:
        gold = make_agent("gold", "treegym/WebShop-v0")
        llm = ScriptedLLM(lambda m: "")  # replaced per step below
        policy = make_agent("autogpt", "treegym/WebShop-v0", llm, opinions="gold")
        obs, info = env.reset(options={"task_id": 0})
        gold.reset(), gold.bind(env), policy.reset(), policy.bind(env)
        done = False
        while not done:
            target = gold.act(obs, info)
            llm._reply = lambda m, t=target: json.dumps({"command": {"name": "act", "args": {"action": t}}})
            action = policy.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        stats = policy.stats()
        assert stats["purchased"] is True and stats["expert_knows_answer"] is True and stats["prompt"] == "tools"
        assert "Commands (each action is a tool" in llm.calls[0][0]["content"]
    finally:
        env.close()
    records = [{"success": True, "agent_stats": {"purchased": True}}, {"success": False, "agent_stats": {"purchased": True}},
               {"success": False, "agent_stats": {"purchased": False}}, {"success": False}]
    assert purchase_metrics(records) == {"episodes": 4, "purchase_rate": 0.5, "precision": 0.5}


class _Ranked(BasePolicy):
    """An expert that ranks the listed valid actions (any policy with ``propose_actions`` gives top-k)."""

    def propose_actions(self, observation, info, k):
        return list(observation["valid_actions"])[:k]

    def act(self, observation, info):
        return self.propose_actions(observation, info, 1)[0]


def test_top_k_opinions_from_a_ranking_expert():
    llm = ScriptedLLM([_reply("5 - 4")])
    env = gym.make(ENV)
    obs, info = env.reset(options={"task_id": 900})
    policy = AutoGPTPolicy(ENV, llm, expert=_Ranked(), top_k=3)
    policy.bind(env)
    policy.act(obs, info)
    prompt = llm.calls[0][-1]["content"]
    assert opinion_prompt(list(obs["valid_actions"])[:3]) in prompt
    assert "Here are a few suggestions for the command:" in prompt


def test_solves_with_an_accurate_model_and_degrades_with_a_weak_one():
    assert pass_rate("autogpt", ACCURATE) >= 0.8
    assert pass_rate("autogpt", WEAK) <= pass_rate("autogpt", ACCURATE) - 0.5


def test_bad_options_are_named():
    llm = make_llm(ACCURATE, env_id=ENV)
    with pytest.raises(ValueError, match="nosuchagent"):
        make_agent("autogpt", ENV, llm, opinions="nosuchagent")
    with pytest.raises(ValueError, match="ask itself"):
        make_agent("autogpt", ENV, llm, opinions="autogpt")
    with pytest.raises(ValueError, match="top_k"):
        make_agent("autogpt", ENV, llm, top_k=0)
    with pytest.raises(ValueError, match="colour"):
        make_agent("autogpt", ENV, llm, colour="red")


@pytest.mark.parametrize("agent", ["autogpt"])
def test_the_runs_call_budget_holds_under_threads(agent, tmp_path):
    assert_call_budget_holds_under_threads(agent, tmp_path / "runs.jsonl")


def test_through_the_real_openai_client_with_a_server_that_sometimes_answers_garbage():
    """Every other reply is garbage; the JSON ones carry the oracle's action. The game is won."""
    from support.chat_server import ChatServer

    from support.oracle_relay import OracleRelay
    from treegym.agents.llm.openai_client import OpenAICompatibleLLM
    from treegym.agents.prompts import get_prompts

    relay, prompts = OracleRelay(ENV), get_prompts(ENV)
    count = {"n": 0}

    def reply(messages):
        count["n"] += 1
        if count["n"] % 2:
            return "Sorry, I cannot produce JSON today {"
        action = prompts.parse_action(relay.reply(messages), {})
        return "```json\n" + _reply(action) + "\n```"

    with ChatServer(reply=reply) as server:
        llm = relay.wrap(OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", backoff=0.001))
        record, policy = episode("autogpt", llm, 907)
        requests = server.chat_requests()
    assert record["success"] and record["error"] is None
    assert policy.stats()["json_retries"] == record["steps"]
    assert len(requests) == 2 * record["steps"]


def _follower(messages):
    """A model that takes the first suggestion when there is one, else combines the first two numbers."""
    import re

    text = messages[-1]["content"]
    m = re.search(r"Here's one suggestion for the command: (.+)", text) or re.search(r"suggestions for the command:\n- (.+)", text)
    if m:
        return _reply(m.group(1).strip())
    left = re.findall(r"^Numbers left: (.*)$", text, re.MULTILINE)[-1].split()
    return _reply(f"{left[0]} + {left[1]}")


def test_a_model_that_follows_the_oracle_opinion_wins_and_without_it_does_not():
    tasks = (900, 901, 902, 904)  # adding the numbers up in order never makes 24 here
    with_opinions = [episode("autogpt", ScriptedLLM(_follower), t, opinions="oracle") for t in tasks]
    without = [episode("autogpt", ScriptedLLM(_follower), t)[0] for t in tasks]
    assert all(record["success"] for record, _ in with_opinions)
    assert all(policy.stats()["opinion_agreement"] == 1.0 for _, policy in with_opinions)
    assert not any(record["success"] for record in without)
