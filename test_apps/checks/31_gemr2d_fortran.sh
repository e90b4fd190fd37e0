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

bin="$BUILD_DIR/t/scalapack/gemr2d_fortran"
yield="$BUILD_DIR/t/lib/yield_preload.so"
stats_py="$CS_TOP/test_apps/lib/check_stats.py"
procs="1 2 3 4"
[ "${CS_CHECK_FULL:-0}" = 1 ] && procs="1 2 3 4 5 6"

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
    local genv=() rc=0
    [ -n "$pre" ] && genv=(-genv LD_PRELOAD "$pre")
    env "$@" timeout -k 10 300 "$MPIEXEC" "${genv[@]}" -n "$p" "$bin" \
        > "$out/$tag.$p.out" 2> "$out/$tag.$p.err" || rc=$?
    echo "  $tag P=$p: rc=$rc"
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
    calls=$(awk '$1 == "calls" { s += $3 } END { print s + 0 }' \
            "$out/shim.$p.out")
    rc=0
    "$PYTHON" "$stats_py" "$sd" --routine-regex '^C?p[sdczi]gemr2d_?$' \
        --expect-engine-calls "$calls" --no-fallback > "$out/stats.$p.txt" \
        2>&1 || rc=$?
    sed 's/^/    /' "$out/stats.$p.txt"
    [ "$rc" -eq 0 ] || status=1
done
[ "$status" -eq 0 ] && echo "31_gemr2d_fortran: OK"
exit "$status"
