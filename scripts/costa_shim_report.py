#!/usr/bin/env python3
"""costa_shim_report.py - read, compare and plot costa-shim reports and traces.

Python 3.9+ standard library only (charts are drawn as inline SVG).

  summary FILE...            reprint the report tables (text layout of the
                             shim's .txt report); FILE is a .json or .csv
                             report, several per-rank costa_shim.*.r<N>.csv
                             files (COSTA_SHIM_STATS=local, merged here) or a
                             directory holding one report;
                             --by routine|shape|caller|rank
  compare BASE NEW           per routine (and per shape when both have shape
                             rows): calls, time, speed-up BASE/NEW, bytes
  plot FILE [--trace LOG...] --out report.html
                             one self-contained HTML page with five charts
  trace2csv LOG...           COSTA_SHIM trace lines (COSTA_SHIM_VERBOSE=1) as
                             CSV on stdout, one row per line
  replay LOG [--seq N] [--rank R]
                             a command line that reruns one logged call in
                             the replay_call test app

Formats (reports and trace line): docs/report-format.md; guide:
docs/user-guide.md.
Exit status: 0 success, 2 unreadable or incompatible input / bad usage.
"""

import argparse
import csv
import glob
import html
import json
import math
import os
import re
import shlex
import sys

PROG = "costa_shim_report"


class UserError(Exception):
    """An error caused by the input or the command line: message, exit 2."""


def warn(msg):
    sys.stderr.write("%s: warning: %s\n" % (PROG, msg))


# ------------------------------------------------------------------ names
# Routine, spelling, path and reason orders follow shim/shim_symbols.def and
# shim/shim.h, so tables sort exactly as the shim sorts them.

ROUTINES = [
    "psgemr2d", "pdgemr2d", "pcgemr2d", "pzgemr2d", "pigemr2d",
    "pstrmr2d", "pdtrmr2d", "pctrmr2d", "pztrmr2d", "pitrmr2d",
    "pstran", "pdtran", "pctranu", "pztranu", "pctranc", "pztranc",
    "psgeadd", "pdgeadd", "pcgeadd", "pzgeadd",
    "pstradd", "pdtradd", "pctradd", "pztradd",
    "psgemm", "pdgemm", "pcgemm", "pzgemm",
]
ROUTINE_INDEX = {r: i for i, r in enumerate(ROUTINES)}
PATHS = ["engine", "fallback", "passthrough", "nested", "none"]
REASONS = ["", "small", "disabled", "routine_off", "bad_desc", "ctxt_neg1",
           "memory", "mpi_not_ready", "nested", "always", "unsupported",
           "mpi_mismatch", "no_work", "gemm_off", "native_faster"]
# bytes_node, bytes_net: of bytes_sent, to ranks of the sender's node and
# of other nodes (absent from reports before they existed: read as 0)
# flops, bytes_pblas: p?gemm on the engine (its local products' flops and
# the bytes PBLAS's algorithm would have received, a model)
COUNTERS = ["calls", "bytes_sent", "bytes_recv", "bytes_self", "bytes_node",
            "bytes_net", "msgs_sent", "msgs_recv", "flops", "bytes_pblas"]
# t_wait_s: the part of t_sum_s spent waiting for the last rank of each
# call to arrive; t_pack_s .. t_xfer_s: the engine's phases (packing, local
# copies, unpacking, waiting for messages).  Absent from reports before
# they existed: read as 0.
PHASES = ["t_pack_s", "t_local_s", "t_unpack_s", "t_xfer_s"]
# t_mm_in_s .. t_mm_out_s: p?gemm's phases (operands in, local product,
# reduce-scatter, C out); its exchanges are in PHASES too
MM_PHASES = ["t_mm_in_s", "t_mul_s", "t_reduce_s", "t_mm_out_s"]
TIMERS = (["t_sum_s", "t_min_s", "t_max_s", "t_sumsq", "t_wait_s"] + PHASES +
          MM_PHASES)
SHAPE_COLS = ["m", "n", "mbA", "nbA", "gridA", "mbB", "nbB", "gridB"]
# the histogram of a shape's call times (docs/report-format.md section 8):
# bin 0 below 1 us, bin k in [1 us * 2^((k-1)/4), 1 us * 2^(k/4)), the
# last one open
HIST_BINS = 128
HIST_T0 = 1e-6
HIST_PER_OCTAVE = 4
CSV_REQUIRED = ["rank", "routine", "path", "reason", "calls", "t_sum_s"]


def split_called_name(name):
    """'pdgemr2d_' -> ('pdgemr2d', 1); spelling index as CS_SHIM_SP_*."""
    if name.startswith("C") and name[1:] in ROUTINE_INDEX:
        return name[1:], 6
    core = name.rstrip("_")
    under = len(name) - len(core)
    upper = core.isupper()
    return core.lower(), (3 if upper else 0) + min(under, 2)


def routine_sort_key(name):
    base, sp = split_called_name(name)
    return (ROUTINE_INDEX.get(base, len(ROUTINES)), base, sp, name)


def path_index(p):
    return PATHS.index(p) if p in PATHS else len(PATHS)


def reason_index(r):
    return REASONS.index(r) if r in REASONS else len(REASONS)


# ------------------------------------------------------------------ rows

def new_row(routine, path="", reason=""):
    row = {"routine": routine, "path": path, "reason": reason}
    for c in COUNTERS:
        row[c] = 0
    for t in TIMERS:
        row[t] = 0.0
    return row


def add_row(dst, src):
    """dst += src, as cs_shim_row_merge() does."""
    if "t_hist" in src or "t_hist" in dst:
        add_tails(dst, src)
    if dst["calls"] == 0 or src["t_min_s"] < dst["t_min_s"]:
        dst["t_min_s"] = src["t_min_s"]
    dst["t_max_s"] = max(dst["t_max_s"], src["t_max_s"])
    dst["t_sum_s"] += src["t_sum_s"]
    dst["t_sumsq"] += src["t_sumsq"]
    for t in ["t_wait_s"] + PHASES + MM_PHASES:
        dst[t] += src[t]
    for c in COUNTERS:
        dst[c] += src[c]


def hist_lo(k):
    return 0.0 if k <= 0 else HIST_T0 * 2.0 ** ((k - 1) / HIST_PER_OCTAVE)


def hist_hi(k):
    return math.inf if k >= HIST_BINS - 1 else hist_lo(k + 1)


def hist_quantile(hist, q, t_min, t_max):
    """The q-quantile of a {bin: count} histogram as the shim reads it
    (cs_shim_hist_quantile): the ceil(q * count)-th smallest time's bin,
    its geometric middle cut to [t_min, t_max]; 0 when empty."""
    count = sum(hist.values())
    if count == 0:
        return 0.0
    want = min(count, max(1, math.ceil(q * count)))
    seen, k = 0, HIST_BINS - 1
    for b in sorted(hist):
        seen += hist[b]
        if seen >= want:
            k = b
            break
    lo, hi = max(hist_lo(k), t_min), min(hist_hi(k), t_max)
    if not lo <= hi:
        lo = hist_lo(k)
        hi = lo if k == HIST_BINS - 1 else hist_hi(k)
    return math.sqrt(lo * hi) if lo > 0 else 0.5 * hi


TAILS = ["t_hist", "t_median_s", "max_call", "max_rank"]


def add_tails(dst, src):
    """dst += src for a shape row's call times (histogram, median, the
    slowest call), as the shim merges them; before add_row merges the
    timers.  A row without them (an older report) leaves the merged row
    without them."""
    if dst["calls"] == 0:
        for k in TAILS:
            if k in src:
                dst[k] = dict(src[k]) if k == "t_hist" else src[k]
        return
    if "t_hist" not in dst or "t_hist" not in src:
        for k in TAILS:
            dst.pop(k, None)
        return
    # the slower call; of two equally slow the lower rank's, the earlier
    if (src["t_max_s"], -src["max_rank"], -src["max_call"]) > \
            (dst["t_max_s"], -dst["max_rank"], -dst["max_call"]):
        dst["max_call"], dst["max_rank"] = src["max_call"], src["max_rank"]
    for b, c in src["t_hist"].items():
        dst["t_hist"][b] = dst["t_hist"].get(b, 0) + c
    dst["t_median_s"] = hist_quantile(
        dst["t_hist"], 0.5, min(dst["t_min_s"], src["t_min_s"]),
        max(dst["t_max_s"], src["t_max_s"]))


def merge_rows(rows, keyfn, fields):
    """Merge rows by keyfn(row); fields: the key columns copied to the
    merged row.  Returns {key: row} in first-seen order."""
    out = {}
    for r in rows:
        k = keyfn(r)
        if k not in out:
            m = new_row(r["routine"])
            for f in fields:
                m[f] = r.get(f, "")
            out[k] = m
        add_row(out[k], r)
    return out


def full_key(r):
    return (routine_sort_key(r["routine"]), path_index(r["path"]),
            reason_index(r["reason"]), r["path"], r["reason"])


def moved_bytes(r):
    return r["bytes_sent"] + r["bytes_self"]


def to_int(v, what):
    if v is None or v == "":
        return 0
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise UserError("%s: not a number: %r" % (what, v))
        if not math.isfinite(f) or f != int(f):
            raise UserError("%s: not an integer: %r" % (what, v))
        return int(f)


