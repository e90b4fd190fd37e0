#!/usr/bin/env bash
# test_apps/checks/52_report_overflow.sh - the shape table overflows
# gracefully: bounded, marked partial, totals still exact.
#
# report_truth --shapes 600 on 2 ranks calls pdgemr2d_ 600 times with 600
# distinct shapes (A(1:k, 1) -> B(1:k, 1), k = 1..600; A on a 1x2 grid with
# 32x32 blocks, B on a 2x1 grid with 16x16 blocks), more than the 512 the
# shape table holds.  Column 1 of A lives on rank 0, so per call rank 0
# copies rowsB0(k) elements locally and sends rowsB1(k) (one message if
# any, in MPI's eager pieces where it is small: test_apps/lib/cs_msgs.py),
# rank 1 receives them; rowsB_r(k) = numroc(k, 16, r, 0, 2).
# COSTA_SHIM_STATS=summary and local; checks that
#   (c1) the run completes (cs_test: OK) and the JSON says partial with
#        512 shapes and 2 * 88 dropped calls; shape calls + dropped = all
#        calls; each kept shape has the calls of both ranks;
#   (c2) the routine totals (calls, bytes, messages) equal the analytic
#        sums exactly, in the JSON and the CSV;
#   (c3) the text report says "@ Partial" with the dropped count, lists
#        20 shapes and "(492 more shapes ...)";
#   (c4) the per-rank CSVs (STATS=local) say partial, hold 512 shape rows
#        each and the exact per-rank routine totals.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT,
# CS_MPI (the flavour: its eager pieces).
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/report_truth
cs_need_files "$app" "$CS_SHIM"
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"/summary "$CS_OUT"/local
export OMP_NUM_THREADS=1

for mode in summary local; do
    dir=$CS_OUT/$mode
    rc=0
    COSTA_SHIM_STATS=$mode COSTA_SHIM_STATS_DIR="$dir" COSTA_SHIM_MIN_ELEMS=0 \
        timeout -k 5 60 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" \
        "$app" --shapes 600 > "$dir/stdout.txt" 2> "$dir/stderr.txt" || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$dir/stdout.txt")" != "cs_test: OK" ]
    then
        echo "FAIL: $mode run exited $rc"
        tail -n 5 "$dir/stderr.txt"
        exit 1
    fi
done

PYTHONPATH="$(dirname "$0")/../lib" "$PYTHON" - "$CS_OUT" <<'EOF'
import csv, json, os, re, sys
from cs_msgs import msgs  # the engine's eager pieces
from cs_report_files import one
out = sys.argv[1]
K, CAP = 600, 512
CNT = ["calls", "bytes_sent", "bytes_recv", "bytes_self", "msgs_sent",
       "msgs_recv"]

def numroc(n, nb, p, src, nprocs):
    mydist = (nprocs + p - src) % nprocs
    nblocks = n // nb
    num = (nblocks // nprocs) * nb
    extra = nblocks % nprocs
    if mydist < extra:
        num += nb
    elif mydist == extra:
        num += n % nb
    return num

rank = {0: [0] * 6, 1: [0] * 6}
for k in range(1, K + 1):
    b0, b1 = numroc(k, 16, 0, 0, 2), numroc(k, 16, 1, 0, 2)
    for r, v in [(0, [1, 8 * b1, 0, 8 * b0, msgs(8 * b1), 0]),
                 (1, [1, 0, 8 * b1, 0, 0, msgs(8 * b1)])]:
        rank[r] = [x + y for x, y in zip(rank[r], v)]
total = [x + y for x, y in zip(rank[0], rank[1])]
errors = []

def err(msg):
    errors.append(msg)

def read_csv(path):
    meta, body = {}, []
    for l in open(path):
        if l.startswith("#"):
            k, _, v = l[1:].partition(":")
            meta[k.strip()] = v.strip()
        else:
            body.append(l)
    return meta, list(csv.DictReader(body))

# (c1) bounded and partial
rep = json.load(open(one(os.path.join(out, "summary", "*.json"))))
meta, shapes = rep["meta"], rep["shapes"]
drop = meta["shapes_dropped_calls"]
if not meta["partial"]:
    err("meta.partial is not true")
if len(shapes) != CAP or drop != 2 * (K - CAP):
    err("%d shapes, %d dropped calls; expected %d and %d"
        % (len(shapes), drop, CAP, 2 * (K - CAP)))
if sum(s["calls"] for s in shapes) + drop != total[0]:
    err("shape calls + dropped != %d" % total[0])
if any(s["calls"] != 2 or s["path"] != "engine" for s in shapes):
    err("a kept shape lacks a rank's call or is not engine")
if len({s["shape_id"] for s in shapes}) != CAP:
    err("shape ids not unique")
print("c1: %d shapes kept, %d calls dropped, partial %s"
      % (len(shapes), drop, meta["partial"]))

# (c2) routine totals exact
rows = [r for r in rep["routines"]]
got = [[r[c] for c in CNT] for r in rows]
if len(rows) != 1 or rows[0]["routine"] != "pdgemr2d_" or got[0] != total:
    err("JSON routines %s != analytic %s" % (got, total))
cmeta, crows = read_csv(one(os.path.join(out, "summary",
                                         "costa_shim.*.csv")))
for r, exp in [(-1, total), (0, rank[0]), (1, rank[1])]:
    g = [[int(x[c]) for c in CNT] for x in crows
         if x["shape_id"] == "" and int(x["rank"]) == r]
    if g != [exp]:
        err("CSV rank %d routine rows %s != %s" % (r, g, exp))
if cmeta.get("partial") != "1" or int(cmeta["shapes_dropped_calls"]) != drop:
    err("CSV header %s" % cmeta)
if len([x for x in crows if x["shape_id"] != ""]) != CAP:
    err("CSV shape rows != %d" % CAP)
print("c2: routine totals %s exact" % total)

# (c3) text
txt = open(one(os.path.join(out, "summary", "costa_shim.*.txt"))).read()
if not re.search(r"^@ Partial        : yes \(.*%d calls not in the shape "
                 r"table" % drop, txt, re.M):
    err("text has no Partial line with %d dropped calls" % drop)
sec = txt.split("@--- Top call shapes by time")[1].split("@---")[0]
lines = [l for l in sec.splitlines()[1:] if l.strip()]
if (len([l for l in lines if re.match(r"^ *\d+  pdgemr2d_", l)]) != 20 or
        "(%d more shapes in the CSV and JSON files)" % (CAP - 20)
        not in lines or
        "(%d calls not counted here: the table was full)" % drop
        not in lines):
    err("shape section: %s" % lines[-3:])

# (c4) local files
for r in (0, 1):
    m, rows = read_csv(one(os.path.join(out, "local",
                                        "costa_shim.*.r%d.csv" % r)))
    g = [[int(x[c]) for c in CNT] for x in rows if x["shape_id"] == ""]
    sh = [x for x in rows if x["shape_id"] != ""]
    if (g != [rank[r]] or len(sh) != CAP or m.get("partial") != "1" or
            int(m["shapes_dropped_calls"]) != K - CAP):
        err("local rank %d: rows %s, %d shapes, header %s"
            % (r, g, len(sh), m))
for e in errors:
    print("  " + e)
sys.exit(1 if errors else 0)
EOF
rc=$?
[ "$rc" -eq 0 ] && echo "52_report_overflow: OK"
exit "$rc"
