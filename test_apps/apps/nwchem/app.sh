# test_apps/apps/nwchem/app.sh - how make check-apps and make bench-apps run
# NWChem (Debian's nwchem-mpich, MPICH).  Sourced; the interface is that of
# test_apps/apps/cp2k/app.sh.
cs_app_flavour=mpich
cs_app_cases="water"
cs_app_bench_cases="water"
cs_app_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# This build's ARMCI-MPI corrupts global arrays on 2 ranks without it,
# natively too (the SCF diverges): see water.nw.
cs_app_env=(ARMCI_USE_WIN_ALLOCATE=0)

cs_app_present() {
    command -v nwchem.mpich > /dev/null
}

cs_app_about() {
    echo "B3LYP/6-31G* energy of 6 waters (n = 114), PDSYEVX diagonalisation (set dft:scaladiag x), static load balancing"
}

cs_app_prepare() {
    cp "$cs_app_dir/$2.nw" "$1/"
}

cs_app_cmd() {
    printf '%s\n' "$(command -v nwchem.mpich)" "$1.nw"
}

# The whole output with the lines that change from run to run (clock,
# times, disk- and address-dependent sizes) masked by mask.sed: every
# energy, every SCF iteration, every orbital energy and the dipole.
cs_app_results() {
    sed -E -f "$cs_app_dir/mask.sed" "$1/stdout.txt"
}
