"""The WebShop site in a real headless Chromium: search and buy by clicking, screenshot the pages.

Needs Debian's ``chromium`` and ``chromium-driver`` (``scripts/install_browser.sh``)
and selenium (the ``browser`` extra). Selenium Manager is not used: the driver
is /usr/bin/chromedriver, so nothing is downloaded.
"""
from __future__ import annotations

import os
import shutil

import pytest
from support.browser import browser_missing, start_chromium

from treegym.envs.webshop.engine import WebShopEngine
from treegym.envs.webshop.reward import get_reward
from treegym.servers.webshop import create_app
from treegym.servers.webshop.run import serve_in_thread

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


def test_search_and_buy_by_clicking(browser, catalog, tmp_path):
    from selenium.webdriver.common.by import By

    engine = WebShopEngine(catalog)
    goal = next(g for g in catalog.goals if g.goal_options and get_reward(
        catalog.product(g.asin), g, catalog.product(g.asin).price,
        dict(engine.goal_option_values(g)))[0] == 1.0)
    query = engine.expert_query(engine.new_session(goal.index))

    def click(role: str, text: str) -> None:
        """Click the element and wait until the browser has loaded the page the form post leads to."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.support.ui import WebDriverWait

        old_page = browser.find_element(By.TAG_NAME, "main")

        def old_page_gone(_driver) -> bool:
            # Chrome reports a node of an unloading document either as stale or, in a race,
            # as "Node with given id does not belong to the document": both mean it is gone
            try:
                old_page.is_enabled()
            except WebDriverException:
                return True
            return False

        for el in browser.find_elements(By.CSS_SELECTOR, f'[data-node="{role}"]'):
            if el.text.strip().lower() == text.lower():
                el.click()
                # a generous bound so a broken page fails the test instead of hanging it
                WebDriverWait(browser, 120).until(old_page_gone)
                return
        raise AssertionError(f"no {role} {text!r} on the page: {browser.page_source[:500]}")

    with serve_in_thread(create_app(catalog)) as site:
        browser.get(site.url + "/")
        browser.find_element(By.NAME, "goal").send_keys(str(goal.index))
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 120).until(lambda d: "/s/" in d.current_url)
        assert browser.find_element(By.CSS_SELECTOR, '[data-node="instruction"]').text == \
            " ".join(goal.instruction_text.split())

        box = browser.find_element(By.NAME, "q")
        box.send_keys(query)
        click("searchbox", "Search")
        assert browser.find_element(By.CSS_SELECTOR, "main").get_attribute("data-page") == "results"
        browser.save_screenshot(str(tmp_path / "results.png"))
        click("product", goal.asin)
        for _name, value in engine.goal_option_values(goal):
            click("option", value)
        selected = [el.text for el in browser.find_elements(By.CSS_SELECTOR, '[data-node="option"][data-clicked="1"]')]
        assert selected == [v for _, v in engine.goal_option_values(goal)]
        shot = tmp_path / "item.png"
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        if os.environ.get("TREEGYM_SCREENSHOT_DIR"):  # to look at the pages after a run
            shutil.copy(shot, os.path.join(os.environ["TREEGYM_SCREENSHOT_DIR"], "webshop_item.png"))
            shutil.copy(tmp_path / "results.png", os.path.join(os.environ["TREEGYM_SCREENSHOT_DIR"], "webshop_results.png"))
        click("button", "Buy Now")

        assert "Thank you for shopping with us!" in browser.page_source
        texts = [el.text for el in browser.find_elements(By.CSS_SELECTOR, "[data-node]")]
        assert texts[texts.index("Your score (min 0.0, max 1.0)") + 1] == "1"
        assert goal.asin in texts
        browser.save_screenshot(str(tmp_path / "done.png"))
