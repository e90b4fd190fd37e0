#!/usr/bin/env bash
# scripts/bench.sh - run by `make bench` (which has built everything): runs
# the MPI benchmarks on 2 ranks with OMP_NUM_THREADS=1 and libcosta_shim.so
# preloaded, so native ScaLAPACK and the shim are timed in the same process,
# and prints their tables:
#   bench_gemr2d  pdgemr2d_ (test_apps/bench/bench_gemr2d.c)
#                 -> bench_out/bench_gemr2d.txt
#   bench_tran    pdtran_, pztranu_, pdtrmr2d_, pdgeadd_
#                 (test_apps/bench/bench_tran.c) -> bench_out/bench_tran.txt
# then test_apps/unit/bench_kernels (kernels against memcpy) and
# test_apps/unit/test_plan_scaling --bench (plan creation for simulated
# grids of P = 256 .. 65536: CPU time and heap bytes per plan), one
# process each, no MPI, -> bench_out/bench_kernels.txt, bench_plan.txt;
# then bench_panels (test_apps/mpi/bench_panels.c: calls cut into panels
# against uncut, alternating in one process) -> bench_out/bench_panels.txt;
# then bench_gemr2d on two emulated nodes -> bench_out/bench_gemr2d_nodes.txt
# and scripts/bench_model.py (costa-shim-model with the bandwidths measured,
# against the measured times) -> bench_out/bench_model.txt;
# then, if it exists, scripts/bench_relabel.sh (its own table and file).
# bench_gemm (test_apps/bench/bench_gemm.c: pdgemm_/pzgemm_/pdsyrk_ native, shim
# and the compute floor, a local dgemm_ of each rank's share, taking
# turns) runs after the scaling runs with COSTA_SHIM_GEMM=on, 2 ranks,
# -> bench_out/bench_gemm.txt, then its 2x2 cases on 4 ranks (with the
# yielding preload, as the 4-rank scaling run) -> bench_gemm_r4.txt;
# CS_BENCH_GEMM_ARGS replaces the 2-rank run's arguments (e.g.
# "--cases eg --reps 5"; default all cases, 40 rounds).
# Finally scripts/bench_report.py turns the MPI benchmarks' CSV rows
# (bench_out/*.csv) into one table with the performance targets, compared
# with the previous release (docs/performance_baseline.csv), plus
# bench_gemm's rows as a table of their own (outside the targets), and writes
# docs/performance.md and docs/performance.svg.
#
# CS_BENCH_SHIM=path/libcosta_shim.so measures another build of the shim
# (e.g. the previous release, to make the baseline: its CSV rows are the
# baseline file); CS_BENCH_DOCS=0 leaves docs/ alone.
# Every benchmark runs even if an earlier one fails; the script fails if any
# did.  Extra arguments go to bench_gemr2d and bench_tran (e.g.
# scripts/bench.sh --cases ab --reps 5), not to bench_gemm (its case
# letters differ: CS_BENCH_GEMM_ARGS) nor to bench_relabel.sh.
# Environment (from make): MPIEXEC, BUILD_DIR (relative to the top), PYTHON.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
BUILD_DIR=${BUILD_DIR:-build/release}
case "$BUILD_DIR" in /*) bdir=$BUILD_DIR ;; *) bdir=$top/$BUILD_DIR ;; esac
shim=${CS_BENCH_SHIM:-$top/libcosta_shim.so}
benches=(bench_gemr2d bench_tran)

for f in "$shim" "${benches[@]/#/$bdir/t/bench/}" "$bdir/t/bench/bench_gemm"; do
    if [ ! -e "$f" ]; then
        echo "bench.sh: $f not found; run 'make bench' (it builds first)" >&2
        exit 1
    fi
done

outdir=$top/bench_out
mkdir -p "$outdir"

# DAMON's proactive reclaim (a kdamond with a pageout scheme, found on the
# CI virtual machines) pages out memory that stays untouched for a while,
# e.g. the shim's buffers while a native call runs; the next call faults
# them back in.  Timings of large cases then vary by 10x: say so.
damon="" damon_state=""
for st in /sys/kernel/mm/damon/admin/kdamonds/*/state; do
    [ -r "$st" ] && [ "$(cat "$st")" = on ] || continue
    if grep -qs pageout "${st%/state}"/contexts/*/schemes/*/action; then
        damon="DAMON pageout active (${st%/state})" damon_state=$st
    fi
