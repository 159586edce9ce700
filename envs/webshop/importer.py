"""Import upstream WebShop data files into a treegym catalog directory.

For users who have upstream's files (``items_shuffle*.json``,
``items_ins_v2*.json``, ``items_human_ins.json``; we never download them),
:func:`import_upstream` reproduces upstream's load-time processing
(``engine.py:load_products`` and ``goal.py:get_*_goals``):

* products in file order; ASIN ``'nan'`` or longer than 10 characters and
  duplicates are dropped; title = ``name``, description = ``full_description``,
  bullet points = ``small_description`` (a list, or one string); pricing
  ``"$12.99"`` / ``"$10.99$15.99"`` (empty -> $100); option names and values
  lower-cased, "/" in values -> " | "; query lower-cased and stripped; first
  image; attributes from ``items_ins_v2`` (empty when missing: upstream's
  ``DUMMY_ATTR`` never matches anything either); no reviews, rating None (upstream
  ships none);
* goals: human (one per MTurk instruction with attributes, options as free
  strings) or synthetic (one per option combination of each product with an
  instruction, options as (name, value)), then upstream's fixed shuffle
  ``random.seed(233); random.shuffle(goals)``, so goal ``i`` and the splits
  (test 0-499, dev 500-1499, train 1500+) are upstream's;
* prices: upstream draws range prices and goal price bounds from an *unseeded*
  RNG, so they change between server restarts. By default we draw them from
  RNGs seeded by ``(seed, asin)`` (fixed, reproducible); ``upstream_prices=True``
  draws them unseeded in upstream's order instead (documented, not reproducible);
* ``name_nouns`` come from the heuristic in nouns.py (no spaCy at run time);
* display prices use two decimals ("$100.00"; upstream prints "$100.0").

The products file is parsed incrementally (:func:`iter_json_array`), so the
5 GB full catalog streams in bounded memory; products go straight into the
catalog writer (sqlite store + tantivy index).
"""
from __future__ import annotations

import bisect
import json
import random
import re
import sys
from array import array
from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable, TextIO

from .model import NO_PRICE_LIMIT, CatalogError, format_price_text, price_upper_for
from .nouns import title_nouns
from .writer import CatalogWriter

GOAL_SHUFFLE_SEED = 233
_CHUNK = 1 << 20
_WS = " \t\r\n"


class UpstreamFormatError(CatalogError):
    """An upstream file is missing or malformed (names the file and position)."""


# ----------------------------------------------------------------------------------------------
# Incremental JSON
# ----------------------------------------------------------------------------------------------

