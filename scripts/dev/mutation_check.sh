#!/usr/bin/env bash
# Mutation testing of the search algorithms and baselines (not part of CI: tens of minutes on 2 cores).
#
#   scripts/dev/mutation_check.sh [MODULE ...]
#
# MODULE: elo astar mcts lats tot dfsdt sequences (agents/search/<MODULE>.py),
# baselines (agents/baselines/react.py), attempt_baselines (agents/baselines/attempts.py); default: all eight, one after the other.
# On a shared machine run one module at a time (each run replaces $WORK's results; REPORT
# names the report file), e.g.  REPORT=mutation_mcts.txt scripts/dev/mutation_check.sh mcts
#
# mutmut (>= 3, from PyPI) mutates the module one change at a time and runs, per mutant, the
# tests of the selection below that execute the mutated function (mutmut's own per-function
# coverage); a mutant is killed when a test fails. The selection is every test file that
# targets the search and baseline policies (SEARCH_TESTS), without tests marked slow or
# browser; CHILDREN (default 1) is mutmut's number of parallel workers.
#
# mutmut needs the import name to match the file path, and treegym installs its top-level
# folders as treegym.<folder> (setup.py), so the work happens in a throwaway copy laid out as
# treegym/<folder>/ with its own virtual environment ($WORK/venv: mutmut, pytest and the core
# dependencies, and rapidfuzz so that A*'s rapidfuzz branch is mutated too; the policy tests cover the
# pure-Python fallback by hiding rapidfuzz; treegym itself is imported from the copy). The working tree
# is never touched.
#
# Writes $REPORT (default: mutation_report.txt in the repository root): per module the
# killed / survived / no-tests counts and the kill rate, then every survivor's diff.
#
# RERUN=1 scripts/dev/mutation_check.sh: after changing only tests, copy them into the existing
# $WORK and re-check just the mutants that were not killed (the source must be unchanged).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
REPORT="${REPORT:-$REPO/mutation_report.txt}"
WORK="${WORK:-/tmp/treegym-mutation}"
CHILDREN="${CHILDREN:-1}"
MODULES=("$@")
[ ${#MODULES[@]} -gt 0 ] || MODULES=(dfsdt tot sequences astar mcts lats elo baselines attempt_baselines)
module_path() {  # the module's path under the repository (and under treegym/ in the copy)
    case "$1" in
        elo|astar|mcts|lats|tot|dfsdt|sequences) echo "agents/search/$1.py" ;;
        baselines) echo "agents/baselines/react.py" ;;
        attempt_baselines) echo "agents/baselines/attempts.py" ;;
        *) echo "mutation_check.sh: unknown module $1 (elo astar mcts lats tot dfsdt sequences baselines attempt_baselines)" >&2; return 1 ;;
    esac
}
for m in "${MODULES[@]}"; do module_path "$m" > /dev/null || exit 1; done
# Every test file that targets the search and baseline policies (one file per algorithm: the policy on
# hand-built trees with scripted models and on real envs with the synthetic model), paths under tests/.
SEARCH_TESTS=(agents/search/test_{elo,astar,mcts,lats,radagent_mcts,tot,dfsdt,search_options,snapshot_store,search_framework,search_defaults}.py
              agents/baselines/test_{baselines,attempts}.py)

if [ ! -x "$WORK/venv/bin/mutmut" ]; then
    echo "creating $WORK/venv with mutmut"
    "$PYTHON" -m venv "$WORK/venv"
    "$WORK/venv/bin/pip" install -q "mutmut>=3,<4" pytest gymnasium numpy openai tqdm filelock rapidfuzz
fi

copy_tests() {  # $1: destination tests folder
    mkdir -p "$1"
    (cd "$REPO/tests" && tar cf - --exclude=__pycache__ support fixtures conftest.py \
        $(for f in ${SEARCH_TESTS[@]}; do [ -e "$f" ] && echo "$f"; done)) | (cd "$1" && tar xf -)
}

