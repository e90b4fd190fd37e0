#!/usr/bin/env bash
# test_apps/checks/33_tran_sweep.sh - differential sweep of the transpose
# family (p?tran/p?tranu/p?tranc, p?geadd, p?tradd, p?trmr2d_ and
# Cp?trmr2d) natively and under the shim, on 1..6 ranks.
#
# For every rank count the same tran_sweep configs run twice: natively and
# with LD_PRELOAD=$CS_SHIM COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0
# COSTA_SHIM_STATS=summary.  Each run must pass its own self-checks
# ("cs_test: OK": exact results, nothing outside sub(C) / the trapezoid
# touched, A unchanged); the per-config, per-rank digest lines and the
# "calls" lines of both runs must be identical; and the shim's JSON report
# must show every call on the engine path: only rows for these routines,
# path "engine", no reason, per-rank calls equal to the program's own count
# and zero fallbacks.  A second, separate set of configs (tran_sweep
# --replicated: RSRC and/or CSRC = -1) is run the same way and reported
# under its own name.  Runs with more ranks than cores use
# yield_preload.so (after the shim).
#
# Default: 520 configs + 100 replicated ones (about 2-3 min here);
# CS_CHECK_FULL=1 runs four times as many.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/tran_sweep
yield=$BUILD_DIR/t/lib/yield_preload.so
for f in "$app" "$yield"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"
ncores=$(nproc 2>/dev/null || echo 2)
mult=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && mult=4

# the routines this check may see in the shim's report
routine_re='^(C?p[sdczi]trmr2d_?|p[sd]tran_|p[cz]tran[uc]_|p[sdcz]geadd_|p[sdcz]tradd_)$'

# check_json DIR STDOUT: the shim's JSON report in DIR against the program's
# "calls <rank> <n>" lines.
check_json() {
    "$PYTHON" - "$1" "$2" "$routine_re" <<'EOF'
import glob, json, re, sys
d, out, rx = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
files = sorted(glob.glob(d + "/costa_shim.*.json"))
if len(files) != 1:
    print("  JSON report: expected 1 file in %s, found %d" % (d, len(files)))
    sys.exit(1)
rep = json.load(open(files[0]))
calls = {}
for line in open(out):
    p = line.split()
    if len(p) == 3 and p[0] == "calls":
        calls[int(p[1])] = int(p[2])
bad = []
if rep.get("meta", {}).get("partial"):
    bad.append("report is partial")
total = 0
for r in rep.get("routines", []):
    name, path, reason, n = r["routine"], r["path"], r["reason"], r["calls"]
    total += n
    if not rx.match(name):
        bad.append("unexpected routine row %s (%s, %d calls)" % (name, path, n))
    if path != "engine" or reason:
        bad.append("%s: %d calls on path %s reason '%s'" % (name, n, path, reason))
ranks = {k["rank"]: k for k in rep.get("ranks", [])}
if sorted(ranks) != sorted(calls):
    bad.append("ranks in report %s, in program output %s" % (sorted(ranks), sorted(calls)))
for rk, n in sorted(calls.items()):
    k = ranks.get(rk)
    if k is None:
        continue
    if k["calls"] != n:
        bad.append("rank %d: report counts %d calls, program made %d" % (rk, k["calls"], n))
    if k["fallbacks"]:
        bad.append("rank %d: %d fallbacks" % (rk, k["fallbacks"]))
if total != sum(calls.values()):
    bad.append("routine rows sum to %d calls, program made %d" % (total, sum(calls.values())))
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
}

fails=0
total_cfg=0
# run_pair LABEL NP COUNT SEED [extra tran_sweep args]
run_pair() {
    local label=$1 np=$2 count=$3 seed=$4
    shift 4
    local dir=$CS_OUT/$label
    mkdir -p "$dir/stats"
    local pre="" what="[$label] np=$np seed=$seed count=$count $*"
    [ "$np" -gt "$ncores" ] && pre=$yield
    local t0=$SECONDS rcn=0 rcs=0
    timeout 600 "$MPIEXEC" -n "$np" env ${pre:+LD_PRELOAD=$pre} \
        "$app" --seed "$seed" --count "$count" --digest "$dir/native.dig" "$@" \
        > "$dir/native.out" 2> "$dir/native.err" || rcn=$?
    local t1=$SECONDS
    timeout 600 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_SHIM${pre:+:$pre}" \
        COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$dir/stats" \
        "$app" --seed "$seed" --count "$count" --digest "$dir/shim.dig" "$@" \
        > "$dir/shim.out" 2> "$dir/shim.err" || rcs=$?
    local t2=$SECONDS
    total_cfg=$((total_cfg + count))
    local bad=()
    if [ "$rcn" -ne 0 ] || ! grep -q '^cs_test: OK' "$dir/native.out"; then
        bad+=("native run failed (exit $rcn)")
    fi
    if [ "$rcs" -ne 0 ] || ! grep -q '^cs_test: OK' "$dir/shim.out"; then
        bad+=("shim run failed (exit $rcs)")
    fi
    cat "$dir"/native.dig.* 2>/dev/null | sort > "$dir/native.digests"
    cat "$dir"/shim.dig.* 2>/dev/null | sort > "$dir/shim.digests"
    if [ ! -s "$dir/native.digests" ] ||
       ! cmp -s "$dir/native.digests" "$dir/shim.digests"; then
        local nd
        nd=$(diff "$dir/native.digests" "$dir/shim.digests" | grep -c '^<')
        bad+=("digests differ ($nd lines)")
    fi
    grep '^calls' "$dir/native.out" > "$dir/native.calls" || true
    grep '^calls' "$dir/shim.out" > "$dir/shim.calls" || true
    if [ ! -s "$dir/native.calls" ] ||
       ! cmp -s "$dir/native.calls" "$dir/shim.calls"; then
        bad+=("calls lines differ")
    fi
    if ! check_json "$dir/stats" "$dir/native.out" > "$dir/json.txt"; then
        bad+=("shim statistics")
    fi
    if [ "${#bad[@]}" -eq 0 ]; then
        echo "ok    $what (native $((t1 - t0))s, shim $((t2 - t1))s)"
    else
        fails=$((fails + 1))
        echo "FAIL  $what: $(IFS=,; echo "${bad[*]}") (native $((t1 - t0))s, shim $((t2 - t1))s)"
        sed 's/^/      /' "$dir/json.txt"
        diff "$dir/native.digests" "$dir/shim.digests" | grep '^[<>]' |
            head -n 6 | sed 's/^/      digest /'
        for s in native shim; do
            grep -v '^classify' "$dir/$s.err" | grep -v '^ *$' | head -n 8 |
                sed "s/^/      $s stderr: /"
        done
    fi
}

# label np count seed; counts chosen for about 2-3 minutes on 2 cores
run_pair np1 1 $((150 * mult)) 3301
run_pair np2 2 $((150 * mult)) 3302
run_pair np3 3 $((80 * mult)) 3303
run_pair np4 4 $((60 * mult)) 3304
run_pair np5 5 $((40 * mult)) 3305
run_pair np6 6 $((40 * mult)) 3306
main_cfg=$total_cfg
run_pair replicated-np2 2 $((60 * mult)) 3402 --replicated
run_pair replicated-np4 4 $((40 * mult)) 3404 --replicated

echo
echo "$main_cfg configs + $((total_cfg - main_cfg)) replicated configs (RSRC/CSRC = -1)"
if [ "$fails" -ne 0 ]; then
    echo "$fails run pair(s) failed"
    exit 1
fi
echo "native and shim agree on every config"
