"""WebShop (Yao et al. 2022): the catalog, search, engine, reward and the ``treegym/WebShop-v0`` env.

Light to import (``import treegym.envs`` reads :data:`ENV_SPECS` here): the data
model, the reward, the env, the engine, the search index and the catalog generator
load on first use.
"""
from ..core.env_entry import EnvEntry, ServerEntry

ENV_SPECS = (EnvEntry("treegym/WebShop-v0", "treegym.envs.webshop.env:WebShopEnv", extra="webshop",
                      name="webshop", order=1),)
SERVERS = (ServerEntry("webshop", "treegym.servers.webshop:create_app", env_id="treegym/WebShop-v0",
                       about="the shop's pages for people and the same JSON API (upstream WebShop's port)",
                       default_port=3000, extra="webshop", failure="cannot load the catalog",
                       banner="WebShop at {url}/  (JSON API under {url}/api/; Ctrl-C to stop)"),)

_LAZY = {
    **{name: ("catalog", name) for name in ("Catalog", "CatalogError", "Goal", "Product", "load_catalog",
                                            "load_default_catalog")},
    "get_reward": ("reward", "get_reward"),
    "WebShopEnv": ("env", "WebShopEnv"),
    "WebShopEngine": ("engine", "WebShopEngine"),
    "Session": ("engine", "Session"),
    "SearchIndex": ("search", "SearchIndex"),
    "build_catalog": ("generate", "build_catalog"),
}

__all__ = ["ENV_SPECS", *_LAZY]


def __getattr__(name: str):
    # Importing the package for the data model must not import tantivy, Flask or the env stack.
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
