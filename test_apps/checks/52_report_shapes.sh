#!/usr/bin/env bash
# test_apps/checks/52_report_shapes.sh - the report's shape table does not
# depend on the number of ranks nor on MPI's reduction tree.
#
# report_shapes (test_apps/scalapack/report_shapes.c) makes the same calls
# of two pdgemr2d_ shapes on every P, each between 1 x 1 grids, so that on
# P > 1 some ranks know only A's blocks, some only B's and one both (the
# ranks that know one operand each meet first in a binomial reduction on 3
# and 4 ranks).  Run on 1, 2, 3 and 4 ranks under the shim with
# COSTA_SHIM_STATS=full, on the engine and with COSTA_SHIM_FALLBACK=always
# (no grids in the key then).  For every P the JSON shape table (routine,
# m, n, mbA, nbA, mbB, nbB, gridA, gridB, calls / P) must equal the one of
# 1 rank, which must be the two shapes 16x16 -> 1x1 and 1x1 -> 16x16 with
# 2R calls per rank each, and the text report's shape table must have two
# pdgemr2d_ rows.  (Before the shape merge was keyed on exact identities,
# 3 and 4 ranks gave 4 rows: a row of one operand's blocks and a row of the
# other's were kept apart, then the whole row folded into one of them.)
# Last, on 3 ranks with both shapes n x n (--n2): the calls of ranks that
# know neither operand's blocks could be either shape, so they stay one
# row of unknown blocks (6R calls) beside the two shapes (3R calls each).
# Runs with more ranks than cores use yield_preload.so (after the shim).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/report_shapes
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$app" "$CS_SHIM" "$yield"
cs_fresh_dir "$CS_OUT"
ncores=$(nproc 2>/dev/null || echo 2)
export OMP_NUM_THREADS=1
R=3
fails=0

for mode in engine always; do
    fb=auto
    [ "$mode" = always ] && fb=always
    dirs=()
    for np in 1 2 3 4; do
        d=$CS_OUT/$mode.$np
        mkdir -p "$d"
        pre=$CS_PRELOAD
        [ "$np" -gt "$ncores" ] && pre=$pre:$yield
        rc=0
        COSTA_SHIM_STATS=full COSTA_SHIM_STATS_DIR="$d" \
            COSTA_SHIM_FALLBACK=$fb COSTA_SHIM_MIN_ELEMS=0 \
            timeout -k 5 120 "$MPIEXEC" -n "$np" env LD_PRELOAD="$pre" \
            "$app" --reps "$R" > "$d/stdout.txt" 2> "$d/stderr.txt" || rc=$?
        if [ "$rc" -ne 0 ] ||
           [ "$(tail -n 1 "$d/stdout.txt")" != "cs_test: OK" ]; then
            cs_report FAIL "$mode, $np ranks: report_shapes exited $rc"
            tail -n 5 "$d/stderr.txt" | sed 's/^/      | /'
            continue
        fi
        dirs+=("$np:$d")
    done
    if "$PYTHON" - "$R" "$mode" "${dirs[@]}" <<'EOF'
import glob, json, os, sys
R, mode, runs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
keys = ("routine", "m", "n", "mbA", "nbA", "gridA", "mbB", "nbB", "gridB")
bad, tables = [], {}
for run in runs:
    np, d = run.split(":", 1)
    np = int(np)
    rep = json.load(open(glob.glob(os.path.join(d, "costa_shim.*.json"))[0]))
    rows = [s for s in rep["shapes"] if s["routine"] == "pdgemr2d_"]
    # unknown blocks are null in the JSON: -1 here, so rows sort
    t = sorted(tuple(-1 if s[k] is None else s[k] for k in keys) +
               ((s["calls"] // np) if s["calls"] % np == 0
                else "%d/%d" % (s["calls"], np),)
               for s in rows)
    tables[np] = t
    print("%s, %d ranks: %s" % (mode, np, t))
    txt = open(glob.glob(os.path.join(d, "costa_shim.*.txt"))[0]).read()
    sec = txt.split("@--- Top call shapes", 1)[-1].split("@---", 1)[0]
    n = len([l for l in sec.splitlines() if " pdgemr2d_ " in l])
    if n != 2:
        bad.append("%d ranks: text shape table has %d pdgemr2d_ rows, "
                   "want 2" % (np, n))
if 1 not in tables:
    bad.append("no table of 1 rank")
else:
    got = sorted((t[3:5] + t[6:8], t[-1]) for t in tables[1])
    want = sorted([((16, 16, 1, 1), 2 * R), ((1, 1, 16, 16), 2 * R)])
    if got != want:
        bad.append("1 rank: shapes %s, want %s" % (got, want))
    for np, t in sorted(tables.items()):
        if t != tables[1]:
            bad.append("%d ranks: the table differs from 1 rank's" % np)
if len(tables) != 4:
    bad.append("only %d of 4 runs finished" % len(tables))
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
EOF
    then
        cs_report ok "$mode: the same two shapes of 2R calls per rank on 1-4 ranks"
    else
        cs_report FAIL "$mode: the shape table depends on the number of ranks"
    fi
done

d=$CS_OUT/ambiguous
mkdir -p "$d"
pre=$CS_PRELOAD
[ 3 -gt "$ncores" ] && pre=$pre:$yield
rc=0
COSTA_SHIM_STATS=full COSTA_SHIM_STATS_DIR="$d" COSTA_SHIM_MIN_ELEMS=0 \
    timeout -k 5 120 "$MPIEXEC" -n 3 env LD_PRELOAD="$pre" \
    "$app" --reps "$R" --n2 60 > "$d/stdout.txt" 2> "$d/stderr.txt" || rc=$?
if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$d/stdout.txt")" != "cs_test: OK" ]; then
    cs_report FAIL "ambiguous: report_shapes exited $rc"
    tail -n 5 "$d/stderr.txt" | sed 's/^/      | /'
elif "$PYTHON" - "$R" "$d" <<'EOF'
import glob, json, os, sys
R, d = int(sys.argv[1]), sys.argv[2]
rep = json.load(open(glob.glob(os.path.join(d, "costa_shim.*.json"))[0]))
blk = lambda v: -1 if v is None else v
got = sorted(((blk(s["mbA"]), blk(s["nbA"]), blk(s["mbB"]), blk(s["nbB"])),
              s["calls"]) for s in rep["shapes"]
             if s["routine"] == "pdgemr2d_")
want = sorted([((16, 16, 1, 1), 3 * R), ((1, 1, 16, 16), 3 * R),
               ((-1, -1, -1, -1), 6 * R)])
print("ambiguous, 3 ranks: %s" % got)
if got != want:
    print("FAIL shapes %s, want %s" % (got, want))
sys.exit(got != want)
EOF
then
    cs_report ok "ambiguous: calls of unknown blocks stay a row of their own"
else
    cs_report FAIL "ambiguous: rows of unknown blocks went to one shape"
fi
exit $((fails > 0))
