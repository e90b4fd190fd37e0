#!/usr/bin/env bash
# test_apps/checks/11_env_doc.sh - doc drift test: docs/env.md must be
# exactly what test_apps/unit/gen_env_doc prints from the option table in
# config/config_table.c.  Fix a failure with `make docs` (or
# $BUILD_DIR/t/unit/gen_env_doc > docs/env.md) and commit the result.
# Environment (from run_checks.sh): BUILD_DIR, CS_TOP, CS_OUT.
set -u
gen="$BUILD_DIR/t/unit/gen_env_doc"
doc="$CS_TOP/docs/env.md"
if [ ! -x "$gen" ]; then
    echo "missing $gen (make test_apps)"
    exit 1
fi
if [ ! -f "$doc" ]; then
    echo "missing $doc"
    exit 1
fi
mkdir -p "${CS_OUT:?}"
if ! "$gen" > "$CS_OUT/env.md"; then
    echo "gen_env_doc failed"
    exit 1
fi
if ! diff -u "$doc" "$CS_OUT/env.md"; then
    echo "docs/env.md is out of date: regenerate it with 'make docs'"
    exit 1
fi
echo "docs/env.md matches the option table"
