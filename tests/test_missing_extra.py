"""A package an env or server needs that is not installed is named in one line, with the fix.

Each case runs in its own interpreter with one package blocked (``sys.modules[name] = None``
makes its import fail, as when it is not installed), from a folder outside the repository. The
as-installed test (tests/test_as_installed.py) checks the same on every registered id of a venv
that really lacks the extras."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

MAKE = textwrap.dedent("""
    import sys
    sys.modules[{blocked!r}] = None
    import gymnasium as gym
    import treegym.envs
    try:
        gym.make({env_id!r})
    except gym.error.DependencyNotInstalled as exc:
        print("MESSAGE", exc)
    else:
        print("MADE")
""")


def _run(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize(("env_id", "blocked", "extra"), [
    ("treegym/WebShop-v0", "rapidfuzz", "webshop"),
    ("treegym/TextWorld-v0", "textworld", "textworld"),
])
def test_gym_make_names_the_extra_in_one_line(env_id, blocked, extra, tmp_path):
    done = _run(MAKE.format(blocked=blocked, env_id=env_id), tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("MESSAGE")]
    assert len(lines) == 1, done.stdout
    message = lines[0]
    assert f"{env_id} needs the {extra} extra: pip install 'treegym[{extra}]'" in message
    assert blocked in message  # and says which package was missing


def test_an_id_whose_packages_are_there_still_makes_through_the_guard(tmp_path):
    # the same interpreter setup, nothing the env needs blocked: gym.make works, and the id's
    # entry point (behind the local-or-remote chooser) is the guard's, so the test above exercises
    # what users get
    done = _run(MAKE.format(blocked="no_such_package_xyz", env_id="treegym/WebShop-v0")
                + "print(gym.spec('treegym/WebShop-v0').entry_point.args[0])\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["MADE", "treegym.envs.needs_extra:treegym/WebShop-v0"]


def test_the_guard_is_no_catch_all_for_attribute_names(tmp_path):
    done = _run("import treegym.envs.needs_extra as g\ntry:\n    g.nothing\nexcept AttributeError as e:\n    print(e)\n",
                tmp_path)
    assert done.stdout.strip() == "module 'treegym.envs.needs_extra' has no attribute 'nothing'", done.stderr


def test_serve_without_flask_says_so_in_one_line(tmp_path):
    code = ("import sys\nsys.modules['flask'] = None\nfrom treegym.scripts.cli import main\n"
            "sys.exit(main(['serve', 'webshop', '--port', '0']))\n")
    done = _run(code, tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0
    assert "treegym serve needs Flask" in done.stderr and "pip install 'flask>=3.0'" in done.stderr
