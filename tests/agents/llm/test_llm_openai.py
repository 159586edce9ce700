"""OpenAICompatibleLLM against a real local HTTP server speaking the chat-completions API."""
from __future__ import annotations

import itertools
import threading

import pytest

from support.chat_server import ChatServer, Fault, client_for
from treegym.agents.llm import LLMAuthError, LLMError, LLMTimeout
from treegym.agents.llm_specs import make_llm
from treegym.agents.llm.base import approx_tokens
from treegym.agents.llm.openai_client import OpenAICompatibleLLM, choices_grammar
from treegym.agents.llm.request import Request

USER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "go to the kitchen now"}]


client = client_for


@pytest.fixture
def server():
    with ChatServer() as s:
        yield s


def test_answers_and_counts_server_usage(server):
    llm = client(server)
    assert llm.complete(Request(USER)) == ["go to the kitchen now"]
    # the server counts words: 3 + 5 prompt, 5 completion (differs from approx_tokens)
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens) == (1, 8, 5)
    body = server.chat_requests()[0].body
    assert body["model"] == "test-model" and body["messages"] == USER
    assert "n" not in body and "grammar" not in body


def test_parameters_are_passed_through(server):
    llm = client(server, default_max_tokens=77)
    llm.complete(Request(USER, temperature=0.7, stop=["\n"], seed=5))
    llm.complete(Request(USER, max_tokens=9))
    first, second = (r.body for r in server.chat_requests())
    assert first["temperature"] == 0.7 and first["stop"] == ["\n"] and first["seed"] == 5
    assert first["max_tokens"] == 77 and second["max_tokens"] == 9


@pytest.mark.parametrize("fault", [Fault.status(500), Fault.status(503), Fault.rate_limit(), Fault.malformed()],
                         ids=["500", "503", "429", "malformed-json"])
def test_transient_faults_are_retried_then_answered(server, fault):
    server.inject(fault, fault)
    llm = client(server)
    assert llm.complete(Request(USER)) == ["go to the kitchen now"]
    assert len(server.chat_requests()) == 3
    assert llm.retries == 2 and llm.usage.calls == 1 and llm.stats() == {"retries": 2}


def test_timeout_is_retried(server):
    server.inject(Fault.delay(3.0))
    llm = client(server, timeout=0.3)
    assert llm.complete(Request(USER)) == ["go to the kitchen now"]
    assert len(server.chat_requests()) == 2
    assert "timed out" in llm.retry_log[0].error


def test_retry_after_is_honoured_and_capped(server):
    server.inject(Fault.rate_limit(retry_after=0.2), Fault.rate_limit(retry_after=1000))
    llm = client(server)
    llm.RETRY_AFTER_CAP = 0.3
    llm.complete(Request(USER))
    assert [e.delay for e in llm.retry_log] == [0.2, 0.3]


def test_backoff_grows_exponentially_with_jitter(server):
    server.inject(*[Fault.status(500)] * 3)
    llm = client(server, backoff=0.01)
    llm.complete(Request(USER))
    delays = [e.delay for e in llm.retry_log]
    for k, d in enumerate(delays):
        assert 0.01 * 2**k <= d <= 0.01 * 2**k * 1.25


def test_exhausted_retries_name_endpoint_attempts_and_error(server):
    server.inject(*[Fault.status(500)] * 3)
    llm = client(server, max_retries=2)
    with pytest.raises(LLMError) as err:
        llm.complete(Request(USER))
    assert not isinstance(err.value, LLMTimeout)
    msg = str(err.value)
    assert server.base_url in msg and "3 attempt" in msg and "HTTP 500" in msg
    assert len(server.chat_requests()) == 3 and llm.usage.calls == 0


def test_exhausted_timeouts_raise_llm_timeout(server):
    server.inject(Fault.delay(3.0), Fault.delay(3.0))
    llm = client(server, timeout=0.2, max_retries=1)
    with pytest.raises(LLMTimeout, match="timed out") as err:
        llm.complete(Request(USER))
    assert server.base_url in str(err.value) and "2 attempt" in str(err.value)


def test_connection_refused_says_server_not_running():
    with ChatServer() as s:
        url = s.base_url
    llm = OpenAICompatibleLLM("test-model", base_url=url, api_key="EMPTY", max_retries=1, backoff=0.001)
    with pytest.raises(LLMError, match="Is the server running") as err:
        llm.complete(Request(USER))
    assert url in str(err.value)


