"""The rollout advantages on small forests built by hand, against a direct computation of the papers'
formulas (Tree-GRPO's intra/inter-tree sum, GiGPO's Eqs. 3, 5, 6, 7, 8, GRPO), degenerate groups included."""
from __future__ import annotations

import statistics

import pytest

from treegym.agents.training.rollouts import Forest
from treegym.agents.training.rollouts.advantages import (anchor_groups, gigpo, group_relative, grpo, step_returns,
                                                          tree_grpo)

EPS = 1e-6


def z(x: float, group: list[float]) -> float:
    """(x - mean) / (sample std + eps), written out; 0 for a group of one or of equal members."""
    if len(group) < 2 or len(set(group)) == 1:
        return 0.0
    return (x - statistics.mean(group)) / (statistics.stdev(group) + EPS)


def two_trees() -> tuple[Forest, dict[str, int]]:
    """tree 0: a -> {a1: R=1, a2 -> a2x: R=0};  tree 1: b -> {b1: R=0.5, b2: R=0}  (rewards at the last step)."""
    f = Forest("t")
    r0 = f.add_root(0)
    a = f.add_step(r0.id, action="a")
    a1 = f.add_step(a.id, action="a1", reward=1.0, leaf=True)
    a2 = f.add_step(a.id, action="a2")
    a2x = f.add_step(a2.id, action="a2x", reward=0.0, leaf=True)
    r1 = f.add_root(1)
    b = f.add_step(r1.id, action="b")
    b1 = f.add_step(b.id, action="b1", reward=0.5, leaf=True)
    b2 = f.add_step(b.id, action="b2", reward=0.0, leaf=True)
    return f, {"a": a.id, "a1": a1.id, "a2": a2.id, "a2x": a2x.id, "b": b.id, "b1": b1.id, "b2": b2.id}


def test_tree_grpo_is_the_sum_of_intra_and_inter_tree_advantages_averaged_over_the_leaves_below():
    f, n = two_trees()
    R = {"a1": 1.0, "a2x": 0.0, "b1": 0.5, "b2": 0.0}
    tree_of = {"a1": [1.0, 0.0], "a2x": [1.0, 0.0], "b1": [0.5, 0.0], "b2": [0.5, 0.0]}
    everyone = list(R.values())
    intra = {k: z(R[k], tree_of[k]) for k in R}
    inter = {k: z(R[k], everyone) for k in R}
    below = {"a": ["a1", "a2x"], "a1": ["a1"], "a2": ["a2x"], "a2x": ["a2x"], "b": ["b1", "b2"], "b1": ["b1"],
             "b2": ["b2"]}
    got = tree_grpo(f)
    assert set(got) == set(n.values())
    for name, leaves in below.items():
        row = got[n[name]]
        want_intra = statistics.mean(intra[k] for k in leaves)
        want_inter = statistics.mean(inter[k] for k in leaves)
        assert row["advantage_intra"] == pytest.approx(want_intra, abs=1e-9), name
        assert row["advantage_inter"] == pytest.approx(want_inter, abs=1e-9), name
        assert row["advantage"] == pytest.approx(want_intra + want_inter, abs=1e-9), name
    # the step-level signal: siblings differ by how their subtrees did
    assert got[n["a1"]]["advantage"] > got[n["a2"]]["advantage"]
    assert got[n["b1"]]["advantage"] > got[n["b2"]]["advantage"]


def test_grpo_chains_give_every_step_its_trajectorys_advantage():
    f = Forest("t")
    ends = {}
    for tree, (length, reward) in enumerate([(2, 1.0), (3, 0.0), (1, 0.0)]):
        node = f.add_root(tree)
        for d in range(length):
            node = f.add_step(node.id, action=f"x{d}", reward=reward if d == length - 1 else 0.0, leaf=d == length - 1)
        ends[tree] = node.id
    got = grpo(f)
    group = [1.0, 0.0, 0.0]
    for step in f.steps():
        assert got[step.id]["advantage"] == pytest.approx(z(group[step.tree], group), abs=1e-9)


def test_degenerate_groups_give_zero_not_a_division_by_zero():
    f = Forest("t")
    for tree in range(3):  # all equal rewards
        root = f.add_root(tree)
        f.add_step(f.add_step(root.id, action="x").id, action="y", reward=1.0, leaf=True)
    assert all(v["advantage"] == 0.0 for v in grpo(f).values())
    assert all(v["advantage_intra"] == 0.0 and v["advantage_inter"] == 0.0 for v in tree_grpo(f).values())
    g = gigpo(f)
    assert all(v["advantage"] == 0.0 for v in g.values())

    single = Forest("t")  # one trajectory, single-child nodes only: every group has one member
    node = single.add_root(0)
    for d in range(3):
        node = single.add_step(node.id, action=str(d), reward=1.0 if d == 2 else 0.0, leaf=d == 2)
    assert all(v["advantage"] == 0.0 for v in tree_grpo(single).values())
    assert all(v["advantage"] == 0.0 and v["anchor_size"] == 1 for v in gigpo(single).values())

    lone = Forest("t")  # a one-leaf tree beside a branching one: intra 0 there, inter still ranks it
    r0 = lone.add_root(0)
    lone.add_step(r0.id, action="only", reward=1.0, leaf=True)
    r1 = lone.add_root(1)
    lone.add_step(r1.id, action="p", reward=0.0, leaf=True)
    lone.add_step(r1.id, action="q", reward=0.0, leaf=True)
    got = tree_grpo(lone)
    assert got[1]["advantage_intra"] == 0.0
    assert got[1]["advantage_inter"] == pytest.approx(z(1.0, [1.0, 0.0, 0.0]), abs=1e-9)
    assert got[1]["advantage_inter"] > 0


