#!/usr/bin/env bash
# test_apps/checks/54_bench_report.sh - scripts/bench_report.py (the last
# step of `make bench`) on fixed CSV rows, no timing: checks that
#   (a) every row is in the table, with shim/native, floor %, copy floor %,
#       the memory columns (empty ones as -) and the baseline's copy floor
#       % computed from the numbers given (the baseline file has no
#       mpi_floor_ms or memory columns, as the kept one);
#   (b) each target says MET or NOT MET as the numbers demand (a 4000x4000
#       case at 45 % of the floor, while one at 40 % of the copy floor but
#       75 % of the floor meets it; an 8000x8000 case at 50 %; a 200x200
#       case at 0.6 of native; a first call at 3x, and one at 1.25x but
#       slower than native's first call (1.1x and faster is met); a case
#       whose copy-floor fraction and shim/native are both more than 10 %
#       worse than the baseline's, while a case whose copy-floor fraction
#       fell but whose shim/native held is not slower);
#   (e) --scale-dir adds the scaling runs' shim/native and floor % beside
#       the 2-rank run's, for the cases both have;
#   (c) --md and --svg write the page (table, targets, baseline note) and
#       an SVG with one polyline per series and path;
#   (f) the first calls' phase columns give the table "What a first call
#       pays", rest = first call minus its four phases;
#   (g) the tail columns give a table of median, 90th percentile, slowest
#       call and slowest / median per path, and the target "slowest shim
#       call at most 2x the median" on the 4000x4000 cases (and the
#       2000x2000 complex transposes), no others;
#   (d) no rows is a usage error (exit 1 with a message, no traceback).
# Environment (run_checks.sh): CS_OUT, CS_TOP, PYTHON.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
top=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=$top/scripts/bench_report.py
cs_need_files "$tool"
cs_fresh_dir "$CS_OUT"
cd "$CS_OUT" || exit 1
fails=0

head=bench,case,description,size,reps,native_ms,shim_ms,floor_ms
head=$head,native_first_ms,shim_first_ms,ok
{
    echo "$head,mpi_floor_ms,native_mem_mb,shim_mem_mb,shim_held_mb"
    echo 'bench_gemr2d,b,"4000x4000 blk 36->128",4000,15,100,10,4,110,30,1,4.5,40,70.5,64'
    echo 'bench_gemr2d,e,"200x200",200,200,0.10,0.06,0.03,1,0.07,1,0.04'
    echo 'bench_gemr2d,i,"1000x1000",1000,30,10,1,0.5,11,1.2,1,0.7'
    echo 'bench_gemr2d,j,"8000x8000",8000,5,400,40,16,420,44,1,20'
    echo 'bench_tran,a,"pdtran 4000x4000",4000,15,20,5,4,21,5.5,1,6,1.25,2,0.5'
    echo 'bench_tran,d,"pdtran 3984x3984",3984,15,20,10,4,21,11,1,7.5'
    echo 'bench_tran,e,"pdtran 200x200",200,200,0.06,0.02,0.01,0.5,0.03,1,0.015'
    echo 'bench_tran,g1,"pdgeadd N 4000x4000",4000,15,4,4,5,4.4,5,1,5'
} > rows.csv
{
    echo "# the previous release, made up for this check"
    echo "$head"
    echo 'bench_gemr2d,b,"4000x4000 blk 36->128",4000,15,100,8,4,110,30,1'
    echo 'bench_tran,a,"pdtran 4000x4000",4000,15,20,8,4,21,9,1'
    echo 'bench_tran,g1,"pdgeadd N 4000x4000",4000,15,3.5,3.5,5,4,4,1'
} > base.csv

"$PYTHON" "$tool" --csv rows.csv --baseline base.csv --md perf.md \
    --svg perf.svg --meta "check 54" > out.txt 2> err.txt
rc=$?
cat out.txt err.txt
[ "$rc" = 0 ] && cs_report ok "bench_report.py ran" ||
    cs_report FAIL "bench_report.py exited with $rc"

# (a) rows and computed columns
row() { grep -F "| $1 |" out.txt; }
row "gemr2d b" |
    grep -q '| 0.100 | 45 | 40 | 30.000 | 3.00 | 1.10 | 40.0 | 70.5 | 64.0 | 50 | ok |' &&
    cs_report ok "(a) gemr2d b: ratio, floor %, copy floor %, 1st/median, memory, prev" ||
    cs_report FAIL "(a) gemr2d b row wrong"
