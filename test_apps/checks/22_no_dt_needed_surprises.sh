#!/usr/bin/env bash
# test_apps/checks/22_no_dt_needed_surprises.sh - the shim can be preloaded
# into anything (interface.md 1.1):
#  * its DT_NEEDED entries are only among libc, libdl, libpthread, libm,
#    libgomp, libmpich and the dynamic loader (ld-linux); ScaLAPACK, BLACS,
#    Fortran runtimes etc. must be reached through dlsym, never linked;
#  * it has no undefined *data* symbols: every undefined dynamic symbol
#    (readelf --dyn-syms, Ndx UND) is a FUNC, or a weak NOTYPE (the usual
#    __gmon_start__/_ITM_* references).  A data reference (OBJECT, TLS,
#    COMMON, or a strong NOTYPE) to MPI or ScaLAPACK fails at load time or
#    copies the wrong object.  The one exception: data of glibc itself
#    (versioned @GLIBC_*, e.g. stderr), which is always present; it is listed
#    as a note.
# Environment (run_checks.sh): CS_SHIM.
set -euo pipefail

: "${CS_SHIM:?}"
if [ ! -f "$CS_SHIM" ]; then
    echo "FAIL: shim library $CS_SHIM not found (build it: make)"
    exit 1
fi

fails=0
allowed='^(libc\.so\.6|libdl\.so\.2|libpthread\.so\.0|libm\.so\.6|libgomp\.so\.1|libmpich\.so\.[0-9]+|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$'
needed=$(readelf -d -W "$CS_SHIM" |
         sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\].*/\1/p')
echo "DT_NEEDED: $(echo "$needed" | paste -sd ' ')"
for lib in $needed; do
    if ! [[ "$lib" =~ $allowed ]]; then
        echo "FAIL: unexpected DT_NEEDED entry: $lib"
        fails=$((fails + 1))
    fi
done

# readelf --dyn-syms -W columns: Num: Value Size Type Bind Vis Ndx Name [(ver)]
und=$(readelf --dyn-syms -W "$CS_SHIM" |
      awk '$7 == "UND" && NF >= 8 { print $4, $5, $8 }')
nund=0
while read -r type bind name; do
    [ -n "$name" ] || continue
    nund=$((nund + 1))
    if [ "$type" = FUNC ]; then
        continue
    elif [ "$type" = NOTYPE ] && [ "$bind" = WEAK ]; then
        continue
    elif [[ "$name" == *@GLIBC_* ]]; then
        echo "note: undefined glibc data symbol $name ($type $bind)"
    else
        echo "FAIL: undefined data symbol $name ($type $bind)"
        fails=$((fails + 1))
    fi
done <<< "$und"
echo "undefined dynamic symbols: $nund"

if [ "$fails" -ne 0 ]; then
    echo "$fails problem(s) in the dynamic dependencies of $CS_SHIM"
    exit 1
fi
echo "dynamic dependencies ok"
