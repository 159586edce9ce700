"""Import of upstream WebShop files (fixtures in upstream's raw schema) and the webshop CLI."""
from __future__ import annotations

import json
import random

import pytest

from support.paths import FIXTURES as ALL_FIXTURES
import treegym.envs.webshop.importer as importer
from treegym.envs.webshop.catalog import load_catalog, read_catalog
from treegym.envs.webshop.model import NO_PRICE_LIMIT
from treegym.envs.webshop.importer import (UpstreamFormatError, import_upstream, iter_json_array,
                                           iter_json_object, parse_pricing)
from treegym.envs.webshop.nouns import title_nouns
from treegym.scripts.cli import main as cli_main

FIXTURES = ALL_FIXTURES / "webshop_upstream"
RAW = json.loads((FIXTURES / "items_shuffle_1000.json").read_text())
INS = json.loads((FIXTURES / "items_ins_v2_1000.json").read_text())
HUMAN = json.loads((FIXTURES / "items_human_ins.json").read_text())


def _kept_raw():
    """Raw products upstream keeps: valid ASINs, first occurrence wins."""
    seen, kept = set(), []
    for p in RAW:
        if p["asin"] == "nan" or len(p["asin"]) > 10 or p["asin"] in seen:
            continue
        seen.add(p["asin"])
        kept.append(p)
    return kept


@pytest.fixture(scope="module")
def human(tmp_path_factory):
    return read_catalog(import_upstream(FIXTURES, tmp_path_factory.mktemp("h") / "cat", goals="human"))


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return read_catalog(import_upstream(FIXTURES, tmp_path_factory.mktemp("s") / "cat", goals="synthetic"))


def test_products_keep_upstream_order_and_drop_bad_or_duplicate_asins(human):
    assert list(human.products) == [p["asin"] for p in _kept_raw()]
    assert human.product("B07ABCD001").name.startswith("Glossier Shine Lip Gloss")  # first one wins
    assert human.meta["source"]["skipped_bad_asin"] == 2 and human.meta["duplicates_dropped"] == 1


def test_products_are_normalised_as_upstream(human):
    p = human.product("B07ABCD001")
    assert p.query == "lip gloss"  # lower-cased and stripped
    assert p.options == (("color", ("red", "pink | nude", "berry")), ("size", ("2 ml", "5 ml")))
    assert p.attributes == tuple(INS["B07ABCD001"]["attributes"])
    assert p.bullet_points == tuple(RAW[0]["small_description"])
    assert p.main_image == RAW[0]["images"][0] and p.description == RAW[0]["full_description"]
    t = human.product("B07ABCD002")
    assert t.bullet_points == ("Machine wash, slim fit, 100% cotton",)  # a string becomes one bullet
    assert [n for n, _ in t.options] == ["color", "size"]  # "Fit Type": None is skipped
    assert human.product("B07ABCD003").price_range == (100.0, 100.0)  # empty pricing -> $100
    assert human.product("B07ABCD003").price_text == "$100.00"


def test_prices_are_seeded_fixed_and_inside_the_range(human, tmp_path):
    t = human.product("B07ABCD002")
    assert t.price_range == (10.99, 15.99) and 10.99 <= t.price <= 15.99 and t.price_text == "$10.99 to $15.99"
    again = read_catalog(import_upstream(FIXTURES, tmp_path / "again", goals="human"))
    assert [p.price for p in again.products.values()] == [p.price for p in human.products.values()]
    assert [g.price_upper for g in again.goals] == [g.price_upper for g in human.goals]
    other = read_catalog(import_upstream(FIXTURES, tmp_path / "seed7", goals="human", seed=7))
    ranged = ("B07ABCD002", "B07ABCD004")
    assert [other.product(a).price for a in ranged] != [human.product(a).price for a in ranged]


def test_upstream_prices_flag_draws_unseeded(tmp_path):
    cat = read_catalog(import_upstream(FIXTURES, tmp_path / "u", goals="human", upstream_prices=True))
    assert cat.meta["source"]["prices"] == "unseeded (upstream)" and cat.meta["source"]["seed"] is None
    for p in cat.products.values():
        assert p.price_range[0] <= p.price <= p.price_range[1]


def test_human_goals_follow_upstream_order_and_text(human):
    expected = []  # upstream: products in order, instructions in order, skip those without attributes
    for p in _kept_raw():
        for ins in HUMAN.get(p["asin"], []):
            if ins["instruction_attributes"]:
                expected.append((p["asin"], ins["instruction"].strip(".")))
    random.Random(233).shuffle(expected)
    got = [(g.asin, g.instruction_text) for g in human.goals]
    assert [a for a, _ in got] == [a for a, _ in expected]
    for (_, text), (_, prefix), g in zip(got, expected, human.goals):
        assert text.startswith(prefix)
        assert g.options_kind == "human" and all(isinstance(o, str) for o in g.goal_options)
        price = human.product(g.asin).price
        assert price <= g.price_upper
        assert text.endswith(f"{g.price_upper:.2f} dollars") or g.price_upper == NO_PRICE_LIMIT
    assert human.goals[[g.asin for g in human.goals].index("B07ABCD001")].goal_options == ("red", "2 ml")


