"""WebShop search: findability of goal targets, hostile queries, sharing and index placement."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from treegym.envs.webshop import search as search_mod
from treegym.envs.webshop.catalog import Catalog, Product, load_default_catalog, read_catalog
from treegym.envs.webshop.generate import build_catalog, product_record
from treegym.envs.webshop.search import SearchIndex, build_index, stamp_matches

HOSTILE = [
    "", "   ", '"', '""', "'", "(", ")", "[]", "{a TO b}", "[1 TO 5]", "AND", "OR NOT", "NOT lip",
    "lip AND gloss OR NOT", "title:lip", "contents:gloss", "*", "?", "~", "lip~2", "gloss^3", "+lip -gloss",
    "\\", "\\\\\"", "a:b:c", "/regex.*/", "日本語の口紅", "رژ لب", "💄💄", "lip\x00gloss", "\ud800broken",
    "\t\n\r", "ﬁ ligature", "x" * 5000, " ".join(["gloss"] * 2000), "IN [a b]", "$100.00 dollars",
]


@pytest.fixture(scope="module")
def default():
    return load_default_catalog()


def test_shipped_goal_targets_are_found_by_their_instruction(default):
    found = sum(g.asin in default.search(g.instruction_text) for g in default.goals)
    # Measured: 3000/3000 with the shipped catalog; allow a little slack for backend changes.
    assert found / len(default.goals) >= 0.98


def test_results_are_top_50_distinct_asins_in_score_order(default):
    results = default.search("long lasting lip gloss")
    assert len(results) == 50 == len(set(results))
    assert all(a in default.products for a in results)
    assert default.product(results[0]).query == "lip gloss"
    assert default.search("long lasting lip gloss", k=5) == results[:5]
    assert default.search("long lasting lip gloss", k=0) == []


def test_option_values_and_bullets_are_searchable(default):
    p = next(p for p in default.products.values() if p.options and p.reviews)
    brand = p.name_nouns[0]
    value = p.options[0][1][0]
    assert p.asin in default.search(f"{brand} {p.query} {value}")


@pytest.mark.parametrize("query", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_queries_return_a_list(default, query):
    out = default.search(query)
    assert isinstance(out, list) and all(isinstance(a, str) for a in out)


def test_query_syntax_is_not_interpreted(default):
    assert default.search("lip AND gloss") == default.search("lip and gloss") == default.search("lip gloss")
    assert default.search("NOT lip gloss") == default.search("lip gloss")
    assert default.search('"lip gloss"') == default.search("lip gloss")
    assert default.search("") == [] and default.search("the and of") == []
    assert default.search(None) == []  # type: ignore[arg-type]


def test_search_is_thread_safe_and_deterministic(default):
    queries = [g.instruction_text for g in default.goals[:200]]
    expected = [default.search(q) for q in queries]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(default.search, queries)) == expected


def test_shipped_catalog_index_is_built_in_memory_once(default):
    index = default.index
    assert index.path is None and len(index) == len(default.products)
    assert default.index is index


def test_built_catalog_opens_the_index_beside_it(tmp_path):
    out = build_catalog(tmp_path / "c", 40, 20, seed=4)
    cat = read_catalog(out)
    assert stamp_matches(out / "index", cat.fingerprint())
    assert cat.index.path == out / "index"
    assert cat.goal(0).asin in cat.search(cat.goal(0).instruction_text)


def test_stale_index_is_not_used(tmp_path):
    a = build_catalog(tmp_path / "a", 40, 10, seed=1)
    b = build_catalog(tmp_path / "b", 40, 10, seed=2)
    (a / "index" / "treegym_index.json").write_text((b / "index" / "treegym_index.json").read_text())
    cat = read_catalog(a)
    assert cat.index.path is None  # small catalog: rebuilt in RAM instead of trusting the stale index
    assert cat.goal(3).asin in cat.search(cat.goal(3).instruction_text)


def test_large_catalog_without_index_builds_once_into_the_cache(tmp_path, monkeypatch):
    out = build_catalog(tmp_path / "c", 60, 10, seed=6, index=False)
    monkeypatch.setenv("TREEGYM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(search_mod, "RAM_INDEX_MAX_PRODUCTS", 10)
    cat = read_catalog(out)
    path = cat.index.path
    assert path is not None and path.parent == tmp_path / "cache" / "webshop-index"
    again = read_catalog(out).index
    assert again.path == path
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, path.name + ".lock"])


def test_concurrent_first_use_from_two_processes_is_safe(tmp_path):
    out = build_catalog(tmp_path / "c", 60, 10, seed=8, index=False)
    code = ("import json, sys\nfrom treegym.envs.webshop import search\nsearch.RAM_INDEX_MAX_PRODUCTS = 0\n"
            "from treegym.envs.webshop.catalog import load_catalog\nc = load_catalog(sys.argv[1])\n"
            "print(json.dumps([str(c.index.path), c.search(c.goal(0).instruction_text)]))")
    env = {**os.environ, "TREEGYM_CACHE_DIR": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    results = []
    for p in procs:
        stdout, stderr = p.communicate()
        assert p.returncode == 0, stderr
        results.append(json.loads(stdout))
    assert results[0] == results[1]
    leftovers = [p.name for p in (tmp_path / "cache" / "webshop-index").iterdir() if ".tmp-" in p.name]
    assert leftovers == []


def test_in_memory_catalog_and_direct_index():
    products = [Product.from_dict(product_record(11, i)) for i in range(30)]
    cat = Catalog(products, [], name="mem")
    assert cat.search(products[7].name)[0] == products[7].asin
    index = build_index(products)
    assert isinstance(index, SearchIndex) and index.search(products[3].name)[0] == products[3].asin
    assert index.terms("The Running SHOES") == ["run", "shoe"]


def _mini(asin: str, name: str, description: str = "") -> Product:
    return Product(asin=asin, name=name, category="beauty", query="q", product_category="c", price=1.0,
                   price_range=(1.0, 1.0), price_text="$1.00", description=description)


def test_asin_codes_round_trip_and_odd_asins_fall_back_to_stored_docs():
    for asin in ("B0ABCDEF12", "0", "Z" * 16, "A1", "b0lower-case", "12345678"):
        assert search_mod.decode_asin(*search_mod.encode_asin(asin)) == asin
    assert search_mod.encode_asin("X" * 17) == search_mod.encode_asin("") == search_mod.encode_asin("B0\u00e9") == (0, 0)
    odd = [_mini("B0\u00e9t\u00e9", "violet teapot"), _mini("X" * 17, "violet kettle"), _mini("B0PLAIN", "violet mug")]
    assert sorted(build_index(odd).search("violet")) == sorted(p.asin for p in odd)


def test_products_holding_every_scored_term_rank_first():
    # The short product says "ceramic" four times, so plain BM25 ranks it first; the
    # product holding both query words comes first all the same.
    products = [_mini("B0TF1", "ceramic ceramic ceramic ceramic"),
                _mini("B0BOTH", "ceramic teapot with a long description " + "word " * 40),
                _mini("B0TP", "teapot")] + [_mini(f"B0F{i}", f"filler item {i}") for i in range(40)]
    index = build_index(products)
    assert index.search("ceramic teapot", k=3) == ["B0BOTH", "B0TF1", "B0TP"]
    assert build_index(products[:1] + products[2:]).search("ceramic teapot", k=2) == ["B0TF1", "B0TP"]


def test_common_terms_are_dropped_only_when_rarer_ones_fill_the_results():
    # "filler" is in 40 of 43 products (> MAX_DF_FRACTION), "teapot" in 2: scoring only teapot
    # would return 2 products, so the common term is scored too and the list is full.
    products = [_mini("B0TP", "teapot"), _mini("B0TP2", "teapot filler")] + \
        [_mini(f"B0F{i}", f"filler item {i}") for i in range(41)]
    index = build_index(products)
    kept, common = index.query_terms("teapot filler")
    assert kept == ["teapot"] and common == ["filler"]
    results = index.search("teapot filler", k=10)
    assert len(results) == 10 and set(results[:2]) == {"B0TP", "B0TP2"}
