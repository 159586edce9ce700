"""What a prompt spec remembers while reading answers (agents/prompts/memo.py, reading.py) answers as reading
them afresh does: whole answers per list of valid actions, the stripped-text table, tuples by identity."""
from __future__ import annotations

from typing import Any

import gymnasium as gym

import treegym.envs  # noqa: F401 - registers the envs
from treegym.agents.prompts import get_prompts
from treegym.agents.prompts.memo import ActionIndex


def _bound(env_id: str) -> tuple[gym.Env, dict, Any]:
    """A fresh env of ``env_id`` at ``reset(seed=0)``, its observation, and a fresh prompt spec bound to it."""
    env = gym.make(env_id)
    obs, _ = env.reset(seed=0)
    return env, obs, get_prompts(env_id).bind(env)


def _answers(valid: list[str]) -> list[str]:
    return [f"Thought: go.\nAction: {valid[0]}", f"Thought: go.\nAction: {valid[1].upper()}", valid[2],
            f"- {valid[0]}\n{valid[3]}", "Thought: nothing to do", "", f"Action: {valid[0]}\nmore text"]


def test_parse_action_remembers_each_answer_per_valid_list_as_reading_it_afresh() -> None:
    for env_id in ("treegym/Game24-v0", "treegym/ALFWorld-v0"):
        env, obs, spec = _bound(env_id)
        answers = _answers(list(obs["valid_actions"]))
        first = [spec.parse_action(a, obs) for a in answers]
        fresh = get_prompts(env_id).bind(env)
        assert first == [fresh._parse_action(a, obs) for a in answers]
        assert first[0] == obs["valid_actions"][0] and first[2] == obs["valid_actions"][2]
        assert set(spec.action_index(obs).answers) == set(answers)
        assert [spec.parse_action(a, obs) for a in answers] == first  # from memory, the same
        other = dict(obs, valid_actions=tuple(obs["valid_actions"][1:]))  # another list: read against it
        assert spec.parse_action(answers[0], other) == fresh._parse_action(answers[0], other)
        env.close()


def test_a_remembered_answer_asks_a_page_dependent_env_for_its_templates_again() -> None:
    env, obs, spec = _bound("treegym/WebShop-v0")
    answer = "Thought: I search.\nAction: search[red shoes]"
    asks = spec._template_asks
    got = spec.parse_action(answer, obs)
    assert got == "search[red shoes]" and spec._template_asks > asks  # a bracket: the page was asked
    asks = spec._template_asks
    assert spec.parse_action(answer, obs) == got and spec._template_asks == asks + 1  # remembered, page asked again
    plain = "Thought: hmm\nAction: nothing"
    spec.parse_action(plain, obs)
    asks = spec._template_asks
    spec.parse_action(plain, obs)
    assert spec._template_asks == asks  # no bracket: the reading never needed the page
    env.close()


def test_the_stripped_table_is_the_lower_table_only_when_no_action_is_padded() -> None:
    plain = ActionIndex(["go to desk 1", "Look", "look"])
    assert plain.stripped is plain.lower and plain.stripped == {"go to desk 1": "go to desk 1", "look": "look"}
    padded = ["go", " go ", "Stop\t", "x\u3000"]
    index = ActionIndex(padded)
    assert index.stripped == {v.strip().lower(): v for v in padded} and index.stripped is not index.lower


def test_a_tuple_of_valid_actions_is_found_by_identity_and_a_list_by_content() -> None:
    env, obs, spec = _bound("treegym/Game24-v0")
    valid = tuple(obs["valid_actions"])
    first = spec.action_index(dict(obs, valid_actions=valid))
    assert spec.action_index({"valid_actions": valid}) is first
    assert spec.action_index({"valid_actions": tuple(valid)[::-1]}).valid == valid[::-1]
    assert spec.action_index({"valid_actions": valid}) is first  # after another list: still by identity
    listed = list(valid)
    assert spec.action_index({"valid_actions": listed}) is first  # an equal list: the same table
    listed.pop()
    assert spec.action_index({"valid_actions": listed}).valid == tuple(listed)
    env.close()


