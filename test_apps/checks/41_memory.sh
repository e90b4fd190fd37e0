#!/usr/bin/env bash
# test_apps/checks/41_memory.sh - memory pressure (issue 17 items 1-2):
# what the shim allocates is decided before it is touched, and running out
# of it sends every rank to ScaLAPACK instead of stopping the job.
#   1. COSTA_SHIM_TEST_FAULT=workspace, _RANK=1: every engine reservation on rank 1 fails
#      as out of memory.  gemr2d_sweep and tran_sweep (2 ranks) give the
#      digests of their native runs, exit 0, and the report
#      (COSTA_SHIM_STATS=full) shows no byte moved by the engine on rank 1
#      and calls as fallback/memory (rank 0 still serves the calls of
#      grids without rank 1).
#   2. mem_peak (pdtran_ 3000 x 3000 on 1 x 2, 3 calls, uncut:
#      COSTA_SHIM_WORKSPACE=inf, since the default 8 MiB bound would hide
#      in the peaks' noise): peak resident
#      memory (VmHWM, max over ranks; the smallest of three launches)
#      under the shim with COSTA_SHIM_MAX_MEMORY=1k at most native's + 16
#      MB (the workspace of about 36 MB is never mapped; capped runs peak
#      at native's +1 or +10 MB from one launch to the next, native ones
#      at 96-105 MB), and under the default at least native's + 20 MB
#      (the measurement sees the workspace); the capped calls are
#      fallback/memory; C right in all three.
#   3. An address-space limit on rank 1 only (ulimit -v: native's peak
#      virtual size + 16 MB), pdtran_ 4000 x 4000 uncut (WORKSPACE=inf):
#      native completes, the
#      shim's 64 MB workspace does not fit, so both ranks take ScaLAPACK
#      (fallback/memory) and the run completes with C right.
#   4. gemr2d_sweep with COSTA_SHIM_MAX_MEMORY=64k: the native digests, and
#      the report's peak of what the shim held is at most the cap (plans
#      evicted and the workspace released to stay under it).
#   5. The workspace bound (COSTA_SHIM_WORKSPACE=auto): pdtran_ 6000 x 6000
#      on 1 x 2 (144 MB sent plus received per rank) runs on the engine in
#      panels; what the shim held stays within 12 MiB (the 8 MiB bound of
#      2 ranks, its mapping's headroom and the plans), its peak resident
#      memory within native's + 80 MB (native:
#      the smallest of three launches), while the uncut call (inf) peaks
#      at least 60 MB above the bounded one; C right.
#   Parts 2, 3 and 5 measure resident and virtual memory, which ASan's
#   shadow changes: not under make check SAN=....
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT, CS_TOP,
# PYTHON.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
sweep=$BUILD_DIR/t/scalapack/gemr2d_sweep
tsweep=$BUILD_DIR/t/scalapack/tran_sweep
peak=$BUILD_DIR/t/scalapack/mem_peak
cs_need_files "$sweep" "$tsweep" "$peak" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
export OMP_NUM_THREADS=1
fails=0


# field NAME DIR: the value of "NAME <v>" in DIR/out
field() {
    awk -v k="$1" '$1 == k { print $2 }' "$2/out"
}

# report_py DIR CODE: run python CODE (indented or not) with the report's JSON as `rep`
report_py() {
    "$PYTHON" - "$1" "$2" <<'EOF'
import glob, json, os, sys, textwrap
rep = json.load(open(glob.glob(os.path.join(sys.argv[1], "stats", "costa_shim.*.json"))[0]))
exec(textwrap.dedent(sys.argv[2]))
EOF
}