def to_float(v, what):
    if v is None or v == "":
        return 0.0
    try:
        return float(v)
    except (TypeError, ValueError):
        raise UserError("%s: not a number: %r" % (what, v))


def clean_row(d, what):
    """A statistics row from a CSV or JSON record, numbers converted."""
    if not isinstance(d, dict):
        raise UserError("%s: a row is not an object" % what)
    row = {"routine": str(d.get("routine", "")), "path": str(d.get("path", "")),
           "reason": str(d.get("reason", "") or "")}
    if not row["routine"]:
        raise UserError("%s: a row has no routine name" % what)
    for c in COUNTERS:
        row[c] = to_int(d.get(c), "%s: %s" % (what, c))
    for t in TIMERS:
        row[t] = to_float(d.get(t), "%s: %s" % (what, t))
    for k in ["shape_id", "caller"] + SHAPE_COLS:
        if d.get(k) not in (None, ""):
            row[k] = d[k]
    if d.get("relabel_gain_bytes") not in (None, ""):
        row["relabel_gain_bytes"] = to_int(d["relabel_gain_bytes"],
                                           what + ": relabel_gain_bytes")
    if d.get("t_hist") not in (None, ""):
        row["t_hist"] = read_hist(d["t_hist"], what + ": t_hist")
        row["t_median_s"] = to_float(d.get("t_median_s"),
                                     what + ": t_median_s")
        row["max_call"] = to_int(d.get("max_call"), what + ": max_call")
        row["max_rank"] = to_int(d.get("max_rank"), what + ": max_rank")
    return row


def read_hist(v, what):
    """{bin: count} from the JSON's [[bin, count], ...] or the CSV's
    "bin:count bin:count"."""
    try:
        pairs = (v if isinstance(v, list) else
                 [p.split(":") for p in str(v).split()])
        hist = {int(k): int(c) for k, c in pairs}
    except (TypeError, ValueError):
        raise UserError("%s: not a histogram: %r" % (what, v))
    if any(not 0 <= k < HIST_BINS or c < 0 for k, c in hist.items()):
        raise UserError("%s: not a histogram: %r" % (what, v))
    return hist


# ------------------------------------------------------------------ loading

class Report:
    """One run's statistics, from a JSON, a CSV or merged per-rank CSVs.

    rows       routine rows aggregated over all ranks (routine, path, reason)
    rank_rows  {rank: [rows]} when per-rank rows are known (CSV, JSON full)
    ranks      [{rank, app_time_s (None if unknown), shim_time_s, calls,
                 fallbacks}]
    shapes     shape rows aggregated over ranks (may be empty)
    callers    caller rows (may be empty)
    """

    def __init__(self):
        self.sources = []
        self.kind = ""
        self.meta = {}
        self.env = {}
        self.rows = []
        self.rank_rows = {}
        self.ranks = []
        self.shapes = []
        self.callers = []
        self.partial = False
        self.merged_files = 0

    def label(self):
        if len(self.sources) == 1:
            return self.sources[0]
        return "%d per-rank files (%s ...)" % (len(self.sources),
                                              self.sources[0])

    def setting(self, name):
        return self.env.get(name)


def expand_inputs(paths):
    """Files as given; a directory stands for the report it holds."""
    out = []
    for p in paths:
        if not os.path.isdir(p):
            out.append(p)
            continue
        js = sorted(glob.glob(os.path.join(p, "costa_shim.*.json")))
        local = sorted(glob.glob(os.path.join(p, "costa_shim.*.r*.csv")))
        coll = sorted(f for f in glob.glob(os.path.join(p, "costa_shim.*.csv"))
                      if f not in local)
        if len(js) == 1:
            out.append(js[0])
        elif len(js) > 1:
            raise UserError("%s holds %d JSON reports; name one: %s" % (
                p, len(js), ", ".join(os.path.basename(f) for f in js)))
        elif len(coll) == 1:
            out.append(coll[0])
        elif local:
            out.extend(local)
        else:
            raise UserError("%s holds no costa_shim.*.json or "
                            "costa_shim.*.csv report" % p)
    return out


def read_text(path):
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise UserError("cannot read %s: %s" % (path, e.strerror or e))


def load_json(path):
    text = read_text(path)
    try:
        d = json.loads(text)
    except ValueError as e:
        raise UserError("%s: not valid JSON (%s)" % (path, e))
    if not isinstance(d, dict) or "routines" not in d:
        raise UserError("%s: not a costa_shim JSON report (no 'routines')"
                        % path)
    ver = d.get("schema_version")
    if ver != 1:
        raise UserError("%s: schema_version %r, this script reads version 1"
                        % (path, ver))
    rep = Report()
    rep.kind = "json"
    rep.sources = [path]
    rep.meta = d.get("meta") if isinstance(d.get("meta"), dict) else {}
    rep.env = d.get("env") if isinstance(d.get("env"), dict) else {}
    rep.partial = bool(rep.meta.get("partial"))
    if not isinstance(d["routines"], list):
        raise UserError("%s: 'routines' is not a list" % path)
    rep.rows = [clean_row(r, path) for r in d["routines"]]
    for k in d.get("ranks") or []:
        if not isinstance(k, dict) or "rank" not in k:
            raise UserError("%s: bad entry in 'ranks'" % path)
        rank = to_int(k["rank"], path + ": rank")
        app = k.get("app_time_s")
        rep.ranks.append({
            "rank": rank,
            "app_time_s": None if app is None else to_float(app, path),
            "shim_time_s": to_float(k.get("shim_time_s"), path),
            "wait_time_s": to_float(k.get("wait_time_s"), path),
            "calls": to_int(k.get("calls"), path),
            "fallbacks": to_int(k.get("fallbacks"), path)})
        if isinstance(k.get("routines"), list):
            rep.rank_rows[rank] = [clean_row(r, path) for r in k["routines"]]
    shapes = d.get("shapes") or []
    rep.shapes = [clean_row(s, path) for s in shapes if isinstance(s, dict)]
    callers = d.get("callers") or []
    rep.callers = [clean_row(c, path) for c in callers if isinstance(c, dict)]
    return rep


