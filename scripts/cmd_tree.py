"""``treegym tree FILE``: show a saved search tree (``--agent-opt tree_out=FILE``) in the terminal.

One line per node, indented by depth: the action, the node's value under the
tree's own name (``elo``, ``f``, ``q``), visits, and marks: ``*`` on the chosen
path, ``[solved]`` / ``[failed]`` on terminal steps. ``--depth D`` stops below
depth D; ``--top K`` shows only the K best children of each node (highest
value, or lowest for the A* cost ``f``) and counts the rest.

``--html OUT`` writes OUT, one self-contained HTML page with the offline tree
viewer (no network: open it from disk in any browser): each node's action,
observation, value / visits, env step and the LLM prompts and answers kept on
it, with search and filters.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

LOWER_IS_BETTER = {"f"}


class TreeFileError(ValueError):
    """The file is not a readable treegym search tree; the message says why."""


def load_tree(path: str | Path) -> dict[str, Any]:
    """The tree JSON at ``path``, checked for the fields the renderer needs."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TreeFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TreeFileError(f"{path} is not JSON ({exc}); save trees with --agent-opt tree_out=FILE") from None
    except (ValueError, RecursionError) as exc:  # a path with a NUL byte, JSON nested too deeply
        raise TreeFileError(f"{path} is not JSON ({exc}); save trees with --agent-opt tree_out=FILE") from None
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) or not data["nodes"]:
        raise TreeFileError(f"{path} is JSON but not a treegym search tree (no 'nodes' list)")
    for i, n in enumerate(data["nodes"]):
        if not isinstance(n, dict) or "id" not in n or "parent" not in n:
            raise TreeFileError(f"{path}: node #{i} lacks 'id'/'parent'; the file is damaged or not a search tree")
    return data


def render_tree(data: dict[str, Any], depth: int | None = None, top: int | None = None,
                width: int = 100) -> str:
    """The tree as indented text (see module docstring)."""
    nodes = {n["id"]: n for n in data["nodes"]}
    children: dict[Any, list[dict]] = {}
    for n in data["nodes"]:
        children.setdefault(n["parent"], []).append(n)
    value_name = str(data.get("value_name") or "value")
    sign = 1.0 if value_name in LOWER_IS_BETTER else -1.0
    roots = children.get(None) or [data["nodes"][0]]
    total = len(nodes)
    solved = sum(1 for n in data["nodes"] if n.get("terminal") and n.get("success"))
    lines = [
        f"{data.get('algorithm') or 'search'} tree on {data.get('env_id') or '?'}: {total} nodes, "
        f"{solved} solved leaves, value = {value_name}"
        + (f", chosen node {data['chosen']}" if data.get("chosen") is not None else ", no answer chosen"),
    ]
    if data.get("instruction"):
        lines.append(f"task: {_clip(str(data['instruction']), width)}")

    def label(n: dict) -> str:
        mark = "*" if n.get("chosen") else " "
        action = n.get("action") or "(start)"
        end = ""
        if n.get("terminal"):
            end = "  [solved]" if n.get("success") else "  [failed]"
        value = n.get("value")
        value_text = f"{value:.3g}" if isinstance(value, (int, float)) else str(value)
        return f"{mark} {_clip(str(action), width)}  {value_name}={value_text} visits={n.get('visits', 0)}{end}"

    def walk(n: dict, prefix: str, last: bool, level: int) -> None:
        branch = "" if level == 0 else ("└─" if last else "├─")
        lines.append(f"{prefix}{branch}{label(n)}")
        kids = children.get(n["id"], [])
        if not kids:
            return
        child_prefix = prefix + ("" if level == 0 else ("   " if last else "│  "))
        if depth is not None and level >= depth:
            lines.append(f"{child_prefix}└─ … {_count(n['id'], children)} nodes below depth {depth}")
            return
        ranked = sorted(kids, key=lambda c: (not c.get("chosen"), sign * _num(c.get("value")), c["id"]))
        shown = ranked if top is None else ranked[:top]
        hidden = len(ranked) - len(shown)
        for i, c in enumerate(shown):
            walk(c, child_prefix, i == len(shown) - 1 and not hidden, level + 1)
        if hidden:
            lines.append(f"{child_prefix}└─ … {hidden} more children")

    for i, r in enumerate(roots):
        walk(r, "", i == len(roots) - 1, 0)
    return "\n".join(lines)


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) else 0.0


def _count(node_id: Any, children: dict[Any, list[dict]]) -> int:
    stack, n = list(children.get(node_id, [])), 0
    while stack:
        c = stack.pop()
        n += 1
        stack.extend(children.get(c["id"], []))
    return n


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {v}")
    return v


def run(args: argparse.Namespace) -> int:
    try:
        data = load_tree(args.file)
    except TreeFileError as exc:
        print(f"treegym tree: {exc}", file=sys.stderr)
        return 2
    if args.html:
        from treegym.agents.experiments.report.treeview import tree_title, write_tree_page

        try:
            out = write_tree_page(data, args.html, title=tree_title(data, Path(args.file).name))
        except OSError as exc:
            print(f"treegym tree: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {out} ({len(data['nodes'])} nodes); open it in a browser")
        return 0
    print(render_tree(data, depth=args.depth, top=args.top))
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("tree", help="show a saved search tree (tree_out=FILE) in the terminal",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="tree JSON written by a search agent with --agent-opt tree_out=FILE")
    p.add_argument("--depth", type=_positive, default=None, help="show nodes down to this depth only")
    p.add_argument("--top", type=_positive, default=None, help="show only the K best children of each node")
    p.add_argument("--html", metavar="OUT", default=None,
                   help="write a self-contained HTML viewer page for the tree to OUT instead of printing it")
    p.set_defaults(func=run)
