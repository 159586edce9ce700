"""The OpenAI-compatible client on garbled answers, its timeout/retry settings, preflight, and per-episode retry counts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.chat_server import ChatServer, Fault, client_for
from treegym.agents.llm import LLMAuthError, LLMError
from treegym.agents.llm.base import LLMTimeout
from treegym.agents.llm.openai_client import OpenAICompatibleLLM, count_retries
from treegym.scripts.cli import main
from treegym.agents.llm.request import Request

USER = [{"role": "user", "content": "hello there"}]


client = client_for


@pytest.fixture
def server():
    with ChatServer() as s:
        yield s


@pytest.mark.parametrize("fault, cause", [(Fault.html(), "malformed_body"), (Fault.no_choices(), "no_choices")],
                         ids=["html-200", "empty-choices"])
def test_garbled_200_answers_are_retried_and_counted(server, fault, cause):
    server.inject(fault, fault)
    llm = client(server)
    with count_retries() as retries:
        assert llm.complete(Request(USER)) == ["hello there"]
    assert len(server.chat_requests()) == 3 and llm.retries == 2
    assert retries == {cause: 2}


def test_html_body_after_retries_is_a_clear_llm_error(server):
    server.inject(Fault.html(), Fault.html())
    llm = client(server, max_retries=1)
    with pytest.raises(LLMError) as err:
        llm.complete(Request(USER))
    msg = str(err.value)
    assert "HTML page" in msg and "/v1" in msg and "2 attempt" in msg
    assert "'str' object" not in msg


def test_empty_choices_is_not_an_empty_answer(server):
    server.inject(Fault.no_choices())
    llm = client(server, max_retries=0)
    with pytest.raises(LLMError, match="no choices"):
        llm.complete(Request(USER))


def test_timeout_and_retries_from_the_environment(monkeypatch, server):
    monkeypatch.setenv("TREEGYM_LLM_TIMEOUT", "0.25")
    monkeypatch.setenv("TREEGYM_LLM_MAX_RETRIES", "0")
    llm = OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY")
    assert (llm.timeout, llm.max_retries) == (0.25, 0)
    server.inject(Fault.delay(2.0))
    with pytest.raises(LLMError, match="timed out"):
        llm.complete(Request(USER))
    assert len(server.chat_requests()) == 1
    monkeypatch.setenv("TREEGYM_LLM_MAX_RETRIES", "lots")
    with pytest.raises(ValueError, match="TREEGYM_LLM_MAX_RETRIES"):
        OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY")


def test_preflight_names_bad_key_and_unknown_model():
    with ChatServer(api_key="right") as s:
        with pytest.raises(LLMAuthError, match="OPENAI_API_KEY"):
            OpenAICompatibleLLM("test-model", base_url=s.base_url, api_key="wrong").preflight()
        with pytest.raises(LLMAuthError, match="nope"):
            OpenAICompatibleLLM("nope", base_url=s.base_url, api_key="right").preflight()
        llm = OpenAICompatibleLLM("test-model", base_url=s.base_url, api_key="right")
        llm.preflight()
        assert llm.usage.calls == 0, "the preflight is not charged to any episode"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_openai(server_url: str, out: Path, *extra: str) -> int:
    return main(["run", "treegym/Game24-v0", "--agent", "react", "--llm", "openai:test-model", "--base-url", server_url,
                 "--tasks", "900:902", "--out", str(out), "--no-progress", *extra])


def test_run_with_bad_key_fails_at_once_with_exit_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "wrong")
    with ChatServer(api_key="right") as s:
        assert run_openai(s.base_url, tmp_path / "k.jsonl") == 1
        assert len(s.chat_requests()) == 1, "one preflight request, no episodes"
    err = capsys.readouterr().err
    assert "nothing ran" in err and "OPENAI_API_KEY" in err
    assert not (tmp_path / "k.jsonl").exists()


def test_run_against_unreachable_endpoint_fails_at_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    with ChatServer() as s:
        url = s.base_url  # closed again: nothing listens there
    assert run_openai(url, tmp_path / "u.jsonl", "--max-retries", "3") == 1
    err = capsys.readouterr().err
    assert "Is the server running" in err and url in err
    assert not (tmp_path / "u.jsonl").exists()


def test_run_records_retries_and_causes_per_episode(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    out = tmp_path / "r.jsonl"
    with ChatServer(reply=lambda m: "Action: 1 + 1 = 2") as s:
        s.inject(Fault.html(), Fault.status(503))  # the first episode's first request: garbled, then 503, then fine
        assert run_openai(s.base_url, out, "--no-preflight", "--budget", "2", "--max-retries", "3") == 0
    first, second = sorted(read_jsonl(out), key=lambda r: r["task_id"])
    assert first["error_kind"] in (None, "budget") and first["llm_calls"] >= 1
    assert first["llm_retries"] == 2 and first["llm_retry_causes"] == {"http_503": 1, "malformed_body": 1}
    assert second["llm_retries"] == 0 and second["llm_retry_causes"] == {}


def test_timeout_flag_reaches_the_client(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    with ChatServer(reply=lambda m: "Action: 1 + 1 = 2") as s:
        s.inject(Fault.delay(2.0), Fault.delay(2.0))
        out = tmp_path / "t.jsonl"
        code = run_openai(s.base_url, out, "--timeout", "0.2", "--max-retries", "1", "--no-preflight",
                          "--tasks", "900")
        assert len(s.chat_requests()) >= 2
    rec = read_jsonl(out)[0]
    assert code == 1 and rec["error_kind"] == "llm" and "timed out" in rec["error"]
    assert rec["llm_retries"] == 1 and rec["llm_retry_causes"] == {"timeout": 1}
    assert "every episode failed" in capsys.readouterr().err


def test_timeout_flags_refused_for_simulated_llms(tmp_path, capsys):
    assert main(["run", "treegym/Game24-v0", "--agent", "react", "--llm", "scripted", "--tasks", "900",
                 "--timeout", "3", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "--timeout" in capsys.readouterr().err


def test_timeout_bounds_the_whole_request_not_each_read(server):
    """A server trickling its answer a byte at a time answers every read quickly; --timeout still ends it
    (issue 25: a --timeout 2 run stayed alive 91 s). Without the deadline the reply would arrive whole."""
    llm = OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", timeout=0.5, max_retries=0)
    server.inject(Fault.trickle(0.05))  # ~300 bytes: ~15 s in all, 0.05 s per read
    with pytest.raises(LLMTimeout, match="timed out"):
        llm.complete(Request(USER))
    assert len(server.chat_requests()) == 1
    assert llm.complete(Request(USER)) == [USER[-1]["content"]]  # the next request, on a fresh connection, is answered
