"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server, Ollama) as an ``LLM``.

Built on the ``openai`` package with its own retries switched off
(``max_retries=0``): this module retries itself, so retries are counted
(``retries``, ``retry_log``) and testable. Chat requests go through the
client's generic ``post`` with a body already in wire form (``_chat`` says why).

Configuration: arguments first, then the environment: ``TREEGYM_MODEL``,
``TREEGYM_LLM_TIMEOUT`` (seconds per request, default 60),
``TREEGYM_LLM_MAX_RETRIES`` (retries per request, default 4),
``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` (``EMPTY`` is fine for local servers;
with a base URL and no key, ``EMPTY`` is sent). With neither a key nor a base
URL there is nothing to talk to and the constructor raises ``LLMAuthError``.
With no model, the first model the server lists is used (resolved on the first
request; ``name`` stays ``openai:auto`` so cache keys do not depend on it).

Errors:

* retried with exponential backoff and jitter: timeouts, connection errors,
  HTTP 408/409/429/5xx, unparsable or non-JSON response bodies (an HTML
  page answered with 200: usually a base URL that is not the API root) and
  answers with no ``choices``; ``Retry-After`` /
  ``retry-after-ms`` is honoured, capped at ``RETRY_AFTER_CAP`` seconds;
* after ``max_retries`` retries: ``LLMTimeout`` (last error a timeout) or
  ``LLMError``, naming the endpoint, the attempts and the last error;
* not retried: 401/403 -> ``LLMAuthError`` ("check OPENAI_API_KEY"); 404 ->
  ``LLMAuthError`` naming the model and base URL and listing the served
  models; other 4xx -> ``LLMError`` with the server's message.

Retries are counted on the client (``retries``, ``retry_log``) and, inside a
:func:`count_retries` block, per cause for the code running in that block
(``treegym run`` opens one per episode: the record's ``llm_retries`` and
``llm_retry_causes``). ``preflight()`` sends one tiny request (at most one
retry) so a run can fail at once on a bad key, model or endpoint.

Usage: ``usage.calls`` counts successful HTTP requests to the model (an
``n>1`` request that the server answers in full is one call; extra requests
made because the server ignored ``n`` are counted too). Tokens come from the
response's ``usage``, else ``approx_tokens``.

Modules: this one builds and sends requests; ``openai_retry.py`` holds the retry
loop and the error mapping, ``grammar.py`` the GBNF grammar for ``choices``.
"""
from __future__ import annotations

import inspect
import os
import threading
from collections import deque
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from ...envs.core.utf8_json import without_lone_surrogates
from .accounting import CostTracker
from .base import LLMAuthError, LLMError, Usage, approx_tokens
from .deadline import deadline_http_client
from .info import LLMInfo
from .grammar import choices_grammar
from .openai_retry import RetryEvent, Retrying, check_chat_completion, count_retries, note_retry
from .request import Request

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 4

def _env_number(name: str, default: float, kind: type, minimum: float) -> Any:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a {'whole ' if kind is int else ''}number; "
                         f"unset it or give e.g. {name}={default:g}") from None
    if value < minimum:
        raise ValueError(f"{name}={raw!r} must be at least {minimum:g}")
    return value


class OpenAICompatibleLLM(Retrying):
    """An ``LLM`` on an OpenAI-compatible chat-completions endpoint (see module docstring).

    ``timeout`` is seconds per HTTP request; ``backoff`` is the first retry
    wait in seconds (doubling each retry, with up to +25% jitter, at most
    ``MAX_BACKOFF``). ``supports_grammar=True`` sends ``choices`` as a GBNF
    grammar in ``extra_body`` (llama.cpp / vLLM); otherwise choices are ignored.
    ``default_max_tokens`` is used when ``complete`` gets no ``max_tokens``.
    ``seed`` is passed through; the k-th extra request for missing ``n``
    samples uses ``seed + k`` so the samples can differ.
    ``one_sample_per_request=True`` never sends ``n>1``: each sample is its own
    request (``seed + k``), for servers that refuse ``n>1`` or answer it with
    copies of one sample (llama.cpp's server).
    """

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        backoff: float = 0.5,
        supports_grammar: bool = False,
        name: str | None = None,
        default_max_tokens: int | None = None,
        one_sample_per_request: bool = False,
    ) -> None:
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
        if not base_url and not api_key:
            raise LLMAuthError(
                "no OpenAI-compatible endpoint configured: set OPENAI_API_KEY (for api.openai.com) or "
                "OPENAI_BASE_URL (for a local server such as http://127.0.0.1:8000/v1, with OPENAI_API_KEY=EMPTY), "
                "or pass --base-url / base_url="
            )
        self.requested_model = model or os.environ.get("TREEGYM_MODEL") or ""
        self.base_url = (base_url or "https://api.openai.com/v1").rstrip("/")
        if timeout is None:
            timeout = _env_number("TREEGYM_LLM_TIMEOUT", DEFAULT_TIMEOUT, float, 0.001)
        if max_retries is None:
            max_retries = _env_number("TREEGYM_LLM_MAX_RETRIES", DEFAULT_MAX_RETRIES, int, 0)
        if float(timeout) <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if int(max_retries) < 0:
            raise ValueError(f"max_retries must be 0 or more, got {max_retries!r}")
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = max(0.0, float(backoff))
        self.supports_grammar = supports_grammar
        self.info = LLMInfo(over_http=True, grammar=supports_grammar)  # price: the report's table, by model
        self.default_max_tokens = default_max_tokens
        self.one_sample_per_request = one_sample_per_request
        self.name = name or f"openai:{self.requested_model or 'auto'}"
        self._config = dict(model=self.requested_model or None, base_url=base_url, api_key=api_key,
                            timeout=timeout, max_retries=max_retries,
                            backoff=backoff, supports_grammar=supports_grammar, name=name,
                            default_max_tokens=default_max_tokens, one_sample_per_request=one_sample_per_request)
        self._client = openai.OpenAI(  # the timeout bounds the whole request, not each read (llm/deadline.py)
            api_key=api_key or "EMPTY", base_url=self.base_url, timeout=self.timeout, max_retries=0,
            http_client=deadline_http_client(self.timeout),
        )
        self._model: str | None = self.requested_model or None
        self._model_lock = threading.Lock()
        self._cost = CostTracker()
        self.usage: Usage = self._cost.usage
        self.retries = 0
        self.retry_log: deque[RetryEvent] = deque(maxlen=200)
        self._retry_lock = threading.Lock()
        #: Whether the server answered an ``n>1`` request with n choices (None: not seen yet).
        self.honours_n: bool | None = False if one_sample_per_request else None

    def __reduce_ex__(self, protocol: Any) -> Any:
        # For process pools: a worker gets a client with the same settings (and its own usage),
        # one per process (see _rebuild).
        # Subclasses have other constructors (LocalLLM owns a server) and must define their own.
        if type(self) is OpenAICompatibleLLM:
            return (_rebuild, (dict(self._config),))
        return super().__reduce_ex__(protocol)

    def close(self) -> None:
        """Close the HTTP connection pool (a shared unpickled copy is no longer handed out)."""
        with _REBUILT_LOCK:
            for key, llm in list(_REBUILT.items()):
                if llm is self:
                    del _REBUILT[key]
        self._client.close()

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(model={self.requested_model or 'auto'!r}, base_url={self.base_url!r})"

    def result_config(self) -> dict[str, Any]:
        """The settings that can change an answer (the run's resume key; see ``treegym.agents.experiments.runs``).

        The timeout and retry count are left out: they change whether an answer
        arrives, not what it is.
        """
        return {"name": self.name, "backend": "openai", "model": self.requested_model or "auto",
                "base_url": self.base_url, "default_max_tokens": self.default_max_tokens,
                "grammar": self.supports_grammar}

    def preflight(self) -> None:
        """One tiny chat request (``max_tokens=1``, at most one retry): raises :class:`LLMError` /
        :class:`LLMAuthError` naming the problem when the key, model or endpoint is wrong.
        Its tokens are not counted in ``usage``."""
        params = {"model": self._resolve_model(max_retries=min(1, self.max_retries)),
                  "messages": [{"role": "user", "content": "Say OK."}],
                  "max_tokens": 1, "temperature": 0.0}
        self._with_retries(lambda: self._chat(params), "preflight chat completion",
                           max_retries=min(1, self.max_retries))

    def stats(self) -> dict[str, int]:
        """Retries so far (failed attempts that were retried), for run records."""
        return {"retries": self.retries}

    # ---- cost hooks (see accounting.py)
    def last_cost(self) -> Usage:
        return self._cost.last()

    def calls_needed(self, n: int) -> int:
        """At most 1 call, or ``n`` when the server may ignore ``n`` (llama.cpp)."""
        return 1 if n <= 1 or self.honours_n else n

    # ---- model
    @property
    def model(self) -> str:
        """The model sent to the server (the server's first listed model when none was given)."""
        return self._resolve_model()

    def _resolve_model(self, max_retries: int | None = None) -> str:
        if self._model is None:
            with self._model_lock:
                if self._model is None:
                    try:
                        served = self._with_retries(lambda: [m.id for m in self._client.models.list()], "list models",
                                                    max_retries=max_retries)
                    except LLMAuthError as e:
                        if not isinstance(e.__cause__, openai.NotFoundError):
                            raise
                        raise LLMError(
                            f"no model given and {self.base_url}/models does not exist; "
                            "set TREEGYM_MODEL or use --llm openai:MODEL"
                        ) from e
                    if not served:
                        raise LLMError(
                            f"no model given and {self.base_url}/models lists none; "
                            "set TREEGYM_MODEL or use --llm openai:MODEL"
                        )
                    self._model = served[0]
        return self._model

    def served_models(self) -> list[str] | None:
        """The ids ``/models`` lists, or None if the server cannot tell (one attempt, no retries)."""
        try:
            return [m.id for m in self._client.models.list()]
        except Exception:  # noqa: BLE001 - only used to enrich an error message
            return None

    # ---- the LLM protocol
    def complete(self, request: Request) -> list[str]:
        self._cost.begin()
        n, max_tokens, seed = request.n, request.max_tokens, request.seed
        params: dict[str, Any] = {
            "model": self.model,
            # a lone surrogate (from an earlier answer) has no UTF-8 form: it goes out as U+FFFD
            "messages": without_lone_surrogates(request.plain_messages()),
            "temperature": request.temperature,
        }
        if max_tokens is None:
            max_tokens = self.default_max_tokens
        if max_tokens is not None:
            params["max_tokens"] = int(max_tokens)
        if request.stop:
            params["stop"] = list(request.stop)
        if self.supports_grammar and request.choices:
            params["grammar"] = choices_grammar(request.choices)  # llama.cpp / vLLM extension field
        prompt_estimate = sum(approx_tokens(str(m.get("content") or "")) for m in request.messages)

        out: list[str] = []
        request_no = 0
        while len(out) < n:
            want = 1 if self.one_sample_per_request else n - len(out)
            call = dict(params)
            if want > 1:
                call["n"] = want
            if seed is not None:
                call["seed"] = seed + request_no
            response = self._with_retries(lambda: self._chat(call), "chat completion")
            texts = [
                (c.message.content or "") if getattr(c, "message", None) is not None else ""
                for c in response.choices
            ][:want]
            if want > 1:
                self.honours_n = len(texts) >= want
            used = getattr(response, "usage", None)
            prompt = getattr(used, "prompt_tokens", None)
            completion = getattr(used, "completion_tokens", None)
            self._cost.charge(
                calls=1,
                prompt_tokens=prompt if isinstance(prompt, int) else prompt_estimate,
                completion_tokens=completion if isinstance(completion, int) else sum(approx_tokens(t) for t in texts),
            )
            out.extend(texts)
            request_no += 1
        return out

    def _chat(self, body: dict[str, Any]) -> Any:
        """One chat-completions request with ``body`` sent as is, answered as a checked ``ChatCompletion``.

        Sent through the client's generic ``post`` (its documented way to send a body it should not
        rewrite) rather than ``chat.completions.create``: ``create`` re-walks every message against
        the SDK's TypedDict unions on each call (about 1 ms of CPU here), which is what limits how
        many episodes a 2-core machine keeps in flight. The request, auth, errors and the parsed
        response are the client's own; the body is already in the API's wire form.
        """
        response = self._client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        return check_chat_completion(response, self.base_url)

    def _not_found(self, error: openai.NotFoundError) -> LLMAuthError:
        served = self.served_models()
        model = self._model or self.requested_model or "(auto)"
        if served:
            hint = f"the server serves: {', '.join(served[:20])}; pick one with --llm openai:MODEL or TREEGYM_MODEL"
        else:
            hint = "check the model name and that OPENAI_BASE_URL ends in /v1"
        return LLMAuthError(f"model {model!r} not found at {self.base_url} (HTTP 404: {error.message}); {hint}")


_REBUILT: dict[tuple, OpenAICompatibleLLM] = {}
_REBUILT_LOCK = threading.Lock()


def _rebuild(config: dict) -> OpenAICompatibleLLM:
    """The unpickled LLM: one per settings per process, shared by every copy unpickled there.

    A process or Ray worker receives the LLM again with every episode it runs; building an
    ``openai`` client (its HTTP pool and TLS setup) costs about 50 ms of CPU, and a fresh one per
    episode also reconnects every time. Sharing is safe: episodes count their own calls and
    tokens (``BudgetedLLM``, ``last_cost`` per thread), as they do under the thread backend.
    """
    key = tuple(sorted(config.items()))
    try:
        hash(key)
    except TypeError:  # an unhashable setting: no sharing
        return _build(config)
    with _REBUILT_LOCK:
        llm = _REBUILT.get(key)
        if llm is None:
            llm = _REBUILT[key] = _build(config)
    return llm


def _build(config: dict) -> OpenAICompatibleLLM:
    settings = dict(config)
    return OpenAICompatibleLLM(settings.pop("model"), **settings)


__all__ = ["OpenAICompatibleLLM", "RetryEvent", "choices_grammar", "count_retries", "note_retry"]

_OPTIONS = [p for p in inspect.signature(OpenAICompatibleLLM.__init__).parameters if p not in ("self", "model")]


def make_openai_llm(arg: str = "", env_id: str | None = None, **kwargs: Any) -> OpenAICompatibleLLM:
    """``openai:MODEL`` (empty MODEL: TREEGYM_MODEL, else the server's first model)."""
    options = {k: v for k, v in kwargs.items() if v is not None}
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"the openai LLM backend has no option(s) {', '.join(unknown)}; it takes: {', '.join(_OPTIONS)}")
    return OpenAICompatibleLLM(arg or None, **options)

