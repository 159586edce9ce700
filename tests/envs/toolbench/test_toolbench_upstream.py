"""Upstream ToolBench data: query files and tool folders load unchanged; schema, StableToolBench-cache and HTTP transports."""
from __future__ import annotations

import json
import warnings

import gymnasium as gym
import pytest

import treegym.envs as te

# A tool and a query written in ToolBench's formats (data_example layout), made up for the test.
TOOL = {"tool_name": "Cat Facts!", "tool_description": "Random facts about cats.", "title": "Cat Facts",
        "standardized_name": "cat_facts",
        "api_list": [{"name": "Get Fact", "url": "https://cat-facts.p.rapidapi.com/fact", "description": "One fact by id.",
                      "method": "GET",
                      "required_parameters": [{"name": "id", "type": "NUMBER", "description": "Fact id", "default": "3"}],
                      "optional_parameters": [{"name": "lang", "type": "STRING", "description": "Language", "default": "en"}],
                      "template_response": {"fact": "str", "length": "int", "tags": ["str"]}},
                     {"name": "list breeds", "url": "https://cat-facts.p.rapidapi.com/breeds", "description": "",
                      "method": "GET", "required_parameters": [], "optional_parameters": [], "template_response": {}}]}
QUERIES = [{"query": "Tell me cat fact number 7 and list some breeds.", "query_id": 88001,
            "api_list": [{"category_name": "Animals", "tool_name": "Cat Facts!", "api_name": "Get Fact",
                          "api_description": "One fact by id.", "required_parameters": TOOL["api_list"][0]["required_parameters"],
                          "optional_parameters": TOOL["api_list"][0]["optional_parameters"], "method": "GET"},
                         {"category_name": "Animals", "tool_name": "Cat Facts!", "api_name": "list breeds",
                          "api_description": "", "required_parameters": [], "optional_parameters": [], "method": "GET"}],
            "relevant APIs": [["Cat Facts!", "Get Fact"]]},
           {"query": "Another one.", "query_id": 88002, "api_list": [], "relevant APIs": []}]


@pytest.fixture()
def upstream(tmp_path):
    tools = tmp_path / "toolenv" / "tools" / "Animals"
    tools.mkdir(parents=True)
    (tools / "cat_facts.json").write_text(json.dumps(TOOL))
    q = tmp_path / "G1_instruction.json"
    q.write_text(json.dumps(QUERIES))
    ids = tmp_path / "G1_instruction_ids.json"
    ids.write_text(json.dumps({"88001": 0}))
    return tmp_path, q, tmp_path / "toolenv" / "tools", ids


def _step(env, name, args):
    return env.step(json.dumps({"name": name, "arguments": args}))


def test_upstream_queries_load_unchanged_with_schema_answers(upstream):
    root, q, tools_dir, ids = upstream
    env = gym.make("treegym/ToolBench-v0", queries=str(q), tools_dir=str(tools_dir), test_ids=str(ids))
    assert env.unwrapped.transport == "schema" and list(env.unwrapped._pool) == [88001]
    obs, info = env.reset()
    names = [f["name"] for f in info["functions"]]
    assert names == ["get_fact_for_cat_facts", "list_breeds_for_cat_facts", "Finish"]
    assert info["functions"][0]["parameters"]["properties"]["is_id"]["type"] == "integer"
    a = _step(env, "get_fact_for_cat_facts", {"is_id": 7})
    body = json.loads(json.loads(a[0]["text"])["response"])
    assert body["_simulated"].startswith("schema responder") and isinstance(body["length"], int)
    assert isinstance(body["tags"], list) and all(isinstance(t, str) for t in body["tags"])
    env.reset()
    assert _step(env, "get_fact_for_cat_facts", {"is_id": 7})[0] == a[0]  # deterministic
    assert _step(env, "get_fact_for_cat_facts", {"is_id": 8})[0] != a[0]
    bad = _step(env, "get_fact_for_cat_facts", {})
    assert bad[4]["status_code"] == 2 and "missing 1 required positional argument: 'is_id'" in bad[0]["text"]
    obs, r, term, trunc, info = _step(env, "Finish", {"return_type": "give_answer", "final_answer": "Cats sleep a lot."})
    assert term and r == 0.0 and info["evaluation"]["pass"] is None and info["evaluation"]["tool_calls"] == 3
    assert te.check_rollback(gym.make("treegym/ToolBench-v0", queries=str(q), tools_dir=str(tools_dir)),
                             n_trajectories=2, max_depth=5).steps_checked > 0


