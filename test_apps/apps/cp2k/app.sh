# test_apps/apps/cp2k/app.sh - how make check-apps and make bench-apps run
# CP2K (Debian's cp2k, built on Open MPI).  Sourced; defines variables and
# functions prefixed cs_app_ only.
#   cs_app_flavour       the MPI flavour of the application
#   cs_app_env           VAR=value words every run needs, native too
#   cs_app_cases         inputs of make check-apps
#   cs_app_bench_cases   inputs of make bench-apps
#   cs_app_gemm_cases    of those, the inputs make bench-apps also runs
#                        with COSTA_SHIM_GEMM=on
#   cs_app_present       is the application installed?
#   cs_app_about CASE    one line: what the input exercises
#   cs_app_prepare DIR CASE   copy what the run needs into DIR
#   cs_app_cmd CASE      the command (one word a line), run in DIR
#   cs_app_results DIR   the lines that must be identical natively and
#                        under the shim, on stdout
cs_app_flavour=openmpi
cs_app_env=()
cs_app_cases="xtb_md dft_redist rpa_h2o"
cs_app_bench_cases="xtb_md dft_redist rpa_h2o rpa_ch3 rpa_w4"
cs_app_gemm_cases="rpa_ch3 rpa_w4"
cs_app_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

cs_app_present() {
    command -v cp2k.psmp > /dev/null
}

cs_app_about() {
    case "$1" in
        xtb_md) echo "xTB MD of 32 waters (n = 256), 4 steps, ScaLAPACK diagonalisation every SCF step" ;;
        dft_redist) echo "PBE energy and forces of 4 waters (DZVP-MOLOPT, n = 92), diagonalised on fewer ranks than the job (FM_DIAG_SETTINGS)" ;;
        rpa_h2o) echo "RI-RPA energy of one water (cc-DZ, RI_QZ: 238 RI functions), 6000 quadrature points on one 2-rank group: a pdgemr2d_ of Q into the Cholesky layout per point" ;;
        rpa_ch3) echo "RI-RPA energy of the CH3 radical (UKS, 293 RI functions), 4000 points: two pdgemr2d_ per point, one per spin" ;;
        rpa_w4) echo "RI-RPA energy of 4 waters (cc-DZ, RI_TZ: 544 RI functions, occupied x virtual 1216), 40 points: Q = S^T S by a 544 x 544 x 1216 pdgemm_ per point, as in production runs" ;;
        *) echo "$1" ;;
    esac
}

cs_app_prepare() {
    cp "$cs_app_dir"/*.xyz "$cs_app_dir/$2.inp" "$1/"
}

cs_app_cmd() {
    printf '%s\n' "$(command -v cp2k.psmp)" -i "$1.inp" -o out.txt
}

# Every ENERGY| line and RPA energy, the ATOMIC FORCES blocks, and for MD
# the trajectory and the energies file without its timing column.
cs_app_results() {
    local d=$1 f
    grep -E '^ ENERGY\||^ +RI-RPA energy' "$d/out.txt"
    sed -n '/ATOMIC FORCES in/,/SUM OF ATOMIC FORCES/p' "$d/out.txt"
    for f in "$d"/*-pos-1.xyz; do
        [ -f "$f" ] && cat "$f"
    done
    for f in "$d"/*-1.ener; do
        [ -f "$f" ] && awk '!/^#/ { $NF = ""; print }' "$f"
    done
    return 0
}
