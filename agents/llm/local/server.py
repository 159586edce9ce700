"""The llama.cpp server subprocess behind ``--llm local``, one per settings per process (see ``llm.py``).

``LocalLLMServer`` starts ``child.py`` on a free 127.0.0.1 port, waits
until it answers, stops it (SIGTERM then SIGKILL) and restarts it on the same
port. ``get_server`` hands out the process-wide server for a (runtime, model,
threads, context, slots); ``shutdown`` (also at interpreter exit) stops them all.
"""
from __future__ import annotations

import atexit
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
from pathlib import Path

from ..base import LLMError
from .gguf import gguf_context_length
from .model import _env_float, _env_int, default_context, model_alias, resolve_model_path
from .runtime import choose_runtime

SERVE_SCRIPT = Path(__file__).with_name("child.py")


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
    """A llama.cpp server subprocess (``child.py``) serving one GGUF model on ``127.0.0.1:<free port>``.

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
