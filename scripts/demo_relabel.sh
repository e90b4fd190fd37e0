#!/usr/bin/env bash
# scripts/demo_relabel.sh - run by `make demo-relabel`: process relabeling
# (docs/relabel.md) on one ScaLAPACK program.
# relabel_demo (test_apps/scalapack/relabel_demo.c) copies a 4000 x 4000
# matrix 20 times with pdgemr2d_ from a 2x2 row-major grid with 500x500
# blocks to a 2x2 column-major grid with 512x512 blocks: the grids differ by
# a process permutation and by block size.  It runs three times under the
# shim on 4 ranks:
#   1. COSTA_SHIM_RELABEL=off      the application's process maps;
#   2. COSTA_SHIM_RELABEL=report   the same, plus what relabeling would save
#                                  and a plan written at MPI_Finalize;
#   3. COSTA_SHIM_RELABEL=apply    grid B created with the planned map.
# Each run writes its report (COSTA_SHIM_STATS=summary) to
# demo_out/relabel/<run>/; the script checks that B is identical in all
# three runs (per-position digests), then prints bytes sent between
# processes (from the reports) and the redistribution time per run.
# Takes well under a minute.  Environment (from make): MPIEXEC, BUILD_DIR
# (relative to the top), PYTHON; NP (default 4), DEMO_ARGS to change the
# program's arguments.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
PYTHON=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build/release}
case "$BUILD_DIR" in /*) bdir=$BUILD_DIR ;; *) bdir=$top/$BUILD_DIR ;; esac
bin=$bdir/t/scalapack/relabel_demo
yield=$bdir/t/lib/yield_preload.so
shim=$top/libcosta_shim.so
np=${NP:-4}
read -r -a args <<< "${DEMO_ARGS:---n 4000 --grid 2x2 --a 500x500 --b 512x512 --order C --calls 20}"
limit=180   # seconds per run, a safety net only

for f in "$bin" "$shim" "$yield"; do
    if [ ! -e "$f" ]; then
        echo "demo_relabel.sh: $f not found; run 'make demo-relabel'" \
             "(it builds first)" >&2
        exit 1
    fi
done

out=$top/demo_out/relabel
rm -rf "$out"
mkdir -p "$out"
cd "$out"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# more ranks than cores: ranks yield while they wait (as the checks do)
pre=$shim
[ "$np" -gt "$(nproc)" ] && pre=$shim:$yield
plan=$out/relabel.plan

# run LABEL MODE: one run; stdout to LABEL/out, stderr to LABEL/err
run() {
    local label=$1 mode=$2
    mkdir -p "$label"
    echo "-- $label: COSTA_SHIM_RELABEL=$mode $MPIEXEC -n $np" \
         "${bin#"$top"/} ${args[*]}"
    if ! timeout "$limit" "$MPIEXEC" -genv LD_PRELOAD "$pre" \
            -genv COSTA_SHIM_RELABEL "$mode" \
            -genv COSTA_SHIM_RELABEL_PLAN "$plan" \
            -genv COSTA_SHIM_STATS summary \
            -genv COSTA_SHIM_STATS_DIR "$out/$label" \
            -n "$np" "$bin" "${args[@]}" > "$label/out" 2> "$label/err"; then
        echo "demo_relabel.sh: $label run failed; its stderr:" >&2
        tail -n 20 "$label/err" >&2
        exit 1
    fi
    grep '^relabel_demo:' "$label/out" | sed 's/^/   /'
    grep 'relabel:' "$label/err" | sed 's/^/   /' || true
    if ! grep -q 'check:OK' "$label/out"; then
        echo "demo_relabel.sh: $label run gave a wrong result" >&2
        exit 1
    fi
}

echo "== costa-shim relabeling demo: the same ScaLAPACK program with the" \
     "application's grids, profiled, and with the planned grid" \
     "(OMP_NUM_THREADS=$OMP_NUM_THREADS)"
run 1-off off
run 2-report report
echo "   plan ($plan):"
grep -v '^#' "$plan" | sed 's/^/     /'
run 3-apply apply

for r in 2-report 3-apply; do
    if ! cmp -s <(grep '^digest' 1-off/out) <(grep '^digest' "$r/out"); then
        echo "demo_relabel.sh: B differs between 1-off and $r" >&2
        exit 1
    fi
done
echo
echo "B is identical in all three runs (per grid position)."
"$PYTHON" - "$out" <<'EOF'
import glob, json, os, re, sys
out = sys.argv[1]
print("%-10s %12s %12s %10s %12s %9s  %s" % ("run", "sent (MB)",
      "self (MB)", "time (s)", "ms per call", "relabel", "map of B"))
for run in ("1-off", "2-report", "3-apply"):
    files = glob.glob(os.path.join(out, run, "costa_shim.*.json"))
    rep = json.load(open(files[0]))
    sent = sum(r["bytes_sent"] for r in rep["routines"])
    self_ = sum(r["bytes_self"] for r in rep["routines"])
    line = open(os.path.join(out, run, "out")).readline()
    t = re.search(r"elapsed_s:([0-9.]+)", line).group(1)
    pc = re.search(r"per_call_ms:([0-9.]+)", line).group(1)
    mapb = [l.split()[1:] for l in open(os.path.join(out, run, "out"))
            if l.startswith("mapB")][0]
    # the report's shape rows: share of the moved bytes a relabeled
    # target grid would avoid (COSTA_SHIM_RELABEL=report and apply)
    cross = sum(s.get("relabel_cross_bytes") or 0 for s in rep["shapes"])
    gain = sum(s.get("relabel_gain_bytes") or 0 for s in rep["shapes"])
    g = "%.1f%%" % (100.0 * gain / cross) if cross > 0 else "-"
    print("%-10s %12.1f %12.1f %10s %12s %9s  %s" % (run, sent / 1e6,
          self_ / 1e6, t, pc, g, " ".join(mapb)))
EOF
echo
echo "reports: $(cd "$top" && ls demo_out/relabel/*/costa_shim.*.txt | paste -sd ' ')"