# 1. forced failure on one rank
for prog in gemr2d_sweep tran_sweep; do
    bin=$BUILD_DIR/t/scalapack/$prog
    cs_launch2 "$CS_OUT/nomem.$prog.native" "" -- "$bin" --seed 41 --count 60 \
        --digest dig
    cs_launch2 "$CS_OUT/nomem.$prog.shim" "$CS_PRELOAD" COSTA_SHIM_TEST_FAULT=workspace COSTA_SHIM_TEST_FAULT_RANK=1 \
        COSTA_SHIM_STATS=full -- "$bin" --seed 41 --count 60 --digest dig
    rc=$?
    n=$CS_OUT/nomem.$prog.native s=$CS_OUT/nomem.$prog.shim
    res=$(report_py "$s" '
r1 = [k for k in rep["ranks"] if k["rank"] == 1][0]["routines"]
moved = sum(r["bytes_sent"] + r["bytes_self"] + r["bytes_recv"]
            for r in r1 if r["path"] == "engine")
mem = sum(r["calls"] for r in rep["routines"] if r["reason"] == "memory")
print(moved, mem)' 2>&1)
    if [ "$rc" -eq 0 ] && cmp -s "$n/dig.0" "$s/dig.0" && cmp -s "$n/dig.1" "$s/dig.1" &&
       [ "${res%% *}" = 0 ] && [ "${res##* }" -gt 0 ]; then
        cs_report ok "$prog, rank 1 out of memory: native digests, ${res##* } calls fallback/memory, 0 bytes on rank 1's engine"
    else
        cs_report FAIL "$prog with COSTA_SHIM_TEST_FAULT=workspace on rank 1: exit $rc, report [$res], or digests differ"
        tail -n 4 "$s/err" | sed 's/^/      | /'
    fi
done

# 2. the cap, before anything is touched
# the smallest peak of three runs (the same run's peak varies by up to
# 11 MB from one launch to the next, natively too)
min_peak() {
    local best="" k v
    for k in 1 2 3; do
        v=$(field vmhwm_kb "$1.$k")
        [ -n "$v" ] && { [ -z "$best" ] || [ "$v" -lt "$best" ]; } && best=$v
    done
    echo "$best"
}

part_cap() {
    local k
    for k in 1 2 3; do
        cs_launch2 "$CS_OUT/cap.native.$k" "" -- "$peak" --n 3000
        cs_launch2 "$CS_OUT/cap.1k.$k" "$CS_PRELOAD" COSTA_SHIM_MAX_MEMORY=1k \
            COSTA_SHIM_WORKSPACE=inf -- "$peak" --n 3000
    done
    cs_launch2 "$CS_OUT/cap.default" "$CS_PRELOAD" COSTA_SHIM_WORKSPACE=inf -- \
        "$peak" --n 3000
    ln -sfn cap.1k.1 "$CS_OUT/cap.1k"
    hn=$(min_peak "$CS_OUT/cap.native") hd=$(field vmhwm_kb "$CS_OUT/cap.default")
    hc=$(min_peak "$CS_OUT/cap.1k")
    memcalls=$(report_py "$CS_OUT/cap.1k" '
    print(sum(r["calls"] for r in rep["routines"]
              if r["routine"] == "pdtran_" and r["reason"] == "memory"))' 2>&1)
    echo "peak resident (max over ranks): native ${hn} kB, shim ${hd} kB, shim capped ${hc} kB"
    if [ -n "$hn" ] && [ -n "$hd" ] && [ -n "$hc" ] &&
       [ "$hc" -le $((hn + 16384)) ] && [ "$hd" -ge $((hn + 20480)) ] &&
       [ "$memcalls" = 6 ] &&
       grep -qx 'cs_test: OK' "$CS_OUT/cap.1k/out" && grep -qx 'cs_test: OK' "$CS_OUT/cap.default/out"; then
        cs_report ok "cap 1k: peak $hc kB against native $hn kB (uncapped $hd kB), 6/6 calls fallback/memory, C right"
    else
        cs_report FAIL "cap 1k: peaks native $hn, default $hd, capped $hc kB, $memcalls memory calls"
    fi
}

# 3. a real address-space limit on one rank
part_ulimit() {
    cs_launch2 "$CS_OUT/ulimit.native" "" -- "$peak" --n 4000
    vp=$(field vmpeak_kb "$CS_OUT/ulimit.native")
    lim=$((vp + 16384))
    rank_is_1='[ "${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}" = 1 ]'
    cs_launch2 "$CS_OUT/ulimit.native2" "" -- bash -c "$rank_is_1 && ulimit -v $lim; exec $peak --n 4000"
    rn=$?
    cs_launch2 "$CS_OUT/ulimit.shim" "$CS_PRELOAD" COSTA_SHIM_WORKSPACE=inf -- bash -c "$rank_is_1 && ulimit -v $lim; exec $peak --n 4000"
    rs=$?
    memcalls=$(report_py "$CS_OUT/ulimit.shim" '
    print(sum(r["calls"] for r in rep["routines"]
              if r["routine"] == "pdtran_" and r["reason"] == "memory"))' 2>&1)
    if [ "$rn" -eq 0 ] && [ "$rs" -eq 0 ] && grep -qx 'cs_test: OK' "$CS_OUT/ulimit.shim/out" &&
       [ "$memcalls" = 6 ]; then
        cs_report ok "ulimit -v $lim kB on rank 1: native and shim complete, 6/6 calls fallback/memory, C right"
    else
        cs_report FAIL "ulimit -v $lim kB on rank 1: native exit $rn, shim exit $rs, $memcalls memory calls"
        tail -n 4 "$CS_OUT/ulimit.shim/err" | sed 's/^/      | /'
    fi
}

# 5. the bounded workspace: pdtran_ 6000 x 6000 on 1 x 2 moves 144 MB per
# rank; by default (COSTA_SHIM_WORKSPACE=auto) it runs in panels through
# 8 MiB, uncut (inf) through 144 MB.  Native's peak is the
# smallest of three launches (it varied 304-370 MB between launches), and
# the uncut run is compared with the bounded one, not with native.
part_bound() {
    local k
    for k in 1 2 3; do
        cs_launch2 "$CS_OUT/bound.native.$k" "" -- "$peak" --n 6000 --reps 2
    done
    cs_launch2 "$CS_OUT/bound.auto" "$CS_PRELOAD" COSTA_SHIM_STATS=full -- "$peak" \
        --n 6000 --reps 2
    cs_launch2 "$CS_OUT/bound.inf" "$CS_PRELOAD" COSTA_SHIM_WORKSPACE=inf -- "$peak" \
        --n 6000 --reps 2
    local hn hb hi wb
    hn=$(min_peak "$CS_OUT/bound.native") hb=$(field vmhwm_kb "$CS_OUT/bound.auto")
    hi=$(field vmhwm_kb "$CS_OUT/bound.inf")
    wb=$(report_py "$CS_OUT/bound.auto" '
    eng = sum(r["calls"] for r in rep["routines"] if r["path"] == "engine")
    print(rep["meta"]["mem_peak_bytes"], eng)' 2>&1)
    echo "pdtran_ 6000 x 6000, peak resident (max over ranks): native ${hn} kB, shim ${hb} kB, uncut ${hi} kB; the shim held [$wb] bytes/engine calls"
    if [ -n "$hn" ] && [ -n "$hb" ] && [ -n "$hi" ] &&
       [ "${wb%% *}" -le $((12 << 20)) ] && [ "${wb##* }" = 4 ] &&
       [ "$hb" -le $((hn + 81920)) ] && [ "$hi" -ge $((hb + 61440)) ] &&
       grep -qx 'cs_test: OK' "$CS_OUT/bound.auto/out" &&
       grep -qx 'cs_test: OK' "$CS_OUT/bound.inf/out"; then
        cs_report ok "bounded workspace, pdtran_ 6000 x 6000: peak $hb kB against native $hn kB (uncut $hi kB), the shim held ${wb%% *} bytes, 4/4 calls on the engine, C right"
    else
        cs_report FAIL "bounded workspace: peaks native $hn, auto $hb, inf $hi kB, held/engine calls [$wb]"
    fi
}

# Resident and virtual sizes under the sanitizers (make check SAN=...)
# measure ASan's shadow memory and quarantine, not the shim: parts 2, 3
# and 5 run in the uninstrumented suite only.
if [ -n "${CS_SAN:-}" ]; then
    echo "parts 2, 3 and 5 (resident and virtual memory): uninstrumented suite only"
else
    part_cap
    part_ulimit
    part_bound
fi

# 4. many calls under a small cap: what the shim held stays below it
cs_launch2 "$CS_OUT/small.native" "" -- "$sweep" --seed 42 --count 80 --digest dig
cs_launch2 "$CS_OUT/small.shim" "$CS_PRELOAD" COSTA_SHIM_MAX_MEMORY=64k -- \
    "$sweep" --seed 42 --count 80 --digest dig
rc=$?
res=$(report_py "$CS_OUT/small.shim" '
m = rep["meta"]
eng = sum(r["calls"] for r in rep["routines"] if r["path"] == "engine")
mem = sum(r["calls"] for r in rep["routines"] if r["reason"] == "memory")
print(m["mem_peak_bytes"], m["mem_cap_bytes"], eng, mem)' 2>&1)
read -r mp mc eng mem <<< "$res"
if [ "$rc" -eq 0 ] && cmp -s "$CS_OUT/small.native/dig.0" "$CS_OUT/small.shim/dig.0" &&
   cmp -s "$CS_OUT/small.native/dig.1" "$CS_OUT/small.shim/dig.1" &&
   [ "$mc" = 65536 ] && [ "$mp" -le 65536 ] && [ "$eng" -gt 0 ]; then
    cs_report ok "cap 64k over 80 configs: native digests, the shim held at most $mp bytes, $eng calls on the engine, $mem fallback/memory"
else
    cs_report FAIL "cap 64k: exit $rc, report [$res], or digests differ"
fi

exit $((fails > 0))
