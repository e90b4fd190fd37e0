#!/usr/bin/env bash
# test_apps/checks/18_log_sink.sh - every costa-shim line leaves through
# the log sink (config/log.h, house-style 2.5): outside config/log.c no
# file of the library spells the "costa-shim[" prefix itself, writes to
# file descriptor 1 or 2 (write(2, ...), STDERR_FILENO, fprintf(stderr,
# ...), cs_log_line(2, ...)) or prints with printf/puts.  Fails on main
# a17f5ef: shim_grids.c, shim_relabel.c and shim_init.c built their lines
# and wrote them to fd 2, and the report wrote its text with write(2).
# Then the banner (COSTA_SHIM_BANNER=1, gemr2d_sweep on 2 ranks) must be
# one "costa-shim[0]: version ..." line on stderr.
# Environment (run_checks.sh): CS_TOP, CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_TOP:?}" "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
cs_fresh_dir "$CS_OUT"
fails=0
cd "$CS_TOP" || exit 1

# comments (lines that start with '*' or '/*') may name these
hits=$(grep -rn --include='*.[ch]' -E \
        'costa-shim\[|write\((1|2|STDOUT_FILENO|STDERR_FILENO),|STDERR_FILENO|fprintf\((stderr|stdout)|cs_log_line\((1|2),|[^a-z_]printf\(|[^a-z_]puts\(' \
        shim engine relabel config |
    grep -v '^config/log\.c:' |
    grep -v -E '^[^:]*:[0-9]+: *(\*|/\*)' || true)
if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed 's/^/      | /'
    cs_report FAIL "lines written past the log sink"
else
    cs_report ok "every line goes through config/log.h"
fi

app=$BUILD_DIR/t/scalapack/gemr2d_sweep
cs_need_files "$app"
rc=0
COSTA_SHIM_BANNER=1 timeout -k 5 120 "$MPIEXEC" -n 2 \
    env LD_PRELOAD="$CS_PRELOAD" "$app" --count 2 \
    > "$CS_OUT/out" 2> "$CS_OUT/err" || rc=$?
n=$(grep -c '^costa-shim\[0\]: version .*: serving p?gemr2d' "$CS_OUT/err")
if [ "$rc" -eq 0 ] && [ "$n" = 1 ]; then
    cs_report ok "the banner is one costa-shim[0] line"
else
    tail -n 5 "$CS_OUT/err" | sed 's/^/      | /'
    cs_report FAIL "banner: exit $rc, $n costa-shim[0] version lines"
fi
exit $((fails > 0))
