"""The README's examples are files in envs/examples/: every README code block marked
``<!-- example: envs/examples/NAME.py -->`` equals that file without its module docstring,
and the files run. A README edit that is not made in the file (or the reverse) fails here."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKED = re.compile(r"<!-- example: (envs/examples/[A-Za-z0-9_]+\.py) -->\n```python\n(.*?)```\n", re.S)


def _marked_blocks() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = {path: code for path, code in MARKED.findall(text)}
    assert len(blocks) == text.count("<!-- example: "), "a README example marker is not followed by a python block"
    return blocks


def _body(path: str) -> str:
    shipped = (ROOT / path).read_text(encoding="utf-8")
    assert shipped.startswith('"""'), f"{path}: the example file starts with its docstring"
    return shipped.split('"""\n', 1)[1]


def test_the_readme_marks_its_examples():
    assert set(_marked_blocks()) >= {"envs/examples/quickstart.py", "envs/examples/number_walk.py"}


@pytest.mark.parametrize("path", sorted(_marked_blocks()))
def test_each_readme_example_is_its_file(path):
    assert _body(path) == _marked_blocks()[path], f"README's block and {path} differ: edit both"


def test_the_quickstart_example_runs():
    done = subprocess.run([sys.executable, "-m", "treegym.envs.examples.quickstart"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "obtain 24" in done.stdout and "(left: " in done.stdout