def test_synthetic_goals_cover_every_option_combination(synthetic):
    expected = []
    for p in _kept_raw():
        ins = INS.get(p["asin"], {})
        if ins.get("instruction") and ins.get("instruction_attributes"):
            product = synthetic.product(p["asin"])
            combos = 1
            for _, values in product.options:
                combos *= len(values)
            expected += [p["asin"]] * combos
    assert len(synthetic.goals) == len(expected) == 6 + 12 + 2 + 1
    order = list(expected)
    random.Random(233).shuffle(order)  # only asins are compared: same-asin goals are interchangeable here
    assert [g.asin for g in synthetic.goals] == order
    for g in synthetic.goals:
        assert g.options_kind == "synthetic" and g.attributes == tuple(INS[g.asin]["instruction_attributes"])
        opts = synthetic.product(g.asin).option_dict()
        assert [n for n, _ in g.goal_options] == sorted(opts) and all(v in opts[n] for n, v in g.goal_options)
        assert 0 < g.weight <= 1
    earbuds = next(g for g in synthetic.goals if g.asin == "B07ABCD005")
    assert earbuds.price_upper == NO_PRICE_LIMIT and earbuds.instruction_text == INS["B07ABCD005"]["instruction"]
    assert synthetic.goal(0).asin in synthetic.search(synthetic.goal(0).instruction_text)


def test_limit_keeps_the_first_raw_products(tmp_path):
    cat = read_catalog(import_upstream(FIXTURES, tmp_path / "l", goals="human", limit=3))
    assert list(cat.products) == ["B07ABCD001", "B07ABCD002"]  # the third raw product has asin 'nan'
    assert {g.asin for g in cat.goals} == {"B07ABCD001", "B07ABCD002"}


def test_goal_list_stored_on_disk_is_the_same(synthetic, tmp_path, monkeypatch):
    from treegym.envs.webshop import writer
    monkeypatch.setattr(writer, "GOAL_SQLITE_THRESHOLD", 10)
    cat = read_catalog(import_upstream(FIXTURES, tmp_path / "big", goals="synthetic"))
    assert (cat.root / "goals.sqlite").is_file()
    assert list(cat.goals) == list(synthetic.goals)


def test_heuristic_nouns():
    assert title_nouns("Men's Slim Fit Cotton T-Shirt, Short Sleeve 2-Pack") == (
        "fit", "cotton", "t-shirt", "sleeve", "pack")
    assert title_nouns("Organic Green Tea Bags, 100 Count") == ("tea", "bags")
    assert title_nouns("") == ()


def test_pricing_strings():
    assert parse_pricing("$12.99") == [12.99]
    assert parse_pricing("$10.99$15.99") == [10.99, 15.99]
    assert parse_pricing("$1,299.00") == [1299.0]
    assert parse_pricing("") == [100.0] and parse_pricing(None) == [100.0] and parse_pricing("$abc") == [100.0]


def test_incremental_parser_matches_json_load(monkeypatch):
    monkeypatch.setattr(importer, "_CHUNK", 5)
    assert list(iter_json_array(FIXTURES / "items_shuffle_1000.json")) == RAW
    assert dict(iter_json_object(FIXTURES / "items_human_ins.json")) == HUMAN


@pytest.mark.parametrize("text, where", [('[{"a": 1}, {"b": ', "invalid JSON"), ('{"x": 1}', "expected one of"),
                                         ('[1, 2', "expected one of"), ("", "expected one of")])
def test_malformed_upstream_files_name_the_file(tmp_path, monkeypatch, text, where):
    monkeypatch.setattr(importer, "_CHUNK", 3)
    path = tmp_path / "items_shuffle.json"
    path.write_text(text)
    with pytest.raises(UpstreamFormatError, match=rf"items_shuffle\.json: {where}"):
        list(iter_json_array(path))


def test_missing_files_are_explained(tmp_path):
    with pytest.raises(UpstreamFormatError, match="no items_shuffle"):
        import_upstream(tmp_path, tmp_path / "out")
    (tmp_path / "items_shuffle_1000.json").write_text("[]")
    with pytest.raises(UpstreamFormatError, match="items_human_ins.json not found"):
        import_upstream(tmp_path, tmp_path / "out", goals="human")


def test_cli_import_and_build(tmp_path, capsys):
    assert cli_main(["webshop", "import", str(FIXTURES), "--out", str(tmp_path / "imp"), "--goals", "synthetic"]) == 0
    assert "21" in capsys.readouterr().out and len(load_catalog(tmp_path / "imp").goals) == 21
    assert cli_main(["webshop", "build", "--products", "30", "--goals", "12", "--out", str(tmp_path / "b")]) == 0
    cat = load_catalog(tmp_path / "b")
    assert (len(cat.products), len(cat.goals)) == (30, 12) and (tmp_path / "b" / "index").is_dir()
    assert cli_main(["webshop", "info", str(tmp_path / "b")]) == 0
    assert str(tmp_path / "b" / "index") in capsys.readouterr().out
    assert cli_main(["webshop", "info"]) == 0
    assert '"index": "in memory"' in capsys.readouterr().out  # the shipped catalog
    assert cli_main(["webshop", "build", "--products", "30", "--out", str(tmp_path / "b")]) == 1
    assert "not empty" in capsys.readouterr().err
    assert cli_main(["webshop", "import", str(tmp_path / "missing"), "--out", str(tmp_path / "x")]) == 1
    assert "not a folder" in capsys.readouterr().err
