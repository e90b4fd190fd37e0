#!/usr/bin/env bash
# test_apps/checks/52_report_shapes.sh - the report's shape table keeps
# apart calls whose processes sit outside one operand's grid.
#
# report_shapes (test_apps/scalapack/report_shapes.c, 2 ranks) calls
# pdgemr2d_ R times from a 1 x 2 grid (16 x 16 blocks) to a 1 x 1 grid of
# rank 0 (1 x 1 blocks), then R times back; rank 1 is outside the 1 x 1
# grid both times, so it knows only one operand's blocks per call.  Run
# under the shim with COSTA_SHIM_STATS=full on the engine and with
# COSTA_SHIM_FALLBACK=always (no grids in the key then).  In both, the
# JSON shape table has exactly two pdgemr2d_ shapes, 16x16 -> 1x1 and
# 1x1 -> 16x16, each with 2R calls (R per rank), and the text report's
# shape table two pdgemr2d_ rows.  (Before the fix, the fallback run
# merged rank 1's two shapes into one 16x16 -> 16x16 row.)
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/report_shapes
cs_need_files "$app" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
export OMP_NUM_THREADS=1
R=3
fails=0

for mode in engine always; do
    d=$CS_OUT/$mode
    mkdir -p "$d"
    fb=auto
    [ "$mode" = always ] && fb=always
    rc=0
    COSTA_SHIM_STATS=full COSTA_SHIM_STATS_DIR="$d" COSTA_SHIM_FALLBACK=$fb \
        timeout -k 5 60 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" "$app" \
        --reps "$R" > "$d/stdout.txt" 2> "$d/stderr.txt" || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$d/stdout.txt")" != "cs_test: OK" ]; then
        cs_report FAIL "$mode: report_shapes exited $rc"
        tail -n 5 "$d/stderr.txt" | sed 's/^/      | /'
        continue
    fi
    if "$PYTHON" - "$d" "$R" "$mode" <<'EOF'
import glob, json, os, sys
d, R, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
bad = []
rep = json.load(open(glob.glob(os.path.join(d, "costa_shim.*.json"))[0]))
got = sorted(((s["mbA"], s["nbA"], s["mbB"], s["nbB"]), s["calls"])
             for s in rep["shapes"] if s["routine"] == "pdgemr2d_")
want = sorted([((16, 16, 1, 1), 2 * R), ((1, 1, 16, 16), 2 * R)])
print("%s: pdgemr2d_ shapes %s" % (mode, got))
if got != want:
    bad.append("shapes %s, want %s" % (got, want))
txt = open(glob.glob(os.path.join(d, "costa_shim.*.txt"))[0]).read()
sec = txt.split("@--- Top call shapes", 1)[-1].split("@---", 1)[0]
rows = [l for l in sec.splitlines() if " pdgemr2d_ " in l]
if len(rows) != 2:
    bad.append("text shape table has %d pdgemr2d_ rows, want 2" % len(rows))
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
EOF
    then
        cs_report ok "$mode: the two directions are two shapes of $((2 * R)) calls"
    else
        cs_report FAIL "$mode: the shape table merged calls of different shapes"
    fi
done
exit $((fails > 0))
