# test_apps/apps/slepc/app.sh - how make check-apps and make bench-apps run
# PETSc and SLEPc (Debian's libpetsc-real3.18, libslepc-real3.18 through
# petsc4py/slepc4py, Open MPI).  Sourced; the interface is that of
# test_apps/apps/cp2k/app.sh.  Every intercepted call is made by the
# libraries (PETSc's MATSCALAPACK, ScaLAPACK's drivers under SLEPc).
cs_app_flavour=openmpi
cs_app_cases="petsc_slepc_scalapack"
cs_app_bench_cases="petsc_slepc_scalapack"
cs_app_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The "real" flavour's petsc4py and slepc4py live outside Python's path
# without Debian's link packages.
cs_app_env=(PYTHONPATH="$(ls -d /usr/lib/slepcdir/slepc3.*/x86_64-linux-gnu-real/lib/python3/dist-packages 2> /dev/null | tail -n 1):$(ls -d /usr/lib/petscdir/petsc3.*/x86_64-linux-gnu-real/lib/python3/dist-packages 2> /dev/null | tail -n 1)")
# Python loads MPI and ScaLAPACK locally and after the preload: preloaded
# behind the shim they are global from the start.
cs_app_preload_after="$(cs_app_lib libmpi.so.40):$(cs_app_lib libscalapack-openmpi.so.2.2)"

cs_app_present() {
    env "${cs_app_env[@]}" /usr/bin/python3 -c 'import slepc4py' 2> /dev/null
}

cs_app_about() {
    echo "PETSc MATSCALAPACK conversions, transpose and LU; SLEPc's ScaLAPACK eigen- and SVD solvers (pdsyev, pdsygvx, pdgesvd)"
}

cs_app_prepare() {
    cp "$cs_app_dir/$2.py" "$1/"
}

cs_app_cmd() {
    printf '%s\n' /usr/bin/python3 "$1.py"
}

# Rank 0's RESULT lines: norms, every eigenvalue and singular value.
cs_app_results() {
    grep '^RESULT' "$1/stdout.txt"
}
