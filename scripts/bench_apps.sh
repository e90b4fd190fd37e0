#!/usr/bin/env bash
# scripts/bench_apps.sh - run by `make bench-apps`: what the real
# applications of test_apps/apps/ gain from the shim, measured.
#
# For every application (test_apps/apps/<app>/app.sh) and every input of
# its cs_app_bench_cases, on 2 ranks with one thread each, after one
# warm-up run that is not counted, three kinds of run alternate in one
# sitting, CS_BENCH_APPS_REPS times (default 3), round r starting with the
# kind r - 1 places further (drift of the shared machine, and whatever a
# run leaves behind for the next, hit every kind alike):
#   plain   the application alone (its wall time);
#   native  the same with the shim preloaded and COSTA_SHIM_FALLBACK=always:
#           every call goes to ScaLAPACK, timed inside the routines, the
#           arrival wait apart (an MPI_Barrier before the real routine);
#   shim    the shim serving the calls.
#   gemm    only for the inputs in the application's cs_app_gemm_cases:
#           the shim with COSTA_SHIM_GEMM=on (p?gemm through the engine
#           where the shim's choice takes it).  Its results cannot be
#           bit-identical (another summation order): the report compares
#           its numbers with native's within a relative 1e-10.
# Both report (COSTA_SHIM_STATS=full) JSON files.  Then
# scripts/bench_apps_report.py compares the results of all runs (they must
# be identical, as in make check-apps) and writes docs/applications.md:
# inputs, commands, wall times, time in the routines per rank and per call
# shape, natively and under the shim, with the arrival wait apart.
# Everything goes to bench_out/apps/<app>/<case>/<kind>.<rep>/.
# CS_BENCH_APPS_ONLY=pattern runs the applications matching it,
# CS_BENCH_APPS_CASES="a b" only those of their inputs;
# CS_BENCH_DOCS=0 leaves docs/ alone.
# Environment (from make): CS_SHIM_MPICH, CS_SHIM_OPENMPI,
# CS_MPIEXEC_MPICH, CS_MPIEXEC_OPENMPI, PYTHON.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
export CS_TOP=$top
export PYTHON=${PYTHON:-python3}
export CS_SHIM_MPICH=${CS_SHIM_MPICH:-$top/libcosta_shim.so}
export CS_SHIM_OPENMPI=${CS_SHIM_OPENMPI:-$top/libcosta_shim-openmpi.so}
export CS_MPIEXEC_MPICH=${CS_MPIEXEC_MPICH:-mpiexec.mpich}
export CS_MPIEXEC_OPENMPI=${CS_MPIEXEC_OPENMPI:-mpiexec.openmpi}
. "$top/test_apps/lib/apps_lib.sh"
reps=${CS_BENCH_APPS_REPS:-3}
out=$top/bench_out/apps
status=0

for app_sh in "$top"/test_apps/apps/*/app.sh; do
    app=$(basename "$(dirname "$app_sh")")
    if [ -n "${CS_BENCH_APPS_ONLY:-}" ] && [[ "$app" != *${CS_BENCH_APPS_ONLY}* ]]; then
        continue
    fi
    (
        . "$app_sh"
        shim=$(cs_app_shim "$cs_app_flavour")
        for case in $cs_app_bench_cases; do
            if [ -n "${CS_BENCH_APPS_CASES:-}" ] &&
                [[ " $CS_BENCH_APPS_CASES " != *" $case "* ]]; then
                continue
            fi
            d=$out/$app/$case
            rm -rf "$d"
            mkdir -p "$d"
            cs_app_about "$case" > "$d/about.txt"
            cs_app_cmd "$case" | paste -sd' ' > "$d/cmd.txt"
            echo "$cs_app_flavour" > "$d/flavour.txt"
            echo "bench-apps: $app $case ($(cat "$d/about.txt"))"
            # one run not counted: the first run of an input pays for
            # reading the application and its data files from disk
            wd=$d/warmup
            mkdir -p "$wd"
            cs_app_prepare "$wd" "$case"
            mapfile -t cmd < <(cs_app_cmd "$case")
            cs_app_run "$cs_app_flavour" 2 "$wd" "" 1800 \
                "${cs_app_env[@]}" -- "${cmd[@]}" || true
            echo "  warm-up: $(cat "$wd/wall_s") s (not counted)"
            kinds="plain native shim"
            [[ " ${cs_app_gemm_cases:-} " == *" $case "* ]] &&
                kinds+=" gemm"
            read -ra kl <<<"$kinds"
            for r in $(seq 1 "$reps"); do
                for i in "${!kl[@]}"; do
                    kind=${kl[$(((i + r - 1) % ${#kl[@]}))]}
                    rd=$d/$kind.$r
                    mkdir -p "$rd"
                    cs_app_prepare "$rd" "$case"
                    mapfile -t cmd < <(cs_app_cmd "$case")
                    vars=("${cs_app_env[@]}")
                    pre=""
                    case "$kind" in
                        native) pre=$shim
                                vars+=(COSTA_SHIM_FALLBACK=always) ;;
                        shim) pre=$shim ;;
                        gemm) pre=$shim
                              vars+=(COSTA_SHIM_GEMM=on) ;;
                    esac
                    [ -n "$pre" ] && vars+=(COSTA_SHIM_STATS=full
                                            COSTA_SHIM_STATS_DIR=stats)
                    rc=0
                    pre=$(cs_app_preload "$pre")
                    cs_app_run "$cs_app_flavour" 2 "$rd" "$pre" 1800 \
                        "${vars[@]}" -- "${cmd[@]}" || rc=$?
                    echo "  $kind $r: exit $rc, $(cat "$rd/wall_s") s"
                    if [ "$rc" -ne 0 ]; then
                        echo "bench-apps: $app $case $kind $r failed:" >&2
                        tail -n 5 "$rd/stderr.txt" >&2
                        exit 1
                    fi
                    cs_app_results "$rd" > "$rd/results.cmp"
                done
            done
        done
    ) || status=1
done

docs=()
[ "${CS_BENCH_DOCS:-1}" = 0 ] || docs=(--doc "$top/docs/applications.md")
"$PYTHON" "$top/scripts/bench_apps_report.py" "$out" "${docs[@]}" || status=1
exit "$status"
