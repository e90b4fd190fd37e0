#!/usr/bin/env bash
# 32_eig_svd.sh - pdsyev / pdgesvd natively and under the shim.
#
# Why: pdsyev and pdgesvd call PDGEMR2D inside ScaLAPACK (through the PLT),
# the way real applications reach the shim.  eig_svd prints eigenvalues,
# singular values and digests of every rank's eigen/singular vectors as bit
# patterns; the native and the shim output must be identical, and the
# shim's stats must show engine rows for pdgemr2d with calls > 0 and no
# fallback/passthrough row.  P = 2 (1x2, 2x1 grids) and 4 (2x2, 4x1);
# CS_CHECK_FULL=1 adds 3 and 6.  Env: BUILD_DIR MPIEXEC CS_SHIM CS_OUT CS_TOP
# PYTHON.
set -u
: "${BUILD_DIR:?}" "${MPIEXEC:?}" "${CS_SHIM:?}" "${CS_OUT:?}" "${CS_TOP:?}"
PYTHON="${PYTHON:-python3}"

bin="$BUILD_DIR/t/scalapack/eig_svd"
yield="$BUILD_DIR/t/lib/yield_preload.so"
stats_py="$CS_TOP/test_apps/lib/check_stats.py"
procs="2 4"
[ "${CS_CHECK_FULL:-0}" = 1 ] && procs="1 2 3 4 6"

for f in "$bin" "$yield"; do
    [ -e "$f" ] || { echo "FAIL: missing $f (make test_apps)"; exit 1; }
done
out="$CS_OUT"
rm -rf "$out"
mkdir -p "$out"
status=0

# run TAG P PRELOAD [env...]
run() {
    local tag=$1 p=$2 pre=$3
    shift 3
    local genv=() rc=0 t0=$SECONDS
    [ -n "$pre" ] && genv=(-genv LD_PRELOAD "$pre")
    env "$@" timeout -k 10 300 "$MPIEXEC" "${genv[@]}" -n "$p" "$bin" \
        > "$out/$tag.$p.out" 2> "$out/$tag.$p.err" || rc=$?
    echo "  $tag P=$p: rc=$rc, $((SECONDS - t0)) s"
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$out/$tag.$p.out")" != "cs_test: OK" ]
    then
        echo "FAIL: $tag run with P=$p (rc=$rc); stderr tail:"
        tail -n 20 "$out/$tag.$p.err" | sed 's/^/    /'
        return 1
    fi
}

echo "native runs:"
for p in $procs; do
    pre=""
    [ "$p" -gt 2 ] && pre="$yield"
    run native "$p" "$pre" || status=1
done

if [ ! -e "$CS_SHIM" ]; then
    echo "FAIL: shim $CS_SHIM not found: shim half not run"
    exit 1
fi

echo "shim runs:"
for p in $procs; do
    sd="$out/stats.$p"
    mkdir -p "$sd"
    run shim "$p" "$CS_SHIM:$yield" \
        COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$sd" || {
        status=1
        continue
    }
    if ! cmp -s "$out/native.$p.out" "$out/shim.$p.out"; then
        echo "FAIL: P=$p output differs between native and shim:"
        diff "$out/native.$p.out" "$out/shim.$p.out" | head -n 10 |
            sed 's/^/    /'
        status=1
    fi
    rc=0
    "$PYTHON" "$stats_py" "$sd" --routine-regex 'pdgemr2d' \
        --min-engine-calls 1 --no-fallback > "$out/stats.$p.txt" 2>&1 || rc=$?
    sed 's/^/    /' "$out/stats.$p.txt"
    [ "$rc" -eq 0 ] || status=1
done
[ "$status" -eq 0 ] && echo "32_eig_svd: OK"
exit "$status"