def test_group_relative_scales_and_refuses_an_unknown_scale():
    assert group_relative([3.0]) == [0.0]
    assert group_relative([]) == []
    assert group_relative([1.0, 3.0], scale="none") == [-1.0, 1.0]
    assert group_relative([1.0, 3.0]) == pytest.approx([z(1.0, [1.0, 3.0]), z(3.0, [1.0, 3.0])])
    with pytest.raises(ValueError, match="unknown scale"):
        group_relative([1.0, 2.0], scale="max")


def anchored_forest() -> tuple[Forest, dict[str, int]]:
    """One root (state s0) with three first steps; two reach the same state s1 by different actions.

    s0 -a-> s1 -c-> end (r=1)           a: R_0 = gamma * 1
    s0 -b-> s1 -d-> s2 -e-> end (r=1)   b: R_0 = 0.2 + gamma^2 * 1 (b itself earns 0.2)
                    s2 -f-> end (r=0)   (a forced branch at s2: d's return is the mean over e and f)
    s0 -g-> s3 -h-> end (r=0)
    """
    f = Forest("t")
    root = f.add_root(0, state_key="s0")
    a = f.add_step(root.id, action="a", state_key="s1")
    c = f.add_step(a.id, action="c", reward=1.0, leaf=True)
    b = f.add_step(root.id, action="b", reward=0.2, state_key="s1")
    d = f.add_step(b.id, action="d", state_key="s2")
    e = f.add_step(d.id, action="e", reward=1.0, leaf=True)
    ff = f.add_step(d.id, action="f", reward=0.0, leaf=True)
    g = f.add_step(root.id, action="g", state_key="s3")
    h = f.add_step(g.id, action="h", reward=0.0, leaf=True)
    return f, {"a": a.id, "c": c.id, "b": b.id, "d": d.id, "e": e.id, "f": ff.id, "g": g.id, "h": h.id}


@pytest.mark.parametrize("gamma,omega,scale", [(0.95, 1.0, "std"), (0.5, 0.3, "std"), (1.0, 1.0, "none")])
def test_gigpo_episode_and_anchor_step_advantages_match_the_equations(gamma, omega, scale):
    f, n = anchored_forest()
    norm = z if scale == "std" else (lambda x, grp: 0.0 if len(grp) < 2 or len(set(grp)) == 1 else x - statistics.mean(grp))
    R = {"c": 1.0, "e": 1.2, "f": 0.2, "h": 0.0}  # episode returns: the sum of the path's rewards
    A_E = {k: norm(v, list(R.values())) for k, v in R.items()}  # Eq. 3
    # Eq. 5: discounted returns per trajectory, a shared step's return is the mean over its trajectories
    ret = {"a": gamma * 1.0, "c": 1.0, "g": 0.0, "h": 0.0, "e": 1.0, "f": 0.0, "d": gamma * 0.5,
           "b": statistics.mean([0.2 + gamma ** 2 * 1.0, 0.2 + gamma ** 2 * 0.0])}
    assert step_returns(f, gamma) == pytest.approx({n[k]: v for k, v in ret.items()})
    # Eq. 6: groups by pre-state: s0 -> {a, b, g}; s1 -> {c, d}; s2 -> {e, f}; s3 -> {h}
    groups = {"s0": ["a", "b", "g"], "s1": ["c", "d"], "s2": ["e", "f"], "s3": ["h"]}
    assert anchor_groups(f) == {k: [n[x] for x in v] for k, v in groups.items()}
    below = {"a": ["c"], "c": ["c"], "b": ["e", "f"], "d": ["e", "f"], "e": ["e"], "f": ["f"], "g": ["h"], "h": ["h"]}
    got = gigpo(f, gamma=gamma, omega=omega, scale=scale)
    for key, members in groups.items():
        for name in members:
            a_s = norm(ret[name], [ret[m] for m in members])  # Eq. 7
            a_e = statistics.mean(A_E[leaf] for leaf in below[name])
            row = got[n[name]]
            assert row["anchor"] == key and row["anchor_size"] == len(members)
            assert row["advantage_step"] == pytest.approx(a_s, abs=1e-9), name
            assert row["advantage_episode"] == pytest.approx(a_e, abs=1e-9), name
            assert row["advantage"] == pytest.approx(a_e + omega * a_s, abs=1e-9), name  # Eq. 8
    with pytest.raises(ValueError, match="gamma"):
        gigpo(f, gamma=1.5)


def test_steps_from_states_without_identity_are_grouped_by_their_parent_node():
    f = Forest("t")
    root = f.add_root(0)
    x = f.add_step(root.id, action="x", reward=1.0, leaf=True)
    y = f.add_step(root.id, action="y", reward=0.0, leaf=True)
    assert anchor_groups(f) == {f"node:{root.id}": [x.id, y.id]}


def test_a_step_after_a_leaf_is_refused():
    f = Forest("t")
    leaf = f.add_step(f.add_root(0).id, action="x", leaf=True)
    with pytest.raises(ValueError, match="ended its trajectory"):
        f.add_step(leaf.id, action="y")
