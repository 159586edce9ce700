"""BudgetedLLM and CachedLLM: budgets never overrun, the cache records, replays and survives crashes."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from support.chat_server import ChatServer
from treegym.agents.llm import BudgetedLLM, BudgetExceeded, CachedLLM, LLMError
from treegym.agents.simulated.scripted import ScriptedLLM
from treegym.agents.llm.base import LLM
from treegym.agents.llm.openai_client import OpenAICompatibleLLM
from treegym.agents.llm.request import Request


def msgs(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def counting_llm() -> ScriptedLLM:
    counter = itertools.count()
    return ScriptedLLM(lambda m: f"{m[-1]['content']} -> {next(counter)}")


# ---------------------------------------------------------------- budget

def test_budget_raises_before_the_call_that_would_exceed():
    inner = counting_llm()
    llm = BudgetedLLM(inner, max_calls=3)
    assert isinstance(llm, LLM) and llm.name == inner.name
    for k in range(3):
        assert llm.remaining_calls == 3 - k
        llm.complete(Request(msgs("q")))
    with pytest.raises(BudgetExceeded, match="3 of 3 calls"):
        llm.complete(Request(msgs("q")))
    assert inner.usage.calls == 3 and llm.usage.calls == 3 and llm.remaining_calls == 0


def test_budget_is_never_exceeded_by_concurrent_threads():
    inner = counting_llm()
    llm = BudgetedLLM(inner, max_calls=7)
    refused = []

    def worker():
        for _ in range(5):
            try:
                llm.complete(Request(msgs("q")))
            except BudgetExceeded:
                refused.append(1)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert inner.usage.calls == 7 == llm.usage.calls
    assert len(refused) == 30 - 7


def test_token_budget_lets_the_crossing_call_finish_then_stops():
    inner = ScriptedLLM(["x" * 40] * 5)  # about 10 completion tokens each
    llm = BudgetedLLM(inner, max_tokens=15)
    assert llm.complete(Request(msgs("hi"))) == ["x" * 40]
    assert llm.complete(Request(msgs("hi"))) == ["x" * 40]  # crosses 15 tokens: still answered
    with pytest.raises(BudgetExceeded, match="token budget spent"):
        llm.complete(Request(msgs("hi")))
    assert inner.usage.calls == 2 and llm.remaining_tokens == 0


def test_reset_budget_starts_over():
    inner = counting_llm()
    llm = BudgetedLLM(inner, max_calls=1)
    llm.complete(Request(msgs("q")))
    with pytest.raises(BudgetExceeded):
        llm.complete(Request(msgs("q")))
    llm.reset_budget()
    assert llm.remaining_calls == 1 and llm.usage.calls == 0
    llm.complete(Request(msgs("q")))
    assert inner.usage.calls == 2


def test_inner_errors_still_release_the_reservation():
    llm = BudgetedLLM(ScriptedLLM(["one"]), max_calls=5)
    llm.complete(Request(msgs("q")))
    with pytest.raises(LLMError, match="ran out"):
        llm.complete(Request(msgs("q")))
    assert llm.remaining_calls == 4


def test_budget_counts_the_extra_requests_of_a_server_that_ignores_n():
    with ChatServer(honour_n=False) as server:
        inner = OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY")
        llm = BudgetedLLM(inner, max_calls=4)
        assert len(llm.complete(Request(msgs("q"), n=3, temperature=1.0))) == 3
        assert llm.usage.calls == 3 and llm.remaining_calls == 1
        with pytest.raises(BudgetExceeded, match="may need 3"):
            llm.complete(Request(msgs("q"), n=3, temperature=1.0))
        llm.complete(Request(msgs("q")))
        assert len(server.chat_requests()) == 4 == inner.usage.calls


def test_budgets_on_a_shared_client_count_only_their_own_calls():
    inner = counting_llm()
    a, b = BudgetedLLM(inner, max_calls=2), BudgetedLLM(inner, max_calls=2)

    def spend(llm):
        for _ in range(2):
            llm.complete(Request(msgs("q")))

    threads = [threading.Thread(target=spend, args=(x,)) for x in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert a.usage.calls == b.usage.calls == 2 and inner.usage.calls == 4


# ---------------------------------------------------------------- cache

def test_record_against_live_server_then_replay_with_server_stopped(tmp_path):
    path = tmp_path / "cache.jsonl"
    counter = itertools.count()
    with ChatServer(reply=lambda m: f"answer {next(counter)} to {m[-1]['content']}") as server:
        url = server.base_url
        live = CachedLLM(OpenAICompatibleLLM("test-model", base_url=url, api_key="EMPTY"), path, mode="record")
        recorded = [live.complete(Request(msgs(q), temperature=0.0)) for q in ("a", "b", "c")]
        recorded.append(live.complete(Request(msgs("a"), n=2, temperature=0.7, seed=3)))
        assert len(server.chat_requests()) == 4
    dead = OpenAICompatibleLLM("test-model", base_url=url, api_key="EMPTY", max_retries=0)
    replay = CachedLLM(dead, path, mode="replay")
    again = [replay.complete(Request(msgs(q), temperature=0.0)) for q in ("a", "b", "c")]
    again.append(replay.complete(Request(msgs("a"), n=2, temperature=0.7, seed=3)))
    assert again == recorded
    assert replay.cache_hits == 4 and dead.usage.calls == 0 and replay.usage.calls == 0
    assert replay.hit_usage.calls == 4 and replay.hit_usage.prompt_tokens == 4  # one word per prompt
    with pytest.raises(LLMError, match="not in cache .*cache.jsonl.*mode='record'"):
        replay.complete(Request(msgs("never asked")))
    with pytest.raises(LLMError, match="not in cache"):
        replay.complete(Request(msgs("a"), temperature=0.0, seed=99))  # any request field changes the key


def test_auto_mode_records_misses_and_serves_hits_without_inner_calls(tmp_path):
    inner = counting_llm()
    llm = CachedLLM(inner, tmp_path / "c.jsonl")
    first = llm.complete(Request(msgs("q")))
    assert llm.complete(Request(msgs("q"))) == first and inner.usage.calls == 1
    assert (llm.cache_hits, llm.cache_misses) == (1, 1)
    assert llm.usage.calls == 1 and llm.hit_usage.calls == 1
    # a fresh wrapper on the same file (a later run) also hits
    later = CachedLLM(counting_llm(), tmp_path / "c.jsonl", mode="auto")
    assert later.complete(Request(msgs("q"))) == first and later.llm.usage.calls == 0


def test_sampled_requests_replay_recorded_answers_in_order(tmp_path):
    inner = counting_llm()
    rec = CachedLLM(inner, tmp_path / "c.jsonl", mode="record")
    samples = [rec.complete(Request(msgs("q"), temperature=1.0))[0] for _ in range(3)]
    assert samples == ["q -> 0", "q -> 1", "q -> 2"]
    replay = CachedLLM(ScriptedLLM([]), tmp_path / "c.jsonl", mode="replay")
    assert [replay.complete(Request(msgs("q"), temperature=1.0))[0] for _ in range(3)] == samples
    with pytest.raises(LLMError, match="sample 3"):
        replay.complete(Request(msgs("q"), temperature=1.0))
    episode = replay.session()
    assert episode.complete(Request(msgs("q"), temperature=1.0)) == ["q -> 0"]
    replay.reset_samples()
    assert replay.complete(Request(msgs("q"), temperature=1.0)) == ["q -> 0"]
    # greedy requests always map to the one recorded answer
    rec.complete(Request(msgs("g")))
    assert [replay.complete(Request(msgs("g")))[0] for _ in range(3)] == ["g -> 3"] * 3


def test_budget_over_replayed_cache_stops_where_the_recorded_run_stopped(tmp_path):
    with ChatServer(honour_n=False) as server:
        live = OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY")
        CachedLLM(live, tmp_path / "c.jsonl").complete(Request(msgs("q"), n=2, temperature=1.0))
        url = server.base_url
    replay = BudgetedLLM(CachedLLM(OpenAICompatibleLLM("test-model", base_url=url, api_key="EMPTY"),
                                   tmp_path / "c.jsonl", mode="replay"), max_calls=5)
    replay.complete(Request(msgs("q"), n=2, temperature=1.0))
    assert replay.usage.calls == 2  # the recorded request took two calls


def test_bad_mode_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="record, replay, auto"):
        CachedLLM(counting_llm(), tmp_path / "c.jsonl", mode="write")


def _read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_concurrent_threads_leave_a_valid_file_with_every_entry(tmp_path):
    path = tmp_path / "c.jsonl"
    llm = CachedLLM(ScriptedLLM(lambda m: "reply " + m[-1]["content"] * 50), path)

    def worker(w):
        for i in range(25):
            llm.complete(Request(msgs(f"w{w}-{i}")))

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = _read_lines(path)
    assert len(entries) == 200 and len({e["key"] for e in entries}) == 200
    assert len(CachedLLM(ScriptedLLM([]), path, mode="replay").store) == 200


WRITER = textwrap.dedent("""
    import sys
    from treegym.agents.llm import CachedLLM, Request
    from treegym.agents.simulated.scripted import ScriptedLLM
    tag, path = sys.argv[1], sys.argv[2]
    llm = CachedLLM(ScriptedLLM(lambda m: "r:" + m[-1]["content"] * 40), path)
    for i in range(60):
        llm.complete(Request([{"role": "user", "content": f"{tag}-{i}"}]))
