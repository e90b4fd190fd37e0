#!/usr/bin/env bash
# test_apps/checks/52_report_fortran.sh - a Fortran program gets the full
# report: gemr2d_fortran (16 PDGEMR2D/PSGEMR2D/PCGEMR2D/PZGEMR2D/PIGEMR2D
# configs, some leaving processes out of A's or B's grid) on 2 ranks with
# COSTA_SHIM_STATS=summary and COSTA_SHIM_MIN_ELEMS=0.
#
# Checks that exactly one .txt, .csv and .json report is written (no
# .partial left); the JSON's engine calls of the p?gemr2d_ routines equal
# the program's own "calls" lines less its "calls_no_work" (M or N = 0),
# which are the none calls; shapes[] and callers[] are not empty
# and account for every non-nested call; no shape with m, n > 0 lacks a
# block size (a process outside a 1x1 grid does not read that descriptor;
# its row must be folded into the row of the process inside); the text
# report has the shape and caller sections with rows.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/gemr2d_fortran
cs_need_files "$app" "$CS_SHIM"
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"/stats
export OMP_NUM_THREADS=1
rc=0
COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$CS_OUT/stats" \
    COSTA_SHIM_MIN_ELEMS=0 \
    timeout -k 5 60 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" "$app" \
    > "$CS_OUT/stdout.txt" 2> "$CS_OUT/stderr.txt" || rc=$?
if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$CS_OUT/stdout.txt")" != "cs_test: OK" ]
then
    echo "FAIL: gemr2d_fortran exited $rc"
    tail -n 5 "$CS_OUT/stderr.txt"
    exit 1
fi

"$PYTHON" - "$CS_OUT" <<'EOF'
import glob, json, os, re, sys
out = sys.argv[1]
d = os.path.join(out, "stats")
errors = []
files = sorted(os.listdir(d))
by_ext = {e: [f for f in files if f.endswith("." + e)]
          for e in ("txt", "csv", "json", "partial")}
if [len(by_ext[e]) for e in ("txt", "csv", "json", "partial")] != [1, 1, 1, 0]:
    sys.exit("  report files: %s" % files)
print("  report files: %s" % ", ".join(files))
rep = json.load(open(os.path.join(d, by_ext["json"][0])))
def lines(key):
    return sum(int(l.split()[2]) for l in open(os.path.join(out, "stdout.txt"))
               if re.match(r"^%s \d+ \d+$" % key, l))
want, nowork = lines("calls"), lines("calls_no_work")
def calls(path):
    return sum(r["calls"] for r in rep["routines"] if r["path"] == path
               and re.match(r"^p[sdczi]gemr2d_$", r["routine"]))
engine, none = calls("engine"), calls("none")
if engine != want - nowork or none != nowork or want == 0:
    errors.append("JSON engine calls %d and none %d, program made %d of "
                  "which %d with M or N = 0" % (engine, none, want, nowork))
own = sum(r["calls"] for r in rep["routines"] if r["path"] != "nested")
shapes, callers = rep["shapes"], rep["callers"]
if not shapes or sum(s["calls"] for s in shapes) != own:
    errors.append("shapes %d rows, %d calls; %d non-nested calls"
                  % (len(shapes), sum(s["calls"] for s in shapes), own))
if not callers or sum(c["calls"] for c in callers) != own:
    errors.append("callers %s; %d non-nested calls" % (callers, own))
for s in shapes:
    if s["routine"] not in ("pdgemr2d_", "psgemr2d_", "pcgemr2d_",
                            "pzgemr2d_", "pigemr2d_"):
        errors.append("shape routine %r" % s["routine"])
    if s["m"] and s["n"] and None in (s["mbA"], s["nbA"], s["mbB"],
                                      s["nbB"]):
        errors.append("block sizes not merged: %s" % s)
txt = open(os.path.join(d, by_ext["txt"][0])).read()
for title in ("Top call shapes by time", "Callers (top 10)"):
    sec = txt.split("@--- " + title)
    body = sec[1].split("@---")[0].splitlines()[2:] if len(sec) == 2 else []
    if not [l for l in body if l.strip()]:
        errors.append("text section %r missing or empty" % title)
for e in errors:
    print("  " + e)
if not errors:
    print("  %d engine calls, %d shapes, %d callers" % (engine, len(shapes),
                                                        len(callers)))
sys.exit(1 if errors else 0)
EOF
rc=$?
[ "$rc" -eq 0 ] && echo "52_report_fortran: OK"
exit "$rc"
