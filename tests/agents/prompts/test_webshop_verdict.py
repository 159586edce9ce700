"""WebShop's prompt spec hides the done page's score from judging prompts (``without_verdict``), and
remembers per path whether a step shows it (a path one step longer reads that step only)."""
from __future__ import annotations

from treegym.agents.prompts import Step, get_prompts

SCORED = "Thank you for shopping with us! [SEP] Your score (min 0.0, max 1.0) [SEP] 0.5"


def test_the_score_is_hidden_on_every_path_that_shows_it_remembered_or_not() -> None:
    spec = get_prompts("treegym/WebShop-v0")
    a, b, c = Step("search[x]", "results [SEP] B01"), Step("click[B01]", "item [SEP] Buy Now"), Step("click[Buy Now]", SCORED)
    paths = [[a], [a, b], [a, b, c], [a, c], [c], [b, a]]
    for _ in range(2):  # the second round from memory
        for path in paths:
            obs, shown = spec.without_verdict({"text": "page"}, list(path))
            scored = any("Your score" in s.observation for s in path)
            assert (shown is not path) == scored or not scored and shown == path
            assert not any("Your score" in s.observation for s in shown)
            assert [s.action for s in shown] == [s.action for s in path]
    fresh = get_prompts("treegym/WebShop-v0")
    assert spec.without_verdict({"text": SCORED}, [a, b, c]) == fresh.without_verdict({"text": SCORED}, [a, b, c])
    assert "Your score" not in spec.without_verdict({"text": SCORED}, [])[0]["text"]
