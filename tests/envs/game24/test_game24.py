"""treegym/Game24-v0: tasks, rules, the exact solver/oracle, bad input, snapshots."""
from __future__ import annotations

import ast
import operator
import re
from collections import Counter
from fractions import Fraction

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import treegym.envs as te
from treegym.envs.game24.env import Game24Env
from treegym.envs.game24.solver import first_step, is_solvable, solve
from treegym.envs.game24.tasks import TaskFileError, load_tasks

ENV_ID = "treegym/Game24-v0"
TASKS = load_tasks()
ID_1_3_4_6 = next(t.task_id for t in TASKS if t.numbers == (1, 3, 4, 6))
ID_4_9_10_13 = next(t.task_id for t in TASKS if t.numbers == (4, 9, 10, 13))
ID_2_2_6_6 = next(t.task_id for t in TASKS if t.numbers == (2, 2, 6, 6))


@pytest.fixture
def env():
    e = gym.make(ENV_ID)
    yield e
    e.close()


def play(env, task_id: int, *actions: str):
    out = env.reset(options={"task_id": task_id})
    for a in actions:
        out = env.step(a)
    return out


# ------------------------------------------------------------------ an independent checker of solutions
_LINE = re.compile(r"^(\S+) ([-+*/]) (\S+) = (\S+) \(left: ([^)]*)\)$")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _ast_value(node: ast.AST, used: list[int]) -> Fraction:
    """Evaluate the solver's own expression output (trusted text) with Python's ast, over Fractions."""
    if isinstance(node, ast.Expression):
        return _ast_value(node.body, used)
    if isinstance(node, ast.BinOp):
        return _OPS[type(node.op)](_ast_value(node.left, used), _ast_value(node.right, used))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_ast_value(node.operand, used)
    assert isinstance(node, ast.Constant) and isinstance(node.value, int), ast.dump(node)
    used.append(node.value)
    return Fraction(node.value)