def parse_csv_file(path):
    """-> (meta dict, list of row dicts with 'rank')."""
    text = read_text(path)
    lines = text.splitlines()
    meta, body = {}, []
    for ln in lines:
        if ln.startswith("#"):
            k, sep, v = ln[1:].partition(":")
            if sep:
                meta[k.strip()] = v.strip()
        elif ln.strip():
            body.append(ln)
    if "costa_shim_csv_version" not in meta:
        raise UserError("%s: not a costa_shim CSV report (no "
                        "'# costa_shim_csv_version' line)" % path)
    if meta["costa_shim_csv_version"] != "1":
        raise UserError("%s: costa_shim_csv_version %s, this script reads "
                        "version 1" % (path, meta["costa_shim_csv_version"]))
    if not body:
        raise UserError("%s: no column header line" % path)
    reader = csv.DictReader(body)
    missing = [c for c in CSV_REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise UserError("%s: missing columns: %s" % (path, ", ".join(missing)))
    rows = []
    for i, d in enumerate(reader):
        where = "%s line %d" % (path, i + 2)
        row = clean_row(d, where)
        row["rank"] = to_int(d["rank"], where + ": rank")
        rows.append(row)
    return meta, rows


def rank_from_name(path):
    m = re.search(r"\.r(\d+)\.csv$", path)
    return int(m.group(1)) if m else None


def rank_summary(rank, rows):
    """Per-rank totals as the shim counts them: nested calls excluded."""
    own = [r for r in rows if r["path"] != "nested" and "shape_id" not in r]
    return {"rank": rank, "app_time_s": None,
            "shim_time_s": sum(r["t_sum_s"] for r in own),
            "wait_time_s": sum(r["t_wait_s"] for r in own),
            "calls": sum(r["calls"] for r in own),
            "fallbacks": sum(r["calls"] for r in own
                             if r["path"] in ("fallback", "passthrough"))}


def load_csvs(paths):
    rep = Report()
    rep.kind = "csv"
    rep.sources = list(paths)
    agg, agg_shapes, per_rank = [], [], {}
    file_ranks = set()
    for p in paths:
        meta, rows = parse_csv_file(p)
        has_agg = any(r["rank"] < 0 for r in rows)
        if has_agg and len(paths) > 1:
            raise UserError("%s is a collective report (it has rank -1 rows);"
                            " give it alone, only per-rank CSV files "
                            "(COSTA_SHIM_STATS=local) are merged" % p)
        if not rep.meta:
            rep.meta = meta
        elif meta.get("command") != rep.meta.get("command"):
            raise UserError("%s comes from another run (command %r, not %r)"
                            % (p, meta.get("command"),
                               rep.meta.get("command")))
        rep.partial |= meta.get("partial", "0") not in ("0", "")
        ranks_here = set()
        for r in rows:
            if r["rank"] < 0:
                (agg_shapes if "shape_id" in r else agg).append(r)
            else:
                ranks_here.add(r["rank"])
                per_rank.setdefault(r["rank"], []).append(r)
        if not has_agg:
            named = rank_from_name(p)
            if not ranks_here and named is not None:
                ranks_here.add(named)
                per_rank.setdefault(named, [])
            dup = ranks_here & file_ranks
            if dup:
                raise UserError("rank %d appears in more than one file (%s)"
                                % (min(dup), p))
            file_ranks |= ranks_here
    rep.merged_files = len(paths) if len(paths) > 1 else 0
    try:
        nprocs = int(rep.meta.get("nprocs", "0"))
    except ValueError:
        nprocs = 0
    if agg:
        for k in range(nprocs):
            per_rank.setdefault(k, [])
    elif len(paths) > 1 and nprocs and len(per_rank) != nprocs:
        warn("%d of %d ranks' files given: totals cover those ranks only"
             % (len(per_rank), nprocs))
    rep.rank_rows = {k: [r for r in v if "shape_id" not in r]
                     for k, v in per_rank.items()}
    everyone = [r for v in rep.rank_rows.values() for r in v]
    if agg:
        rep.rows = agg
    else:
        rep.rows = list(merge_rows(everyone, lambda r: (
            r["routine"], r["path"], r["reason"]),
            ["path", "reason"]).values())
    shape_src = agg_shapes or [r for v in per_rank.values() for r in v
                               if "shape_id" in r]
    rep.shapes = list(merge_rows(shape_src, shape_key,
                                 SHAPE_COLS + ["path", "reason",
                                               "shape_id"]).values())
    rep.ranks = [rank_summary(k, rep.rank_rows[k])
                 for k in sorted(rep.rank_rows)]
    return rep


def shape_key(r):
    return (r["routine"],) + tuple(str(r.get(c, "")) for c in SHAPE_COLS)


def load_report(paths):
    """A Report from the FILE arguments of a subcommand."""
    files = expand_inputs(paths)
    if not files:
        raise UserError("no report file given")
    for f in files:
        if not os.path.exists(f):
            raise UserError("%s: no such file" % f)
    js = [f for f in files if f.endswith(".json")]
    if js:
        if len(files) > 1:
            raise UserError("give one JSON report alone (got %d files); only"
                            " per-rank CSV files are merged" % len(files))
        return load_json(js[0])
    return load_csvs(files)


# ------------------------------------------------------------------ text

RULE_WIDTH = 72


def rule(title):
    s = "@--- %s " % title
    return s + "-" * max(0, RULE_WIDTH - len(s))


def fmt_opt(fmt, v, width):
    return (fmt % v) if v is not None else "%*s" % (width, "n/a")


def text_header(rep, title="costa_shim report"):
    m = rep.meta
    out = ["@ %s" % title]
    out.append("@ Command        : %s" % m.get("command", "?"))
    if rep.kind == "json":
        out.append("@ Version        : costa_shim %s" % m.get("version", "?"))
        out.append("@ Real library   : %s" % (m.get("real_library") or
                                               "(not resolved)"))
        out.append("@ MPI            : %s" % m.get("mpi", "?"))
        nodes = to_int(m.get("nodes", 0), "nodes")
        thr = to_int(m.get("threads_per_rank", 0), "threads_per_rank")
        out.append("@ Ranks          : %s on %d node%s, %d thread%s/rank" % (
            m.get("nprocs", "?"), nodes, "" if nodes == 1 else "s",
            thr, "" if thr == 1 else "s"))
        out.append("@ Start / stop   : %s / %s" % (m.get("start", "?"),
                                                   m.get("stop", "?")))
        if m.get("mem_peak_bytes") is not None:
            cap = m.get("mem_cap_bytes")
            out.append("@ Memory         : the shim held at most %.1f MB per "
                       "rank (cap %s)" % (
                           to_float(m.get("mem_peak_bytes"), "mem_peak") / 1e6,
                           "none" if cap is None else
                           "%.1f MB" % (to_float(cap, "mem_cap") / 1e6)))
        env = " ".join("%s=%s" % kv for kv in rep.env.items())
        out.append("@ Settings       : " + (env + " (all others default)"
                                            if env else "(all defaults)"))
    else:
        extra = (" (merged from %d per-rank files)" % rep.merged_files
                 if rep.merged_files else "")
        out.append("@ Ranks          : %s%s" % (m.get("nprocs", "?"), extra))
    if rep.partial:
        out.append("@ Partial        : yes (statistics table full: some "
                   "calls are only in the totals)")
    out.append("@ Report file    : %s" % rep.label())
    return out


def text_time(rep):
    out = [rule("Time in intercepted routines (seconds)")]
    out.append("%4s %10s %10s %10s %6s %9s %10s" % (
        "Rank", "AppTime", "ShimTime", "Wait", "Shim%", "Calls", "Fallbacks"))
    tot = {"app": 0.0, "shim": 0.0, "wait": 0.0, "calls": 0, "fb": 0}
    app_known = bool(rep.ranks) and all(k["app_time_s"] is not None
                                        for k in rep.ranks)

    def line(label, app, shim, wait, calls, fb):
        pct = (100.0 * shim / app if app else 0.0) if app_known else None
        return "%4s %s %10.4f %10.4f %s %9d %10d" % (
            label, fmt_opt("%10.3f", app if app_known else None, 10), shim,
            wait, fmt_opt("%6.2f", pct, 6), calls, fb)

    for k in sorted(rep.ranks, key=lambda k: k["rank"]):
        out.append(line(str(k["rank"]), k["app_time_s"], k["shim_time_s"],
                        k.get("wait_time_s", 0.0), k["calls"],
                        k["fallbacks"]))
        tot["app"] += k["app_time_s"] or 0.0
        tot["shim"] += k["shim_time_s"]
        tot["wait"] += k.get("wait_time_s", 0.0)
        tot["calls"] += k["calls"]
        tot["fb"] += k["fallbacks"]
    out.append(line("*", tot["app"], tot["shim"], tot["wait"], tot["calls"],
                    tot["fb"]))
    return out


def routine_path_table(rep):
    """[(row merged over reasons, cov or None)] sorted as the shim does."""
    merged = merge_rows(rep.rows, lambda r: (r["routine"], r["path"]),
                        ["path"])
    covs = {}
    if rep.rank_rows:
        acc = {}
        for rows in rep.rank_rows.values():
            cur = {}
            for r in rows:
                k = (r["routine"], r["path"])
                cur[k] = cur.get(k, 0.0) + r["t_sum_s"]
            for k, v in cur.items():
                s = acc.setdefault(k, [0.0, 0.0, 0])
                s[0] += v
                s[1] += v * v
                s[2] += 1
        for k, (s1, s2, n) in acc.items():
            cov = 0.0
            if n > 1 and s1 > 0.0:
                mean = s1 / n
                var = s2 / n - mean * mean
                cov = math.sqrt(var) / mean if var > 0.0 else 0.0
            covs[k] = cov
    keys = sorted(merged, key=lambda k: (routine_sort_key(k[0]),
                                         path_index(k[1]), k[1]))
    return [(merged[k], covs.get(k) if rep.rank_rows else None)
            for k in keys]


def gb_str(r):
    return "n/a" if r["path"] != "engine" else "%.3f" % (r["bytes_sent"] / 1e9)


def mean_ms(r):
    return 1e3 * r["t_sum_s"] / r["calls"] if r["calls"] > 0 else 0.0


def text_routines(rep):
    out = [rule("Per routine and path (all ranks)")]
    out.append("%-11s %-11s %9s %10s %10s %9s %9s %6s %9s %6s %6s %6s" % (
        "Routine", "Path", "Calls", "Time(s)", "Wait(s)", "Mean(ms)",
        "Max(ms)", "COV", "Sent(GB)", "Self%", "Node%", "Net%"))
    for r, cov in routine_path_table(rep):
        moved = moved_bytes(r)
        pct = ["n/a" if r["path"] != "engine" or moved <= 0
               else "%.1f" % (100.0 * r[k] / moved)
               for k in ("bytes_self", "bytes_node", "bytes_net")]
        out.append("%-11s %-11s %9d %10.4f %10.4f %9.3f %9.3f %s %9s %6s "
                   "%6s %6s" % (
                       r["routine"], r["path"], r["calls"], r["t_sum_s"],
                       r["t_wait_s"], mean_ms(r), 1e3 * r["t_max_s"],
                       fmt_opt("%6.2f", cov, 6), gb_str(r), *pct))
    return out


def text_phases(rep):
    """Engine rows: arrival wait, the engine's phases and the rest, as the
    shim's text report prints them."""
    out = [rule("Engine phases (all ranks, seconds)")]
    rows = [r for r, _ in routine_path_table(rep)
            if r["path"] == "engine" and r["calls"] > 0]
    if not rows:
        return out + ["(none)"]
    out.append("%-11s %9s %10s %10s %10s %10s %10s %10s %10s" % (
        "Routine", "Calls", "Time(s)", "Wait(s)", "Pack(s)", "Local(s)",
        "Unpack(s)", "Xfer(s)", "Other(s)"))
    for r in rows:
        other = r["t_sum_s"] - r["t_wait_s"] - sum(r[t] for t in PHASES)
        out.append("%-11s %9d %10.4f %10.4f %10.4f %10.4f %10.4f %10.4f "
                   "%10.4f" % (r["routine"], r["calls"], r["t_sum_s"],
                               r["t_wait_s"], *[r[t] for t in PHASES],
                               other))
    return out


def text_gemm(rep):
    """p?gemm on the engine: rate, bytes received against PBLAS's model and
    the phases, as the shim's text report prints them; nothing without."""
    rows = [r for r, _ in routine_path_table(rep)
            if r["path"] == "engine" and r["flops"] > 0]
    if not rows:
        return []
    out = [rule("Matrix multiplication on the engine (all ranks)")]
    out.append("%-11s %9s %10s %8s %12s %12s %9s %9s %9s %9s" % (
        "Routine", "Calls", "Time(s)", "GF/s", "Recv(MB)", "PBLAS(MB)",
        "In(s)", "Mul(s)", "Reduce(s)", "Out(s)"))
    for r in rows:
        rate = r["flops"] / r["t_sum_s"] * 1e-9 if r["t_sum_s"] > 0 else 0.0
        out.append("%-11s %9d %10.4f %8.2f %12.1f %12.1f %9.4f %9.4f %9.4f "
                   "%9.4f" % (r["routine"], r["calls"], r["t_sum_s"], rate,
                              r["bytes_recv"] * 1e-6,
                              r["bytes_pblas"] * 1e-6,
                              *[r[t] for t in MM_PHASES]))
    return out


def text_reasons(rep):
    out = [rule("Fallback reasons")]
    rows = [r for r in rep.rows if r["reason"]]
    merged = merge_rows(rows, lambda r: (r["routine"], r["reason"]),
                        ["reason"])
    if not merged:
        return out + ["(none)"]
    out.append("%-11s %-14s %9s" % ("Routine", "Reason", "Calls"))
    for k in sorted(merged, key=lambda k: (routine_sort_key(k[0]),
                                           reason_index(k[1]), k[1])):
        r = merged[k]
        out.append("%-11s %-14s %9d" % (r["routine"], r["reason"],
                                        r["calls"]))
    return out


def text_bytes(rep):
    """Exact counters: not in the shim's text report, added here so a user
    can compare runs without opening the CSV."""
    out = [rule("Bytes and messages (all ranks)")]
    fmt = "%-11s %-11s %9s %15s %15s %15s %15s %15s %10s %10s"
    keys = ["bytes_sent", "bytes_recv", "bytes_self", "bytes_node",
            "bytes_net", "msgs_sent", "msgs_recv"]
    out.append(fmt % ("Routine", "Path", "Calls", "BytesSent", "BytesRecv",
                      "BytesSelf", "BytesNode", "BytesNet", "MsgsSent",
                      "MsgsRecv"))
    tot = new_row("*")
    for r, _ in routine_path_table(rep):
        out.append(fmt % tuple([r["routine"], r["path"], r["calls"]] +
                               [r[k] for k in keys]))
        add_row(tot, r)
    out.append(fmt % tuple(["*", "", tot["calls"]] + [tot[k] for k in keys]))
    return out


def text_per_rank(rep):
    out = [rule("Per rank and routine")]
    if not rep.rank_rows:
        return out + ["(no per-rank rows in this report: they are in the "
                      "CSV report, or in the JSON with COSTA_SHIM_STATS=full)"]
    out.append("%4s %-11s %-11s %-14s %9s %10s %10s %9s %9s %9s" % (
        "Rank", "Routine", "Path", "Reason", "Calls", "Time(s)", "Wait(s)",
        "Mean(ms)", "Max(ms)", "Sent(GB)"))
    for rank in sorted(rep.rank_rows):
        for r in sorted(rep.rank_rows[rank], key=full_key):
            out.append("%4d %-11s %-11s %-14s %9d %10.4f %10.4f %9.3f %9.3f "
                       "%9s" % (
                           rank, r["routine"], r["path"], r["reason"] or "-",
                           r["calls"], r["t_sum_s"], r["t_wait_s"],
                           mean_ms(r), 1e3 * r["t_max_s"], gb_str(r)))
    return out


def shape_label(r):
    def blk(mb, nb, grid):
        return "%sx%s/%s" % (mb or "?", nb or "?", grid or "?")
    return ("%sx%s" % (r.get("m", "?"), r.get("n", "?")),
            blk(r.get("mbA"), r.get("nbA"), r.get("gridA")),
            blk(r.get("mbB"), r.get("nbB"), r.get("gridB")))


def gbps(r):
    return moved_bytes(r) / r["t_sum_s"] / 1e9 if r["t_sum_s"] > 0 else 0.0


def text_shapes(rep, top=20):
    out = [rule("Top call shapes by time")]
    if not rep.shapes:
        return out + ["(this report has no per-shape rows; 'plot --trace "
                      "LOG' derives call shapes from trace logs)"]
    out.append("%3s  %-11s %-13s %-15s %-15s %9s %10s %10s %7s %8s" % (
        "Id", "Routine", "m x n", "A blk/grid", "B blk/grid", "Calls",
        "Time(s)", "Wait(s)", "GB/s", "Relabel"))
    shapes = sorted(rep.shapes, key=lambda r: -r["t_sum_s"])[:top]
    for i, r in enumerate(shapes, 1):
        mn, a, b = shape_label(r)
        moved = moved_bytes(r)
        gain = r.get("relabel_gain_bytes")
        rl = ("%.1f%%" % (100.0 * gain / moved) if gain is not None and moved
              else "n/a")
        out.append("%3s  %-11s %-13s %-15s %-15s %9d %10.4f %10.4f %7.2f "
                   "%8s" % (r.get("shape_id", i), r["routine"], mn, a, b,
                            r["calls"], r["t_sum_s"], r["t_wait_s"],
                            gbps(r), rl))
    return out


def text_tails(rep, top=20):
    """The call times of the shapes of text_shapes, in its order."""
    out = [rule("Call times of the top shapes (ms)")]
    if not rep.shapes:
        return out + ["(none)"]
    out.append("%10s  %-11s %8s %9s %10s %9s %7s %7s %8s" % (
        "Id", "Routine", "Calls", "Mean(ms)", "Median(ms)", "Max(ms)",
        "Max/Med", "MaxRank", "MaxCall"))
    shapes = sorted(rep.shapes, key=lambda r: -r["t_sum_s"])[:top]
    for i, r in enumerate(shapes, 1):
        if "t_hist" in r:
            med = r["t_median_s"]
            tail = ("%10.3f %9.3f %7.2f %7d %8d" % (
                1e3 * med, 1e3 * r["t_max_s"],
                r["t_max_s"] / med if med > 0 else 0.0, r["max_rank"],
                r["max_call"]))
        else:  # a report written before the histograms
            tail = "%10s %9.3f %7s %7s %8s" % ("n/a", 1e3 * r["t_max_s"],
                                                "n/a", "n/a", "n/a")
        out.append("%10s  %-11s %8d %9.3f %s" % (
            r.get("shape_id", i), r["routine"], r["calls"], mean_ms(r),
            tail))
    return out


def text_callers(rep, top=10):
    out = [rule("Callers (top %d)" % top)]
    if not rep.callers:
        return out + ["(this report has no caller rows; the per-call trace "
                      "(COSTA_SHIM_VERBOSE=1) has a caller: field per call)"]
    out.append("%-22s %-11s %9s %10s" % ("Caller", "Routine", "Calls",
                                         "Time(s)"))
    for r in sorted(rep.callers, key=lambda r: -r["t_sum_s"])[:top]:
        out.append("%-22s %-11s %9d %10.4f" % (r.get("caller", "?"),
                                               r["routine"], r["calls"],
                                               r["t_sum_s"]))
    return out


def summary_lines(rep, by="routine"):
    out = text_header(rep)
    if by == "routine":
        out += text_time(rep) + text_routines(rep) + text_phases(rep)
        out += text_gemm(rep) + text_reasons(rep)
        out += text_bytes(rep)
    elif by == "rank":
        out += text_time(rep) + text_per_rank(rep)
    elif by == "shape":
        out += text_shapes(rep) + text_tails(rep)
    elif by == "caller":
        out += text_callers(rep)
    return out


def cmd_summary(a):
    rep = load_report(a.files)
    print("\n".join(summary_lines(rep, a.by)))
    return 0


# ------------------------------------------------------------------ compare

def compare_table(base_rows, new_rows, keyfn, labelfn, title, width):
    """Lines comparing two lists of rows grouped by keyfn."""
    b = merge_rows(base_rows, keyfn, [])
    n = merge_rows(new_rows, keyfn, [])
    eng = merge_rows([r for r in new_rows if r["path"] == "engine"], keyfn,
                     [])
    b_eng = merge_rows([r for r in base_rows if r["path"] == "engine"],
                       keyfn, [])
    keys = sorted(set(b) | set(n), key=lambda k: (routine_sort_key(k[0]),
                                                  str(k)))
    out = [rule(title)]
    out.append("%-*s %9s %9s %11s %11s %9s %9s %11s %11s %8s" % (
        width, labelfn(None), "Calls(B)", "Calls(N)", "Time B(s)",
        "Time N(s)", "Speed-up", "Excl.wait", "Moved B(GB)", "Moved N(GB)",
        "Engine%N"))
    tb, tn = new_row("*"), new_row("*")
    teng, tbeng = new_row("*"), new_row("*")
    differ = []
    empty = new_row("")
    for k in keys:
        rb, rn = b.get(k, empty), n.get(k, empty)
        re_, rbe = eng.get(k, empty), b_eng.get(k, empty)
        out.append(compare_line(labelfn(k), width, rb, rn, re_, rbe))
        add_row(tb, rb)
        add_row(tn, rn)
        add_row(teng, re_)
        add_row(tbeng, rbe)
        if rb["calls"] != rn["calls"]:
            differ.append(labelfn(k))
    out.append(compare_line("*", width, tb, tn, teng, tbeng))
    return out, differ


def compare_line(label, width, rb, rn, reng, rbeng):
    def moved(r):
        return "%11s" % "n/a" if r["calls"] == 0 else \
            "%11.4f" % (moved_bytes(r) / 1e9)
    def ratio(b, n):
        return "%8.2fx" % (b / n) if b > 0 and n > 0 else "%9s" % "n/a"
    sp = ratio(rb["t_sum_s"], rn["t_sum_s"])
    # the redistribution alone: the arrival wait is the application's
    # load imbalance, the same with or without the shim
    spx = ratio(rb["t_sum_s"] - rb["t_wait_s"], rn["t_sum_s"] - rn["t_wait_s"])
    engpct = ("%8.1f" % (100.0 * reng["calls"] / rn["calls"]) if rn["calls"]
              else "%8s" % "n/a")
    return "%-*s %9d %9d %11.4f %11.4f %s %s %s %s %s" % (
        width, label, rb["calls"], rn["calls"], rb["t_sum_s"], rn["t_sum_s"],
        sp, spx, moved(rbeng), moved(reng), engpct)


def fallback_setting(rep):
    v = rep.setting("COSTA_SHIM_FALLBACK")
    return " [COSTA_SHIM_FALLBACK=%s]" % v if v else ""


def cmd_compare(a):
    base = load_report([a.base])
    new = load_report([a.new])
    out = ["@ costa_shim compare (speed-up = time BASE / time NEW)"]
    out.append("@ BASE : %s (%s)%s" % (base.label(),
                                       base.meta.get("command", "?"),
                                       fallback_setting(base)))
    out.append("@ NEW  : %s (%s)%s" % (new.label(),
                                       new.meta.get("command", "?"),
                                       fallback_setting(new)))

    def own(rows):
        return [r for r in rows if r["path"] != "nested"]
    nb = sum(r["calls"] for r in base.rows if r["path"] == "nested")
    nn = sum(r["calls"] for r in new.rows if r["path"] == "nested")
    width = max([11] + [len(r["routine"]) for r in base.rows + new.rows])
    lines, differ = compare_table(
        own(base.rows), own(new.rows), lambda r: (r["routine"],),
        lambda k: "Routine" if k is None else k[0],
        "Per routine (times summed over ranks)", width)
    out += lines
    if base.shapes and new.shapes:
        # Shapes are matched without their grids: a call that went to
        # ScaLAPACK (e.g. a COSTA_SHIM_FALLBACK=always base run) has grid
        # "-", the same call on the engine "1x2R".
        cols = [c for c in SHAPE_COLS if not c.startswith("grid")]

        def ckey(r):
            return (r["routine"],) + tuple(str(r.get(c, "")) for c in cols)

        def slabel(k):
            if k is None:
                return "Shape"
            d = dict(zip(["routine"] + cols, k))
            mn, sa, sb = shape_label(d)
            return "%s %s %s->%s" % (k[0], mn, sa.replace("/?", ""),
                                     sb.replace("/?", ""))
        keys = [ckey(r) for r in base.shapes + new.shapes]
        w = max(len(slabel(k)) for k in keys)
        sl, sdiff = compare_table(own(base.shapes), own(new.shapes),
                                  ckey, slabel, "Per call shape", w)
        out += sl
        differ += sdiff
    elif base.shapes or new.shapes:
        out.append("(per-shape comparison skipped: only %s has shape rows)"
                   % ("BASE" if base.shapes else "NEW"))
    if nb or nn:
        out.append("note: nested calls (made inside ScaLAPACK, timed in "
                   "their outer call) excluded: BASE %d, NEW %d" % (nb, nn))
    for d in differ:
        out.append("note: %s: call counts differ, the speed-up compares "
                   "different work" % d)
    print("\n".join(out))
    return 0


# ------------------------------------------------------------------ traces

TRACE_RE = re.compile(r"COSTA_SHIM r:")
# Canonical column order of trace2csv; unknown keys follow in the order
# they first appear.  msgs:S/R becomes msgs_sent and msgs_recv.
TRACE_ORDER = ["r", "seq", "routine", "uplo", "diag", "trans", "m", "n",
               "alpha", "ia", "ja", "descA", "beta", "ib", "jb", "ic", "jc",
               "descB", "descC", "ictxt", "gridA", "gridB", "path", "reason",
               "t", "wait", "send", "recv", "self", "msgs_sent", "msgs_recv",
               "pack", "local", "unpack", "xfer", "relabel_gain", "thr",
               "table", "maxdiff", "caller"]
RESULT_KEYS = {"gridA", "gridB", "path", "reason", "t", "wait", "send", "recv",
               "self", "msgs", "msgs_sent", "msgs_recv", "pack", "local",
               "unpack", "xfer", "relabel_gain", "thr", "table", "maxdiff",
               "caller"}
UNITS = {"t": "ms", "wait": "ms", "send": "MB", "recv": "MB", "self": "MB",
         "pack": "ms", "local": "ms", "unpack": "ms", "xfer": "ms",
         "relabel_gain": "%"}


def parse_trace_line(line):
    """A dict of the line's fields (values as strings, units stripped), or
    None when the line holds no trace record."""
    m = TRACE_RE.search(line)
    if not m:
        return None
    rec = {}
    for tok in line[m.start():].split()[1:]:
        key, sep, val = tok.partition(":")
        if not sep:
            if "routine" not in rec:
                rec["routine"] = tok
            else:
                rec.setdefault("extra", []).append(tok)
            continue
        unit = UNITS.get(key)
        if unit and val.endswith(unit):
            val = val[:-len(unit)]
        if key == "msgs" and "/" in val:
            rec["msgs_sent"], _, rec["msgs_recv"] = val.partition("/")
            continue
        rec[key] = val
    if "extra" in rec:
        rec["extra"] = " ".join(rec["extra"])
    try:
        rec["r"] = int(rec["r"])
        rec["seq"] = int(rec["seq"])
    except (KeyError, ValueError):
        return None
    if "routine" not in rec:
        return None
    return rec


def read_traces(paths):
    """All trace records of the files, in file order; error if none."""
    recs, bad = [], 0
    for p in paths:
        if not os.path.isfile(p):
            raise UserError("%s: no such file" % p)
        for line in read_text(p).splitlines():
            rec = parse_trace_line(line)
            if rec is not None:
                recs.append(rec)
            elif "COSTA_SHIM r:" in line:
                bad += 1
    if bad:
        warn("%d malformed COSTA_SHIM lines skipped" % bad)
    if not recs:
        raise UserError("no COSTA_SHIM trace lines in %s (run with "
                        "COSTA_SHIM_VERBOSE=1)" % ", ".join(paths))
    return recs


def trace_columns(recs):
    seen = []
    for r in recs:
        for k in r:
            if k not in seen:
                seen.append(k)
    return ([k for k in TRACE_ORDER if k in seen] +
            [k for k in seen if k not in TRACE_ORDER])


def cmd_trace2csv(a):
    recs = read_traces(a.logs)
    cols = trace_columns(recs)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(cols)
    for r in recs:
        w.writerow([r.get(c, "") for c in cols])
    return 0


def num(v, default=0.0):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def grid_size(g):
    m = re.match(r"(\d+)x(\d+)", g or "")
    return int(m.group(1)) * int(m.group(2)) if m else 0


def cmd_replay(a):
    recs = everyone = read_traces([a.log])
    if a.rank is not None:
        recs = [r for r in recs if r["r"] == a.rank]
        if not recs:
            raise UserError("%s: no trace line of rank %d" % (a.log, a.rank))
    if a.seq is not None:
        recs = [r for r in recs if r["seq"] == a.seq]
        if not recs:
            raise UserError("%s: no trace line with seq %d%s" % (
                a.log, a.seq, "" if a.rank is None else
                " on rank %d" % a.rank))
        rec = min(recs, key=lambda r: r["r"])
    else:
        rec = max(recs, key=lambda r: num(r.get("t")))
        sys.stderr.write("%s: no --seq given: replaying the slowest logged "
                         "call\n" % PROG)
    # at least the grids of the call and every rank seen in the log
    np_ = a.np or max(grid_size(rec.get("gridA")), grid_size(rec.get("gridB")),
                      max(r["r"] for r in everyone) + 1 if rec.get("gridA")
                      else 0)
    cmd = [a.mpiexec, "-n", str(np_) if np_ else "<P>", a.app,
           "--routine", rec["routine"]]
    for k in TRACE_ORDER + [k for k in rec if k not in TRACE_ORDER]:
        if k in ("r", "seq", "routine", "extra") or k not in rec:
            continue
        if k in RESULT_KEYS and k not in ("gridA", "gridB"):
            continue
        cmd += ["--" + k.lower(), str(rec[k])]
    sys.stderr.write("%s: rank %d seq %d: path %s%s, t %s ms\n" % (
        PROG, rec["r"], rec["seq"], rec.get("path", "?"),
        " (%s)" % rec["reason"] if rec.get("reason") else "",
        rec.get("t", "?")))
    if not np_:
        sys.stderr.write("%s: the number of processes is unknown (no grid in "
                         "the line): replace <P> or give --np\n" % PROG)
    print(" ".join(shlex.quote(c) if c != "<P>" else c for c in cmd))
    return 0


# ------------------------------------------------------------------ SVG

PATH_COLORS = {"engine": "#1b9e77", "fallback": "#d95f02",
               "passthrough": "#7570b3", "nested": "#999999"}
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
W, H = 760, 380
MAX_POINTS = 20000                 # most marks in the per-call chart
ML, MR, MT, MB = 80, 170, 40, 80   # margins; legend on the right


def esc(s):
    return html.escape(str(s), quote=True)


def fmt_pow2(e):
    """2**e with binary suffixes (k = 1024), as COSTA_SHIM_MIN_ELEMS."""
    for step, suf in ((30, "G"), (20, "M"), (10, "k")):
        if e >= step:
            return "%d%s" % (2 ** (e - step), suf)
    return "%d" % 2 ** e


def fmt_tick(v):
    if v == 0:
        return "0"
    a = abs(v)
    for div, suf in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            return ("%g" % (v / div)) + suf
    return "%g" % float("%.3g" % v)


class Scale:
    """Maps data values to pixels, linear or log10."""

    def __init__(self, lo, hi, p0, p1, log=False):
        self.log = log
        if log:
            lo = max(lo, 1e-300)
            hi = max(hi, lo * 1.0001)
            self.lo = 10 ** math.floor(math.log10(lo))
            self.hi = 10 ** math.ceil(math.log10(hi))
            if self.hi <= self.lo:
                self.hi = self.lo * 10
        else:
            if hi <= lo:
                hi = lo + (abs(lo) or 1.0)
            self.step = nice_step(hi - lo)
            self.lo = math.floor(lo / self.step) * self.step
            self.hi = math.ceil(hi / self.step) * self.step
        self.p0, self.p1 = p0, p1

    def __call__(self, v):
        if self.log:
            v = max(v, self.lo)
            f = ((math.log10(v) - math.log10(self.lo)) /
                 (math.log10(self.hi) - math.log10(self.lo)))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.p0 + f * (self.p1 - self.p0)

    def ticks(self):
        if self.log:
            a, b = int(round(math.log10(self.lo))), int(round(math.log10(self.hi)))
            out = []
            for e in range(a, b + 1):
                out.append(10.0 ** e)
                if b - a <= 2 and e < b:
                    out += [2 * 10.0 ** e, 5 * 10.0 ** e]
            return sorted(out)
        n = int(round((self.hi - self.lo) / self.step))
        return [self.lo + i * self.step for i in range(n + 1)]


def nice_step(span, n=5):
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


class Svg:
    """An SVG chart under construction: frame, axes, legend."""

    def __init__(self, title, xlabel, ylabel):
        self.parts = []
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.legend = []
        self.x0, self.x1 = ML, W - MR
        self.y0, self.y1 = H - MB, MT       # y0 bottom, y1 top

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, anchor="middle", size=12, extra=""):
        self.add('<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d"%s>'
                 '%s</text>' % (x, y, anchor, size, extra, esc(s)))

    def message(self, s):
        self.text((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2, s,
                  size=14, extra=' fill="#666"')

    def yaxis(self, sc):
        for t in sc.ticks():
            y = sc(t)
            self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                     'stroke="#ddd"/>' % (self.x0, y, self.x1, y))
            self.text(self.x0 - 6, y + 4, fmt_tick(t), anchor="end", size=11)

    def xaxis(self, sc):
        for t in sc.ticks():
            x = sc(t)
            self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                     'stroke="#eee"/>' % (x, self.y0, x, self.y1))
            self.text(x, self.y0 + 16, fmt_tick(t), size=11)

    def xcategories(self, labels, centers):
        rotate = len(labels) > 6 or max([len(s) for s in labels] + [0]) > 9
        step = max(1, len(labels) // 40)
        for i, (s, x) in enumerate(zip(labels, centers)):
            if i % step:
                continue
            if rotate:
                self.add('<text x="%.1f" y="%.1f" text-anchor="end" '
                         'font-size="11" transform="rotate(-40 %.1f %.1f)">'
                         '%s</text>' % (x, self.y0 + 12, x, self.y0 + 12,
                                        esc(s)))
            else:
                self.text(x, self.y0 + 16, s, size=11)

    def render(self):
        out = ['<svg viewBox="0 0 %d %d" width="%d" height="%d" role="img" '
               'font-family="sans-serif">' % (W, H, W, H)]
        out.append('<title>%s</title>' % esc(self.title))
        out.append('<text x="%d" y="22" text-anchor="middle" font-size="15" '
                   'font-weight="bold">%s</text>' % (W // 2, esc(self.title)))
        out += self.parts
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' %
                   (self.x0, self.y0, self.x1, self.y0))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' %
                   (self.x0, self.y0, self.x0, self.y1))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" '
                   'font-size="12">%s</text>' % ((self.x0 + self.x1) / 2,
                                                 H - 8, esc(self.xlabel)))
        cy = (self.y0 + self.y1) / 2
        out.append('<text x="16" y="%.1f" text-anchor="middle" font-size="12"'
                   ' transform="rotate(-90 16 %.1f)">%s</text>' % (
                       cy, cy, esc(self.ylabel)))
        legend = self.legend
        room = (H - MT - 20) // 18
        if len(legend) > room:
            legend = legend[:room - 1] + [
                ("+%d more" % (len(legend) - room + 1),
                 "#fff", "box")]
        for i, (label, color, kind) in enumerate(legend):
            y = MT + 10 + 18 * i
            x = self.x1 + 14
            if kind == "line":
                out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"'
                           ' stroke-width="2" stroke-dasharray="5,3"/>' % (
                               x, y, x + 12, y, color))
            elif kind == "dot":
                out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/>' % (
                    x + 6, y, color))
            else:
                out.append('<rect x="%d" y="%d" width="12" height="12" '
                           'fill="%s"/>' % (x, y - 6, color))
            out.append('<text x="%d" y="%d" font-size="11">%s</text>' % (
                x + 18, y + 4, esc(label)))
        out.append("</svg>")
        return "\n".join(out)


