#!/usr/bin/env bash
# test_apps/checks/17_file_graph.sh - the library's files call each other
# one way only: the file graph (file A -> file B when A's object leaves a
# symbol undefined that B's object defines, `nm`) of shim/ (rooms
# included), engine/ (its kernels too), relabel/ and config/ has no
# cycle, inside a module or across
# modules (docs/design.md, "Global state": a file calls only files below
# it).  Prints every cycle found.  Also, every cs_* function or variable
# a file publishes in an *_int.h (not a module's public header, whose API
# serves the tests and tools too) is used by another file of the library;
# one that is not belongs `static` in its file (the exported
# ScaLAPACK, BLACS, MPI_Init and costa_shim_* names are not cs_*).  Fails
# on main a17f5ef: config/env.c and config/log.c called each other,
# engine/exchange.c, panels.c and plan.c did (the plan and the cut plan
# were one type), and cs_shim_mpi_build_lib and cs_shim_shape_id were used
# by one file.
# Objects whose source is gone (a file moved or removed since the build
# tree was made) are skipped.
# Environment (run_checks.sh): BUILD_DIR, CS_TOP, PYTHON.
set -euo pipefail
: "${BUILD_DIR:?}" "${CS_TOP:?}"
"${PYTHON:-python3}" - "$BUILD_DIR" "$CS_TOP" <<'EOF'
import glob, os, re, subprocess, sys

bd, top = sys.argv[1], sys.argv[2]
checked = ("shim", "engine", "relabel", "config")
uses, defs = {}, {}
for o in sorted(glob.glob(os.path.join(bd, "**", "*.o"), recursive=True)):
    src = os.path.relpath(o, bd)[:-2] + ".c"
    if src.split(os.sep)[0] not in checked:
        continue
    if not os.path.exists(os.path.join(top, src)):
        continue
    out = subprocess.run(["nm", o], capture_output=True, text=True,
                         check=True).stdout
    uses[src] = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            uses[src].add(f[1])
        elif len(f) == 3 and f[1] in "TDBRGVW":
            defs.setdefault(f[2], src)
if not uses:
    print("FAIL: no objects under %s (make)" % bd)
    sys.exit(1)
graph = {f: sorted({defs[s] for s in u if defs.get(s, f) != f})
         for f, u in uses.items()}

# a module's public API (its public headers) serves the tests and tools
# too; what only an *_int.h publishes serves the library alone
public = ""
for h in ("engine/engine.h", "relabel/relabel.h", "relabel/relabel_nodes.h",
          "relabel/relabel_kron.h", "config/config.h", "config/log.h"):
    public += open(os.path.join(top, h)).read()
bad = 0
for s, f in sorted(defs.items(), key=lambda x: (x[1], x[0])):
    if not s.startswith("cs_") or re.search(r"\b%s\b" % s, public):
        continue
    if not any(s in u for g, u in uses.items() if g != f):
        bad += 1
        print("FAIL: %s: %s is used in this file only (make it static)"
              % (f, s))

# strongly connected components (Tarjan, iterative)
index, low, stack, on, comps, n = {}, {}, [], set(), [], 0
for root in sorted(graph):
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = n
            n += 1
            stack.append(v)
            on.add(v)
        if i < len(graph[v]):
            work.append((v, i + 1))
            w = graph[v][i]
            if w not in index:
                work.append((w, 0))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        for w in graph[v]:
            if w in on:
                low[v] = min(low[v], low[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

for comp in comps:
    if len(comp) < 2:
        continue
    bad += 1
    print("FAIL: these files call each other: %s" % " ".join(comp))
    for f in comp:
        print("      %s -> %s" % (f, " ".join(w for w in graph[f]
                                              if w in comp)))
print("%d files, %d problem%s (cycles, one-file symbols of shim/)"
      % (len(graph), bad, "" if bad == 1 else "s"))
sys.exit(1 if bad else 0)
EOF
