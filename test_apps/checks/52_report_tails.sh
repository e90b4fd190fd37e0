#!/usr/bin/env bash
# test_apps/checks/52_report_tails.sh - the report's call times per shape:
# the median (read from the shape's histogram of call times) and the
# slowest call with its rank and its number among that rank's calls of
# the shape.
#
# (a) test_shim_hist, the histogram alone (test_apps/unit/
#     test_shim_hist.c): bins, medians and 90th percentiles of random
#     sets against sorting, merging, saturation.
# (b) report_truth --reps 9 (test_apps/scalapack/report_truth.c: 9
#     pdgemr2d_ calls of one 100x100 shape) on 2 ranks with
#     COSTA_SHIM_FALLBACK=always, so that every call runs ScaLAPACK's
#     pdgemr2d_, and slow_preload.so after the shim (test_apps/lib/
#     slow_preload.c), which makes chosen calls sleep on every rank:
#       slow:   calls 1-5 sleep 100 ms, call 8 1500 ms: 10 of the 18
#               calls (both ranks) take 100 ms and more, so the median is
#               100 ms (within the histogram's 9 %, plus the calls' own
#               time), well below the mean (222 ms); the slowest is call
#               8, 1500 ms and more;
#       fast:   calls 2 and 4 sleep 100 ms, call 6 1500 ms: the median is
#               a call that did not sleep (below 80 ms), the slowest call
#               6;
#     (sleeps long against what a loaded machine adds to a 100x100 call:
#     tens of ms on 2 busy cores)
#     each with COSTA_SHIM_STATS=summary (text on stderr and in the
#     .txt, CSV and JSON must agree: Median(ms), Max(ms), MaxRank and
#     MaxCall of the text, t_median_s, t_max_s, max_rank, max_call of
#     the files) and COSTA_SHIM_STATS=local (each rank's CSV: its own 9
#     calls, the same median and slowest call, its own rank).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/report_truth
unit=$BUILD_DIR/t/unit/test_shim_hist
slow=$BUILD_DIR/t/lib/slow_preload.so
cs_need_files "$app" "$unit" "$slow" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
export OMP_NUM_THREADS=1
fails=0

# (a)
rc=0
"$unit" > "$CS_OUT/unit.stdout" 2> "$CS_OUT/unit.stderr" || rc=$?
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$CS_OUT/unit.stdout")" = "cs_test: OK" ]
then
    cs_report ok "(a) test_shim_hist: bins, quantiles, merging"
else
    cs_report FAIL "(a) test_shim_hist exited $rc"
    head -n 20 "$CS_OUT/unit.stderr" | sed 's/^/      | /'
fi

# (b) run NAME STATS CALLS: report_truth with the slow calls CALLS
run() {
    local d=$CS_OUT/$1.$2 rc=0
    mkdir -p "$d"
    COSTA_SHIM_STATS=$2 COSTA_SHIM_STATS_DIR="$d" COSTA_SHIM_FALLBACK=always \
        CS_SLOW_CALLS=$3 timeout -k 5 120 "$MPIEXEC" -n 2 \
        env LD_PRELOAD="$CS_PRELOAD:$slow" "$app" --reps 9 \
        > "$d/stdout.txt" 2> "$d/stderr.txt" || rc=$?
    if [ "$rc" -ne 0 ] ||
       [ "$(tail -n 1 "$d/stdout.txt")" != "cs_test: OK" ]; then
        cs_report FAIL "(b) $1, $2: report_truth exited $rc"
        tail -n 5 "$d/stderr.txt" | sed 's/^/      | /'
        return 1
    fi
}

for name in slow fast; do
    calls=1:100,2:100,3:100,4:100,5:100,8:1500
    [ "$name" = fast ] && calls=2:100,4:100,6:1500
    run "$name" summary "$calls" && run "$name" local "$calls" || continue
    if PYTHONPATH="$(dirname "$0")/../lib" "$PYTHON" - "$CS_OUT" "$name" \
        <<'EOF'
import json, os, sys
from cs_report_files import one, csv_rows
out, name = sys.argv[1], sys.argv[2]
# per run: median bounds (ms), slowest call, its least time (ms)
lo, hi, call, slowest = ((91.7, 180.0, 8, 1500.0) if name == "slow"
                         else (0.0, 80.0, 6, 1500.0))
