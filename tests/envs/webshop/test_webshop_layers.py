"""The WebShop package has no import cycle even counting what the import-graph test skips: imports
inside functions and ``TYPE_CHECKING`` blocks (catalog <-> search and engine -> render -> site_urls ->
engine were such cycles). The order is catalog -> search, engine -> render -> site_urls, and the
site's navigation (site_navigation) above the engine."""
from __future__ import annotations

import ast
from pathlib import Path

from support.paths import REPO
from treegym.scripts.dev.import_graph import Arrow, cycles

PACKAGE = REPO / "envs" / "webshop"


def _every_import(path: Path) -> list[Arrow]:
    """Every arrow from ``path``'s module to a sibling module, at any depth of the syntax tree."""
    source = f"webshop.{path.stem}"
    siblings = {p.stem for p in PACKAGE.glob("*.py")}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            found += [Arrow(source, f"webshop.{n.split('.')[0]}", "any", node.lineno) for n in names
                      if n.split(".")[0] in siblings and n.split(".")[0] != path.stem]
    return found


def test_no_cycle_in_webshop_counting_lazy_and_type_checking_imports():
    arrows = [a for path in sorted(PACKAGE.glob("*.py")) if path.stem != "__init__" for a in _every_import(path)]
    assert ("webshop.catalog", "webshop.search") in {(a.source, a.target) for a in arrows}  # the walk sees lazy ones
    assert cycles(arrows) == []
