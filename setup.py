"""Maps the fixed top-level folders onto the ``treegym`` namespace.

``envs/`` installs as ``treegym.envs``, ``agents/`` as ``treegym.agents`` and so
on, so no bare ``agents`` or ``envs`` module ever lands in site-packages.
Everything else (metadata, dependencies, extras) lives in pyproject.toml.
"""
from setuptools import find_packages, setup

FOLDERS = ("envs", "agents", "servers", "scripts")

packages: list[str] = []
package_dir: dict[str, str] = {}
for folder in FOLDERS:
    packages.append(f"treegym.{folder}")
    package_dir[f"treegym.{folder}"] = folder
    for sub in find_packages(folder):
        packages.append(f"treegym.{folder}.{sub}")

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={
        "": ["*.csv", "*.json", "*.json.gz", "*.jsonl", "*.jsonl.gz", "*.txt", "*.html", "*.css", "*.js", "*.tar.xz", "*.gz", "*.z8", "LICENSE.*"],
        # data folders that are not packages (no __init__.py)
        "treegym.envs.restbench": ["data/*"],
        "treegym.envs.toolbench": ["data/*.json", "data/queries/*.json", "data/tools/*/*.json"],
        "treegym.envs.tools_common": ["data/*.json"],
    },
    include_package_data=True,
)