@pytest.mark.parametrize("fault", [Fault.unauthorized(), Fault.status(403, "forbidden")], ids=["401", "403"])
def test_auth_errors_are_not_retried(server, fault):
    server.inject(fault)
    llm = client(server)
    with pytest.raises(LLMAuthError, match="OPENAI_API_KEY"):
        llm.complete(Request(USER))
    assert len(server.chat_requests()) == 1 and llm.retries == 0


def test_wrong_key_against_a_keyed_server():
    with ChatServer(api_key="sk-right") as s:
        with pytest.raises(LLMAuthError, match="check OPENAI_API_KEY"):
            OpenAICompatibleLLM("test-model", base_url=s.base_url, api_key="sk-wrong").complete(Request(USER))
        good = OpenAICompatibleLLM("test-model", base_url=s.base_url, api_key="sk-right")
        assert good.complete(Request(USER)) == ["go to the kitchen now"]


def test_unknown_model_names_model_url_and_served_models():
    with ChatServer(models=["llama-3.2-1b", "qwen2.5-0.5b"]) as s:
        llm = OpenAICompatibleLLM("gpt-9", base_url=s.base_url, api_key="EMPTY", backoff=0.001)
        with pytest.raises(LLMAuthError) as err:
            llm.complete(Request(USER))
        msg = str(err.value)
        assert "gpt-9" in msg and s.base_url in msg and "llama-3.2-1b, qwen2.5-0.5b" in msg
        assert len(s.chat_requests()) == 1


def test_other_client_errors_are_not_retried(server):
    server.inject(Fault.status(400, "context_length_exceeded"))
    llm = client(server)
    with pytest.raises(LLMError, match="HTTP 400"):
        llm.complete(Request(USER))
    assert len(server.chat_requests()) == 1


def test_null_content_becomes_empty_string(server):
    server.inject(Fault.empty_content())
    assert client(server).complete(Request(USER, n=2)) == ["", ""]


def test_n_choices_in_one_call(server):
    counter = itertools.count()
    server.reply = lambda messages: f"sample {next(counter)}"
    llm = client(server)
    assert llm.complete(Request(USER, n=3, temperature=0.8)) == ["sample 0", "sample 1", "sample 2"]
    assert llm.usage.calls == 1 and len(server.chat_requests()) == 1
    assert server.chat_requests()[0].body["n"] == 3
    assert llm.honours_n is True and llm.calls_needed(5) == 1


def test_n_choices_collected_from_a_server_that_ignores_n():
    counter = itertools.count()
    with ChatServer(reply=lambda m: f"s{next(counter)}", honour_n=False) as s:
        llm = OpenAICompatibleLLM("test-model", base_url=s.base_url, api_key="EMPTY")
        assert llm.calls_needed(3) == 3
        assert llm.complete(Request(USER, n=3, temperature=0.8, seed=10)) == ["s0", "s1", "s2"]
        assert llm.usage.calls == 3 and llm.last_cost().calls == 3
        assert [r.body.get("seed") for r in s.chat_requests()] == [10, 11, 12]
        assert [r.body.get("n") for r in s.chat_requests()] == [3, 2, None]
        assert llm.honours_n is False


def test_one_sample_per_request_never_sends_n(server):
    # llama.cpp's server refuses n>1 with one slot and repeats one sample with several
    counter = itertools.count()
    server.reply = lambda messages: f"s{next(counter)}"
    llm = client(server, one_sample_per_request=True)
    assert llm.calls_needed(3) == 3  # known before the first request, so a budget reserves enough
    assert llm.complete(Request(USER, n=3, temperature=0.8, seed=10)) == ["s0", "s1", "s2"]
    assert [r.body.get("n") for r in server.chat_requests()] == [None, None, None]
    assert [r.body.get("seed") for r in server.chat_requests()] == [10, 11, 12]
    assert llm.usage.calls == 3 and llm.last_cost().calls == 3


def test_grammar_sent_only_when_supported_and_choices_given(server):
    plain = client(server)
    plain.complete(Request(USER, choices=["A", "B"]))
    grammar = client(server, supports_grammar=True)
    grammar.complete(Request(USER))
    grammar.complete(Request(USER, choices=["click[Buy Now]", 'say "hi"']))
    bodies = [r.body for r in server.chat_requests()]
    assert "grammar" not in bodies[0] and "grammar" not in bodies[1]
    assert bodies[2]["grammar"] == 'root ::= "click[Buy Now]" | "say \\"hi\\""'