class _Reader:
    """A growing text buffer over a file, for raw_decode-based incremental parsing."""

    def __init__(self, fh: TextIO, path: Path):
        self.fh, self.path = fh, path
        self.buf, self.pos, self.eof, self.consumed = "", 0, False, 0
        self._dec = json.JSONDecoder()

    def fill(self) -> bool:
        if self.eof:
            return False
        chunk = self.fh.read(_CHUNK)
        if not chunk:
            self.eof = True
            return False
        if self.pos > len(self.buf) // 2:
            self.consumed += self.pos
            self.buf, self.pos = self.buf[self.pos:], 0
        self.buf += chunk
        return True

    def skip_ws(self) -> str:
        """The next non-blank character (not consumed), or "" at end of file."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return ""

    def expect(self, chars: str) -> str:
        c = self.skip_ws()
        if c == "" or c not in chars:
            raise self.error(f"expected one of {chars!r}, found {c or 'end of file'!r}")
        self.pos += 1
        return c

    def value(self) -> Any:
        self.skip_ws()
        while True:
            try:
                obj, end = self._dec.raw_decode(self.buf, self.pos)
            except ValueError as exc:
                if self.fill():
                    continue
                raise self.error(f"invalid JSON ({exc.args[0] if exc.args else exc})") from None
            if end >= len(self.buf) and not self.eof and self.fill():
                continue  # a number may continue in the next chunk
            self.pos = end
            return obj

    def error(self, what: str) -> "UpstreamFormatError":
        return UpstreamFormatError(f"{self.path}: {what} near character {self.consumed + self.pos}; "
                            "the file is not valid upstream WebShop JSON (re-download it).")


def _open_text(path: Path) -> TextIO:
    if not path.is_file():
        raise UpstreamFormatError(f"{path}: file not found; pass the folder holding upstream's data files "
                           "(items_shuffle*.json, items_ins_v2*.json, items_human_ins.json).")
    return open(path, encoding="utf-8")


def iter_json_array(path: str | Path) -> Iterator[Any]:
    """Yield the elements of a top-level JSON array without reading the whole file."""
    path = Path(path)
    with _open_text(path) as fh:
        r = _Reader(fh, path)
        r.expect("[")
        if r.skip_ws() == "]":
            return
        while True:
            yield r.value()
            if r.expect(",]") == "]":
                return


def iter_json_object(path: str | Path) -> Iterator[tuple[str, Any]]:
    """Yield the (key, value) pairs of a top-level JSON object without reading the whole file."""
    path = Path(path)
    with _open_text(path) as fh:
        r = _Reader(fh, path)
        r.expect("{")
        if r.skip_ws() == "}":
            return
        while True:
            key = r.value()
            if not isinstance(key, str):
                raise r.error("expected a string key")
            r.expect(":")
            yield key, r.value()
            if r.expect(",}") == "}":
                return


# ----------------------------------------------------------------------------------------------
# Upstream records -> ours
# ----------------------------------------------------------------------------------------------

def parse_pricing(pricing: Any) -> list[float]:
    """Upstream's pricing string ("$12.99", "$10.99$15.99", "" -> [100.0]) as 1-2 floats."""
    if not pricing or not isinstance(pricing, str):
        return [100.0]
    out = []
    for part in pricing.split("$")[1:]:
        digits = re.sub(r"[^\d.]", "", part)
        try:
            out.append(float(Decimal(digits)))
        except (InvalidOperation, ValueError):
            continue
    return out[:2] or [100.0]


def convert_product(raw: Mapping[str, Any], attributes: tuple[str, ...], price: float) -> dict[str, Any]:
    """One upstream raw product as our record (``Product.to_dict`` form)."""
    pricing = parse_pricing(raw.get("pricing"))
    lo, hi = (pricing[0], pricing[0]) if len(pricing) == 1 else (pricing[0], pricing[1])
    options: dict[str, list[str]] = {}  # a later "Color" overwrites "color" in place, as upstream
    custom = raw.get("customization_options")
    for name, contents in (custom.items() if isinstance(custom, Mapping) else ()):
        if not contents:
            continue
        options[str(name).lower()] = [str(c.get("value", "")).strip().replace("/", " | ").lower()
                                      for c in contents if isinstance(c, Mapping)]
    small = raw.get("small_description")
    bullets = [str(b) for b in small] if isinstance(small, list) else ([] if small is None else [str(small)])
    images = raw.get("images") or [""]
    name = str(raw.get("name") or "")
    return {
        "asin": raw["asin"], "name": name, "category": str(raw.get("category") or "").lower(),
        "query": str(raw.get("query") or "").lower().strip(),
        "product_category": str(raw.get("product_category") or ""),
        "price": price, "price_range": [lo, hi], "price_text": format_price_text(lo, hi),
        "attributes": list(attributes), "options": [[k, v] for k, v in options.items()],
        "description": str(raw.get("full_description") or ""), "bullet_points": bullets,
        "reviews": [], "rating": None, "main_image": str(images[0] or ""), "name_nouns": list(title_nouns(name)),
    }


def _seeded(seed: int, *parts: object) -> random.Random:
    return random.Random("|".join(str(p) for p in (seed, *parts)))


def find_upstream_files(src: Path) -> dict[str, Path]:
    """Pick upstream's files in ``src``: the largest items_shuffle*/items_ins_v2* and items_human_ins.json."""
    def pick(pattern: str) -> Path | None:
        found = sorted(src.glob(pattern), key=lambda p: (p.stat().st_size, p.name))
        return found[-1] if found else None
    if not src.is_dir():
        raise UpstreamFormatError(f"{src}: not a folder; pass the folder holding upstream's data files.")
    files = {"products": pick("items_shuffle*.json"), "attributes": pick("items_ins_v2*.json"),
             "human": src / "items_human_ins.json" if (src / "items_human_ins.json").is_file() else None}
    if files["products"] is None:
        raise UpstreamFormatError(f"{src}: no items_shuffle*.json found; it should hold upstream's product "
                           "list (items_shuffle_1000.json or items_shuffle.json).")
    return files  # type: ignore[return-value]


