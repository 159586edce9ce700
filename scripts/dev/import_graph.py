"""``python -m treegym.scripts.dev.import_graph [PACKAGE ...]``: the enforced layering, import cycles, unexplained lazy imports.

Reads the source (``ast``, nothing is imported) of every module under the given
sub-packages of ``treegym`` (default: all of them) and prints

* every **import cycle** (a strongly connected group of modules), each arrow
  marked ``module`` (a module-level import), ``function`` (inside a function
  or method) or ``type-checking`` (under ``if TYPE_CHECKING:``); a package's
  ``__init__`` re-exporting its own modules counts. A module named by a string for
  ``importlib`` (a plugin: a registry scanning its packages, a family naming its server, the
  LLM factory's built-in backends) is a registration, not an arrow, and is not read;
* every **upward arrow** against the layering table :data:`LAYERS` (bottom floor first): a
  module may import its own unit and the units on lower floors, never a unit on its own floor
  or above, nor across an :data:`APART` pair; every import statement counts, function-level
  and ``TYPE_CHECKING`` ones included. A module of a table's package (``envs``, ``agents``, ...)
  that no unit holds is reported as **unplaced** (other folders are checked for cycles only);
* every **function-level import** of a treegym module without a ``# lazy: <reason>`` comment
  on its line or the line above (reported, not a failure here: the test holds the
  allow-list of modules whose lazy imports are by design);
* modules over :data:`MAX_LINES` lines (reported, not a failure: data modules may be long).

``--diagram`` prints the layering drawn from :data:`LAYERS` (docs/DESIGN.md holds it verbatim).
Exit status 1 when there is a cycle, an upward arrow or an unplaced module, else 0.
"""
from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT_NAME = "treegym"
MAX_LINES = 400
LAZY_MARK = "# lazy:"


@dataclass(frozen=True)
class Unit:
    """A part of the tree on one floor: the module ``name`` and, when ``package``, everything under it."""

    name: str
    what: str
    package: bool = True


#: The enforced layering, bottom floor first. Units on one floor are siblings: they import
#: neither each other nor anything above. Inside ``agents/`` the order reads: the transport
#: knows chat messages only; typed requests, the policy protocol and plugin discovery sit on
#: it; prompt specs and the agent registry on those; simulated models answer typed requests and
#: know no agent; search algorithms act through requests and prompts, beside the LLM factory
#: that picks among the transport's and the simulated backends (neither knows the other);
#: baselines reuse the search runner (greedy continuation, reflection); experiments run any
#: agent; training exports what experiments record; the front door re-exports from all. The CLI
#: sits on everything; the clone-only benchmarks on the CLI, and the dev tools (the soak run reuses
#: the benchmarks' support) on top.
LAYERS: tuple[tuple[Unit, ...], ...] = (
    (Unit("treegym.envs", "the snapshot protocol, Engine + EngineEnv, task pools; one package per family"),),
    (Unit("treegym.agents.llm", "the transport: Request -> list[str]; backends, cache, budget"),
     Unit("treegym.servers", "HTTP servers over env engines: sessions, sites, tool APIs, OpenEnv")),
    (Unit("treegym.agents.requests", "typed requests (react, propose, compare, value, reflect, imagine)"),
     Unit("treegym.agents.policy", "the Policy protocol and BasePolicy"),
     Unit("treegym.agents.discovery", "entry points and in-tree scans that register plugins")),
    (Unit("treegym.agents.prompts", "prompt specs as data, one per env family"),
     Unit("treegym.agents.registry", "agent names -> factories (make_agent)")),
    (Unit("treegym.agents.simulated", "scripted and synthetic LLMs, the oracle: they read the request"),),
    (Unit("treegym.agents.search", "the tree, the search runner, one module per algorithm"),
     Unit("treegym.agents.llm_specs", "LLM spec strings -> backends, simulated ones included (make_llm)")),
    (Unit("treegym.agents.baselines", "ReAct, Auto-GPT, Reflexion, cot@K / sc@K, rule policies"),),
    (Unit("treegym.agents.experiments", "episodes, evaluation, sweeps, executors, results files, report"),),
    (Unit("treegym.agents.training", "export of runs and trees, GRPO groups, trainer adapters"),),
    (Unit("treegym.agents", "the front door: make_agent, make_llm, run_episode, evaluate, ...", package=False),),
    (Unit("treegym.scripts", "the `treegym` CLI: cli.py and one cmd_*.py per command"),),
    (Unit("treegym.scripts.bench", "benchmarks and their support (clone-only: not in the wheel)"),),
    (Unit("treegym.scripts.dev", "developer tools: this graph, soak, parity, mutation (clone-only)"),),
)
#: Units that never import each other although their floors would allow it.
APART: tuple[tuple[str, str], ...] = (("treegym.agents", "treegym.servers"),)


