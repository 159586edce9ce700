"""WebShop data model: :class:`Product`, :class:`Goal`, catalog constants and small helpers.

The schema follows upstream WebShop (princeton-nlp/WebShop, ``engine.py`` and
``goal.py``) after its load-time normalisation, frozen and picklable. This
module imports nothing else from the package (stores, search and the catalog
build on it), so it is the bottom of the WebShop data layer.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

FORMAT_VERSION = 1
CATEGORIES = ("beauty", "grocery", "fashion", "furniture", "electronics")
BREADCRUMB_SEP = " \u203a "
NO_PRICE_LIMIT = 1_000_000.0
# Upstream's PRICE_RANGE (goal.py): price-bound thresholds 10, 20, ..., 990 dollars.
PRICE_RANGE = tuple(float(10 * i) for i in range(1, 100))
META_FILE = "meta.json"
PRODUCTS_JSONL = "products.jsonl.gz"
PRODUCTS_SQLITE = "products.sqlite"
GOALS_JSONL = "goals.jsonl.gz"
GOALS_SQLITE = "goals.sqlite"
INDEX_DIR = "index"
DEFAULT_CATALOG_DIR = Path(__file__).resolve().parent / "data" / "default"
# Upstream splits (baseline_models/env.py): test = goals[0:500], dev = goals[500:1500], train = rest.
TEST_SPLIT_SIZE = 500
DEV_SPLIT_SIZE = 1000


class CatalogError(RuntimeError):
    """A catalog file is missing, unreadable or malformed (the message says which and what to do)."""


# ----------------------------------------------------------------------------------------------
# Data model
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Product:
    """One product, as upstream's ``load_products`` leaves it.

    ``price`` is the one fixed price in dollars (seeded when the source gives a
    range); ``price_range`` is ``(lo, hi)`` or ``(price, price)``; ``price_text``
    is what the item page shows ("$12.99" or "$10.99 to $15.99"). ``attributes``,
    ``options`` names and values and ``query`` are lower-case; ``options`` is a
    tuple of ``(option_name, (value, ...))`` in page order. ``reviews`` holds
    ``(score 1-5, title, body)``. ``name_nouns`` are the lower-case nouns of
    ``name`` (what spaCy NOUN/PROPN would give), precomputed at build time.
    """

    asin: str
    name: str
    category: str
    query: str
    product_category: str
    price: float
    price_range: tuple[float, float]
    price_text: str
    attributes: tuple[str, ...] = ()
    options: tuple[tuple[str, tuple[str, ...]], ...] = ()
    description: str = ""
    bullet_points: tuple[str, ...] = ()
    reviews: tuple[tuple[int, str, str], ...] = ()
    rating: float | None = None
    main_image: str = ""
    name_nouns: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """Upstream's ``Title`` (same as ``name``)."""
        return self.name

    def option_dict(self) -> dict[str, tuple[str, ...]]:
        return {name: values for name, values in self.options}

    def option_values(self) -> tuple[str, ...]:
        return tuple(v for _, values in self.options for v in values)

    def search_text(self) -> str:
        """The text the search index holds (see :func:`search_text`)."""
        return search_text(self.name, self.description, self.bullet_points, self.options)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Product":
        lo, hi = d["price_range"]
        return cls(
            asin=str(d["asin"]), name=str(d["name"]), category=str(d["category"]),
            query=str(d["query"]), product_category=str(d["product_category"]),
            price=float(d["price"]), price_range=(float(lo), float(hi)),
            price_text=str(d["price_text"]),
            attributes=tuple(d.get("attributes") or ()),
            options=tuple((str(n), tuple(str(v) for v in vals)) for n, vals in (d.get("options") or ())),
            description=str(d.get("description") or ""),
            bullet_points=tuple(d.get("bullet_points") or ()),
            reviews=tuple((int(s), str(t), str(b)) for s, t, b in (d.get("reviews") or ())),
            rating=None if d.get("rating") is None else float(d["rating"]),
            main_image=str(d.get("main_image") or ""),
            name_nouns=tuple(d.get("name_nouns") or ()),
        )


