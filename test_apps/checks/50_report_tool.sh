#!/usr/bin/env bash
# test_apps/checks/50_report_tool.sh - scripts/costa_shim_report.py on the
# reports and traces of a real run: bench_gemr2d case e (200x200
# pdgemr2d_, 3 reps) on 2 ranks under the shim, three times:
#   new/   engine run, COSTA_SHIM_STATS=summary, trace on (%r log files)
#   base/  the same with COSTA_SHIM_FALLBACK=always (ScaLAPACK, timed)
#   local/ the engine run with COSTA_SHIM_STATS=local (per-rank CSVs)
# and checks that
#   (a) `summary` of the JSON and of the CSV reproduce the JSON's calls,
#       bytes and message counts exactly (Bytes and messages section);
#   (b) `compare base new` prints a speed-up line for pdgemr2d_ and a total;
#   (c) `plot --trace` writes one HTML page with figures chart-1..chart-5,
#       each an <svg> with a <figcaption>, and no external resource, and
#       the shapes' call times (median, slowest) in its summary tables;
#   (d) `trace2csv` gives one row per trace line with the expected columns;
#   (e) `summary` of the per-rank CSVs gives the same totals as (a);
#   (f) `replay` prints a replay_call command line with the logged
#       arguments; (g) user errors exit 2 without a Python traceback;
#   (h) `summary --by shape` prints each shape's median and slowest call
#       as the JSON has them, and from the per-rank CSVs as merging
#       their histograms gives them.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT,
# CS_TOP.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
top=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=$top/scripts/costa_shim_report.py
app=$BUILD_DIR/t/bench/bench_gemr2d
cs_need_files "$app" "$CS_SHIM" "$tool"
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"/new "$CS_OUT"/base "$CS_OUT"/local
export OMP_NUM_THREADS=1
fails=0

report() {   # report OK|FAIL text
    echo "$1  $2"
    [ "$1" = ok ] || fails=$((fails + 1))
}

tool() {
    "$PYTHON" "$tool" "$@"
}

# run DIR VAR=value...: the benchmark under the shim, reports into DIR
run() {
    local dir=$1
    shift
    env "$@" COSTA_SHIM_STATS_DIR="$dir" \
        timeout 120 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" \
        "$app" --cases e --reps 3 > "$dir/stdout.txt" 2> "$dir/stderr.txt"
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: run in $dir exited $rc"
        tail -n 5 "$dir/stderr.txt"
        exit 1
    fi
}

run "$CS_OUT/new" COSTA_SHIM_STATS=summary COSTA_SHIM_VERBOSE=1 \
    COSTA_SHIM_LOG_FILE="$CS_OUT/new/trace.%r.log"
run "$CS_OUT/base" COSTA_SHIM_STATS=summary COSTA_SHIM_FALLBACK=always
run "$CS_OUT/local" COSTA_SHIM_STATS=local
json=$(ls "$CS_OUT"/new/costa_shim.*.json 2>/dev/null)
csvf=$(ls "$CS_OUT"/new/costa_shim.*.csv 2>/dev/null)
if [ ! -f "$json" ] || [ ! -f "$csvf" ]; then
    echo "FAIL: no single JSON and CSV report in new/"
    exit 1
fi

# bytes_section FILE: the "Bytes and messages" table of a summary output
bytes_section() {
    sed -n '/^@--- Bytes and messages/,/^\*/p' "$1"
}

# (a) summary == JSON, exactly
tool summary "$json" > "$CS_OUT/summary_json.txt" 2>&1
tool summary "$csvf" > "$CS_OUT/summary_csv.txt" 2>&1
if "$PYTHON" - "$json" "$CS_OUT/summary_json.txt" "$CS_OUT/summary_csv.txt" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
want = {}
for r in rep["routines"]:
    k = (r["routine"], r["path"])
    cols = ["calls", "bytes_sent", "bytes_recv", "bytes_self", "bytes_node",
            "bytes_net", "msgs_sent", "msgs_recv"]
    w = want.setdefault(k, [0] * len(cols))
    for i, c in enumerate(cols):
        w[i] += r[c]
