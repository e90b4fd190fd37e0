#!/usr/bin/env python3
"""bench_apps_report.py - the tables of make bench-apps (python3 stdlib).

usage: bench_apps_report.py OUTDIR [--doc FILE]

OUTDIR is bench_out/apps as scripts/bench_apps.sh leaves it:
<app>/<case>/{about,cmd,flavour}.txt and <kind>.<rep>/ run folders (kind
plain, native, shim or gemm) with wall_s, results.cmp and, for native,
shim and gemm, stats/costa_shim.*.json (COSTA_SHIM_STATS=full).  Prints
the tables and, with --doc, writes them as docs/applications.md.  Exit 1
when the results of the plain, native and shim runs of one input are not
all identical, when a gemm run's numbers differ from native's by more than
a relative GEMM_RTOL (or its text differs), or when a run is missing; 2 on
a usage error.

Per input: the wall time of each kind (median and range over the
repetitions); per rank the time inside the intercepted routines natively
(COSTA_SHIM_FALLBACK=always: ScaLAPACK, timed by the shim) and under the
shim, each split into the arrival wait (waiting for the other ranks: the
application's load imbalance) and the redistribution itself; per call
shape the same summed over ranks.  Medians over the repetitions.  For the
inputs with gemm runs (COSTA_SHIM_GEMM=on): the time in p?gemm natively
and with the path on, and how far the gemm runs' numbers are from
native's.
"""
import glob
import json
import math
import os
import re
import statistics
import sys
import time

# The gemm runs' results against native's: every number within this
# relative difference (the engine sums in another order than PBLAS).
GEMM_RTOL = 1e-10
NUM_RE = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eEdD][-+]?\d+)?")
GEMM_RE = re.compile(r"^p[sdcz]gemm_?$")


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs):
    if not xs:
        return "n/a"
    return "%.2f (%.2f-%.2f)" % (med(xs), min(xs), max(xs))


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def load_json(run):
    files = glob.glob(os.path.join(run, "stats", "costa_shim.*.json"))
    if len(files) != 1:
        return None
    with open(files[0]) as f:
        return json.load(f)


def shape_key(s):
    return (s["routine"], s.get("m"), s.get("n"), s.get("mbA"), s.get("nbA"),
            s.get("mbB"), s.get("nbB"))


