"""WebShop catalog: data model, generator determinism, shipped catalog schema, loading and errors."""
from __future__ import annotations

import gzip
import json
import pickle
import re
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from treegym.envs.webshop import catalog as catalog_mod
from treegym.envs.webshop.catalog import (Catalog, CatalogError, Goal, Product, SqliteGoalSequence, SqliteProductStore,
                                          load_catalog, load_default_catalog, read_catalog)
from treegym.envs.webshop.model import BREADCRUMB_SEP, CATEGORIES, NO_PRICE_LIMIT, PRICE_RANGE
from treegym.envs.webshop.generate import build_catalog, goal_record, make_asin, product_record


@pytest.fixture(scope="module")
def default():
    return load_default_catalog()


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "cat"
    build_catalog(out, 60, 90, seed=5)
    return out


# ------------------------------------------------------------------------------------ generator
def test_generator_is_deterministic_per_seed():
    assert [product_record(3, i) for i in range(50)] == [product_record(3, i) for i in range(50)]
    assert [goal_record(3, g, 200) for g in range(50)] == [goal_record(3, g, 200) for g in range(50)]
    assert [product_record(3, i)["name"] for i in range(50)] != [product_record(4, i)["name"] for i in range(50)]


def test_same_seed_builds_byte_identical_files(tmp_path):
    a = build_catalog(tmp_path / "a", 120, 200, seed=9, index=False)
    b = build_catalog(tmp_path / "b", 120, 200, seed=9, index=False)
    for fname in ("products.jsonl.gz", "goals.jsonl.gz", "meta.json"):
        assert (a / fname).read_bytes() == (b / fname).read_bytes(), fname


def test_shipped_catalog_is_what_the_generator_builds(tmp_path):
    """The committed files are exactly `treegym webshop build ... --seed 0` output (see data/default/__init__.py)."""
    out = build_catalog(tmp_path / "d", 1000, 3000, seed=0, name="treegym-webshop-default", index=False)
    for fname in ("products.jsonl.gz", "goals.jsonl.gz", "meta.json"):
        assert (out / fname).read_bytes() == (catalog_mod.DEFAULT_CATALOG_DIR / fname).read_bytes(), fname


def test_asins_are_unique_and_upstream_shaped():
    asins = [make_asin(0, i) for i in range(100_000)]
    assert len(set(asins)) == len(asins)
    assert all(re.fullmatch(r"B0[0-9A-Z]{8}", a) for a in asins[:1000])


# ------------------------------------------------------------------------------- shipped catalog
def test_shipped_catalog_size_and_upstream_splits(default):
    assert len(default.products) >= 1000 and len(default.goals) >= 2000
    counts = default.task_counts()
    assert counts["test"] == 500 and counts["dev"] == 1000
    assert counts["train"] == len(default.goals) - 1500 and counts["all"] == len(default.goals)
    assert list(default.split("test"))[:2] == [0, 1] and default.split("dev")[0] == 500


def test_shipped_products_follow_the_schema(default):
    seen_categories = set()
    for asin, p in default.products.items():
        assert isinstance(p, Product) and p.asin == asin and len(asin) == 10
        assert p.category in CATEGORIES
        seen_categories.add(p.category)
        assert p.query == p.query.lower() and p.query
        assert BREADCRUMB_SEP in p.product_category
        lo, hi = p.price_range
        assert 0 < lo <= p.price <= hi
        assert p.price_text == (f"${lo:.2f}" if lo == hi else f"${lo:.2f} to ${hi:.2f}")
        assert p.attributes and all(a == a.lower() for a in p.attributes)
        for name, values in p.options:
            assert name == name.lower() and values and all(v == v.lower() for v in values)
        assert all(1 <= s <= 5 for s, _, _ in p.reviews)
        assert p.rating is None or 1.0 <= p.rating <= 5.0
        assert p.name_nouns and all(n in p.name.lower() for n in p.name_nouns)
        assert p.description and p.bullet_points
    assert seen_categories == set(CATEGORIES)


def test_every_shipped_goal_is_satisfiable_by_its_target(default):
    for i, g in enumerate(default.goals):
        assert isinstance(g, Goal) and g.index == i
        p = default.product(g.asin)
        assert (g.query, g.category, g.product_category, g.name, g.name_nouns) == (
            p.query, p.category, p.product_category, p.name, p.name_nouns)
        assert g.options_kind == "synthetic" and g.attributes
        assert set(g.attributes) <= set(p.attributes)
        opts = p.option_dict()
        assert [n for n, _ in g.goal_options] == sorted(opts)  # one value per option name, sorted
        assert all(v in opts[n] for n, v in g.goal_options)
        for n, v in g.goal_options:
            assert f"{n}: {v}" in g.instruction_text
        assert p.price <= g.price_upper
        if g.price_upper == NO_PRICE_LIMIT:
            assert "price lower than" not in g.instruction_text
        else:
            assert g.price_upper in PRICE_RANGE
            assert g.instruction_text.endswith(f"price lower than {g.price_upper:.2f} dollars")


