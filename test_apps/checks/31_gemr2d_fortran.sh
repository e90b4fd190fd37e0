#!/usr/bin/env bash
# 31_gemr2d_fortran.sh - Fortran PDGEMR2D/PSGEMR2D/PCGEMR2D/PZGEMR2D/PIGEMR2D
# natively and under the shim.
#
# Why: Fortran callers pass everything by reference and use contexts made by
# the Fortran BLACS interface.  gemr2d_fortran (16 fixed configs, self
# checking, digests printed by rank 0) runs on P = 1..4 ranks natively (yield
# preload when P > 2) and under the shim; both must pass, the outputs must
# be identical and the shim's stats must show the engine served every call.
# Env: BUILD_DIR MPIEXEC CS_SHIM CS_OUT CS_TOP PYTHON.
set -u
: "${BUILD_DIR:?}" "${MPIEXEC:?}" "${CS_SHIM:?}" "${CS_OUT:?}" "${CS_TOP:?}"
PYTHON="${PYTHON:-python3}"
. "$(dirname "$0")/../lib/checks_lib.sh"

bin="$BUILD_DIR/t/scalapack/gemr2d_fortran"
yield="$BUILD_DIR/t/lib/yield_preload.so"
stats_py="$CS_TOP/test_apps/lib/check_stats.py"
procs="1 2 3 4"
[ "${CS_CHECK_FULL:-0}" = 1 ] && procs="1 2 3 4 5 6"

cs_need_files "$bin" "$yield"
out="$CS_OUT"
cs_fresh_dir "$out"

# stats P DIR: the engine served every p?gemr2d call of the shim run
stats() {
    local p=$1 sd=$2 rc=0 calls nowork
    calls=$(cs_sum_field calls "$out/shim.$p.out")
    nowork=$(cs_sum_field calls_no_work "$out/shim.$p.out")
    "$PYTHON" "$stats_py" "$sd" --routine-regex '^C?p[sdczi]gemr2d_?$' \
        --expect-engine-calls "$((calls - nowork))" \
        --expect-none-calls "$nowork" --no-fallback > "$out/stats.$p.txt" \
        2>&1 || rc=$?
    sed 's/^/    /' "$out/stats.$p.txt"
    return "$rc"
}

status=0
cs_native_vs_shim "$out" "$bin" "$yield" stats $procs || status=1
[ "$status" -eq 0 ] && echo "31_gemr2d_fortran: OK"
exit "$status"
