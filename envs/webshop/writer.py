"""Writing a catalog directory (the format catalog.py reads), streaming.

:class:`CatalogWriter` takes product records one at a time (the
``Product.to_dict`` form), writes them to ``products.jsonl.gz`` (small
catalogs, read into RAM at load) or ``products.sqlite`` (large ones, read on
demand), feeds the tantivy index in ``index/`` at the same time, and on
:meth:`CatalogWriter.finish` writes the goals, the index stamp and finally
``meta.json``: a directory without ``meta.json`` is an unfinished build and
never loads. Used by the generator (generate.py) and the importer
(importer.py).
"""
from __future__ import annotations

import gzip
import io
import hashlib
import json
import shutil
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Callable

from .model import (FORMAT_VERSION, GOALS_JSONL, GOALS_SQLITE, INDEX_DIR, META_FILE, PRODUCTS_JSONL,
                    PRODUCTS_SQLITE, CatalogError, Goal, record_search_text, upstream_splits)
from .search import ANALYZER_NAME, _analyzer, _schema, backend_info, fingerprint_from, make_document, write_stamp

SQLITE_THRESHOLD = 20_000   # "auto" store: sqlite above this many products (RAM costs ~4.5 KB each)
GOAL_SQLITE_THRESHOLD = 50_000   # goals above this go to goals.sqlite (read on demand; ~1.5 KB each in RAM)
_BATCH = 5_000


