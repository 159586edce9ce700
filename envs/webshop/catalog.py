"""WebShop catalog: the product/goal data model and catalog loading.

The schema follows upstream WebShop (princeton-nlp/WebShop, ``engine.py`` and
``goal.py``) after its load-time normalisation, frozen and picklable:

* :class:`Product` -- one shop item (title, breadcrumb, price, attributes,
  options, texts, reviews, and the precomputed nouns of its name used by the
  reward's type gate).
* :class:`Goal` -- one instruction with its target product, the attributes and
  options it asks for and its price bound.
* :class:`Catalog` -- products (a read-only mapping asin -> Product), goals (a
  sequence), upstream-style splits and a lazily opened full-text search index.

On disk a catalog is a directory::

    meta.json            name, version, format, counts, splits, how it was made
    products.jsonl.gz    one JSON product per line (small catalogs, read into RAM)
      or products.sqlite table products(asin TEXT PRIMARY KEY, data TEXT) (large
                         catalogs: rows are read on demand through an LRU cache,
                         so 1.18M products never sit in RAM as Python objects)
    goals.jsonl.gz       one JSON goal per line, in goal-index order
      or goals.sqlite    table goals(idx INTEGER PRIMARY KEY, data TEXT) (huge goal lists, read on demand)
    index/               the tantivy search index (optional: built on first use
                         into the per-user cache when absent, see search.py)

Catalogs are cached per process and per resolved path, so every env, session
and server in a process shares one catalog and one search index. Loading is
thread-safe and lazy. A missing or broken file raises :class:`CatalogError`
naming the file and what to do.
"""
from __future__ import annotations

import gzip
import json
import operator
import os
import random
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    """What the search index holds for a product: title, description, bullets and option values.

    Option names ("color", "size") are left out: nearly every product has them,
    so they only slow queries down without telling products apart.
    """
    values = " ".join(v for _, vals in options for v in vals)
    return " ".join((name, description, " ".join(bullet_points), values))


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


# ----------------------------------------------------------------------------------------------
# Product stores
# ----------------------------------------------------------------------------------------------

class MemoryProductStore(Mapping[str, Product]):
    """All products in a dict (small catalogs and tests)."""

    def __init__(self, products: Mapping[str, Product] | Iterable[Product]):
        if isinstance(products, Mapping):
            self._d: dict[str, Product] = dict(products)
        else:
            self._d = {p.asin: p for p in products}

    def __getitem__(self, asin: str) -> Product:
        return self._d[asin]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, asin: object) -> bool:
        return asin in self._d


