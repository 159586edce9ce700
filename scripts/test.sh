#!/usr/bin/env bash
# The test suite, from a clean clone: sets up the venv (scripts/setup.sh, idempotent),
# the headless browser for the browser tests (scripts/install_browser.sh), then runs pytest
# on both cores. Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TREEGYM_VENV:-.venv}"
bash scripts/setup.sh "$VENV"
# textworld (treegym[textworld]) so the TextWorld-v0 tests run in CI too; after setup.sh, which
# has installed the C toolchain that jericho's build needs. Without it those tests are skipped.
if ! "$VENV/bin/python" -c "import textworld" >/dev/null 2>&1; then
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q -e ".[textworld]" \
        || echo "treegym: could not install textworld; the TextWorld tests will be skipped" >&2
fi
if ! PYTHON="$VENV/bin/python" bash scripts/install_browser.sh; then
    echo "treegym: could not install chromium/chromium-driver; the browser tests will be skipped" >&2
fi
exec "$VENV/bin/python" -m pytest -n 2 "$@"
