#!/usr/bin/env bash
# test_apps/checks/52_verify.sh - COSTA_SHIM_VERIFY=1: every engine call
# is checked against ScaLAPACK and the difference is reported.
#
# Three programs on 2 ranks with COSTA_SHIM_VERIFY=1, COSTA_SHIM_VERBOSE=1
# (trace per rank) and COSTA_SHIM_STATS=summary:
#   report_truth            pdgemr2d_/Cpdgemr2d, one small fallback
# and, with COSTA_SHIM_MIN_ELEMS=0 (everything on the engine),
#   gemr2d_sweep  (150)     p?gemr2d in all types, grids, sub-grids and
#                           processes outside A's or B's grid, M/N = 0
#   tran_sweep    (150)     p?tran*, p?geadd, p?tradd, p?trmr2d, all types
# For each: the program's own checks pass (the application keeps the
# engine's result); an engine trace line carries maxdiff:0.0e+00 when its
# rank compared something (a rank that owns nothing of sub(B)'s local
# array compares nothing and counts nothing), no other line has maxdiff,
# and most engine lines do; the text report's "@ Verify" line says "<N>
# calls checked, max difference 0.0e+00" with N = the trace lines with
# maxdiff of both ranks, and the JSON's meta.verify agrees.
# For report_truth also: the routine rows equal those of a run without
# VERIFY (the check's own nested calls are not counted).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
sca=$BUILD_DIR/t/scalapack
for f in "$sca/report_truth" "$sca/gemr2d_sweep" "$sca/tran_sweep" \
         "$CS_SHIM"; do
    [ -e "$f" ] || { echo "FAIL: $f not found (make test_apps)"; exit 1; }
done
cs_fresh_dir "$CS_OUT"
export OMP_NUM_THREADS=1
fails=0

# run NAME VERIFY APP ARGS...: the program under the shim into CS_OUT/NAME
# (COSTA_SHIM_MIN_ELEMS=$min, 100 unless set)
run() {
    local name=$1 verify=$2 dir=$CS_OUT/$1 rc=0
    shift 2
    mkdir -p "$dir"
    COSTA_SHIM_VERIFY=$verify COSTA_SHIM_VERBOSE=1 \
        COSTA_SHIM_LOG_FILE="$dir/trace.%r.log" COSTA_SHIM_STATS=summary \
        COSTA_SHIM_STATS_DIR="$dir" COSTA_SHIM_MIN_ELEMS="${min:-100}" \
        timeout -k 5 120 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" "$@" \
        > "$dir/stdout.txt" 2> "$dir/stderr.txt" || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$dir/stdout.txt")" != "cs_test: OK" ]
    then
        echo "FAIL  $name: exited $rc or its own checks failed"
        tail -n 5 "$dir/stderr.txt"
        fails=$((fails + 1))
        return 1
    fi
}

# verified NAME: the trace, text and JSON of CS_OUT/NAME agree on "all 0"
verified() {
    "$PYTHON" - "$CS_OUT/$1" <<'EOF'
import glob, json, os, re, sys
d = sys.argv[1]
errors = []
engine = checked = 0
for path in sorted(glob.glob(os.path.join(d, "trace.*.log"))):
    for line in open(path):
        if not line.startswith("COSTA_SHIM r:"):
            continue
        md = re.findall(r" maxdiff:(\S+)", line)
        if " path:engine " in line:
            engine += 1
            checked += len(md)
            if md not in ([], ["0.0e+00"]):
                errors.append("engine line with maxdiff %s: %s"
                              % (md, line[:160]))
        elif md:
            errors.append("non-engine line with maxdiff: %s" % line[:160])
rep = json.load(open(glob.glob(os.path.join(d, "*.json"))[0]))
calls = sum(r["calls"] for r in rep["routines"] if r["path"] == "engine")
txt = open(glob.glob(os.path.join(d, "costa_shim.*.txt"))[0]).read()
want = "@ Verify         : %d calls checked, max difference 0.0e+00" % checked
if want not in txt.splitlines():
    errors.append("text has %r, expected %r"
                  % (re.findall(r"^@ Verify.*", txt, re.M), want))
if engine == 0 or calls != engine or 2 * checked < engine:
    errors.append("%d engine trace lines (%d checked), %d engine calls in "
                  "the JSON" % (engine, checked, calls))
if rep["meta"].get("verify") != {"calls": checked, "max_diff": 0}:
    errors.append("meta.verify %r" % rep["meta"].get("verify"))
for e in errors[:10]:
    print("  " + e)
if not errors:
    print("  %d engine calls, %d checks on the ranks that own part of "
          "the target, all identical" % (engine, checked))
sys.exit(1 if errors else 0)
EOF
}

check() {   # check NAME DESCRIPTION
    if verified "$1"; then
        echo "ok    $1: $2"
    else
        echo "FAIL  $1: $2"
        fails=$((fails + 1))
    fi
}

if run truth 1 "$sca/report_truth" --reps 3 &&
   run truth_plain 0 "$sca/report_truth" --reps 3; then
    check truth "maxdiff:0 on every engine call, @ Verify line and meta"
    if "$PYTHON" - "$CS_OUT" <<'EOF'
import glob, json, os, sys
def rows(name):
    rep = json.load(open(glob.glob(os.path.join(sys.argv[1], name,
                                                 "*.json"))[0]))
    return sorted((r["routine"], r["path"], r["reason"], r["calls"],
                   r["bytes_sent"], r["bytes_self"]) for r in rep["routines"])
a, b = rows("truth"), rows("truth_plain")
if a != b:
    sys.exit("  routines with VERIFY %s != without %s" % (a, b))
EOF
    then
        echo "ok    truth: routine rows as without VERIFY (no extra nested)"
    else
        echo "FAIL  truth: VERIFY changed the routine rows"
        fails=$((fails + 1))
    fi
fi
# (digest lines to files: on stdout, another rank's could come after the
# sentinel line of rank 0)
min=0 run gemr2d_sweep 1 "$sca/gemr2d_sweep" --seed 52 --count 150 \
    --digest "$CS_OUT/gemr2d_sweep.dig" &&
    check gemr2d_sweep "all types and grids"
min=0 run tran_sweep 1 "$sca/tran_sweep" --seed 52 --count 150 \
    --digest "$CS_OUT/tran_sweep.dig" &&
    check tran_sweep "transpose/add family and p?trmr2d"

exit $((fails > 0))