def import_upstream(src: str | Path, out: str | Path, *, goals: str = "human", seed: int = 0,
                    upstream_prices: bool = False, products_file: str | Path | None = None,
                    attributes_file: str | Path | None = None, human_file: str | Path | None = None,
                    limit: int | None = None, name: str | None = None, overwrite: bool = False,
                    progress: Callable[[int], None] | None = None) -> Path:
    """Convert upstream files in folder ``src`` into a catalog folder ``out``; return ``out``.

    ``goals`` is "human" or "synthetic"; ``limit`` keeps the first N raw products
    (upstream's ``num_products``). Explicit ``*_file`` paths override the files
    found in ``src``.
    """
    if goals not in ("human", "synthetic"):
        raise ValueError(f"goals must be 'human' or 'synthetic', got {goals!r}")
    src = Path(src).expanduser()
    found = (find_upstream_files(src) if products_file is None
             else {"products": None, "attributes": None, "human": None})
    products_path = Path(products_file) if products_file else found["products"]
    attributes_path = Path(attributes_file) if attributes_file else found["attributes"]
    human_path = Path(human_file) if human_file else found["human"]
    if goals == "human" and human_path is None:
        raise UpstreamFormatError(f"{src}: items_human_ins.json not found; it is needed for --goals human "
                                  "(or use --goals synthetic with items_ins_v2*.json).")
    if goals == "synthetic" and attributes_path is None:
        raise UpstreamFormatError(f"{src}: no items_ins_v2*.json found; it is needed for --goals synthetic.")

    attrs: dict[str, tuple[tuple[str, ...], str | None, tuple[str, ...] | None]] = {}
    if attributes_path is not None:
        for asin, entry in iter_json_object(attributes_path):
            if not isinstance(entry, Mapping):
                continue
            instr_attrs = entry.get("instruction_attributes")
            attrs[asin] = (tuple(sys.intern(str(a)) for a in entry.get("attributes") or ()),
                           entry.get("instruction"),
                           None if instr_attrs is None else tuple(str(a) for a in instr_attrs))
    human: dict[str, list] = {}
    if goals == "human":
        human = {k: v for k, v in iter_json_object(human_path) if isinstance(v, list)}

    price_rng = random.Random() if upstream_prices else None  # unseeded, as upstream
    writer = CatalogWriter(out, name=name or f"upstream-{products_path.stem}", version="upstream",
                           store="auto", expected_products=limit, overwrite=overwrite, progress=progress)
    upstream_goals = UpstreamGoals(goals)
    skipped_bad = 0
    for n_raw, raw in enumerate(iter_json_array(products_path)):
        if limit is not None and n_raw >= limit:
            break
        asin = raw.get("asin") if isinstance(raw, Mapping) else None
        if not isinstance(asin, str) or asin == "nan" or len(asin) > 10:
            skipped_bad += 1
            continue
        pricing = parse_pricing(raw.get("pricing"))
        if len(pricing) == 1:
            price = pricing[0]
        elif price_rng is not None:
            price = price_rng.uniform(*pricing)
        else:
            price = round(_seeded(seed, "price", asin).uniform(*pricing), 2)
        product_attrs, instruction, instr_attrs = attrs.get(asin, ((), None, None))
        record = convert_product(raw, product_attrs, price)
        if not writer.add(record):
            continue
        if goals == "human" and asin in human:
            upstream_goals.add_human(record, human[asin], seed, price_rng)
        elif goals == "synthetic" and instruction is not None:
            upstream_goals.add_synthetic(record, instruction, instr_attrs or (), seed, price_rng)

    # Upstream: random.seed(233); random.shuffle(goals). Shuffling positions with the same
    # RNG gives the same permutation, without holding every goal in memory.
    order = array("q", range(len(upstream_goals)))
    random.Random(GOAL_SHUFFLE_SEED).shuffle(order)
    goal_list = (upstream_goals.goal(pos) for pos in order)
    return writer.finish(goal_list, expected_goals=len(order), extra_meta={
        "source": {"kind": "upstream", "products": products_path.name,
                   "attributes": attributes_path.name if attributes_path else None,
                   "human": human_path.name if (human_path and goals == "human") else None,
                   "goals": goals, "seed": None if upstream_prices else seed,
                   "prices": "unseeded (upstream)" if upstream_prices else "seeded", "limit": limit,
                   "skipped_bad_asin": skipped_bad},
        "name_nouns": "heuristic (nouns.py), not spaCy"})


