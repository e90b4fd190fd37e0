#!/usr/bin/env bash
# test_apps/checks/52_report_truth.sh - the report's numbers against values
# known in closed form, and the text report's layout.
#
# report_truth (test_apps/scalapack/report_truth.c) on 2 ranks redistributes
# a 100x100 matrix from a 1x2 grid (32x32 blocks) to a 2x1 grid (16x16
# blocks): pdgemr2d_ 3 times, Cpdgemr2d once, and pdgemr2d_ once with
# m = n = 4, which COSTA_SHIM_MIN_ELEMS=100 sends to ScaLAPACK (reason
# small; Debian's pdgemr2d_ then calls Cpdgemr2d: one nested call).  Per
# call rank r keeps colsA(r) * rowsB(r) elements and sends colsA(r) *
# rowsB(1 - r) in one message (in MPI's eager pieces where it is small:
# cs_eng_msg_piece), colsA = numroc(100, 32, r, 0, 2), rowsB =
# numroc(100, 16, r, 0, 2).  Runs with COSTA_SHIM_STATS=summary, full and
# local, and checks
#   (a) ground truth: JSON routines, CSV rank -1 and per-rank rows, and the
#       local CSVs equal the analytic calls, bytes sent/received/copied and
#       messages per routine, path and reason exactly; the shape table has
#       exactly the three expected shapes (key, path, counters; shape_id =
#       FNV-1a of the documented key text), its totals equal the routine
#       table's (nested calls excluded); callers: three call sites whose
#       calls add up per routine;
#       every shape's median lies between its fastest and slowest call,
#       its slowest call is one of rank 0's or 1's calls of it, its
#       histogram counts every call, and the CSV says the same as the
#       JSON;
#   (b) the text report (file and rank 0's stderr) has every header line
#       and section in order, its shape, call time and caller rows match
#       the JSON,
#       the engine phases match the JSON, are not negative and add up to
#       at most the calls' time less the arrival wait, and STATS=full adds
#       "Per rank and routine" to the file only.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT,
# CS_MPI (the flavour: its eager pieces).
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/report_truth
cs_need_files "$app" "$CS_SHIM"
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"/summary "$CS_OUT"/full "$CS_OUT"/local
export OMP_NUM_THREADS=1
fails=0

# run DIR VAR=value...: report_truth under the shim, reports into DIR
run() {
    local dir=$1 rc=0
    shift
    env "$@" COSTA_SHIM_STATS_DIR="$dir" COSTA_SHIM_MIN_ELEMS=100 \
        timeout -k 5 60 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" \
        "$app" --reps 3 > "$dir/stdout.txt" 2> "$dir/stderr.txt" || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$dir/stdout.txt")" != "cs_test: OK" ]
    then
        echo "FAIL: run in $dir exited $rc"
        tail -n 5 "$dir/stderr.txt"
        exit 1
    fi
}

run "$CS_OUT/summary" COSTA_SHIM_STATS=summary
run "$CS_OUT/full" COSTA_SHIM_STATS=full
run "$CS_OUT/local" COSTA_SHIM_STATS=local

if PYTHONPATH="$(dirname "$0")/../lib" "$PYTHON" - "$CS_OUT" <<'EOF'
import json, os, sys
from cs_msgs import msgs  # the engine's eager pieces
from cs_report_files import one, csv_rows as read_csv
out = sys.argv[1]
R, N = 3, 100

