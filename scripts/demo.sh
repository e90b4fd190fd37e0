#!/usr/bin/env bash
# scripts/demo.sh - run by `make demo`: the first thing to show a new user.
# Runs one test application (bench_gemr2d --demo: a 4000x4000 pdgemr2d_
# redistribution from 36x36 to 128x128 blocks on a 1x2 grid, called 20 times
# as an application would) twice on 2 ranks: natively, then with
# libcosta_shim.so preloaded, COSTA_SHIM_STATS=summary (the shim prints its
# end-of-run summary on rank 0's stderr and writes report files to
# demo_out/) and COSTA_SHIM_VERBOSE=1 (one trace line per call into
# demo_out/trace.<rank>.log).  Prints both times and the speed-up, then turns
# the JSON report and the traces into demo_out/report.html with
# scripts/costa_shim_report.py plot.  Takes well under a minute.
# Environment (from make): MPIEXEC, BUILD_DIR (relative to the top), PYTHON.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
PYTHON=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build/release}
case "$BUILD_DIR" in /*) bdir=$BUILD_DIR ;; *) bdir=$top/$BUILD_DIR ;; esac
bin=$bdir/t/bench/bench_gemr2d
shim=$top/libcosta_shim.so
calls=20
limit=120   # seconds per run, a safety net only

for f in "$bin" "$shim"; do
    if [ ! -e "$f" ]; then
        echo "demo.sh: $f not found; run 'make demo' (it builds first)" >&2
        exit 1
    fi
done

cd "$top"
mkdir -p demo_out
rm -f demo_out/trace.*.log demo_out/report.html
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

# run LABEL [VAR=value...]: runs the demo app with those variables set, shows
# its stdout (indented, copy in demo_out/LABEL.out) and stores the elapsed
# seconds in $elapsed.  stderr (the shim's summary) goes straight through.
run() {
    local label=$1 log=demo_out/$1.out
    shift
    echo "-- $label: ${*:+$* }$MPIEXEC -n 2 ${bin#"$top"/} --demo --calls $calls"
    if ! timeout "$limit" env "$@" "$MPIEXEC" -n 2 "$bin" --demo \
            --calls "$calls" | tee "$log" | sed -u 's/^/   /'; then
        echo "demo.sh: $label run failed" >&2
        exit 1
    fi
    elapsed=$(sed -n 's/^demo: .*elapsed_s:\([0-9.]*\).*/\1/p' "$log")
    if [ -z "$elapsed" ] || ! grep -q 'check:OK' "$log"; then
        echo "demo.sh: $label run gave no time or a wrong result" >&2
        exit 1
    fi
}

echo "== costa-shim demo: the same ScaLAPACK program, natively and under" \
     "the shim (OMP_NUM_THREADS=$OMP_NUM_THREADS)"
run native
t_native=$elapsed
run costa-shim LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" \
    COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=demo_out/ \
    COSTA_SHIM_VERBOSE=1 COSTA_SHIM_LOG_FILE=demo_out/trace.%r.log
t_shim=$elapsed

echo
echo "native: $t_native s"
echo "costa-shim: $t_shim s"
awk -v a="$t_native" -v b="$t_shim" \
    'BEGIN { if (b > 0) printf "speed-up: %.2fx\n", a / b;
             else print "speed-up: n/a" }'
reports=$(find demo_out -maxdepth 1 -name 'costa_shim.*' -newer demo_out/native.out \
          | sort | paste -sd ' ')
[ -z "$reports" ] || echo "report files: $reports"

# the HTML page: charts from this run's JSON report and its trace lines
json=$(find demo_out -maxdepth 1 -name 'costa_shim.*.json' \
       -newer demo_out/native.out | sort | tail -n 1)
if [ -z "$json" ]; then
    echo "demo.sh: the shim run wrote no JSON report" >&2
    exit 1
fi
if ! "$PYTHON" scripts/costa_shim_report.py plot "$json" \
        --trace demo_out/trace.*.log --out demo_out/report.html; then
    echo "demo.sh: costa_shim_report.py plot failed" >&2
    exit 1
fi
echo "HTML report: demo_out/report.html (open demo_out/report.html)"
