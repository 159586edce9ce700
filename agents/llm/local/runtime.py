"""Which llama.cpp runtime serves the embedded model, and whether it is installed.

Two runtimes, both serving llama.cpp's OpenAI-compatible API on 127.0.0.1
(see ``child.py``):

* ``xllamacpp`` (the default): llama.cpp's own C++ server from a prebuilt
  binary wheel, pinned in the ``[local]`` extra; installs in seconds;
* ``llama-cpp-python`` (the fallback): ``llama_cpp.server``; PyPI has no
  binary wheel, so pip compiles llama.cpp (about 5 minutes on 2 cores with
  the trimmed flags scripts/setup.sh uses). For platforms without an xllamacpp wheel.

``TREEGYM_LOCAL_BACKEND`` (or ``runtime=``) picks one: ``auto`` (default:
xllamacpp when installed, else llama-cpp-python), ``xllamacpp`` or
``llama-cpp-python``. Nothing here imports a runtime (xllamacpp's library is
~100 MB): installed-ness is read from the import system and package metadata.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys

from ..base import LLMError

RUNTIMES = ("xllamacpp", "llama-cpp-python")
_MODULES = {
    "xllamacpp": ("xllamacpp",),
    "llama-cpp-python": ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings"),
}
_DISTRIBUTIONS = {"xllamacpp": "xllamacpp", "llama-cpp-python": "llama-cpp-python"}
XLLAMACPP_HINT = "pip install 'treegym[local]' (xllamacpp, a prebuilt llama.cpp wheel: seconds), or run scripts/setup.sh"
LLAMA_CPP_PYTHON_HINT = (
    "pip install 'treegym[local-llama-cpp-python]' builds it from source (about 5 min on 2 cores; "
    "scripts/setup.sh sets CMAKE_ARGS for the trimmed build with -DGGML_NATIVE=OFF)"
)
ENDPOINT_HINT = (
    "or use a real endpoint instead: set OPENAI_BASE_URL / OPENAI_API_KEY (and TREEGYM_MODEL), "
    "or pass --llm openai:MODEL --base-url URL"
)


class LocalLLMUnavailable(LLMError):
    """No llama.cpp runtime or no model file is installed; the message says how to install it."""


def runtime_missing(runtime: str) -> list[str]:
    """The modules ``runtime`` needs that this interpreter cannot import (empty: installed)."""
    return [m for m in _MODULES[runtime] if importlib.util.find_spec(m) is None]


def runtime_version(runtime: str) -> str:
    """``"<runtime> <version>"``, e.g. ``"xllamacpp 2026.10.11549"`` (the version from the package metadata)."""
    try:
        return f"{runtime} {importlib.metadata.version(_DISTRIBUTIONS[runtime])}"
    except importlib.metadata.PackageNotFoundError:
        return f"{runtime} (version unknown)"


def installed_runtimes() -> list[str]:
    """The runtimes that are installed here, the default one first."""
    return [r for r in RUNTIMES if not runtime_missing(r)]


def choose_runtime(requested: str | None = None) -> str:
    """The runtime to use: ``requested``, else ``$TREEGYM_LOCAL_BACKEND``, else ``auto``.

    ``auto`` is the first installed of xllamacpp, llama-cpp-python. Raises
    :class:`LocalLLMUnavailable` saying how to install it when the chosen (or
    every) runtime is missing, and ``ValueError`` for an unknown name.
    """
    source = "runtime=" if requested else "TREEGYM_LOCAL_BACKEND"
    name = (requested or os.environ.get("TREEGYM_LOCAL_BACKEND", "") or "auto").strip().lower()
    if name not in ("auto", *RUNTIMES):
        raise ValueError(f"{source}={name!r} is not a local LLM runtime; use auto, {' or '.join(RUNTIMES)}")
    if name == "auto":
        installed = installed_runtimes()
        if installed:
            return installed[0]
        raise LocalLLMUnavailable(f"local LLM: no llama.cpp runtime is installed in {sys.executable}; "
                                  f"{XLLAMACPP_HINT}; {ENDPOINT_HINT}")
    missing = runtime_missing(name)
    if not missing:
        return name
    if name == "xllamacpp":
        raise LocalLLMUnavailable(f"local LLM: xllamacpp is not installed in {sys.executable} "
                                  f"({source} asks for it); {XLLAMACPP_HINT}; {ENDPOINT_HINT}")
    if "llama_cpp" in missing:
        raise LocalLLMUnavailable(f"local LLM: llama-cpp-python is not installed in {sys.executable} "
                                  f"({source} asks for it); {LLAMA_CPP_PYTHON_HINT}; or use the default "
                                  f"runtime: {XLLAMACPP_HINT}")
    raise LocalLLMUnavailable(f"local LLM: llama-cpp-python's server extra is missing ({', '.join(missing)}); "
                              f"pip install 'llama-cpp-python[server]'")
