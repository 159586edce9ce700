"""The report's HTML page in a real headless Chromium: tables, figures, and a search tree opened by a click."""
from __future__ import annotations

import json

import pytest

from support.browser import browser_missing, start_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ENV = "treegym/Game24-v0"
LLM = "synthetic:p_correct=0.5,judge_acc=0.75,value_noise=0.6"


def test_report_page_opens_a_search_tree(tmp_path):
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    from selenium.webdriver.common.by import By

    from treegym.agents.report.build import build_report
    from treegym.agents.sweep import run_sweep, with_tree_dir
    from treegym.agents.evaluation import RunConfig

    grid = [with_tree_dir(RunConfig(env_id=ENV, agent="elo", llm_spec=LLM, task_ids=[900, 901, 902], budget=b),
                          tmp_path / "trees") for b in (10, 20)]
    grid += [RunConfig(env_id=ENV, agent="react", llm_spec=LLM, task_ids=[900, 901, 902], budget=b) for b in (10, 20)]
    run_sweep(grid, tmp_path / "sweep.jsonl", progress=False, log=lambda m: None)
    rep = build_report([tmp_path / "sweep.jsonl"], tmp_path / "report")
    page = rep.out_dir / "index.html"

    driver = start_chromium(tmp_path / "profile")
    try:
        driver.get(page.resolve().as_uri())
        assert "treegym report" in driver.title
        assert driver.find_elements(By.CSS_SELECTOR, "table.results tr")  # the results table
        images = driver.find_elements(By.TAG_NAME, "img")
        assert images and all(driver.execute_script("return arguments[0].naturalWidth", i) > 0 for i in images)
        assert "simulated" in driver.find_element(By.ID, "simulated-note").text
        buttons = driver.find_elements(By.CSS_SELECTOR, "button.open-tree")
        assert len(buttons) == 6  # the elo episodes saved their trees; react has none
        buttons[0].click()
        title = driver.find_element(By.ID, "tree-title").text
        nodes = driver.find_elements(By.CSS_SELECTOR, "#tree details.node")
        record = json.loads((tmp_path / "sweep.jsonl").read_text().splitlines()[0])
        tree = json.loads(open(record["agent_stats"]["tree_json"]).read())
        assert len(nodes) == len(tree["nodes"]) and f"{len(tree['nodes'])} nodes" in title
        if tree["chosen"] is not None:
            chosen = driver.find_elements(By.CSS_SELECTOR, "#tree summary.chosen")
            assert len(chosen) == tree["nodes"][tree["chosen"]]["depth"] + 1  # the chosen path, root to leaf
        shot = tmp_path / "report_page.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()
