#!/usr/bin/env bash
# test_apps/checks/20_preload_inert.sh - the shim must be inert until an
# intercepted routine is called (interface.md 1.1; Darshan's true/ls test).
# With LD_PRELOAD=$CS_SHIM, `true`, `ls /`, `sh -c exit` and
# `$MPIEXEC -n 2 true` must exit 0 and write nothing to stderr; `true`,
# `sh -c exit` and `mpiexec -n 2 true` nothing to stdout, and `ls /` exactly
# what it writes without the preload.  Repeated with LD_BIND_NOW=1 (every
# undefined symbol resolved at load time), and with the shim's reporting
# switched on (COSTA_SHIM_STATS=summary COSTA_SHIM_VERBOSE=1
# COSTA_SHIM_BANNER=1): nothing is intercepted, so still no output and no
# report files.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, CS_OUT.
set -euo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"

: "${CS_SHIM:?}" "${MPIEXEC:?}" "${CS_OUT:?}"
if [ ! -f "$CS_SHIM" ]; then
    echo "FAIL: shim library $CS_SHIM not found (build it: make)"
    exit 1
fi

work=$CS_OUT/work
cs_fresh_dir "$work"
cd "$work"
ls / > "$CS_OUT/ls.expected"

variants=(
    "plain|"
    "bind_now|LD_BIND_NOW=1"
    "reporting|COSTA_SHIM_STATS=summary COSTA_SHIM_VERBOSE=1 COSTA_SHIM_BANNER=1 COSTA_SHIM_STATS_DIR=."
    "reporting_bind_now|LD_BIND_NOW=1 COSTA_SHIM_STATS=summary COSTA_SHIM_VERBOSE=1 COSTA_SHIM_BANNER=1 COSTA_SHIM_STATS_DIR=."
)
# name|stdout rule (empty: must be empty; ls: must equal ls.expected)|command
commands=(
    "true|empty|true"
    "ls|ls|ls /"
    "sh_exit|empty|sh -c exit"
    "mpiexec_true|empty|$MPIEXEC -n 2 true"
)

fails=0
for v in "${variants[@]}"; do
    vname=${v%%|*}
    read -r -a venv <<< "${v#*|}"
    for c in "${commands[@]}"; do
        cname=${c%%|*}; rest=${c#*|}
        rule=${rest%%|*}
        read -r -a cmd <<< "${rest#*|}"
        o=$CS_OUT/$vname.$cname
        rc=0
        timeout 60 env LD_PRELOAD="$CS_PRELOAD" "${venv[@]}" "${cmd[@]}" \
            > "$o.stdout" 2> "$o.stderr" || rc=$?
        what="[$vname] ${venv[*]:+${venv[*]} }LD_PRELOAD=shim ${cmd[*]}"
        bad=()
        [ "$rc" -eq 0 ] || bad+=("exit status $rc")
        [ ! -s "$o.stderr" ] || bad+=("output on stderr")
        case "$rule" in
            empty) [ ! -s "$o.stdout" ] || bad+=("output on stdout") ;;
            ls) cmp -s "$o.stdout" "$CS_OUT/ls.expected" ||
                    bad+=("stdout differs from ls / without preload") ;;
        esac
        if [ "${#bad[@]}" -eq 0 ]; then
            echo "ok    $what"
        else
            fails=$((fails + 1))
            echo "FAIL  $what: $(IFS=,; echo "${bad[*]}")"
            for s in stderr stdout; do
                if [ -s "$o.$s" ] && { [ "$s" = stderr ] || [ "$rule" = empty ]; }; then
                    echo "      $s:"; head -n 10 "$o.$s" | sed 's/^/      | /'
                fi
            done
        fi
    done
    left=$(ls -A "$work")
    if [ -n "$left" ]; then
        fails=$((fails + 1))
        echo "FAIL  [$vname] files created in the working directory:" \
             "$(echo "$left" | paste -sd ' ')"
        rm -rf "${work:?}"/* "$work"/.[!.]* 2>/dev/null || true
    fi
done

echo
if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s): the preloaded shim is not inert"
    exit 1
fi
echo "shim preload is inert"
