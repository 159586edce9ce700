"""A whole-request time limit for the ``openai`` client's HTTP requests.

httpx's ``timeout`` bounds each network operation (connect, one read, one
write), not the request: an endpoint that trickles its answer a byte at a time
keeps a request with ``timeout=2`` alive for minutes. :func:`deadline_http_client`
builds the ``httpx.Client`` the ``openai`` client uses, with a transport that
gives every request a deadline ``total`` seconds after it starts: a watchdog
closes the connection when it passes (stopping a read that is waiting), and
reading the body past it raises ``httpx.ReadTimeout``, which ``openai``
reports as ``APITimeoutError`` (retried like any timeout).
"""
from __future__ import annotations

import importlib
import threading
import time
from typing import Any, Iterator

import openai


def _http_module() -> Any:
    """The HTTP library the installed ``openai`` is built on (``httpx``, or ``httpx2`` in newer releases)."""
    base = next(c for c in openai.DefaultHttpxClient.__mro__ if c.__name__ == "Client")
    return importlib.import_module(base.__module__.split(".")[0])


httpx = _http_module()


class _DeadlineStream(httpx.SyncByteStream):
    def __init__(self, inner: Any, deadline: float, request: Any, timer: threading.Timer, expired: threading.Event):
        self._inner, self._deadline, self._request, self._timer = inner, deadline, request, timer
        self._expired = expired

    def _timeout(self) -> Exception:
        return httpx.ReadTimeout("the request took longer than its time limit", request=self._request)

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._inner:
                if time.monotonic() > self._deadline:
                    raise self._timeout()
                yield chunk
        except httpx.TimeoutException:
            raise
        except Exception:  # the watchdog closed the connection under a waiting read: that is the timeout
            if self._expired.is_set():
                raise self._timeout() from None
            raise

    def close(self) -> None:
        self._timer.cancel()
        close = getattr(self._inner, "close", None)
        if callable(close):
            close()


class DeadlineTransport(httpx.BaseTransport):
    """``inner`` (an ``httpx.HTTPTransport``) with a deadline of ``total`` seconds per request."""

    def __init__(self, inner: httpx.BaseTransport, total: float):
        self._inner, self._total = inner, float(total)

    def handle_request(self, request: Any) -> Any:
        deadline = time.monotonic() + self._total
        expired = threading.Event()
        holder: dict[str, Any] = {}

        def expire() -> None:  # unblocks a read waiting on a trickling server: the connection is closed
            expired.set()
            stream = holder.get("stream")
            if stream is not None:
                try:
                    stream.close()
                except Exception:  # noqa: BLE001 - closing a half-read stream from another thread
                    pass

        timer = threading.Timer(self._total, expire)
        timer.daemon = True
        timer.start()
        try:
            response = self._inner.handle_request(request)
        except BaseException:
            timer.cancel()
            raise
        if expired.is_set() or time.monotonic() > deadline:
            timer.cancel()
            response.close()
            raise httpx.ReadTimeout("the request took longer than its time limit", request=request)
        holder["stream"] = response.stream
        response.stream = _DeadlineStream(response.stream, deadline, request, timer, expired)
        return response

    def close(self) -> None:
        self._inner.close()


def deadline_http_client(total: float, **kwargs: Any) -> httpx.Client:
    """An ``httpx.Client`` (for ``openai.OpenAI(http_client=...)``) whose requests end after ``total`` seconds."""
    from openai import _base_client

    limits = kwargs.pop("limits", getattr(_base_client, "DEFAULT_CONNECTION_LIMITS", None) or httpx.Limits())
    transport = DeadlineTransport(httpx.HTTPTransport(limits=limits), total)
    return openai.DefaultHttpxClient(transport=transport, timeout=total, **kwargs)