def test_stabletoolbench_cache_hits_and_misses(upstream):
    root, q, tools_dir, _ = upstream
    cache = root / "tool_response_cache" / "Animals" / "cat_facts_for_Animals"
    cache.mkdir(parents=True)
    (cache / "get_fact.json").write_text(json.dumps({
        str({"is_id": 7, "lang": "en"}): {"error": "", "response": "{'fact': 'Cats have five toes on their front paws.'}"}}))
    env = gym.make("treegym/ToolBench-v0", queries=str(q), tools_dir=str(tools_dir), transport="stabletoolbench",
                   cache_dir=str(root / "tool_response_cache"))
    env.reset(options={"task_id": 88001})
    hit = _step(env, "get_fact_for_cat_facts", {"is_id": 7, "lang": "en"})
    assert "five toes" in hit[0]["text"] and hit[4]["status_code"] == 0
    again = _step(env, "get_fact_for_cat_facts", {"lang": "en", "is_id": 7})  # key order does not matter
    assert "five toes" in again[0]["text"]
    miss = _step(env, "get_fact_for_cat_facts", {"is_id": 9})
    assert "Cache miss" in miss[0]["text"] and miss[4]["status_code"] == 11
    with pytest.raises(FileNotFoundError, match="cache folder"):
        gym.make("treegym/ToolBench-v0", queries=str(q), transport="stabletoolbench", cache_dir=str(root / "nope"))


def test_http_transport_against_our_virtual_route_warns_about_restore(tmp_path):
    pytest.importorskip("flask")
    from treegym.envs.toolbench.data import shipped_tasks
    from treegym.servers.run import BackgroundServer
    from treegym.servers.toolbench import create_app
    task = next(t for t in shipped_tasks() if t["template"] == "weather")
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{k: task[k] for k in ("query", "query_id", "api_list", "relevant APIs")}]))
    srv = BackgroundServer(create_app()).start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            env = gym.make("treegym/ToolBench-v0", queries=str(q), transport="http", service_url=srv.url + "/virtual")
        assert env.unwrapped.exact_restore is False and any("not the remote service" in str(w.message) for w in caught)
        local = gym.make("treegym/ToolBench-v0", queries=str(q))  # the mock knows these APIs
        assert local.unwrapped.transport == "mock"
        env.reset()
        local.reset()
        call = task["gold"]["reference_calls"][0]
        assert _step(env, call["name"], call["arguments"])[0] == _step(local, call["name"], call["arguments"])[0]
    finally:
        srv.stop()


