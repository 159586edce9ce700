"""Every ```python block of README.md and docs/*.md runs, or says why not.

A page's blocks run in page order in one namespace (a reader's session: a block may use what an
earlier block of the same page made), as ``__main__``, in a fresh interpreter in a temporary folder.
A block preceded by ``<!-- not run: REASON -->`` is skipped, and must give its reason. Blocks
marked ``<!-- example: envs/examples/NAME.py -->`` also equal their file
(tests/test_readme_examples.py). The README's "Add your own env" block is also copied verbatim to a
file and played through ``treegym check`` and ``treegym run`` as the README says; so is
docs/envs.md's ForkableEnv example.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"<!-- not run: (.*?) -->")
SLOW_PAGES = {"training.md"}  # 16 WebShop rollouts and a 16-env ALFWorld vector env


def python_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """(line number, code, not-run reason or None) of each python block of ``page``."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in BLOCK.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        reason = NOT_RUN.fullmatch(before.strip())
        blocks.append((text.count("\n", 0, match.start()) + 2, match.group(1), reason and reason.group(1)))
    return blocks


RUNNER = """
import json, sys
scope = {"__name__": "__main__"}
for line, code in json.load(sys.stdin):
    exec(compile(code, f"%s:{line}", "exec"), scope)
"""


def _page_param(page: Path):
    marks = [pytest.mark.slow] if page.name in SLOW_PAGES else []
    return pytest.param(page, id=page.name, marks=marks)


def test_every_page_with_python_is_covered_and_not_run_blocks_say_why():
    assert any(python_blocks(page) for page in PAGES)
    for page in PAGES:
        for line, _code, reason in python_blocks(page):
            assert reason is None or len(reason.strip()) > 10, f"{page.name}:{line}: a not-run block names its reason"
    # the README's python blocks all run: it is the front page
    assert all(reason is None for _line, _code, reason in python_blocks(ROOT / "README.md"))


@pytest.mark.parametrize("page", [_page_param(p) for p in PAGES if any(r is None for *_, r in python_blocks(p))])
def test_each_page_runs_its_python_blocks_in_order(page, tmp_path):
    runnable = [(line, code) for line, code, reason in python_blocks(page) if reason is None]
    done = subprocess.run([sys.executable, "-c", RUNNER % page.relative_to(ROOT)], input=json.dumps(runnable),
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


def _block_after(page: str, start: str) -> str:
    """The first python block of ``page`` after the text ``start``."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return text[text.index(start):].split("```python\n", 1)[1].split("```", 1)[0]


def _treegym(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    code = "import sys; from treegym.scripts.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True)


# (page, where its env block is, the file the page says to save it as, the id, a `treegym run` to play)
OWN_ENV_BLOCKS = [
    ("README.md", "## Add your own env", "walk", "mysuite/Walk-v0", ("--agent", "elo", "--llm", "synthetic:p_correct=0.8")),
    ("docs/envs.md", "<!-- example: envs/examples/number_walk.py -->", "number_walk", "mysuite/NumberWalk-v0",
     ("--agent", "oracle", "--tasks", "0")),
]


@pytest.mark.parametrize("page, start, module, env_id, run_args", OWN_ENV_BLOCKS, ids=[b[2] for b in OWN_ENV_BLOCKS])
def test_an_own_env_block_saved_as_a_file_checks_and_plays_through_the_cli(page, start, module, env_id, run_args,
                                                                           tmp_path):
    (tmp_path / f"{module}.py").write_text(_block_after(page, start), encoding="utf-8")
    done = subprocess.run([sys.executable, f"{module}.py"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "rollback OK" in done.stdout, done.stderr
    done = _treegym("check", f"{module}:{env_id}", cwd=tmp_path)
    assert done.returncode == 0 and "rollback OK" in done.stdout, done.stderr
    done = _treegym("run", f"{module}:{env_id}", *run_args, "--out", "runs.jsonl", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert records and all(r["error"] is None and r["success"] for r in records)

LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of ``page`` (lower case, punctuation dropped, spaces to hyphens)."""
    text = re.sub(r"^```.*?^```$", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    heads = re.findall(r"^#{1,6} (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


@pytest.mark.parametrize("page", [pytest.param(p, id=p.name) for p in PAGES])
def test_relative_links_of_each_page_reach_a_file_and_its_heading(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.name}")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_the_readme_is_a_front_page_that_links_every_docs_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250, "the README is the front page: move detail to a docs/ page"
    heads = re.findall(r"^## (.+)$", text, re.M)
    assert heads[:2] == ["Two commands", "Envs"] and "Data and credits" in heads
    linked = {target.partition("#")[0] for target in LINK.findall(text)}
    assert {f"docs/{page.name}" for page in PAGES[1:]} <= linked
