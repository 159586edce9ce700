"""Reading a results file (JSON lines) the way the tests check one: every non-blank line, parsed."""
from __future__ import annotations

import json
from pathlib import Path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
