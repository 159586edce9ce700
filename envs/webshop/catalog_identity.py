"""The identity of a WebShop catalog, which every snapshot of an env over it records.

A session restored into an env over another catalog would step against other products and earn another
reward, so ``WebShopEnv`` records this value (its data setting ``catalog``) and a restore into an env
whose catalog has another one is refused (``envs/core/snapshot_check.py``):

* the shipped catalog: None, the setting's default (nothing recorded), by its key as it travels (a copy
  of its folder elsewhere too: the same files);
* a catalog loaded from a directory: its name and a SHA-256 of its files' bytes (``meta.json``, the
  products and the goals; not the search index, which is built from them): a copy of the folder on
  another machine, at any path, is the same catalog; a rebuilt or edited one is not;
* a catalog built in memory (``Catalog(products, goals)``): its name and a SHA-256 of its products (by
  ASIN) and goals (in order) as JSON.

Computed once per catalog object (``Catalog.identity`` keeps it), when the first env over it is built:
a restore only compares the key that carries it.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from treegym.envs.core.file_digest import file_digest

from .model import DEFAULT_CATALOG_DIR, GOALS_JSONL, GOALS_SQLITE, META_FILE, PRODUCTS_JSONL, PRODUCTS_SQLITE

_FILES = (META_FILE, PRODUCTS_JSONL, PRODUCTS_SQLITE, GOALS_JSONL, GOALS_SQLITE)


def catalog_identity(catalog: Any) -> str | None:
    """The identity of ``catalog`` (a :class:`~treegym.envs.webshop.catalog.Catalog`; see the module docstring)."""
    root = catalog.root
    if getattr(catalog, "_is_default", False) or (root is not None and root == Path(DEFAULT_CATALOG_DIR).resolve()):
        return None
    digest = _files_digest(root) if root is not None else _content_digest(catalog)
    if root is not None and digest == _shipped_digest():
        return None
    return f"{catalog.name} sha256:{digest[:16]}"


@lru_cache(maxsize=1)
def _shipped_digest() -> str:
    return _files_digest(Path(DEFAULT_CATALOG_DIR))


def _files_digest(root: Path) -> str:
    h = hashlib.sha256()
    for name in _FILES:
        digest = file_digest(root / name)
        if digest is not None:
            h.update(f"{name}\0".encode() + digest)
    return h.hexdigest()


def _content_digest(catalog: Any) -> str:
    h = hashlib.sha256()
    for asin in sorted(catalog.products):
        h.update(json.dumps(catalog.products[asin].to_dict(), sort_keys=True).encode())
        h.update(b"\n")
    h.update(b"\0goals\n")
    for goal in catalog.goals:
        h.update(json.dumps(goal.to_dict(), sort_keys=True).encode())
        h.update(b"\n")
    return h.hexdigest()
