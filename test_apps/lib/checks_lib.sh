# test_apps/lib/checks_lib.sh - shell helpers shared by the check scripts of
# test_apps/checks/ (sourced, never run; it lives outside checks/ because
# run_checks.sh runs every checks/*.sh).  Source it with
#   . "$(dirname "$0")/../lib/checks_lib.sh"
# Functions only: sourcing it sets no variables and changes no options.

# cs_need_files FILE...: exit 1 with a FAIL line unless every FILE exists.
cs_need_files() {
    local f
    for f in "$@"; do
        [ -e "$f" ] || { echo "FAIL: missing $f (make test_apps)"; exit 1; }
    done
}

# cs_fresh_dir DIR: DIR, emptied.
cs_fresh_dir() {
    rm -rf "$1"
    mkdir -p "$1"
}

# cs_sum_field WORD FILE...: sum of the third fields of the lines whose
# first field is WORD (the "calls <rank> <count>" lines of the programs).
cs_sum_field() {
    local w=$1
    shift
    awk -v w="$w" '$1 == w { s += $3 } END { print s + 0 }' "$@"
}

# cs_expect_ok NAME RC OUTPUT: print OUTPUT; exit 1 unless RC is 0 and the
# last line of OUTPUT is the sentinel "cs_test: OK".
cs_expect_ok() {
    local name=$1 rc=$2 out=$3
    printf '%s\n' "$out"
    if [ "$rc" -ne 0 ]; then
        echo "$name exited with status $rc"
        exit 1
    fi
    if [ "$(printf '%s\n' "$out" | tail -n 1)" != "cs_test: OK" ]; then
        echo "$name did not end with 'cs_test: OK'"
        exit 1
    fi
}

# cs_report ok|FAIL TEXT: one result line; a FAIL adds one to $fails.
cs_report() {
    echo "$1  $2"
    [ "$1" = ok ] || fails=$((fails + 1))
}

# cs_launch2 DIR PRELOAD [VAR=value...] -- PROG ARGS: one launch of 2
# ranks in DIR (created, with DIR/stats for the report:
# COSTA_SHIM_STATS=summary unless a VAR says otherwise), output in
# DIR/out and DIR/err, at most $CS_LAUNCH_TIMEOUT seconds (300); returns
# the launch's exit status.
cs_launch2() {
    local d=$1 pre=$2
    shift 2
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    mkdir -p "$d/stats"
    (cd "$d" && timeout -k 5 "${CS_LAUNCH_TIMEOUT:-300}" "$MPIEXEC" -n 2 \
        env COSTA_SHIM_STATS=summary "${vars[@]}" ${pre:+LD_PRELOAD=$pre} \
        COSTA_SHIM_STATS_DIR=stats "$@" > out 2> err)
}

# cs_run_in NAME NP PRELOAD [VAR=value...] -- APP ARGS: one launch (120 s at
# most) with its output in NAME/out and NAME/err; 0 iff it exits 0 and
# prints the sentinel last (else a FAIL through cs_report).
cs_run_in() {
    local name=$1 np=$2 pre=$3
    shift 3
    local envs=()
    while [ "$1" != -- ]; do envs+=(-genv "${1%%=*}" "${1#*=}"); shift; done
    shift
    mkdir -p "$name"
    local rc=0
    (cd "$name" && timeout -k 10 120 "$MPIEXEC" -genv LD_PRELOAD "$pre" \
        "${envs[@]}" -n "$np" "$@" > out 2> err) || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$name/out")" != "cs_test: OK" ]; then
        cs_report FAIL "$name: rc=$rc or no sentinel; stderr:"
        tail -n 15 "$name/err" | sed 's/^/      | /'
        return 1
    fi
    return 0
}

