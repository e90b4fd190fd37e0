# test_apps/apps/gpaw/app.sh - how make check-apps and make bench-apps run
# GPAW (Debian's gpaw, a Python program on Open MPI).  Sourced; the
# interface is that of test_apps/apps/cp2k/app.sh.
cs_app_flavour=openmpi
cs_app_cases="lcao_benzene_gamma lcao_benzene_elpa"
cs_app_bench_cases="lcao_benzene_gamma lcao_benzene_elpa"
cs_app_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# GPAW opens the MPI named by GPAW_MPI with ctypes, by default the
# unversioned libmpi.so, which on Debian follows the `mpi` alternative
# (MPICH's on a machine set up for MPICH): name Open MPI's, natively too.
cs_app_env=(GPAW_MPI="$(cs_app_lib libmpi.so.40)")
# Python loads _gpaw.so, and with it MPI and ScaLAPACK, locally and after
# the preload: preloaded behind the shim they are global from the start.
cs_app_preload_after="$(cs_app_lib libmpi.so.40):$(cs_app_lib libscalapack-openmpi.so.2.2)"

cs_app_present() {
    env "${cs_app_env[@]}" /usr/bin/python3 -c 'import gpaw' 2> /dev/null
}

cs_app_about() {
    case "$1" in
        lcao_benzene_gamma) echo "LCAO PBE benzene (dzp), ScaLAPACK on a 2x1 grid: GPAW's own redistributions (Cpdgemr2d)" ;;
        lcao_benzene_elpa) echo "the same with ELPA 2-stage: Cpdgemr2d and pdtran_ from GPAW and from libelpa" ;;
        *) echo "$1" ;;
    esac
}

cs_app_prepare() {
    cp "$cs_app_dir/$2.py" "$1/"
}

cs_app_cmd() {
    printf '%s\n' /usr/bin/python3 "$1.py" gpaw.log
}

# Rank 0's RESULT lines (energy, every eigenvalue and force in %.17g), then
# the GPAW log without its clock, process, folder, memory and timing lines.
cs_app_results() {
    grep '^RESULT' "$1/stdout.txt"
    sed -e '/^Timing:/,$d' -e '/^Date:/d' -e '/^Pid:/d' -e '/^CWD:/d' \
        -e '/MiB/d' -e 's/^\(iter: *[0-9]*\) [0-9:]*/\1 HH:MM:SS/' \
        "$1/gpaw.log"
}