def test_buying_each_shipped_target_with_the_goal_options_scores_1(default):
    from treegym.envs.webshop.reward import get_reward
    for g in default.goals:
        p = default.product(g.asin)
        reward, parts = get_reward(p, g, p.price, dict(g.goal_options))
        assert reward == 1.0, (g.index, g.instruction_text, parts)


def test_generator_option_values_survive_the_reward_colour_normalisation():
    from treegym.envs.webshop.reward import get_option_hits
    from treegym.envs.webshop.vocab import QUERIES
    for spec in QUERIES:
        for name, values in spec.options:
            for v in values:
                assert get_option_hits({name: v}, [(name, v)]) == [True], (spec.query, name, v)


# ------------------------------------------------------------------------------------ loading
def test_catalog_is_loaded_once_per_process(default, tiny_dir):
    assert load_default_catalog() is default
    assert load_catalog(catalog_mod.DEFAULT_CATALOG_DIR) is default
    first = load_catalog(tiny_dir)
    assert load_catalog(str(tiny_dir) + "/.") is first
    with ThreadPoolExecutor(8) as pool:
        assert all(c is first for c in pool.map(lambda _: load_catalog(tiny_dir), range(16)))


def test_concurrent_first_load_gives_one_object(tiny_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_dir, copy)
    barrier = threading.Barrier(6)

    def load(_):
        barrier.wait()
        return load_catalog(copy)
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(load, range(6)))
    assert all(r is results[0] for r in results)


def test_records_and_catalogs_pickle(default, tiny_dir):
    p = next(iter(default.products.values()))
    g = default.goal(0)
    assert pickle.loads(pickle.dumps(p)) == p and pickle.loads(pickle.dumps(g)) == g
    assert Product.from_dict(json.loads(json.dumps(p.to_dict()))) == p
    assert Goal.from_dict(json.loads(json.dumps(g.to_dict()))) == g
    assert pickle.loads(pickle.dumps(default)) is default  # a reference, never the data
    assert pickle.loads(pickle.dumps(load_catalog(tiny_dir))) is load_catalog(tiny_dir)
    mem = Catalog([p], [Goal.from_dict({**g.to_dict(), "asin": p.asin, "index": 0})], name="mem")
    back = pickle.loads(pickle.dumps(mem))
    assert back.product(p.asin) == p and back.name == "mem" and len(back.goals) == 1


def test_lookup_errors_say_what_exists(default):
    with pytest.raises(IndexError, match="3000 goals"):
        default.goal(len(default.goals))
    with pytest.raises(IndexError):
        default.goal(-1)
    with pytest.raises(IndexError):
        default.goal("3")  # type: ignore[arg-type]
    import numpy as np
    assert default.goal(np.int64(3)) is default.goal(3)
    with pytest.raises(KeyError, match="no product with asin"):
        default.product("B0NOPE0000")
    with pytest.raises(KeyError, match="test"):
        default.split("validation")


def test_tiny_catalog_round_trips_through_both_stores(tmp_path):
    jsonl = build_catalog(tmp_path / "j", 80, 100, seed=2, store="jsonl")
    sql = build_catalog(tmp_path / "s", 80, 100, seed=2, store="sqlite")
    a, b = read_catalog(jsonl), read_catalog(sql)
    assert isinstance(b.products, SqliteProductStore)
    assert len(a.products) == len(b.products) == 80
    assert list(a.products) == list(b.products)
    for asin in a.products:
        assert a.product(asin) == b.product(asin) == Product.from_dict(product_record(2, list(a.products).index(asin)))
    assert a.goals == b.goals == tuple(Goal.from_dict(goal_record(2, i, 80)) for i in range(100))
    assert "B0NOPE0000" not in b.products and next(iter(b.products)) in b.products
    assert a.search("lip gloss") == b.search("lip gloss")


def test_huge_goal_lists_are_read_on_demand(tmp_path, monkeypatch):
    from treegym.envs.webshop import writer
    monkeypatch.setattr(writer, "GOAL_SQLITE_THRESHOLD", 20)
    out = build_catalog(tmp_path / "g", 40, 30, seed=3, index=False)
    assert (out / "goals.sqlite").is_file() and not (out / "goals.jsonl.gz").exists()
    cat = read_catalog(out)
    assert isinstance(cat.goals, SqliteGoalSequence) and len(cat.goals) == 30
    expected = [Goal.from_dict(goal_record(3, i, 40)) for i in range(30)]
    assert list(cat.goals) == expected and cat.goals[-1] == expected[-1] and cat.goals[5:8] == expected[5:8]
    assert cat.goal(29) == expected[29] and cat.task_counts()["test"] == 30
    with pytest.raises(IndexError, match="30 goals"):
        cat.goal(30)
    with pytest.raises(IndexError):
        cat.goals[30]


