# costa-shim differential test input for PETSc 3.18 / SLEPc 3.18 (Debian 12
# packages libpetsc-real3.18, libslepc-real3.18, python3-slepc4py-real).
#
# Every intercepted call here is made by the libraries themselves (PETSc's
# MATSCALAPACK type in libpetsc_real.so, SLEPc's ScaLAPACK back ends, and
# ScaLAPACK's own drivers); this script only drives them:
#   1. PETSc: MATDENSE -> MATSCALAPACK -> MATDENSE conversions (pdgemr2d_),
#      MatTranspose on MATSCALAPACK (pdtran_), MatMult (vector
#      redistribution, pdgemr2d_), LU solve with the ScaLAPACK solver type
#   2. SLEPc EPS type scalapack, standard symmetric problem: pdsyev, which
#      itself calls pdgemr2d_
#   3. SLEPc EPS type scalapack, generalised symmetric-definite problem:
#      pdsygvx -> pdsyevx -> pdsyntrd, which calls pdtrmr2d_ and (through
#      pdlamr1d) pdgemr2d_ on a non-square 1x2 grid
#   4. SLEPc SVD type scalapack: pdgesvd, which calls pdgemr2d_
# All matrices are built from closed-form formulas (banded, symmetric A,
# diagonally dominant SPD B, rectangular C), so the run needs no input file.
# Rank 0 prints RESULT lines (norms, every eigenvalue and singular value in
# %.17g) that must be identical between a native run and a shim run.
#
# Usage: mpiexec -n 2 python3 petsc_slepc_scalapack.py
#   with PYTHONPATH naming the petsc4py and slepc4py trees (see run.sh).
import sys
import slepc4py
slepc4py.init(sys.argv)
from petsc4py import PETSc
from slepc4py import SLEPc

comm = PETSc.COMM_WORLD
out = PETSc.Sys.Print
n, m = 300, 220        # 64x64 ScaLAPACK blocks: several wraps per rank


def banded(rows, cols, f, bw):
    M = PETSc.Mat().createAIJ([rows, cols], comm=comm)
    M.setUp()
    r0, r1 = M.getOwnershipRange()
    for i in range(r0, r1):
        for j in range(max(0, i - bw), min(cols, i + bw + 1)):
            M[i, j] = f(i, j)
    M.assemble()
    return M


A = banded(n, n, lambda i, j: 1.0 / (1 + abs(i - j)) +
           (2.0 + 0.01 * i if i == j else 0.0), 4)
B = banded(n, n, lambda i, j: 4.0 if i == j else 1.0 / (2 + abs(i - j)), 1)
C = banded(n, m, lambda i, j: ((i * 7 + j * 3) % 11 - 5) / 10.0 +
           (1.0 if i == j else 0.0), 6)

# 1. PETSc's MATSCALAPACK
As = A.convert('dense').convert('scalapack')
Cs = C.convert('dense').convert('scalapack')
CsT = PETSc.Mat()
Cs.transpose(CsT)                      # MAT_INITIAL_MATRIX: pdtran_
out('RESULT transpose-fro %.17g' % CsT.norm(PETSc.NormType.FROBENIUS))
CdT = CsT.convert('dense')
out('RESULT transpose-dense-fro %.17g' % CdT.norm(PETSc.NormType.FROBENIUS))
out('RESULT transpose-dense-1 %.17g' % CdT.norm(PETSc.NormType.NORM_1))
x = As.createVecRight()
r0, r1 = x.getOwnershipRange()
x.setArray([1.0 + 0.001 * i for i in range(r0, r1)])
y = As.createVecLeft()
As.mult(x, y)
out('RESULT matmult-2 %.17g' % y.norm())
ksp = PETSc.KSP().create(comm)
ksp.setOperators(As)
ksp.setType('preonly')
pc = ksp.getPC()
pc.setType('lu')
pc.setFactorSolverType('scalapack')
z = As.createVecRight()
ksp.solve(y, z)
out('RESULT lu-solution-2 %.17g' % z.norm())


# 2./3. SLEPc eigensolvers backed by ScaLAPACK
def eigs(problem, *ops):
    E = SLEPc.EPS().create(comm)
    E.setOperators(*ops)
    E.setProblemType(problem)
    E.setType('scalapack')
    E.setDimensions(nev=n)
    E.solve()
    return [E.getEigenvalue(i).real for i in range(E.getConverged())]


def dump(tag, v):
    out('RESULT %s count %d' % (tag, len(v)))
    for k in range(0, len(v), 8):
        out('RESULT %s [%d:]' % (tag, k), ' '.join('%.17g' % e for e in v[k:k + 8]))


dump('hep', eigs(SLEPc.EPS.ProblemType.HEP, A))
dump('ghep', eigs(SLEPc.EPS.ProblemType.GHEP, A, B))

# 4. SLEPc SVD backed by ScaLAPACK
S = SLEPc.SVD().create(comm)
S.setOperators(C)
S.setType('scalapack')
S.setDimensions(nsv=m)
S.solve()
dump('svd', [S.getSingularTriplet(i) for i in range(S.getConverged())])
