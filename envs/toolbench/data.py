"""Loading the shipped tasks (``data/queries/G*_query.json`` + ``data/splits.json``), once per process."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .service import DATA_DIR
from .tasks import GROUPS, load_query_file


@lru_cache(maxsize=1)
def shipped_tasks() -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = []
    for g in GROUPS:
        path = DATA_DIR / "queries" / f"{g}_query.json"
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing; run python -m treegym.envs.toolbench.build")
        out.extend(load_query_file(path))
    return tuple(out)


@lru_cache(maxsize=1)
def shipped_splits() -> dict[str, tuple[int, ...]]:
    data = json.loads((DATA_DIR / "splits.json").read_text(encoding="utf-8"))
    return {"test": tuple(data["test"]), "dev": tuple(data["dev"]),
            "all": tuple(t["query_id"] for t in shipped_tasks())}