def check_solution(numbers: tuple[int, ...], steps: tuple[str, ...], expression: str) -> None:
    board = Counter(Fraction(n) for n in numbers)
    for line in steps:
        m = _LINE.match(line)
        assert m, line
        a, op, b, r, left = Fraction(m[1]), m[2], Fraction(m[3]), Fraction(m[4]), m[5]
        assert board[a] >= 1 and board[b] >= (2 if a == b else 1), (numbers, line)
        assert r == _OPS[{"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div}[op]](a, b), line
        board = board - Counter([a, b]) + Counter([r])
        assert Counter(Fraction(x) for x in left.split()) == board, line
    assert board == Counter([Fraction(24)]), (numbers, steps)
    used: list[int] = []
    assert _ast_value(ast.parse(expression, mode="eval"), used) == 24, expression
    assert Counter(used) == Counter(numbers), (numbers, expression)


# ------------------------------------------------------------------ solver and oracle
def test_every_puzzle_is_solvable():
    assert len(TASKS) == 1362
    assert [t.task_id for t in TASKS if not is_solvable(t.numbers)] == []


def _check_all_solutions(tasks) -> None:
    for task in tasks:
        solutions = solve(task.numbers)
        assert solutions, task
        assert len({s.steps for s in solutions}) == len(solutions), task
        for s in solutions:
            check_solution(task.numbers, s.steps, s.expression)


def test_every_solution_of_the_test_split_checks_out():
    _check_all_solutions(TASKS[900:1000])


@pytest.mark.slow
def test_every_solution_of_every_puzzle_checks_out():
    _check_all_solutions(TASKS)


def test_the_solver_finds_fraction_solutions_and_knows_unsolvable_boards():
    sols = solve([1, 3, 4, 6])
    assert sols and {s.expression for s in sols} >= {"6 / (1 - (3 / 4))"}
    assert not is_solvable([1, 1, 1, 1]) and solve([1, 1, 1, 1]) == []
    assert first_step([1, 1, 1, 1]) is None
    assert is_solvable([Fraction(3, 4), 32]) and not is_solvable([5])
    assert solve([24]) and solve([24])[0].steps == ()


def _oracle_episode(env, task_id: int) -> tuple[float, int]:
    env.reset(options={"task_id": task_id})
    total, n = 0.0, 0
    while (action := env.unwrapped.expert_action()) is not None:
        _obs, r, term, trunc, info = env.step(action)
        assert not info["invalid_action"], (task_id, action, info["message"])
        total, n = total + r, n + 1
        if term or trunc:
            break
    return total, n


def test_the_oracle_wins_every_test_split_puzzle(env):
    for task_id in Game24Env.split_task_ids("test"):
        assert _oracle_episode(env, task_id) == (1.0, 3)


@pytest.mark.slow
def test_the_oracle_wins_every_puzzle(env):
    for task in TASKS:
        assert _oracle_episode(env, task.task_id) == (1.0, 3), task


def test_expert_plan_and_expert_action_follow_the_current_state(env):
    play(env, ID_4_9_10_13)
    plan = env.unwrapped.expert_plan()
    assert len(plan) == 3 and plan[0] == env.unwrapped.expert_action()
    env.step("13 + 10")  # 4 9 23: unsolvable
    assert env.unwrapped.expert_action() is None and env.unwrapped.expert_plan() == []
    play(env, ID_4_9_10_13, "answer: (13 - 9) * (10 - 4)")
    assert env.unwrapped.expert_action() is None


def test_the_env_agent_contract(env):
    """task_fields, canonical_action (the rules' parser) and expert() (the solver), from the current state."""
    play(env, ID_4_9_10_13)
    e = env.unwrapped
    assert e.task_fields() == {"numbers": ["4", "9", "10", "13"]} and e.action_templates() == ()
    assert e.canonical_action("13 - 9 = 4 (left: 4 4 10)") == e.canonical_action(" 13 − 9 ") == "13 - 9"
    assert e.canonical_action("9 + 13") == e.canonical_action("13 + 9 = 22") == "13 + 9"  # + and * commute
    assert e.canonical_action("answer: (13 - 9) * (10 - 4) = 24") == "answer: (13 - 9) * (10 - 4)"
    assert e.canonical_action("please add") is None and e.canonical_action("") is None
    advice = e.expert()
    assert advice.plan == tuple(e.expert_plan()) and advice.next_action == e.expert_action()
    assert advice.value == 1.0 and advice.solvable
    env.step("13 + 10")  # 4 9 23: unsolvable
    assert e.expert().plan == () and e.expert().value == 0.0 and not e.expert().solvable
    play(env, ID_4_9_10_13, "answer: (13 - 9) * (10 - 4)")
    assert e.expert().value == 1.0 and e.expert().plan == ()  # won
    short = Game24Env(task_ids=[ID_4_9_10_13], max_steps=2)
    short.reset()
    assert not short.expert().solvable  # three steps do not fit in two


# ------------------------------------------------------------------ playing
def test_tot_lines_play_to_a_win(env):
    obs, info = env.reset(options={"task_id": ID_4_9_10_13})
    assert obs["instruction"] == "Use numbers and basic arithmetic operations (+ - * /) to obtain 24. Input: 4 9 10 13"
    assert obs["left"] == ("4", "9", "10", "13") and "4 9 10 13" in obs["text"]
    assert "13 - 9 = 4 (left: 4 4 10)" in obs["valid_actions"]
    obs, r, term, trunc, info = env.step("13 - 9 = 4 (left: 4 4 10)")
    assert (r, term, trunc, info["invalid_action"]) == (0.0, False, False, False)
    assert obs["left"] == ("4", "4", "10") and obs["text"].startswith("13 - 9 = 4 (left: 4 4 10)")
    env.step("10 - 4")
    obs, r, term, trunc, info = env.step("4 * 6 = 24 (left: 24)")
    assert (r, term, trunc) == (1.0, True, False)
    assert info["success"] and info["won"] and obs["valid_actions"] == ()


def test_negative_numbers_are_legal_operands(env):
    obs, *_ = play(env, ID_4_9_10_13, "4 - 10 = -6 (left: -6 9 13)", "9 - 13")
    assert obs["left"] == ("-6", "-4") and "-4 * -6 = 24 (left: 24)" in obs["valid_actions"]
    _obs, r, term, _tr, info = env.step("-6 * -4")
    assert (r, term, info["success"]) == (1.0, True, True)


def test_ending_on_a_number_other_than_24_loses(env):
    _obs, r, term, _trunc, info = play(env, ID_4_9_10_13, "13 + 10", "23 + 9", "32 + 4")
    assert (r, term, info["success"]) == (0.0, True, False)
    assert "36, not 24" in info["message"]


@pytest.mark.parametrize(
    "action",
    ["13 × 9", "13 x 9", "13 X 9.", "  13   *   9  ", "13*9", "13 ∗ 9 = 117", "13 * 9 = 117 (left: 4 10 117)."],
)
def test_harmless_spellings_are_accepted(env, action):
    obs, _r, _t, _tr, info = play(env, ID_4_9_10_13, action)
    assert not info["invalid_action"], info["message"]
    assert obs["left"] == ("4", "10", "117")


def test_division_sign_and_fraction_operands(env):
    obs, _r, _t, _tr, info = play(env, ID_1_3_4_6, "3 ÷ 4")
    assert obs["left"] == ("3/4", "1", "6") and not info["invalid_action"]
    assert "1 - 3/4 = 1/4 (left: 1/4 6)" in obs["valid_actions"]
    obs, *_ = env.step("1 - 3/4 = 1/4 (left: 1/4 6)")
    assert obs["left"] == ("1/4", "6")
    _obs, r, term, _tr, info = env.step("6 / 1/4 = 24")
    assert (r, term, info["success"]) == (1.0, True, True)


def test_a_claim_in_decimals_is_accepted_when_exact(env):
    obs, _r, _t, _tr, info = play(env, ID_1_3_4_6, "3 / 4 = 0.75")
    assert not info["invalid_action"] and obs["left"] == ("3/4", "1", "6")


def test_every_valid_action_is_accepted_and_they_are_distinct(env):
    obs, _ = env.reset(options={"task_id": ID_2_2_6_6})
    actions = obs["valid_actions"]
    assert isinstance(actions, tuple) and len(actions) == len(set(actions)) and actions
    root = te.snapshot(env)
    for a in actions:
        te.restore(env, root)
        _o, _r, _t, _tr, info = env.step(a)
        assert not info["invalid_action"], (a, info["message"])


# ------------------------------------------------------------------ answers
@pytest.mark.parametrize("answer", ["answer: (13 - 9) * (10 - 4)", "Answer: (13-9)*(10-4) = 24", "answer:(10 − 4) × (13 − 9)."])
def test_a_correct_answer_wins(env, answer):
    _obs, r, term, _tr, info = play(env, ID_4_9_10_13, answer)
    assert (r, term, info["success"], info["invalid_action"]) == (1.0, True, True, False)


def test_the_fraction_answer_works_for_1_3_4_6(env):
    _obs, r, term, _tr, info = play(env, ID_1_3_4_6, "answer: 6 / (1 - 3/4)")
    assert (r, term, info["success"]) == (1.0, True, True)


def test_an_answer_uses_the_input_numbers_even_after_steps(env):
    _obs, r, term, _tr, info = play(env, ID_4_9_10_13, "13 - 9", "answer: (13 - 9) * (10 - 4) = 24")
    assert (r, term, info["success"]) == (1.0, True, True)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("answer: (13 - 9) * (10 - 4) * 1", "not allowed or reused 1"),
        ("answer: (13 - 9) * 6", "missing 4 10"),
        ("answer: (13 - 13) + 24", "missing 4 9 10"),
        ("answer: 13 - 9 * 10 / (4 - 4)", "reused 4"),
        ("answer:", "no expression"),
    ],
)
def test_answers_that_reuse_or_omit_numbers_are_rejected(env, answer, why):
    before = play(env, ID_4_9_10_13, "13 - 9")
    snap = te.snapshot(env)
    obs, r, term, trunc, info = env.step(answer)
    assert (r, term, trunc, info["invalid_action"]) == (0.0, False, False, True)
    assert why in info["message"] and obs["left"] == before[0]["left"]
    assert env.unwrapped.state.history == snap.payload.history