done
if [ -n "$damon" ]; then
    echo "bench.sh: note: $damon: cold memory is reclaimed between" \
         "calls, large cases will vary (as root: echo off >" \
         "$damon_state, then echo on after the run)" >&2
fi

meta="$(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname),\
 $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1),\
 $(nproc) cores, git $(git -C "$top" rev-parse --short HEAD 2>/dev/null ||
                      echo none), load at start $(cut -d' ' -f1-3 /proc/loadavg)${damon:+, $damon}"

# run_mpi_bench NAME ARGS...: runs one benchmark, tees its table to
# bench_out/NAME.txt and its rows to bench_out/NAME.csv; returns the
# benchmark's exit status.
run_mpi_bench() {
    # CS_BENCH_PROG: the program, when it differs from the run's name
    # CS_BENCH_RANKS, CS_BENCH_THREADS: ranks and OMP_NUM_THREADS (2, 1)
    local name=$1 bin=$bdir/t/bench/${CS_BENCH_PROG:-$1} out=$outdir/$1.txt
    local ranks=${CS_BENCH_RANKS:-2} threads=${CS_BENCH_THREADS:-1}
    local rc=0
    shift
    rm -f "$outdir/$name.csv"
    set -- --csv "$outdir/$name.csv" "$@"
    {
        echo "# $(date -u '+%Y-%m-%dT%H:%M:%SZ') $(hostname)" \
             "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
             "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "# git $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo none)" \
             "| LD_PRELOAD=$shim${LD_PRELOAD:+:$LD_PRELOAD}" \
             "OMP_NUM_THREADS=$threads $MPIEXEC -n $ranks $bin $*"
        OMP_NUM_THREADS=$threads LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" \
            "$MPIEXEC" -n "$ranks" "$bin" "$@"
    } | tee "$out" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "bench.sh: $name failed (exit $rc); partial table in" \
             "${out#"$top"/}" >&2
    else
        echo "(saved to ${out#"$top"/})"
    fi
    return "$rc"
}

failed=()
for b in "${benches[@]}"; do
    [ "$b" = "${benches[0]}" ] || echo
    run_mpi_bench "$b" "$@" || failed+=("$b")
done

# the large transposes (and f, pdtrmr2d) again with the shared send buffer
# made at the first call that can use it (COSTA_SHIM_SHM=eager): the steady
# state that the default (auto) reaches in a long run, once the buffer has
# paid off
echo
CS_BENCH_PROG=bench_tran COSTA_SHIM_SHM=eager \
    run_mpi_bench bench_tran_shm --cases abcdfghjkl || failed+=(bench_tran_shm)

# how it scales on this machine's cores (docs/performance.md, "How it
# scales"): the 4000 x 4000 cases and the 200 x 200 ones again with one
# rank of two OpenMP threads (1 x 1 grids: the shim's threaded copies),
# two ranks of two threads each (more threads than cores) and four ranks
# of one thread on the two cores (grids 1 x 4 and 4 x 1; with MPICH the
# yielding preload of the tests, without which MPICH's busy-polling ranks
# take each other's cores)
yield=$bdir/t/lib/yield_preload.so
[ -e "$yield" ] || yield=""
for run in "1 2" "2 2" "4 1"; do
    read -r sranks sthreads <<<"$run"
    sname=bench_scale_r${sranks}t$sthreads spre=""
    [ "$sranks" -gt 2 ] && spre=$yield
    echo
    rm -f "$outdir/$sname.csv"
    for b in bench_gemr2d bench_tran; do
        cases=abce
        [ "$b" = bench_tran ] && cases=abceh
        CS_BENCH_PROG=$b CS_BENCH_RANKS=$sranks CS_BENCH_THREADS=$sthreads \
            LD_PRELOAD=$spre run_mpi_bench "${sname}_$b" --cases $cases \
            --reps 7 || failed+=("${sname}_$b")
        # one CSV per run, one header line
        if [ -s "$outdir/$sname.csv" ]; then
            tail -n +2 "$outdir/${sname}_$b.csv" >>"$outdir/$sname.csv"
        else
            cat "$outdir/${sname}_$b.csv" >"$outdir/$sname.csv"
        fi 2>/dev/null || true
    done
done

