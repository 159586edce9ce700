r"""Group-relative advantages of the three rollout schemes, computed on a :class:`~.forest.Forest`.

Notation: a trajectory :math:`H_i` is a root-to-leaf path, :math:`R(H_i)` its outcome (the sum of
the env's rewards on it, ``Forest.outcome``). Every function returns, per step node id, a dict of
named parts whose sum (``advantage``) is what a trainer multiplies the step's log-probability by.

**Normalisation** (shared, :func:`group_relative`): :math:`\hat A_i = (x_i - \mathrm{mean}(G)) /
(\mathrm{std}(G) + \epsilon)` with the sample standard deviation (``n - 1``, as ``torch.std`` in
verl's GRPO and GiGPO code) and :math:`\epsilon = 10^{-6}`. ``scale="none"`` drops the division
(:math:`x_i - \mathrm{mean}(G)`: GiGPO's ``mean_norm`` mode, Dr. GRPO). Choices made here:
a group of one member gets advantage 0 (no baseline to compare with; verl's GRPO would give the
raw reward), and a group whose members are all equal gets 0 (the numerator is 0).

**GRPO** (chain sampling, :func:`grpo`): each trajectory is normalised against the G
trajectories of its task, :math:`\hat A(H_i) = (R(H_i) - \mathrm{mean}_j R(H_j)) / \mathrm{std}_j R(H_j)`;
every step of :math:`H_i` carries :math:`\hat A(H_i)`.

**Tree-GRPO** (Ji et al., "Tree Search for LLM Agent Reinforcement Learning", ICLR 2026, §3.2
"tree-based advantage estimation", :func:`tree_grpo`): the intra-tree advantage normalises a
trajectory against the trajectories (leaves) of its own tree :math:`T`,
:math:`\hat A_{intra}(H_i) = (R(H_i) - \mathrm{mean}_{j \in T} R(H_j)) / \mathrm{std}_{j \in T} R(H_j)`;
the inter-tree advantage against all trajectories of the task's M trees,
:math:`\hat A_{inter}(H_i)` likewise over :math:`\bigcup_m T_m`; the trajectory's advantage is
their sum :math:`\hat A_{tree}(H_i) = \hat A_{intra}(H_i) + \hat A_{inter}(H_i)`. Checked against the
authors' code (AMAP-ML/Tree-GRPO at 90b1709, ``verl/trainer/ppo/ray_trainer_ts.py``,
``adv_estimator='tree'``, the setting of its training scripts: two ``compute_grpo_outcome_advantage``
calls in ``core_algos.py``, grouped by the task's ``uid`` and by the ``tree_uid``, added); there a
group of one leaf gives the raw reward, here 0 (above). In the paper a
shared prefix node is trained once per trajectory through it, each time with that trajectory's
advantage; one row per step needs one number, so a node carries the **mean** over the leaves
below it of each part (the paper's effective weight is this mean times the row's ``leaves``
count, which rows also give). Through this mean, siblings' rows differ by how their subtrees did:
the step-level preference signal the paper shows equivalent to step-level DPO.

**GiGPO** (Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", NeurIPS
2025; equation numbers as in the paper and verl-agent's ``gigpo/core_gigpo.py``,
:func:`gigpo`):

* Eq. 3, episode level: :math:`A^E(H_i) = (R(H_i) - \mathrm{mean}_j R(H_j)) / F_{norm}`, over the
  task's trajectories (one value per trajectory, not per step: verl-agent's default averages over
  steps, ``compute_mean_std_cross_steps``; the paper's equation is per trajectory);
* Eq. 5, discounted step return: :math:`R_t^{(i)} = \sum_{k \ge t} \gamma^{k-t} r_k^{(i)}` (default
  :math:`\gamma = 0.95`, verl-agent's default);
* Eq. 6, anchor groups: the steps taken from the *same* env state
  :math:`G^S(\tilde s) = \{(a_t^{(i)}, R_t^{(i)}) \mid s_t^{(i)} = \tilde s\}`. GiGPO finds them by
  matching observation text; here a state is identified by ``Node.state_key`` (the env's own
  state), so two steps share an anchor exactly when their pre-states are the same state;
* Eq. 7, step level: :math:`A^S(a_t^{(i)}) = (R_t^{(i)} - \mathrm{mean}(G^S)) / F_{norm}(G^S)`;
* Eq. 8: :math:`A = A^E + \omega A^S` (default :math:`\omega = 1`).

With forks, trajectories share prefixes, so one step node can lie on several trajectories. Its
:math:`A^E` is then the mean over the leaves below it (as for Tree-GRPO) and its return
:math:`R_t` is the mean of the discounted returns of those trajectories from that step (a Monte
Carlo estimate of :math:`Q(s, a)`); an anchor group has one member per distinct step node
(state, action, subtree), not one per trajectory through it, so a forced branch is not counted
again in every group above it.
"""
from __future__ import annotations

