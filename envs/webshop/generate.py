"""Deterministic generator of WebShop-style catalogs (products + synthetic goals).

Product ``i`` of a catalog with seed ``s`` is a pure function of ``(s, i)``
(:func:`product_record`), and goal ``g`` a pure function of ``(s, g, n)``
(:func:`goal_record`), so catalogs of any size stream in constant memory, the
same seed always gives the same catalog, and a goal can re-derive its target.

Products follow upstream's schema and style (vocab.py): invented brands,
titles such as "Lumora Shimmer Lip Gloss, Long Lasting, Pack of 2", Amazon-like
breadcrumbs, lower-case attributes ("long lasting", "machine wash"), options
(color, size, flavor name, ...), description, bullet points, reviews, rating,
a fixed price or a price range (the fixed price is drawn in the range).

Goals follow upstream's synthetic goals (goal.py ``get_synthetic_goals``):
"{instruction} with {name}: {value}, and {name}: {value}, and price lower than
{X}.00 dollars", option names sorted, one option combination per goal (upstream
emits every combination; we draw one so goals spread over products), the price
bound drawn from upstream's PRICE_RANGE rule, weight 1. Every goal is
satisfiable by its target: its attributes are among the product's attributes,
its option values among the product's option values, and the product's price
is below the bound, so buying the target with those options scores reward 1.
``name_nouns`` are exact here: the generator knows which title words are nouns
(brand, material and head-noun words, "pack").
"""
from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

from .model import NO_PRICE_LIMIT, format_price_text, price_upper_for
from .vocab import (BRAND_HEADS, BRAND_MIDDLES, BRAND_TAILS, BULLET_TEMPLATES, DESCRIPTION_CLOSERS,
                    DESCRIPTION_MIDDLES, DESCRIPTION_OPENERS, INSTRUCTION_TEMPLATES, LINE_NAMES, QUERIES,
                    REVIEW_BODIES, REVIEW_TITLES, REVIEW_WHO, QuerySpec)
from .writer import CatalogWriter

DEFAULT_SEED = 0
_ASIN_SPACE = 36 ** 8
_ASIN_MULT = 2_654_435_761 % _ASIN_SPACE  # odd and not a multiple of 3: a bijection mod 36**8
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_A_BEFORE_VOWEL = re.compile(r"\ba ([aeiou])")
_PACKS = ("", "", "", ", Pack of 2", ", Pack of 3", ", 2 Count")


def make_asin(seed: int, i: int) -> str:
    """The unique 10-character ASIN ("B0" + 8 base-36 digits) of product ``i``."""
    x = (i * _ASIN_MULT + seed * 7_919 + 1_234_567_890_123) % _ASIN_SPACE
    out = []
    for _ in range(8):
        x, r = divmod(x, 36)
        out.append(_DIGITS[r])
    return "B0" + "".join(reversed(out))


def _rng(seed: int, stream: int, i: int) -> random.Random:
    return random.Random((seed * 1_000_003 + stream) * 4_294_967_311 + i)


def _spec_of(seed: int, i: int) -> QuerySpec:
    return QUERIES[(i * 7 + seed) % len(QUERIES)]


def _title(words: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in words.split())


def product_record(seed: int, i: int) -> dict[str, Any]:
    """Product ``i`` of the catalog with ``seed``, in the ``Product.to_dict`` form (lists for tuples)."""
    return _product(seed, i)[0]