def test_is_templated_answers_per_list_as_matching_every_listed_action_does() -> None:
    from treegym.agents.prompts.spec import template_regex

    env, obs, spec = _bound("treegym/ALFWorld-v0")
    valid = list(obs["valid_actions"])
    short = dict(obs, valid_actions=tuple(v for v in valid if not v.startswith("go to")))
    for shown in (obs, short, dict(obs, valid_actions=())):
        for action in ("go to desk 99", "  open drawer 7 ", "inventory", "fly away", "take x from y"):
            t = spec.fits_template(action)
            listed = shown["valid_actions"]
            expected = t is not None and (not listed or any(template_regex(t).match(v) for v in listed))
            assert spec.is_templated(action, shown) is expected, (action, len(listed))
            assert spec.is_templated(action, shown) is expected  # from memory, the same
    assert spec.is_templated("go to desk 99", obs) and not spec.is_templated("go to desk 99", short)
    assert spec.is_listed_or_templated(valid[0], short) is (valid[0] in short["valid_actions"]
                                                            or spec.is_templated(valid[0], short))
    env.close()


def test_value_and_comparison_verdicts_are_remembered_per_text_bounded_as_read_afresh() -> None:
    from treegym.agents.prompts import answers

    spec = get_prompts("treegym/Game24-v0")
    texts = ["sure", "Likely", "x\nimpossible", "", "  ", "Answer: A", "answer: b", "B", "**A**", "tie",
             "The better trajectory is B.", "I think\nsure\n", "a" * (answers.MAX_READ_CHARS + 1)]
    for _ in range(2):  # the second round is answered from memory
        assert [spec.parse_value(t) for t in texts] == [answers._read_value(t) for t in texts]
        assert [spec.parse_comparison(t) for t in texts] == [answers._read_comparison(t) for t in texts]
    assert [spec.parse_value(t) for t in texts[:3]] == [1.0, 0.5, 0.0]
    assert "a" * (answers.MAX_READ_CHARS + 1) not in answers._VALUES  # a long answer is read, not kept
    assert spec.parse_value(None) == 0.25 and spec.parse_comparison(None) == 0.5  # not text: read as before
    for i in range(answers.MAX_READ + 5):
        spec.parse_value(f"likely {i}")
    assert 0 < len(answers._VALUES) <= answers.MAX_READ and spec.parse_value("likely 3") == 0.5


def test_parse_action_reads_a_spec_s_own_extract_and_the_table_once_otherwise() -> None:
    env, obs, spec = _bound("treegym/ALFWorld-v0")
    valid = list(obs["valid_actions"])
    answers = _answers(valid) + [f"Action: {valid[1]}  ", "go nowhere\n* " + valid[2]]
    index = spec.action_index(obs)
    assert [spec._parse_action(a, obs, index) for a in answers] == [spec._parse_action(a, obs) for a in answers]

    class Shouting(type(spec)):
        def extract(self, line: str, obs: dict) -> str | None:
            return line.upper()

    own = Shouting().bind(env)
    assert not own._plain_reading() and spec._plain_reading()
    assert own.parse_action(f"Thought: go.\nAction: {valid[0]}", obs) == valid[0].upper()
    env.close()


def test_the_template_an_action_fills_is_remembered_per_set_of_templates_as_matching_afresh() -> None:
    from treegym.agents.prompts.spec import template_regex

    env, obs, spec = _bound("treegym/WebShop-v0")  # templates depend on the page: a search bar or not

    def afresh(action: str) -> str | None:
        return next((t for t in spec.templates() if template_regex(t).match(action.strip())), None)

    actions = ["search[red shoes]", " search[x] ", "click[Buy Now]", "search[]", "SEARCH[a b]", "buy"]
    on_search_page = [spec.fits_template(a) for a in actions]
    assert on_search_page == [afresh(a) for a in actions] and on_search_page[0] == "search[<query>]"
    assert [spec.fits_template(a) for a in actions] == on_search_page  # from memory, the same
    obs, *_ = env.step(obs["valid_actions"][0])  # a results page: no search bar, the templates known stay
    assert [spec.fits_template(a) for a in actions] == on_search_page
    assert spec.is_listed_or_templated("search[red shoes]", obs) is spec.is_templated("search[red shoes]", obs)
    env.close()


