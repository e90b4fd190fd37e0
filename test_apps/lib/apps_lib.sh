# test_apps/lib/apps_lib.sh - shell helpers for the real-application runs
# of make check-apps (test_apps/apps/*/check.sh) and make bench-apps
# (scripts/bench_apps.sh).  Sourced, never run; it sources checks_lib.sh.
# Functions only: sourcing sets no variables and changes no options.
# Environment: CS_SHIM_MPICH, CS_SHIM_OPENMPI, CS_MPIEXEC_MPICH,
# CS_MPIEXEC_OPENMPI, CS_TOP, PYTHON (run_apps.sh / bench_apps.sh set them).

. "$(dirname "${BASH_SOURCE[0]}")/checks_lib.sh"

# cs_app_shim FLAVOUR: the shim built for FLAVOUR (mpich, openmpi)
cs_app_shim() {
    case "$1" in
        openmpi) echo "$CS_SHIM_OPENMPI" ;;
        *) echo "$CS_SHIM_MPICH" ;;
    esac
}

# cs_app_run FLAVOUR NP DIR PRELOAD LIMIT_S [VAR=value...] -- CMD ARGS:
# CMD on NP ranks of FLAVOUR's mpiexec, in DIR (made if missing), with
# PRELOAD (may be empty) and the variables in the ranks' environment only;
# stdout and stderr to DIR/stdout.txt and DIR/stderr.txt, the wall time in
# seconds to DIR/wall_s.  Returns the command's exit status (124 past
# LIMIT_S seconds).  One thread per rank unless a VAR says otherwise.
cs_app_run() {
    local fl=$1 np=$2 dir=$3 pre=$4 limit=$5
    shift 5
    local vars=(OMP_NUM_THREADS=1)
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    local launcher=$CS_MPIEXEC_MPICH
    if [ "$fl" = openmpi ]; then
        launcher=$CS_MPIEXEC_OPENMPI
        cs_openmpi_env
    fi
    mkdir -p "$dir"
    local rc=0 t0 t1
    t0=$(date +%s.%N)
    (cd "$dir" && timeout -k 10 "$limit" "$launcher" -n "$np" \
        env "${vars[@]}" ${pre:+LD_PRELOAD=$pre} "$@" \
        > stdout.txt 2> stderr.txt) || rc=$?
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$dir/wall_s"
    return "$rc"
}

# cs_app_same WHAT FILE_A FILE_B: report ok when the two (filtered) files
# are identical and not empty, else FAIL with the first differences
cs_app_same() {
    local what=$1 a=$2 b=$3
    if [ ! -s "$a" ]; then
        cs_report FAIL "$what: nothing to compare (empty $(basename "$a"))"
    elif cmp -s "$a" "$b"; then
        cs_report ok "$what: identical ($(wc -l < "$a") lines)"
    else
        cs_report FAIL "$what: differ"
        diff "$a" "$b" | head -n 10 | sed 's/^/      | /'
    fi
}

# cs_app_engine_only DIR WHAT: the shim's report in DIR shows engine calls
# and no fallback or passthrough (nested calls inside ScaLAPACK allowed);
# p?gemm passing through because COSTA_SHIM_GEMM is off (the default) is the
# one passthrough allowed: it is the documented default, not a fallback;
# prints its routine table
cs_app_engine_only() {
    local dir=$1 what=$2 rc=0
    "$PYTHON" "$CS_TOP/test_apps/lib/check_stats.py" "$dir" \
        --min-engine-calls 1 --no-fallback \
        --allow-passthrough gemm_off > "$dir/check_stats.txt" 2>&1 ||
        rc=$?
    if [ "$rc" -eq 0 ]; then
        cs_report ok "$what: $(sed -n 's/.*engine calls matching .*: //p' "$dir/check_stats.txt") calls on the engine, no fallback"
    else
        cs_report FAIL "$what: the report does not show the calls on the engine without fallback"
    fi
    sed 's/^/      /' "$dir/check_stats.txt"
}

# cs_app_one_warning DIR LIB: stderr in DIR has exactly one costa-shim line,
# the mix-up warning naming LIB as the build to preload
cs_app_one_warning() {
    local dir=$1 lib=$2 n
    n=$(grep -c '^costa-shim' "$dir/stderr.txt")
    if [ "$n" -eq 1 ] && grep -q "^costa-shim\[0\]: warning: .*preload $lib instead" "$dir/stderr.txt"; then
        cs_report ok "one warning naming $lib"
    else
        cs_report FAIL "$n costa-shim lines on stderr, want one warning naming $lib"
        grep '^costa-shim' "$dir/stderr.txt" | head -n 3 | sed 's/^/      | /'
    fi
}