class _SqliteTable:
    """Read-only rows ``(key, data JSON)`` of one table in a catalog's sqlite file, with an LRU of decoded rows.

    The file is opened read-only and immutable; one connection per process
    (reopened after ``fork``), guarded by a lock so threads can share it.
    """

    def __init__(self, path: Path, table: str, key: str, decode, what: str, cache_size: int):
        self.path, self.table, self.key, self.what = Path(path), table, key, what
        self._decode = decode
        self.cache_size = cache_size
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._cache: OrderedDict[Any, Any] = OrderedDict()
        self._len: int | None = None
        with self._lock:
            self._connection()  # fail early with a clear error

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            if not self.path.is_file():
                raise CatalogError(f"{self.path}: {self.what} store not found; rebuild the catalog "
                                   "with `treegym webshop build` or `treegym webshop import`.")
            try:
                conn = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
                conn.execute(f"SELECT {self.key}, data FROM {self.table} LIMIT 1").fetchall()
            except sqlite3.Error as exc:
                raise CatalogError(f"{self.path}: not a readable {self.what} store ({exc}); rebuild the "
                                   "catalog with `treegym webshop build` or `treegym webshop import`.") from exc
            self._conn, self._pid = conn, os.getpid()
            self._cache.clear()
        return self._conn

    def get(self, key: Any) -> Any:
        """The decoded row for ``key``, or None."""
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
            row = self._connection().execute(
                f"SELECT data FROM {self.table} WHERE {self.key} = ?", (key,)).fetchone()
            if row is None:
                return None
            try:
                value = self._decode(json.loads(row[0]))
            except (ValueError, KeyError, TypeError) as exc:
                raise CatalogError(f"{self.path}: {self.what} {key!r} is malformed ({exc}); "
                                   "rebuild the catalog.") from exc
            self._cache[key] = value
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return value

    def has(self, key: Any) -> bool:
        with self._lock:
            if key in self._cache:
                return True
            return self._connection().execute(
                f"SELECT 1 FROM {self.table} WHERE {self.key} = ?", (key,)).fetchone() is not None

    def count(self) -> int:
        if self._len is None:
            with self._lock:
                self._len = int(self._connection().execute(f"SELECT COUNT(*) FROM {self.table}").fetchone()[0])
        return self._len

    def batches(self, column: str, batch: int) -> Iterator[list[tuple[int, Any]]]:
        """(rowid, column) rows in file order, ``batch`` at a time (bounded memory)."""
        last = -1
        while True:
            with self._lock:
                rows = self._connection().execute(
                    f"SELECT rowid, {column} FROM {self.table} WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    (last, batch)).fetchall()
            if not rows:
                return
            yield rows
            last = rows[-1][0]


class SqliteProductStore(Mapping[str, Product]):
    """Products read on demand from ``products.sqlite`` (table products(asin, data)) through an LRU."""

    def __init__(self, path: Path, cache_size: int = 4096):
        self.path = Path(path)
        self._rows = _SqliteTable(self.path, "products", "asin", Product.from_dict, "product", cache_size)

    def __getitem__(self, asin: str) -> Product:
        product = self._rows.get(asin)
        if product is None:
            raise KeyError(asin)
        return product

    def __contains__(self, asin: object) -> bool:
        return isinstance(asin, str) and self._rows.has(asin)

    def __iter__(self) -> Iterator[str]:
        for rows in self._rows.batches("asin", 50_000):
            for _, asin in rows:
                yield asin

    def __len__(self) -> int:
        return self._rows.count()

    def iter_products(self, batch: int = 10_000) -> Iterator[Product]:
        """Stream every product in file order without filling the LRU."""
        for rows in self._rows.batches("data", batch):
            for _, data in rows:
                yield Product.from_dict(json.loads(data))


class SqliteGoalSequence(Sequence[Goal]):
    """Goals read on demand from ``goals.sqlite`` (table goals(idx, data)) through an LRU.

    Used for very large goal lists (e.g. upstream's synthetic goals on the full
    catalog, millions of them), so they never sit in RAM as Python objects.
    """

    def __init__(self, path: Path, cache_size: int = 4096):
        self.path = Path(path)
        self._rows = _SqliteTable(self.path, "goals", "idx", Goal.from_dict, "goal", cache_size)

    def __len__(self) -> int:
        return self._rows.count()

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        goal = self._rows.get(int(i)) if 0 <= i < len(self) else None
        if goal is None:
            raise IndexError(f"goal index {i} out of range (0..{len(self) - 1})")
        return goal

    def __iter__(self) -> Iterator[Goal]:
        for rows in self._rows.batches("data", 10_000):
            for _, data in rows:
                yield Goal.from_dict(json.loads(data))


def iter_products(store: Mapping[str, Product]) -> Iterator[Product]:
    """Every product of a store, streaming when the store supports it."""
    if isinstance(store, SqliteProductStore):
        return store.iter_products()
    return iter(store.values())


# ----------------------------------------------------------------------------------------------
# Catalog
# ----------------------------------------------------------------------------------------------

class Catalog:
    """Products, goals, splits and search over one WebShop catalog (shared, read-only).

    ``products`` maps asin -> :class:`Product`; ``goals[i].index == i``;
    ``splits`` maps split name -> range (or tuple) of goal indices. ``search``
    opens (or builds) the tantivy index on first use. Pickling a catalog that
    was loaded from disk pickles a reference (its path), never the data.
    """

    def __init__(self, products: Mapping[str, Product] | Iterable[Product], goals: Sequence[Goal],
                 *, name: str = "webshop", version: str = "0", root: Path | None = None,
                 splits: Mapping[str, Sequence[int]] | None = None,
                 meta: Mapping[str, Any] | None = None):
        self.products: Mapping[str, Product] = (
            products if isinstance(products, (MemoryProductStore, SqliteProductStore))
            else MemoryProductStore(products))
        self.goals: Sequence[Goal] = goals if isinstance(goals, SqliteGoalSequence) else tuple(goals)
        self.name = name
        self.version = version
        self.root = None if root is None else Path(root)
        self.splits: dict[str, Sequence[int]] = dict(splits) if splits else upstream_splits(len(self.goals))
        self.splits.setdefault("all", range(len(self.goals)))
        self.meta: dict[str, Any] = dict(meta or {})
        self._index = None
        self._index_lock = threading.Lock()
        self._is_default = False

    def __repr__(self) -> str:
        where = f" at {self.root}" if self.root else ""
        return f"<Catalog {self.name} v{self.version}: {len(self.products)} products, {len(self.goals)} goals{where}>"

    def __reduce__(self):
        if self._is_default:
            return (load_default_catalog, ())
        if self.root is not None:
            return (load_catalog, (str(self.root),))
        return (Catalog, (dict(self.products), self.goals),
                {"name": self.name, "version": self.version, "splits": self.splits, "meta": self.meta})

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.name, self.version = state["name"], state["version"]
        self.splits, self.meta = dict(state["splits"]), dict(state["meta"])

    # -- lookups --------------------------------------------------------------------------------
    def goal(self, i: int) -> Goal:
        """Goal ``i`` (any integer type, e.g. a numpy int); IndexError naming the valid range otherwise."""
        try:
            idx = operator.index(i) if not isinstance(i, bool) else -1
        except TypeError:
            idx = -1
        if not 0 <= idx < len(self.goals):
            raise IndexError(f"goal index {i!r} out of range: catalog {self.name!r} has "
                             f"{len(self.goals)} goals (0..{len(self.goals) - 1})")
        return self.goals[idx]

    def product(self, asin: str) -> Product:
        try:
            return self.products[asin]
        except KeyError:
            raise KeyError(f"no product with asin {asin!r} in catalog {self.name!r}") from None

    def split(self, name: str) -> Sequence[int]:
        """Goal indices of split ``name`` (test, dev, train, all)."""
        try:
            return self.splits[name]
        except KeyError:
            raise KeyError(f"unknown split {name!r}; catalog {self.name!r} has "
                           f"{', '.join(sorted(self.splits))}") from None

    def task_counts(self) -> dict[str, int]:
        """Number of goals per split, plus ``products``."""
        counts = {name: len(idx) for name, idx in self.splits.items()}
        counts["products"] = len(self.products)
        return counts

    # -- search ---------------------------------------------------------------------------------
    @property
    def index(self):
        """The catalog's :class:`~treegym.envs.webshop.search.SearchIndex`, opened or built on first use."""
        if self._index is None:
            with self._index_lock:
                if self._index is None:
                    from .search import open_or_build_index
                    self._index = open_or_build_index(self)
        return self._index

    def search(self, query: str, k: int = 50) -> list[str]:
        """ASINs of the top ``k`` products for free text ``query`` (BM25; never raises on user text)."""
        return self.index.search(query, k)

    def fingerprint(self) -> str:
        """A short id of this catalog's content (name, version, counts, source hash)."""
        from .search import catalog_fingerprint
        return catalog_fingerprint(self)


# ----------------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------------

_CACHE: dict[str, Catalog] = {}
_CACHE_LOCK = threading.Lock()


def read_jsonl_gz(path: Path) -> Iterator[dict[str, Any]]:
    """Yield JSON objects from a gzip JSON-lines file, naming the file and line on errors."""
    if not path.is_file():
        raise CatalogError(f"{path}: file not found; rebuild the catalog with `treegym webshop build` "
                           "or `treegym webshop import`.")
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except ValueError as exc:
                    raise CatalogError(f"{path}:{lineno}: invalid JSON ({exc}); the file is corrupt, "
                                       "rebuild the catalog.") from exc
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot read ({exc}); the file is corrupt or truncated, "
                           "rebuild the catalog.") from exc