class UpstreamGoals:
    """Upstream's goal list, in upstream's order, kept as compact per-product sources.

    ``goal(pos)`` builds goal ``pos`` of the list upstream's ``get_human_goals``
    / ``get_synthetic_goals`` would return before shuffling: human goals are one
    per instruction with attributes; synthetic goals one per combination of the
    product's option values (option names sorted, the last name varying
    fastest, as ``itertools.product``), all sharing the product's price bound.
    Synthetic weights are upstream's mean inverse attribute frequency.
    """

    _BASE = ("asin", "category", "query", "name", "product_category", "name_nouns")

    def __init__(self, kind: str):
        self.kind = kind
        self._sources: list[tuple] = []
        self._ends: list[int] = []   # cumulative goal counts, for bisect
        self._attr_counts: dict[str, int] = {}

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def _add(self, source: tuple, n: int) -> None:
        if n > 0:
            self._sources.append(source)
            self._ends.append(len(self) + n)

    def add_human(self, record: Mapping[str, Any], instructions: list, seed: int,
                  price_rng: random.Random | None) -> None:
        base = {k: record[k] for k in self._BASE}
        for k, ins in enumerate(instructions):
            if not isinstance(ins, Mapping) or not ins.get("instruction_attributes"):
                continue  # upstream skips instructions without attributes
            bound = _price_bound(record["price"], price_rng or _seeded(seed, "goal", record["asin"], k))
            self._add((base, ins, bound), 1)

    def add_synthetic(self, record: Mapping[str, Any], instruction: str, instr_attrs: tuple[str, ...],
                      seed: int, price_rng: random.Random | None) -> None:
        if not instr_attrs:
            return
        named = tuple(sorted((name, tuple(values)) for name, values in record["options"]))
        n = 1
        for _, values in named:
            n *= len(values)
        bound = _price_bound(record["price"], price_rng or _seeded(seed, "goal", record["asin"]))
        base = {k: record[k] for k in self._BASE}
        self._add((base, (instruction, instr_attrs, named), bound), n)
        for a in instr_attrs:
            self._attr_counts[a] = self._attr_counts.get(a, 0) + n

    def goal(self, pos: int) -> dict[str, Any]:
        j = bisect.bisect_right(self._ends, pos)
        offset = pos - (self._ends[j - 1] if j else 0)
        base, payload, (upper, price_text) = self._sources[j]
        if self.kind == "human":
            return {**base, "instruction_text": str(payload.get("instruction", "")).strip(".") + price_text,
                    "attributes": [str(a) for a in payload["instruction_attributes"]],
                    "goal_options": [str(o) for o in payload.get("instruction_options") or ()],
                    "options_kind": "human", "price_upper": upper, "weight": 1.0}
        instruction, attrs, named = payload
        combo = []
        for name, values in reversed(named):
            offset, d = divmod(offset, len(values))
            combo.append((name, values[d]))
        combo.reverse()
        option_text = ", and ".join(f"{n}: {v}" for n, v in combo)
        with_text = f" with {option_text}" if option_text else ""
        return {**base, "instruction_text": f"{instruction}{with_text}{price_text}",
                "attributes": list(attrs), "goal_options": combo, "options_kind": "synthetic",
                "price_upper": upper,
                "weight": sum(1.0 / self._attr_counts[a] for a in attrs) / len(attrs)}


def _price_bound(price: float, rng: random.Random) -> tuple[float, str]:
    upper = price_upper_for(price, rng)
    return (upper, f", and price lower than {upper:.2f} dollars") if upper < NO_PRICE_LIMIT else (upper, "")