def test_an_answer_that_divides_by_zero_is_rejected(env):
    _obs, _r, term, _tr, info = play(env, ID_4_9_10_13, "answer: 10 / (13 - 9 - 4)")
    assert info["invalid_action"] and not term and "zero" in info["message"]


def test_a_wrong_answer_ends_the_episode_with_no_reward(env):
    _obs, r, term, _tr, info = play(env, ID_4_9_10_13, "answer: 13 + 9 + 10 + 4 = 24")
    assert (r, term, info["success"], info["invalid_action"]) == (0.0, True, False, False)
    assert "36" in info["message"]
    _obs, r, term, _tr, info = env.step("answer: (13 - 9) * (10 - 4)")
    assert (r, info["invalid_action"]) == (0.0, True) and "over" in info["message"]


# ------------------------------------------------------------------ bad input
BAD_ACTIONS = [
    ("4 + 4", "used twice"),  # one 4 on 4 9 10 13
    ("7 + 4", "7 is not among the numbers left"),
    ("10 / 0", "not among"),
    ("13 - 9 = 5", "is 4, not 5"),
    ("13 - 9 = 4 (left: 4 10 13)", "wrong left list"),
    ("13 - 9 = 4 (left: 4 4 10 99)", "wrong left list"),
    ("13 - 9 + 4", "two numbers"),
    ("__import__('os').system('x')", "cannot read"),
    ("", "empty action"),
    ("   ", "empty action"),
    ("9" * (1 << 20), "characters long"),
    ("ü€😀 ∑ 漢字 \x00\x07", "cannot read"),
    ("(13 - 9", "parenthesis"),
    ("13 -", "cannot read"),
    ("13 - 9 = ", "nothing after"),
    ("13 - 9 = 4 = 4", "more than one"),
    ("((((((((((((((((((((((((((((((((((((((13))))))))))))))))))))))))))))))))))))) - 9", "nests deeper"),
]