def test_broken_query_files_and_bad_transport_settings_fail_clearly(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        gym.make("treegym/ToolBench-v0", queries=str(bad))
    bad.write_text(json.dumps({"query": "x"}))
    with pytest.raises(ValueError, match="JSON list of queries"):
        gym.make("treegym/ToolBench-v0", queries=str(bad))
    bad.write_text(json.dumps(QUERIES))
    with pytest.raises(ValueError, match="transport='mock' answers only"):
        gym.make("treegym/ToolBench-v0", queries=str(bad), transport="mock")
    with pytest.raises(ValueError, match="needs service_url"):
        gym.make("treegym/ToolBench-v0", queries=str(bad), transport="http")
    with pytest.raises(ValueError, match="pass queries=PATH"):
        gym.make("treegym/ToolBench-v0", transport="schema")
    with pytest.raises(FileNotFoundError):
        gym.make("treegym/ToolBench-v0", queries=str(tmp_path / "missing.json"))


# ------------------------------------------------------------- snapshots record the transport and its data
def _cache_dir(root, fact: str):
    """A StableToolBench cache folder under ``root`` whose one cached answer is ``fact``."""
    cache = root / "Animals" / "cat_facts_for_Animals"
    cache.mkdir(parents=True)
    (cache / "get_fact.json").write_text(json.dumps({str({"is_id": 7, "lang": "en"}): {"error": "", "response": fact}}))
    return root


def _transport_env(q, tools_dir, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the http transport's warning about restores
        env = gym.make("treegym/ToolBench-v0", queries=str(q), tools_dir=str(tools_dir), **kwargs)
    env.reset(options={"task_id": 88001})
    return env


def _identity(env):
    return dict(te.snapshot(env).settings).get("transport")


def test_the_transport_identity_names_the_transport_and_its_data(upstream):
    root, q, tools_dir, _ = upstream
    cats = _cache_dir(root / "cache_a", "Cats have five toes.")
    schema = _identity(_transport_env(q, tools_dir))
    assert schema.startswith("schema sha256:") and _identity(_transport_env(q, tools_dir)) == schema
    cached = _identity(_transport_env(q, tools_dir, transport="stabletoolbench", cache_dir=str(cats)))
    assert cached.startswith("stabletoolbench sha256:")
    copy = _cache_dir(root / "copy" / "cache_a", "Cats have five toes.")  # the same files elsewhere
    assert _identity(_transport_env(q, tools_dir, transport="stabletoolbench", cache_dir=str(copy))) == cached
    other = _cache_dir(root / "cache_b", "Cats have six toes.")
    assert _identity(_transport_env(q, tools_dir, transport="stabletoolbench", cache_dir=str(other))) != cached
    http = _identity(_transport_env(q, tools_dir, transport="http", service_url="http://127.0.0.1:9/virtual"))
    assert http.startswith("http http://127.0.0.1:9/virtual sha256:")
    assert _identity(_transport_env(q, tools_dir, transport="http", service_url="http://127.0.0.1:10/virtual")) != http
    changed = json.loads(json.dumps(TOOL))
    changed["api_list"][0]["template_response"] = {"fact": "str"}
    other_tools = root / "other_tools" / "Animals"
    other_tools.mkdir(parents=True)
    (other_tools / "cat_facts.json").write_text(json.dumps(changed))
    assert _identity(_transport_env(q, other_tools.parent)) not in (schema, None)
    assert _identity(gym.make("treegym/ToolBench-v0")) is None  # the shipped mock: nothing recorded


def test_a_snapshot_restores_only_into_an_env_answering_from_its_data(upstream):
    root, q, tools_dir, _ = upstream
    cats = _cache_dir(root / "cache_a", "Cats have five toes.")
    env = _transport_env(q, tools_dir, transport="stabletoolbench", cache_dir=str(cats))
    snap = te.snapshot(env)
    others = (_transport_env(q, tools_dir),
              _transport_env(q, tools_dir, transport="stabletoolbench",
                             cache_dir=str(_cache_dir(root / "cache_b", "Cats have six toes."))))
    for other in others:
        before = te.snapshot(other)
        for travelled in (snap, te.snapshot_from_bytes(te.snapshot_to_bytes(snap))):
            with pytest.raises(te.SnapshotError) as caught:
                te.restore(other, travelled)
            message = str(caught.value)
            assert f"transport={_identity(env)!r}" in message and f"transport={_identity(other)!r}" in message
            assert "build the env with the transport and data the snapshot was taken with" in message
            assert te.snapshot(other).payload == before.payload
    twin = _transport_env(q, tools_dir, transport="stabletoolbench",
                          cache_dir=str(_cache_dir(root / "copy" / "cache_a", "Cats have five toes.")))
    for travelled in (snap, te.snapshot_from_bytes(te.snapshot_to_bytes(snap))):
        assert te.restore(twin, travelled) == te.restore(env, snap)
        step = _step(twin, "get_fact_for_cat_facts", {"is_id": 7, "lang": "en"})
        assert step[:4] == _step(env, "get_fact_for_cat_facts", {"is_id": 7, "lang": "en"})[:4]
        assert "five toes" in step[0]["text"]


CHILD = """
import json
import sys
import gymnasium as gym
import treegym.envs as te
queries, tools_dir, *caches = sys.argv[1:]
data = sys.stdin.buffer.read()
for cache in caches:
    env = gym.make("treegym/ToolBench-v0", queries=queries, tools_dir=tools_dir, transport="stabletoolbench",
                   cache_dir=cache)
    env.reset(options={"task_id": 88002})
    try:
        te.restore(env, te.snapshot_from_bytes(data))
        print("restored:", env.step(json.dumps({"name": "get_fact_for_cat_facts",
                                                "arguments": {"is_id": 7, "lang": "en"}}))[0]["text"])
    except te.SnapshotError as exc:
        print("refused:", exc)
"""


@pytest.mark.slow
def test_a_snapshot_moved_to_another_process_is_refused_there_over_other_data(upstream):
    import subprocess
    import sys

    root, q, tools_dir, _ = upstream
    env = _transport_env(q, tools_dir, transport="stabletoolbench",
                         cache_dir=str(_cache_dir(root / "cache_a", "Cats have five toes.")))
    data = te.snapshot_to_bytes(te.snapshot(env))
    same = _cache_dir(root / "copy" / "cache_a", "Cats have five toes.")
    other = _cache_dir(root / "cache_b", "Cats have six toes.")
    out = subprocess.run([sys.executable, "-c", CHILD, str(q), str(tools_dir), str(same), str(other)], input=data,
                         capture_output=True, check=True).stdout.decode().splitlines()
    expected = _step(env, "get_fact_for_cat_facts", {"is_id": 7, "lang": "en"})[0]["text"]
    assert out[0] == f"restored: {expected}" and "five toes" in expected
    assert out[1].startswith("refused: ") and "transport='stabletoolbench sha256:" in out[1]
