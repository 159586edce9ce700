"""A real OpenAI-compatible chat-completions server for tests, with fault injection.

It speaks just enough of the API for the ``openai`` client: ``POST
/v1/chat/completions`` and ``GET /v1/models``. It listens on 127.0.0.1 on a
free port, in a background thread, and is started and stopped as a context
manager::

    from support.chat_server import ChatServer, Fault   # pytest puts tests/ on sys.path

    with ChatServer(reply=lambda messages: "Action: go north") as server:
        server.inject(Fault.status(500), Fault.rate_limit(retry_after=0.05))
        llm = OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY")
        llm.complete(Request([{"role": "user", "content": "hi"}]))   # retried twice, then answered
        assert len(server.chat_requests()) == 3

Contract:

* ``reply(messages) -> str`` computes each answer from the request's chat
  messages (default: echo the last user message). For ``n`` choices it is
  called ``n`` times, so a stateful callable can give distinct samples.
* ``models``: the model ids served by ``/v1/models``; a chat request for any
  other model gets the OpenAI-style 404 ``model_not_found``. ``models=None``
  accepts any model (and lists ``test-model``).
* ``api_key``: when set, requests whose ``Authorization`` is not ``Bearer
  <api_key>`` get 401.
* ``honour_n=False`` behaves like llama.cpp's server: it ignores ``n`` and
  always answers one choice.
* Usage counts whitespace-separated words (prompt: all message contents;
  completion: the answers), so it differs from any client-side estimate;
  ``send_usage=False`` leaves ``usage`` out of responses.
* ``inject(*faults)`` queues faults; each chat-completions request takes the
  next queued fault instead of (or, for ``Fault.delay``, before) its normal
  answer. ``/v1/models`` is never faulted.
* ``latency``: seconds every chat-completions request waits before it is
  answered (a model's response time, for throughput benchmarks); requests
  wait concurrently, each on its own thread.
* ``requests`` is the log of every request received (``LoggedRequest``),
  including faulted ones; ``chat_requests()`` filters the chat completions.
"""
from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Sequence

ReplyFn = Callable[[list[dict]], str]


