#!/usr/bin/env bash
# test_apps/checks/24_mpi_mixup.sh - preloading the wrong build changes
# nothing (issue: "never crash by mixing them up").
#
# This flavour's shim ($CS_SHIM) is preloaded into programs of the other
# MPI ($CS_OTHER_BUILD_DIR, launched with $CS_OTHER_MPIEXEC) and into a
# program without MPI.  Each must behave exactly as without the preload:
# same exit status, same stdout; stderr gains exactly one line, the
# costa-shim warning, from rank 0 only, naming the build to preload
# instead (no MPI: no line at all).  With COSTA_SHIM_STATS=summary every
# rank writes its own report file at exit (no MPI is used), and its rows
# count every p?gemr2d call the program made as passthrough/mpi_mismatch.
# The programs: gemr2d_sweep (C, 2 ranks), gemr2d_fortran (Fortran
# through BLACS, 2 ranks), and test_config (no MPI); both MPI runs must
# have had ranks 0 and 1.  (CP2K under the wrong build, whose Fortran
# MPI_INIT reaches the shim's PMPI_Init, is in make check-apps.)
# Last, a program of this flavour without MPI of its own that dlopen()s a
# plugin holding its MPI and ScaLAPACK (test_apps/plain/dlopen_host.c,
# test_apps/scalapack/dlopen_plugin.c: what Python does with GPAW or
# petsc4py): with the shim alone preloaded it runs as natively with one
# warning giving the preload order that works (it used to abort: "cannot
# find MPI_Init_thread after the shim"); with that order the engine serves
# the calls.
# Environment (run_checks.sh): CS_SHIM, CS_MPI, CS_OTHER_MPI,
# CS_OTHER_BUILD_DIR, CS_OTHER_MPIEXEC, MPIEXEC, BUILD_DIR, CS_OUT, CS_TOP,
# PYTHON.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${CS_MPI:?}" "${CS_OTHER_MPI:?}" "${CS_OTHER_BUILD_DIR:?}"
: "${CS_OTHER_MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}

sweep=$CS_OTHER_BUILD_DIR/t/scalapack/gemr2d_sweep
fort=$CS_OTHER_BUILD_DIR/t/scalapack/gemr2d_fortran
serial=$BUILD_DIR/t/unit/test_config
if [ ! -x "$sweep" ] || [ ! -x "$fort" ]; then
    echo "FAIL: the $CS_OTHER_MPI test programs are not built" \
         "(make MPI=$CS_OTHER_MPI test_apps; make check builds both)"
    exit 1
fi
cs_need_files "$serial" "$CS_SHIM"
[ "$CS_OTHER_MPI" = openmpi ] && cs_openmpi_env
case "$CS_OTHER_MPI" in
    openmpi) want_lib=libcosta_shim-openmpi.so; other_name="Open MPI" ;;
    *) want_lib=libcosta_shim.so; other_name=MPICH ;;
esac
cs_fresh_dir "$CS_OUT"
unset LD_PRELOAD COSTA_SHIM_STATS COSTA_SHIM_VERBOSE
export OMP_NUM_THREADS=1
fails=0

# sum_csv DIR: "<path>/<reason> <calls>" per row kind, summed over the
# per-rank CSV files in DIR (prints "files N" first)
sum_csv() {
    "$PYTHON" - "$1" <<'EOF'
import csv, glob, os, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], "costa_shim.*.r*.csv")))
print("files %d" % len(files))
tot = {}
for f in files:
    rows = [l for l in open(f) if not l.startswith("#")]
    for r in csv.DictReader(rows):
        if r.get("rank") in (None, "-1") or r.get("shape_id", "") not in ("", "0"):
            continue
        k = "%s/%s" % (r["path"], r["reason"])
        tot[k] = tot.get(k, 0) + int(r["calls"])
for k in sorted(tot):
    print(k, tot[k])
EOF
}