if [ "${RERUN:-0}" = 1 ]; then
    [ -d "$WORK/tree/mutants" ] || { echo "mutation_check.sh: RERUN=1 needs a finished run in $WORK" >&2; exit 1; }
    for m in "${MODULES[@]}"; do
        f="$(module_path "$m")"
        cmp -s "$REPO/$f" "$WORK/tree/treegym/$f" \
            || { echo "mutation_check.sh: $f changed since the run; run without RERUN" >&2; exit 1; }
    done
    copy_tests "$WORK/tree/tests"
    copy_tests "$WORK/tree/mutants/tests"
    rm -f "$WORK/tree/mutants/mutmut-stats.json"
    cd "$WORK/tree"
    mapfile -t again < <("$WORK/venv/bin/mutmut" results 2>/dev/null | grep -v ": killed" | sed -E 's/^ *([^:]+):.*/\1/')
    echo "re-checking ${#again[@]} mutants with the current tests"
    set +e
    "$WORK/venv/bin/mutmut" run --max-children "$CHILDREN" "${again[@]}" > "$WORK/rerun.log" 2>&1
    set -e
else
echo "copying the repository to $WORK/tree"
rm -rf "$WORK/tree"
mkdir -p "$WORK/tree/treegym" "$WORK/tree/tests"
for f in agents envs servers scripts; do
    (cd "$REPO" && tar cf - --exclude=__pycache__ "$f") | (cd "$WORK/tree/treegym" && tar xf -)
done
copy_tests "$WORK/tree/tests"
cd "$WORK/tree"
sources=""
for m in "${MODULES[@]}"; do sources="$sources
    treegym/$(module_path "$m")"; done
cat > setup.cfg <<EOF
[mutmut]
source_paths =$sources
also_copy = treegym
pytest_add_cli_args_test_selection =
    tests/
pytest_add_cli_args =
    -p
    no:cacheprovider
    -m
    not slow and not browser
EOF
printf '[pytest]\ntestpaths = tests\nmarkers =\n    slow: slow\n    browser: browser\n' > pytest.ini

set +e
"$WORK/venv/bin/mutmut" run --max-children "$CHILDREN" > "$WORK/run.log" 2>&1
status=$?
set -e
[ $status -eq 0 ] || echo "mutmut run exited with $status (see $WORK/run.log); reporting what it finished"
fi

"$WORK/venv/bin/mutmut" results --all true > "$WORK/results.txt" 2>&1 || "$WORK/venv/bin/mutmut" results > "$WORK/results.txt" 2>&1
"$WORK/venv/bin/python" - "$REPORT" "$WORK" "${MODULES[@]}" <<'EOF'
import collections, re, subprocess, sys
report, work, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(f"{work}/results.txt").read().splitlines()
# A mutant that makes a test hang (mutmut stops it at its timeout) is detected: the test did not pass.
DETECTED = ("killed", "timeout")
status = {}
for line in lines:
    m = re.match(r"\s*(treegym\.agents\.(?:search\.)?(\w+)\.\S+): (.+)$", line)
    if m:
        status[m.group(1)] = (m.group(2), m.group(3).strip())
out = [f"mutation check of {', '.join(modules)} with mutmut; tests: every search and baseline policy test "
       "file, not slow (SEARCH_TESTS in scripts/dev/mutation_check.sh)", ""]
survivors = []
for mod in modules:
    counts = collections.Counter(s for k, (m, s) in status.items() if m == mod)
    killed = sum(counts.get(s, 0) for s in DETECTED)
    total = sum(v for s, v in counts.items() if s != "not checked")
    rate = 100.0 * killed / total if total else 0.0
    out.append(f"{mod}.py: {killed}/{total} mutants killed = {rate:.1f} %  ({dict(counts)})")
    survivors += [k for k, (m, s) in status.items() if m == mod and s not in DETECTED + ("not checked",)]
allc = collections.Counter(s for _, s in status.values())
total = sum(v for s, v in allc.items() if s != "not checked")
killed = sum(allc.get(s, 0) for s in DETECTED)
out.append(f"all: {killed}/{total} killed = {100.0 * killed / max(1, total):.1f} %")
out += ["", f"survivors ({len(survivors)}):", ""]
mutmut = f"{work}/venv/bin/mutmut"
for k in survivors:
    diff = subprocess.run([mutmut, "show", k], capture_output=True, text=True, cwd=f"{work}/tree").stdout
    changed = [ln for ln in diff.splitlines() if ln[:2] in ("- ", "+ ")]
    out.append(f"{k} [{status[k][1]}]")
    out += ["    " + ln for ln in changed]
open(report, "w").write("\n".join(out) + "\n")
print("\n".join(out[: len(modules) + 4]))
print(f"wrote {report}")
EOF