total = [sum(w[i] for w in want.values()) for i in range(8)]
for path in sys.argv[2:]:
    lines = open(path).read().splitlines()
    try:
        i = next(n for n, l in enumerate(lines)
                 if l.startswith("@--- Bytes and messages"))
    except StopIteration:
        sys.exit("%s: no Bytes and messages section" % path)
    got = {}
    for l in lines[i + 2:]:
        f = l.split()
        if f[0] == "*":
            got["*"] = [int(x) for x in f[1:]]
            break
        got[(f[0], f[1])] = [int(x) for x in f[2:]]
    exp = dict(want)
    exp["*"] = total
    if got != exp:
        sys.exit("%s: summary %s != JSON %s" % (path, got, exp))
    if not any(k[1] == "engine" and v[0] > 0 for k, v in want.items()
               if k != "*"):
        sys.exit("no engine calls in the JSON")
EOF
then report ok "(a) summary of the JSON and of the CSV: calls, bytes, messages exact"
else report FAIL "(a) summary does not reproduce the JSON"
fi

# (b) compare
tool compare "$CS_OUT/base" "$CS_OUT/new" > "$CS_OUT/compare.txt" 2>&1
if grep -Eq '^pdgemr2d_ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]+x ' \
        "$CS_OUT/compare.txt" &&
   grep -Eq '^\* +[0-9]+ +[0-9]+ .*[0-9]x ' "$CS_OUT/compare.txt"; then
    report ok "(b) compare: $(grep '^pdgemr2d_' "$CS_OUT/compare.txt" |
        awk '{print "pdgemr2d_ speed-up " $6}')"
else
    report FAIL "(b) compare has no speed-up line for pdgemr2d_"
    sed 's/^/      /' "$CS_OUT/compare.txt"
fi

# (c) plot
html=$CS_OUT/report.html
tool plot "$json" --trace "$CS_OUT"/new/trace.*.log --out "$html" \
    > "$CS_OUT/plot.txt" 2>&1
if "$PYTHON" - "$html" <<'EOF'
import re, sys
page = open(sys.argv[1]).read()
for i in range(1, 6):
    m = re.search(r'<figure id="chart-%d">(.*?)</figure>' % i, page, re.S)
    if not m:
        sys.exit("no figure chart-%d" % i)
    body = m.group(1)
    if "<svg" not in body or "<figcaption>" not in body:
        sys.exit("chart-%d lacks <svg> or <figcaption>" % i)
    if body.count("<text") < 3:
        sys.exit("chart-%d: no title and axis labels" % i)
if re.search(r'(src|href)\s*=|<script|<link|url\(', page):
    sys.exit("the page refers to an external resource")
tables = page.split("<h2>Summary tables</h2>")[-1]
if not re.search(r"@--- Call times of the top shapes \(ms\) -+\n +Id +"
                 r"Routine +Calls +Mean\(ms\) +Median\(ms\) .*\n *\d+ +"
                 r"pdgemr2d_ ", tables):
    sys.exit("the summary tables lack the shapes' call times")
EOF
then report ok "(c) plot: chart-1..chart-5 with svg and caption, self-contained, the shapes' call times in its tables"
else report FAIL "(c) plot page incomplete"; cat "$CS_OUT/plot.txt"
fi

# (d) trace2csv
tool trace2csv "$CS_OUT"/new/trace.*.log > "$CS_OUT/trace.csv" 2> "$CS_OUT/trace2csv.err"
nlines=$(cat "$CS_OUT"/new/trace.*.log | grep -c 'COSTA_SHIM r:')
if "$PYTHON" - "$CS_OUT/trace.csv" "$nlines" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
if len(body) != int(sys.argv[2]) or not body:
    sys.exit("%d rows for %s trace lines" % (len(body), sys.argv[2]))
need = ["r", "seq", "routine", "m", "n", "ia", "ja", "descA", "ib", "jb",
        "descB", "ictxt", "path", "t", "send", "recv", "self", "msgs_sent",
        "msgs_recv", "thr", "caller"]
missing = [c for c in need if c not in head]
if missing:
    sys.exit("missing columns %s in %s" % (missing, head))
if head[:3] != ["r", "seq", "routine"]:
    sys.exit("first columns %s" % head[:3])
