"""The wheel and the sdist work like the clone: built from the tracked files, installed into fresh
venvs (no system site-packages, no repository on the path), used from a folder outside the repo.

For each artifact: ``treegym --version`` prints pyproject's version; every registered id either
makes (then ``treegym check`` passes on it: make, reset, step, snapshot, restore, from the installed
data) or says in one line which extra to install; one ``treegym run`` of a search agent writes its
records; the benchmarks and dev tools are absent. The wheel's file list is checked too: every data
file the families ship is in it, nothing that is not needed (tests, benchmarks, dev tools, docs,
figures) is, and it stays within the size budget of docs/install.md. Dependencies come from PyPI
(or pip's cache).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
#: the wheel's size budget (compressed), stated in docs/install.md
WHEEL_BUDGET_MB = 4.0
#: folders of the families' run-time files (data, templates, games): all of their tracked files ship,
#: except these documentation files
DATA_DIRS = re.compile(r"^envs/[a-z0-9_]+/(data|templates|games)/")
NOT_DATA = re.compile(r"(\.py|\.md)$")
#: what never ships (paths inside the wheel's treegym/ and the sdist's top folder)
UNWANTED = re.compile(r"(^|/)(tests|scripts/bench|scripts/dev)/|\.(md|png|sh|toml)$|__pycache__")

PROBE = textwrap.dedent("""
    import json, sys
    import gymnasium as gym
    import treegym.envs as te
    out = {"envs_file": te.__file__, "ids": {}}
    for env_id in te.env_ids():
        try:
            gym.make(env_id).close()
        except gym.error.DependencyNotInstalled as exc:
            out["ids"][env_id] = "missing: " + str(exc)
        except Exception as exc:
            out["ids"][env_id] = "error: %s: %s" % (type(exc).__name__, exc)
        else:
            out["ids"][env_id] = "made"
    for name in ("treegym.scripts.bench", "treegym.scripts.dev"):
        try:
            __import__(name)
            out[name] = "importable"
        except ModuleNotFoundError:
            out[name] = "absent"
    print(json.dumps(out))
""")


def _version() -> str:
    match = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert match, "pyproject.toml has no version"
    return match.group(1)


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "TREEGYM_"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, env=_clean_env(), capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _tracked_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True)
    if done.returncode != 0:
        pytest.fail("the as-installed test builds from the tracked files: run it in a git checkout")
    return [f for f in done.stdout.decode().split("\0") if f and (REPO / f).is_file()]


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> dict[str, Path]:
    """The sdist, built from a copy of the tracked files (no untracked junk), and the wheel built from that sdist."""
    pytest.importorskip("build", reason="the dev extra's `build` makes the wheel and the sdist")
    root = tmp_path_factory.mktemp("as-installed")
    src = root / "src"
    for rel in _tracked_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    dist = root / "dist"
    _run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(dist), str(src)], root)
    (wheel,) = dist.glob("treegym-*.whl")
    (sdist,) = dist.glob("treegym-*.tar.gz")
    return {"root": root, "wheel": wheel, "sdist": sdist}


def test_the_wheel_holds_every_shipped_data_file_and_nothing_unneeded(artifacts):
    names = set(zipfile.ZipFile(artifacts["wheel"]).namelist())
    data = [f for f in _tracked_files() if DATA_DIRS.match(f) and not NOT_DATA.search(f)]
    assert len(data) > 50  # the families' data folders were found
    missing = [f for f in data if f"treegym/{f}" not in names]
    assert not missing, f"data files missing from the wheel (declare them in pyproject's package-data): {missing}"
    unwanted = sorted(n for n in names if n.startswith("treegym/") and UNWANTED.search(n))
    assert not unwanted, unwanted
    licences = {n.rpartition("/")[2] for n in names if "/LICENSE" in n}
    assert {"LICENSE", "LICENSE.ALFWorld", "LICENSE.B-MoCA", "LICENSE.RestGPT", "LICENSE.ToolBench",
            "LICENSE.WebShop", "LICENSE.tree-of-thought-llm"} <= licences
    size_mb = artifacts["wheel"].stat().st_size / 1e6
    assert size_mb <= WHEEL_BUDGET_MB, f"the wheel is {size_mb:.2f} MB, over its {WHEEL_BUDGET_MB} MB budget"


def test_the_sdist_holds_the_build_inputs_and_no_tests_or_tools(artifacts):
    with tarfile.open(artifacts["sdist"]) as tar:
        names = [n.partition("/")[2] for n in tar.getnames()]
    for needed in ("pyproject.toml", "setup.py", "README.md", "CHANGELOG.md", "LICENSE",
                   "envs/alfworld/data/valid_unseen_134.tar.xz", "envs/webshop/templates/webshop.css"):
        assert needed in names, needed
    unwanted = sorted(n for n in names if re.search(r"^(tests|scripts/bench|scripts/dev)(/|$)", n))
    assert not unwanted, unwanted


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installed_it_works_like_the_clone(kind, artifacts):
    root: Path = artifacts["root"]
    venv, work = root / f"venv-{kind}", root / f"work-{kind}"
    work.mkdir()
    _run([sys.executable, "-m", "venv", str(venv)], root)
    py, treegym = venv / "bin" / "python", venv / "bin" / "treegym"
    _run([str(py), "-m", "pip", "install", "-q", str(artifacts[kind])], work)

    assert _run([str(treegym), "--version"], work).stdout.strip() == f"treegym {_version()}"

    probe = json.loads(_run([str(py), "-c", PROBE], work).stdout.strip().splitlines()[-1])
    assert Path(probe["envs_file"]).is_relative_to(venv), probe["envs_file"]  # the installed copy, not the repo
    assert probe["treegym.scripts.bench"] == probe["treegym.scripts.dev"] == "absent"
    made = [i for i, status in probe["ids"].items() if status == "made"]
    for env_id, status in probe["ids"].items():
        if status != "made":  # not made: one line naming the extra to install
            assert status.startswith("missing: ") and "\n" not in status, (env_id, status)
            assert re.search(r"pip install 'treegym\[[a-z-]+\]'", status), (env_id, status)
    # the default install holds every family but the ones with heavy extras (TextWorld's Jericho)
    assert set(probe["ids"]) - set(made) <= {"treegym/TextWorld-v0"}, probe["ids"]
    for env_id in made:
        out = _run([str(treegym), "check", env_id, "--trajectories", "2"], work).stdout
        assert out.startswith(f"OK   {env_id}: rollback OK"), out

    results = work / "run.jsonl"
    _run([str(treegym), "run", "treegym/Game24-v0", "--agent", "dfsdt", "--llm", "scripted", "--tasks", "900:902",
          "--out", str(results), "--no-progress"], work)
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [r["task_id"] for r in records] == [900, 901] and all(r["agent"] == "dfsdt" for r in records)
