#!/usr/bin/env bash
# The test suite, from a clean clone: sets up the venv (scripts/setup.sh, idempotent),
# the headless browser for the browser tests (scripts/install_browser.sh), then runs pytest
# on both cores. Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TREEGYM_VENV:-.venv}"
# the ray extra too, so the Ray backend tests run in CI (tests/agents/experiments/test_executors.py)
TREEGYM_EXTRAS="${TREEGYM_EXTRAS:-dev,ray}" bash scripts/setup.sh "$VENV"
# The TextWorld env's extra: the suite's one compile, as no wheel exists for it (textworld 1.7 needs
# Jericho, whose libfrotz pip builds with a C compiler and make: ~45 s the first time, then pip's
# cached wheel). setup.sh no longer installs a toolchain (the llama.cpp runtime is a wheel), so this
# installs Debian's build-essential first when cc or make is missing. If textworld cannot be
# installed, tests/envs/textworld/test_textworld.py is skipped.
if ! "$VENV/bin/python" -c "import textworld" >/dev/null 2>&1; then
    if ! command -v cc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q build-essential) \
                || echo "treegym: could not install build-essential; textworld's Jericho will not compile" >&2
        fi
    fi
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q -e ".[textworld]" \
        || echo "treegym: could not install textworld; the TextWorld tests will be skipped" >&2
fi
if ! PYTHON="$VENV/bin/python" bash scripts/install_browser.sh; then
    echo "treegym: could not install chromium/chromium-driver; the browser tests will be skipped" >&2
fi
# Debian's adb client for the Android ADB-path tests (tests/envs/android/test_android_adb.py), as root like chromium.
if ! command -v adb >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y adb) \
            || echo "treegym: could not install adb; the ADB-path tests will be skipped" >&2
    else
        echo "treegym: adb is not installed (apt-get install adb, as root); the ADB-path tests will be skipped" >&2
    fi
fi
exec "$VENV/bin/python" -m pytest -n 2 "$@"
