#!/usr/bin/env bash
# test_apps/checks/21_symbols.sh - the shim exports exactly the expected
# symbols (house-style 2.3: a preloaded library must never export a helper
# that could interpose on an application symbol).  Compares the sorted names
# of `nm -D --defined-only $CS_SHIM` with the sorted contents of
# test_apps/preload/expected_symbols.txt (one name a line, written by hand;
# blank lines and lines starting with '#' are ignored).  Names are compared
# without symbol-version suffixes (foo@@VER -> foo), and version-node entries
# (absolute symbols, type A) are not exported functions, so they are skipped.
# Prints a diff on mismatch.
# Environment (run_checks.sh): CS_SHIM, CS_TOP, CS_OUT.
set -euo pipefail

: "${CS_SHIM:?}" "${CS_TOP:?}" "${CS_OUT:?}"
expected=$CS_TOP/test_apps/preload/expected_symbols.txt
if [ ! -f "$CS_SHIM" ]; then
    echo "FAIL: shim library $CS_SHIM not found (build it: make)"
    exit 1
fi
if [ ! -f "$expected" ]; then
    echo "FAIL: ${expected#"$CS_TOP"/} is missing: it must list every symbol"
    echo "      libcosta_shim.so exports, one a line (compare: make symbols)"
    exit 1
fi

mkdir -p "$CS_OUT"
nm -D --defined-only "$CS_SHIM" |
    awk 'NF >= 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' |
    LC_ALL=C sort > "$CS_OUT/actual.txt"
sed -e 's/#.*//' -e 's/@.*//' -e 's/[[:space:]]//g' "$expected" |
    awk 'NF' | LC_ALL=C sort > "$CS_OUT/expected.txt"

if [ ! -s "$CS_OUT/actual.txt" ]; then
    echo "FAIL: nm -D --defined-only $CS_SHIM lists no symbols"
    exit 1
fi
if ! diff -u --label expected_symbols.txt --label "nm -D $(basename "$CS_SHIM")" \
        "$CS_OUT/expected.txt" "$CS_OUT/actual.txt"; then
    echo
    echo "FAIL: exported symbols differ from ${expected#"$CS_TOP"/}"
    echo "      ('-' expected but not exported, '+' exported but not expected)"
    exit 1
fi
echo "exported symbols match ($(wc -l < "$CS_OUT/actual.txt") names)"
