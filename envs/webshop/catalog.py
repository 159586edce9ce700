"""WebShop catalog: products, goals, splits and search, and catalog loading.

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

import json
import operator
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from .catalog_identity import catalog_identity
from .model import (DEFAULT_CATALOG_DIR, FORMAT_VERSION, GOALS_JSONL, GOALS_SQLITE, META_FILE, PRODUCTS_JSONL,
                    PRODUCTS_SQLITE, CatalogError, Goal, Product, upstream_splits)
from .stores import MemoryProductStore, SqliteGoalSequence, SqliteProductStore, read_jsonl_gz
from .search import catalog_fingerprint, open_or_build_index


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

    #: every state of an env points at its one catalog: size estimates of a state leave it out
    __shared_by_states__ = True

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

    @property
    def travels_by_key(self) -> bool:
        """Whether a pickle refers to this catalog by key (the shipped one, or its directory) rather than
        copying it."""
        return self._is_default or self.root is not None

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
                    self._index = open_or_build_index(self)
        return self._index

    def search(self, query: str, k: int = 50) -> list[str]:
        """ASINs of the top ``k`` products for free text ``query`` (BM25; never raises on user text)."""
        return self.index.search(query, k)

    @cached_property
    def identity(self) -> str | None:
        """What a snapshot records of this catalog (None: the shipped one; else its name and content digest),
        computed once (:mod:`.catalog_identity`)."""
        return catalog_identity(self)

    def fingerprint(self) -> str:
        """A short id of this catalog's content (name, version, counts, source hash)."""
        return catalog_fingerprint(self)


# ----------------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------------

_CACHE: dict[str, Catalog] = {}
_CACHE_LOCK = threading.Lock()



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
    global _DEFAULT
    if _DEFAULT is None:  # (unpickling a session refers to it: no path resolving on that path)
        cat = load_catalog(DEFAULT_CATALOG_DIR)
        cat._is_default = True
        _DEFAULT = cat
    return _DEFAULT


_DEFAULT: Catalog | None = None


def clear_catalog_cache() -> None:
    """Forget loaded catalogs (for tests and long-lived processes that rebuilt a catalog)."""
    global _DEFAULT
    with _CACHE_LOCK:
        _CACHE.clear()
        _DEFAULT = None