def numroc(n, nb, p, src, nprocs):
    """ScaLAPACK's NUMROC."""
    mydist = (nprocs + p - src) % nprocs
    nblocks = n // nb
    num = (nblocks // nprocs) * nb
    extra = nblocks % nprocs
    if mydist < extra:
        num += nb
    elif mydist == extra:
        num += n % nb
    return num

cols_a = [numroc(N, 32, r, 0, 2) for r in (0, 1)]
rows_b = [numroc(N, 16, r, 0, 2) for r in (0, 1)]
CNT = ["calls", "bytes_sent", "bytes_recv", "bytes_self", "msgs_sent",
       "msgs_recv"]

def per_call(r):
    sent = 8 * cols_a[r] * rows_b[1 - r]
    recv = 8 * cols_a[1 - r] * rows_b[r]
    return [1, sent, recv, 8 * cols_a[r] * rows_b[r], msgs(sent),
            msgs(recv)]

def times(v, k):
    return [k * x for x in v]

def rank_rows(r):
    return {("pdgemr2d_", "engine", ""): times(per_call(r), R),
            ("Cpdgemr2d", "engine", ""): per_call(r),
            ("pdgemr2d_", "fallback", "small"): [1, 0, 0, 0, 0, 0],
            ("Cpdgemr2d", "nested", "nested"): [1, 0, 0, 0, 0, 0]}

def add(a, b):
    return [x + y for x, y in zip(a, b)]

want = {k: add(rank_rows(0)[k], rank_rows(1)[k]) for k in rank_rows(0)}
both = add(per_call(0), per_call(1))
want_shapes = {
    ("pdgemr2d_", 100, 100, 32, 32, "1x2R", 16, 16, "2x1R"):
        ("engine", "", times(both, R)),
    ("Cpdgemr2d", 100, 100, 32, 32, "1x2R", 16, 16, "2x1R"):
        ("engine", "", both),
    ("pdgemr2d_", 4, 4, 32, 32, "-", 16, 16, "-"):
        ("fallback", "small", [2, 0, 0, 0, 0, 0]),
}
errors = []

def err(msg):
    errors.append(msg)

def rows_of(items):
    return {(r["routine"], r["path"], r["reason"]): [int(r[c]) for c in CNT]
            for r in items}

def fnv(text):
    h = 2166136261
    for ch in text.encode():
        h = ((h ^ ch) * 16777619) & 0xffffffff
    return h

# JSON routines
rep = json.load(open(one(os.path.join(out, "summary", "*.json"))))
got = rows_of(rep["routines"])
if got != want:
    err("JSON routines %s != analytic %s" % (got, want))

# CSV: aggregate and per-rank routine rows
rows = read_csv(one(os.path.join(out, "summary", "costa_shim.*.csv")))
routine_rows = [r for r in rows if r["shape_id"] == ""]
shape_rows = [r for r in rows if r["shape_id"] != ""]
for rank, exp in [(-1, want), (0, rank_rows(0)), (1, rank_rows(1))]:
    g = rows_of([r for r in routine_rows if int(r["rank"]) == rank])
    if g != exp:
        err("CSV rank %d rows %s != analytic %s" % (rank, g, exp))

# shapes (JSON and CSV agree, keys and counters exact)
def shape_key(s):
    def blk(v):
        return None if v in (None, "") else int(v)
    return (s["routine"], int(s["m"]), int(s["n"]), blk(s["mbA"]),
            blk(s["nbA"]), s["gridA"], blk(s["mbB"]), blk(s["nbB"]),
            s["gridB"])

for what, items in [("JSON", rep["shapes"]), ("CSV", shape_rows)]:
    got = {}
    for s in items:
        k = shape_key(s)
        if k in got:
            err("%s: shape %s twice" % (what, k))
        got[k] = (s["path"], s["reason"], [int(s[c]) for c in CNT])
        text = " ".join(str(-1 if x is None else x) for x in k)
        if int(s["shape_id"]) != fnv(text):
            err("%s: shape_id %s of %r is not FNV-1a %d"
                % (what, s["shape_id"], text, fnv(text)))
        if what == "CSV" and int(s["rank"]) != -1:
            err("CSV shape row with rank %s" % s["rank"])
    if got != want_shapes:
        err("%s shapes %s != expected %s" % (what, got, want_shapes))

# shape totals == routine totals without nested calls; times too
own = [r for r in rep["routines"] if r["path"] != "nested"]
for c in CNT + ["t_sum_s"]:
    a = sum(float(s[c]) for s in rep["shapes"])
    b = sum(float(r[c]) for r in own)
    if abs(a - b) > 1e-9 * max(1.0, abs(b)):
        err("shape total %s %r != routine total %r" % (c, a, b))
for s in rep["shapes"]:
    if not (0 < s["t_min_s"] <= s["t_max_s"] <= s["t_sum_s"]):
        err("shape times inconsistent: %s" % s)
    # call times: median between the extremes, the slowest call one of
    # the shape's calls on rank 0 or 1, the histogram counts every call
    if not s["t_min_s"] <= s["t_median_s"] <= s["t_max_s"]:
        err("shape median %r outside [%r, %r]"
            % (s["t_median_s"], s["t_min_s"], s["t_max_s"]))
    if not (s["max_rank"] in (0, 1) and
            1 <= s["max_call"] <= s["calls"] // 2):
        err("shape slowest call %r of rank %r, %d calls"
            % (s["max_call"], s["max_rank"], s["calls"]))
    if sum(c for _, c in s["t_hist"]) != s["calls"]:
        err("shape histogram %r does not count %d calls"
            % (s["t_hist"], s["calls"]))
# ... and the CSV's say the same
tails = {int(s["shape_id"]): (float(s["t_median_s"]), int(s["max_call"]),
                              int(s["max_rank"]), s["t_hist"])
         for s in shape_rows}
for s in rep["shapes"]:
    hist = " ".join("%d:%d" % (k, c) for k, c in s["t_hist"])
    if tails.get(s["shape_id"]) != (s["t_median_s"], s["max_call"],
                                    s["max_rank"], hist):
        err("CSV call times %r != JSON's %r"
            % (tails.get(s["shape_id"]), (s["t_median_s"], s["max_call"],
                                          s["max_rank"], hist)))

# callers: three call sites, calls add up per routine
callers = rep["callers"]
if len(callers) != 3:
    err("%d caller rows, expected 3: %s" % (len(callers), callers))
for name, n in [("pdgemr2d_", 2 * (R + 1)), ("Cpdgemr2d", 2)]:
    c = sum(x["calls"] for x in callers if x["routine"] == name)
    if c != n:
        err("callers of %s: %d calls, expected %d" % (name, c, n))
for x in callers:
    if not x["caller"] or x["caller"] == "?" or "+0x" not in x["caller"]:
        err("caller string %r" % x["caller"])
if rep["meta"]["partial"] or rep["meta"]["shapes_dropped_calls"]:
    err("meta says partial: %s" % rep["meta"])
if rep["meta"].get("verify", 0) is not None:
    err("meta.verify without COSTA_SHIM_VERIFY: %r" % rep["meta"]["verify"])

# local mode: each rank's CSV has its routine rows and its shape rows
for r in (0, 1):
    rows = read_csv(one(os.path.join(out, "local",
                                     "costa_shim.*.r%d.csv" % r)))
    g = rows_of([x for x in rows if x["shape_id"] == ""])
    if g != rank_rows(r):
        err("local rank %d rows %s != %s" % (r, g, rank_rows(r)))
    sh = [x for x in rows if x["shape_id"] != ""]
    ranks = {int(x["rank"]) for x in sh}
    got = {shape_key(x): [int(x[c]) for c in CNT] for x in sh}
    big = ("pdgemr2d_", 100, 100, 32, 32, "1x2R", 16, 16, "2x1R")
    exp = {big: times(per_call(r), R),
           ("Cpdgemr2d",) + big[1:]: per_call(r),
           ("pdgemr2d_", 4, 4, 32, 32, "-", 16, 16, "-"): [1, 0, 0, 0, 0, 0]}
    if ranks != {r} or got != exp:
        err("local rank %d shape rows %s (ranks %s) != %s"
            % (r, got, ranks, exp))

# full mode: per-rank routine rows in the JSON
full = json.load(open(one(os.path.join(out, "full", "*.json"))))
for k in full["ranks"]:
    if rows_of(k.get("routines", [])) != rank_rows(k["rank"]):
        err("full: rank %d routines %s" % (k["rank"], k.get("routines")))
if rows_of(full["routines"]) != want:
    err("full: routines differ")

for e in errors:
    print("  " + e)
sys.exit(1 if errors else 0)
EOF
then
    echo "ok    (a) routine, per-rank, local and shape rows equal the"
    echo "          analytic volumes; ids, callers, totals consistent"
else
    echo "FAIL  (a) report numbers differ from the analytic values"
    fails=$((fails + 1))
fi

# (b) text layout: file and stderr, summary and full
if "$PYTHON" - "$CS_OUT" <<'EOF'
import glob, json, os, re, sys
out = sys.argv[1]
errors = []
HEAD = ["@ costa_shim report", "@ Command        : ", "@ Version        : ",
        "@ Real library   : ", "@ MPI            : ", "@ Ranks          : ",
        "@ Start / stop   : ", "@ Memory         : the shim held at most ",
        "@ Settings       : "]
SECTIONS = ["Time in intercepted routines (seconds)",
            "Per routine and path (all ranks)",
            "Engine phases (all ranks, seconds)", "Fallback reasons",
            "Top call shapes by time", "Call times of the top shapes (ms)",
            "Callers (top 10)"]

def section_rows(body, title):
    """The split lines of the section headed title, its header first."""
    sec = body.split("@--- " + title)[1].split("@---")[0]
    return [l.split() for l in sec.splitlines()[1:] if l.strip()]

def check(path, text, sections, rep):
    lines = text.splitlines()
    start = [i for i, l in enumerate(lines) if l == "@ costa_shim report"]
    if len(start) != 1:
        errors.append("%s: %d report headers" % (path, len(start)))
        return
    lines = lines[start[0]:]
    for i, h in enumerate(HEAD):
        if not lines[i].startswith(h):
            errors.append("%s: header line %d is %r, expected %r..."
                          % (path, i + 1, lines[i], h))
    rules = [l for l in lines if l.startswith("@---")]
    titles = [re.sub(r"^@--- (.*?) -+$", r"\1", l) for l in rules]
    if titles != sections:
        errors.append("%s: sections %s, expected %s"
                      % (path, titles, sections))
    for l in rules:
        if len(l) != 72:
            errors.append("%s: rule not 72 columns: %r" % (path, l))
    body = "\n".join(lines)
    rows = section_rows(body, "Top call shapes by time")
    if rows[0][:3] != ["Id", "Routine", "m"]:
        errors.append("%s: shape header %s" % (path, rows[0]))
    want = sorted(rep["shapes"], key=lambda s: -s["t_sum_s"])
    got = [(int(r[0]), r[1], r[2], int(r[5])) for r in rows[1:]]
    exp = [(s["shape_id"], s["routine"], "%dx%d" % (s["m"], s["n"]),
            s["calls"]) for s in want]
    if got != exp:
        errors.append("%s: shape rows %s != JSON %s" % (path, got, exp))
    # call times: the same shapes in the same order, the JSON's numbers
    rows = section_rows(body, "Call times of the top shapes (ms)")
    if rows[0] != ["Id", "Routine", "Calls", "Mean(ms)", "Median(ms)",
                   "Max(ms)", "Max/Med", "MaxRank", "MaxCall"]:
        errors.append("%s: call time header %s" % (path, rows[0]))
    got = [(int(r[0]), r[1], int(r[2]), int(r[7]), int(r[8]))
           for r in rows[1:]]
    exp = [(s["shape_id"], s["routine"], s["calls"], s["max_rank"],
            s["max_call"]) for s in want]
    # ms with 3 decimals against the JSON's 9 digits: 1 in the last place
    close = all(abs(float(r[3]) - 1e3 * s["t_sum_s"] / s["calls"]) <= 2e-3
                and abs(float(r[4]) - 1e3 * s["t_median_s"]) <= 2e-3
                and abs(float(r[5]) - 1e3 * s["t_max_s"]) <= 2e-3
                for r, s in zip(rows[1:], want))
    if got != exp or not close:
        errors.append("%s: call time rows %s != JSON %s"
                      % (path, rows[1:], want))
    # engine phases: one line per routine with engine rows, the JSON's
    # sums, none negative, together not above the call time less the
    # arrival wait (the rest, Other, is the checks, exchange and plan)
    rows = section_rows(body, "Engine phases (all ranks, seconds)")
    if rows[0] != ["Routine", "Calls", "Time(s)", "Wait(s)", "Pack(s)",
                   "Local(s)", "Unpack(s)", "Xfer(s)", "Other(s)"]:
        errors.append("%s: phase header %s" % (path, rows[0]))
    eng = {}
    for r in rep["routines"]:
        if r["path"] == "engine":
            e = eng.setdefault(r["routine"], [0, 0.0, 0.0, 0.0, 0.0, 0.0])
            e[0] += r["calls"]
            for k, f in enumerate(["t_pack_s", "t_local_s", "t_unpack_s",
                                   "t_xfer_s"]):
                e[1 + k] += r[f]
            e[5] += r["t_sum_s"] - r["t_wait_s"]
    got = {r[0]: r for r in rows[1:]}
    if sorted(got) != sorted(eng):
        errors.append("%s: phase rows %s, engine routines %s"
                      % (path, sorted(got), sorted(eng)))
    for name, e in eng.items():
        r = got.get(name)
        if not r:
            continue
        ph = [float(x) for x in r[4:8]]
        if int(r[1]) != e[0] or any(abs(a - b) > 1e-4
                                    for a, b in zip(ph, e[1:5])):
            errors.append("%s: phases of %s %s != JSON %s"
                          % (path, name, r[1:8], e[:5]))
        if min(ph) < 0 or sum(ph) > e[5] + 1e-4 or sum(e[1:5]) <= 0:
            errors.append("%s: phases of %s %s against %.4f s of calls"
                          % (path, name, ph, e[5]))
    rows = section_rows(body, "Callers (top 10)")
    got = sorted((r[0], r[1], int(r[2])) for r in rows[1:])
    exp = sorted((c["caller"], c["routine"], c["calls"])
                 for c in rep["callers"])
    if rows[0] != ["Caller", "Routine", "Calls", "Time(s)"] or got != exp:
        errors.append("%s: caller rows %s != JSON %s" % (path, got, exp))

for mode, extra in [("summary", []), ("full", ["Per rank and routine"])]:
    d = os.path.join(out, mode)
    rep = json.load(open(glob.glob(os.path.join(d, "*.json"))[0]))
    txt = glob.glob(os.path.join(d, "costa_shim.*.txt"))[0]
    check(txt, open(txt).read(), SECTIONS + extra, rep)
    err = os.path.join(d, "stderr.txt")
    check(err, open(err).read(), SECTIONS, rep)
    if glob.glob(os.path.join(d, "*.partial")):
        errors.append("%s: leftover .partial files" % d)
for e in errors:
    print("  " + e)
sys.exit(1 if errors else 0)
EOF
then
    echo "ok    (b) text report: header, all sections in order, shape, phase"
    echo "          and caller rows match the JSON (file and stderr)"
else
    echo "FAIL  (b) text report layout"
    fails=$((fails + 1))
fi

exit $((fails > 0))
