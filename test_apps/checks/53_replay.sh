#!/usr/bin/env bash
# test_apps/checks/53_replay.sh - replaying one logged call:
# `costa_shim_report.py replay` + test_apps/bench/replay_call.
# For (a) pdgemr2d_ (bench_gemr2d case e) and (b) pdtran_ (bench_tran case
# e), each on 2 ranks:
#   1. the benchmark runs under the shim with COSTA_SHIM_VERBOSE=1 and
#      COSTA_SHIM_LOG_FILE=<dir>/trace.%r.log;
#   2. `replay <dir>/trace.0.log --seq S` (S = the routine's first engine
#      call on rank 0) prints the command line; it must be
#      "$MPIEXEC -n N replay_call ARGS...";
#   3. replay_call ARGS runs natively (no preload; a trace file the run
#      would write if the shim were loaded must not appear) and under the
#      shim with a trace;
# and requires: both runs exit 0 and print the same digest on their
# "replay <routine> m <m> n <n> ..." line, and every line of the shim
# run's rank-0 trace (one per repetition) repeats the logged call: the
# same routine, m, n, alpha/beta, offsets, descriptors but for CTXT and
# LLD, grids and path.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT,
# CS_TOP.
set -uo pipefail
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
top=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=$top/scripts/costa_shim_report.py
replay=$BUILD_DIR/t/bench/replay_call
for f in "$BUILD_DIR/t/bench/bench_gemr2d" "$BUILD_DIR/t/bench/bench_tran" \
         "$replay" "$CS_SHIM" "$tool"; do
    [ -f "$f" ] || { echo "FAIL: $f not found"; exit 1; }
done
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"
export OMP_NUM_THREADS=1
REPS=3
fails=0

report() {   # report ok|FAIL text
    echo "$1  $2"
    [ "$1" = ok ] || fails=$((fails + 1))
}

# digest FILE: the digest of the replay line in FILE
digest() {
    awk '$1 == "replay" { for (i = 2; i < NF; i++)
                              if ($i == "digest") print $(i + 1) }' "$1"
}

# same_call LOGGED_TRACE SEQ REPLAY_TRACE: every line of REPLAY_TRACE is
# the logged call of rank 0 / SEQ (CTXT and LLD aside); REPS lines
same_call() {
    "$PYTHON" - "$tool" "$@" "$REPS" <<'EOF'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("rep", sys.argv[1])
rep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rep)
logged, seq, replayed, reps = sys.argv[2], int(sys.argv[3]), sys.argv[4], \
    int(sys.argv[5])

def recs(path):
    out = []
    for line in open(path):
        r = rep.parse_trace_line(line)
        if r is not None:
            out.append(r)
    return out

KEYS = ["routine", "uplo", "diag", "trans", "m", "n", "alpha", "beta",
        "ia", "ja", "ib", "jb", "ic", "jc", "gridA", "gridB", "path"]

def key(r):
    k = {x: r.get(x) for x in KEYS}
    for d in ("descA", "descB", "descC"):
        if d in r:   # CTXT and LLD are the run's own
            v = r[d].split(",")
            k[d] = v[:1] + v[2:-1]
    return k

want = [r for r in recs(logged) if r["r"] == 0 and r["seq"] == seq]
if len(want) != 1:
    sys.exit("no single line with seq %d in %s" % (seq, logged))
want = key(want[0])
got = [r for r in recs(replayed) if r["r"] == 0]
if len(got) != reps:
    sys.exit("%d trace lines in %s, expected %d" % (len(got), replayed, reps))
for r in got:
    if key(r) != want:
        sys.exit("replayed call differs:\n  logged   %s\n  replayed %s"
                 % (want, key(r)))
print("%s m:%s n:%s descA:%s gridA:%s gridB:%s path:%s, %d lines" % (
    want["routine"], want["m"], want["n"], ",".join(want["descA"]),
    want["gridA"], want["gridB"], want["path"], len(got)))
EOF
}

