#!/usr/bin/env bash
# The test suite, from a clean clone: sets up the venv (scripts/setup.sh, idempotent),
# the headless browser for the browser tests (scripts/install_browser.sh), then runs pytest
# on both cores. Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TREEGYM_VENV:-.venv}"
bash scripts/setup.sh "$VENV"
# The TextWorld env's extra (textworld 1.7 compiles Jericho's libfrotz, ~45 s the first time).
"$VENV/bin/python" -c "import textworld" 2>/dev/null || "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[textworld]"
if ! PYTHON="$VENV/bin/python" bash scripts/install_browser.sh; then
    echo "treegym: could not install chromium/chromium-driver; the browser tests will be skipped" >&2
fi
exec "$VENV/bin/python" -m pytest -n 2 "$@"
