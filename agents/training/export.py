"""Training data from saved search trees: DPO pairs, SFT trajectories and per-node value labels.

``treegym export INPUT... --format dpo|sft|values|prm --out FILE.jsonl`` (``scripts/cmd_export.py``)
calls :func:`export`. Inputs are saved trees (files or folders) and run-record files whose
records name their tree (``treegym run ... --save-trees``); see ``trees.py`` for how trees are
read, how node values are defined (``--value outcome|search``) and how a path becomes chat
messages. One JSON object per line, in a deterministic order: inputs in the order given
(folders sorted by path), nodes by id, pairs by (parent id, chosen id, rejected id).

Every line carries the provenance fields ``env_id``, ``task_id`` (a string), ``algorithm``,
``tree`` (the tree file) and ``value_source``.

**dpo** - step-level preference pairs in TRL's conversational preference format (the
``DPOTrainer`` dataset: ``prompt`` / ``chosen`` / ``rejected`` lists of ``{"role", "content"}``):

* ``prompt``: the conversation from the root to a node P (ends with a ``user`` message);
* ``chosen`` / ``rejected``: one ``assistant`` message each, the actions of two children of P
  whose values differ by at least ``min_gap`` (the higher-valued one is chosen; children whose
  value is None are never paired), so both share the prefix ``prompt``;
* ``chosen_value``, ``rejected_value``, ``value_gap`` (their difference, >= ``min_gap``),
  ``node_id`` (P), ``chosen_node``, ``rejected_node``, ``depth`` (P's depth).

**sft** - the winning paths (root to a terminal node where the env reported success) as
chat trajectories: ``messages`` (system, user, then assistant/user turns, ending with the
winning ``assistant`` action), ``node_id`` (the terminal node), ``chosen`` (whether the
search played this path), ``steps``, ``reward`` (the last step's reward).

**values** - one line per non-root node, for process reward models: ``prompt`` (the
conversation to the node's parent), ``completion`` (the node's ``assistant`` action),
``value`` (float or null), ``label`` (``value >= label_threshold``; null when the value is),
``node_id``, ``parent_id``, ``depth``, ``visits``, ``terminal``, ``success``. Lines with a
label are TRL's conversational unpaired-preference format (``KTOTrainer``).

**prm** - TRL's stepwise-supervision format (``PRMTrainer``), one line per path to a terminal
node whose steps all have a value: ``prompt`` (the system text and the first observation, a
string), ``completions`` (one string per step: the action, a newline, the observation it
led to), ``labels`` (per step, ``value >= label_threshold``), ``values``, ``node_id`` (the
terminal node), ``success``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ...envs.core.utf8_json import dump_line
from .trees import ExportError, SavedTree, conversation, load_inputs, node_values, system_prompt

FORMATS = ("dpo", "sft", "values", "prm")


@dataclass(frozen=True)
class ExportOptions:
    """``min_gap``: smallest value difference of a DPO pair (in the value source's units);
    ``value_source``: ``outcome`` or ``search``; ``label_threshold``: a values line's ``label``
    is ``value >= label_threshold``; ``system``: start conversations with the env's task
    description as a system message."""

    format: str = "dpo"
    value_source: str = "outcome"
    min_gap: float = 0.5
    label_threshold: float = 0.5
    system: bool = True


def _provenance(tree: SavedTree, opts: ExportOptions) -> dict[str, Any]:
    return {"env_id": tree.env_id, "task_id": tree.task_id, "algorithm": tree.algorithm, "tree": tree.source,
            "value_source": opts.value_source}


def _assistant(node: dict) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": str(node.get("action") or "")}]


def dpo_pairs(tree: SavedTree, opts: ExportOptions, system: str | None) -> Iterator[dict[str, Any]]:
    """The step-level preference pairs of one tree (see module docstring)."""
    values = node_values(tree, opts.value_source)
    for parent in sorted(tree.nodes):
        kids = [c for c in tree.children[parent] if values[c] is not None and tree.nodes[c].get("action")]
        pairs = []
        for i, a in enumerate(kids):
            for b in kids[i + 1:]:
                hi, lo = (a, b) if values[a] >= values[b] else (b, a)
                gap = values[hi] - values[lo]
                if gap >= opts.min_gap and tree.nodes[hi].get("action") != tree.nodes[lo].get("action"):
                    pairs.append((hi, lo, gap))
        if not pairs:
            continue
        prompt = conversation(tree, parent, system)
        for hi, lo, gap in sorted(pairs):
            yield {"prompt": prompt, "chosen": _assistant(tree.nodes[hi]), "rejected": _assistant(tree.nodes[lo]),
                   "chosen_value": float(values[hi]), "rejected_value": float(values[lo]),
                   "value_gap": round(float(gap), 6), "node_id": parent, "chosen_node": hi, "rejected_node": lo,
                   "depth": int(tree.nodes[parent].get("depth") or 0), **_provenance(tree, opts)}


def sft_trajectories(tree: SavedTree, opts: ExportOptions, system: str | None) -> Iterator[dict[str, Any]]:
    """The winning paths of one tree as chat trajectories (see module docstring)."""
    chosen_path = {n["id"] for n in tree.path(tree.chosen)} if tree.chosen is not None else set()
    for i in sorted(tree.nodes):
        node = tree.nodes[i]
        if not (node.get("terminal") and node.get("success")) or node.get("parent") is None:
            continue
        messages = conversation(tree, i, system)[:-1]  # ends with the winning action, not the page after it
        yield {"messages": messages, "node_id": i, "chosen": i in chosen_path, "steps": int(node.get("depth") or 0),
               "reward": float(node.get("reward") or 0.0), **_provenance(tree, opts)}


def value_labels(tree: SavedTree, opts: ExportOptions, system: str | None) -> Iterator[dict[str, Any]]:
    """One value-labelled step per non-root node of one tree (see module docstring)."""
    values = node_values(tree, opts.value_source)
    prompts: dict[int, list[dict[str, str]]] = {}
    for i in sorted(tree.nodes):
        node = tree.nodes[i]
        parent = node.get("parent")
        if parent is None:
            continue
        if parent not in prompts:
            prompts[parent] = conversation(tree, parent, system)
        v = values[i]
        yield {"prompt": prompts[parent], "completion": _assistant(node),
               "value": None if v is None else float(v), "label": None if v is None else bool(v >= opts.label_threshold),
               "node_id": i, "parent_id": parent, "depth": int(node.get("depth") or 0),
               "visits": int(node.get("visits") or 0), "terminal": bool(node.get("terminal")),
               "success": bool(node.get("success")), **_provenance(tree, opts)}


def prm_paths(tree: SavedTree, opts: ExportOptions, system: str | None) -> Iterator[dict[str, Any]]:
    """TRL's stepwise-supervision lines (``PRMTrainer``), one per path to a terminal node (see module docstring)."""
    values = node_values(tree, opts.value_source)
    for i in sorted(tree.nodes):
        if not tree.nodes[i].get("terminal") or tree.nodes[i].get("parent") is None:
            continue
        steps = tree.path(i)[1:]
        if any(values[n["id"]] is None for n in steps):
            continue
        first = conversation(tree, tree.root["id"], None)[0]["content"]
        yield {"prompt": f"{system}\n\n{first}" if system else first,
               "completions": [f"{n.get('action') or ''}\n{tree.text(n)}" for n in steps],
               "labels": [bool(values[n["id"]] >= opts.label_threshold) for n in steps],
               "values": [float(values[n["id"]]) for n in steps], "node_id": i,
               "success": bool(tree.nodes[i].get("success")), **_provenance(tree, opts)}


_BUILDERS: dict[str, Callable[[SavedTree, ExportOptions, str | None], Iterator[dict]]] = {
    "dpo": dpo_pairs, "sft": sft_trajectories, "values": value_labels, "prm": prm_paths,
}


def export_lines(trees: Sequence[SavedTree], opts: ExportOptions) -> Iterator[dict[str, Any]]:
    """Every output line of ``trees`` under ``opts``, in order."""
    if opts.format not in _BUILDERS:
        raise ExportError(f"unknown export format {opts.format!r}; use one of: {', '.join(FORMATS)}")
    systems: dict[str, str | None] = {}
    for tree in trees:
        if tree.env_id not in systems:
            systems[tree.env_id] = system_prompt(tree.env_id) if opts.system else None
        yield from _BUILDERS[opts.format](tree, opts, systems[tree.env_id])


def export(inputs: Sequence[str | os.PathLike], out: str | os.PathLike, opts: ExportOptions,
           warn: Callable[[str], None] = lambda _m: None) -> dict[str, int]:
    """Write the lines of every tree behind ``inputs`` to ``out`` (atomically); returns counts:
    ``trees`` (saved search trees), ``replayed`` (one-path trees replayed from records without one), ``lines``, ``cut_observations`` (nodes with only a cut excerpt of their observation)."""
    trees = load_inputs(inputs, warn)
    cut = sum(t.cut_observations() for t in trees)
    if cut:
        warn(f"{cut} node(s) kept only the first characters of their observation (trees saved by an older "
             "treegym); their messages are cut")
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"--out {out} is a folder; name a .jsonl file")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    n = 0
    with tmp.open("wb") as fh:
        for line in export_lines(trees, opts):
            fh.write(dump_line(line)[0])  # a lone surrogate (an LLM answer) is kept as a JSON \u escape
            n += 1
    os.replace(tmp, out)
    replayed = sum(1 for t in trees if t.replayed)
    return {"trees": len(trees) - replayed, "replayed": replayed, "lines": n, "cut_observations": cut}
