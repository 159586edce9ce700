"""Default parsers of EnvAdapter (used by envs that do not override them)."""
import pytest

from treegym.agents.adapters.base import EnvAdapter


@pytest.mark.parametrize("text,expected", [
    ("A", 1.0), ("B", 0.0), ("b", 0.0), ("**A**", 1.0),
    ("Answer: B", 0.0), ("ANSWER: A\n", 1.0), ("Preference: B", 0.0),
    ("Trajectory A is longer. Answer: B", 0.0), ("A looks good but the answer is B", 0.0),
    ("Both look fine", 0.5), ("", 0.5), ("Apples", 0.5),
])
def test_parse_comparison_reads_the_verdict(text, expected):
    assert EnvAdapter().parse_comparison(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("Thought: hmm\nAction: click[Buy Now]", "click[Buy Now]"),
    ("search[red shoes]", "search[red shoes]"),
    ("", ""),
])
def test_parse_action_default(text, expected):
    assert EnvAdapter().parse_action(text, {}) == expected