def bar_chart(svg, labels, stacks, colors):
    """Stacked bars: stacks[i] = [(series, value)], drawn bottom up."""
    tops = [sum(v for _, v in s) for s in stacks]
    sc = Scale(0.0, max(tops + [0.0]) or 1.0, svg.y0, svg.y1)
    svg.yaxis(sc)
    n = len(labels)
    slot = (svg.x1 - svg.x0) / max(n, 1)
    bw = max(1.0, min(60.0, slot * 0.7))
    centers = []
    for i, stack in enumerate(stacks):
        cx = svg.x0 + slot * (i + 0.5)
        centers.append(cx)
        base = 0.0
        for series, v in stack:
            if v <= 0:
                continue
            y_top, y_bot = sc(base + v), sc(base)
            svg.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                    'fill="%s"><title>%s %s: %.6g</title></rect>' % (
                        cx - bw / 2, y_top, bw, max(0.5, y_bot - y_top),
                        colors.get(series, "#444"), esc(labels[i]),
                        esc(series), v))
            base += v
    svg.xcategories(labels, centers)
    return sc


def chart_time_per_routine(rep):
    svg = Svg("Time per routine, by path", "routine (as called)",
              "time (s, summed over ranks)")
    per = {}
    for r in rep.rows:
        per.setdefault(r["routine"], {}).setdefault(r["path"], 0.0)
        per[r["routine"]][r["path"]] += r["t_sum_s"]
    names = sorted(per, key=routine_sort_key)
    if not names:
        svg.message("no intercepted calls in this report")
    else:
        paths = [p for p in PATHS if any(p in per[n] for n in names)]
        paths += sorted({p for n in names for p in per[n]} - set(paths))
        bar_chart(svg, names, [[(p, per[n].get(p, 0.0)) for p in paths]
                               for n in names], PATH_COLORS)
        svg.legend = [(p, PATH_COLORS.get(p, "#444"), "box") for p in paths]
    caption = ("Wall time spent in each intercepted routine, summed over all "
               "ranks and split by the path the shim took (engine, fallback "
               "to ScaLAPACK, passthrough, nested inside ScaLAPACK).")
    return svg, caption


