"""``python -m treegym.scripts.dev.import_graph [PACKAGE ...]``: import cycles and upward arrows among treegym modules.

Reads the source (``ast``, nothing is imported) of every module under the given
sub-packages of ``treegym`` (default: all of them) and prints

* every **import cycle** (a strongly connected group of modules), each arrow
  marked ``module`` (a module-level import) or ``function`` (inside a function
  or method); a package's ``__init__`` re-exporting its own modules counts;
* every **upward arrow** against the declared layering (:data:`FORBIDDEN`):
  ``envs`` imports nothing from ``agents``/``servers``/``scripts``; ``servers``
  nothing from ``agents``/``scripts``; ``agents.llm`` nothing else from ``agents``; nothing
  that ships imports the clone-only :data:`NOT_SHIPPED` packages (benchmarks, dev tools);
* modules over :data:`MAX_LINES` lines (reported, not a failure: data modules may be long).

Exit status 1 when there is a cycle or an upward arrow, else 0. ``TYPE_CHECKING``-only
imports are ignored (they never run).
"""
from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT_NAME = "treegym"
MAX_LINES = 400
#: (importer prefix, imported prefix, allowed exception prefix or None)
FORBIDDEN: tuple[tuple[str, str, str | None], ...] = (
    ("treegym.envs", "treegym.agents", None),
    ("treegym.envs", "treegym.servers", None),
    ("treegym.envs", "treegym.scripts", None),
    ("treegym.servers", "treegym.agents", None),
    ("treegym.servers", "treegym.scripts", None),
    ("treegym.agents.llm", "treegym.agents", "treegym.agents.llm"),
)
#: Packages that run from a clone only (not in the wheel): nothing that ships may import them.
NOT_SHIPPED: tuple[str, ...] = ("treegym.scripts.bench", "treegym.scripts.dev")


@dataclass(frozen=True)
class Arrow:
    source: str
    target: str
    kind: str  # "module" or "function"
    line: int


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


def arrows_of(module: str, path: Path, known: set[str]) -> list[Arrow]:
    """The imports of ``module`` that name treegym modules in ``known`` (module-level or function-level)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[Arrow] = []

    def target_of(name: str) -> str | None:
        # the longest known module that is ``name`` or a parent of it
        while name:
            if name in known:
                return name
            name = name.rpartition(".")[0]
        return None

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    visit_one(sub, in_function)
                continue
            visit_one(child, in_function)

    def visit_one(child: ast.AST, in_function: bool) -> None:
        kind = "function" if in_function else "module"
        if isinstance(child, ast.Import):
            for alias in child.names:
                t = target_of(alias.name)
                if t and t != module:
                    found.append(Arrow(module, t, kind, child.lineno))
        elif isinstance(child, ast.ImportFrom):
            base = _resolve(module, is_package, child.level, child.module)
            for alias in child.names:
                t = target_of(f"{base}.{alias.name}") or target_of(base)
                if t and t != module:
                    found.append(Arrow(module, t, kind, child.lineno))
        else:
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
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


def upward(arrows: list[Arrow]) -> list[Arrow]:
    """Arrows that break :data:`FORBIDDEN`."""
    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")

    bad = []
    for a in arrows:
        if any(under(a.target, p) for p in NOT_SHIPPED) and not any(under(a.source, p) for p in NOT_SHIPPED):
            bad.append(a)
            continue
        for src, dst, allowed in FORBIDDEN:
            if under(a.source, src) and under(a.target, dst) and not (allowed and under(a.target, allowed)):
                bad.append(a)
                break
    return bad


def report(packages: list[str], root: Path | None = None) -> tuple[list[str], bool]:
    """Lines to print and whether the graph is clean (no cycle, no upward arrow)."""
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
    for m, p in sorted(files.items()):
        n = sum(1 for _ in p.open(encoding="utf-8"))
        if n > MAX_LINES:
            lines.append(f"long module ({n} lines > {MAX_LINES}): {m}")
    lines.append(f"{len(files)} modules, {len(arrows)} imports under {', '.join(packages)}: "
                 f"{len(groups)} cycle(s), {len(bad)} upward arrow(s)")
    return lines, not groups and not bad


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m treegym.scripts.dev.import_graph", description=__doc__.split("\n\n")[0])
    p.add_argument("packages", nargs="*", default=None,
                   help="sub-packages of treegym to check (default: envs agents servers scripts)")
    args = p.parse_args(argv)
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
