#!/usr/bin/env bash
# scripts/install-deps.sh - installs the Debian packages costa-shim needs to
# build and test both MPI flavours (MPICH with ScaLAPACK for MPICH, Open MPI
# with ScaLAPACK for Open MPI, LAPACK/OpenBLAS, compilers, binutils,
# valgrind, GNU time) when they are missing, and ScaLAPACK's own testers
# (scalapack-mpi-test, both flavours, for check 45) where the package
# lists have them, then checks that each flavour's wrappers
# (mpicc.mpich, mpif90.mpich, mpiexec.mpich; mpicc.openmpi,
# mpif90.openmpi, mpiexec.openmpi) exist.  With --apps it
# also installs the real applications of `make check-apps` / `make
# bench-apps` (CP2K, GPAW and PETSc/SLEPc for Open MPI, NWChem for MPICH).
#
#   scripts/install-deps.sh               report and install what is missing
#   scripts/install-deps.sh --if-missing  same, silent when all are present
#                                         (what `make deps` / `make check` run)
#   scripts/install-deps.sh --apps [--if-missing]
#                                         the applications as well
#
# Only the listed packages are installed (--no-install-recommends).
# Installing Open MPI (asked for here, and pulled in by Debian 12's
# libscalapack-mpich2.2 through mpi-default-bin anyway) takes over the
# generic mpicc/mpirun alternatives and the libmpi.so development link.
# costa-shim only uses the explicit names of each flavour, but other tools
# on the machine may not: the script records the alternatives `mpi`,
# `mpirun` and `mpi-x86_64-linux-gnu` (headers, libmpi.so) before
# installing and puts them back afterwards (to MPICH when there were none),
# and says so.  Not root: sudo is used when present, otherwise the script
# prints the command to run and exits 1.
set -euo pipefail

PACKAGES=(mpich libmpich-dev libscalapack-mpich-dev
          openmpi-bin libopenmpi-dev libscalapack-openmpi-dev
          liblapack-dev libopenblas-dev gfortran make gcc python3 binutils
          valgrind time)
# Installed when apt knows them; without them check 45 says so and skips.
OPTIONAL_PACKAGES=(scalapack-mpi-test)
# CP2K (Open MPI), NWChem (MPICH), GPAW and PETSc/SLEPc (Python, Open MPI)
APP_PACKAGES=(cp2k nwchem-mpich gpaw gpaw-data python3-slepc4py-real)
MPI_TOOLS=(mpicc.mpich mpif90.mpich mpiexec.mpich
           mpicc.openmpi mpif90.openmpi mpiexec.openmpi)

quiet=0
for arg in "$@"; do
    case "$arg" in
        --if-missing) quiet=1 ;;
        --apps) PACKAGES+=("${APP_PACKAGES[@]}") ;;
        -h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "install-deps.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

say() { [ "$quiet" -eq 1 ] || echo "install-deps.sh: $*"; }

is_installed() {
    local st
    st=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
    [ "$st" = "install ok installed" ]
}

check_tools() {
    local t bad=0
    for t in "${MPI_TOOLS[@]}"; do
        if ! command -v "$t" >/dev/null 2>&1; then
            echo "install-deps.sh: error: '$t' not found in PATH" \
                 "(packages mpich / libmpich-dev, openmpi-bin / libopenmpi-dev)" >&2
            bad=1
        fi
    done
    return "$bad"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps.sh: error: dpkg-query not found; this script is for" \
         "Debian/Ubuntu. Install the equivalents of: ${PACKAGES[*]}" >&2
    exit 1
fi

is_known() {
    apt-cache show "$1" > /dev/null 2>&1
}

missing=()
for p in "${PACKAGES[@]}"; do
    is_installed "$p" || missing+=("$p")
done
# optional ones: only those this machine's package lists have (asked
# again after apt-get update when something else is missing anyway)
opt_missing=()
for p in "${OPTIONAL_PACKAGES[@]}"; do
    is_installed "$p" || opt_missing+=("$p")
done
opt_known=()
for p in "${opt_missing[@]}"; do
    is_known "$p" && opt_known+=("$p")
done

if [ "${#missing[@]}" -eq 0 ] && [ "${#opt_known[@]}" -eq 0 ]; then
    say "all ${#PACKAGES[@]} packages present"
    [ "${#opt_missing[@]}" -eq 0 ] ||
        say "not available here: ${opt_missing[*]} (optional)"
    check_tools
    exit 0
fi

# From here on there is something to do, so always talk (even --if-missing).
quiet=0
say "missing packages: ${missing[*]} ${opt_missing[*]}"

apt_install=(apt-get install -y --no-install-recommends "${missing[@]}"
             "${opt_known[@]}")
if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "install-deps.sh: error: not root and sudo is not available." >&2
    echo "Run as root:" >&2
    echo "  apt-get update && DEBIAN_FRONTEND=noninteractive" \
         "${apt_install[*]}" >&2
    exit 1
fi

say "running: ${SUDO[*]:+${SUDO[*]} }apt-get update"
"${SUDO[@]}" apt-get update
opt_known=()
for p in "${opt_missing[@]}"; do
    if is_known "$p"; then
        opt_known+=("$p")
    else
        say "not available here: $p (optional)"
    fi
done
apt_install=(apt-get install -y --no-install-recommends "${missing[@]}"
             "${opt_known[@]}")

# Remember who owns the generic MPI names now (empty: nobody), so that an
# Open MPI pulled in as a dependency does not silently take them over.
alt_value() {
    update-alternatives --query "$1" 2>/dev/null |
        awk '$1 == "Value:" {print $2}' || true
}
declare -A alt_before
for a in mpi mpirun mpi-x86_64-linux-gnu; do
    alt_before[$a]=$(alt_value "$a")
done

say "running: ${SUDO[*]:+${SUDO[*]} }${apt_install[*]}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive "${apt_install[@]}"

# Put the generic names back: to what they were, or to MPICH when they did
# not exist before (Open MPI would otherwise own them).
for a in mpi mpirun mpi-x86_64-linux-gnu; do
    want=${alt_before[$a]}
    if [ -z "$want" ]; then
        case "$a" in
            mpi) want=/usr/bin/mpicc.mpich ;;
            mpirun) want=/usr/bin/mpirun.mpich ;;
            mpi-x86_64-linux-gnu)
                want=/usr/include/x86_64-linux-gnu/mpich ;;
        esac
    fi
    now=$(alt_value "$a")
    if [ -n "$now" ] && [ "$now" != "$want" ] && [ -e "$want" ]; then
        say "restoring alternative '$a': $now -> $want"
        "${SUDO[@]}" update-alternatives --set "$a" "$want" >/dev/null
    fi
done

still=()
for p in "${missing[@]}" "${opt_known[@]}"; do
    is_installed "$p" || still+=("$p")
done
if [ "${#still[@]}" -ne 0 ]; then
    echo "install-deps.sh: error: still missing after apt-get: ${still[*]}" >&2
    exit 1
fi
check_tools
say "done"