def test_choices_grammar_escapes():
    assert choices_grammar(["a\\b", "x\ny", "t\tz", "\x01", "A", "A"]) == (
        'root ::= "a\\\\b" | "x\\ny" | "t\\tz" | "\\x01" | "A"'
    )
    with pytest.raises(ValueError):
        choices_grammar([])


def test_no_model_uses_the_servers_first_model(monkeypatch):
    monkeypatch.delenv("TREEGYM_MODEL", raising=False)
    with ChatServer(models=["first-model", "second"]) as s:
        llm = make_llm("openai:", base_url=s.base_url, api_key="EMPTY")
        assert llm.name == "openai:auto"
        llm.complete(Request(USER))
        assert s.chat_requests()[0].body["model"] == "first-model"


def test_environment_configures_the_client(monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    monkeypatch.setenv("TREEGYM_MODEL", "test-model")
    llm = make_llm(None)
    assert isinstance(llm, OpenAICompatibleLLM) and llm.name == "openai:test-model"
    assert llm.complete(Request(USER)) == ["go to the kitchen now"]


def test_missing_configuration_says_which_variables_to_set(monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(LLMAuthError, match="OPENAI_API_KEY.*OPENAI_BASE_URL"):
        OpenAICompatibleLLM("gpt-4o-mini")


def test_factory_rejects_unknown_options_and_ignores_none(server):
    with pytest.raises(TypeError, match="temperatur"):
        make_llm("openai:test-model", base_url=server.base_url, temperatur=0.5)
    llm = make_llm("openai:test-model", base_url=server.base_url, api_key=None, timeout=3)
    assert llm.complete(Request(USER)) == ["go to the kitchen now"]


def test_usage_estimated_when_server_sends_none():
    with ChatServer(send_usage=False) as s:
        llm = client(s)
        llm.complete(Request(USER))
    expected_prompt = approx_tokens("You are terse.") + approx_tokens("go to the kitchen now")
    assert (llm.usage.calls, llm.usage.prompt_tokens) == (1, expected_prompt)
    assert llm.usage.completion_tokens == approx_tokens("go to the kitchen now")


def test_concurrent_requests_are_all_counted(server):
    llm = client(server)
    threads = [threading.Thread(target=llm.complete, args=(Request(USER),)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert llm.usage.calls == 8 == len(server.chat_requests())
    assert llm.usage.completion_tokens == 8 * 5


def test_server_can_be_restarted_and_keeps_its_log():
    server = ChatServer()
    with server:
        first_url = server.base_url
        client(server).complete(Request(USER))
    with server:
        server.inject(Fault.delay(0.05))
        assert client(server).complete(Request(USER)) == ["go to the kitchen now"]
    assert len(server.chat_requests()) == 2 and first_url.startswith("http://127.0.0.1:")


def test_no_model_and_no_models_route_says_set_treegym_model(monkeypatch):
    monkeypatch.delenv("TREEGYM_MODEL", raising=False)
    with ChatServer() as s:
        llm = OpenAICompatibleLLM(base_url=s.base_url + "/nowhere", api_key="EMPTY")
        with pytest.raises(LLMError, match="TREEGYM_MODEL") as err:
            llm.complete(Request(USER))
        assert not isinstance(err.value, LLMAuthError) and s.chat_requests() == []


def test_unpickled_copies_share_one_client_per_process(server):
    """A process or Ray worker unpickles the LLM with every episode: copies with the same settings
    share one client (and its connections); other settings get their own; a closed one is not reused."""
    import pickle

    llm = client(server)
    blob = pickle.dumps(llm)
    first, second = pickle.loads(blob), pickle.loads(blob)
    assert first is second and first is not llm
    assert first.complete(Request(USER)) == ["go to the kitchen now"]
    other = pickle.loads(pickle.dumps(client(server, default_max_tokens=5)))
    assert other is not first and other.default_max_tokens == 5
    first.close()
    third = pickle.loads(blob)
    assert third is not first and third.complete(Request(USER)) == ["go to the kitchen now"]
    third.close()
    other.close()