# The checks of one application (check.sh sources its app.sh first, which
# defines cs_app_flavour, cs_app_env, cs_app_preload_after, cs_app_prepare,
# cs_app_cmd, cs_app_results; an optional cs_app_extra NATIVE_DIR SHIM_DIR
# CASE adds its own comparisons).  Results go under $CS_OUT; failures count
# in fails.

# cs_app_preload SHIM: the LD_PRELOAD value for SHIM in this application:
# SHIM, then cs_app_preload_after (libraries a Python program would load
# later and only locally: MPI and ScaLAPACK, so that the shim can bind to
# them); empty for an empty SHIM
cs_app_preload() {
    [ -n "$1" ] && echo "$1${cs_app_preload_after:+:$cs_app_preload_after}"
    return 0
}

# cs_app_lib SONAME: the path of a shared library the loader knows
cs_app_lib() {
    ldconfig -p | awk -v s="$1" '$1 == s { print $NF; exit }'
}

# cs_app_launch NAME CASE PRELOAD [VAR=value...]: the application on 2
# ranks in CS_OUT/NAME, its results into NAME/results.cmp; 1 on failure
cs_app_launch() {
    local name=$1 case=$2 pre=$3
    shift 3
    local d=$CS_OUT/$name rc=0 cmd
    mkdir -p "$d"
    cs_app_prepare "$d" "$case"
    mapfile -t cmd < <(cs_app_cmd "$case")
    cs_app_run "$cs_app_flavour" 2 "$d" "$(cs_app_preload "$pre")" 600 \
        "${cs_app_env[@]}" "$@" -- "${cmd[@]}" || rc=$?
    echo "  $name: exit $rc, $(cat "$d/wall_s") s"
    if [ "$rc" -ne 0 ]; then
        cs_report FAIL "$name: exited $rc"
        tail -n 8 "$d/stderr.txt" "$d/stdout.txt" 2> /dev/null | sed 's/^/      | /'
        return 1
    fi
    cs_app_results "$d" > "$d/results.cmp"
}

# cs_app_check_case CASE: natively and under this application's build of
# the shim (statistics on): identical results, calls on the engine
cs_app_check_case() {
    local case=$1 n=$CS_OUT/$1.native s=$CS_OUT/$1.shim
    cs_app_launch "$case.native" "$case" "" || return 0
    cs_app_launch "$case.shim" "$case" "$(cs_app_shim "$cs_app_flavour")" \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=stats || return 0
    cs_app_same "$case results" "$n/results.cmp" "$s/results.cmp"
    if declare -F cs_app_extra > /dev/null; then
        cs_app_extra "$n" "$s" "$case"
    fi
    cs_app_engine_only "$s/stats" "$case report"
}

# cs_app_check_mixup CASE: under the build for the other MPI the
# application runs as natively (after cs_app_check_case CASE), with one
# warning naming its own build
cs_app_check_mixup() {
    local case=$1 other=mpich want
    [ "$cs_app_flavour" = mpich ] && other=openmpi
    want=$(basename "$(cs_app_shim "$cs_app_flavour")")
    echo "mix-up: $case under the $other build:"
    cs_app_launch "$case.mixup" "$case" "$(cs_app_shim "$other")" || return 0
    cs_app_same "mix-up results" "$CS_OUT/$case.native/results.cmp" \
        "$CS_OUT/$case.mixup/results.cmp"
    cs_app_one_warning "$CS_OUT/$case.mixup" "$want"
}

# cs_app_main NAME MIXUP_CASE: the whole check of one application: its
# cs_app_present (is it installed?), then cs_app_check_case for every case
# of cs_app_cases and cs_app_check_mixup MIXUP_CASE; prints the verdict
# and exits 0 iff nothing failed
cs_app_main() {
    local name=$1 mixup=$2 case
    : "${CS_OUT:?}"
    if ! cs_app_present; then
        echo "FAIL: $name is not installed (scripts/install-deps.sh --apps)"
        exit 1
    fi
    cs_need_files "$CS_SHIM_OPENMPI" "$CS_SHIM_MPICH"
    cs_fresh_dir "$CS_OUT"
    fails=0
    for case in $cs_app_cases; do
        echo "$case: $(cs_app_about "$case")"
        cs_app_check_case "$case"
    done
    cs_app_check_mixup "$mixup"
    echo
    if [ "$fails" -ne 0 ]; then
        echo "$fails failure(s)"
        exit 1
    fi
    echo "$name: OK"
    exit 0
}