def stacked_bars(svg, labels, stacks, colors, empty):
    """The stacked bars of labels with their legend, or the message empty
    when there is nothing to draw."""
    if not labels:
        svg.message(empty)
    else:
        bar_chart(svg, labels, stacks, colors)
        svg.legend = [(k, c, "box") for k, c in colors.items()]


def chart_wait(rep, top=8):
    """Per routine and for the top call shapes: the redistribution itself
    and the arrival wait, stacked."""
    svg = Svg("Arrival wait and redistribution", "routine / call shape",
              "time (s, summed over ranks)")
    per = {}
    for r in rep.rows:
        if r["path"] == "nested":
            continue
        w = per.setdefault(r["routine"], [0.0, 0.0])
        w[0] += r["t_sum_s"] - r["t_wait_s"]
        w[1] += r["t_wait_s"]
    labels = sorted(per, key=routine_sort_key)
    stacks = [[("redistribution", per[n][0]), ("arrival wait", per[n][1])]
              for n in labels]
    for r in sorted(rep.shapes, key=lambda r: -r["t_sum_s"])[:top]:
        mn, a, b = shape_label(r)
        labels.append("%s %s" % (r["routine"], mn))
        stacks.append([("redistribution", r["t_sum_s"] - r["t_wait_s"]),
                       ("arrival wait", r["t_wait_s"])])
    colors = {"redistribution": "#2b8cbe", "arrival wait": "#fdae6b"}
    stacked_bars(svg, labels, stacks, colors,
                 "no intercepted calls in this report")
    caption = ("Per routine (first bars) and for the call shapes that took "
               "longest: the time ranks spent waiting for the last rank of "
               "a call to arrive (the application's load imbalance: the "
               "same with or without the shim) apart from the "
               "redistribution itself.  Measure-only runs "
               "(COSTA_SHIM_FALLBACK=always) time the wait with a barrier "
               "before the real routine.")
    return svg, caption


