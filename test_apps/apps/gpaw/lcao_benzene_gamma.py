# costa-shim differential test input for GPAW 22.8 (Debian 12 package gpaw).
#
# What it exercises: a real-valued (Gamma-point, molecule) LCAO calculation
# of benzene with GPAW's ScaLAPACK path switched on (parallel sl_default).
# GPAW builds the Hamiltonian and overlap matrices in a 1-D column layout
# and moves them into a 2x1 BLACS 8x8 block-cyclic layout, and the
# eigenvectors back, with its C helper scalapack_redist -> Cpdgemr2d
# (about 70 calls per rank per run).  The dense generalised eigenproblem
# itself goes to pdsyevd (not intercepted).
#
# Usage: mpiexec -n 2 python3 lcao_benzene_gamma.py <log.txt>
#   the GPAW log goes to <log.txt>; rank 0 prints RESULT lines on stdout
#   (total energy, all eigenvalues, all forces), which must be identical
#   between a native run and a run with the shim preloaded.
import sys
from ase.build import molecule
from gpaw import GPAW
from gpaw.mpi import world

log = sys.argv[1] if len(sys.argv) > 1 else '-'
atoms = molecule('C6H6')
atoms.center(vacuum=3.0)
calc = GPAW(mode='lcao', basis='dzp', xc='PBE', h=0.25, txt=log,
            parallel={'sl_default': (2, 1, 8)},   # 2x1 grid, 8x8 blocks
            convergence={'energy': 1e-6, 'density': 1e-5})
atoms.calc = calc
energy = atoms.get_potential_energy()
forces = atoms.get_forces()
eigs = calc.get_eigenvalues()          # collective: call on every rank
if world.rank == 0:
    print('RESULT energy %.17g' % energy)
    print('RESULT eigs', ' '.join('%.17g' % x for x in eigs))
    print('RESULT forces', ' '.join('%.17g' % x for x in forces.ravel()))
