"""WebShop reward: upstream's formula on upstream-style test vectors, plus its quirks."""
from __future__ import annotations

import copy

import pytest

from treegym.envs.webshop import get_reward
from treegym.envs.webshop.catalog import Goal, Product
from treegym.envs.webshop.reward import fuzzy_score, get_type_reward, normalize_color

GOAL = {
    "asin": "B000000001",
    "name": "Lumora Face Moisturizer Cream for Women, Travel Size",
    "name_nouns": ["lumora", "face", "moisturizer", "cream", "women", "travel", "size"],
    "query": "face moisturizer",
    "product_category": "Beauty & Personal Care \u203a Skin Care \u203a Face \u203a Creams & Moisturizers",
    "attributes": ["anti aging", "dry skin", "paraben free"],
    "goal_options": ["black", "large", "pack of 2"],
    "price_upper": 40.0,
}

PRODUCT = {
    "name": GOAL["name"],
    "name_nouns": list(GOAL["name_nouns"]),
    "query": "face moisturizer",
    "product_category": GOAL["product_category"],
    "Attributes": ["anti aging", "dry skin", "paraben free"],
    "Title": GOAL["name"],
    "BulletPoints": ["Gentle formula for every day"],
    "Description": "A light cream.",
}
ALL_OPTIONS = {"color": "black", "size": "large", "pack": "pack of 2"}


def test_exact_match_scores_one():
    reward, parts = get_reward(PRODUCT, GOAL, price=20.0, options=ALL_OPTIONS)
    assert reward == 1.0
    assert parts["r_type"] == 1.0 and parts["r_att"] == 1.0 and parts["r_option"] == 1.0 and parts["r_price"] == 1.0
    assert parts["w_att"] == pytest.approx(3 / 7) and parts["w_option"] == pytest.approx(3 / 7)
    assert parts["w_price"] == pytest.approx(1 / 7)


def test_attributes_found_only_in_description_or_bullets_count():
    product = dict(PRODUCT, Attributes=["long lasting"], Description="Made for dry skin.",
                   BulletPoints=["Anti aging serum inside", "Fresh scent"])
    reward, parts = get_reward(product, GOAL, price=20.0, options=ALL_OPTIONS)
    assert parts["r_att"] == pytest.approx(2 / 3)
    assert reward == pytest.approx((2 + 3 + 1) / 7)


def test_two_of_three_options_and_one_attribute_gives_four_sevenths():
    product = dict(PRODUCT, Attributes=["dry skin"])
    reward, parts = get_reward(product, GOAL, price=20.0, options={"color": "black", "size": "large"})
    assert parts["r_option"] == pytest.approx(2 / 3)
    assert reward == pytest.approx(4 / 7)


def test_mismatching_type_halves_the_reward():
    product = dict(PRODUCT, Attributes=["dry skin"], query="body lotion",
                   product_category="Beauty & Personal Care \u203a Bath & Body \u203a Lotions",
                   name="Verra Body Lotion Cream", name_nouns=["verra", "body", "lotion", "cream"])
    reward, parts = get_reward(product, GOAL, price=20.0, options={"color": "black", "size": "large"})
    assert not parts["query_match"] and not parts["category_match"]
    assert parts["title_score"] == pytest.approx(1 / 7)
    assert parts["r_type"] == 0.5
    assert reward == pytest.approx(0.5 * 4 / 7)


@pytest.mark.parametrize("shared, expected", [(0, 0.0), (1, 0.5), (2, 1.0)])
def test_type_ladder(shared, expected):
    nouns = GOAL["name_nouns"]
    product = dict(PRODUCT, query="other", product_category="A \u203a B",
                   name_nouns=nouns[:shared] + ["zzz"])
    # 0/7 shared nouns -> 0; 1/7 (0.14, between 0.1 and 0.2) -> 0.5; 2/7 (> 0.2) -> 1
    assert get_type_reward(product, GOAL)["r_type"] == expected


def test_title_score_below_a_tenth_gives_point_one():
    goal = dict(GOAL, name_nouns=[f"n{i}" for i in range(11)])
    product = dict(PRODUCT, query="other", product_category="A", name_nouns=["n0"])
    assert get_type_reward(product, goal)["r_type"] == 0.1


def test_goal_without_nouns_uses_point_two_and_type_passes_on_query():
    goal = dict(GOAL, name="", name_nouns=[])
    assert get_type_reward(PRODUCT, goal)["title_score"] == 0.2
    assert get_type_reward(PRODUCT, goal)["r_type"] == 1.0


def test_price_over_the_bound_loses_one_unit():
    reward, parts = get_reward(PRODUCT, GOAL, price=40.01, options=ALL_OPTIONS)
    assert parts["r_price"] == 0.0
    assert reward == pytest.approx(6 / 7)


def test_purchased_asin_is_never_compared():
    reward, _ = get_reward(dict(PRODUCT, asin="B0OTHER000"), GOAL, price=20.0, options=ALL_OPTIONS)
    assert reward == 1.0


@pytest.mark.parametrize("raw, expected", [
    ("dark blue", "blue"), ("golden", "gold"), ("standard", "tan"), ("washable", "ash"),
    ("navy heather", "heather"), ("light pink", "light"), ("large", "large"),
    (("color", "black"), "black"), (("color", "dark blue"), ("color", "dark blue")),
])
def test_colour_normalisation_quirks(raw, expected):
    assert normalize_color(raw) == expected