for row in body:
    if len(row) != len(head):
        sys.exit("ragged row %s" % row)
    d = dict(zip(head, row))
    float(d["t"]); int(d["seq"]); int(d["m"])
    if d["routine"] != "pdgemr2d_" or len(d["descA"].split(",")) != 9:
        sys.exit("bad row %s" % row)
EOF
then report ok "(d) trace2csv: $nlines rows, one per trace line, expected columns"
else report FAIL "(d) trace2csv output wrong"; head -n 3 "$CS_OUT/trace.csv"
fi

# (e) merged per-rank CSVs == collective totals
nloc=$(find "$CS_OUT/local" -name 'costa_shim.*.r*.csv' | wc -l)
tool summary "$CS_OUT"/local/costa_shim.*.r*.csv > "$CS_OUT/summary_local.txt" 2>&1
if [ "$nloc" -eq 2 ] &&
   [ -n "$(bytes_section "$CS_OUT/summary_local.txt")" ] &&
   diff <(bytes_section "$CS_OUT/summary_json.txt") \
        <(bytes_section "$CS_OUT/summary_local.txt") > "$CS_OUT/local.diff"; then
    report ok "(e) summary of $nloc per-rank CSVs: same totals as the collective run"
else
    report FAIL "(e) per-rank merge ($nloc files) differs from the collective run"
    sed 's/^/      /' "$CS_OUT/local.diff"
fi

# (h) call times per shape: summary --by shape of the JSON prints the
# JSON's median, slowest call, its rank and number; of the per-rank CSVs
# the histograms summed bin by bin, the median read from the sum (bin
# formula of docs/report-format.md section 8, written again here) and the
# slower rank's slowest call
tool summary --by shape "$json" > "$CS_OUT/tails_json.txt" 2>&1
tool summary --by shape "$CS_OUT"/local/costa_shim.*.r*.csv \
    > "$CS_OUT/tails_local.txt" 2>&1
if "$PYTHON" - "$json" "$CS_OUT" <<'EOF2'
import csv, glob, json, math, os, sys
rep, out = json.load(open(sys.argv[1])), sys.argv[2]

def section(path):
    text = open(path).read()
    if "@--- Call times of the top shapes (ms)" not in text:
        sys.exit("%s: no call time section" % path)
    sec = text.split("@--- Call times of the top shapes (ms)")[1]
    return {int(l.split()[0]): l.split() for l in sec.splitlines()[2:]
            if l.strip()}

def same(path, want):
    got = section(path)
    for sid, (calls, med, mx, rank, call) in want.items():
        r = got.get(sid)
        if not r or (int(r[2]), int(r[7]), int(r[8])) != (calls, rank, call) \
           or abs(float(r[4]) - 1e3 * med) > 2e-3 \
           or abs(float(r[5]) - 1e3 * mx) > 2e-3:
            sys.exit("%s: shape %d: %s, want %s" % (path, sid, r, (
                calls, 1e3 * med, 1e3 * mx, rank, call)))

same(os.path.join(out, "tails_json.txt"),
     {s["shape_id"]: (s["calls"], s["t_median_s"], s["t_max_s"],
                      s["max_rank"], s["max_call"]) for s in rep["shapes"]})

def quantile(hist, q, tmin, tmax):
    n = sum(hist.values())
    want, seen = max(1, math.ceil(q * n)), 0
    for k in sorted(hist):
        seen += hist[k]
        if seen >= want:
            break
    lo = 0.0 if k == 0 else 1e-6 * 2 ** ((k - 1) / 4)
    hi = math.inf if k == 127 else 1e-6 * 2 ** (k / 4)
    lo, hi = max(lo, tmin), min(hi, tmax)
    return math.sqrt(lo * hi) if lo > 0 else hi / 2

merged = {}
for path in glob.glob(os.path.join(out, "local", "costa_shim.*.r*.csv")):
    rows = csv.DictReader(l for l in open(path) if not l.startswith("#"))
    for r in rows:
        if not r["shape_id"]:
            continue
        m = merged.setdefault(int(r["shape_id"]), {
            "calls": 0, "hist": {}, "tmin": math.inf, "slow": None})
        m["calls"] += int(r["calls"])
        m["tmin"] = min(m["tmin"], float(r["t_min_s"]))
        for p in r["t_hist"].split():
            k, c = map(int, p.split(":"))
            m["hist"][k] = m["hist"].get(k, 0) + c
        slow = (float(r["t_max_s"]), -int(r["max_rank"]), -int(r["max_call"]))
        m["slow"] = max(m["slow"] or slow, slow)