errors = []

def big(rows):
    got = [r for r in rows if r["routine"] == "pdgemr2d_" and
           r.get("shape_id") not in (None, "") and int(r["m"]) == 100]
    if len(got) != 1:
        sys.exit("%d pdgemr2d_ 100x100 shape rows" % len(got))
    return got[0]

def judge(what, calls, med_ms, max_ms, rank, ncall, ranks, mean_ms=None):
    print("%s: %d calls, median %.3f ms, slowest %.3f ms (rank %d, call "
          "%d)%s" % (what, calls, med_ms, max_ms, rank, ncall,
                     "" if mean_ms is None else ", mean %.3f ms" % mean_ms))
    if not lo <= med_ms <= hi:
        errors.append("%s: median %.3f ms, want %.1f .. %.1f"
                      % (what, med_ms, lo, hi))
    if mean_ms is not None and name == "slow" and not mean_ms > 200.0:
        errors.append("%s: mean %.3f ms, want above 200" % (what, mean_ms))
    if max_ms < slowest or ncall != call or rank not in ranks:
        errors.append("%s: slowest %.3f ms, call %d of rank %d; want "
                      "%.0f ms and more, call %d of rank %s"
                      % (what, max_ms, ncall, rank, slowest, call, ranks))

# collective: JSON, CSV (rank -1) and the text (file and stderr) agree
d = os.path.join(out, name + ".summary")
rep = json.load(open(one(os.path.join(d, "costa_shim.*.json"))))
s = big([dict(x, shape_id=str(x["shape_id"])) for x in rep["shapes"]])
judge("JSON", s["calls"], 1e3 * s["t_median_s"], 1e3 * s["t_max_s"],
      s["max_rank"], s["max_call"], (0, 1),
      1e3 * s["t_sum_s"] / s["calls"])
if s["calls"] != 18:
    errors.append("JSON: %d calls, want 18" % s["calls"])
c = big(csv_rows(one(os.path.join(d, "costa_shim.*.csv"))))
if (float(c["t_median_s"]), float(c["t_max_s"]), int(c["max_rank"]),
        int(c["max_call"])) != (s["t_median_s"], s["t_max_s"],
                                s["max_rank"], s["max_call"]):
    errors.append("CSV %s != JSON %s" % (c, s))
for path in (one(os.path.join(d, "costa_shim.*.txt")),
             os.path.join(d, "stderr.txt")):
    text = open(path).read()
    sec = text.split("@--- Call times of the top shapes (ms)")[-1]
    rows = [l.split() for l in sec.split("@---")[0].splitlines()
            if l.split()[:1] == [str(s["shape_id"])]]
    if len(rows) != 1:
        errors.append("%s: %d call time rows of shape %s"
                      % (path, len(rows), s["shape_id"]))
        continue
    r = rows[0]
    if (int(r[2]), int(r[7]), int(r[8])) != (18, s["max_rank"],
                                             s["max_call"]) or \
       abs(float(r[4]) - 1e3 * s["t_median_s"]) > 2e-3 or \
       abs(float(r[5]) - 1e3 * s["t_max_s"]) > 2e-3:
        errors.append("%s: call time row %s != JSON" % (path, r))

# local: each rank's own 9 calls
d = os.path.join(out, name + ".local")
for rank in (0, 1):
    r = big(csv_rows(one(os.path.join(d, "costa_shim.*.r%d.csv" % rank))))
    judge("rank %d's CSV" % rank, int(r["calls"]),
          1e3 * float(r["t_median_s"]), 1e3 * float(r["t_max_s"]),
          int(r["max_rank"]), int(r["max_call"]), (rank,))
    if int(r["calls"]) != 9:
        errors.append("rank %d's CSV: %s calls, want 9" % (rank, r["calls"]))
for e in errors:
    print("  " + e)
sys.exit(1 if errors else 0)
EOF
    then
        cs_report ok "(b) $name: median and slowest call right in text, CSV, JSON and each rank's CSV"
    else
        cs_report FAIL "(b) $name: wrong median or slowest call"
    fi
done
exit $((fails > 0))
