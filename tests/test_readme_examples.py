"""The docs' examples are files in envs/examples/: every code block of README.md or docs/*.md marked
``<!-- example: envs/examples/NAME.py -->`` equals that file without its module docstring,
and the files run. A docs edit that is not made in the file (or the reverse) fails here
(tests/test_docs_examples.py runs every python block of the pages)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKED = re.compile(r"<!-- example: (envs/examples/[A-Za-z0-9_]+\.py) -->\n```python\n(.*?)```\n", re.S)


def _marked_blocks(pages: list[Path] = PAGES) -> dict[str, str]:
    blocks: dict[str, str] = {}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        found = MARKED.findall(text)
        assert len(found) == text.count("<!-- example: "), f"{page.name}: an example marker is not followed by a python block"
        blocks.update(found)
    return blocks


def _body(path: str) -> str:
    shipped = (ROOT / path).read_text(encoding="utf-8")
    assert shipped.startswith('"""'), f"{path}: the example file starts with its docstring"
    return shipped.split('"""\n', 1)[1]


def test_the_pages_mark_their_examples():
    assert set(_marked_blocks([ROOT / "README.md"])) >= {"envs/examples/quickstart.py"}
    assert set(_marked_blocks([ROOT / "docs" / "envs.md"])) >= {"envs/examples/number_walk.py"}


@pytest.mark.parametrize("path", sorted(_marked_blocks()))
def test_each_readme_example_is_its_file(path):
    assert _body(path) == _marked_blocks()[path], f"the docs' block and {path} differ: edit both"


def test_the_quickstart_example_runs():
    done = subprocess.run([sys.executable, "-m", "treegym.envs.examples.quickstart"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "obtain 24" in done.stdout and "(left: " in done.stdout
