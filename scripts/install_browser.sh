#!/bin/sh
# Installs headless Chromium and its WebDriver for the browser tests
# (tests/servers/test_webshop_browser.py) and the selenium client into the venv.
# Debian/Ubuntu only; run as root. Does nothing when both are present.
set -eu
if command -v chromium >/dev/null 2>&1 && [ -x /usr/bin/chromedriver ]; then
    echo "chromium and chromedriver already installed"
else
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver
fi
PY="${PYTHON:-python3}"
if ! "$PY" -c "import selenium" >/dev/null 2>&1; then
    "$PY" -m pip install "selenium>=4.20"
fi
echo "browser ready: $(chromium --version 2>/dev/null || echo chromium?) / $(/usr/bin/chromedriver --version 2>/dev/null | head -1)"
