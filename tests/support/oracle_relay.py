"""A chat server that answers like the env's oracle, for tests of real LLM clients.

The simulated models learn what a request is about from the typed request in
``request.about`` (``treegym.agents.requests``), which does not cross HTTP: the
server sees only the chat messages. :class:`OracleRelay` carries it across the
hop: ``relay.wrap(llm)`` remembers the typed request of each request the agent
sends through the (real) client, and ``relay.reply`` (the server's reply
function) answers that request with the oracle's truth in the env's prompt format.
Requests are sequential (one agent thread), so "the last request" is well defined.
"""
from __future__ import annotations

from typing import Any, Sequence

from treegym.agents.simulated.scripted import oracle_reply
from treegym.agents.prompts import get_prompts
from treegym.agents.llm.request import Request


class OracleRelay:
    def __init__(self, env_id: str):
        self._reply = oracle_reply(get_prompts(env_id))
        self._about: Any = None

    def reply(self, messages: Sequence[dict]) -> str:
        return self._reply(Request(list(messages), about=self._about))

    def wrap(self, llm: Any) -> Any:
        relay = self

        class _Relayed:
            def __getattr__(self, name: str) -> Any:
                return getattr(llm, name)

            def complete(self, request: Request) -> list[str]:
                relay._about = request.about
                return llm.complete(request)

        return _Relayed()