""")


def test_two_processes_append_to_one_file_safely(tmp_path):
    path = tmp_path / "c.jsonl"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, tag, str(path)], stderr=subprocess.PIPE)
             for tag in ("p0", "p1")]
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err.decode()
    entries = _read_lines(path)  # every line parses
    contents = {e["request"]["messages"][0]["content"] for e in entries}
    assert len(entries) == 120 and contents == {f"{t}-{i}" for t in ("p0", "p1") for i in range(60)}
    replay = CachedLLM(ScriptedLLM([]), path, mode="replay")
    assert replay.complete(Request(msgs("p1-59"))) == ["r:" + "p1-59" * 40]


def test_truncated_last_line_is_skipped_and_repaired(tmp_path):
    path = tmp_path / "c.jsonl"
    rec = CachedLLM(counting_llm(), path)
    rec.complete(Request(msgs("kept")))
    with open(path, "ab") as f:
        f.write(b'{"key": "abc", "sample": 0, "completions": ["cut off')  # a killed writer
    with pytest.warns(RuntimeWarning, match="truncated last line"):
        later = CachedLLM(counting_llm(), path)
    assert later.complete(Request(msgs("kept"))) == ["kept -> 0"]  # the good entry still hits
    later.complete(Request(msgs("new")))  # appends after repairing the line break
    with pytest.warns(RuntimeWarning, match="skipped a broken line"):
        fresh = CachedLLM(ScriptedLLM([]), path, mode="replay")
    assert fresh.store.skipped_lines == 1
    assert fresh.complete(Request(msgs("new"))) == ["new -> 0"] and fresh.complete(Request(msgs("kept"))) == ["kept -> 0"]


def test_garbage_lines_never_crash(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'not json\n{"key": 1}\n[1, 2]\n\n\xff\xfe\n')
    with pytest.warns(RuntimeWarning):
        llm = CachedLLM(counting_llm(), path)
    assert llm.store.skipped_lines == 4 and len(llm.store) == 0
    assert llm.complete(Request(msgs("q"))) == ["q -> 0"]


def test_cache_path_that_is_a_directory_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="is a directory"):
        CachedLLM(counting_llm(), tmp_path)


def _shout(messages):
    return messages[-1]["content"].upper()


def test_wrappers_and_clients_survive_pickling_for_process_pools(tmp_path):
    import pickle

    with ChatServer() as server:
        client = OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", backoff=0.01)
        stack = BudgetedLLM(CachedLLM(client, tmp_path / "c.jsonl"), max_calls=3)
        stack.complete(Request(msgs("one")))
        copy = pickle.loads(pickle.dumps(stack))
        assert copy.complete(Request(msgs("one"))) == ["one"]  # hit from the file, no request
        assert copy.complete(Request(msgs("two"))) == ["two"]
        assert len(server.chat_requests()) == 2 and copy.remaining_calls == 0
    scripted = pickle.loads(pickle.dumps(ScriptedLLM(_shout)))
    assert scripted.complete(Request(msgs("hi"))) == ["HI"]