# run_it PRELOAD NP PROG ARGS: PROG on NP ranks of $launcher (NP 0: no
# launcher), PRELOAD (if any) in the ranks' environment only
launcher=$CS_OTHER_MPIEXEC
run_it() {
    local pre=$1 np=$2
    shift 2
    if [ "$np" -gt 0 ]; then
        timeout -k 5 120 "$launcher" -n "$np" \
            env ${pre:+LD_PRELOAD=$pre} "$@"
    else
        timeout -k 5 120 env ${pre:+LD_PRELOAD=$pre} "$@"
    fi
}

# same_files A B: every file A has (but stats/) exists in B with the same
# bytes, and B has no other file but the report folder; stderr ("err")
# is compared with run times masked and the costa-shim lines dropped
same_files() {
    local a=$1 b=$2 f
    for f in $(cd "$b" && find . -type f ! -path './stats/*' \
                   ! -name '*.cmp' | sort); do
        [ -e "$a/$f" ] || echo "${f#./} written only with the shim;"
    done
    for f in $(cd "$a" && find . -type f ! -path './stats/*' | sort); do
        case "$f" in
            ./err)
                grep -v '^costa-shim' "$b/err" | sed -E 's/[0-9]+\.[0-9]+ s\b/T s/g' > "$b/err.cmp"
                sed -E 's/[0-9]+\.[0-9]+ s\b/T s/g' "$a/err" > "$a/err.cmp"
                cmp -s "$a/err.cmp" "$b/err.cmp" || echo "stderr differs beyond the warning;" ;;
            *.cmp) ;;
            *) cmp -s "$a/$f" "$b/$f" || echo "${f#./} differs;" ;;
        esac
    done
}

# one NAME EXPECT_WARN NP PROG ARGS: natively and with the shim preloaded
# (stats on), each in its own folder; compare.  EXPECT_WARN 1: the one
# warning line is wanted, matching $want_warn.
want_warn="runs on $other_name .*preload $want_lib instead"
one() {
    local name=$1 warn=$2
    shift 2
    local d=$CS_OUT/$name rc0=0 rc1=0
    mkdir -p "$d/native" "$d/shim/stats"
    (cd "$d/native" && run_it "" "$@" > out 2> err) || rc0=$?
    (cd "$d/shim" && COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=stats \
        run_it "$CS_PRELOAD" "$@" > out 2> err) || rc1=$?
    local bad=""
    [ "$rc0" -eq "$rc1" ] || bad="$bad exit status $rc0 natively, $rc1 with the shim;"
    [ "$rc0" -eq 0 ] || bad="$bad the native run failed ($rc0);"
    bad="$bad$(same_files "$d/native" "$d/shim" | sed 's/^/ /' | tr -d '\n')"
    local nw
    nw=$(grep -c '^costa-shim' "$d/shim/err")
    if [ "$warn" = 1 ]; then
        if [ "$nw" -ne 1 ]; then
            bad="$bad $nw costa-shim lines on stderr (want 1);"
        elif ! grep -q "^costa-shim\[0\]: warning: .*$want_warn" "$d/shim/err"; then
            bad="$bad the warning does not say '$want_warn';"
        fi
    elif [ "$nw" -ne 0 ]; then
        bad="$bad $nw costa-shim lines on stderr (want none);"
    fi
    if [ -z "$bad" ]; then
        cs_report ok "$name: exit $rc1, outputs as without the shim${warn:+ (+1 warning)}"
    else
        cs_report FAIL "$name:$bad"
        sed 's/^/      | /' "$d/shim/err" | head -n 8
    fi
    [ "$warn" = 1 ] && sed -n '/^costa-shim/{s/^/      /;p}' "$d/shim/err"
    return 0
}

