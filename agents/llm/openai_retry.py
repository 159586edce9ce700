"""Retries and error mapping for the OpenAI-compatible client (``openai_client.py``).

* :func:`count_retries` / :func:`note_retry`: per-block counting of retries by
  cause (``treegym run`` opens one block per episode);
* :class:`MalformedResponse`, :func:`check_chat_completion`: a 200 answer that is
  not a usable chat completion (retried);
* :class:`Retrying`: the retry loop (exponential backoff with jitter,
  ``Retry-After`` honoured up to ``RETRY_AFTER_CAP``) and the mapping of
  ``openai`` errors to :class:`LLMError` / :class:`LLMTimeout` /
  :class:`LLMAuthError` with messages that say what to do. The rules are in
  ``openai_client.py``'s module docstring.
"""
from __future__ import annotations

import contextlib
import contextvars
import email.utils
import random
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import openai

from .base import LLMAuthError, LLMError, LLMTimeout

_RETRY_STATUSES = frozenset({408, 409, 429})

# Where retries of the code running in a `count_retries()` block are counted.
_RETRY_SINK: contextvars.ContextVar[Counter | None] = contextvars.ContextVar("treegym_llm_retries", default=None)


@contextlib.contextmanager
def count_retries() -> Iterator[Counter]:
    """Count, by cause, the LLM retries made by this thread inside the block.

    Yields a ``Counter`` of cause -> retries (causes: ``timeout``, ``connection``,
    ``http_<status>``, ``malformed_body``, ``no_choices``, ``server_restart``).
    Used by ``treegym run`` to put each episode's retries in its record.
    """
    sink: Counter = Counter()
    token = _RETRY_SINK.set(sink)
    try:
        yield sink
    finally:
        _RETRY_SINK.reset(token)


def note_retry(cause: str) -> None:
    """Count one retry of ``cause`` in the enclosing :func:`count_retries` block, if any."""
    sink = _RETRY_SINK.get()
    if sink is not None:
        sink[cause] += 1


class MalformedResponse(ValueError):
    """The server answered 200 with something that is not a usable chat completion (retried)."""

    def __init__(self, message: str, cause: str = "malformed_body") -> None:
        super().__init__(message)
        self.cause = cause


def check_chat_completion(response: Any, base_url: str) -> Any:
    """Raise :class:`MalformedResponse` unless ``response`` is a chat completion with at least one choice."""
    if not hasattr(response, "choices"):
        body = str(response).strip().replace("\n", " ")
        kind = "an HTML page" if body[:200].lower().lstrip().startswith(("<!doctype", "<html")) else "not a chat completion"
        raise MalformedResponse(
            f"{base_url} answered HTTP 200 with {kind} ({body[:80]!r}); is the base URL the API root "
            "(it usually ends in /v1)?")
    if not response.choices:
        raise MalformedResponse(f"{base_url} answered a chat completion with no choices", cause="no_choices")
    return response


@dataclass(frozen=True)
class RetryEvent:
    """One failed attempt that was retried: attempt number (1-based), the error, the wait in seconds."""

    attempt: int
    error: str
    delay: float


def _retry_after_seconds(error: BaseException) -> float | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # the HTTP-date form
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _cause(error: BaseException) -> str:
    """A short, countable name for why an attempt failed."""
    if isinstance(error, MalformedResponse):
        return error.cause
    if isinstance(error, openai.APIStatusError):
        return f"http_{error.status_code}"
    if isinstance(error, openai.APITimeoutError):
        return "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection"
    return "malformed_body"


def _describe(error: BaseException) -> str:
    if isinstance(error, MalformedResponse):
        return str(error)
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {error.message}"
    if isinstance(error, openai.APITimeoutError):
        return "request timed out"
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error.__context__
        return f"connection error ({cause or error})"
    if isinstance(error, (ValueError, openai.APIResponseValidationError)):
        return f"malformed response body ({error})"
    return f"{type(error).__name__}: {error}"


class Retrying:
    """Mixin for a client with ``base_url``, ``timeout``, ``max_retries``, ``backoff``, ``retries``,
    ``retry_log``, ``_retry_lock`` and a ``_not_found(error) -> LLMAuthError`` method."""

    RETRY_AFTER_CAP = 30.0
    MAX_BACKOFF = 20.0

    base_url: str
    timeout: float
    max_retries: int
    backoff: float
    retries: int
    retry_log: Any
    _retry_lock: Any
    _not_found: Callable[[Any], LLMAuthError]

    def _with_retries(self, send: Callable[[], Any], what: str, max_retries: int | None = None) -> Any:
        retries = self.max_retries if max_retries is None else max_retries
        attempts = retries + 1
        last: BaseException | None = None
        for attempt in range(1, attempts + 1):
            retry_after: float | None = None
            try:
                return send()
            except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
                raise LLMAuthError(
                    f"{self.base_url} rejected the credentials (HTTP {e.status_code}: {e.message}); "
                    "check OPENAI_API_KEY (use EMPTY for a local server without keys)"
                ) from e
            except openai.NotFoundError as e:
                raise self._not_found(e) from e
            except openai.APITimeoutError as e:
                last = e
            except openai.APIConnectionError as e:
                last = e
            except openai.APIStatusError as e:
                if e.status_code not in _RETRY_STATUSES and e.status_code < 500:
                    raise LLMError(
                        f"{self.base_url} refused the {what} request (HTTP {e.status_code}: {e.message}); "
                        "this is not retried: fix the request (prompt too long? unsupported parameter?)"
                    ) from e
                last = e
                retry_after = _retry_after_seconds(e)
            except (ValueError, openai.APIResponseValidationError) as e:
                last = e
            if attempt == attempts:
                break
            if retry_after is not None:
                delay = min(retry_after, self.RETRY_AFTER_CAP)
            else:
                delay = min(self.MAX_BACKOFF, self.backoff * 2 ** (attempt - 1)) * (1.0 + 0.25 * random.random())
            with self._retry_lock:
                self.retries += 1
                self.retry_log.append(RetryEvent(attempt, _describe(last), delay))
            note_retry(_cause(last))
            time.sleep(delay)
        assert last is not None
        message = (
            f"{self.base_url}: {what} failed after {attempts} attempt(s) "
            f"({retries} retries); last error: {_describe(last)}"
        )
        if isinstance(last, openai.APITimeoutError):
            raise LLMTimeout(f"{message}. The server may be overloaded: raise the timeout ({self.timeout:g}s; "
                             "--timeout or TREEGYM_LLM_TIMEOUT) or --max-retries, or use a smaller model") from last
        if isinstance(last, openai.APIConnectionError):
            raise LLMError(f"{message}. Is the server running? Check OPENAI_BASE_URL / --base-url") from last
        raise LLMError(f"{message}. Try again later or check the server's logs") from last
