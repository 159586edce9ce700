"""Full-text product search for WebShop: an embedded tantivy BM25 index.

Upstream searches a Lucene index (pyserini, BM25) over the lower-cased title,
description, first bullet point and option text, and returns the top 50 ASINs
for a bag-of-words OR query. We do the same with tantivy (a pip wheel, no Java):

* one analysed field ``contents`` = title + description + bullet points +
  upstream's option text (``Product.search_text``; all bullets, not only the
  first), with
  tokenizer simple -> remove tokens > 40 bytes -> lower-case -> Lucene's
  English stop words -> English (Snowball) stemmer; one stored ``asin`` field
  and the ASIN's bytes in two u64 fast fields (:func:`encode_asin`), so results
  are read without fetching stored documents;
* queries are analysed with the same analyser; no query language is involved,
  so user text (quotes, brackets, ``AND OR NOT``, unicode, empty strings) never
  raises. Terms no product holds are dropped, and so are (when rarer ones remain)
  terms in more than ``MAX_DF_FRACTION`` of the products and all but the
  ``MAX_SCORED_TERMS`` rarest (:meth:`SearchIndex.query_terms`): a pasted
  instruction has ~20 terms, and walking the postings of "size" or "black"
  cost most of a query while barely moving the ranking;
* products holding every scored term come first, then those holding any (a
  boolean OR, as upstream), each group by BM25 (:meth:`SearchIndex.search`);
* results are ordered by score, ties by ASIN, so the order is reproducible.

Ranking is not identical to upstream: tantivy's BM25 uses k1=1.2, b=0.75
(pyserini 0.9 / 0.4; tantivy's Python API cannot change them), the stemmer
differs from Lucene's Porter variant, and the term pruning and all-terms-first
rule above are ours (measured in README.md: same recall, 5-10x faster at 1.18M).

Where the index lives (:func:`open_or_build_index`): ``<catalog>/index`` when it
exists and its stamp matches the catalog; otherwise a small catalog (at most
``RAM_INDEX_MAX_PRODUCTS`` products, e.g. the shipped default) is indexed in
RAM on first use (about 0.1-0.3 s for 1,000 products); a large one is built
once into the per-user cache (``$TREEGYM_CACHE_DIR`` or
``~/.cache/treegym/webshop-index/``) under a file lock, into a temporary folder
renamed into place, so concurrent first use from several processes is safe.
A :class:`SearchIndex` is read-only and thread-safe; one is shared per catalog.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

import tantivy

from .asin_codes import decode_asin, encode_asin
from .lru import ByteLRU
from .model import INDEX_DIR, PRODUCTS_JSONL, PRODUCTS_SQLITE, CatalogError, Product
from .stores import iter_products


class IndexedCatalog(Protocol):
    """What indexing reads of a catalog (``catalog.Catalog`` is one; this module does not import it:
    the catalog opens its index through here, on first use)."""

    name: str
    version: str
    meta: Mapping[str, Any]
    root: Path | None
    products: Any  # asin -> product, with len() and iteration over asins

SEARCH_RETURN_N = 50
ANALYZER_NAME = "treegym_en"
ANALYZER_VERSION = 4
STAMP_FILE = "treegym_index.json"
RAM_INDEX_MAX_PRODUCTS = 20_000
MAX_QUERY_TERMS = 256
MAX_DF_FRACTION = 0.2   # query terms in more than this share of the products are dropped (see query_terms)
MAX_SCORED_TERMS = 8    # at most this many distinct query terms are scored, the rarest (see query_terms)
DF_CACHE_BYTES = 1 << 20  # memoised document frequencies of query terms
# Lucene's default English stop set (what pyserini's analyzer removes).
LUCENE_STOP_WORDS = (
    "a an and are as at be but by for if in into is it no not of on or such that the their then "
    "there these they this to was will with").split()

_TANTIVY_VERSION = getattr(tantivy, "__version__", "") or "unknown"


class SearchIndexError(CatalogError):
    """The search index cannot be opened or built (the message says why and what to do)."""


def _analyzer() -> "tantivy.TextAnalyzer":
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.custom_stopword(LUCENE_STOP_WORDS))
            .filter(tantivy.Filter.stemmer("english"))
            .build())


def _schema() -> "tantivy.Schema":
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("asin", stored=True, tokenizer_name="raw", index_option="basic")
    # encode_asin(asin): results are read from these columns, without fetching stored documents
    builder.add_unsigned_field("asin_hi", fast=True)
    builder.add_unsigned_field("asin_lo", fast=True)
    builder.add_text_field("contents", stored=False, tokenizer_name=ANALYZER_NAME, index_option="freq")
    return builder.build()


def make_document(asin: str, text: str) -> "tantivy.Document":
    """The index document of one product (``text`` is its ``search_text``)."""
    doc = tantivy.Document(asin=asin, contents=text)
    hi, lo = encode_asin(asin)
    doc.add_unsigned("asin_hi", hi)
    doc.add_unsigned("asin_lo", lo)
    return doc


def backend_info() -> dict[str, Any]:
    """What produced the rankings (record it with results: rankings differ across backends)."""
    return {"backend": "tantivy", "tantivy": _TANTIVY_VERSION, "bm25": {"k1": 1.2, "b": 0.75},
            "analyzer": f"simple+lowercase+lucene_stop+english_stem v{ANALYZER_VERSION}",
            "fields": "title description bullet_points option_text", "top_n": SEARCH_RETURN_N,
            "max_df_fraction": MAX_DF_FRACTION, "max_scored_terms": MAX_SCORED_TERMS}


class SearchIndex:
    """A read-only tantivy index over a catalog's products; ``search`` is thread-safe.

    ``path`` is the index folder, or None for an index held in RAM.
    """

    def __init__(self, index: "tantivy.Index", path: Path | None = None):
        self._index = index
        self.path = path
        self._analyzer = _analyzer()
        self._schema = index.schema
        self._searcher = index.searcher()
        self._lock = threading.Lock()
        self._df: ByteLRU[str, int] = ByteLRU(DF_CACHE_BYTES, lambda t, _: 100 + len(t))
        self.max_df_fraction = MAX_DF_FRACTION
        self.max_scored_terms = MAX_SCORED_TERMS

    @classmethod
    def open(cls, path: str | os.PathLike) -> "SearchIndex":
        path = Path(path)
        try:
            index = tantivy.Index.open(str(path))
            index.register_tokenizer(ANALYZER_NAME, _analyzer())
        except (OSError, ValueError) as exc:
            raise SearchIndexError(f"{path}: cannot open the search index ({exc}); delete the folder "
                                   "and it is rebuilt on next use (or rerun `treegym webshop build`).") from exc
        return cls(index, path)

    def __len__(self) -> int:
        return int(self._searcher.num_docs)

    def terms(self, query: str) -> list[str]:
        """The index terms of free text ``query`` (analysed like the documents; at most MAX_QUERY_TERMS)."""
        if not isinstance(query, str):
            query = "" if query is None else str(query)
        try:
            return self._analyzer.analyze(query)[:MAX_QUERY_TERMS]
        except (ValueError, UnicodeError):
            # Lone surrogates and other unencodable text: keep what can be encoded.
            return self._analyzer.analyze(query.encode("utf-8", "replace").decode("utf-8"))[:MAX_QUERY_TERMS]

    def doc_freq(self, term: str) -> int:
        """Documents holding index term ``term`` (memoised: the index is read-only)."""
        df = self._df.get(term)
        if df is None:
            df = int(self._searcher.doc_freq("contents", term))
            self._df.put(term, df)
        return df

    def query_terms(self, query: str) -> tuple[list[str], list[str]]:
        """The terms a search for ``query`` scores, split in ``(kept, common)``: :meth:`terms` without
        those no product holds; ``common`` are those in more than ``max_df_fraction`` of the products.

        A common term adds at most ``log(1 + 1/f)`` (about 3 at f = 0.05) to a product's BM25
        score, next to 5-14 for a rare word, so it hardly moves the top of the ranking, but walking
        its postings (hundreds of thousands of products) dominates a full-instruction query.
        """
        limit = self.max_df_fraction * max(1, len(self))
        kept, common = [], []
        for t in self.terms(query):
            df = self.doc_freq(t)
            if df:
                (common if df > limit else kept).append(t)
        if len(set(kept)) > self.max_scored_terms:  # keep the rarest distinct terms (ties: first seen)
            rare = set(sorted(dict.fromkeys(kept), key=self.doc_freq)[:self.max_scored_terms])
            common = [t for t in kept if t not in rare] + common
            kept = [t for t in kept if t in rare]
        return kept, common

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """ASINs of the best ``k`` products for ``query``: BM25 over the query's terms, with the products
        holding every scored term first.

        The scored terms are the ``kept`` ones of :meth:`query_terms`. Products holding all of
        them come first, by BM25; then the others holding any of them, by BM25 (a bag-of-words
        OR, as upstream). When fewer than ``max(k, SEARCH_RETURN_N)`` products hold a kept term
        the common terms are scored too, so a search returns ``k`` products whenever ``k`` hold
        any term, and the top ``k`` are the first ``k`` of the top 50. Ties are broken by ASIN.
        Never raises on user text: a query with no searchable term returns [].
        """
        kept, common = self.query_terms(query)
        if not (kept or common) or k <= 0:
            return []
        # A few extra hits so that ties at the cut are broken by ASIN, not by segment order.
        limit = max(k, SEARCH_RETURN_N) + 10
        first = self._hits(kept, limit, every=True) if len(set(kept)) > 1 else []
        rest: list = []
        if len(first) < limit:
            # Fewer products than ``limit`` can hold a kept term when their counts sum below it:
            # then score every term at once, without first running the kept-only query.
            few = bool(common) and sum(self.doc_freq(t) for t in set(kept)) < limit
            rest = [] if few or not kept else self._hits(kept, limit)
            if common and len(rest) < limit:
                rest = self._hits(kept + common, limit)
        seen = {(a.segment_ord, a.doc) for _, a in first}
        groups = [first, [h for h in rest if (h[1].segment_ord, h[1].doc) not in seen]]
        out: list[str] = []
        for group in groups:
            if len(out) >= k:
                break
            group.sort(key=lambda h: -h[0])
            # the group's hits down to its k-th score, so every product tied at the cut is ranked by ASIN
            need = k - len(out)
            cut = group[need - 1][0] if len(group) >= need else None
            take = group if cut is None else [h for h in group if h[0] >= cut]
            with self._lock:
                asins = self._asins([addr for _, addr in take])
            out += [asin for _, asin in sorted(zip((-score for score, _ in take), asins))]
        return out[:k]

    def _hits(self, terms: list[str], limit: int, every: bool = False) -> list:
        """Top ``limit`` (score, address) pairs of the OR of ``terms`` (their AND when ``every``)."""
        occur = tantivy.Occur.Must if every else tantivy.Occur.Should
        q = tantivy.Query.boolean_query(
            [(occur, tantivy.Query.term_query(self._schema, "contents", t)) for t in terms])
        with self._lock:
            return self._searcher.search(q, limit=limit, count=False).hits

    def _asins(self, addrs: list) -> list[str]:
        """The ASINs of documents ``addrs``: from the ``asin_hi``/``asin_lo`` fast fields, stored docs as fallback."""
        if not addrs:
            return []
        try:
            his = self._searcher.fast_field_values("asin_hi", addrs)
            los = self._searcher.fast_field_values("asin_lo", addrs)
        except (ValueError, AttributeError):  # an index without the fields (older tantivy wheels lack the call)
            his = los = [0] * len(addrs)
        return [decode_asin(h, lo) if h else self._searcher.doc(a)["asin"][0] for h, lo, a in zip(his, los, addrs)]


# ----------------------------------------------------------------------------------------------
# Building
# ----------------------------------------------------------------------------------------------

def build_index(products: Iterable[Product], path: str | os.PathLike | None = None, *,
                threads: int = 0, heap_bytes: int = 0,
                progress: Callable[[int], None] | None = None) -> SearchIndex:
    """Index ``products`` into a new index at ``path`` (a fresh folder) or in RAM when None.

    ``threads``/``heap_bytes`` default to 1 thread / 64 MB for RAM indexes and
    min(cores, 4) threads / 256 MB for on-disk ones. ``progress(n)`` is called
    every 10,000 products.
    """
    return build_index_from_texts(((p.asin, p.search_text()) for p in products), path,
                                  threads=threads, heap_bytes=heap_bytes, progress=progress)


def build_index_from_texts(docs: Iterable[tuple[str, str]], path: str | os.PathLike | None = None, *,
                           threads: int = 0, heap_bytes: int = 0,
                           progress: Callable[[int], None] | None = None) -> SearchIndex:
    """Like :func:`build_index`, from ``(asin, search_text)`` pairs."""
    schema = _schema()
    if path is None:
        index = tantivy.Index(schema)
        threads, heap_bytes = threads or 1, heap_bytes or 64_000_000
    else:
        Path(path).mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(schema, path=str(path), reuse=False)
        threads = threads or max(1, min(os.cpu_count() or 1, 4))
        heap_bytes = heap_bytes or 256_000_000
    index.register_tokenizer(ANALYZER_NAME, _analyzer())
    writer = index.writer(heap_size=heap_bytes, num_threads=threads)
    n = 0
    for asin, text in docs:
        writer.add_document(make_document(asin, text))
        n += 1
        if progress is not None and n % 10_000 == 0:
            progress(n)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return SearchIndex(index, None if path is None else Path(path))


def write_stamp(index_dir: Path, fingerprint: str, n_docs: int) -> None:
    (index_dir / STAMP_FILE).write_text(json.dumps(
        {"fingerprint": fingerprint, "n_docs": n_docs, **backend_info()}, indent=1), encoding="utf-8")


def stamp_matches(index_dir: Path, fingerprint: str) -> bool:
    try:
        stamp = json.loads((index_dir / STAMP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(stamp, dict) and stamp.get("fingerprint") == fingerprint
            and stamp.get("tantivy") == _TANTIVY_VERSION)


def fingerprint_from(name: str, version: str, n_products: int, content: str) -> str:
    """The index stamp id of a catalog: name, version, size, content hash and analyzer version."""
    raw = f"{name}|{version}|{n_products}|{content}|a{ANALYZER_VERSION}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


def catalog_fingerprint(catalog: IndexedCatalog) -> str:
    """:func:`fingerprint_from` for a loaded catalog (product-file stats stand in for a missing hash)."""
    content = str(catalog.meta.get("content_sha256") or "")
    if not content:
        h = hashlib.sha256()
        if catalog.root is not None:
            for fname in (PRODUCTS_SQLITE, PRODUCTS_JSONL):
                f = catalog.root / fname
                if f.is_file():
                    st = f.stat()
                    h.update(f"{fname}|{st.st_size}|{st.st_mtime_ns}".encode())
        else:
            for asin in catalog.products:
                h.update(asin.encode())
        content = h.hexdigest()
    return fingerprint_from(catalog.name, catalog.version, len(catalog.products), content)


def cache_root() -> Path:
    """Per-user cache folder for search indexes (``$TREEGYM_CACHE_DIR`` overrides)."""
    env = os.environ.get("TREEGYM_CACHE_DIR")
    if env:
        return Path(env).expanduser() / "webshop-index"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "treegym" / "webshop-index"


def build_index_dir(catalog: IndexedCatalog, target: Path, *, threads: int = 0,
                    progress: Callable[[int], None] | None = None) -> SearchIndex:
    """Build the catalog's index at ``target`` atomically (temp folder + rename, under a file lock).

    If another process finished the same build first, its index is opened instead.
    """
    from filelock import FileLock

    fingerprint = catalog_fingerprint(catalog)
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if (target / "meta.json").is_file() and stamp_matches(target, fingerprint):
            return SearchIndex.open(target)
        tmp = Path(tempfile.mkdtemp(prefix=target.name + ".tmp-", dir=target.parent))
        try:
            built = build_index(iter_products(catalog.products), tmp, threads=threads, progress=progress)
            n = len(built)
            del built
            write_stamp(tmp, fingerprint, n)
            if target.exists():  # a stale index (other catalog version or tantivy version)
                stale = target.with_name(f"{target.name}.stale-{os.getpid()}-{time.time_ns()}")
                os.replace(target, stale)
                shutil.rmtree(stale, ignore_errors=True)
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return SearchIndex.open(target)


def open_or_build_index(catalog: IndexedCatalog) -> SearchIndex:
    """The catalog's search index: beside it, in RAM (small catalogs) or in the user cache."""
    fingerprint = catalog_fingerprint(catalog)
    if catalog.root is not None:
        beside = catalog.root / INDEX_DIR
        if (beside / "meta.json").is_file() and stamp_matches(beside, fingerprint):
            return SearchIndex.open(beside)
    if catalog.root is None or len(catalog.products) <= RAM_INDEX_MAX_PRODUCTS:
        return build_index(iter_products(catalog.products), None)
    target = cache_root() / f"{_safe_name(catalog.name)}-{fingerprint}"
    try:
        return build_index_dir(catalog, target)
    except OSError as exc:
        raise SearchIndexError(f"cannot build the search index for {catalog.root} in {target} ({exc}); "
                               "set TREEGYM_CACHE_DIR to a writable folder or rerun "
                               f"`treegym webshop build`/`import` to write {catalog.root / INDEX_DIR}.") from exc


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "catalog"
