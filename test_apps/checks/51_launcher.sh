#!/usr/bin/env bash
# test_apps/checks/51_launcher.sh - scripts/costa-shim-run and
# scripts/costa-shim-check (interface.md 5).
#   * launcher form: costa-shim-run --stats summary -- $MPIEXEC -n 2 app
#     (the shim reaches the ranks through -genv LD_PRELOAD);
#   * per-rank form: $MPIEXEC -n 2 costa-shim-run app;
#     in both, the app's report shows pdgemr2d_ engine calls (check_stats.py);
#   * --dry-run spells the option of each launcher family (-genv for MPICH,
#     -x for Open MPI, --export for srun) and keeps an existing LD_PRELOAD
#     behind the shim;
#   * costa-shim-check on the bench binary exits 0, on /bin/ls exits 1 and
#     says there is nothing to interpose;
#   * for this flavour's bench program and the other flavour's, without
#     --lib: costa-shim-run preloads the build of the program's MPI and
#     says so, costa-shim-check names it ("preload: FILE"); given the
#     other build, costa-shim-check exits 1 naming the right one.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT,
# CS_TOP.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
top=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
run=$top/scripts/costa-shim-run
check=$top/scripts/costa-shim-check
stats_py=$top/test_apps/lib/check_stats.py
app=$BUILD_DIR/t/bench/bench_gemr2d
cs_need_files "$app" "$CS_SHIM" "$run" "$check" "$stats_py"
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"/launcher "$CS_OUT"/perrank
export OMP_NUM_THREADS=1
unset LD_PRELOAD COSTA_SHIM_STATS COSTA_SHIM_VERBOSE
fails=0

report() {   # report ok|FAIL text
    echo "$1  $2"
    [ "$1" = ok ] || fails=$((fails + 1))
}

# engine_calls DIR: the report in DIR shows pdgemr2d_ engine calls
engine_calls() {
    "$PYTHON" "$stats_py" "$1" --routine-regex '^pdgemr2d_$' \
        --min-engine-calls 1 > "$1/check_stats.txt" 2>&1
}

# launcher form
d=$CS_OUT/launcher
COSTA_SHIM_STATS_DIR=$d timeout 120 "$run" --lib "$CS_SHIM" --stats summary \
    -- "$MPIEXEC" -n 2 "$app" --cases e --reps 3 > "$d/stdout.txt" 2> "$d/stderr.txt"
rc=$?
if [ "$rc" -eq 0 ] && engine_calls "$d"; then
    report ok "costa-shim-run -- $MPIEXEC -n 2 app: engine calls in the report"
else
    report FAIL "launcher form (exit $rc)"
    tail -n 5 "$d/stderr.txt" "$d/check_stats.txt" 2>/dev/null | sed 's/^/      /'
fi

# per-rank form (the library found next to the script: the repository's)
d=$CS_OUT/perrank
COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=$d timeout 120 \
    "$MPIEXEC" -n 2 "$run" "$app" --cases e --reps 3 > "$d/stdout.txt" 2> "$d/stderr.txt"
rc=$?
if [ "$rc" -eq 0 ] && engine_calls "$d"; then
    report ok "$MPIEXEC -n 2 costa-shim-run app: engine calls in the report"
else
    report FAIL "per-rank form (exit $rc)"
    tail -n 5 "$d/stderr.txt" "$d/check_stats.txt" 2>/dev/null | sed 's/^/      /'
fi

# --dry-run: the option of each launcher family
lib=$CS_SHIM
dry() {
    # stderr dropped: the loader complains about the missing other.so
    LD_PRELOAD=/opt/other.so "$run" --lib "$lib" --dry-run -- "$@" 2>/dev/null
}
bad=""
dry mpiexec.mpich -n 4 ./a.out | grep -qF -- "mpiexec.mpich -genv LD_PRELOAD $lib:/opt/other.so -n 4 ./a.out" || bad="$bad mpiexec.mpich"
dry mpiexec.hydra -n 4 ./a.out | grep -qF -- "-genv LD_PRELOAD $lib:/opt/other.so" || bad="$bad mpiexec.hydra"
dry orterun -n 4 ./a.out | grep -qF -- "orterun -x LD_PRELOAD=$lib:/opt/other.so -n 4" || bad="$bad orterun"
dry srun -n 4 ./a.out | grep -qE -- "^srun --export=ALL\\\\?,LD_PRELOAD=" || bad="$bad srun"
dry ./a.out x | grep -qF -- "LD_PRELOAD=$lib:/opt/other.so ./a.out x" || bad="$bad per-rank"
if [ -z "$bad" ]; then
    report ok "--dry-run: -genv (MPICH), -x (Open MPI), --export (srun), per-rank export"