@dataclass(frozen=True)
class Arrow:
    source: str
    target: str
    kind: str  # "module", "function" or "type-checking"
    line: int
    reason: str = ""  # a function-level import's ``# lazy:`` comment


def package_root() -> Path:
    """The folder ``treegym`` maps to: the repository root (envs/, agents/, ...) or, installed,
    site-packages/treegym; this file is its scripts/dev/import_graph.py."""
    return Path(__file__).resolve().parents[2]


def module_files(root: Path, packages: list[str]) -> dict[str, Path]:
    """``treegym.x.y`` -> its file, for the sub-packages ``packages`` (folders under ``root``)."""
    out: dict[str, Path] = {}
    for package in packages:
        base = root / package
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if any(p.startswith(".") or p == "__pycache__" for p in parts):
                continue
            out[".".join([ROOT_NAME, *parts])] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([name] if name else []))


def _lazy_reasons(source: str) -> dict[int, tuple[str, bool]]:
    """line -> (the text after ``# lazy:`` of a comment on that line, whether the comment is the whole line)."""
    out: dict[int, tuple[str, bool]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and LAZY_MARK in tok.string:
            alone = not tok.line[: tok.start[1]].strip()
            out[tok.start[0]] = (tok.string.split(LAZY_MARK, 1)[1].strip(), alone)
    return out


def arrows_of(module: str, path: Path, known: set[str]) -> list[Arrow]:
    """The imports of ``module`` that name treegym modules in ``known``: module-level, function-level
    (with their ``# lazy:`` reason, on the import's lines or the line above) and ``TYPE_CHECKING``."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    reasons = _lazy_reasons(source)
    is_package = path.name == "__init__.py"
    found: list[Arrow] = []

    def target_of(name: str) -> str | None:
        # the longest known module that is ``name`` or a parent of it
        while name:
            if name in known:
                return name
            name = name.rpartition(".")[0]
        return None

    def reason_of(node: ast.stmt) -> str:
        above = reasons.get(node.lineno - 1)
        if above and above[1]:  # a comment line of its own right above the import
            return above[0]
        own = range(node.lineno, (node.end_lineno or node.lineno) + 1)
        return next((reasons[n][0] for n in own if n in reasons), "")

    def visit(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.body:
                    visit_one(sub, "type-checking")
                for sub in child.orelse:
                    visit_one(sub, kind)
                continue
            visit_one(child, kind)

    def add(child: ast.stmt, target: str | None, kind: str) -> None:
        if target and target != module:
            found.append(Arrow(module, target, kind, child.lineno, reason_of(child) if kind == "function" else ""))

    def visit_one(child: ast.AST, kind: str) -> None:
        if isinstance(child, ast.Import):
            for alias in child.names:
                add(child, target_of(alias.name), kind)
        elif isinstance(child, ast.ImportFrom):
            base = _resolve(module, is_package, child.level, child.module)
            for alias in child.names:
                add(child, target_of(f"{base}.{alias.name}") or target_of(base), kind)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and kind == "module":
            visit(child, "function")
        else:
            visit(child, kind)

    visit(tree, "module")
    return found


def cycles(arrows: list[Arrow]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for a in arrows:
        graph.setdefault(a.source, set()).add(a.target)
        graph.setdefault(a.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def under(name: str, prefix: str) -> bool:
    """Whether module ``name`` is ``prefix`` or inside it."""
    return name == prefix or name.startswith(prefix + ".")


def placement(module: str) -> tuple[int, Unit] | None:
    """The floor (0 = bottom) and unit of ``module``: the unit with the longest name that holds it."""
    best: tuple[int, Unit] | None = None
    for floor, units in enumerate(LAYERS):
        for unit in units:
            holds = under(module, unit.name) if unit.package else module == unit.name
            if holds and (best is None or len(unit.name) > len(best[1].name)):
                best = (floor, unit)
    return best


def upward(arrows: list[Arrow]) -> list[Arrow]:
    """Arrows that break :data:`LAYERS` or :data:`APART` (every kind of import counts)."""
    bad = []
    for a in arrows:
        src, dst = placement(a.source), placement(a.target)
        if src is None or dst is None or src[1] == dst[1]:
            continue
        if dst[0] >= src[0] or any(under(a.source, x) and under(a.target, y) or under(a.source, y) and under(a.target, x)
                                   for x, y in APART):
            bad.append(a)
    return bad


def unexplained_lazy(arrows: list[Arrow]) -> list[Arrow]:
    """Function-level imports of treegym modules without a ``# lazy:`` reason."""
    return [a for a in arrows if a.kind == "function" and not a.reason]


def diagram() -> str:
    """:data:`LAYERS` drawn top floor first, each unit with what it holds; arrows point down."""
    width = max(len(u.name) for units in LAYERS for u in units)
    out: list[str] = []
    for floor in range(len(LAYERS) - 1, -1, -1):
        for i, unit in enumerate(LAYERS[floor]):
            label = f"{floor:>2}  " if i == 0 else "    "
            out.append(f"{label}{unit.name:<{width}}  {unit.what}".rstrip())
        if floor:
            out.append("     │")
            out.append("     ▼")
    out.append("")
    out.append("Units on one floor import neither each other nor anything above; apart: "
               + "; ".join(f"{x} ↮ {y}" for x, y in APART) + ".")
    return "\n".join(out)


def report(packages: list[str], root: Path | None = None) -> tuple[list[str], bool]:
    """Lines to print and whether the graph is clean (no cycle, no upward arrow, no unplaced module)."""
    root = root or package_root()
    files = module_files(root, packages)
    known = set(files)
    arrows = sorted({a for m, p in files.items() for a in arrows_of(m, p, known)},
                    key=lambda a: (a.source, a.target, a.line))
    lines: list[str] = []
    groups = cycles(arrows)
    for group in groups:
        members = set(group)
        lines.append(f"cycle: {' <-> '.join(group)}")
        for a in arrows:
            if a.source in members and a.target in members:
                lines.append(f"    {a.source} -> {a.target}  ({a.kind}-level import, line {a.line})")
    bad = upward(arrows)
    for a in bad:
        lines.append(f"upward arrow: {a.source} -> {a.target}  ({a.kind}-level import, line {a.line})")
    tops = {".".join(u.name.split(".")[:2]) for units in LAYERS for u in units}  # treegym.envs, ...
    unplaced = [m for m in sorted(files) if placement(m) is None and ".".join(m.split(".")[:2]) in tops]
    lines.extend(f"unplaced module (no unit of LAYERS holds it): {m}" for m in unplaced)
    for a in unexplained_lazy(arrows):
        lines.append(f"lazy import without a reason: {a.source}:{a.line} -> {a.target}")
    for m, p in sorted(files.items()):
        n = sum(1 for _ in p.open(encoding="utf-8"))
        if n > MAX_LINES:
            lines.append(f"long module ({n} lines > {MAX_LINES}): {m}")
    lines.append(f"{len(files)} modules, {len(arrows)} imports under {', '.join(packages)}: "
                 f"{len(groups)} cycle(s), {len(bad)} upward arrow(s)")
    return lines, not groups and not bad and not unplaced


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m treegym.scripts.dev.import_graph", description=__doc__.split("\n\n")[0])
    p.add_argument("packages", nargs="*", default=None,
                   help="sub-packages of treegym to check (default: envs agents servers scripts)")
    p.add_argument("--diagram", action="store_true", help="print the layering drawn from LAYERS and stop")
    args = p.parse_args(argv)
    if args.diagram:
        print(diagram())
        return 0
    root = package_root()
    packages = args.packages or [d for d in ("envs", "agents", "servers", "scripts") if (root / d).is_dir()]
    missing = [pk for pk in packages if not (root / pk).is_dir()]
    if missing:
        print(f"no such treegym sub-package: {', '.join(missing)} (under {root})", file=sys.stderr)
        return 2
    lines, clean = report(packages, root)
    print("\n".join(lines))
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
