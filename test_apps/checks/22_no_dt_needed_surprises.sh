#!/usr/bin/env bash
# test_apps/checks/22_no_dt_needed_surprises.sh - the shim can be preloaded
# into anything (interface.md 1.1), including a program of the other MPI:
#  * its DT_NEEDED entries are only among libc, libdl, libpthread, libm,
#    libgomp and the dynamic loader (ld-linux); no MPI library (it would
#    put a second MPI into a program of the other flavour, ahead of the
#    program's own), no ScaLAPACK, BLACS or Fortran runtime: those are
#    reached through dlsym or bound from the program's own;
#  * every undefined reference to MPI (P?MPI_*, MPIR_*, ompi_*, OMPI_*) is
#    weak, so loading the library never fails where that MPI is absent;
#  * it has no other undefined *data* symbols: every other undefined
#    dynamic symbol (readelf --dyn-syms, Ndx UND) is a FUNC, or a weak
#    NOTYPE (the usual __gmon_start__/_ITM_* references).  A data
#    reference (OBJECT, TLS, COMMON, or a strong NOTYPE) fails at load time
#    or copies the wrong object.  The one exception: data of glibc itself
#    (versioned @GLIBC_*, e.g. stderr), which is always present; it is
#    listed as a note;
#  * it carries the tag "costa-shim-mpi-abi: $CS_MPI" that
#    scripts/costa-shim-check reads to tell the builds apart.
# Environment (run_checks.sh): CS_SHIM, CS_MPI.
set -euo pipefail

: "${CS_SHIM:?}"
if [ ! -f "$CS_SHIM" ]; then
    echo "FAIL: shim library $CS_SHIM not found (build it: make)"
    exit 1
fi

fails=0
allowed='^(libc\.so\.6|libdl\.so\.2|libpthread\.so\.0|libm\.so\.6|libgomp\.so\.1|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$'
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
nmpi=0
while read -r type bind name; do
    [ -n "$name" ] || continue
    nund=$((nund + 1))
    if [[ "$name" =~ ^(P?MPIX?_|MPIR_|ompi_|OMPI_) ]]; then
        nmpi=$((nmpi + 1))
        if [ "$bind" != WEAK ]; then
            echo "FAIL: undefined MPI symbol $name is not weak ($type $bind)"
            fails=$((fails + 1))
        fi
    elif [ "$type" = FUNC ]; then
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
echo "undefined dynamic symbols: $nund ($nmpi of MPI, all weak)"
if [ "$nmpi" -eq 0 ]; then
    echo "FAIL: no undefined MPI symbol at all: is this the shim?"
    fails=$((fails + 1))
fi
tag=$(grep -a -o -m1 'costa-shim-mpi-abi: [a-z]*' "$CS_SHIM" || true)
if [ "$tag" = "costa-shim-mpi-abi: ${CS_MPI:-mpich}" ]; then
    echo "build tag: $tag"
else
    echo "FAIL: build tag '$tag', want 'costa-shim-mpi-abi: ${CS_MPI:-mpich}'"
    fails=$((fails + 1))
fi

if [ "$fails" -ne 0 ]; then
    echo "$fails problem(s) in the dynamic dependencies of $CS_SHIM"
    exit 1
fi
echo "dynamic dependencies ok"
