#!/usr/bin/env bash
# Mutation testing of the search algorithms (not part of CI: tens of minutes on 2 cores).
#
#   scripts/mutation_check.sh [MODULE ...]     # MODULE in: elo astar mcts tot dfsdt (default: all five)
#
# For each module, mutmut (2.x, in-place mutation; `pip install "mutmut<3"`) mutates
# agents/search/<MODULE>.py one change at a time and runs only that module's fast policy
# tests (hand-built trees, scripted LLMs) plus its pure-function tests; a mutant is killed
# when a test fails. The work happens in a throwaway copy of the repository (the working
# tree is never touched), imported through a `treegym` package of symlinks on PYTHONPATH.
# Prints, and appends to $REPORT (default: mutation_report.txt in the repository root),
# killed / survived / timed-out counts and the kill rate per module, then the survivors' diffs.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-$REPO/.venv/bin/python}"
REPORT="${REPORT:-$REPO/mutation_report.txt}"
WORK="${WORK:-$(mktemp -d /tmp/treegym-mutation.XXXXXX)}"
MODULES=("$@")
[ ${#MODULES[@]} -gt 0 ] || MODULES=(elo astar mcts tot dfsdt)

"$PY" -c 'import mutmut' 2>/dev/null || { echo "mutation_check.sh: install mutmut 2.x first: $PY -m pip install 'mutmut<3'" >&2; exit 1; }
MUTMUT="$(dirname "$PY")/mutmut"

# the tests that guard each module (fast: no Game-of-24 pass rates)
tests_for() {
    case "$1" in
        elo)   echo "tests/test_policy_elo.py tests/test_elo.py -k 'not solves and not budget and not leaves and not same_seed and not answer_follows and not final_code'" ;;
        astar) echo "tests/test_policy_astar.py tests/test_astar.py -k 'lcs or cost or memory_scores or bad_weights'" ;;
        mcts)  echo "tests/test_policy_mcts.py tests/test_mcts.py -k uct_by_hand" ;;
        tot)   echo "tests/test_policy_tot.py" ;;
        dfsdt) echo "tests/test_policy_dfsdt.py" ;;
        *) echo "mutation_check.sh: unknown module $1 (elo astar mcts tot dfsdt)" >&2; exit 1 ;;
    esac
}

echo "copying the repository to $WORK"
mkdir -p "$WORK/repo" "$WORK/pkgroot/treegym"
(cd "$REPO" && tar cf - --exclude=.venv --exclude=.git --exclude=runs --exclude=__pycache__ --exclude=.mutmut-cache .) \
    | (cd "$WORK/repo" && tar xf -)
for f in envs agents servers scripts; do ln -sfn "$WORK/repo/$f" "$WORK/pkgroot/treegym/$f"; done
touch "$WORK/pkgroot/treegym/__init__.py"
cd "$WORK/repo"
export PYTHONPATH="$WORK/pkgroot"
"$PY" -c 'import treegym.agents.search.elo as m, sys; sys.exit(not m.__file__.startswith(sys.argv[1]))' "$WORK" \
    || { echo "mutation_check.sh: the copy is not what Python imports" >&2; exit 1; }

{ echo "== mutation check $(date -u +%Y-%m-%dT%H:%M:%SZ), mutmut $("$PY" -c 'import mutmut; print(mutmut.__version__)')"; } | tee -a "$REPORT"
for m in "${MODULES[@]}"; do
    tests="$(tests_for "$m")"
    rm -f .mutmut-cache
    echo "-- $m: agents/search/$m.py against: $tests" | tee -a "$REPORT"
    set +e
    "$MUTMUT" run --paths-to-mutate "agents/search/$m.py" --tests-dir tests \
        --runner "$PY -m pytest -x -q -p no:cacheprovider -p no:randomly $tests" --no-progress > "$WORK/$m.log" 2>&1
    set -e
    "$MUTMUT" results > "$WORK/$m.results" 2>&1 || true
    "$PY" - "$WORK/$m.results" "$m" <<'EOF' | tee -a "$REPORT"
import re, sys, sqlite3
con = sqlite3.connect(".mutmut-cache")
rows = con.execute("select status, count(*) from Mutant group by status").fetchall()
counts = dict(rows)
killed = counts.get("ok_killed", 0)
total = sum(counts.values()) - counts.get("untested", 0)
rate = 100.0 * killed / total if total else 0.0
print(f"{sys.argv[2]}: {killed}/{total} killed ({rate:.1f} %); by status: {counts}")
EOF
    "$PY" - "$m" <<'EOF' >> "$WORK/$m.survivors"
import sqlite3, subprocess, sys, os
con = sqlite3.connect(".mutmut-cache")
ids = [r[0] for r in con.execute("select id from Mutant where status != 'ok_killed' order by id")]
mutmut = os.path.join(os.path.dirname(sys.executable), "mutmut")
for i in ids:
    print(subprocess.run([mutmut, "show", str(i)], capture_output=True, text=True).stdout)
EOF
    echo "   survivors (diffs): $WORK/$m.survivors" | tee -a "$REPORT"
done