# counted NAME: the per-rank reports count every call the program made
# as passthrough/mpi_mismatch (the real routine's own inner calls come
# back into the shim and are counted nested, as in any fallback)
counted() {
    local d=$CS_OUT/$1 calls sums
    calls=$(cat "$d"/native/out "$d"/native/dig.* 2> /dev/null |
            awk '$1 == "calls" && NF == 3 { s += $3 } END { print s + 0 }')
    sums=$(sum_csv "$d/shim/stats" | grep -v '^nested/')
    printf '%s\n' "$sums" > "$d/stats.txt"
    local want ranks
    ranks=$(cat "$d"/native/out | awk '$1 == "calls" && NF == 3 {print $2}' | sort | paste -sd, -)
    if [ "$ranks" != 0,1 ]; then
        cs_report FAIL "$1: the native run did not have ranks 0 and 1 (calls lines for: $ranks)"
        return 0
    fi
    want=$(printf 'files 2\npassthrough/mpi_mismatch %s' "$calls")
    if [ "$calls" -gt 0 ] && [ "$sums" = "$want" ]; then
        cs_report ok "$1: 2 per-rank reports, all $calls calls passthrough/mpi_mismatch"
    else
        cs_report FAIL "$1: reports say [$(echo $sums)], want [$(echo $want)]"
    fi
}

echo "$CS_MPI build ($(basename "$CS_SHIM")) in $CS_OTHER_MPI programs:"
one sweep_c 1 2 "$sweep" --seed 24 --count 30 --digest dig
counted sweep_c
one gemr2d_fortran 1 2 "$fort"
counted gemr2d_fortran
echo "$CS_MPI build in a program without MPI:"
one serial "" 0 "$serial"
if [ -n "$(ls -A "$CS_OUT/serial/shim/stats")" ]; then
    cs_report FAIL "serial: report files written by a program that never called ScaLAPACK"
fi

# A program that brings its MPI and ScaLAPACK in with dlopen(RTLD_LOCAL),
# as Python does: with the shim alone preloaded it must run as natively
# (the shim finds the real routines among the loaded objects and stays
# inert: its MPI references were not bound); with MPI and ScaLAPACK
# preloaded behind the shim, as the warning says, the engine serves.
echo "$CS_MPI build in a $CS_MPI program that dlopen()s its MPI:"
host=$BUILD_DIR/t/plain/dlopen_host plugin=$BUILD_DIR/t/scalapack/dlopen_plugin.so
cs_need_files "$host" "$plugin"
launcher=$MPIEXEC
want_warn="loaded after the shim and not into the global scope.*LD_PRELOAD=$CS_SHIM:.*libscalapack"
one dlopen 1 2 "$host" "$plugin"
mpi_so=$(sed -n "s/.*LD_PRELOAD=$(echo "$CS_SHIM" | sed 's/[/.]/\\&/g'):\([^:]*\):\([^ ]*\).*/\1:\2/p" "$CS_OUT/dlopen/shim/err")
d=$CS_OUT/dlopen_preloaded
mkdir -p "$d/stats"
rc=0
(cd "$d" && COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=stats \
    run_it "$CS_PRELOAD:$mpi_so" 2 "$host" "$plugin" > out 2> err) || rc=$?
if [ "$rc" -eq 0 ] && [ -n "$mpi_so" ] && cmp -s "$d/out" "$CS_OUT/dlopen/native/out" &&
   "$PYTHON" "$CS_TOP/test_apps/lib/check_stats.py" "$d/stats" \
       --routine-regex '^pdgemr2d_$' --expect-engine-calls 12 --no-fallback \
       > "$d/check_stats.txt" 2>&1; then
    cs_report ok "dlopen, LD_PRELOAD=shim:$mpi_so: same output, the 12 pdgemr2d_ calls on the engine"
else
    cs_report FAIL "dlopen with LD_PRELOAD=shim:$mpi_so: exit $rc, or output or report wrong"
    tail -n 5 "$d/err" "$d/check_stats.txt" 2> /dev/null | sed 's/^/      | /'
fi

echo
if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "24_mpi_mixup: OK"
