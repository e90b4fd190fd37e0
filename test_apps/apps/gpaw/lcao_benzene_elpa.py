# costa-shim differential test input for GPAW 22.8 (Debian 12 package gpaw)
# with GPAW's ELPA back end (Debian libelpa19, 2022.11.001).
#
# What it exercises: the benzene LCAO calculation of lcao_benzene_gamma.py,
# but the dense generalised eigenproblem goes to ELPA 2-stage
# (elpa_generalized_eigenvectors_d) instead of pdsyevd.  On top of the
# Cpdgemr2d redistributions of lcao_benzene_gamma.py this reaches:
#   - pdtran_ (alpha=1, beta=1) from GPAW's scalapack_tri2full, which
#     fills the upper triangle of H and S before handing them to ELPA
#   - whatever p?tran ELPA itself calls (libelpa.so.19 imports pdtran_,
#     pztranc_ from ScaLAPACK)
#
# Usage: mpiexec -n 2 python3 lcao_benzene_elpa.py <log.txt>
#   rank 0 prints RESULT lines (energy, eigenvalues, forces, %.17g) that
#   must be identical native vs shim.
import sys
from ase.build import molecule
from gpaw import GPAW
from gpaw.mpi import world

log = sys.argv[1] if len(sys.argv) > 1 else '-'
atoms = molecule('C6H6')
atoms.center(vacuum=3.0)
calc = GPAW(mode='lcao', basis='dzp', xc='PBE', h=0.25, txt=log,
            parallel={'sl_default': (2, 1, 8),    # 2x1 grid, 8x8 blocks
                      'use_elpa': True, 'elpasolver': '2stage'},
            convergence={'energy': 1e-6, 'density': 1e-5})
atoms.calc = calc
energy = atoms.get_potential_energy()
forces = atoms.get_forces()
eigs = calc.get_eigenvalues()          # collective: call on every rank
if world.rank == 0:
    print('RESULT energy %.17g' % energy)
    print('RESULT eigs', ' '.join('%.17g' % x for x in eigs))
    print('RESULT forces', ' '.join('%.17g' % x for x in forces.ravel()))