else
    report FAIL "--dry-run wrong for:$bad"
fi

# costa-shim-check
"$check" --lib "$CS_SHIM" "$app" > "$CS_OUT/check_app.txt" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^ok: .*imports pdgemr2d_' "$CS_OUT/check_app.txt" &&
   grep -q '^result: interposition will work' "$CS_OUT/check_app.txt"; then
    report ok "costa-shim-check bench_gemr2d: exit 0, pdgemr2d_ imported"
else
    report FAIL "costa-shim-check bench_gemr2d: exit $rc"
    sed 's/^/      /' "$CS_OUT/check_app.txt"
fi
"$check" --lib "$CS_SHIM" /bin/ls > "$CS_OUT/check_ls.txt" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'nothing to interpose' "$CS_OUT/check_ls.txt"; then
    report ok "costa-shim-check /bin/ls: exit 1, nothing to interpose"
else
    report FAIL "costa-shim-check /bin/ls: exit $rc"
    sed 's/^/      /' "$CS_OUT/check_ls.txt"
fi

# The build that matches the program's MPI: picked by costa-shim-run,
# named by costa-shim-check, for this flavour's program and the other's.
other_app=${CS_OTHER_BUILD_DIR:-}/t/bench/bench_gemr2d
other_lib=$top/libcosta_shim.so
[ "${CS_OTHER_MPI:-}" = openmpi ] && other_lib=$top/libcosta_shim-openmpi.so
for pair in "$app|$CS_SHIM|${CS_MPIEXEC_REAL:-$MPIEXEC}" \
            "$other_app|$other_lib|${CS_OTHER_MPIEXEC_REAL:-}"; do
    IFS='|' read -r a want launcher <<< "$pair"
    if [ ! -x "$a" ] || [ ! -f "$want" ] || [ -z "$launcher" ]; then
        report FAIL "flavour pick: $a or $want not built (make check builds both)"
        continue
    fi
    (unset COSTA_SHIM_LIB; "$run" --dry-run -- "$launcher" -n 2 env X=1 "$a" --cases e) \
        > "$CS_OUT/pick.out" 2> "$CS_OUT/pick.err"
    if grep -qF -- "$want" "$CS_OUT/pick.out" &&
       grep -q "^costa-shim-run: bench_gemr2d runs on .*: preload $want\$" "$CS_OUT/pick.err"; then
        report ok "costa-shim-run -- $(basename "$launcher") -n 2 env X=1 $(basename "$a"): picks $(basename "$want") and says so"
    else
        report FAIL "costa-shim-run did not pick $want for $a"
        sed 's/^/      /' "$CS_OUT/pick.out" "$CS_OUT/pick.err"
    fi
    (unset COSTA_SHIM_LIB; "$check" "$a") > "$CS_OUT/pick.check" 2>&1
    if grep -qxF "preload: $want" "$CS_OUT/pick.check" &&
       grep -q "^ok: MPI: the program runs on" "$CS_OUT/pick.check"; then
        report ok "costa-shim-check $(basename "$a"): names $(basename "$want")"
    else
        report FAIL "costa-shim-check $a: does not name $want"
        sed 's/^/      /' "$CS_OUT/pick.check"
    fi
done
# the wrong build given: an error naming the right one
"$check" --lib "$other_lib" "$app" > "$CS_OUT/wrong.check" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^error: MPI: .*preload $(basename "$CS_SHIM") instead" "$CS_OUT/wrong.check" &&
   grep -qxF "preload: $CS_SHIM" "$CS_OUT/wrong.check"; then
    report ok "costa-shim-check --lib <other build>: exit 1, names $(basename "$CS_SHIM")"
else
    report FAIL "costa-shim-check --lib $other_lib $app: exit $rc"
    sed 's/^/      /' "$CS_OUT/wrong.check"
fi

exit $((fails > 0))
