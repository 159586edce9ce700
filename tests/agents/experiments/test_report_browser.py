"""The report's HTML page and the offline tree viewer in a real headless Chromium at 1300 px: every table column
visible, every row button clickable with a tree open, node detail, search, filter, the standalone
``treegym tree --html`` page, and screenshots that are real pictures."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.browser import browser_missing, start_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ENV = "treegym/Game24-v0"
LLM = "synthetic:p_correct=0.5,judge_acc=0.75,value_noise=0.6"
WIDTH = 1300


def _check_screenshot(driver, path: Path) -> None:
    from PIL import Image

    assert driver.save_screenshot(str(path))
    with Image.open(path) as img:
        assert img.size[0] == WIDTH
        colors = img.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colors is not None and len(colors) > 50  # text, marks and panes: not a blank or one-colour page
    shots = os.environ.get("TREEGYM_SCREENSHOT_DIR")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        (Path(shots) / path.name).write_bytes(path.read_bytes())


def _fits(driver) -> None:
    """No horizontal scrolling, and every header cell of every table inside the window."""
    width = driver.execute_script("return document.documentElement.clientWidth")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    outside = driver.execute_script(
        "return Array.from(document.querySelectorAll('table th')).filter(function(th){"
        " var r = th.getBoundingClientRect(); return r.right > arguments[0] + 0.5 || r.left < 0; })"
        ".map(function(th){ return th.textContent; });", width)
    assert outside == []


def _clickable(driver, element) -> bool:
    """The element is the topmost thing at its centre once scrolled into view (nothing covers it)."""
    return driver.execute_script(
        "var e = arguments[0]; e.scrollIntoView({block: 'center'}); var r = e.getBoundingClientRect();"
        "var top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        "return top === e || e.contains(top);", element)


def test_report_page_fits_1300px_and_its_tree_viewer_works(tmp_path):
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from treegym.agents.experiments.evaluation import RunConfig
    from treegym.agents.experiments.report.build import build_report
    from treegym.agents.experiments.sweep import run_sweep, with_tree_dir

    grid = [with_tree_dir(RunConfig(env_id=ENV, agent="elo", llm_spec=LLM, task_ids=[900, 901, 902], budget=b),
                          tmp_path / "trees") for b in (10, 20)]
    grid += [RunConfig(env_id=ENV, agent="react", llm_spec=LLM, task_ids=[900, 901, 902], budget=b) for b in (10, 20)]
    run_sweep(grid, tmp_path / "sweep.jsonl", progress=False, log=lambda m: None)
    rep = build_report([tmp_path / "sweep.jsonl"], tmp_path / "report")
    page = rep.out_dir / "index.html"
    records = [json.loads(line) for line in (tmp_path / "sweep.jsonl").read_text().splitlines()]
    with_tree = [r for r in records if (r.get("agent_stats") or {}).get("tree_json")]
    tree = json.loads(Path(with_tree[0]["agent_stats"]["tree_json"]).read_text())

    driver = start_chromium(tmp_path / "profile", width=WIDTH, height=900)
    try:
        driver.get(page.resolve().as_uri())
        assert "treegym report" in driver.title and driver.execute_script("return window.innerWidth") == WIDTH
        assert driver.find_elements(By.CSS_SELECTOR, "table.results tr")
        images = driver.find_elements(By.TAG_NAME, "img")
        assert images and all(driver.execute_script("return arguments[0].naturalWidth", i) > 0 for i in images)
        assert "simulated" in driver.find_element(By.ID, "simulated-note").text
        _fits(driver)
        # the "(simulated)" mark of each row stays inside its cell (long LLM names are clipped, it is not)
        assert driver.execute_script(
            "return Array.from(document.querySelectorAll('table.results .sim')).map(function(m){"
            " var c = m.closest('td').getBoundingClientRect(), r = m.getBoundingClientRect();"
            " return r.width > 0 && r.right <= c.right + 0.5; })") == [True] * 4
        _check_screenshot(driver, tmp_path / "report_tables_1300.png")
        buttons = driver.find_elements(By.CSS_SELECTOR, "button.open-tree")
        assert len(buttons) == len(with_tree) == 6  # the elo episodes saved their trees; react has none
        assert all(_clickable(driver, b) for b in buttons)

        buttons[0].click()
        title = driver.find_element(By.ID, "tv-title").text
        assert f"{len(tree['nodes'])} nodes" in title
        _fits(driver)
        # with the viewer open, every row button is still reachable and clickable
        assert all(_clickable(driver, b) for b in driver.find_elements(By.CSS_SELECTOR, "button.open-tree"))
        buttons[0].click()
        if tree["chosen"] is not None:
            chosen = tree["nodes"][tree["chosen"]]
            rows = driver.find_elements(By.CSS_SELECTOR, "#tv-tree .tn.chosen")
            assert len(rows) == chosen["depth"] + 1  # the chosen path, root to leaf, opened
            detail = driver.find_element(By.ID, "tv-detail")
            assert detail.find_element(By.CSS_SELECTOR, "pre.observation").text == chosen["observation"].strip()
            assert f"node #{chosen['id']}" in detail.text and "env step" in detail.text
        # a node's LLM exchanges: pick one that kept some, reveal it through the search box
        node = next(n for n in tree["nodes"] if n.get("llm") and n["action"])
        box = driver.find_element(By.ID, "tv-q")
        box.send_keys(node["action"])
        hits = driver.find_elements(By.CSS_SELECTOR, "#tv-hits .hit")
        expected = sum(1 for n in tree["nodes"] if node["action"].lower() in "\n".join(
            [n["action"] or "", n["observation"], n["thought"]] + [c["prompt"] for c in n.get("llm", [])]
            + [a for c in n.get("llm", []) for a in c["answers"]]).lower())
        assert len(hits) == expected >= 1
        target = next(h for h in hits if h.get_attribute("data-node") == str(node["id"]))
        target.click()
        detail = driver.find_element(By.ID, "tv-detail")
        assert f"node #{node['id']}" in detail.text
        calls = detail.find_elements(By.CSS_SELECTOR, "details.llm")
        assert len(calls) >= len(node["llm"])
        calls[0].click()
        assert detail.find_element(By.CSS_SELECTOR, "pre.prompt").text.strip() == node["llm"][0]["prompt"].strip()
        # the filter: solved ends only
        box.clear()
        Select(driver.find_element(By.ID, "tv-filter")).select_by_value("solved")
        solved = sum(1 for n in tree["nodes"] if n["terminal"] and n["success"])
        assert len(driver.find_elements(By.CSS_SELECTOR, "#tv-hits .hit")) == solved
        Select(driver.find_element(By.ID, "tv-filter")).select_by_value("all")
        driver.execute_script("document.getElementById('tv').scrollIntoView()")
        _check_screenshot(driver, tmp_path / "report_tree_view_1300.png")
    finally:
        driver.quit()


def test_standalone_tree_page_from_the_command_line(tmp_path):
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    from selenium.webdriver.common.by import By

    from treegym.agents.experiments.evaluation import RunConfig
    from treegym.agents.experiments.sweep import run_sweep, with_tree_dir

    run_sweep([with_tree_dir(RunConfig(env_id=ENV, agent="mcts", llm_spec=LLM, task_ids=[905], budget=30),
                             tmp_path / "trees")], tmp_path / "run.jsonl", progress=False, log=lambda m: None)
    tree_file = Path(json.loads((tmp_path / "run.jsonl").read_text().splitlines()[0])["agent_stats"]["tree_json"])
    out = tmp_path / "tree.html"
    done = subprocess.run([sys.executable, "-m", "treegym.scripts.cli", "tree", str(tree_file), "--html", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "src='http" not in text and 'src="http' not in text and "href='http" not in text  # nothing fetched
    bad = subprocess.run([sys.executable, "-m", "treegym.scripts.cli", "tree", str(tmp_path / "nope.json"),
                          "--html", str(out)], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read" in bad.stderr and bad.stderr.count("\n") == 1
    tree = json.loads(tree_file.read_text())
    driver = start_chromium(tmp_path / "profile", width=WIDTH, height=900)
    try:
        driver.get(out.resolve().as_uri())
        assert f"{len(tree['nodes'])} nodes" in driver.find_element(By.ID, "tv-title").text
        _fits(driver)
        root = driver.find_element(By.CSS_SELECTOR, "#tv-n0 > .row .tog")
        root.click()  # close the root, then open it again: its children come back
        assert not driver.find_element(By.CSS_SELECTOR, "#tv-n0 > .kids").is_displayed()
        root.click()
        kids = [n for n in tree["nodes"] if n["parent"] == 0]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#tv-n0 > .kids > .tn")) == len(kids)
        _check_screenshot(driver, tmp_path / "standalone_tree_1300.png")
        # a tree saved before nodes kept their env step and LLM calls opens too
        old = {**tree, "nodes": [{k: v for k, v in n.items() if k not in ("llm", "step")} for n in tree["nodes"]]}
        (tmp_path / "old.json").write_text(json.dumps(old))
        assert subprocess.run([sys.executable, "-m", "treegym.scripts.cli", "tree", str(tmp_path / "old.json"),
                               "--html", str(tmp_path / "old.html")], capture_output=True).returncode == 0
        driver.get((tmp_path / "old.html").resolve().as_uri())
        detail = driver.find_element(By.ID, "tv-detail").text
        assert "saved before treegym kept them" in detail and "env step -" in detail.replace("\n", " ")
    finally:
        driver.quit()