def test_is_listed_or_templated_calls_a_spec_s_own_is_templated() -> None:
    env, obs, spec = _bound("treegym/ALFWorld-v0")

    class Strict(type(spec)):
        def is_templated(self, action: str, obs: dict) -> bool:
            return False

    strict = Strict().bind(env)
    assert spec.is_listed_or_templated("go to desk 99", obs) and not strict.is_listed_or_templated("go to desk 99", obs)
    assert strict.is_listed_or_templated(obs["valid_actions"][0], obs)
    env.close()


def test_the_task_memo_starts_over_when_the_env_plays_another_task() -> None:
    env, obs, spec = _bound("treegym/ToolTasks-v0")
    first = spec._memo()
    spec.canonical(obs["valid_actions"][0])
    assert first.canonical and spec._memo() is first  # the same task: as it is
    env.reset(seed=1)
    assert spec._memo() is first and not first.canonical  # another task: emptied
    env.close()


def test_binding_the_same_env_again_keeps_the_task_memo_and_another_task_still_empties_it() -> None:
    env, obs, spec = _bound("treegym/ToolTasks-v0")
    spec.canonical(obs["valid_actions"][0])
    fields = spec.task_fields()
    kept = spec._memo()
    assert spec.bind(env)._memo() is kept and kept.canonical  # a search binds again: the memo is kept
    assert spec.task_fields() == fields
    env.reset(seed=1)
    spec.bind(env)
    assert not kept.canonical and spec.task_fields() == get_prompts("treegym/ToolTasks-v0").bind(env).task_fields()
    other = gym.make("treegym/ToolTasks-v0")
    other.reset(seed=1)
    assert spec.bind(other)._memo() is not kept  # another env: a fresh memo
    env.close()
    other.close()


class _Shown:
    """A listed action that is not text (a user's env may list objects: they are read by their ``str``)."""

    def __str__(self) -> str:
        return "look around"


def test_a_line_read_as_written_states_what_reading_it_in_full_does() -> None:
    from treegym.agents.prompts.reading import _answer_text

    for env_id in ("treegym/Game24-v0", "treegym/ALFWorld-v0", "treegym/WebShop-v0", "treegym/ToolTasks-v0",
                   "treegym/ToolBench-v0"):
        env, obs, _spec = _bound(env_id)
        valid = list(obs["valid_actions"])
        lines = ["", " ", "answer: 1 + 2 = 3", "Action item", "actionable", "12) go", "3.5 + 2", "4 . x", "7",
                 "4\u0663. x", "7\u00b2 x", "go to nowhere 3", "look", "Look", "inventory "]
        for v in valid[:6]:
            lines += [v, v.upper(), v.lower(), v + " ", " " + v, f"- {v}", f"1. {v}", f"Action: {v}", f"`{v}`",
                      f"{v}`", f"* {v}", f"# {v}", f"{v}\t", v.replace(" ", "  ")]
        # listed actions that reading in full would cut: a label, bullets, numbers, backticks, padding
        odd = ["Action: look", "action figure", "1) go", "12. go", "4 + 8 = 12", "7", "4\u0663. x", "look`", "`look",
               "look ", "- look", "* look", "# look", "\u2022 look", "a look", "A"]
        for shown in (obs, dict(obs, valid_actions=tuple(odd)), dict(obs, valid_actions=list(odd) + valid[:2]),
                      dict(obs, valid_actions=(7, _Shown(), "look"))):  # not text: their strings are not listed
            listed = list(shown["valid_actions"])
            fresh = get_prompts(env_id).bind(env)  # every line read afresh, each one alone
            read = lines + [str(v) for v in listed]
            got = [fresh.extract(line, shown) for line in read]
            index = fresh.action_index(shown)
            full = [fresh._read(_answer_text(line), shown, index, tuple(listed)) for line in read]
            assert got == full, env_id
        env.close()