@pytest.mark.parametrize(("action", "why"), BAD_ACTIONS, ids=[f"bad{i}" for i in range(len(BAD_ACTIONS))])
def test_bad_actions_are_rejected_with_a_message_and_no_change(env, action, why):
    obs0, info0 = env.reset(options={"task_id": ID_4_9_10_13})
    snap = env.unwrapped.snapshot()
    obs, r, term, trunc, info = env.step(action)
    assert (r, term, trunc, info["invalid_action"]) == (0.0, False, False, True)
    assert why in info["message"], info["message"]
    assert info["message"] in obs["text"] and len(obs["text"]) < 2000
    assert obs["left"] == obs0["left"] and obs["valid_actions"] == obs0["valid_actions"]
    assert env.unwrapped.state.left == snap.payload.left and env.unwrapped.state.history == ()
    assert info["steps"] == 1


def test_division_by_zero_and_a_false_claim_on_boards_that_allow_them(env):
    play(env, ID_2_2_6_6, "2 - 2")  # 0 6 6
    _obs, _r, _t, _tr, info = env.step("6 / 0")
    assert info["invalid_action"] and "divides by zero" in info["message"]
    play(env, ID_2_2_6_6)
    _obs, _r, _t, _tr, info = env.step("2 + 2 = 5")
    assert info["invalid_action"] and "2 + 2 is 4, not 5" in info["message"]


@pytest.mark.parametrize("action", [None, 42, b"13 - 9", ["13 - 9"]])
def test_non_string_actions_are_rejected(action):
    e = Game24Env()
    e.reset(options={"task_id": ID_4_9_10_13})
    _obs, _r, term, _tr, info = e.step(action)
    assert info["invalid_action"] and not term and "string" in info["message"]


def test_the_step_limit_truncates_and_invalid_steps_count():
    e = gym.make(ENV_ID, max_steps=3)
    e.reset(options={"task_id": ID_4_9_10_13})
    assert e.step("nonsense")[3] is False
    assert e.step("nonsense")[3] is False
    obs, r, term, trunc, info = e.step("13 - 9")
    assert (term, trunc, info["steps"], obs["valid_actions"]) == (False, True, 3, ())
    assert e.unwrapped.expert_action() is None
    _obs, _r, term, trunc, info = e.step("10 - 4")
    assert (term, trunc) == (False, True) and "step limit" in info["message"] and info["left"] == ("4", "4", "10")


# ------------------------------------------------------------------ protocol conformance
def test_check_env_passes():
    e = gym.make(ENV_ID)
    check_env(e.unwrapped, skip_render_check=True)


def test_check_rollback_passes():
    report = te.check_rollback(gym.make(ENV_ID), n_trajectories=8, max_depth=6)
    assert report.kind == "native" and report.check_env == "passed" and report.restores == 24


def test_a_snapshot_restores_steps_and_state_after_the_branch_ends(env):
    play(env, ID_4_9_10_13, "13 - 9")
    snap = te.snapshot(env)
    play_obs = env.step("10 - 4")[0]
    env.step("6 * 4")
    obs, info = te.restore(env, snap)
    assert obs["left"] == ("4", "4", "10") and info["steps"] == 1 and not info["success"]
    assert env.step("10 - 4")[0] == play_obs