def _read_meta(root: Path) -> dict[str, Any]:
    path = root / META_FILE
    if not root.is_dir():
        raise CatalogError(f"{root}: catalog directory not found; build one with "
                           "`treegym webshop build --out DIR` or `treegym webshop import SRC --out DIR`.")
    if not path.is_file():
        raise CatalogError(f"{path}: file not found; {root} is not a treegym WebShop catalog "
                           "(build one with `treegym webshop build --out DIR`).")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"{path}: invalid JSON ({exc}); rebuild the catalog.") from exc
    if not isinstance(meta, dict):
        raise CatalogError(f"{path}: expected a JSON object; rebuild the catalog.")
    if int(meta.get("format", -1)) != FORMAT_VERSION:
        raise CatalogError(f"{path}: catalog format {meta.get('format')!r}, this treegym reads "
                           f"format {FORMAT_VERSION}; rebuild the catalog with this version.")
    return meta


def _load_goals(root: Path) -> Sequence[Goal]:
    if (root / GOALS_SQLITE).is_file():
        goals = SqliteGoalSequence(root / GOALS_SQLITE)
        if len(goals) and (goals[0].index != 0 or goals[len(goals) - 1].index != len(goals) - 1):
            raise CatalogError(f"{root / GOALS_SQLITE}: goal indices are not 0..{len(goals) - 1}; "
                               "rebuild the catalog.")
        return goals
    path = root / GOALS_JSONL
    goals = []
    for i, d in enumerate(read_jsonl_gz(path)):
        try:
            g = Goal.from_dict(d)
        except (KeyError, ValueError, TypeError) as exc:
            raise CatalogError(f"{path}: goal {i} is malformed ({exc!r}); rebuild the catalog.") from exc
        if g.index != i:
            raise CatalogError(f"{path}: goal on line {i + 1} has index {g.index}, expected {i}; "
                               "rebuild the catalog.")
        goals.append(g)
    return goals