import math
from typing import Sequence

from .forest import Forest

EPSILON = 1e-6
SCALES = ("std", "none")


def group_relative(values: Sequence[float], *, scale: str = "std", eps: float = EPSILON) -> list[float]:
    """``(x - mean) / (sample std + eps)`` per member (module docstring: degenerate groups give 0)."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; use one of: {', '.join(SCALES)}")
    xs = [float(v) for v in values]
    n = len(xs)
    if n < 2:
        return [0.0] * n
    mean = sum(xs) / n
    if all(x == xs[0] for x in xs):
        return [0.0] * n
    if scale == "none":
        return [x - mean for x in xs]
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return [(x - mean) / (std + eps) for x in xs]


def _leaf_values(forest: Forest, leaf_ids: list[int], scale: str) -> dict[int, float]:
    return dict(zip(leaf_ids, group_relative([forest.outcome(i) for i in leaf_ids], scale=scale)))


def _mean_below(forest: Forest, per_leaf: dict[int, float]) -> dict[int, float]:
    """Per step node: the mean of ``per_leaf`` over the leaves below it."""
    out = {}
    for node in forest.steps():
        below = forest.leaves_below(node.id)
        out[node.id] = sum(per_leaf[i] for i in below) / len(below) if below else 0.0
    return out


def grpo(forest: Forest, *, scale: str = "std") -> dict[int, dict[str, float]]:
    """GRPO over the task's trajectories; parts: ``advantage``."""
    per_leaf = _leaf_values(forest, [n.id for n in forest.leaves()], scale)
    return {i: {"advantage": a} for i, a in _mean_below(forest, per_leaf).items()}


def tree_grpo(forest: Forest, *, scale: str = "std") -> dict[int, dict[str, float]]:
    """Tree-GRPO; parts: ``advantage_intra``, ``advantage_inter``, ``advantage`` (their sum)."""
    inter = _leaf_values(forest, [n.id for n in forest.leaves()], scale)
    intra: dict[int, float] = {}
    for tree in forest.trees():
        intra.update(_leaf_values(forest, [n.id for n in forest.leaves(tree)], scale))
    node_intra, node_inter = _mean_below(forest, intra), _mean_below(forest, inter)
    return {i: {"advantage_intra": node_intra[i], "advantage_inter": node_inter[i],
                "advantage": node_intra[i] + node_inter[i]} for i in node_intra}


def discounted_returns(forest: Forest, leaf_id: int, gamma: float) -> dict[int, float]:
    """GiGPO Eq. 5 along one trajectory: step node id -> :math:`\\sum_{k \\ge t} \\gamma^{k-t} r_k`."""
    out, running = {}, 0.0
    for node in reversed(forest.path(leaf_id)):
        running = node.reward + gamma * running
        out[node.id] = running
    return out


def step_returns(forest: Forest, gamma: float) -> dict[int, float]:
    """Per step node: the mean discounted return (Eq. 5) over the trajectories through it."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for leaf in forest.leaves():
        for node_id, ret in discounted_returns(forest, leaf.id, gamma).items():
            sums[node_id] = sums.get(node_id, 0.0) + ret
            counts[node_id] = counts.get(node_id, 0) + 1
    return {i: sums[i] / counts[i] for i in sums}


def anchor_groups(forest: Forest) -> dict[str, list[int]]:
    """GiGPO Eq. 6: pre-state identity -> the step nodes taken from that state (by id).

    A step whose pre-state has no known identity (empty ``state_key``) is its own group."""
    groups: dict[str, list[int]] = {}
    for node in forest.steps():
        key = forest.pre_state_key(node.id) or f"node:{node.parent}"
        groups.setdefault(key, []).append(node.id)
    return groups


def gigpo(forest: Forest, *, gamma: float = 0.95, omega: float = 1.0,
          scale: str = "std") -> dict[int, dict[str, float | str]]:
    """GiGPO; parts: ``advantage_episode`` (Eq. 3), ``advantage_step`` (Eq. 7), ``anchor`` (the
    Eq. 6 group's key), ``anchor_size``, ``advantage`` (Eq. 8)."""
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    episode = _mean_below(forest, _leaf_values(forest, [n.id for n in forest.leaves()], scale))
    returns = step_returns(forest, gamma)
    out: dict[int, dict[str, float | str]] = {}
    for key, members in anchor_groups(forest).items():
        step = group_relative([returns.get(i, 0.0) for i in members], scale=scale)
        for node_id, a_step in zip(members, step):
            out[node_id] = {"advantage_episode": episode[node_id], "advantage_step": a_step, "anchor": key,
                            "anchor_size": len(members), "advantage": episode[node_id] + omega * a_step}
    return {i: out[i] for i in sorted(out)}