class Case:
    def __init__(self, app, name, d):
        self.app, self.name, self.dir = app, name, d
        self.about = read(os.path.join(d, "about.txt"))
        self.cmd = read(os.path.join(d, "cmd.txt"))
        self.flavour = read(os.path.join(d, "flavour.txt"))
        self.runs = {"plain": [], "native": [], "shim": [], "gemm": []}
        for run in sorted(glob.glob(os.path.join(d, "*.*"))):
            kind = os.path.basename(run).split(".")[0]
            if kind in self.runs and os.path.isdir(run):
                self.runs[kind].append(run)
        self.problems = []

    def wall(self, kind):
        out = []
        for r in self.runs[kind]:
            try:
                out.append(float(read(os.path.join(r, "wall_s"), "nan")))
            except ValueError:
                pass
        return out

    def results(self):
        """(identical?, number of lines, the lines) over every run."""
        texts = {}
        for kind, runs in self.runs.items():
            if kind == "gemm":
                continue
            for r in runs:
                try:
                    with open(os.path.join(r, "results.cmp")) as f:
                        texts[r] = f.read()
                except OSError:
                    texts[r] = None
        vals = [t for t in texts.values()]
        if not vals or any(t is None or t == "" for t in vals):
            return False, 0, []
        same = all(t == vals[0] for t in vals)
        return same, len(vals[0].splitlines()), vals[0].splitlines()

    def gemm_results(self):
        """(all within GEMM_RTOL?, largest relative difference) of the
        gemm runs' numbers against the first native run's."""
        try:
            with open(os.path.join(self.runs["native"][0],
                                   "results.cmp")) as f:
                ref = f.read()
        except (OSError, IndexError):
            return False, float("nan")
        worst, ok = 0.0, bool(ref)
        for r in self.runs["gemm"]:
            try:
                with open(os.path.join(r, "results.cmp")) as f:
                    text = f.read()
            except OSError:
                return False, float("nan")
            if NUM_RE.sub("#", text) != NUM_RE.sub("#", ref):
                return False, float("nan")
            for a, b in zip(NUM_RE.findall(ref), NUM_RE.findall(text)):
                x = float(a.replace("D", "e").replace("d", "e"))
                y = float(b.replace("D", "e").replace("d", "e"))
                d = abs(x - y) / max(abs(x), abs(y)) if x != y else 0.0
                worst = max(worst, d)
                ok = ok and not math.isnan(d) and d <= GEMM_RTOL
        return ok, worst

    def gemm_time(self, kind):
        """Medians over reps of (time in p?gemm, its arrival wait, calls,
        calls on the engine), each the mean over the ranks."""
        acc = ([], [], [], [])
        for j in self.reports(kind):
            p = max(1, j.get("meta", {}).get("nprocs", 1))
            v = [0.0, 0.0, 0, 0]
            for r in j.get("routines", []):
                if GEMM_RE.match(r.get("routine", "")):
                    v[0] += r.get("t_sum_s") or 0.0
                    v[1] += r.get("t_wait_s") or 0.0
                    v[2] += r.get("calls", 0)
                    if r.get("path") == "engine":
                        v[3] += r.get("calls", 0)
            for a, x in zip(acc, v):
                a.append(x / p)
        return tuple(med(a) for a in acc)

    def reports(self, kind):
        reps = []
        for r in self.runs[kind]:
            j = load_json(r)
            if j is None:
                self.problems.append("%s: no report" % r)
            else:
                reps.append(j)
        return reps

    def per_rank(self, kind):
        """{rank: (time, wait)} medians over the repetitions."""
        acc = {}
        for j in self.reports(kind):
            for k in j.get("ranks", []):
                t = acc.setdefault(k["rank"], ([], []))
                t[0].append(k.get("shim_time_s") or 0.0)
                t[1].append(k.get("wait_time_s") or 0.0)
        return {r: (med(v[0]), med(v[1])) for r, v in acc.items()}

    def per_shape(self, kind):
        """{key: dict(calls, t, wait, grids)} medians over repetitions."""
        acc = {}
        for j in self.reports(kind):
            seen = {}
            for s in j.get("shapes", []):
                k = shape_key(s)
                e = seen.setdefault(k, {"calls": 0, "t": 0.0, "wait": 0.0,
                                        "gridA": s.get("gridA", "-"),
                                        "gridB": s.get("gridB", "-")})
                e["calls"] += s.get("calls", 0)
                e["t"] += s.get("t_sum_s") or 0.0
                e["wait"] += s.get("t_wait_s") or 0.0
            for k, e in seen.items():
                a = acc.setdefault(k, {"calls": [], "t": [], "wait": [],
                                       "gridA": e["gridA"],
                                       "gridB": e["gridB"]})
                for f in ("calls", "t", "wait"):
                    a[f].append(e[f])
        return {k: {"calls": med(a["calls"]), "t": med(a["t"]),
                    "wait": med(a["wait"]), "gridA": a["gridA"],
                    "gridB": a["gridB"]} for k, a in acc.items()}

    def routines_total(self, kind):
        """Median over reps of the largest rank's (time, wait)."""
        ts, ws = [], []
        for j in self.reports(kind):
            ranks = j.get("ranks", [])
            if ranks:
                top = max(ranks, key=lambda k: k.get("shim_time_s") or 0.0)
                ts.append(top.get("shim_time_s") or 0.0)
                ws.append(top.get("wait_time_s") or 0.0)
        return med(ts), med(ws)

    def fallbacks(self):
        n = 0
        for j in self.reports("shim"):
            for r in j.get("routines", []):
                if r.get("path") in ("fallback", "passthrough"):
                    n += r.get("calls", 0)
        return n


def ratio(a, b):
    return "%.2fx" % (a / b) if a > 0 and b > 0 else "n/a"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def blk(mb, nb, grid):
    return "%sx%s/%s" % (mb if mb is not None else "?",
                         nb if nb is not None else "?", grid or "?")