row "tran a" | grep -q '| 0.250 | 120 | 80 | 5.500 | 1.10 | 1.05 | 1.2 | 2.0 | 0.5 | 50 | ok |' &&
    cs_report ok "(a) tran a row" ||
    cs_report FAIL "(a) tran a row wrong"
row "tran d" | grep -q '| 0.500 | 75 | 40 | 11.000 | 1.10 | 1.05 | - | - | - | - | ok |' &&
    cs_report ok "(a) tran d row (not in the baseline, no memory columns)" ||
    cs_report FAIL "(a) tran d row wrong"
[ "$(grep -c '^| gemr2d \|^| tran ' out.txt)" = 8 ] &&
    cs_report ok "(a) eight rows" ||
    cs_report FAIL "(a) not eight rows"

# (b) targets
expect_line() {
    if grep -qF -- "$1" out.txt; then
        cs_report ok "(b) $1"
    else
        cs_report FAIL "(b) missing: $1"
    fi
}
# tran d: 40 % of the copy floor, 75 % of the floor: met
expect_line "NOT MET at least 70 % of the floor (what crosses ranks through MPI once) on every 4000x4000 case: missed: gemr2d b 45 %"
expect_line "NOT MET at least 60 % of the floor on every 8000x8000 case: missed: gemr2d j 50 %"
expect_line "NOT MET 200x200 steady state at most half of native: missed: gemr2d e 0.60"
# tran a and d: 1.1x and faster than native's first call: met
expect_line "NOT MET first call at most 2x the steady state and not slower than native's first call, on every 4000x4000 case: missed: gemr2d b 3.00x, 30 vs 110 ms native, tran g1 1.25x, 5 vs 4 ms native"
# gemr2d b: copy floor 40 % vs 50 %, shim/native 0.100 vs 0.080: slower;
# tran g1: copy floor 125 % vs 143 % but shim/native 1.000 both times: not
# slower
expect_line "NOT MET no case slower than the previous release (fraction of the copy floor and shim/native, 10 % tolerance): slower: gemr2d b 40 % vs 50 %, 0.100 vs 0.080 of native"
if grep -F "no case slower" out.txt | grep -q "tran g1"; then
    cs_report FAIL "(b) tran g1 counted slower (its shim/native held)"
else
    cs_report ok "(b) tran g1 not slower: its shim/native held"
fi

# (c) page and chart
if grep -q '^# Performance' perf.md && grep -q 'Measured: check 54' perf.md &&
   grep -q 'Baseline: the previous release, made up' perf.md &&
   grep -q '^\* \*\*not met\*\*: at least 70 %' perf.md &&
   grep -q '(perf.svg)' perf.md; then
    cs_report ok "(c) perf.md: title, meta, baseline note, targets, chart"
else
    cs_report FAIL "(c) perf.md incomplete"
fi
if [ "$(grep -c '<polyline' perf.svg)" = 4 ] && grep -q '</svg>' perf.svg; then
    cs_report ok "(c) perf.svg: 4 lines (2 series x native/shim)"
else
    cs_report FAIL "(c) perf.svg: expected 4 polylines"
fi

# (e) scaling runs: only the 4-rank one is there
mkdir -p scale
{
    echo "$head,mpi_floor_ms"
    echo 'bench_tran,a,"pdtran 4000x1 grid",4000,7,40,20,4,41,22,1,5'
} > scale/bench_scale_r4t1.csv
"$PYTHON" "$tool" --csv rows.csv --scale-dir scale --md scale.md \
    > scale.txt 2>&1
if grep -qF '| tran a | pdtran 4000x4000 | 0.250 | 120 | 0.500 | 25 |' scale.txt &&
   grep -q '4 ranks x 1 thread: shim/native' scale.txt &&
   ! grep -q '2 ranks x 2 threads' scale.txt &&
   [ "$(grep -c '^| gemr2d \|^| tran ' scale.txt)" = 9 ] &&
   grep -q '^## How it scales' scale.md; then
    cs_report ok "(e) --scale-dir: tran a's 4-rank ratio and floor % beside the 2-rank run's"
else
    cs_report FAIL "(e) scaling table wrong"
    cat scale.txt
fi

