"""A chat server that answers like the env's oracle, for tests of real LLM clients.

The simulated models learn what a request is about through the side channel
(``treegym.agents.llm.about``), which lives in the agent's thread; a chat server
answers in its own thread. :class:`OracleRelay` carries the side channel across
the HTTP hop: ``relay.wrap(llm)`` remembers the ``About`` of each request the
agent sends through the (real) client, and ``relay.reply`` (the server's reply
function) answers that request with the oracle's truth in the env's prompt format.
Requests are sequential (one agent thread), so "the last request" is well defined.
"""
from __future__ import annotations

from typing import Any, Sequence

from treegym.agents.llm.about import asking, current_about
from treegym.agents.simulated.scripted import oracle_reply
from treegym.agents.prompts import get_prompts


class OracleRelay:
    def __init__(self, env_id: str):
        self._reply = oracle_reply(get_prompts(env_id))
        self._about: Any = None

    def reply(self, messages: Sequence[dict]) -> str:
        with asking(self._about):
            return self._reply(list(messages))

    def wrap(self, llm: Any) -> Any:
        relay = self

        class _Relayed:
            def __getattr__(self, name: str) -> Any:
                return getattr(llm, name)

            def complete(self, messages: Sequence[dict], **kwargs: Any) -> list[str]:
                relay._about = current_about()
                return llm.complete(messages, **kwargs)

        return _Relayed()
