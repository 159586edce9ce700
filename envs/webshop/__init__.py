"""WebShop (Yao et al. 2022): the catalog, search, engine, reward and the ``treegym/WebShop-v0`` env.

Light to import: the env class and the Flask site load on first use.
"""
from .catalog import (Catalog, CatalogError, Goal, Product, load_catalog, load_default_catalog)
from .reward import get_reward

__all__ = ["Catalog", "CatalogError", "Goal", "Product", "load_catalog", "load_default_catalog",
           "get_reward", "WebShopEnv", "WebShopEngine", "Session"]


def __getattr__(name: str):
    # Lazy: importing the package for the data model must not import the env stack.
    if name == "WebShopEnv":
        from .env import WebShopEnv
        return WebShopEnv
    if name in ("WebShopEngine", "Session"):
        from . import engine
        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
