"""Maps the fixed top-level folders onto the ``treegym`` namespace (pyproject.toml cannot prefix a
folder's sub-packages): ``envs/`` installs as ``treegym.envs``, ``agents/`` as ``treegym.agents`` and
so on, so no bare ``agents`` or ``envs`` module lands in site-packages. The benchmarks and dev tools
(``scripts/bench/``, ``scripts/dev/``) are left out: they run from a clone (``python -m
treegym.scripts.bench.<name>`` through the editable install). Everything else (metadata,
dependencies, extras, package data) lives in pyproject.toml."""
from setuptools import find_packages, setup

FOLDERS = ("envs", "agents", "servers", "scripts")
CLONE_ONLY = ("scripts.bench", "scripts.dev")

packages: list[str] = []
package_dir: dict[str, str] = {}
for folder in FOLDERS:
    packages.append(f"treegym.{folder}")
    package_dir[f"treegym.{folder}"] = folder
    for sub in find_packages(folder):
        name = f"{folder}.{sub}"
        if not any(name == c or name.startswith(c + ".") for c in CLONE_ONLY):
            packages.append(f"treegym.{name}")

setup(packages=packages, package_dir=package_dir)
