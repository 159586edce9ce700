"""Search hooks hold a grammar-capable LLM (the embedded model) to legal answers.

Runs through the real openai client against the local chat server, which logs
each request (with the grammar it carried) before answering it.
"""
from __future__ import annotations

import gymnasium as gym
from support.chat_server import ChatServer

import treegym.envs as te
from treegym.agents.prompts import get_prompts
from treegym.agents.llm.openai_client import OpenAICompatibleLLM
from treegym.agents.search.config import SearchConfig
from treegym.agents.search.tree import SearchNode

ENV = "treegym/Game24-v0"


def grammar_echo_server() -> ChatServer:
    """A chat server that answers every request with the first alternative of the grammar it carried."""
    server = ChatServer()

    def reply(messages):
        grammar = (server.chat_requests()[-1].body or {}).get("grammar") or ""
        return grammar.split('"')[1] if '"' in grammar else "no grammar"

    server.reply = reply
    return server


def grammar_llm(server: ChatServer) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY",
                               supports_grammar=True, backoff=0.01)


def test_compare_value_and_propose_send_their_grammars():
    env = gym.make(ENV)
    obs, _ = env.reset(seed=0, options={"task_id": 900})
    first_move = obs["valid_actions"][0]
    server = grammar_echo_server()
    with server:
        llm = grammar_llm(server)
        hooks = SearchConfig(env, get_prompts(ENV), llm)
        root = SearchNode(snapshot=te.snapshot(env), observation=obs)
        value = hooks.value(root)
        preference = hooks.compare([], [])
        proposals = hooks.propose(root, 1)
        grammars = [(r.body or {}).get("grammar") or "" for r in server.chat_requests()]
    env.close()
    assert '"sure"' in grammars[0] and '"impossible"' in grammars[0] and value == 1.0
    assert all('"A"' in g and '"B"' in g for g in grammars[1:3]) and preference == 0.5  # "A" both orders
    assert first_move in grammars[3], "proposals are constrained to the valid actions"
    assert proposals == [first_move]


def test_constrained_proposals_leave_out_the_actions_to_avoid():
    # DFSDT's diversity prompt ("a different one than ..."): a grammar-held model must not be
    # able to answer with an avoided action, or a small model repeats its favourite and the
    # proposal is wasted.
    env = gym.make(ENV)
    obs, _ = env.reset(seed=0, options={"task_id": 900})
    valid = list(obs["valid_actions"])
    server = grammar_echo_server()
    with server:
        llm = grammar_llm(server)
        hooks = SearchConfig(env, get_prompts(ENV), llm)
        root = SearchNode(snapshot=te.snapshot(env), observation=obs)
        proposals = hooks.propose(root, 1, avoid=valid[:1], attempt=1)
        grammar = (server.chat_requests()[-1].body or {}).get("grammar") or ""
        sent = len(server.chat_requests())
        none_left = hooks.propose(root, 1, avoid=valid, attempt=2)
        sent_after = len(server.chat_requests())
    env.close()
    assert proposals == [valid[1]] and f'"{valid[0]}"' not in grammar and f'"{valid[1]}"' in grammar
    assert none_left == [] and sent_after == sent  # every valid action avoided: nothing to ask