def test_synthetic_dict_goal_options_compare_as_name_value_text():
    goal = dict(GOAL, goal_options={"size": "large", "color": "dark blue"})
    # ("size", "large") -> "size large" vs "large": token-set subset -> 100
    _, parts = get_reward(PRODUCT, goal, price=20.0, options={"size": "large", "color": "dark blue"}, verbose=True)
    assert parts["r_option"] == 1.0
    _, parts = get_reward(PRODUCT, goal, price=20.0, options={"size": "small", "color": "red"}, verbose=True)
    assert parts["r_option"] == 0.0
    assert parts["option_hits"] == {"size large": False, "color dark blue": False}


def test_fuzzy_threshold_is_above_85_after_rounding():
    assert fuzzy_score("Pack of 2", "pack of 2!") == 100
    assert fuzzy_score("machine wash", "machine washable") > 85
    assert fuzzy_score("long sleeve", "short sleeve") <= 85
    assert fuzzy_score("", "x") == 0


def test_dataclasses_and_dicts_give_the_same_reward():
    product = Product(asin="B000000002", name=PRODUCT["name"], category="beauty", query=PRODUCT["query"],
                      product_category=PRODUCT["product_category"], price=20.0, price_range=(20.0, 20.0),
                      price_text="$20.00", attributes=("dry skin",), description="A light cream.",
                      bullet_points=("Gentle formula",), name_nouns=tuple(PRODUCT["name_nouns"]))
    goal = Goal(index=0, asin="B000000002", instruction_text="i need a face cream", query=GOAL["query"],
                category="beauty", product_category=GOAL["product_category"], name=GOAL["name"],
                name_nouns=tuple(GOAL["name_nouns"]), attributes=tuple(GOAL["attributes"]),
                goal_options=tuple(GOAL["goal_options"]), options_kind="human", price_upper=40.0)
    opts = {"color": "black", "size": "large"}
    as_dicts = get_reward(dict(PRODUCT, Attributes=["dry skin"], BulletPoints=["Gentle formula"]), GOAL, 20.0, opts)
    assert get_reward(product, goal, 20.0, opts) == as_dicts


def test_reward_is_pure():
    product, goal, opts = copy.deepcopy(PRODUCT), copy.deepcopy(GOAL), dict(ALL_OPTIONS)
    get_reward(product, goal, 20.0, opts, verbose=True)
    assert (product, goal, opts) == (PRODUCT, GOAL, ALL_OPTIONS)


def test_missing_and_odd_inputs_do_not_crash():
    reward, parts = get_reward({}, {"attributes": [], "goal_options": []}, price=5.0, options=None)
    assert 0.0 <= reward <= 1.0 and parts["r_att"] is None and parts["r_option"] is None


# ---- upstream's quirks (web_agent_site/engine/goal.py get_attribute_reward), kept by default
def test_both_attribute_keys_read_capitalised_like_upstream():
    # upstream reads purchased_product["Attributes"]; a lower-case "attributes" list is ignored
    product = dict(PRODUCT, Attributes=["long lasting"], attributes=["anti aging", "dry skin", "paraben free"])
    _, parts = get_reward(product, GOAL, price=20.0, options=ALL_OPTIONS, verbose=True)
    assert parts["r_att"] == 0.0
    _, fixed = get_reward(product, GOAL, price=20.0, options=ALL_OPTIONS, verbose=True, strict=False)
    assert fixed["r_att"] == 1.0, "strict=False reads both lists"


def test_lower_case_attributes_alone_are_still_read():
    product = {k: v for k, v in PRODUCT.items() if k != "Attributes"}
    product["attributes"] = ["dry skin"]
    _, parts = get_reward(product, GOAL, price=20.0, options=ALL_OPTIONS)
    assert parts["r_att"] == pytest.approx(1 / 3)


def test_string_bullet_points_are_spread_into_characters_like_upstream():
    # upstream: " ".join("Anti aging ...") == "A n t i   a g i n g ...", so no attribute is found there
    product = dict(PRODUCT, Attributes=[], BulletPoints="Anti aging formula for dry skin")
    reward, parts = get_reward(product, GOAL, price=20.0, options=ALL_OPTIONS)
    assert parts["r_att"] == 0.0 and reward == pytest.approx(4 / 7)
    reward, parts = get_reward(product, GOAL, price=20.0, options=ALL_OPTIONS, strict=False)
    assert parts["r_att"] == pytest.approx(2 / 3) and reward == pytest.approx(6 / 7)
    # a list of bullet points is joined with spaces in both modes
    listed = dict(product, BulletPoints=["Anti aging formula", "for dry skin"])
    assert get_reward(listed, GOAL, 20.0, ALL_OPTIONS)[1]["r_att"] == pytest.approx(2 / 3)


def test_single_character_attribute_matches_spread_string_bullets_like_upstream():
    goal = dict(GOAL, attributes=["x"])
    product = dict(PRODUCT, Attributes=[], Title="t", Description="d", BulletPoints="box")
    assert get_reward(product, goal, 20.0, ALL_OPTIONS)[1]["r_att"] == 1.0


def test_capitalised_goal_attribute_is_not_found_in_texts_like_upstream():
    goal = dict(GOAL, attributes=["Dry Skin"])
    product = dict(PRODUCT, Attributes=[], Description="made for dry skin")
    assert get_reward(product, goal, 20.0, ALL_OPTIONS)[1]["r_att"] == 0.0
    assert get_reward(product, goal, 20.0, ALL_OPTIONS, strict=False)[1]["r_att"] == 1.0
