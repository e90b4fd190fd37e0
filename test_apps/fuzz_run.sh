#!/usr/bin/env bash
# test_apps/fuzz_run.sh - one round of fuzzing: a sweep program (random
# configurations drawn from a seed, each checked element by element with
# guard zones around every local array) run natively and under the shim,
# then compared configuration by configuration.  Check 70_fuzz runs many
# rounds; a failed round prints the one command that replays it:
#
#   test_apps/fuzz_run.sh [--mpi mpich|openmpi] [--np P]
#       [--prog gemr2d_sweep|tran_sweep] [--seed S] [--count N]
#       [--args 'SWEEP ARGS'] [--env 'VAR=value ...'] [--out DIR]
#
# --env: settings for the shim's run (COSTA_SHIM_THREADS=2, ...);
# --args: more sweep options (--replicated, --types dz, ...).  The shim
# runs with COSTA_SHIM_MIN_ELEMS=0 (it serves every call it supports), and
# gemr2d_sweep's with COSTA_SHIM_FALLBACK=never too (every valid call of
# it is supported; tran_sweep draws PBLAS cases that go to ScaLAPACK by
# design, which check 33 counts); the yield preload above 2 ranks.
# Exit 0 when both runs pass their own checks and every digest line
# agrees; else 1, after a line
#   REPLAY: test_apps/fuzz_run.sh ... --count K+1 ...
# where K is the first configuration that differs or failed: the same
# round up to it, so that the shim's plan cache, workspace and shared
# buffer go through the same history.  The build is make check's
# (BUILD_DIR, CS_SHIM, CS_PRELOAD, MPIEXEC from its environment), else the
# repository's release build of the flavour.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/lib/checks_lib.sh"

PYTHON=${PYTHON:-python3}
mpi=${CS_MPI:-mpich} np=2 prog=gemr2d_sweep seed=1 count=50 args="" envs=""
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --mpi) mpi=$2; shift 2 ;;
        --np) np=$2; shift 2 ;;
        --prog) prog=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --args) args=$2; shift 2 ;;
        --env) envs=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "fuzz_run.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done
case "$mpi" in
    mpich) lib=libcosta_shim.so launcher=mpiexec.mpich ;;
    openmpi) lib=libcosta_shim-openmpi.so
             launcher=$top/test_apps/lib/mpiexec_openmpi.sh
             # make check's settings for Open MPI as root on 2 cores
             [ "${CS_MPI:-}" = openmpi ] || cs_openmpi_env ;;
    *) echo "fuzz_run.sh: --mpi mpich or openmpi" >&2; exit 2 ;;
esac
# outside make check: the flavour's release build
if [ "${CS_MPI:-$mpi}" != "$mpi" ] || [ -z "${BUILD_DIR:-}" ]; then
    BUILD_DIR=$top/build/$mpi-release CS_SHIM=$top/$lib CS_PRELOAD=$top/$lib
    MPIEXEC=$launcher
fi
bin=$BUILD_DIR/t/scalapack/$prog
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$bin" "$yield" "$CS_SHIM"
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/cs_fuzz.XXXXXX")
cs_fresh_dir "$out"
pre=""
[ "$np" -gt "$(nproc 2>/dev/null || echo 2)" ] && pre=$yield

# run SIDE PRELOAD ENV...: one launch into $out/SIDE.*
run() {
    local side=$1 preload=$2 rc=0
    shift 2
    # shellcheck disable=SC2086 # args: several sweep options
    env "$@" timeout -k 10 600 "$MPIEXEC" -n "$np" \
        env ${preload:+LD_PRELOAD=$preload} "$bin" --seed "$seed" \
        --count "$count" --digest "$out/$side.dig" $args \
        > "$out/$side.out" 2> "$out/$side.err" || rc=$?
    echo "$rc" > "$out/$side.rc"
}
read -r -a shim_env <<< "$envs"
run native "$pre"
never=()
[ "$prog" = gemr2d_sweep ] && never=(COSTA_SHIM_FALLBACK=never)
run shim "$CS_PRELOAD${pre:+:$pre}" "${never[@]}" COSTA_SHIM_MIN_ELEMS=0 \
    "${shim_env[@]}"

# the first configuration that differs, is missing or failed
first=$("$PYTHON" - "$out" <<'EOF'
import glob, re, sys
d = sys.argv[1]
def digests(side):
    cfg = {}
    for f in glob.glob(f"{d}/{side}.dig.*"):
        for line in open(f):
            m = re.match(r"cfg (\d+) rank (\d+)", line)
            if m:
                cfg.setdefault(int(m.group(1)), set()).add(line.strip())
    return cfg
nat, shim = digests("native"), digests("shim")
bad = [k for k in set(nat) | set(shim) if nat.get(k) != shim.get(k)]
for side in ("native", "shim"):
    for line in open(f"{d}/{side}.out").read().splitlines() + \
            open(f"{d}/{side}.err").read().splitlines():
        m = re.search(r"FAIL: cfg (\d+)", line)
        if m:
            bad.append(int(m.group(1)))
print(min(bad) if bad else -1)
EOF
)
rcn=$(cat "$out/native.rc") rcs=$(cat "$out/shim.rc")
okn=0 oks=0
grep -qx 'cs_test: OK' "$out/native.out" && okn=1
grep -qx 'cs_test: OK' "$out/shim.out" && oks=1
if [ "$rcn" = 0 ] && [ "$rcs" = 0 ] && [ "$okn" = 1 ] && [ "$oks" = 1 ] &&
   [ "$first" = -1 ]; then
    echo "ok    $prog np=$np seed=$seed count=$count${args:+ $args}${envs:+ [$envs]}"
    exit 0
fi
upto=$count
[ "$first" -ge 0 ] 2>/dev/null && upto=$((first + 1))
echo "FAIL  $prog np=$np seed=$seed count=$count${args:+ $args}${envs:+ [$envs]}:" \
     "native exit $rcn, shim exit $rcs, first bad config ${first/#-1/unknown} ($out)"
grep -h 'FAIL' "$out/native.out" "$out/shim.out" "$out/native.err" \
    "$out/shim.err" 2>/dev/null | head -n 4 | sed 's/^/      /'
echo "REPLAY: test_apps/fuzz_run.sh --mpi $mpi --np $np --prog $prog" \
     "--seed $seed --count $upto${args:+ --args '$args'}${envs:+ --env '$envs'}"
exit 1