def _product(seed: int, i: int) -> tuple[dict[str, Any], str]:
    """Product ``i`` and its descriptor (product line + adjective, as goals mention it)."""
    rng = _rng(seed, 1, i)
    spec = _spec_of(seed, i)
    brand = rng.choice(BRAND_HEADS) + rng.choice(BRAND_MIDDLES) + rng.choice(BRAND_TAILS)
    line = rng.choice(LINE_NAMES)
    adj = rng.choice(spec.adjectives)
    material = rng.choice(spec.materials) if spec.materials and rng.random() < 0.6 else ""
    attributes = rng.sample(spec.attributes, min(len(spec.attributes), rng.randint(3, 5)))
    pack = rng.choice(_PACKS)
    title_attr = _title(attributes[0]) if rng.random() < 0.5 else ""
    name = " ".join(x for x in (_title(brand), _title(line), _title(adj), _title(material), _title(spec.head)) if x)
    if title_attr:
        name += ", " + title_attr
    name += pack
    nouns = [brand, line] + ([material] if material else []) + list(spec.nouns) + (["pack"] if "Pack" in pack else [])
    nouns += [w for w in ("count",) if "Count" in pack]

    options = []
    for opt_name, pool in spec.options:
        if rng.random() < 0.85:
            k = min(len(pool), rng.randint(2, 6))
            picked = set(rng.sample(range(len(pool)), k))
            options.append([opt_name, [v for j, v in enumerate(pool) if j in picked]])

    use = rng.choice(spec.uses)
    a1, a2 = attributes[0], attributes[1]
    description = " ".join(x for x in (
        rng.choice(DESCRIPTION_OPENERS).format(brand=_title(brand), head=spec.head, use=use, adj=adj),
        rng.choice(DESCRIPTION_MIDDLES).format(a1=a1, a2=a2),
        rng.choice(DESCRIPTION_CLOSERS)) if x)
    bullets = [BULLET_TEMPLATES[j % len(BULLET_TEMPLATES)].format(
        A=a.upper(), a=a, brand=_title(brand), head=spec.head, use=use) for j, a in enumerate(attributes)]

    price = max(1.99, round(spec.base_price * rng.lognormvariate(0.0, 0.45)) - 0.01)
    if rng.random() < 0.25:
        hi = round(price * rng.uniform(1.1, 1.8)) - 0.01
        lo, hi = price, max(hi, price + 1.0)
        price = round(rng.uniform(lo, hi), 2)
    else:
        lo = hi = price

    reviews = []
    for _ in range(rng.choice((0, 0, 1, 2, 3))):
        score = rng.choices((5, 4, 3, 2, 1), weights=(45, 30, 12, 7, 6))[0]
        opt = options[0][0] if options else "size"
        reviews.append([score, rng.choice(REVIEW_TITLES[score]), REVIEW_BODIES[score].format(
            noun=spec.head, who=rng.choice(REVIEW_WHO), attr=a1, opt=opt)])
    rating = round(sum(r[0] for r in reviews) / len(reviews), 1) if reviews else (
        None if rng.random() < 0.3 else round(rng.uniform(3.0, 5.0), 1))
    return {
        "asin": make_asin(seed, i), "name": name, "category": spec.category, "query": spec.query,
        "product_category": spec.breadcrumb, "price": price, "price_range": [lo, hi],
        "price_text": format_price_text(lo, hi), "attributes": attributes, "options": options,
        "description": description, "bullet_points": bullets, "reviews": reviews, "rating": rating,
        "main_image": "", "name_nouns": nouns,
    }, f"{line} {adj}"


def goal_record(seed: int, g: int, n_products: int) -> dict[str, Any]:
    """Synthetic goal ``g`` over a catalog of ``n_products`` products with ``seed`` (``Goal.to_dict`` form)."""
    rng = _rng(seed, 2, g)
    target = rng.randrange(n_products)
    p, descriptor = _product(seed, target)
    spec = _spec_of(seed, target)
    template = rng.choice(INSTRUCTION_TEMPLATES)
    n_attr = sum(f"{{a{k}}}" in template for k in (1, 2, 3))
    attrs = rng.sample(p["attributes"], min(n_attr, len(p["attributes"])))
    fill = {f"a{k + 1}": attrs[k] if k < len(attrs) else attrs[-1] for k in range(3)}
    instruction = template.format(q=spec.query, d=descriptor, b=p["name_nouns"][0], **fill)
    instruction = _A_BEFORE_VOWEL.sub(r"an \1", instruction)
    goal_options = [(name, rng.choice(values)) for name, values in sorted(p["options"])]
    option_text = ", and ".join(f"{n}: {v}" for n, v in goal_options)
    text = instruction + (f" with {option_text}" if option_text else "")
    price_upper = price_upper_for(p["price"], rng)
    if price_upper < NO_PRICE_LIMIT:
        text += f", and price lower than {price_upper:.2f} dollars"
    return {
        "index": g, "asin": p["asin"], "instruction_text": text, "query": p["query"],
        "category": p["category"], "product_category": p["product_category"], "name": p["name"],
        "name_nouns": p["name_nouns"], "attributes": attrs, "goal_options": goal_options,
        "options_kind": "synthetic", "price_upper": price_upper, "weight": 1.0,
    }


def iter_products(n_products: int, seed: int = DEFAULT_SEED) -> Iterator[dict[str, Any]]:
    for i in range(n_products):
        yield product_record(seed, i)


def iter_goals(n_goals: int, n_products: int, seed: int = DEFAULT_SEED) -> Iterator[dict[str, Any]]:
    for g in range(n_goals):
        yield goal_record(seed, g, n_products)


def build_catalog(out: str | Path, n_products: int, n_goals: int, *, seed: int = DEFAULT_SEED,
                  name: str | None = None, store: str = "auto", index: bool = True,
                  overwrite: bool = False, progress: Callable[[int], None] | None = None) -> Path:
    """Generate a catalog of ``n_products`` products and ``n_goals`` goals into folder ``out``."""
    if n_products < 1 or n_goals < 0:
        raise ValueError(f"need at least 1 product and 0 goals, got {n_products} products, {n_goals} goals")
    name = name or f"generated-{n_products}-s{seed}"
    writer = CatalogWriter(out, name=name, version=f"gen1-s{seed}", store=store, expected_products=n_products,
                           index=index, overwrite=overwrite, progress=progress)
    for record in iter_products(n_products, seed):
        writer.add(record)
    return writer.finish(iter_goals(n_goals, n_products, seed), expected_goals=n_goals,
                         extra_meta={"source": {"kind": "generated", "seed": seed, "generator": "gen1"},
                                     "name_nouns": "exact (generator knows title nouns)"})
