"""``python -m treegym.envs.restbench.build``: rebuild ``data/tasks.json`` (the generated tasks, ``tasks.py``)
and ``data/restbench_tasks.json`` (RestBench's own 157 queries, ``restbench.py``)."""
from __future__ import annotations

import json
import sys
from collections import Counter

from .catalog import RestData
from .restbench import build_restbench_tasks
from .tasks import DATA_DIR, build_tasks
from treegym.envs.tools_common.fixtures import shipped_fixtures


def main() -> int:
    data = RestData(shipped_fixtures())
    tasks = build_tasks(data)
    DATA_DIR.mkdir(exist_ok=True)
    (DATA_DIR / "tasks.json").write_text(json.dumps(tasks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    real = build_restbench_tasks(data)
    (DATA_DIR / "restbench_tasks.json").write_text(json.dumps(real, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    c = Counter((t["api"], t["split"]) for t in tasks + real)
    print(f"wrote {len(tasks)} generated and {len(real)} RestBench tasks to {DATA_DIR}: {dict(c)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