def chart_nodes(rep, top=8):
    """Per routine and for the top call shapes: bytes kept on their rank,
    moved inside a node and moved across nodes, stacked."""
    svg = Svg("Bytes kept, inside nodes and across nodes",
              "routine / call shape", "bytes (summed over ranks)")
    kinds = [("kept on the rank", "bytes_self"),
             ("inside a node", "bytes_node"), ("across nodes", "bytes_net")]
    per = {}
    for r in rep.rows:
        if r["path"] != "engine":
            continue
        w = per.setdefault(r["routine"], [0, 0, 0])
        for i, (_, k) in enumerate(kinds):
            w[i] += r[k]
    labels = sorted(per, key=routine_sort_key)
    stacks = [[(kinds[i][0], per[n][i]) for i in range(3)] for n in labels]
    for r in sorted(rep.shapes, key=lambda r: -moved_bytes(r))[:top]:
        if r["path"] != "engine":
            continue
        mn, a, b = shape_label(r)
        labels.append("%s %s" % (r["routine"], mn))
        stacks.append([(name, r[k]) for name, k in kinds])
    colors = {"kept on the rank": "#74c476", "inside a node": "#2b8cbe",
              "across nodes": "#e6550d"}
    stacked_bars(svg, labels, stacks, colors,
                 "no call on the engine in this report")
    caption = ("Per routine (first bars) and for the call shapes that "
               "moved the most: what the engine copied on each rank, sent "
               "to ranks of the same node (shared memory) and sent across "
               "nodes (the network), as MPI_COMM_TYPE_SHARED groups the "
               "ranks.  Bytes across nodes cost the most; "
               "COSTA_SHIM_RELABEL=report says how much a node-aware "
               "relabeling would keep inside nodes.")
    return svg, caption