# ------------------------------------------------------------------ tasks and splits
def test_task_counts_and_splits():
    assert Game24Env.task_counts() == {"train": 1262, "test": 100, "all": 1362}
    assert Game24Env.split_task_ids("test") == list(range(900, 1000))
    train = Game24Env.split_task_ids("train")
    assert len(train) == 1262 and not set(train) & set(range(900, 1000))


def test_reset_picks_rows_by_task_id_seed_and_order():
    e = gym.make(ENV_ID)
    _obs, info = e.reset(options={"task_id": 0})
    assert (info["task_id"], info["puzzle"]) == (0, "1 1 4 6")
    assert e.reset(options={"task_id": "1360"})[1]["puzzle"] == "1 3 4 6"
    assert e.reset(seed=5)[1]["task_id"] == 905  # default split: test, seed % 100
    assert e.reset()[1]["task_id"] == 906  # then the next one in order
    assert e.reset(seed=99)[1]["task_id"] == 999 and e.reset()[1]["task_id"] == 900
    assert e.reset(seed=3, options={"split": "all"})[1]["task_id"] == 3
    fresh = gym.make(ENV_ID)
    assert fresh.reset()[1]["task_id"] == 900


def test_make_kwargs_split_and_task_ids():
    e = gym.make(ENV_ID, split="train")
    assert e.reset(seed=900)[1]["task_id"] == 1000
    e = gym.make(ENV_ID, task_ids=[7, 3, 1200])
    assert [e.reset()[1]["task_id"] for _ in range(4)] == [7, 3, 1200, 7]
    assert e.reset(seed=2)[1]["task_id"] == 1200
    e = gym.make(ENV_ID, split="test", task_ids=[950])
    assert e.reset()[1]["task_id"] == 950


@pytest.mark.parametrize(
    ("kwargs", "options", "message"),
    [
        ({}, {"task_id": 1362}, "valid ids are 0..1361"),
        ({}, {"task_id": -1}, "valid ids are 0..1361"),
        ({}, {"task_id": "seven"}, "0..1361"),
        ({}, {"task_id": 2.5}, "0..1361"),
        ({}, {"split": "dev"}, "train, test, all"),
        ({"task_ids": [5000]}, None, "valid ids are 0..1361"),
        ({"task_ids": []}, None, "empty"),
        ({"split": "test", "task_ids": [3]}, None, "not in split 'test'"),
        ({"split": "valid"}, None, "train, test, all"),
        ({"max_steps": 0}, None, "max_steps"),
    ],
)
def test_bad_task_choices_raise_a_clear_value_error(kwargs, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Game24Env(**kwargs).reset(options=options)


def test_a_custom_task_file_via_data_path(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("Rank,Puzzles\n1,1 3 4 6\n2,4 9 10 13\n")
    e = gym.make(ENV_ID, data_path=str(path), split="all")
    assert [e.reset()[1]["puzzle"] for _ in range(3)] == ["1 3 4 6", "4 9 10 13", "1 3 4 6"]
    with pytest.raises(ValueError, match=r"split 'test' of .*mine.csv has no tasks"):
        Game24Env(data_path=path)  # the test split is rows 900-999


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot be read"),
        ("Rank,Numbers\n1,1 2 3 4\n", "missing column(s) Puzzles"),
        ("Rank,Puzzles\n1,1 2 3 4\n2,1 2 three 4\n", "row 1 (line 3): 'Puzzles' must be four"),
        ("Rank,Puzzles\n1,1 2 3\n", "row 0 (line 2)"),
        ("Rank,Puzzles\nfirst,1 2 3 4\n", "'Rank' must be an integer"),
        ("Rank,Puzzles\n", "no puzzles"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
    ],
)
def test_a_broken_task_file_names_the_problem(tmp_path, content, message):
    path = tmp_path / "24.csv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(TaskFileError, match=re.escape(message)):
        Game24Env(data_path=path)


def test_random_near_miss_strings_never_raise_and_never_change_the_board_when_invalid(env):
    import random

    rng = random.Random(0)
    alphabet = "0123456789+-*/()=. x×÷left:answer,\n–ü"
    env.reset(options={"task_id": ID_4_9_10_13})
    for i in range(3000):
        before = env.unwrapped.state.left
        action = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        _obs, _r, term, trunc, info = env.step(action)
        if info["invalid_action"]:
            assert env.unwrapped.state.left == before and info["message"].startswith("Invalid action: ")
        if term or trunc:
            env.reset(options={"task_id": ID_4_9_10_13 - i % 50})
