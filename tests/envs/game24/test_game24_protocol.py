"""treegym/Game24-v0 with ``protocol="tot"``: judged as Tree of Thoughts judges (the final answer line only)."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import treegym.envs as te
from treegym.envs.game24.env import Game24Env
from treegym.envs.game24.tasks import load_tasks

ENV_ID = "treegym/Game24-v0"
TASKS = load_tasks()
ID_4_9_10_13 = next(t.task_id for t in TASKS if t.numbers == (4, 9, 10, 13))
STEPS_TO_24 = ("13 - 9 = 4 (left: 4 4 10)", "10 - 4 = 6 (left: 4 6)", "4 * 6 = 24 (left: 24)")


@pytest.fixture
def tot():
    e = gym.make(ENV_ID, protocol="tot")
    yield e
    e.close()


def play(env, *actions: str):
    out = env.reset(options={"task_id": ID_4_9_10_13})
    for a in actions:
        out = env.step(a)
    return out


def test_reaching_24_does_not_end_the_episode_the_answer_does(tot):
    obs, r, term, trunc, info = play(tot, *STEPS_TO_24)
    assert (r, term, trunc, info["success"], info["protocol"]) == (0.0, False, False, False, "tot")
    assert "write the final 'Answer:" in obs["text"]
    assert obs["valid_actions"] == ("answer: (13 - 9) * (10 - 4) = 24",)  # the answer the steps made
    obs, r, term, trunc, info = tot.step("Answer: (13 - 9) * (10 - 4) = 24")
    assert (r, term, info["success"]) == (1.0, True, True) and obs["valid_actions"] == ()


def test_a_wrong_answer_after_reaching_24_loses_as_in_tot(tot):
    play(tot, *STEPS_TO_24)
    _obs, r, term, _trunc, info = tot.step("Answer: (13 - 9) * (10 - 4) * 1 = 24")
    assert (r, term, info["success"]) == (0.0, True, False)
    assert "wrong" in info["message"] and "not exactly the puzzle's 4 9 10 13" in info["message"]


def test_the_default_protocol_still_wins_at_left_24():
    e = gym.make(ENV_ID)
    _obs, r, term, _trunc, info = play(e, *STEPS_TO_24)
    assert (r, term, info["success"], info["protocol"]) == (1.0, True, True, "treegym")


@pytest.mark.parametrize("line, won", [
    ("(13 - 9) * (10 - 4) = 24", True),            # a bare whole expression is an answer, as ToT reads it
    ("(10 - 4) * (13 - 9)", True),
    ("answer: 4 * 9 - 10 - 13 = 24", False),      # right numbers, value 13
    ("Answer: None", False),
    ("Answer: (13 − 9) × (10 − 4) = 24", False),  # ToT's evaluator does not read × or −
    ("13 * 10 + 9 - 4 = 24", False),              # a bare expression over the puzzle's numbers: judged, wrong
])
def test_answers_are_judged_by_tots_rule_at_any_point(tot, line, won):
    _obs, r, term, _trunc, info = play(tot, line)
    assert (term, info["success"], r) == (True, won, float(won))


@pytest.mark.parametrize("line", ["Steps:", "4 + 9 = 12 (left: 10 12 13)", "(13 - 9) * 10", "hello"])
def test_other_lines_are_invalid_steps_that_change_nothing(tot, line):
    _obs, r, term, _trunc, info = play(tot, line)
    assert (r, term, info["invalid_action"], info["left"]) == (0.0, False, True, ("4", "9", "10", "13"))


def test_one_number_other_than_24_left_waits_for_the_answer(tot):
    obs, _r, term, _trunc, info = play(tot, "13 + 10", "23 + 9", "32 + 4")
    assert not term and info["left"] == ("36",) and "not 24" in obs["text"]
    assert obs["valid_actions"] == ("answer: ((13 + 10) + 9) + 4 = 36",)
    obs, r, term, _trunc, info = tot.step("Answer: (13 - 9) * (10 - 4) = 24")  # only the answer is judged
    assert (r, term, info["success"]) == (1.0, True, True)


def test_the_expert_ends_with_the_answer_and_wins(tot):
    for prefix in ((), STEPS_TO_24[:1], STEPS_TO_24):  # fresh; a step in; 24 already left
        play(tot, *prefix)
        plan = tot.unwrapped.expert_plan()
        assert plan and plan[-1].startswith("answer: ") and plan[0] == tot.unwrapped.expert_action()
        for action in plan:
            _obs, r, term, _trunc, info = tot.step(action)
        assert (r, term, info["success"]) == (1.0, True, True), prefix
    play(tot)
    assert len(tot.unwrapped.expert_plan()) == 4  # three steps and the answer
    play(tot, "13 + 10")  # 4 9 23: the expert follows the steps, and these cannot make 24
    assert tot.unwrapped.expert_plan() == [] and tot.unwrapped.expert().value == 0.0


def test_a_snapshot_restores_into_another_state_and_matches_replay(tot):
    play(tot, *STEPS_TO_24[:2])
    snap = te.snapshot(tot)
    tot.step("4 * 6")
    tot.step("Answer: (13 - 9) * (10 - 4) = 24")
    obs, info = te.restore(tot, snap)
    replayed_obs = play(gym.make(ENV_ID, protocol="tot"), *STEPS_TO_24[:2])[0]
    assert obs == replayed_obs and info["steps"] == 2 and not info["success"]
    e = tot.unwrapped
    assert e.engine.state_from_json(e.engine.state_to_json(e.engine_state())) == e.engine_state()


def test_bad_protocol_and_server_mode_are_refused_with_a_message():
    with pytest.raises(ValueError, match="protocol must be one of 'treegym', 'tot'"):
        gym.make(ENV_ID, protocol="ToT")
    with pytest.raises(ValueError, match="in-process only"):
        Game24Env(protocol="tot", server_url="http://127.0.0.1:9")


def test_a_won_state_from_json_needs_an_answer_under_tot(tot):
    play(tot, *STEPS_TO_24)
    data = tot.unwrapped.engine.state_to_json(tot.unwrapped.engine_state())
    with pytest.raises(ValueError, match="won is true only"):
        tot.unwrapped.engine.state_from_json({**data, "done": True, "won": True})


def test_a_hand_written_history_that_does_not_play_never_crashes_observe(tot):
    play(tot, *STEPS_TO_24)
    engine = tot.unwrapped.engine
    data = engine.state_to_json(tot.unwrapped.engine_state())
    state = engine.state_from_json({**data, "history": ["hello", "99 * 99"]})
    obs, info = engine.observe(state)
    assert obs["valid_actions"] == () and info["left"] == ("24",)
    assert engine.expert(state).plan == ()


def test_check_env_and_rollback_pass_under_tot():
    check_env(gym.make(ENV_ID, protocol="tot").unwrapped, skip_render_check=True)
    report = te.check_rollback(gym.make(ENV_ID, protocol="tot"), n_trajectories=8, max_depth=6)
    assert report.kind == "native" and report.check_env == "passed"


# ------------------------------------------------------------------ the run record and the report carry the protocol
def test_the_run_record_resume_key_and_report_carry_the_protocol(tmp_path):
    from treegym.agents.experiments.evaluation import RunConfig, evaluate
    from treegym.agents.experiments.report.build import build_report
    from treegym.agents.experiments.report.records import load_runs
    from treegym.agents.experiments.report.tables import env_tables, to_csv, to_markdown

    out = tmp_path / "runs.jsonl"
    by_agent_opt = RunConfig(env_id=ENV_ID, agent="oracle", task_ids=[900, 901], agent_options={"protocol": "tot"},
                             preflight=False)
    assert by_agent_opt.env_kwargs == {"protocol": "tot"} and by_agent_opt.agent_options == {}
    tot_records = evaluate(by_agent_opt, out, progress=False)
    default_records = evaluate(RunConfig(env_id=ENV_ID, agent="oracle", task_ids=[900, 901], preflight=False), out,
                               progress=False)
    for r in tot_records:
        assert r["success"] and r["protocol"] == "tot" and r["config"]["env_options"] == {"protocol": "tot"}
        assert r["actions"][-1].startswith("answer: ") and len(r["actions"]) == 4
    assert all(r["success"] and r["protocol"] == "treegym" and len(r["actions"]) == 3 for r in default_records)
    assert tot_records[0]["config_hash"] != default_records[0]["config_hash"]  # a different experiment to resume
    rows = env_tables(load_runs([out]))[ENV_ID]
    assert sorted(r.protocol for r in rows) == ["tot", "treegym"]
    md = to_markdown(rows, ENV_ID)
    assert "| protocol |" in md and "| tot |" in md and "| treegym |" in md and "Tree of Thoughts' rule" in md
    assert to_csv(rows, ENV_ID).splitlines()[0].endswith(",protocol")
    build_report([out], tmp_path / "report", figures=False)
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "<th>protocol</th>" in page and "<td>tot</td>" in page and "<td>treegym</td>" in page


def test_agent_and_env_protocol_options_must_agree():
    from treegym.agents.experiments.evaluation import RunConfig

    with pytest.raises(ValueError, match="disagree"):
        RunConfig(env_id=ENV_ID, agent="oracle", agent_options={"protocol": "tot"},
                  env_kwargs={"protocol": "treegym"})
    same = RunConfig(env_id=ENV_ID, agent="oracle", agent_options={"protocol": "tot"}, env_kwargs={"protocol": "tot"})
    assert same.env_kwargs == {"protocol": "tot"}


# ------------------------------------------------------------------ agents under the ToT protocol
def test_with_one_number_left_the_propose_prompt_asks_for_the_answer_line(tot):
    from treegym.agents.prompts import get_prompts
    from treegym.agents.prompts.spec import Step

    obs, _info = play(tot)
    prompts = get_prompts(ENV_ID)
    prompts.bind(tot)
    history = []
    for action in STEPS_TO_24:
        obs, *_ = tot.step(action)
        history.append(Step(action, obs["text"]))
    user = prompts.propose_messages(obs, history, 3)[-1]["content"].splitlines()
    assert user[-4:] == ["Steps:", *STEPS_TO_24] and "Input: 4 9 10 13" in user
    assert "'Answer: <expression> = 24'" in user[0]


@pytest.mark.parametrize("agent", ["bfs", "oracle"])
def test_tot_agents_finish_with_the_answer_line_under_the_tot_protocol(agent, tmp_path):
    from treegym.agents.experiments.evaluation import RunConfig, evaluate

    llm = "synthetic:p_correct=1,value_noise=0" if agent == "bfs" else None
    config = RunConfig(env_id=ENV_ID, agent=agent, llm_spec=llm, task_ids=[900, 999], budget=1000,
                       agent_options={"protocol": "tot"}, preflight=False)
    for r in evaluate(config, tmp_path / "runs.jsonl", progress=False):
        assert r["success"] and r["protocol"] == "tot", r
        assert r["actions"][-1].startswith("answer: ") and "(left: 24)" in r["actions"][-2]


def test_the_cli_takes_the_protocol_as_an_agent_option(tmp_path, capsys):
    from treegym.scripts.cli import main

    out = tmp_path / "bfs.jsonl"
    assert main(["run", "treegym/Game24-v0", "--agent", "bfs", "--llm", "synthetic:p_correct=1,value_noise=0",
                 "--agent-opt", "protocol=tot", "--tasks", "999", "--budget", "1000", "--out", str(out),
                 "--no-progress"]) == 0
    record = json.loads(out.read_text().splitlines()[-1])
    assert record["success"] and record["protocol"] == "tot" and record["config"]["env_options"] == {"protocol": "tot"}
    assert "protocol" not in record["config"]["agent_options"]
    assert main(["run", "treegym/Game24-v0", "--agent", "bfs", "--llm", "scripted", "--agent-opt", "protocol=tot",
                 "--env-opt", "protocol=treegym", "--tasks", "999", "--out", str(tmp_path / "x.jsonl")]) != 0
    assert "disagree; give one of them" in capsys.readouterr().err
