#!/usr/bin/env python3
"""check_stats.py - verify a costa-shim statistics report (python3 stdlib).

Why: the differential checks must prove that the shim's engine really served
the calls (a shim that silently forwarded everything to ScaLAPACK would pass
every bitwise comparison).

usage: check_stats.py DIR [--routine-regex RE] [--expect-engine-calls N]
                          [--allow-passthrough REASON]
                          [--min-engine-calls N] [--expect-none-calls N]
                          [--no-fallback] [--expect-fallback REASON=N[,...]]
                          [--expect-passthrough REASON=N[,...]]

Reads the single DIR/costa_shim.*.json (error if there is none or several):
  {"schema_version": 1, "meta": {...},
   "routines": [{"routine": "pdgemr2d_", "path": "engine", "reason": "",
                 "calls": 12, ...}, ...], ...}
calls are summed over all ranks.

  --routine-regex RE       rows counted by the engine-call options are those
                           whose routine matches RE (re.search; default: all)
  --expect-engine-calls N  sum of calls over engine rows matching RE == N
  --min-engine-calls N     that sum >= N
  --expect-none-calls N    sum of calls over rows with path none (calls that
                           needed no work: M or N = 0, alpha = 0 with
                           beta = 1) matching RE == N
  --no-fallback            no row at all (any routine) with path fallback or
                           passthrough, except those --expect-fallback and
                           --expect-passthrough allow
  --expect-fallback REASON=N[,REASON=N...]
                           fallback rows with each reason total exactly N
                           calls (documented fallbacks, e.g. unsupported;
                           the option may also be repeated)
  --expect-passthrough REASON=N[,REASON=N...]
                           the same for passthrough rows (e.g. gemm_off:
                           the routine not taken over by default); these
                           rows are then allowed under --no-fallback
  --allow-passthrough REASON
                           passthrough rows with this reason are allowed
                           under --no-fallback, whatever their count (e.g.
                           gemm_off: p?gemm called inside ScaLAPACK's
                           drivers, left to it by default); may be repeated

Prints what it found; exit 0 when every requested condition holds, 1 on a
mismatch, 2 on a usage or file error.
"""
import argparse
import glob
import json
import os
import re
import sys


def fail(msg, code=1):
    print("check_stats: FAIL: " + msg)
    sys.exit(code)


def parse_counts(opts, what):
    """REASON=N lists of the repeatable options, as {reason: N}."""
    want = {}
    for opt in opts or []:
        for item in opt.split(","):
            try:
                reason, n = item.split("=", 1)
                n = int(n)
            except ValueError:
                fail("bad --expect-%s %r (want REASON=N[,REASON=N...])"
                     % (what, opt), 2)
            if reason in want:
                fail("--expect-%s names reason %r twice" % (what, reason), 2)
            want[reason] = n
    return want


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("dir")
    ap.add_argument("--routine-regex", default="")
    ap.add_argument("--expect-engine-calls", type=int)
    ap.add_argument("--min-engine-calls", type=int)
    ap.add_argument("--expect-none-calls", type=int)
    ap.add_argument("--no-fallback", action="store_true")
    ap.add_argument("--expect-fallback", action="append")
    ap.add_argument("--expect-passthrough", action="append")
    ap.add_argument("--allow-passthrough", action="append", default=[])
    a = ap.parse_args()

    files = sorted(glob.glob(os.path.join(a.dir, "costa_shim.*.json")))
    if not files:
        fail("no costa_shim.*.json in %s" % a.dir, 2)
    if len(files) > 1:
        fail("%d reports in %s (expected one): %s"
             % (len(files), a.dir, ", ".join(os.path.basename(f)
                                             for f in files)), 2)
    try:
        with open(files[0]) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        fail("cannot read %s: %s" % (files[0], e), 2)

    print("check_stats: report %s" % files[0])
    if not isinstance(rep, dict):
        fail("report is not a JSON object", 2)
    if rep.get("schema_version") != 1:
        fail("schema_version is %r, expected 1" % rep.get("schema_version"))
    meta = rep.get("meta", {})
    if isinstance(meta, dict) and meta:
        print("  meta: " + ", ".join("%s=%s" % (k, json.dumps(v))
                                     for k, v in sorted(meta.items())
                                     if not isinstance(v, (dict, list))))
    rows = rep.get("routines")
    if not isinstance(rows, list):
        fail("no 'routines' list in the report")

    try:
        rx = re.compile(a.routine_regex)
    except re.error as e:
        fail("bad --routine-regex: %s" % e, 2)

    # path -> {reason: expected calls}, and the calls seen of each
    want = {"fallback": parse_counts(a.expect_fallback, "fallback"),
            "passthrough": parse_counts(a.expect_passthrough, "passthrough")}
    seen = {p: dict.fromkeys(w, 0) for p, w in want.items()}
    engine = 0
    none = 0
    bad_rows = []
    print("  %-14s %-11s %10s  %s" % ("routine", "path", "calls", "reason"))
    for r in rows:
        if not isinstance(r, dict):
            fail("routine row is not an object: %r" % (r,))
        name = str(r.get("routine", "?"))
        path = str(r.get("path", "?"))
        calls = r.get("calls", 0)
        if not isinstance(calls, int):
            fail("row %s/%s: calls is %r" % (name, path, calls))
        match = bool(rx.search(name))
        print("  %-14s %-11s %10d  %s%s" % (name, path, calls,
                                            r.get("reason", ""),
                                            "" if match else "  (not matched)"))
        if path == "engine" and match:
            engine += calls
        if path == "none" and match:
            none += calls
        reason = r.get("reason", "")
        if path in want and reason in want[path]:
            seen[path][reason] += calls
        elif path == "passthrough" and reason in a.allow_passthrough:
            pass
        elif path in ("fallback", "passthrough"):
            bad_rows.append("%s/%s (%d calls, reason %r)"
                            % (name, path, calls, r.get("reason", "")))
    print("  engine calls matching %r: %d, none (no work): %d"
          % (a.routine_regex, engine, none))

    ok = True
    if a.expect_engine_calls is not None and engine != a.expect_engine_calls:
        print("check_stats: FAIL: engine calls %d, expected %d"
              % (engine, a.expect_engine_calls))
        ok = False
    if a.expect_none_calls is not None and none != a.expect_none_calls:
        print("check_stats: FAIL: calls with path none %d, expected %d"
              % (none, a.expect_none_calls))
        ok = False
    if a.min_engine_calls is not None and engine < a.min_engine_calls:
        print("check_stats: FAIL: engine calls %d, expected at least %d"
              % (engine, a.min_engine_calls))
        ok = False
    for path in sorted(want):
        for reason, n in sorted(want[path].items()):
            if seen[path][reason] != n:
                print("check_stats: FAIL: %d %s calls with reason %s, "
                      "expected %d" % (seen[path][reason], path, reason, n))
                ok = False
    if a.no_fallback and bad_rows:
        print("check_stats: FAIL: fallback/passthrough rows: "
              + "; ".join(bad_rows))
        ok = False
    if not ok:
        sys.exit(1)
    print("check_stats: OK")


if __name__ == "__main__":
    main()