def _open_gzip_text(path: Path):
    """A text writer to a gzip file with a zero timestamp and no name (byte-reproducible)."""
    raw = open(path, "wb")
    return io.TextIOWrapper(gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0),
                            encoding="utf-8", newline="\n"), raw


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class CatalogWriter:
    """Stream products into a new catalog directory ``out``.

    ``store`` is "jsonl", "sqlite" or "auto" (sqlite when ``expected_products``
    is unknown or above ``SQLITE_THRESHOLD``). ``index=False`` skips the search
    index (it is then built on first use). Duplicate ASINs are dropped (the
    first one wins, as upstream). ``out`` must be absent or empty unless
    ``overwrite`` (then only the catalog's own files are replaced).
    """

    def __init__(self, out: str | Path, *, name: str, version: str = "1", store: str = "auto",
                 expected_products: int | None = None, index: bool = True, index_threads: int = 0,
                 overwrite: bool = False, progress: Callable[[int], None] | None = None):
        self.out = Path(out).expanduser().resolve()
        self.name, self.version = name, version
        if store == "auto":
            store = "jsonl" if expected_products is not None and expected_products <= SQLITE_THRESHOLD else "sqlite"
        if store not in ("jsonl", "sqlite"):
            raise ValueError(f"store must be 'jsonl', 'sqlite' or 'auto', got {store!r}")
        self.store = store
        self._prepare_dir(overwrite)
        self._sha = hashlib.sha256()
        self._seen: set[str] = set()
        self.n_products = 0
        self.n_duplicates = 0
        self._progress = progress
        self._t0 = time.perf_counter()
        self._rows: list[tuple[str, str]] = []
        if store == "jsonl":
            self._jsonl, self._jsonl_raw = _open_gzip_text(self.out / PRODUCTS_JSONL)
            self._db = None
        else:
            self._jsonl = None
            self._db = sqlite3.connect(str(self.out / PRODUCTS_SQLITE))
            self._db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                                   "CREATE TABLE products (asin TEXT NOT NULL, data TEXT NOT NULL);")
        self._index_writer = None
        if index:
            import tantivy

            (self.out / INDEX_DIR).mkdir()
            self._make_document = make_document
            self._index = tantivy.Index(_schema(), path=str(self.out / INDEX_DIR), reuse=False)
            self._index.register_tokenizer(ANALYZER_NAME, _analyzer())
            threads = index_threads or (1 if (expected_products or 0) <= SQLITE_THRESHOLD else 2)
            self._index_writer = self._index.writer(heap_size=128_000_000 * threads, num_threads=threads)
        self.timings: dict[str, float] = {}

    def _prepare_dir(self, overwrite: bool) -> None:
        if self.out.exists() and not self.out.is_dir():
            raise CatalogError(f"{self.out}: exists and is not a directory; choose another --out.")
        if self.out.is_dir() and any(self.out.iterdir()):
            if not overwrite:
                raise CatalogError(f"{self.out}: directory is not empty; choose another --out or pass "
                                   "--overwrite to replace the catalog in it.")
            for fname in (META_FILE, PRODUCTS_JSONL, PRODUCTS_SQLITE, GOALS_JSONL, GOALS_SQLITE):
                (self.out / fname).unlink(missing_ok=True)
            shutil.rmtree(self.out / INDEX_DIR, ignore_errors=True)
        self.out.mkdir(parents=True, exist_ok=True)

    def add(self, record: Mapping[str, Any], line: str | None = None) -> bool:
        """Add one product record; ``line`` is its JSON if the caller already has it. False if a duplicate."""
        asin = record["asin"]
        if asin in self._seen:
            self.n_duplicates += 1
            return False
        self._seen.add(asin)
        if line is None:
            line = _dumps(record)
        self._sha.update(line.encode("utf-8"))
        if self._jsonl is not None:
            self._jsonl.write(line)
            self._jsonl.write("\n")
        else:
            self._rows.append((asin, line))
            if len(self._rows) >= _BATCH:
                self._flush_rows()
        if self._index_writer is not None:
            self._index_writer.add_document(self._make_document(asin, record_search_text(record)))
        self.n_products += 1
        if self._progress is not None and self.n_products % 10_000 == 0:
            self._progress(self.n_products)
        return True

    def _goal_lines(self, goals: Iterable[Mapping[str, Any]]):
        for i, g in enumerate(goals):
            goal = Goal.from_dict({**g, "index": i})  # validates the record
            if goal.asin not in self._seen:
                raise CatalogError(f"goal {i} targets {goal.asin!r}, which is not among the products written")
            yield _dumps(goal.to_dict())

    def _write_goals_sqlite(self, goals: Iterable[Mapping[str, Any]]) -> int:
        db = sqlite3.connect(str(self.out / GOALS_SQLITE))
        db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                         "CREATE TABLE goals (idx INTEGER PRIMARY KEY, data TEXT NOT NULL);")
        n, rows = 0, []
        for line in self._goal_lines(goals):
            rows.append((n, line))
            n += 1
            if len(rows) >= _BATCH:
                db.executemany("INSERT INTO goals (idx, data) VALUES (?, ?)", rows)
                rows.clear()
        db.executemany("INSERT INTO goals (idx, data) VALUES (?, ?)", rows)
        db.commit()
        db.close()
        return n

    def _flush_rows(self) -> None:
        if self._rows and self._db is not None:
            self._db.executemany("INSERT INTO products (asin, data) VALUES (?, ?)", self._rows)
            self._rows.clear()

    def finish(self, goals: Iterable[Mapping[str, Any]], *, extra_meta: Mapping[str, Any] | None = None,
               splits: Mapping[str, Any] | None = None, expected_goals: int | None = None) -> Path:
        """Write goals (re-indexed 0..n-1 in the given order), the index and meta.json; return the folder.

        Goals go to ``goals.sqlite`` (read on demand) when ``expected_goals`` exceeds
        ``GOAL_SQLITE_THRESHOLD``, else to ``goals.jsonl.gz`` (read into RAM).
        """
        t = time.perf_counter()
        self.timings["products_s"] = t - self._t0
        if self._jsonl is not None:
            self._jsonl.close()
            self._jsonl_raw.close()
        else:
            self._flush_rows()
            self._db.execute("CREATE UNIQUE INDEX products_asin ON products(asin)")
            self._db.commit()
            self._db.close()
        if expected_goals is not None and expected_goals > GOAL_SQLITE_THRESHOLD:
            n_goals = self._write_goals_sqlite(goals)
        else:
            n_goals = 0
            fh, raw = _open_gzip_text(self.out / GOALS_JSONL)
            with raw, fh:
                for line in self._goal_lines(goals):
                    fh.write(line)
                    fh.write("\n")
                    n_goals += 1
        self.timings["goals_s"] = time.perf_counter() - t
        content = self._sha.hexdigest()
        if self._index_writer is not None:
            t = time.perf_counter()
            self._index_writer.commit()
            self._index_writer.wait_merging_threads()
            write_stamp(self.out / INDEX_DIR, fingerprint_from(self.name, self.version, self.n_products, content),
                        self.n_products)
            self.timings["index_commit_s"] = time.perf_counter() - t
        meta = {
            "format": FORMAT_VERSION, "name": self.name, "version": self.version,
            "n_products": self.n_products, "n_goals": n_goals, "store": self.store,
            "content_sha256": content, "duplicates_dropped": self.n_duplicates,
            "splits": {k: [r.start, r.stop] for k, r in upstream_splits(n_goals).items()},
            "search": backend_info(),
        }
        if splits:
            meta["splits"].update(splits)
        if extra_meta:
            meta.update(extra_meta)
        tmp = self.out / (META_FILE + ".tmp")
        tmp.write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
        tmp.replace(self.out / META_FILE)
        return self.out
