#!/usr/bin/env bash
# The test suite, from a clean clone: sets up the venv (scripts/setup.sh, idempotent),
# the headless browser for the browser tests (scripts/install_browser.sh), then runs pytest
# on both cores. Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TREEGYM_VENV:-.venv}"
# textworld (treegym[textworld]) so the TextWorld-v0 tests run in CI too.
TREEGYM_EXTRAS="${TREEGYM_EXTRAS:-dev,textworld}" bash scripts/setup.sh "$VENV"
if ! PYTHON="$VENV/bin/python" bash scripts/install_browser.sh; then
    echo "treegym: could not install chromium/chromium-driver; the browser tests will be skipped" >&2
fi
exec "$VENV/bin/python" -m pytest -n 2 "$@"