def test_sqlite_store_keeps_a_bounded_cache(tmp_path):
    out = build_catalog(tmp_path / "s", 50, 10, seed=1, store="sqlite", index=False)
    store = SqliteProductStore(out / "products.sqlite", cache_bytes=20_000)
    products = [store[a] for a in store]
    cache = store._rows._cache
    assert len(products) == 50 and 0 < len(cache) < 50 and cache.nbytes <= 20_000  # bounded in bytes
    assert store[products[-1].asin] is products[-1]  # still cached
    assert store[products[0].asin] is not products[0] and store[products[0].asin] == products[0]  # evicted, reread
    assert [p.asin for p in store.iter_products(batch=7)] == [p.asin for p in products]


# ------------------------------------------------------------------------------ broken files
def _broken(tiny_dir, tmp_path, name):
    dst = tmp_path / name
    shutil.copytree(tiny_dir, dst)
    return dst


def test_missing_directory_and_meta_are_explained(tmp_path):
    with pytest.raises(CatalogError, match=r"not found.*treegym webshop build"):
        read_catalog(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CatalogError, match=r"meta\.json: file not found"):
        read_catalog(tmp_path / "empty")


def test_corrupt_files_name_the_file(tiny_dir, tmp_path):
    d = _broken(tiny_dir, tmp_path, "gz")
    (d / "goals.jsonl.gz").write_bytes(b"not gzip at all")
    with pytest.raises(CatalogError, match=r"goals\.jsonl\.gz: cannot read"):
        read_catalog(d)

    d = _broken(tiny_dir, tmp_path, "line")
    with gzip.open(d / "products.jsonl.gz", "wt") as fh:
        fh.write('{"asin": "B000000001"\n')
    with pytest.raises(CatalogError, match=r"products\.jsonl\.gz:1: invalid JSON"):
        read_catalog(d)

    d = _broken(tiny_dir, tmp_path, "field")
    with gzip.open(d / "products.jsonl.gz", "wt") as fh:
        fh.write('{"asin": "B000000001"}\n')
    with pytest.raises(CatalogError, match=r"product 0 is malformed"):
        read_catalog(d)

    d = _broken(tiny_dir, tmp_path, "meta")
    (d / "meta.json").write_text('{"format": 99}')
    with pytest.raises(CatalogError, match=r"format 99"):
        read_catalog(d)

    d = _broken(tiny_dir, tmp_path, "nogoals")
    (d / "goals.jsonl.gz").unlink()
    with pytest.raises(CatalogError, match=r"goals\.jsonl\.gz: file not found"):
        read_catalog(d)

    d = _broken(tiny_dir, tmp_path, "sqlite")
    (d / "products.sqlite").write_bytes(b"garbage" * 100)
    with pytest.raises(CatalogError, match=r"products\.sqlite: not a readable product store"):
        read_catalog(d)


def test_goals_from_another_catalog_are_rejected(tiny_dir, tmp_path):
    other = build_catalog(tmp_path / "other", 30, 5, seed=77, index=False)
    d = _broken(tiny_dir, tmp_path, "mix")
    shutil.copy(other / "goals.jsonl.gz", d / "goals.jsonl.gz")
    with pytest.raises(CatalogError, match="do not belong together"):
        read_catalog(d)


def test_writer_refuses_a_non_empty_folder(tiny_dir):
    with pytest.raises(CatalogError, match="not empty.*--overwrite"):
        build_catalog(tiny_dir, 10, 5)


def test_byte_lru_evicts_by_size_not_count():
    from treegym.envs.webshop.lru import ENTRY_OVERHEAD, ByteLRU
    lru = ByteLRU(3 * (1000 + ENTRY_OVERHEAD), lambda k, v: len(v))
    for i in range(3):
        lru.put(i, "x" * 1000)
    assert len(lru) == 3 and lru.get(0) is not None  # 0 is now the most recent
    lru.put(3, "y" * 1000)
    assert 1 not in lru and 0 in lru and lru.nbytes <= lru.max_bytes
    lru.put(4, "z" * 2500)  # a big entry pushes out two small ones
    assert len(lru) == 1 and 4 in lru and lru.nbytes <= lru.max_bytes
    lru.put(5, "w" * 10_000)  # larger than the budget: not kept, nothing else lost
    assert 5 not in lru and 4 in lru
