"""WebShop product and goal stores: in RAM, or read on demand from SQLite through a byte-bounded LRU.

* :class:`MemoryProductStore` -- every product in a dict (small catalogs, tests);
* :class:`SqliteProductStore` -- ``products.sqlite`` (table products(asin, data)),
  rows decoded on demand; decoded products are kept in an LRU bounded in bytes
  (:data:`PRODUCT_CACHE_BYTES`), so memory stays flat however many products a
  long run reads;
* :class:`SqliteGoalSequence` -- ``goals.sqlite`` (table goals(idx, data)), same scheme;
* :func:`read_jsonl_gz` -- the gzip JSON-lines reader of small catalogs.
"""
from __future__ import annotations

import gzip
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .lru import ByteLRU
from .model import CatalogError, Goal, Product

PRODUCT_CACHE_BYTES = 32 << 20   # decoded products kept per store (estimated bytes)
GOAL_CACHE_BYTES = 8 << 20       # decoded goals kept per goal store
# Estimate of a decoded row's memory from its JSON text (measured with tracemalloc on generated products).
DECODED_PER_JSON_BYTE = 2.0
DECODED_OVERHEAD = 600

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
    """Read-only rows ``(key, data JSON)`` of one table in a catalog's sqlite file, with a byte-bounded LRU
    of decoded rows.

    The file is opened read-only and immutable; one connection per process
    (reopened after ``fork``), guarded by a lock so threads can share it.
    """

    def __init__(self, path: Path, table: str, key: str, decode, what: str, cache_bytes: int):
        self.path, self.table, self.key, self.what = Path(path), table, key, what
        self._decode = decode
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        # value = (decoded row, bytes of its JSON); the decoded objects take about DECODED_PER_JSON_BYTE x that
        self._cache: ByteLRU[Any, tuple[Any, int]] = ByteLRU(
            cache_bytes, lambda k, v: DECODED_OVERHEAD + int(DECODED_PER_JSON_BYTE * v[1]))
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
        hit = self._cache.get(key)
        if hit is not None:
            return hit[0]
        with self._lock:
            row = self._connection().execute(
                f"SELECT data FROM {self.table} WHERE {self.key} = ?", (key,)).fetchone()
            if row is None:
                return None
            try:
                value = self._decode(json.loads(row[0]))
            except (ValueError, KeyError, TypeError) as exc:
                raise CatalogError(f"{self.path}: {self.what} {key!r} is malformed ({exc}); "
                                   "rebuild the catalog.") from exc
        self._cache.put(key, (value, len(row[0])))
        return value

    def has(self, key: Any) -> bool:
        if key in self._cache:
            return True
        with self._lock:
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

    def __init__(self, path: Path, cache_bytes: int = PRODUCT_CACHE_BYTES):
        self.path = Path(path)
        self._rows = _SqliteTable(self.path, "products", "asin", Product.from_dict, "product", cache_bytes)

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

    def __init__(self, path: Path, cache_bytes: int = GOAL_CACHE_BYTES):
        self.path = Path(path)
        self._rows = _SqliteTable(self.path, "goals", "idx", Goal.from_dict, "goal", cache_bytes)

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
