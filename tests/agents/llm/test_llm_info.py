"""What an LLM declares about itself (``LLMInfo``) is what callers act on, never its name."""
from __future__ import annotations

import pytest

from treegym.agents.llm.info import DEFAULT_INFO, SIMULATED_INFO, LLMInfo, info_of, result_config_of
from treegym.agents.llm.budget import BudgetedLLM
from treegym.agents.llm.cache import CachedLLM
from treegym.agents.llm_specs import make_llm
from treegym.scripts.cli import main

GAME24 = "treegym/Game24-v0"


class Named:
    """A custom LLM that declares nothing, named like a simulated backend."""

    name = "synthetic-looking"

    def __init__(self):
        from treegym.agents.llm.base import Usage

        self.usage = Usage()

    def complete(self, request):
        return ["x"] * request.n


def test_an_llm_that_declares_nothing_is_a_real_model_of_unknown_price_whatever_its_name():
    assert info_of(Named()) == DEFAULT_INFO == LLMInfo() and not DEFAULT_INFO.simulated
    assert info_of(None) == DEFAULT_INFO


def test_wrappers_pass_the_inner_llms_info_and_result_config_on(tmp_path):
    synthetic = make_llm("synthetic:seed=3", env_id=GAME24)
    assert info_of(synthetic) == SIMULATED_INFO
    wrapped = BudgetedLLM(CachedLLM(synthetic, tmp_path / "cache.jsonl"), max_calls=5)
    assert info_of(wrapped) == SIMULATED_INFO
    assert result_config_of(wrapped) == {"name": synthetic.name}
    assert info_of(make_llm("openai:m", base_url="http://127.0.0.1:9/v1")) == LLMInfo(over_http=True)


@pytest.mark.parametrize("spec", ["synthetic:seed=0", "scripted"])
def test_http_options_are_refused_for_an_llm_not_reached_over_http(spec, tmp_path, capsys):
    code = main(["run", GAME24, "--agent", "react", "--llm", spec, "--timeout", "5", "--tasks", "900",
                 "--out", str(tmp_path / "r.jsonl"), "--no-progress"])
    assert code == 2
    assert f"--timeout and --max-retries apply to LLMs reached over HTTP (openai:MODEL, local), not to --llm {spec}" \
        in capsys.readouterr().err
    assert not (tmp_path / "r.jsonl").exists()


def test_run_records_carry_what_the_llm_declared(tmp_path):
    out = tmp_path / "r.jsonl"
    assert main(["run", GAME24, "--agent", "react", "--llm", "scripted", "--tasks", "900", "--out", str(out),
                 "--no-progress"]) == 0
    import json

    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["llm_info"] == {"simulated": True, "over_http": False, "grammar": False, "price": [0.0, 0.0]}
