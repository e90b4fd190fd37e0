#!/usr/bin/env bash
# test_apps/checks/23_module_boundaries.sh - the module rules of
# house-style 2.1, checked on the sources (a module's subfolders too):
# engine/ includes only its own headers (engine/kernels/ ones too) and
# config/log.h (no ScaLAPACK, BLACS or shim/), and engine/kernels/ only
# engine/engine.h and its own (the kernels know nothing of plans);
# relabel/ only its own headers, config/ nothing of shim/, engine/ or
# relabel/; engine/ and relabel/ never read the environment (they get
# plain parameters); modules include only public headers of others (no
# foreign *_int.h).
set -euo pipefail
top=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# includes "..." of the C sources below a module's folder, file:line:text
includes() { grep -rHn --include='*.[ch]' '#include "' "$@" || true; }

while IFS= read -r line; do
    bad "engine/ includes something outside engine/ and config/log.h: $line"
done < <(includes engine/ |
         grep -v -E '"engine/([a-z_]+/)?[a-z_]+\.h"|"config/log\.h"' || true)
while IFS= read -r line; do
    bad "engine/kernels/ includes more than engine/engine.h and its own: $line"
done < <(includes engine/kernels/ |
         grep -v -E '"engine/(engine|kernels/[a-z_]+)\.h"' || true)
while IFS= read -r line; do
    bad "relabel/ includes another module: $line"
done < <(includes relabel/ | grep -v -E '"relabel/([a-z_]+/)?[a-z_]+\.h"' ||
         true)
while IFS= read -r line; do
    bad "config/ depends on another module: $line"
done < <(includes config/ | grep -E '"(shim|engine|relabel)/' || true)
while IFS= read -r line; do
    bad "ScaLAPACK/BLACS header outside shim/: $line"
done < <(grep -Hni -E '#include *[<"][^>"]*(scalapack|blacs|pblas)' \
             engine/ relabel/ config/ -r || true)
# comment lines (opening with /*, * or //) are skipped, nothing else: a
# line with code and a comment is checked
while IFS= read -r line; do
    bad "engine/ or relabel/ reads the environment: $line"
done < <(grep -rHn -E '\bgetenv\b|\benviron\b' engine/ relabel/ |
         grep -v -E '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)' || true)
while IFS= read -r line; do
    bad "internal header of another module included: $line"
done < <(for d in shim engine relabel config; do
             includes "$d"/ | grep '_int\.h"' | grep -v "\"$d/" || true
         done)
[ "$fail" -eq 0 ] && echo "module boundaries ok"
exit $fail