# cs_run_tagged OUT TAG P PRELOAD BIN [VAR=value...]: one launch of BIN on P
# ranks (300 s at most) into OUT/TAG.P.out and .err; 0 iff it exits 0 and
# prints the sentinel last, else a FAIL line and the stderr tail.
cs_run_tagged() {
    local out=$1 tag=$2 p=$3 pre=$4 bin=$5
    shift 5
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

# cs_native_vs_shim OUT BIN YIELD STATS_FN P...: for each P, BIN natively
# (YIELD preloaded when P > 2), then for each P under $CS_SHIM (+ YIELD)
# with COSTA_SHIM_FALLBACK=never MIN_ELEMS=0 and a stats summary in
# OUT/stats.P; the two outputs must be identical, and STATS_FN P DIR must
# accept the shim's statistics.  Returns 0 iff everything passed; exits 1
# when the shim is missing.
cs_native_vs_shim() {
    local out=$1 bin=$2 yield=$3 stats_fn=$4
    shift 4
    local p pre sd status=0
    echo "native runs:"
    for p in "$@"; do
        pre=""
        [ "$p" -gt 2 ] && pre="$yield"
        cs_run_tagged "$out" native "$p" "$pre" "$bin" || status=1
    done
    if [ ! -e "$CS_SHIM" ]; then
        echo "FAIL: shim $CS_SHIM not found: shim half not run"
        exit 1
    fi
    echo "shim runs:"
    for p in "$@"; do
        sd="$out/stats.$p"
        mkdir -p "$sd"
        cs_run_tagged "$out" shim "$p" "$CS_PRELOAD:$yield" "$bin" \
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
        "$stats_fn" "$p" "$sd" || status=1
    done
    return "$status"
}

# cs_engine_bytes_sent DIR: bytes sent by the engine, all ranks and
# routines, from the one JSON report (costa_shim.*.json) in DIR; -1 when
# there is not exactly one.  Needs PYTHON.
cs_engine_bytes_sent() {
    "${PYTHON:-python3}" - "$1" <<'EOF'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/costa_shim.*.json")
if len(files) != 1:
    print(-1)
    sys.exit(0)
r = json.load(open(files[0]))
print(sum(x["bytes_sent"] for x in r["routines"] if x["path"] == "engine"))
EOF
}

# cs_openmpi_env: export what Open MPI needs to run the checks here:
# running as root is refused without its two variables (tests only: users'
# jobs do not run as root); more ranks than the 2 cores need
# oversubscription; idle ranks yield the core instead of spinning (Open
# MPI's own remedy for what the yield preload does for MPICH); no binding,
# as MPICH, so the shim's threads are not pinned to one core with their
# rank.  (A function: sourcing this file still sets nothing.)
cs_openmpi_env() {
    if [ "$(id -u)" -eq 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    export OMPI_MCA_rmaps_base_oversubscribe=1
    export OMPI_MCA_mpi_yield_when_idle=1
    export OMPI_MCA_hwloc_base_binding_policy=none
}

# cs_name_in NAME PATTERN...: 0 iff NAME contains one of the PATTERNs.
cs_name_in() {
    local name=$1 p
    shift
    for p in "$@"; do
        [[ "$name" == *"$p"* ]] && return 0
    done
    return 1
}

# cs_san_env DIR: the sanitizer options of make check SAN=... (exported
# as CS_ASAN_OPTIONS and CS_UBSAN_OPTIONS; cs_run_all adds each check's
# log_path).  Every error stops the process that has it; leaks are looked
# for, with the suppressions of test_apps/lib/lsan.supp (MPI's and BLACS's
# internals only, each explained there; ASan and UBSan need none); hwloc's
# PCI plugin, whose leak cannot be suppressed by name (lsan.supp says
# why), is not loaded.  The shim is preloaded behind programs that do not
# link the runtime, whence verify_asan_link_order=0 (the runtime is still
# first: CS_PRELOAD names it first).  Leaks are looked for under MPICH
# only: Open MPI 4.1 leaves 0.2-120 kB in 10-3400 blocks per process at
# MPI_Finalize, most of them allocated from MCA components it has
# dlclose()d (frames without a module, which no suppression can name);
# the library's code is the same under both, and ASan's and UBSan's other
# checks stay on for Open MPI.
cs_san_env() {
    local leaks=1
    [ "${CS_MPI:-}" = openmpi ] && leaks=0
    export HWLOC_COMPONENTS=-pci
    export CS_ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=$leaks:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1"
    export LSAN_OPTIONS="suppressions=$CS_TOP/test_apps/lib/lsan.supp:print_suppressions=0"
    export CS_UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
}

# cs_san_clean DIR: 0 iff no sanitizer wrote an error report into DIR
# (empty DIR: 0); else each report's first lines and 1.
cs_san_clean() {
    local d=$1 f n=0
    [ -n "$d" ] || return 0
    for f in "$d"/*; do
        [ -s "$f" ] || continue
        # an allocation ASan refuses (allocator_may_return_null: NULL to
        # the caller, as malloc would) is a warning, not an error: e.g.
        # ScaLAPACK's M < 0 buffer in check 39, which it then reports
        if ! grep -qE 'ERROR: |runtime error:' "$f"; then
            echo "note: sanitizer warnings only, $f: $(head -c 200 "$f" | tr '\n' ' ')"
            continue
        fi
        n=$((n + 1))
        echo "FAIL: sanitizer report $f:"
        head -n 30 "$f" | sed 's/^/    /'
    done
    [ "$n" -eq 0 ]
}

# cs_run_all LABEL OUTDIR PATTERNS NAME=SCRIPT...: run each SCRIPT (bash)
# with CS_OUT=OUTDIR/NAME and its output in OUTDIR/NAME.log, skipping names
# that contain none of the space-separated PATTERNS (empty: none skipped);
# one PASS/FAIL line each (a failure also prints the log's tail), then
# "LABEL: N passed, N failed".  Returns 0 iff every script exited 0 and,
# under CS_SAN, no sanitizer report appeared (the reports of all its
# processes go to OUTDIR/san/NAME/).  (The runners of make check and
# make check-apps.)
cs_run_all() {
    local label=$1 out=$2 only=$3 ns name t start pass=0 fail=0 failed=()
    local san_env=() sd
    shift 3
    mkdir -p "$out"
    for ns in "$@"; do
        name=${ns%%=*} t=${ns#*=}
        if [ -n "$only" ] && ! cs_name_in "$name" $only; then
            continue
        fi
        start=$(date +%s)
        if [ -n "${CS_SAN:-}" ]; then
            sd=$out/san/$name
            cs_fresh_dir "$sd"
            san_env=("ASAN_OPTIONS=$CS_ASAN_OPTIONS:log_path=$sd/asan"
                     "UBSAN_OPTIONS=$CS_UBSAN_OPTIONS:log_path=$sd/ubsan")
        fi
        if env "${san_env[@]}" CS_OUT="$out/$name" bash "$t" > "$out/$name.log" 2>&1 &&
           cs_san_clean "${sd:-}" >> "$out/$name.log"; then
            pass=$((pass + 1))
            printf 'PASS  %-46s %4ss\n' "$label/$name" "$(( $(date +%s) - start ))"
        else
            fail=$((fail + 1)); failed+=("$name")
            printf 'FAIL  %-46s %4ss\n' "$label/$name" "$(( $(date +%s) - start ))"
            tail -n 40 "$out/$name.log" | sed 's/^/    | /'
        fi
    done
    echo
    [ "$fail" -eq 0 ] || echo "failed: ${failed[*]}"
    echo "$label: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