def case_lines(c):
    out = ["### %s: %s" % (c.app, c.name), "", c.about, ""]
    out.append("Command (2 ranks, `OMP_NUM_THREADS=1`, %s build): `%s`"
               % (c.flavour, c.cmd))
    out.append("")
    same, nlines, lines = c.results()
    nruns = sum(len(v) for k, v in c.runs.items() if k != "gemm")
    if same:
        out.append("Results: identical in all %d runs (plain, native and "
                   "shim: %d compared lines)." % (nruns, nlines))
    else:
        out.append("Results: **NOT identical** across the %d runs." % nruns)
        c.problems.append("results differ")
    energies = [l for l in lines if "ENERGY|" in l or "Total energy" in l
                or "energy" in l.lower()][:12]
    if energies:
        out += ["", "```"] + energies + ["```"]
    out.append("")
    out.append("Wall time (s, median and range of %d runs each):"
               % len(c.runs["shim"]))
    out.append("")
    pw, nw, sw = c.wall("plain"), c.wall("native"), c.wall("shim")
    out += table(["plain (no preload)", "native (FALLBACK=always)", "shim",
                  "plain / shim"],
                 [[spread(pw), spread(nw), spread(sw),
                   ratio(med(pw), med(sw))]])
    out.append("")
    nat, shm = c.per_rank("native"), c.per_rank("shim")
    rows = []
    for r in sorted(set(nat) | set(shm)):
        nt, nwt = nat.get(r, (0.0, 0.0))
        st, swt = shm.get(r, (0.0, 0.0))
        rows.append([r, "%.4f" % nt, "%.4f" % nwt, "%.4f" % (nt - nwt),
                     "%.4f" % st, "%.4f" % swt, "%.4f" % (st - swt),
                     ratio(nt - nwt, st - swt)])
    out.append("Time inside the intercepted routines per rank (s, medians; "
               "wait = arrival wait, redist = the rest):")
    out.append("")
    out += table(["rank", "native", "wait", "redist", "shim", "wait",
                  "redist", "redist speed-up"], rows)
    out.append("")
    ns, ss = c.per_shape("native"), c.per_shape("shim")
    rows = []
    for k in sorted(set(ns) | set(ss),
                    key=lambda k: -(ns.get(k, {}).get("t", 0.0))):
        n = ns.get(k, {"calls": 0, "t": 0.0, "wait": 0.0})
        s = ss.get(k, {"calls": 0, "t": 0.0, "wait": 0.0, "gridA": "?",
                       "gridB": "?"})
        rows.append([k[0], "%sx%s" % (k[1], k[2]),
                     blk(k[3], k[4], s.get("gridA")),
                     blk(k[5], k[6], s.get("gridB")),
                     "%d" % max(n["calls"], s["calls"]),
                     "%.4f" % n["t"], "%.4f" % n["wait"],
                     "%.4f" % s["t"], "%.4f" % s["wait"],
                     ratio(n["t"] - n["wait"], s["t"] - s["wait"])])
    out.append("Per routine and call shape (s, summed over ranks, medians):")
    out.append("")
    out += table(["routine", "m x n", "A blk/grid", "B blk/grid", "calls",
                  "native", "wait", "shim", "wait",
                  "redist speed-up"], rows)
    fb = c.fallbacks()
    out.append("")
    out.append("Calls the shim forwarded to ScaLAPACK: %d." % fb)
    out.append("")
    if c.runs["gemm"]:
        out += gemm_lines(c)
    return out


def gemm_lines(c):
    """The input's p?gemm natively and with COSTA_SHIM_GEMM=on."""
    ok, worst = c.gemm_results()
    if not ok:
        c.problems.append("gemm runs' results differ from native's by "
                          "more than %g (largest %.2g)" % (GEMM_RTOL, worst))
    out = ["With `COSTA_SHIM_GEMM=on` (*gemm*, %d runs): wall %s s; its "
           "results against native's: largest relative difference of any "
           "number %.1e (%s %g)." % (len(c.runs["gemm"]),
                                     spread(c.wall("gemm")), worst,
                                     "within" if ok else "**above**",
                                     GEMM_RTOL), ""]
    rows = []
    nt, nw, _, _ = c.gemm_time("native")
    for kind in ("native", "shim", "gemm"):
        t, w, n, e = c.gemm_time(kind)
        rows.append([kind, "%.0f" % n, "%.0f" % e, "%.4f" % t, "%.4f" % w,
                     "%.4f" % (t - w), ratio(nt - nw, t - w)])
    out.append("Time in p?gemm (s, per rank: the mean over ranks, medians "
               "over the runs; *shim* leaves p?gemm to PBLAS, the "
               "default):")
    out.append("")
    out += table(["kind", "calls", "on the engine", "p?gemm", "wait",
                  "without wait", "speed-up"], rows)
    out.append("")
    return out


