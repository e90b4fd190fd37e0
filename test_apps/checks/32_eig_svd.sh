#!/usr/bin/env bash
# 32_eig_svd.sh - pdsyev / pdgesvd natively and under the shim.
#
# Why: pdsyev and pdgesvd call PDGEMR2D inside ScaLAPACK (through the PLT),
# the way real applications reach the shim.  eig_svd prints eigenvalues,
# singular values and digests of every rank's eigen/singular vectors as bit
# patterns; the native and the shim output must be identical, and the
# shim's stats must show engine rows for pdgemr2d with calls > 0 and no
# fallback/passthrough row but pdgemm_'s (the drivers also multiply:
# with COSTA_SHIM_GEMM at its default those calls pass through, reason
# gemm_off).  P = 2 (1x2, 2x1 grids) and 4 (2x2, 4x1);
# CS_CHECK_FULL=1 adds 3 and 6.  Env: BUILD_DIR MPIEXEC CS_SHIM CS_OUT CS_TOP
# PYTHON.
set -u
: "${BUILD_DIR:?}" "${MPIEXEC:?}" "${CS_SHIM:?}" "${CS_OUT:?}" "${CS_TOP:?}"
PYTHON="${PYTHON:-python3}"
. "$(dirname "$0")/../lib/checks_lib.sh"

bin="$BUILD_DIR/t/scalapack/eig_svd"
yield="$BUILD_DIR/t/lib/yield_preload.so"
stats_py="$CS_TOP/test_apps/lib/check_stats.py"
procs="2 4"
[ "${CS_CHECK_FULL:-0}" = 1 ] && procs="1 2 3 4 6"

cs_need_files "$bin" "$yield"
out="$CS_OUT"
cs_fresh_dir "$out"

# stats P DIR: engine rows for pdgemr2d, no fallback
stats() {
    local p=$1 sd=$2 rc=0
    "$PYTHON" "$stats_py" "$sd" --routine-regex 'pdgemr2d' \
        --min-engine-calls 1 --no-fallback --allow-passthrough gemm_off \
        > "$out/stats.$p.txt" 2>&1 || rc=$?
    sed 's/^/    /' "$out/stats.$p.txt"
    return "$rc"
}

status=0
cs_native_vs_shim "$out" "$bin" "$yield" stats $procs || status=1
[ "$status" -eq 0 ] && echo "32_eig_svd: OK"
exit "$status"