# p?gemm against the compute floor (bench_gemm.c), the shim taking every
# call its decision accepts (COSTA_SHIM_GEMM=on); then its 2x2 cases (f,
# h, k, o, p, w) on 4 ranks, fewer rounds: four ranks share the two cores
read -ra gemm_args <<<"${CS_BENCH_GEMM_ARGS:-}"
echo
COSTA_SHIM_GEMM=on run_mpi_bench bench_gemm "${gemm_args[@]}" ||
    failed+=(bench_gemm)
echo
CS_BENCH_PROG=bench_gemm CS_BENCH_RANKS=4 COSTA_SHIM_GEMM=on \
    LD_PRELOAD=$yield run_mpi_bench bench_gemm_r4 --cases fhkopw --reps 10 ||
    failed+=(bench_gemm_r4)

# what cutting a call into panels costs (COSTA_SHIM_WORKSPACE): the same
# operations uncut and cut, alternating in one process (2 ranks)
panels=$bdir/t/mpi/bench_panels
if [ -x "$panels" ]; then
    echo
    echo "== panels: 8000 x 8000 cut by the default bound, 4000 x 4000 by 16 MiB"
    { OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 "$panels" --n 8000 --reps 20 &&
      OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 "$panels" --n 4000 --reps 40 \
          --ws 16777216; } | tee "$outdir/bench_panels.txt" ||
        failed+=(bench_panels)
fi

# pdgemr2d again with the two ranks on two emulated nodes (MPI's network
# path, test_apps/lib/mpiexec_nodes.sh), for the machine model's link of a
# node; the cases the model describes, the largest left out (native takes
# seconds a call over TCP); 15 calls each: the model needs medians, not
# the 40 calls that show the slowest ones
echo
case "$MPIEXEC" in *openmpi*) nodes_flavour=openmpi ;; *) nodes_flavour=mpich ;; esac
CS_BENCH_PROG=bench_gemr2d CS_NODE_SIZE=1 CS_NODES_FLAVOUR=$nodes_flavour \
    CS_NODES_MPIEXEC=$MPIEXEC MPIEXEC=$top/test_apps/lib/mpiexec_nodes.sh \
    run_mpi_bench bench_gemr2d_nodes --cases abcei --reps 15 ||
    failed+=(bench_gemr2d_nodes)

# the machine model (costa-shim-model) with the bandwidths measured above,
# against the measured times
model=$bdir/t/unit/relabel_model
if [ -x "$model" ]; then
    echo
    "${PYTHON:-python3}" "$top/scripts/bench_model.py" --model "$model" \
        --out "$outdir" | tee "$outdir/bench_model.txt" ||
        failed+=(bench_model)
fi

# the transform kernels alone against memcpy (one process, no MPI)
kernels=$bdir/t/unit/bench_kernels
if [ -x "$kernels" ]; then
    echo
    "$kernels" 4000 7 | tee "$outdir/bench_kernels.txt" ||
        failed+=(bench_kernels)
fi

# plan creation on simulated large grids (one process, no MPI)
plan=$bdir/t/unit/test_plan_scaling
if [ -x "$plan" ]; then
    echo
    "$plan" --bench | tee "$outdir/bench_plan.txt" || failed+=(bench_plan)
fi

relabel=$top/scripts/bench_relabel.sh
if [ -f "$relabel" ]; then
    echo
    BUILD_DIR=$BUILD_DIR bash "$relabel" || failed+=(bench_relabel)
fi

# one table of both MPI benchmarks, the targets, the p?gemm table,
# docs/performance.md
echo
echo "== all cases (scripts/bench_report.py) =="
report=(--csv "$outdir/bench_gemr2d.csv" --csv "$outdir/bench_tran.csv"
        --csv-shm "$outdir/bench_tran_shm.csv" --model "$outdir/bench_model.csv"
        --csv-gemm "$outdir/bench_gemm.csv"
        --csv-gemm "$outdir/bench_gemm_r4.csv"
        --baseline "$top/docs/performance_baseline.csv" --meta "$meta"
        --scale-dir "$outdir")
if [ "${CS_BENCH_DOCS:-1}" != 0 ]; then
    report+=(--md "$top/docs/performance.md" --svg "$top/docs/performance.svg")
fi
"${PYTHON:-python3}" "$top/scripts/bench_report.py" "${report[@]}" |
    tee "$outdir/bench_report.txt" || failed+=(bench_report)

if [ "${#failed[@]}" -ne 0 ]; then
    echo "bench.sh: FAILED: ${failed[*]}" >&2
    exit 1
fi
