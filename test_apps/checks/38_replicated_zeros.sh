#!/usr/bin/env bash
# test_apps/checks/38_replicated_zeros.sh - replicated targets (RSRC or
# CSRC = -1) keep PBLAS's signs of zeros: repl_zeros calls p?tran,
# p?tranc, p?geadd ('N', 'T') and p?tradd with sources full of -0.0 on every
# pattern of replicated A and C, on 2, 4 and 6 ranks (six grid shapes);
# the run under the shim (COSTA_SHIM_FALLBACK=never) must print exactly
# what the native run prints (the digests of every rank's whole C, no line
# more or less), and every call must be on the engine.  Fails when the
# engine leaves a -0.0 where PBLAS's sum of the copies makes +0.0 (or the
# reverse), or writes outside sub(C).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT, PYTHON.
set -euo pipefail
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
app=$BUILD_DIR/t/scalapack/repl_zeros
yield=$BUILD_DIR/t/lib/yield_preload.so
stats=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/test_apps/lib/check_stats.py
ncores=$(nproc 2>/dev/null || echo 2)
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"
for np in 2 4 6; do
    out=$CS_OUT/np$np
    mkdir -p "$out/stats"
    pre=""
    [ "$np" -gt "$ncores" ] && pre=$yield
    timeout 120 "$MPIEXEC" -n "$np" env ${pre:+LD_PRELOAD=$pre} "$app" \
        > "$out/native.txt"
    timeout 120 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD${pre:+:$pre}" \
        COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$out/stats" \
        "$app" > "$out/shim.txt" 2> "$out/shim.err"
    calls=$(awk '$1 == "calls" { print $2 }' "$out/native.txt")
    # lines of either file that the other lacks: a digest changed, missing
    # or added under the shim
    ndiff=$(diff "$out/native.txt" "$out/shim.txt" | grep -c '^[<>]' || true)
    echo "np $np: $calls calls, $ndiff lines differ"
    if [ "$ndiff" != 0 ] || [ -z "$calls" ]; then
        # (diff exits 1 here: under pipefail that would end the script
        # before the FAIL line)
        diff "$out/native.txt" "$out/shim.txt" | head -n 6 || true
        echo "FAIL: results under the shim differ from native"
        exit 1
    fi
    # the report counts the calls of every rank
    "${PYTHON:-python3}" "$stats" "$out/stats" \
        --routine-regex '^(pdtran_|pztranc_|pdgeadd_|pzgeadd_|pdtradd_)$' \
        --expect-engine-calls "$((calls * np))" --no-fallback \
        > "$out/stats.txt" || { tail -n 3 "$out/stats.txt"; exit 1; }
done
echo "ok: replicated targets match PBLAS bit for bit"
