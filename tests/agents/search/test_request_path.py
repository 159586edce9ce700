"""The per-LLM-call path of the search config: trajectories, paths and state references kept per node
answer as a fresh walk up the tree would, also after a node's snapshot is taken or released."""
from __future__ import annotations

import gymnasium as gym

import treegym.envs as te
from treegym.agents.llm.budget import BudgetedLLM
from treegym.agents.prompts import get_prompts
from treegym.agents.prompts.spec import Step
from treegym.agents.search.config import SearchConfig
from treegym.agents.search.tree import SearchNode, SearchTree
from treegym.agents.simulated.synthetic import make_synthetic_llm

ENV_ID = "treegym/Game24-v0"


def _walk(node: SearchNode) -> tuple[list[SearchNode], list[Step]]:
    path = []
    while node is not None:
        path.append(node)
        node = node.parent
    path.reverse()
    return path, [Step(n.action or "", n.text, n.reward, n.thought) for n in path[1:]]


def test_kept_paths_and_trajectories_are_the_walk_up_the_tree():
    env = gym.make(ENV_ID)
    obs, info = env.reset(seed=0)
    cfg = SearchConfig(env, get_prompts(ENV_ID), make_synthetic_llm("seed=0", env_id=ENV_ID))
    root = cfg.make_root(obs, info)
    nodes = [root]
    for depth in range(3):
        parent = nodes[-1]
        for action in parent.observation["valid_actions"][:2]:
            nodes.append(cfg.expand(parent, action))
    for node in nodes:
        path, steps = _walk(node)
        assert list(node.path()) == path and list(node.trajectory()) == steps
        assert node.path() is node.path() and node.trajectory() is node.trajectory()  # kept, not rebuilt
        assert node.actions() == [s.action for s in steps]
    assert root.trajectory() == () and root.path() == (root,)


def test_a_deep_chain_is_walked_without_recursion():
    node = SearchNode(snapshot=None, observation={"text": "root"})
    for i in range(5000):
        node = SearchNode(snapshot=None, observation={"text": f"s{i}"}, action=f"a{i}", parent=node, depth=i + 1)
    assert len(node.trajectory()) == 5000 and node.trajectory()[-1].action == "a4999"
    assert len(node.path()) == 5001 and node.path()[0].text == "root"


def test_state_refs_follow_snapshots_taken_and_released_after_first_use():
    env = gym.make(ENV_ID)
    obs, _ = env.reset(seed=0)
    root_snap = te.snapshot(env)
    a, b = obs["valid_actions"][:2]
    env.step(a)
    child_snap = te.snapshot(env)
    root = SearchNode(snapshot=root_snap, observation=obs)
    child = SearchNode(snapshot=None, observation={"text": "after a"}, action=a, parent=root, depth=1)
    grand = SearchNode(snapshot=None, observation={"text": "after b"}, action=b, parent=child, depth=2)
    ref = SearchConfig._states
    assert ref(grand) == ((root_snap, (a, b)),) and ref(child) == ((root_snap, (a,)),)
    child.snapshot = child_snap  # taken later (a Ray worker's rebuilt node gets its snapshot so)
    assert ref(grand) == ((child_snap, (b,)),) and ref(child) == ((child_snap, ()),)
    child.snapshot = None  # released again
    assert ref(grand) == ((root_snap, (a, b)),)
    root.snapshot = None  # no snapshot left on the chain: a prompt-only chain at the live state
    assert ref(grand) == ((None, ()),)


def test_hooks_send_one_typed_request_per_call_through_the_budget():
    env = gym.make(ENV_ID)
    obs, info = env.reset(seed=0)
    llm = BudgetedLLM(make_synthetic_llm("seed=0", env_id=ENV_ID), max_calls=5)
    cfg = SearchConfig(env, get_prompts(ENV_ID), llm)
    cfg.tree = SearchTree(root := cfg.make_root(obs, info))
    child = cfg.expand(root, obs["valid_actions"][0])
    assert 0.0 <= cfg.value(child) <= 1.0
    assert cfg.propose(child, 2)  # the synthetic model proposes at least one valid action
    assert cfg.compare(child, root) in (0.0, 0.5, 1.0)
    assert llm.usage.calls == 4 and llm.remaining_calls == 1
    assert [c["kind"] for c in child.llm_calls] == ["value", "propose", "compare"]