# one_case TAG BENCH ROUTINE
one_case() {
    local tag=$1 bench=$2 routine=$3
    local dir=$CS_OUT/$routine
    mkdir -p "$dir"
    # 1. the logged run
    if ! COSTA_SHIM_VERBOSE=1 COSTA_SHIM_LOG_FILE="$dir/trace.%r.log" \
            timeout -k 5 60 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" \
            "$BUILD_DIR/t/bench/$bench" --cases e --reps 3 \
            > "$dir/bench.out" 2>&1; then
        report FAIL "($tag) $bench under the shim failed:"
        tail -n 5 "$dir/bench.out"
        return
    fi
    local seq
    seq=$(awk -v r="$routine" '$4 == r && / path:engine / {
              sub("^seq:", "", $3); print $3; exit }' "$dir/trace.0.log")
    if [ -z "$seq" ]; then
        report FAIL "($tag) no engine call of $routine in $dir/trace.0.log"
        return
    fi
    # 2. the command line
    if ! "$PYTHON" "$tool" replay "$dir/trace.0.log" --seq "$seq" \
            --mpiexec "$MPIEXEC" --app "$replay" \
            > "$dir/cmd.txt" 2> "$dir/cmd.err"; then
        report FAIL "($tag) replay failed: $(cat "$dir/cmd.err")"
        return
    fi
    local cmd np
    cmd=$(cat "$dir/cmd.txt")
    eval "set -- $cmd"
    if [ "$#" -lt 6 ] || [ "$1" != "$MPIEXEC" ] || [ "$2" != -n ] ||
            [ "$4" != "$replay" ] || [ "$5" != --routine ] ||
            [ "$6" != "$routine" ]; then
        report FAIL "($tag) unexpected command line: $cmd"
        return
    fi
    np=$3
    shift 4
    # 3. native, then under the shim
    env -u LD_PRELOAD COSTA_SHIM_VERBOSE=1 \
        COSTA_SHIM_LOG_FILE="$dir/native.%r.log" \
        timeout -k 5 60 "$MPIEXEC" -n "$np" "$replay" "$@" --reps "$REPS" \
        > "$dir/native.out" 2> "$dir/native.err"
    local rc_n=$?
    COSTA_SHIM_VERBOSE=1 COSTA_SHIM_LOG_FILE="$dir/replay.%r.log" \
        timeout -k 5 60 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD" \
        "$replay" "$@" --reps "$REPS" > "$dir/shim.out" 2> "$dir/shim.err"
    local rc_s=$?
    if [ "$rc_n" -ne 0 ] || [ "$rc_s" -ne 0 ]; then
        report FAIL "($tag) replay_call exited $rc_n natively, $rc_s under the shim"
        tail -n 5 "$dir/native.err" "$dir/shim.err"
        return
    fi
    if ls "$dir"/native.*.log > /dev/null 2>&1; then
        report FAIL "($tag) the native run wrote a shim trace: not native"
        return
    fi
    local dn ds
    dn=$(digest "$dir/native.out")
    ds=$(digest "$dir/shim.out")
    if [ -z "$dn" ] || [ "$dn" != "$ds" ]; then
        report FAIL "($tag) digests differ: native '$dn', shim '$ds'"
        cat "$dir/native.out" "$dir/shim.out"
        return
    fi
    if ! grep -Eq "^replay $routine m [0-9]+ n [0-9]+ .*median_ms [0-9.]+ " \
            "$dir/shim.out"; then
        report FAIL "($tag) no replay line: $(cat "$dir/shim.out")"
        return
    fi
    local same
    if ! same=$(same_call "$dir/trace.0.log" "$seq" "$dir/replay.0.log" 2>&1)
    then
        report FAIL "($tag) $same"
        return
    fi
    report ok "($tag) seq $seq replayed on $np ranks, digest $dn native = shim; trace: $same"
    echo "    native: $(cut -d' ' -f1-18 "$dir/native.out")"
    echo "    shim:   $(cut -d' ' -f1-18 "$dir/shim.out")"
}

one_case a bench_gemr2d pdgemr2d_
one_case b bench_tran pdtran_

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all ok"