@dataclass(frozen=True, slots=True)
class Goal:
    """One instruction and what a correct purchase must satisfy.

    ``index`` is the goal's position in the catalog's goal list (splits are
    index ranges). ``query``, ``category``, ``product_category``, ``name`` and
    ``name_nouns`` are copied from the target product ``asin`` (the reward's type
    gate compares them with the purchased product). ``goal_options`` is a tuple
    of ``(name, value)`` pairs when ``options_kind == "synthetic"`` (upstream's
    dict goal, compared as dict items) and a tuple of free strings when
    ``options_kind == "human"``. ``price_upper`` is in dollars; ``NO_PRICE_LIMIT``
    (1e6) means no price constraint. ``weight`` is upstream's sampling weight.
    """

    index: int
    asin: str
    instruction_text: str
    query: str
    category: str
    product_category: str
    name: str
    name_nouns: tuple[str, ...]
    attributes: tuple[str, ...]
    goal_options: tuple = ()
    options_kind: str = "synthetic"
    price_upper: float = NO_PRICE_LIMIT
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Goal":
        kind = str(d.get("options_kind") or "synthetic")
        raw = d.get("goal_options") or ()
        if kind == "synthetic":
            goal_options: tuple = tuple((str(n), str(v)) for n, v in raw)
        elif kind == "human":
            goal_options = tuple(str(o) for o in raw)
        else:
            raise ValueError(f"options_kind must be 'synthetic' or 'human', got {kind!r}")
        return cls(
            index=int(d["index"]), asin=str(d["asin"]), instruction_text=str(d["instruction_text"]),
            query=str(d["query"]), category=str(d["category"]),
            product_category=str(d["product_category"]), name=str(d["name"]),
            name_nouns=tuple(d.get("name_nouns") or ()), attributes=tuple(d.get("attributes") or ()),
            goal_options=goal_options, options_kind=kind,
            price_upper=float(d.get("price_upper", NO_PRICE_LIMIT)), weight=float(d.get("weight", 1.0)),
        )


def option_text(options: Iterable[tuple[str, Sequence[str]]]) -> str:
    """Upstream's index text for options: ``"name1: v1, v2, and name2: v3"``."""
    parts = [f"{name}: {', '.join(values)}" for name, values in options]
    return ", and ".join(parts)


def search_text(name: str, description: str, bullet_points: Iterable[str],
                options: Iterable[tuple[str, Sequence[str]]]) -> str:
    """What the search index holds for a product: title, description, bullets and :func:`option_text`.

    As upstream (``search_engine/convert_product_file_format.py``) option names
    are included ("color: black, white, and size: large"): instructions name
    them ("with color: black"), so a product must hold them too, or the few
    products whose prose happens to say "size" or "color" outrank it.
    """
    return " ".join((name, description, " ".join(bullet_points), option_text(options)))


def record_search_text(record: Mapping[str, Any]) -> str:
    """``search_text`` of a product record (the ``Product.to_dict`` form)."""
    return search_text(record["name"], record.get("description") or "", record.get("bullet_points") or (),
                       record.get("options") or ())


def format_price_text(lo: float, hi: float | None = None) -> str:
    """Upstream's display price: ``"$12.99"`` or ``"$10.99 to $15.99"``."""
    if hi is None or hi == lo:
        return f"${lo:.2f}"
    return f"${lo:.2f} to ${hi:.2f}"


def price_upper_for(price: float, rng: random.Random) -> float:
    """Upstream's goal price bound: 2 of the first 4 PRICE_RANGE thresholds above ``price``, the larger.

    ``NO_PRICE_LIMIT`` when fewer than 2 thresholds lie above the price (products from $980).
    """
    above = [p for p in PRICE_RANGE if p > price][:4]
    if len(above) < 2:
        return NO_PRICE_LIMIT
    return max(rng.sample(above, 2))


def upstream_splits(n_goals: int) -> dict[str, range]:
    """Upstream's goal splits: test = first 500, dev = next 1,000, train = the rest, plus all."""
    test_end = min(TEST_SPLIT_SIZE, n_goals)
    dev_end = min(TEST_SPLIT_SIZE + DEV_SPLIT_SIZE, n_goals)
    return {"test": range(0, test_end), "dev": range(test_end, dev_end),
            "train": range(dev_end, n_goals), "all": range(0, n_goals)}