def chart_per_rank(rep):
    svg = Svg("Shim time per rank", "MPI rank",
              "time in intercepted routines (s)")
    ranks = sorted(rep.ranks, key=lambda k: k["rank"])
    if not ranks:
        svg.message("no per-rank data in this report")
        return svg, "No per-rank totals in the report."
    vals = [k["shim_time_s"] for k in ranks]
    sc = bar_chart(svg, [str(k["rank"]) for k in ranks],
                   [[("shim time", v)] for v in vals],
                   {"shim time": "#1f77b4"})
    mean = sum(vals) / len(vals)
    svg.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#d62728" '
            'stroke-width="2" stroke-dasharray="5,3"/>' % (
                svg.x0, sc(mean), svg.x1, sc(mean)))
    svg.legend = [("shim time", "#1f77b4", "box"),
                  ("mean %.4g s" % mean, "#d62728", "line")]
    imb = max(vals) / mean if mean > 0 else 1.0
    caption = ("Seconds each rank spent inside intercepted routines; the "
               "dashed line is the mean, max/mean = %.2f (1.00 = perfectly "
               "balanced)." % imb)
    return svg, caption


def trace_shapes(recs):
    """Shape rows aggregated from trace records (engine and other paths)."""
    rows = {}
    for t in recs:
        da = (t.get("descA") or "").split(",")
        db = (t.get("descB") or t.get("descC") or "").split(",")

        def blk(d, i):
            return d[i] if len(d) > 5 else ""
        key = (t["routine"], t.get("m", ""), t.get("n", ""), blk(da, 4),
               blk(da, 5), t.get("gridA", ""), blk(db, 4), blk(db, 5),
               t.get("gridB", ""))
        r = rows.get(key)
        if r is None:
            r = new_row(t["routine"], t.get("path", ""))
            r.update(dict(zip(SHAPE_COLS, key[1:])))
            rows[key] = r
        tsec = num(t.get("t")) / 1e3
        one = new_row(t["routine"])
        one.update({"calls": 1, "t_sum_s": tsec, "t_min_s": tsec,
                    "t_max_s": tsec, "t_sumsq": tsec * tsec,
                    "bytes_sent": int(num(t.get("send")) * 1e6),
                    "bytes_recv": int(num(t.get("recv")) * 1e6),
                    "bytes_self": int(num(t.get("self")) * 1e6)})
        add_row(r, one)
    return list(rows.values())


def chart_gbps(rep, recs):
    svg = Svg("Achieved bandwidth vs. bytes moved",
              "bytes moved (B, sent + local copies, all ranks, log scale)",
              "achieved rate (GB/s per rank, log scale)")
    if rep.shapes:
        rows, what = rep.shapes, "call shape (report)"
    elif recs:
        rows, what = trace_shapes(recs), "call shape (from the trace)"
    else:
        rows, what = rep.rows, "routine and path (no shape rows)"
    pts = [r for r in rows if moved_bytes(r) > 0 and r["t_sum_s"] > 0]
    routines = sorted({r["routine"] for r in pts}, key=routine_sort_key)
    color = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(routines)}
    if not pts:
        svg.message("no call moved bytes through the engine")
    else:
        xs = [moved_bytes(r) for r in pts]
        ys = [gbps(r) for r in pts]
        sx = Scale(min(xs), max(xs), svg.x0, svg.x1, log=True)
        sy = Scale(min(ys), max(ys), svg.y0, svg.y1, log=True)
        svg.xaxis(sx)
        svg.yaxis(sy)
        for r, x, y in zip(pts, xs, ys):
            if "m" in r:
                mn, a, b = shape_label(r)
                tip = "%s %s %s->%s" % (r["routine"], mn, a, b)
            else:
                tip = "%s %s" % (r["routine"], r["path"])
            svg.add('<circle cx="%.1f" cy="%.1f" r="5" fill="%s" '
                    'fill-opacity="0.8"><title>%s: %d calls, %s B, %.3g GB/s'
                    '</title></circle>' % (sx(x), sy(y), color[r["routine"]],
                                           esc(tip), r["calls"],
                                           fmt_tick(x), y))
        svg.legend = [(n, color[n], "dot") for n in routines]
    skipped = len(rows) - len(pts)
    caption = ("One point per %s: bytes moved by the engine against bytes "
               "moved per second of call time (summed over ranks)%s." % (
                   what, "; %d entries without engine bytes not shown" %
                   skipped if skipped else ""))
    return svg, caption


def parse_count(s):
    """COSTA_SHIM_MIN_ELEMS syntax: integer, optional k/M/G (1024^n)."""
    m = re.match(r"^\s*(\d+)\s*([kKmMgG]?)\s*$", s or "")
    if not m:
        return None
    mult = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
    return int(m.group(1)) * mult[m.group(2).lower()]


def chart_sizes(rep, recs, min_elems):
    svg = Svg("Call sizes (m*n)",
              "call size m*n (elements, log2 bins, k = 1024)",
              "calls")
    samples = []   # (size, path, weight)
    if recs:
        src = "trace lines"
        for t in recs:
            if "m" in t and "n" in t:
                samples.append((int(num(t["m"])) * int(num(t["n"])),
                                t.get("path", "?"), 1))
    elif rep.shapes:
        src = "shape rows"
        for r in rep.shapes:
            if r.get("m") not in (None, "") and r.get("n") not in (None, ""):
                samples.append((int(num(r["m"])) * int(num(r["n"])),
                                r["path"] or "?", r["calls"]))
    zero = sum(w for s, _, w in samples if s <= 0)
    samples = [x for x in samples if x[0] > 0]
    if not samples:
        svg.message("no size data (give --trace LOG, or a report with "
                    "shape rows)")
        return svg, ("No size data: the report has no shape rows and no "
                     "trace log was given.")
    bins = {}
    for s, p, w in samples:
        b = int(math.floor(math.log2(s)))
        bins.setdefault(b, {}).setdefault(p, 0)
        bins[b][p] += w
    lo, hi = min(bins), max(bins) + 1
    if min_elems and min_elems > 0:
        lo = min(lo, int(math.floor(math.log2(min_elems))))
        hi = max(hi, int(math.floor(math.log2(min_elems))) + 1)
    while hi - lo < 8:          # a few empty bins around a narrow range
        lo, hi = max(0, lo - 1), hi + 1
    paths = [p for p in PATHS if any(p in v for v in bins.values())]
    paths += sorted({p for v in bins.values() for p in v} - set(paths))
    top = max(sum(v.values()) for v in bins.values())
    sy = Scale(0.0, float(top), svg.y0, svg.y1)
    svg.yaxis(sy)
    span = hi - lo

    def xb(b):
        return svg.x0 + (b - lo) / span * (svg.x1 - svg.x0)
    for b in range(lo, hi + 1):
        svg.add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                % (xb(b), svg.y0, xb(b), svg.y1))
        if span <= 24 or b % 2 == 0:
            svg.text(xb(b), svg.y0 + 16, fmt_pow2(b), size=11)
    for b, per in bins.items():
        base = 0
        for p in paths:
            v = per.get(p, 0)
            if not v:
                continue
            y_top, y_bot = sy(base + v), sy(base)
            svg.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                    'fill="%s" stroke="#fff"><title>%d..%d elements, %s: %d '
                    'calls</title></rect>' % (
                        xb(b), y_top, xb(b + 1) - xb(b), max(0.5, y_bot - y_top),
                        PATH_COLORS.get(p, "#444"), 2 ** b,
                        2 ** (b + 1) - 1, esc(p), v))
            base += v
    svg.legend = [(p, PATH_COLORS.get(p, "#444"), "box") for p in paths]
    if min_elems and min_elems > 0:
        x = xb(math.log2(min_elems))
        svg.add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#d62728" '
                'stroke-width="2" stroke-dasharray="5,3"/>' % (
                    x, svg.y0, x, svg.y1))
        svg.legend.append(("MIN_ELEMS=%d" % min_elems, "#d62728", "line"))
        thr = "the dashed line marks COSTA_SHIM_MIN_ELEMS=%d" % min_elems
    else:
        thr = ("COSTA_SHIM_MIN_ELEMS is 0, so no call went to ScaLAPACK "
               "for being small")
    caption = ("Number of calls per size m*n (from the %s), coloured by "
               "path; %s%s." % (src, thr, "; %d calls with m*n = 0 not shown"
                                % zero if zero else ""))
    return svg, caption


