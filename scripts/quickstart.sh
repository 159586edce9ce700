#!/usr/bin/env bash
# The README's first command: set up .venv (scripts/setup.sh: treegym, the embedded
# llama.cpp runtime and the SmolLM2-135M model; idempotent) and run the main job, a
# search agent on Game of 24 test puzzles with the default LLM (the embedded model
# unless OPENAI_BASE_URL / OPENAI_API_KEY are set). Extra arguments go to `treegym run`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TREEGYM_VENV:-.venv}"
bash scripts/setup.sh "$VENV"
echo
echo "==> treegym run treegym/Game24-v0 --agent dfsdt --tasks 900:903 --budget 20 $*"
exec "$VENV/bin/treegym" run treegym/Game24-v0 --agent dfsdt --tasks 900:903 --budget 20 "$@"