def summary_row(c):
    same, _, _ = c.results()
    pw, sw = c.wall("plain"), c.wall("shim")
    nt, nwt = c.routines_total("native")
    st, swt = c.routines_total("shim")
    share = 100.0 * nt / med(pw) if med(pw) > 0 else float("nan")
    return [c.app, c.name, "%.2f" % med(pw), "%.2f" % med(sw),
            ratio(med(pw), med(sw)), "%.3f (%.3f)" % (nt, nwt),
            "%.3f (%.3f)" % (st, swt), ratio(nt - nwt, st - swt),
            "%.1f %%" % share, "identical" if same else "DIFFER"]


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    outdir = argv[1]
    doc = None
    if len(argv) == 4 and argv[2] == "--doc":
        doc = argv[3]
    elif len(argv) != 2:
        print("usage: bench_apps_report.py OUTDIR [--doc FILE]",
              file=sys.stderr)
        return 2
    cases = []
    for d in sorted(glob.glob(os.path.join(outdir, "*", "*"))):
        if os.path.isfile(os.path.join(d, "cmd.txt")):
            cases.append(Case(os.path.basename(os.path.dirname(d)),
                              os.path.basename(d), d))
    if not cases:
        print("bench_apps_report: no runs in %s" % outdir, file=sys.stderr)
        return 1
    lines = ["# What applications gain", "",
             "Written by `make bench-apps` (scripts/bench_apps.sh, "
             "scripts/bench_apps_report.py) on %s, on %s (%d cores)."
             % (time.strftime("%Y-%m-%d"), os.uname().nodename,
                os.cpu_count() or 0), "",
             "Each input runs on 2 ranks, one thread each, after one "
             "warm-up run that is not counted, three ways alternating in "
             "one sitting (each round starting with the next way): "
             "*plain* (the application alone), "
             "*native* (the shim preloaded with `COSTA_SHIM_FALLBACK=always`: "
             "every call goes to ScaLAPACK, timed inside the routine, with "
             "an `MPI_Barrier` in front that measures the *arrival wait*), "
             "and *shim* (the shim serving the calls).  The arrival wait is "
             "the time a rank waits for the other ranks to reach the call: "
             "the application's load imbalance (in CP2K's diagonalisation "
             "on fewer ranks, the idle ranks wait inside the redistribution "
             "back); no redistribution removes it, so the speed-up of the "
             "routines is given without it (*redist*).  The results of "
             "every run (energies, forces, trajectories as listed per "
             "input) must be identical.  Times are medians of the runs, "
             "ranges in parentheses.  The machine is a shared 2-core "
             "virtual machine: compare within a row, not across runs of "
             "this page.  The inputs, what each application needs to run "
             "and the applications tried and not kept are in "
             "[test_apps/apps/README.md](../test_apps/apps/README.md); "
             "`make check-apps` checks the same inputs.", "",
             "## Summary", ""]
    lines += table(["app", "input", "wall plain (s)", "wall shim (s)",
                    "wall gain", "routines native (wait) s",
                    "routines shim (wait) s", "redist speed-up",
                    "routines / native wall", "results"],
                   [summary_row(c) for c in cases])
    lines += ["", "Routine times are those of the rank that spends the "
              "most in them; *routines / native wall* is that time over "
              "the plain run's wall time.", ""]
    gc = [c for c in cases if c.runs["gemm"]]
    if gc:
        lines += ["Matrix multiplication with `COSTA_SHIM_GEMM=on` (opt-in; "
                  "its results are not bit-identical, every number within "
                  "a relative %g of native's): time in p?gemm per rank, "
                  "without the arrival wait, medians." % GEMM_RTOL, ""]
        rows = []
        for c in gc:
            nt, nw, n, _ = c.gemm_time("native")
            gt, gw, _, e = c.gemm_time("gemm")
            ok, worst = c.gemm_results()
            rows.append([c.app, c.name, "%.0f" % n, "%.0f" % e,
                         "%.3f" % (nt - nw), "%.3f" % (gt - gw),
                         ratio(gt - gw, nt - nw), "%.1e" % worst,
                         "within" if ok else "ABOVE"])
        lines += table(["app", "input", "p?gemm calls", "on the engine",
                        "native s", "gemm on s", "gemm on / native",
                        "largest rel. diff", "results"], rows)
        lines += [""]
    lines += ["## Inputs", ""]
    for c in cases:
        lines += case_lines(c)
    text = "\n".join(lines) + "\n"
    print(text)
    if doc:
        with open(doc, "w") as f:
            f.write(text)
        print("bench_apps_report: wrote %s" % doc)
    bad = [(c.app, c.name, p) for c in cases for p in c.problems]
    for app, name, p in bad:
        print("bench_apps_report: %s %s: %s" % (app, name, p),
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