def chart_timeline(recs):
    svg = Svg("Time per call vs. sequence number",
              "call sequence number (seq, per rank)",
              "time per call (ms, log scale)")
    pts = [t for t in recs if num(t.get("t")) > 0]
    if not pts:
        svg.message("no trace log given (use --trace LOG...)" if not recs
                    else "no timed calls in the trace")
        return svg, ("Needs trace logs (COSTA_SHIM_VERBOSE=1 with "
                     "COSTA_SHIM_LOG_FILE, passed with --trace).")
    total = len(pts)
    if total > MAX_POINTS:
        # every k-th call plus the slowest ones, to keep the page small
        step = -(-total // MAX_POINTS)
        slow = sorted(pts, key=lambda t: -num(t["t"]))[:200]
        keep = {id(t) for t in pts[::step]} | {id(t) for t in slow}
        pts = [t for t in pts if id(t) in keep]
    routines = sorted({t["routine"] for t in pts}, key=routine_sort_key)
    color = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(routines)}
    xs = [t["seq"] for t in pts]
    ys = [num(t["t"]) for t in pts]
    sx = Scale(0.0, float(max(xs)), svg.x0, svg.x1)
    sy = Scale(min(ys), max(ys), svg.y0, svg.y1, log=True)
    svg.xaxis(sx)
    svg.yaxis(sy)
    for t, x, y in zip(pts, xs, ys):
        svg.add('<circle cx="%.1f" cy="%.1f" r="3" fill="%s" '
                'fill-opacity="0.7"><title>rank %d seq %d %s %s: %.3f ms'
                '</title></circle>' % (sx(x), sy(y), color[t["routine"]],
                                       t["r"], t["seq"], esc(t["routine"]),
                                       esc(t.get("path", "")), y))
    svg.legend = [(n, color[n], "dot") for n in routines]
    nr = len({t["r"] for t in pts})
    shown = ("every logged call (%d" % total if len(pts) == total else
             "%d of %d logged calls (one in %d plus the 200 slowest"
             % (len(pts), total, step))
    caption = ("Duration of %s, from %d rank%s) in call order, one colour "
               "per routine: shows warm-up, caching and outliers." % (
                   shown, nr, "" if nr == 1 else "s"))
    return svg, caption


PAGE_CSS = """
body { font-family: sans-serif; margin: 2em; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; }
table.meta td { padding: 0 1em 0 0; vertical-align: top; }
figure { margin: 2em 0; }
figcaption { font-size: 0.95em; color: #444; margin-top: 0.3em; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.85em; }
"""


def html_page(rep, figures, traces, summary):
    m = rep.meta
    rows = [("Command", m.get("command", "?")), ("Report", rep.label())]
    for k, lab in (("nprocs", "Ranks"), ("version", "Version"),
                   ("mpi", "MPI"), ("real_library", "Real library"),
                   ("start", "Start"), ("stop", "Stop")):
        if m.get(k) not in (None, ""):
            rows.append((lab, m[k]))
    if traces:
        rows.append(("Trace logs", ", ".join(traces)))
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>",
           '<meta charset="utf-8">',
           "<title>costa_shim report: %s</title>" % esc(m.get("command", "")),
           "<style>%s</style>" % PAGE_CSS, "</head>", "<body>",
           "<h1>costa_shim report</h1>", '<table class="meta">']
    out += ["<tr><td>%s</td><td>%s</td></tr>" % (esc(k), esc(v))
            for k, v in rows]
    out.append("</table>")
    for i, (svg, caption) in enumerate(figures, 1):
        out.append('<figure id="chart-%d">' % i)
        out.append(svg.render())
        out.append("<figcaption>Figure %d. %s</figcaption>" % (i,
                                                               esc(caption)))
        out.append("</figure>")
    out.append("<h2>Summary tables</h2>")
    out.append("<pre>%s</pre>" % esc("\n".join(summary)))
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def cmd_plot(a):
    rep = load_report([a.file])
    recs = read_traces(a.trace) if a.trace else []
    if a.min_elems is not None:
        min_elems = a.min_elems
    else:
        v = rep.setting("COSTA_SHIM_MIN_ELEMS")
        min_elems = parse_count(v) if v is not None else 0
        if v is not None and min_elems is None:
            warn("cannot read COSTA_SHIM_MIN_ELEMS=%r of the report; "
                 "threshold not marked" % v)
            min_elems = 0
    figures = [chart_time_per_routine(rep), chart_wait(rep),
               chart_nodes(rep), chart_per_rank(rep),
               chart_gbps(rep, recs), chart_sizes(rep, recs, min_elems),
               chart_timeline(recs)]
    # the shape tables too: the slowest calls are what the charts of
    # totals cannot show
    tables = summary_lines(rep, "routine")
    if rep.shapes:
        tables += text_shapes(rep) + text_tails(rep)
    page = html_page(rep, figures, a.trace or [], tables)
    try:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as e:
        raise UserError("cannot write %s: %s" % (a.out, e.strerror or e))
    print("%s: wrote %s" % (PROG, a.out))
    return 0


# ------------------------------------------------------------------ main

class Parser(argparse.ArgumentParser):
    """argparse with exit status 2 and our program name on errors."""

    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write("%s: error: %s\n" % (PROG, message))
        sys.exit(2)


def build_parser():
    p = Parser(prog=PROG, description="Read, compare and plot costa-shim "
               "reports (COSTA_SHIM_STATS) and traces (COSTA_SHIM_VERBOSE).",
               epilog="Formats: docs/report-format.md; guide: "
               "docs/user-guide.md.")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    s = sub.add_parser("summary", help="reprint the report tables")
    s.add_argument("files", nargs="+", metavar="FILE",
                   help="a .json or .csv report, per-rank .r<N>.csv files, "
                   "or a directory holding one report")
    s.add_argument("--by", choices=["routine", "shape", "caller", "rank"],
                   default="routine", help="which table (default routine)")
    c = sub.add_parser("compare", help="speed-up of NEW over BASE")
    c.add_argument("base", metavar="BASE")
    c.add_argument("new", metavar="NEW")
    pl = sub.add_parser("plot", help="one self-contained HTML page")
    pl.add_argument("file", metavar="FILE")
    pl.add_argument("--trace", nargs="+", metavar="LOG",
                    help="trace logs (COSTA_SHIM_VERBOSE=1)")
    pl.add_argument("--out", required=True, metavar="HTML")
    pl.add_argument("--min-elems", type=int, metavar="N",
                    help="threshold to mark (default: COSTA_SHIM_MIN_ELEMS "
                    "of the report's environment, else 0)")
    t = sub.add_parser("trace2csv", help="trace lines as CSV on stdout")
    t.add_argument("logs", nargs="+", metavar="LOG")
    r = sub.add_parser("replay", help="command line rerunning one call")
    r.add_argument("log", metavar="LOG")
    r.add_argument("--seq", type=int, help="sequence number (default: the "
                   "slowest logged call)")
    r.add_argument("--rank", type=int, help="rank (default: the lowest "
                   "rank with that seq)")
    r.add_argument("--np", type=int, help="processes (default: the largest "
                   "of gridA, gridB and the ranks in LOG)")
    r.add_argument("--mpiexec", default="mpiexec.mpich")
    r.add_argument("--app", default="build/release/t/bench/replay_call")
    return p


COMMANDS = {"summary": cmd_summary, "compare": cmd_compare,
            "plot": cmd_plot, "trace2csv": cmd_trace2csv,
            "replay": cmd_replay}


def main(argv=None):
    p = build_parser()
    a = p.parse_args(argv)
    if not a.cmd:
        p.print_help(sys.stderr)
        return 2
    try:
        return COMMANDS[a.cmd](a)
    except UserError as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, e))
        return 2
    except BrokenPipeError:
        # output piped into head & co: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
