#!/usr/bin/env python3
"""tester_result.py - did every test of a ScaLAPACK tester pass? (stdlib)

Why: check 45 runs ScaLAPACK's own testers (Debian's scalapack-mpi-test)
natively and under the shim; they exit 0 whether their tests pass or
fail, so their output is what says so.  Each tester family words it its
own way:

  pblas  the PBLAS testers (?pb3tst): the "Testing Summary" table, one
         "|  PDGEMM  TOTAL PASSED FAILED SKIPPED" row per routine; every
         row must have PASSED = TOTAL (nothing failed or skipped), some
         routine at least one test, no "FAILED" check line, and the
         closing "End of Tests."  Only the complex P?SYRK and P?HERK
         rows may skip (PASSED + SKIPPED = TOTAL): they skip the TRANS
         values they do not take (C, resp. T), which the input lists for
         P?GEMM.
  lu     the LU testers (x?lu) and
  sep    the symmetric eigensolver testers (x?sep): "Finished N tests",
         then "K tests <what>." lines; "completed and passed ..." must be
         N > 0, every other K (failed, skipped, without checking) 0; no
         result row ends in FAILED; the closing "END OF TESTS."
  svd    the SVD testers (x?svd): one row per test, which must start with
         "Passed", at least one; the closing "End of tests".

usage: tester_result.py KIND FILE
Prints "KIND: N tests passed" and exits 0, or one "FAIL: ..." line per
problem and exits 1 (2 on a usage or file error).
"""
import re
import sys


def pblas(lines):
    bad, passed, rows, ended = [], 0, 0, False
    in_summary = False
    for ln in lines:
        if "Testing Summary" in ln:
            in_summary = True
        if "End of Tests." in ln:
            ended = True
        m = re.match(r"\s*\|\s*(P\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", ln)
        if in_summary and m:
            name, tot, ok, failed, skipped = m.group(1), *map(int, m.groups()[1:])
            rows += 1
            passed += ok
            may_skip = re.match(r"P[CZ](SYRK|HERK)$", name)
            if failed or (skipped and not may_skip) or ok + skipped != tot:
                bad.append("%s: %d tests, %d passed, %d failed, %d skipped"
                           % (name, tot, ok, failed, skipped))
        elif "*****" in ln and "FAILED" in ln:
            bad.append("check line: " + ln.strip())
    if not rows:
        bad.append("no Testing Summary rows")
    elif not passed:
        bad.append("no test passed (nothing run?)")
    if not ended:
        bad.append("no 'End of Tests.' line (tester stopped early?)")
    return passed, bad


def finished(lines, closing):
    bad, total, passed, ended = [], None, None, False
    for ln in lines:
        if closing in ln:
            ended = True
        m = re.match(r"\s*Finished\s+(\d+)\s+tests", ln)
        if m:
            total = int(m.group(1))
            continue
        m = re.match(r"\s*(\d+)\s+tests\s+(.*?)\.?\s*$", ln)
        if m and total is not None:
            k, what = int(m.group(1)), m.group(2)
            if what.startswith("completed and passed"):
                passed = k
            elif k:
                bad.append("%d tests %s" % (k, what))
        elif re.search(r"\bFAILED\s*(\w+\s*)?$", ln):
            bad.append("result row: " + ln.strip())
    if total is None:
        bad.append("no 'Finished N tests' line (tester stopped early?)")
    elif not passed or passed != total:
        bad.append("%s of %d tests passed" % (passed or 0, total))
    if not ended:
        bad.append("no %r line" % closing)
    return passed or 0, bad


def svd(lines):
    bad, passed, ended, in_rows = [], 0, False, False
    for ln in lines:
        t = ln.split()
        if t[:2] == ["RESULT", "WALL"]:
            in_rows = True
            continue
        if "End of tests" in ln:
            ended = True
            in_rows = False
        # a result row: RESULT WALL CPU M N P Q NB MTYPE CHK MTM DELTA HET
        if in_rows and len(t) >= 10 and t[-1] in ("N", "P", "T"):
            if t[0] == "Passed":
                passed += 1
            else:
                bad.append("result row: " + ln.strip())
    if not passed:
        bad.append("no test passed (nothing run?)")
    if not ended:
        bad.append("no 'End of tests' line (tester stopped early?)")
    return passed, bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("pblas", "lu", "sep", "svd"):
        print("usage: tester_result.py pblas|lu|sep|svd FILE")
        sys.exit(2)
    kind, path = sys.argv[1], sys.argv[2]
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        print("FAIL: cannot read %s: %s" % (path, e))
        sys.exit(2)
    if kind == "pblas":
        n, bad = pblas(lines)
    elif kind == "svd":
        n, bad = svd(lines)
    else:
        n, bad = finished(lines, "END OF TESTS.")
    for b in bad:
        print("FAIL: " + b)
    if bad:
        sys.exit(1)
    print("%s: %d tests passed" % (kind, n))


if __name__ == "__main__":
    main()