def _load_products(root: Path) -> Mapping[str, Product]:
    sqlite_path, jsonl_path = root / PRODUCTS_SQLITE, root / PRODUCTS_JSONL
    if sqlite_path.is_file():
        return SqliteProductStore(sqlite_path)
    products: dict[str, Product] = {}
    for i, d in enumerate(read_jsonl_gz(jsonl_path)):
        try:
            p = Product.from_dict(d)
        except (KeyError, ValueError, TypeError) as exc:
            raise CatalogError(f"{jsonl_path}: product {i} is malformed ({exc!r}); rebuild the catalog.") from exc
        products[p.asin] = p
    return MemoryProductStore(products)


def _splits_from_meta(meta: Mapping[str, Any], n_goals: int) -> dict[str, Sequence[int]]:
    splits: dict[str, Sequence[int]] = upstream_splits(n_goals)
    for name, spec in (meta.get("splits") or {}).items():
        if isinstance(spec, list) and len(spec) == 2 and all(isinstance(x, int) for x in spec):
            splits[name] = range(max(0, spec[0]), min(spec[1], n_goals))
        elif isinstance(spec, dict) and "indices" in spec:
            splits[name] = tuple(int(i) for i in spec["indices"] if 0 <= int(i) < n_goals)
    return splits


def read_catalog(path: str | os.PathLike) -> Catalog:
    """Read a catalog directory (uncached; use :func:`load_catalog` to share one per process)."""
    root = Path(path).expanduser().resolve()
    meta = _read_meta(root)
    products = _load_products(root)
    goals = _load_goals(root)
    missing = [g.asin for g in goals[:1000] if g.asin not in products]
    if missing:
        raise CatalogError(f"{root}: goal targets {missing[:3]} are not in the product "
                           "store; the catalog files do not belong together, rebuild the catalog.")
    return Catalog(products, goals, name=str(meta.get("name", root.name)),
                   version=str(meta.get("version", "0")), root=root,
                   splits=_splits_from_meta(meta, len(goals)), meta=meta)


def load_catalog(path: str | os.PathLike) -> Catalog:
    """The catalog at ``path``, loaded once per process per resolved path (thread-safe)."""
    key = str(Path(path).expanduser().resolve())
    cat = _CACHE.get(key)
    if cat is not None:
        return cat
    with _CACHE_LOCK:
        cat = _CACHE.get(key)
        if cat is None:
            cat = read_catalog(key)
            _CACHE[key] = cat
    return cat


def load_default_catalog() -> Catalog:
    """The shipped default catalog (generated, see generate.py), shared by the whole process."""
    cat = load_catalog(DEFAULT_CATALOG_DIR)
    cat._is_default = True
    return cat


def clear_catalog_cache() -> None:
    """Forget loaded catalogs (for tests and long-lived processes that rebuilt a catalog)."""
    with _CACHE_LOCK:
        _CACHE.clear()