if not merged:
    sys.exit("no shape rows in the per-rank CSVs")
same(os.path.join(out, "tails_local.txt"),
     {sid: (m["calls"], quantile(m["hist"], 0.5, m["tmin"], m["slow"][0]),
            m["slow"][0], -m["slow"][1], -m["slow"][2])
      for sid, m in merged.items()})
EOF2
then
    report ok "(h) summary --by shape: median and slowest call of the JSON, and of the per-rank CSVs merged"
else
    report FAIL "(h) call times per shape wrong"
fi
# ... and of two made-up per-rank files whose medians differ: rank 0's 5
# calls in bin 40 (0.9 ms), rank 1's 5 in bin 60 (27.6-32.8 ms) and one
# of 0.5 s (call 6): the 6th of 11 lies in bin 60, read as 30.048 ms
mkdir -p "$CS_OUT/madeup"
for r in 0 1; do
    {
        echo "# costa_shim_csv_version: 1"
        echo "# command: made up"
        echo "# nprocs: 2"
        echo "rank,routine,path,reason,shape_id,m,n,mbA,nbA,gridA,mbB,nbB,gridB,calls,t_sum_s,t_min_s,t_max_s,t_median_s,max_call,max_rank,t_hist"
        if [ "$r" = 0 ]; then
            echo "0,pdgemr2d_,engine,,7,10,10,2,2,1x2R,2,2,2x1R,5,0.005,0.0009,0.0011,0.001,2,0,40:5"
        else
            echo "1,pdgemr2d_,engine,,7,10,10,2,2,1x2R,2,2,2x1R,6,0.65,0.028,0.5,0.03,6,1,60:5 95:1"
        fi
    } > "$CS_OUT/madeup/costa_shim.x.nojob.r$r.csv"
done
tool summary --by shape "$CS_OUT"/madeup/*.csv > "$CS_OUT/tails_madeup.txt" 2>&1
if grep -Eq '^ +7  pdgemr2d_ +11 +59\.545 +30\.048 +500\.000 +16\.64 +1 +6$' \
        "$CS_OUT/tails_madeup.txt"; then
    report ok "(h) two ranks' histograms merged: median 30.048 ms (bin 60), slowest call 6 of rank 1"
else
    report FAIL "(h) two ranks' histograms not merged as the shim merges them"
    sed 's/^/      /' "$CS_OUT/tails_madeup.txt"
fi

# (f) replay
tool replay "$CS_OUT/new/trace.0.log" --seq 2 > "$CS_OUT/replay.txt" 2> "$CS_OUT/replay.err"
if grep -Eq -- '-n 2 .*replay_call --routine pdgemr2d_ --m 200 --n 200 .*--desca 1,[0-9-]+,200,200,36,36,0,0,[0-9]+ .*--descb ' \
        "$CS_OUT/replay.txt"; then
    report ok "(f) replay: $(cut -c1-70 "$CS_OUT/replay.txt")..."
else
    report FAIL "(f) replay command line wrong: $(cat "$CS_OUT/replay.txt" "$CS_OUT/replay.err")"
fi

# (g) user errors: exit 2, one message, no traceback
echo '{"not": "a report"}' > "$CS_OUT/bad.json"
gbad=0
for args in "summary $CS_OUT/bad.json" "summary $CS_OUT/missing.json" \
            "compare $CS_OUT/new/stdout.txt $json" "trace2csv $csvf" \
            "summary $csvf $CS_OUT/local"; do
    # shellcheck disable=SC2086
    tool $args > "$CS_OUT/err.out" 2>&1
    rc=$?
    if [ "$rc" -ne 2 ] || grep -q Traceback "$CS_OUT/err.out" ||
       ! grep -q 'costa_shim_report: error:' "$CS_OUT/err.out"; then
        echo "      $args -> exit $rc: $(head -c 300 "$CS_OUT/err.out")"
        gbad=1
    fi
done
if [ "$gbad" = 0 ]; then
    report ok "(g) bad inputs: exit 2 with one error line"
else
    report FAIL "(g) bad inputs not handled"
fi

exit $((fails > 0))
