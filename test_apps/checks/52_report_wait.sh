#!/usr/bin/env bash
# test_apps/checks/52_report_wait.sh - the report shows the arrival wait
# (the time a rank waits for the last rank of a call) apart from the
# redistribution itself, on the engine and in measure-only runs.
#
# report_truth --skew-ms S --reps R (2 ranks): rank 1 sleeps S ms before
# each of R pdgemr2d_ and R pdtran_ calls, so rank 0 waits about S ms at
# the start of every call and rank 1 hardly at all.  Run under the shim
# with COSTA_SHIM_STATS=full, once on the engine and once with
# COSTA_SHIM_FALLBACK=always (the real routines behind an arrival
# barrier).  In both:
#   * JSON ranks[]: rank 0's wait_time_s is at least 0.7 * 2R * S, rank
#     1's below half of rank 0's; every per-rank routine row has
#     t_wait_s <= t_sum_s, and rank 0's rows of pdgemr2d_ and pdtran_ each
#     wait at least 0.7 * R * S;
#   * CSV has the t_wait_s column; the text report's time, routine and
#     shape tables have their Wait column; the trace lines (VERBOSE=1)
#     carry wait:<ms>ms.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/report_truth
cs_need_files "$app" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
export OMP_NUM_THREADS=1
S=40
R=4
fails=0

for mode in engine always; do
    d=$CS_OUT/$mode
    mkdir -p "$d"
    fb=auto
    [ "$mode" = always ] && fb=always
    rc=0
    COSTA_SHIM_STATS=full COSTA_SHIM_STATS_DIR="$d" COSTA_SHIM_FALLBACK=$fb \
        COSTA_SHIM_VERBOSE=1 COSTA_SHIM_LOG_RANKS=all \
        timeout -k 5 60 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" "$app" \
        --skew-ms "$S" --reps "$R" > "$d/stdout.txt" 2> "$d/stderr.txt" ||
        rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$d/stdout.txt")" != "cs_test: OK" ]; then
        cs_report FAIL "$mode: report_truth --skew-ms exited $rc"
        tail -n 5 "$d/stderr.txt" | sed 's/^/      | /'
        continue
    fi
    if "$PYTHON" - "$d" "$S" "$R" "$mode" <<'EOF'
import csv, glob, json, os, sys
d, S, R, mode = sys.argv[1], float(sys.argv[2]) / 1e3, int(sys.argv[3]), sys.argv[4]
bad = []
js = glob.glob(os.path.join(d, "costa_shim.*.json"))
rep = json.load(open(js[0]))
ranks = {k["rank"]: k for k in rep["ranks"]}
w0, w1 = ranks[0]["wait_time_s"], ranks[1]["wait_time_s"]
print("%s: wait rank 0 %.3f s, rank 1 %.3f s (skew %d calls x %.0f ms)"
      % (mode, w0, w1, 2 * R, S * 1e3))
if w0 < 0.7 * 2 * R * S:
    bad.append("rank 0 waited %.3f s, want >= %.3f" % (w0, 0.7 * 2 * R * S))
if not w1 < 0.5 * w0:
    bad.append("rank 1 waited %.3f s, want < half of rank 0's" % w1)
for k in rep["ranks"]:
    for row in k.get("routines", []):
        if row["t_wait_s"] > row["t_sum_s"] + 1e-9:
            bad.append("rank %d %s: wait %.4f > time %.4f"
                       % (k["rank"], row["routine"], row["t_wait_s"], row["t_sum_s"]))
        if k["rank"] == 0 and row["routine"] in ("pdgemr2d_", "pdtran_") \
                and row["t_wait_s"] < 0.7 * R * S:
            bad.append("rank 0 %s waited %.3f s, want >= %.3f"
                       % (row["routine"], row["t_wait_s"], 0.7 * R * S))
cf = glob.glob(os.path.join(d, "costa_shim.*.csv"))[0]
head = [l for l in open(cf) if not l.startswith("#")][0]
if "t_wait_s" not in head.strip().split(","):
    bad.append("CSV header has no t_wait_s")
txt = open(glob.glob(os.path.join(d, "costa_shim.*.txt"))[0]).read()
for hdr in ("Rank    AppTime   ShimTime       Wait", "Time(s)    Wait(s)  Mean(ms)",
            "Calls    Time(s)    Wait(s)    GB/s"):
    if hdr not in txt:
        bad.append("text report lacks the header '%s'" % hdr)
err = open(os.path.join(d, "stderr.txt")).read().splitlines()
tr = [l for l in err if l.startswith("COSTA_SHIM r:")]
if len(tr) < 4 * R or not all(" wait:" in l and "ms " in l for l in tr):
    bad.append("trace lines without wait:<ms>ms (%d lines)" % len(tr))
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
EOF
    then
        cs_report ok "$mode: the wait of the early rank is reported apart"
    else
        cs_report FAIL "$mode: the report does not show the arrival wait"
    fi
done
exit $((fails > 0))