@dataclass(frozen=True)
class Fault:
    """One injected failure. Build with the class methods."""

    kind: str  # "status" | "delay" | "malformed" | "empty" | "html" | "no_choices" | "trickle"
    http_status: int = 0
    retry_after: float | None = None
    seconds: float = 0.0
    code: str = ""

    @classmethod
    def status(cls, status: int, code: str = "server_error") -> "Fault":
        """Answer HTTP ``status`` with an OpenAI-style error body."""
        return cls("status", http_status=status, code=code)

    @classmethod
    def rate_limit(cls, retry_after: float | None = None) -> "Fault":
        """HTTP 429, with a ``Retry-After`` header (seconds) when given."""
        return cls("status", http_status=429, retry_after=retry_after, code="rate_limit_exceeded")

    @classmethod
    def unauthorized(cls) -> "Fault":
        return cls("status", http_status=401, code="invalid_api_key")

    @classmethod
    def model_not_found(cls) -> "Fault":
        return cls("status", http_status=404, code="model_not_found")

    @classmethod
    def delay(cls, seconds: float) -> "Fault":
        """Wait ``seconds`` before answering normally (longer than the client timeout = a timeout)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def trickle(cls, seconds_per_byte: float) -> "Fault":
        """Answer normally, but send the body one byte every ``seconds_per_byte`` (each read is quick)."""
        return cls("trickle", seconds=seconds_per_byte)

    @classmethod
    def malformed(cls) -> "Fault":
        """HTTP 200 with a body that is not JSON."""
        return cls("malformed")

    @classmethod
    def html(cls) -> "Fault":
        """HTTP 200 with an HTML page (``Content-Type: text/html``), as a proxy or a wrong base URL answers."""
        return cls("html")

    @classmethod
    def no_choices(cls) -> "Fault":
        """HTTP 200 with a chat completion whose ``choices`` is an empty list."""
        return cls("no_choices")

    @classmethod
    def empty_content(cls) -> "Fault":
        """HTTP 200 whose choices carry ``content: null``."""
        return cls("empty")


@dataclass
class LoggedRequest:
    method: str
    path: str
    body: Any  # parsed JSON body, or None
    headers: dict[str, str]
    fault: Fault | None = None


def echo_last_user(messages: list[dict]) -> str:
    """The default reply: the content of the last user message."""
    for m in reversed(messages):
        if m.get("role") == "user":
            return str(m.get("content") or "")
    return ""


def _words(text: Any) -> int:
    return len(str(text or "").split())


@dataclass
class ChatServer:
    """An OpenAI-compatible chat server on 127.0.0.1 (see module docstring)."""

    reply: ReplyFn = echo_last_user
    models: Sequence[str] | None = ("test-model",)
    api_key: str | None = None
    honour_n: bool = True
    send_usage: bool = True
    latency: float = 0.0
    requests: list[LoggedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0

    # ---- lifecycle
    def start(self) -> "ChatServer":
        if self._httpd is not None:
            raise RuntimeError("ChatServer is already running")
        self._stopping.clear()
        handler = type("Handler", (_Handler,), {"server_state": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="chat-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> "ChatServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("ChatServer is not running; use it as a context manager or call start()")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """The URL to give the client as ``base_url`` (ends in ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- faults and log
    def inject(self, *faults: Fault) -> None:
        """Queue faults; each chat request consumes one, in order."""
        with self._lock:
            self._faults.extend(faults)

    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    def chat_requests(self) -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # ---- used by the handler
    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _log(self, req: LoggedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _next_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter


def client_for(server: ChatServer, **kw: Any) -> Any:
    """The real ``OpenAICompatibleLLM`` pointed at ``server``, with test-speed backoff and timeout."""
    from treegym.agents.llm.openai_client import OpenAICompatibleLLM

    kw.setdefault("backoff", 0.001)
    kw.setdefault("timeout", 5.0)
    return OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", **kw)


def _error_body(status: int, code: str, message: str) -> dict:
    kind = {401: "invalid_request_error", 404: "invalid_request_error", 429: "requests"}.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server_state: ChatServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall between headers and body

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    # ---- plumbing
    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), headers)

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str] | None = None,
                  content_type: str = "application/json") -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout); nothing to answer

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _authorized(self) -> bool:
        key = self.server_state.api_key
        return key is None or self.headers.get("Authorization", "") == f"Bearer {key}"

    # ---- routes
    def do_GET(self) -> None:
        state = self.server_state
        state._log(LoggedRequest("GET", self.path, None, dict(self.headers)))
        if self.path.rstrip("/") != "/v1/models":
            self._send_json(404, _error_body(404, "not_found", f"no route {self.path}"))
            return
        if not self._authorized():
            self._send_json(401, _error_body(401, "invalid_api_key", "Incorrect API key provided."))
            return
        ids = list(state.models) if state.models is not None else ["test-model"]
        self._send_json(200, {"object": "list", "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "treegym-tests"} for m in ids]})

    def do_POST(self) -> None:
        state = self.server_state
        body = self._read_body()
        fault = state._next_fault() if self.path.rstrip("/").endswith("/chat/completions") else None
        state._log(LoggedRequest("POST", self.path, body, dict(self.headers), fault))
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send_json(404, _error_body(404, "not_found", f"no route {self.path}"))
            return
        if fault is not None:
            if fault.kind == "delay":
                if state._stopping.wait(fault.seconds):
                    return
            elif fault.kind == "status":
                headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
                error = _error_body(fault.http_status, fault.code, f"injected HTTP {fault.http_status}")
                self._send_json(fault.http_status, error, headers)
                return
            elif fault.kind == "malformed":
                self._send_raw(200, b'{"id": "chatcmpl-broken", "choices": [ this is not json')
                return
            elif fault.kind == "html":
                self._send_raw(200, b"<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>",
                               content_type="text/html; charset=utf-8")
                return
            elif fault.kind == "no_choices":
                self._send_json(200, {"id": "chatcmpl-none", "object": "chat.completion", "created": 0,
                                      "model": (body or {}).get("model"), "choices": []})
                return
        if not self._authorized():
            self._send_json(401, _error_body(401, "invalid_api_key", "Incorrect API key provided."))
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._send_json(400, _error_body(400, "invalid_request", "body must be JSON with a 'messages' list"))
            return
        model = body.get("model")
        if state.models is not None and model not in state.models:
            self._send_json(404, _error_body(404, "model_not_found", f"The model `{model}` does not exist."))
            return
        if state.latency > 0 and state._stopping.wait(state.latency):
            return
        n = int(body.get("n") or 1) if state.honour_n else 1
        messages = body["messages"]
        if fault is not None and fault.kind == "empty":
            texts: list[str | None] = [None] * n
        else:
            texts = [state.reply(messages) for _ in range(n)]
        prompt_tokens = sum(_words(m.get("content")) for m in messages if isinstance(m, dict))
        completion_tokens = sum(_words(t) for t in texts)
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                 "total_tokens": prompt_tokens + completion_tokens}
        payload = {
            "id": f"chatcmpl-{state._next_id()}",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": i, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": t}} for i, t in enumerate(texts)],
            **({"usage": usage} if state.send_usage else {}),
        }
        if fault is not None and fault.kind == "trickle":
            self._trickle(json.dumps(payload).encode(), fault.seconds)
            return
        self._send_json(200, payload)

    def _trickle(self, data: bytes, seconds_per_byte: float) -> None:
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            for i in range(len(data)):
                if self.server_state._stopping.wait(seconds_per_byte):
                    return
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up
