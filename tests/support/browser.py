"""Headless Debian Chromium through selenium, for browser tests (no Selenium Manager, nothing downloaded).

``browser_missing()`` says why a browser test must be skipped (None when
everything is installed: ``scripts/install_browser.sh``); ``start_chromium(profile_dir)``
returns a WebDriver the caller must ``quit()``.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

CHROMEDRIVER = "/usr/bin/chromedriver"


def browser_missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install 'treegym[browser]'"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "chromium is not installed: run scripts/install_browser.sh (Debian's chromium and chromium-driver)"
    if not os.access(CHROMEDRIVER, os.X_OK):
        return f"{CHROMEDRIVER} is missing: run scripts/install_browser.sh (Debian's chromium-driver)"
    return None


def start_chromium(profile_dir: Path, width: int = 1200, height: int = 1000) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--window-size={width},{height}", f"--user-data-dir={profile_dir}"):
        opts.add_argument(flag)
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
