"""``treegym webshop``: build and import WebShop catalogs.

* ``treegym webshop build --products N --goals G --out DIR [--seed S]``
  generates a catalog (products, goals, search index) of any size.
* ``treegym webshop import SRC --out DIR [--goals human|synthetic] [--upstream-prices]``
  converts upstream WebShop data files found in folder SRC.
* ``treegym webshop info DIR`` prints a catalog's counts and where its index is.

Use a catalog with the env's ``catalog=DIR`` make-kwarg (see the WebShop env).
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("webshop", help="build, import and inspect WebShop catalogs",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="webshop_command", metavar="ACTION")

    build = sub.add_parser("build", help="generate a catalog of any size (deterministic)")
    build.add_argument("--products", type=int, default=1000, help="number of products (default 1000)")
    build.add_argument("--goals", type=int, default=None,
                       help="number of goals (default: 3 per product, at most 12087)")
    build.add_argument("--out", required=True, help="output folder (must be empty or absent)")
    build.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    build.add_argument("--name", default=None, help="catalog name (default generated-N-sSEED)")
    build.add_argument("--store", choices=("auto", "jsonl", "sqlite"), default="auto",
                       help="product store: jsonl.gz in RAM or sqlite on demand (auto: sqlite above 20,000)")
    build.add_argument("--no-index", action="store_true",
                       help="do not build the search index now (it is built on first use)")
    build.add_argument("--overwrite", action="store_true", help="replace a catalog already in --out")
    build.set_defaults(func=_build)

    imp = sub.add_parser("import", help="convert upstream WebShop data files (items_shuffle*.json, ...)")
    imp.add_argument("src", help="folder with items_shuffle*.json, items_ins_v2*.json, items_human_ins.json")
    imp.add_argument("--out", required=True, help="output folder (must be empty or absent)")
    imp.add_argument("--goals", choices=("human", "synthetic"), default="human",
                     help="goal set: human MTurk instructions (upstream default) or synthetic")
    imp.add_argument("--seed", type=int, default=0, help="seed for range prices and price bounds")
    imp.add_argument("--upstream-prices", action="store_true",
                     help="draw range prices and price bounds unseeded, as upstream (not reproducible)")
    imp.add_argument("--limit", type=int, default=None, help="keep only the first N raw products")
    imp.add_argument("--products-file", default=None, help="explicit items_shuffle file (overrides SRC)")
    imp.add_argument("--name", default=None, help="catalog name")
    imp.add_argument("--overwrite", action="store_true", help="replace a catalog already in --out")
    imp.set_defaults(func=_import)

    info = sub.add_parser("info", help="print a catalog's counts and search index location")
    info.add_argument("dir", nargs="?", default=None, help="catalog folder (default: the shipped catalog)")
    info.set_defaults(func=_info)

    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def _progress(label: str):
    t0 = time.perf_counter()

    def report(n: int) -> None:
        if n % 100_000 == 0:
            print(f"{label}: {n:,} products, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return report


def _fail(exc: Exception) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 1


def _build(args: argparse.Namespace) -> int:
    from treegym.envs.webshop.catalog import CatalogError, load_catalog
    from treegym.envs.webshop.generate import build_catalog
    if args.products < 1:
        return _fail(ValueError(f"--products must be at least 1, got {args.products}"))
    goals = args.goals if args.goals is not None else min(3 * args.products, 12_087)
    if goals < 0:
        return _fail(ValueError(f"--goals must be 0 or more, got {goals}"))
    t0 = time.perf_counter()
    try:
        out = build_catalog(args.out, args.products, goals, seed=args.seed, name=args.name, store=args.store,
                            index=not args.no_index, overwrite=args.overwrite, progress=_progress("build"))
        cat = load_catalog(out)
    except (CatalogError, OSError, ValueError) as exc:
        return _fail(exc)
    print(f"built {cat!r} in {time.perf_counter() - t0:.1f} s")
    print(json.dumps(cat.task_counts()))
    return 0


def _import(args: argparse.Namespace) -> int:
    from treegym.envs.webshop.catalog import CatalogError, load_catalog
    from treegym.envs.webshop.importer import import_upstream
    t0 = time.perf_counter()
    try:
        out = import_upstream(args.src, args.out, goals=args.goals, seed=args.seed,
                              upstream_prices=args.upstream_prices, products_file=args.products_file,
                              limit=args.limit, name=args.name, overwrite=args.overwrite,
                              progress=_progress("import"))
        cat = load_catalog(out)
    except (CatalogError, OSError, ValueError) as exc:
        return _fail(exc)
    print(f"imported {cat!r} in {time.perf_counter() - t0:.1f} s")
    print(json.dumps(cat.task_counts()))
    return 0


def _info(args: argparse.Namespace) -> int:
    from treegym.envs.webshop.catalog import CatalogError, load_catalog, load_default_catalog
    try:
        cat = load_catalog(args.dir) if args.dir else load_default_catalog()
        index = cat.index
    except (CatalogError, OSError) as exc:
        return _fail(exc)
    print(repr(cat))
    print(json.dumps({"counts": cat.task_counts(), "index": str(index.path) if index.path else "in memory",
                      "source": cat.meta.get("source"), "search": cat.meta.get("search")}, indent=1))
    return 0
