"""The WebShop site in a real headless Chromium, driven the way upstream's site env (selenium) drives
princeton-nlp/WebShop: screenshots of the pages, and the same page text, clickables and reward as our env.

Upstream's ``WebAgentSiteEnv`` (read from its documented interface): it opens
``http://127.0.0.1:3000/<session>``; reads the instruction from
``#instruction-text h4`` in the page source; searches by typing into
``#search_input`` and submitting its form; collects clickables from elements of
class ``btn`` and ``product-link`` (keyed by their text as shown) and
``input[type='radio']`` (keyed by ``value``); clicks them (a JavaScript click
when the element cannot be clicked directly, as its hidden radio inputs); reads
the reward from ``#reward pre``; its ``text`` observation is the page source's
visible strings joined by ``" [SEP] "``.

Needs Debian's ``chromium`` and ``chromium-driver`` (``scripts/install_browser.sh``)
and selenium (the ``browser`` extra). Selenium Manager is not used: the driver
is /usr/bin/chromedriver, so nothing is downloaded.
"""
from __future__ import annotations

import os
import shutil

import pytest
from support.browser import browser_missing, start_chromium
from support.upstream_webshop import instruction_text, page_reward, text_simple

from treegym.envs.webshop.session import INSTRUCTION_LABEL
from treegym.envs.webshop.env import WebShopEnv
from treegym.servers.webshop import create_app
from treegym.servers.run import serve_in_thread

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


class SiteEnvStyle:
    """The moves of upstream's site env, on one browser."""

    def __init__(self, browser):
        self.browser = browser

    def _then_wait_for_the_next_page(self, act) -> None:
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        old = self.browser.find_element(By.TAG_NAME, "body")
        act()

        def old_page_gone(_driver) -> bool:
            # Chrome reports a node of an unloaded document as stale or, in a race, as not in the document
            try:
                old.is_enabled()
            except WebDriverException:
                return True
            return False

        WebDriverWait(self.browser, 120).until(old_page_gone)  # a bound so a broken page fails, never hangs

    def clickables(self) -> dict:
        from selenium.webdriver.common.by import By

        table = {b.text: b for b in self.browser.find_elements(By.CLASS_NAME, "btn")
                 + self.browser.find_elements(By.CLASS_NAME, "product-link")}
        for opt in self.browser.find_elements(By.CSS_SELECTOR, "input[type='radio']"):
            table[opt.get_attribute("value")] = opt
        return table

    def step(self, action: str) -> None:
        from selenium.common.exceptions import ElementNotInteractableException
        from selenium.webdriver.common.by import By

        verb, _, arg = action[:-1].partition("[")
        if verb == "search":
            box = self.browser.find_element(By.ID, "search_input")
            box.send_keys(arg)
            self._then_wait_for_the_next_page(box.submit)
            return
        el = self.clickables()[arg]

        def click() -> None:
            try:
                el.click()
            except ElementNotInteractableException:
                self.browser.execute_script("arguments[0].click();", el)

        self._then_wait_for_the_next_page(click)


def test_upstream_site_env_moves_see_what_the_env_reports(browser, catalog, tmp_path):
    env = WebShopEnv(catalog=catalog, split="all")
    site_env = SiteEnvStyle(browser)
    goals = [g.index for g in catalog.goals[:40] if catalog.product(g.asin).options][:2]
    with serve_in_thread(create_app(catalog)) as site:
        for goal in goals:
            obs, info = env.reset(options={"task_id": goal})
            browser.get(f"{site.url}/fixed_{goal}")
            assert instruction_text(browser.page_source) == INSTRUCTION_LABEL + obs["instruction"]
            reward = 0.0
            while (action := env.unwrapped.expert_action()) is not None:
                if action == "click[Buy Now]":
                    shot = tmp_path / f"item-{goal}.png"
                    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
                site_env.step(action)
                obs, reward, *_rest, info = env.step(action)
                assert text_simple(browser.page_source) == obs["text"]
                assert [k.lower() for k in site_env.clickables()] == \
                    [c.lower() for c in info["available_actions"]["clickables"]]
            assert info["page"] == "done" and page_reward(browser.page_source) == reward > 0
            if os.environ.get("TREEGYM_SCREENSHOT_DIR"):  # to look at the pages after a run
                shutil.copy(tmp_path / f"item-{goal}.png",
                            os.path.join(os.environ["TREEGYM_SCREENSHOT_DIR"], f"webshop_item_{goal}.png"))


def test_a_person_starts_from_the_start_page(browser, catalog):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with serve_in_thread(create_app(catalog)) as site:
        browser.get(site.url + "/")
        browser.find_element(By.NAME, "goal").send_keys("5")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(browser, 120).until(lambda d: d.find_elements(By.ID, "search_input"))
        h4 = browser.find_element(By.CSS_SELECTOR, "#instruction-text h4").text
        assert h4.split() == (INSTRUCTION_LABEL + catalog.goal(5).instruction_text).split()
