"""WebShop's purchase reward, ported from upstream ``web_agent_site/engine/goal.py``.

``get_reward(purchased_product, goal, price, options)`` is a pure function with
upstream's argument meanings:

* ``purchased_product`` - the product bought: a :class:`~treegym.envs.webshop.catalog.Product`
  or an upstream-style dict (``name``, ``query``, ``product_category``,
  ``Attributes``, ``Title``, ``BulletPoints``, ``Description``);
* ``goal`` - a :class:`~treegym.envs.webshop.catalog.Goal` or an upstream goal dict
  (``name``, ``query``, ``product_category``, ``attributes``, ``goal_options``
  as a list of strings or a ``{name: value}`` dict, ``price_upper``);
* ``price`` - the price paid, in dollars;
* ``options`` - the ``{option_name: value}`` the buyer selected.

It returns ``(reward, parts)`` with ``reward`` in [0, 1] and ``parts`` holding
upstream's verbose breakdown (``r_type``, ``r_att``, ``w_att``, ``r_option``,
``w_option``, ``r_price``, ``w_price``, ``query_match``, ``category_match``,
``title_score``); ``verbose=True`` adds which goal attributes and options matched.

The formula: ``r_type * (attribute hits + option hits + price ok) /
(n_attributes + n_options + 1)``; ``r_type`` in {0, 0.1, 0.5, 1} gates on the
product type (same query, two shared breadcrumb levels, or shared name nouns).
Fuzzy matches are ``token_set_ratio > 85`` (thefuzz semantics via rapidfuzz).
Name nouns come precomputed with the catalog (``name_nouns``), so no spaCy at
run time; for dicts without them a small heuristic stands in (see ``name_nouns``).
Deviations from upstream are listed in envs/webshop/README.md.

``strict=True`` (the default) reproduces upstream's attribute check exactly,
quirks included; ``strict=False`` fixes these quirks:

* a product record with both ``Attributes`` and ``attributes`` is read through
  ``Attributes`` only (upstream reads that key); ``strict=False`` uses both lists;
* ``BulletPoints`` are joined with ``" ".join(...)``, which on a *string*
  spreads it into single characters (``"red"`` -> ``"r e d"``), so a goal
  attribute is never found in string bullet points; ``strict=False`` reads a
  string as one text;
* a goal attribute is looked up in the lower-cased title, bullet points and
  description as given, so one with capitals is never found there;
  ``strict=False`` lower-cases it first.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rapidfuzz import fuzz, utils
from .nouns import title_nouns

FUZZY_THRESHOLD = 85  # upstream: token_set_ratio(a, b) > 85 after int-rounding

# Colour words for option normalisation, in upstream's alphabetical order of
# lookup: an option containing one of them (as a substring) is replaced by the
# first one it contains ("dark blue" -> "blue", "golden" -> "gold").
COLOR_SET: tuple[str, ...] = (
    "apricot", "aqua", "ash", "beige", "black", "blue", "blush", "bronze", "brown",
    "burgundy", "camel", "camo", "champagne", "charcoal", "chocolate", "clear", "coffee",
    "copper", "coral", "cream", "denim", "emerald", "fuchsia", "gold", "gray", "green",
    "grey", "heather", "indigo", "ivory", "khaki", "lavender", "leopard", "light",
    "lilac", "lime", "magenta", "maroon", "mint", "multicolor", "mustard", "natural",
    "navy", "nude", "olive", "orange", "peach", "pink", "plum", "purple", "red", "rose",
    "rust", "sage", "silver", "tan", "taupe", "teal", "turquoise", "violet", "white",
    "wine", "yellow",
)

def _get(obj: Any, *names: str, default: Any = None) -> Any:
    """A field of a dataclass or a mapping, trying ``names`` in order."""
    for n in names:
        if isinstance(obj, Mapping):
            if n in obj:
                return obj[n]
        elif hasattr(obj, n):
            return getattr(obj, n)
    return default


def name_nouns(obj: Any) -> list[str]:
    """Lower-case nouns of a product's or goal's ``name``.

    Uses the precomputed ``name_nouns`` when present (catalog build time, the
    stand-in for upstream's spaCy NOUN/PROPN tags). For upstream-style dicts
    without them, the importer's rules (``nouns.title_nouns``) stand in.
    """
    pre = _get(obj, "name_nouns")
    if pre:
        return [str(n).lower() for n in pre]

    return list(title_nouns(str(_get(obj, "name", "Title", default="") or "")))


def fuzzy_score(a: Any, b: Any) -> int:
    """thefuzz's ``token_set_ratio`` (lower-case, punctuation to spaces, ASCII only, int-rounded)."""
    sa = str(a).encode("ascii", "ignore").decode()
    sb = str(b).encode("ascii", "ignore").decode()
    pa, pb = utils.default_process(sa), utils.default_process(sb)
    if not pa or not pb:
        return 0
    return int(round(fuzz.token_set_ratio(pa, pb)))


def _category_levels(breadcrumb: str) -> set[str]:
    return {c.strip().lower() for c in str(breadcrumb or "").split("\u203a") if c.strip()}


def get_type_reward(purchased_product: Any, goal: Any) -> dict[str, Any]:
    """Upstream's type gate: ``r_type`` plus ``query_match``, ``category_match``, ``title_score``."""
    query_match = str(_get(purchased_product, "query", default="")).lower() == str(_get(goal, "query", default="")).lower()
    shared = _category_levels(_get(purchased_product, "product_category", default="")) & _category_levels(
        _get(goal, "product_category", default=""))
    category_match = len(shared) >= 2
    goal_nouns = name_nouns(goal)
    product_nouns = set(name_nouns(purchased_product))
    if goal_nouns:
        title_score = len(product_nouns & set(goal_nouns)) / len(goal_nouns)
    else:
        title_score = 0.2
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return {"r_type": r_type, "query_match": query_match, "category_match": category_match,
            "title_score": title_score}


def _product_attributes(purchased_product: Any, strict: bool) -> list[str]:
    if isinstance(purchased_product, Mapping):
        upper, lower = purchased_product.get("Attributes"), purchased_product.get("attributes")
        if strict:
            chosen = upper if "Attributes" in purchased_product else lower
            return [str(a) for a in (chosen or ())]
        return list(dict.fromkeys(str(a) for a in [*(upper or ()), *(lower or ())]))
    return [str(a) for a in (_get(purchased_product, "attributes", default=()) or ())]


def _bullets_text(bullets: Any, strict: bool) -> str:
    if isinstance(bullets, str) and not strict:
        return bullets.lower()
    # upstream: " ".join(bullet_points) -- on a string this spaces out its characters
    return " ".join(map(str, bullets or ())).lower()


def get_attribute_hits(purchased_product: Any, goal_attrs: Sequence[str], strict: bool = True) -> list[bool]:
    """For each goal attribute: matched by a product attribute (fuzzy) or found in its texts.

    ``strict`` keeps upstream's quirks (see the module docstring).
    """
    attrs = _product_attributes(purchased_product, strict)
    title = str(_get(purchased_product, "title", "Title", "name", default="") or "").lower()
    bullets_text = _bullets_text(_get(purchased_product, "bullet_points", "BulletPoints", default=()), strict)
    description = str(_get(purchased_product, "description", "Description", default="") or "").lower()
    hits = []
    for g in goal_attrs:
        g = str(g)
        hit = any(fuzzy_score(p, g) > FUZZY_THRESHOLD for p in attrs)
        if not hit:
            gl = g if strict else g.lower()
            hit = gl in title or gl in bullets_text or gl in description
        hits.append(hit)
    return hits


def normalize_color(option: Any) -> Any:
    """Upstream's colour normalisation of one option (a string or a ``(name, value)`` tuple).

    A string containing a colour word (substring test) becomes that colour; a
    tuple becomes the colour only if one of its elements *is* a colour word.
    """
    if isinstance(option, tuple):
        for color in COLOR_SET:
            if color in option:
                return color
        return option
    for color in COLOR_SET:
        if color in str(option):
            return color
    return option


def _goal_options(goal: Any) -> list[Any]:
    raw = _get(goal, "goal_options", default=()) or ()
    if isinstance(raw, Mapping):
        return [(str(k), str(v)) for k, v in raw.items()]
    return [tuple(map(str, o)) if isinstance(o, (tuple, list)) else str(o) for o in raw]


def get_option_hits(options: Mapping[str, str], goal_options: Sequence[Any]) -> list[bool]:
    """For each goal option: some selected option matches it (fuzzy, after colour normalisation)."""
    purchased = [normalize_color(str(v)) for v in (options or {}).values()]
    goal_norm = [normalize_color(g) for g in goal_options]
    return [any(fuzzy_score(_as_text(p), _as_text(g)) > FUZZY_THRESHOLD for p in purchased) for g in goal_norm]


def _as_text(option: Any) -> str:
    # thefuzz str()-ed tuples, so ("color", "dark blue") compares as "color dark blue".
    return " ".join(option) if isinstance(option, tuple) else str(option)


def get_reward(purchased_product: Any, goal: Any, price: float, options: Mapping[str, str] | None,
               verbose: bool = False, strict: bool = True) -> tuple[float, dict[str, Any]]:
    """The reward of buying ``purchased_product`` at ``price`` with ``options`` for ``goal``.

    Returns ``(reward, parts)``; see the module docstring. ``strict=True``
    reproduces upstream exactly, quirks included; ``strict=False`` fixes them.
    """
    type_parts = get_type_reward(purchased_product, goal)
    goal_attrs = [str(a) for a in (_get(goal, "attributes", default=()) or ())]
    att_hits = get_attribute_hits(purchased_product, goal_attrs, strict=strict)
    goal_opts = _goal_options(goal)
    opt_hits = get_option_hits(options or {}, goal_opts)
    price_upper = float(_get(goal, "price_upper", default=1_000_000.0))
    price_ok = 1.0 if float(price) <= price_upper else 0.0

    n_att, n_opt = sum(att_hits), sum(opt_hits)
    total_units = len(goal_attrs) + len(goal_opts) + 1
    reward = type_parts["r_type"] * (n_att + n_opt + price_ok) / total_units
    parts: dict[str, Any] = {
        "r_type": type_parts["r_type"],
        "r_att": (n_att / len(goal_attrs)) if goal_attrs else None,
        "w_att": len(goal_attrs) / total_units,
        "r_option": (n_opt / len(goal_opts)) if goal_opts else None,
        "w_option": len(goal_opts) / total_units,
        "r_price": price_ok,
        "w_price": 1 / total_units,
        "query_match": type_parts["query_match"],
        "category_match": type_parts["category_match"],
        "title_score": type_parts["title_score"],
    }
    if verbose:
        parts["attribute_hits"] = {a: h for a, h in zip(goal_attrs, att_hits)}
        parts["option_hits"] = {_as_text(o): h for o, h in zip(goal_opts, opt_hits)}
    return float(reward), parts