# (f) the first calls' phases: a table with 1st call minus the four
# phases as rest, only for rows that have them
{
    echo "$head,mpi_floor_ms,native_mem_mb,shim_mem_mb,shim_held_mb,pack_ms,local_ms,unpack_ms,xfer_ms,first_pack_ms,first_local_ms,first_unpack_ms,first_xfer_ms"
    echo 'bench_tran,a,"pdtran 4000x4000",4000,15,20,5,4,21,30,1,6,1,2,1,1,2,1,0.5,3,4,2.5,0.25'
    echo 'bench_tran,b,"pdtran 4000x4000 a=2",4000,15,20,5,4,21,30,1,6,1,2,1,1,2,1,0.5,,,,'
} > first.csv
"$PYTHON" "$tool" --csv first.csv --md first.md > first.txt 2>&1
if grep -q '^## What a first call pays' first.md &&
   grep -qF '| tran a | pdtran 4000x4000 | 30.000 | 3.000 | 4.000 | 2.500 | 0.250 | 20.250 | 5.000 | 6.00 | 21.000 |' first.md &&
   [ "$(sed -n '/^## What a first call pays/,/^## /p' first.md | grep -c '^| tran ')" = 1 ]; then
    cs_report ok "(f) first calls: phases and rest (30 - 9.75 = 20.25 ms), rows without them left out"
else
    cs_report FAIL "(f) first-call table wrong"
    sed -n '/^## What a first call pays/,$p' first.md
fi

# (g) the tails: per path median, 90th percentile, slowest call and
# slowest / median in a table of their own, and the target of at most 2x
# on the 4000x4000 cases (the 2000x2000 complex ones too: as many bytes;
# a 200x200 case 5x slower at its worst is not one of them)
{
    echo "$head,mpi_floor_ms,native_mem_mb,shim_mem_mb,shim_held_mb,pack_ms,local_ms,unpack_ms,xfer_ms,first_pack_ms,first_local_ms,first_unpack_ms,first_xfer_ms,native_p90_ms,native_max_ms,shim_p90_ms,shim_max_ms"
    echo 'bench_tran,a,"pdtran 4000x4000",4000,40,20,5,4,21,5.5,1,6,1.25,2,0.5,,,,,,,,,25,30,6,60'
    echo 'bench_tran,c,"pztranu 2000x2000",2000,40,10,4,2,11,4.5,1,3,1,1,0.5,,,,,,,,,11,12,4.4,9'
    echo 'bench_tran,e,"pdtran 200x200",200,200,0.06,0.02,0.01,0.5,0.03,1,0.015,,,,,,,,,,,,0.07,0.1,0.05,0.1'
    echo 'bench_gemr2d,b,"4000x4000 blk 36->128",4000,40,100,0,4,110,0,1,4.5,,,,,,,,,,,,120,150,0,0'
} > tails.csv
"$PYTHON" "$tool" --csv tails.csv --md tails.md > tails.txt 2>&1
tails_ok=1
for want in \
    '| tran a | pdtran 4000x4000 | 40 | 20.000 | 25.000 | 30.000 | 1.50 | 5.000 | 6.000 | 60.000 | 12.00 |' \
    '| tran c | pztranu 2000x2000 | 40 | 10.000 | 11.000 | 12.000 | 1.20 | 4.000 | 4.400 | 9.000 | 2.25 |' \
    '| tran e | pdtran 200x200 | 200 | 0.060 | 0.070 | 0.100 | 1.67 | 0.020 | 0.050 | 0.100 | 5.00 |' \
    '| gemr2d b | 4000x4000 blk 36->128 | 40 | 100.000 | 120.000 | 150.000 | 1.50 | - | - | - | - |' \
    'NOT MET slowest shim call at most 2x the median on every 4000x4000 case: missed: tran a 12.0x (60.0 vs 5.0 ms), tran c 2.2x (9.0 vs 4.0 ms)'
do
    grep -qF -- "$want" tails.txt || { tails_ok=0; echo "missing: $want"; }
done
grep -F 'slowest shim call' tails.txt | grep -q 'tran e' && tails_ok=0
if [ "$tails_ok" = 1 ] && grep -q '^## Slowest calls' tails.md &&
   [ "$(sed -n '/^## Slowest calls/,/^## /p' tails.md | grep -c "^| ")" = 5 ]
then
    cs_report ok "(g) tails: median, p90, max, max/median per path; the 2x target missed by tran a (12x) and c (2000x2000 complex, 2.25x), not e (200x200, 5x)"
else
    cs_report FAIL "(g) tails table or target wrong"
    cat tails.txt
fi

# (d) nothing to report
"$PYTHON" "$tool" --csv missing.csv > none.txt 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q 'no benchmark rows' none.txt &&
   ! grep -q Traceback none.txt; then
    cs_report ok "(d) no rows: exit 1 with a message"
else
    cs_report FAIL "(d) no rows: exit $rc"
    cat none.txt
fi
[ "$fails" -eq 0 ]
