"""A WebShop snapshot restores only into an env over the catalog it was taken on.

Snapshots record the catalog's identity (``catalog_identity.py``): none for the shipped catalog (or a copy
of its files), a content digest for a catalog directory (the same at any path, another once a file
changes) or an in-memory catalog. A restore into an env over another catalog is refused with one line
naming the setting, both values and what to do, before and after travelling as bytes, also in a fresh
process; the refused env is left as it was.
"""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs import SnapshotError
from treegym.envs.webshop.catalog import Catalog, load_catalog, load_default_catalog
from treegym.envs.webshop.generate import build_catalog
from treegym.envs.webshop.model import DEFAULT_CATALOG_DIR, PRODUCTS_JSONL


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory):
    """Two catalogs of one size (their goal indices and pages line up) with other products, and a copy of the first."""
    root = tmp_path_factory.mktemp("catalogs")
    a = build_catalog(root / "a", 60, 90, seed=5, name="tiny")
    b = build_catalog(root / "b", 60, 90, seed=6, name="tiny")
    copy = root / "elsewhere" / "a"
    shutil.copytree(a, copy)
    return a, b, copy


def _env(catalog=None) -> gym.Env:
    env = gym.make("treegym/WebShop-v0", catalog=None if catalog is None else str(catalog))
    env.reset(options={"task_id": 3})
    env.step("search[" + env.unwrapped.engine.catalog.goal(3).instruction_text[:40] + "]")
    return env


def test_the_identity_is_the_content_not_the_path(catalogs, tmp_path):
    a, b, copy = catalogs
    ida, idb = load_catalog(a).identity, load_catalog(b).identity
    assert ida.startswith("tiny sha256:") and idb.startswith("tiny sha256:") and ida != idb
    assert load_catalog(copy) is not load_catalog(a) and load_catalog(copy).identity == ida
    assert load_default_catalog().identity is None
    shipped_copy = tmp_path / "shipped"
    shutil.copytree(DEFAULT_CATALOG_DIR, shipped_copy)
    assert load_catalog(shipped_copy).identity is None  # the shipped files, wherever they are
    edited = tmp_path / "edited"
    shutil.copytree(a, edited)
    lines = gzip.decompress((edited / PRODUCTS_JSONL).read_bytes()).decode().splitlines()
    first = json.loads(lines[0])
    first["price"] = first["price"] + 1 if isinstance(first.get("price"), (int, float)) else 1.0
    lines[0] = json.dumps(first)
    (edited / PRODUCTS_JSONL).write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))  # one price changed
    assert load_catalog(edited).identity not in (ida, idb)
    default = load_default_catalog()
    memory = Catalog(dict(default.products), default.goals)
    assert memory.identity.startswith("webshop sha256:")
    assert Catalog(dict(default.products), default.goals).identity == memory.identity
    assert Catalog(dict(default.products), default.goals[:-1]).identity != memory.identity


def test_a_snapshot_restores_only_into_an_env_over_its_catalog(catalogs):
    a, b, copy = catalogs
    on_a, on_b, shipped = _env(a), _env(b), _env()
    snap = te.snapshot(on_a)
    assert snap.settings == (("catalog", load_catalog(a).identity),) and te.snapshot(shipped).settings == ()
    for target, theirs in ((on_b, load_catalog(b).identity), (shipped, None)):
        before = te.snapshot(target)
        for travelled in (snap, te.snapshot_from_bytes(te.snapshot_to_bytes(snap))):
            with pytest.raises(SnapshotError) as caught:
                te.restore(target, travelled)
            message = str(caught.value)
            assert f"catalog={load_catalog(a).identity!r}" in message and f"catalog={theirs!r}" in message
            assert "build the env on the catalog the snapshot was taken on" in message and "\n" not in message
            assert te.snapshot(target).payload == before.payload  # refused: nothing changed
    with pytest.raises(SnapshotError, match="catalog=None"):
        te.restore(on_a, te.snapshot(shipped))

    # the same catalog, loaded from another folder: restores exactly and steps alike
    twin = _env(copy)
    for travelled in (snap, te.snapshot_from_bytes(te.snapshot_to_bytes(snap)), te.snapshot(te.clone(on_a))):
        assert travelled.env_class is twin.unwrapped.snapshot_class_key
        obs, _ = te.restore(twin, travelled)
        assert obs == te.restore(on_a, snap)[0]
        action = obs["valid_actions"][-1]
        assert twin.step(action)[:4] == on_a.step(action)[:4]


CHILD = """
import json
import sys
import gymnasium as gym
import treegym.envs as te
data = sys.stdin.buffer.read()
for catalog in sys.argv[1:]:
    env = gym.make("treegym/WebShop-v0", catalog=catalog or None)
    env.reset(options={"task_id": 0})
    try:
        obs, info = te.restore(env, te.snapshot_from_bytes(data))
        print("restored:", json.dumps([obs["text"], env.step(obs["valid_actions"][-1])[0]["text"]]))
    except te.SnapshotError as exc:
        print("refused:", exc)
"""


@pytest.mark.slow
def test_a_snapshot_moved_to_another_process_is_refused_there_over_other_data(catalogs):
    a, b, copy = catalogs
    env = _env(a)
    snap = te.snapshot(env)
    out = subprocess.run([sys.executable, "-c", CHILD, str(copy), str(b), ""], input=te.snapshot_to_bytes(snap),
                         capture_output=True, check=True).stdout.decode().splitlines()
    obs, _ = te.restore(env, snap)
    assert out[0] == "restored: " + json.dumps([obs["text"], env.step(obs["valid_actions"][-1])[0]["text"]])
    assert out[1].startswith("refused: ") and f"catalog={load_catalog(b).identity!r}" in out[1]
    assert out[2].startswith("refused: ") and "catalog=None" in out[2]
