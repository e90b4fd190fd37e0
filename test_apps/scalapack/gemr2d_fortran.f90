! test_apps/scalapack/gemr2d_fortran.f90 - fixed configs of PDGEMR2D,
! PSGEMR2D, PCGEMR2D, PZGEMR2D and PIGEMR2D called from Fortran.
!
! Why: Fortran programs reach p?gemr2d_ with every argument by reference and
! with BLACS handles made by the Fortran BLACS interface; costa-shim must
! behave exactly like ScaLAPACK there too.  16 configs over grids made by
! BLACS_GRIDINIT ('R' and 'C') and BLACS_GRIDMAP (permuted, LDU > P), grids
! that leave processes out (CTXT = -1 there), A and B in the same context,
! gcontext = A's context, offsets, block sizes 1..larger than the matrix,
! LLD = 0 / padded, garbage DTYPE, and M = 0 with garbage descriptors.
! Runs on any number of ranks (1..6 tested).  Element data are handled as
! 32-bit words (TRANSFER) so every check is bit-exact, NaN sentinels
! included.  Rank 0 prints "cfg <k> rank <r> calls <c> digest <hex64>" for
! every rank, "calls <r> <c>" and "cs_test: OK" when all ranks passed.
program gemr2d_fortran
  implicit none
  integer, parameter :: ncol = 22, ncfg = 16
  ! columns: type(1=d 2=s 3=c 4=z 5=i), grid A, grid B (0 = A's context),
  ! gcontext (0 = A's context), m, n, ia, ja, ib, jb, mba, nba, mbb, nbb,
  ! rsrca, csrca, rsrcb, csrcb (taken mod P/Q), extra rows+cols of A, of B,
  ! lld mode (0 exact, 1 max(1,.), 2 +2 padding rows), dtype
  integer, parameter :: cfgtab(ncol, ncfg) = reshape([ &
       1, 1, 2, 1, 10,  7, 1, 1, 1, 1,  2,  3, 3,  2, 0, 0, 0, 0, 0, 0, 0,   1, &
       1, 3, 7, 2,  9, 12, 3, 2, 1, 4,  4,  5, 2, 64, 1, 0, 0, 1, 2, 1, 1,   1, &
       2, 4, 1, 3, 13,  9, 2, 2, 3, 1, 16, 16, 1,  2, 0, 0, 0, 1, 1, 3, 2, 777, &
       2, 1, 4, 1,  8, 15, 1, 3, 2, 2,  3,  1, 5,  5, 0, 1, 0, 0, 0, 2, 0,   1, &
       3, 5, 2, 8, 11,  6, 4, 1, 2, 2,  2,  2, 3,  3, 0, 1, 1, 1, 0, 0, 0,   1, &
       3, 2, 6, 1,  7,  7, 1, 1, 1, 1,  1,  1, 4,  4, 1, 1, 0, 0, 3, 3, 1,   1, &
       4, 8, 3, 2, 12, 10, 2, 3, 5, 1,  1,  2, 3,  1, 0, 0, 1, 0, 1, 1, 2,   1, &
       4, 7, 5, 3,  5, 20, 1, 1, 1, 6,  2,  4, 6,  3, 1, 0, 0, 1, 0, 4, 0,  -5, &
       5, 1, 8, 1, 16, 16, 1, 1, 1, 1,  4,  4, 3,  5, 0, 0, 0, 0, 0, 0, 0,   1, &
       5, 5, 6, 2,  6,  9, 2, 2, 1, 1,  2,  3, 9,  9, 0, 0, 0, 0, 0, 0, 1,   1, &
       1, 1, 1, 1,  0,  5, 1, 1, 1, 1,  2,  2, 2,  2, 0, 0, 0, 0, 0, 0, 0,   1, &
       1, 2, 2, 8, 20,  3, 1, 2, 4, 1,  5,  1, 7,  2, 1, 0, 0, 1, 0, 0, 0,   1, &
       2, 8, 0, 1,  9,  9, 1, 1, 3, 3,  2,  2, 4,  4, 0, 0, 0, 0, 0, 3, 0,   1, &
       4, 3, 4, 0,  1, 25, 1, 1, 1, 1,  1,  3, 1,  7, 0, 0, 0, 0, 0, 0, 0,   1, &
       5, 6, 5, 1, 30,  1, 2, 1, 1, 1,  7,  1, 4,  1, 0, 0, 0, 0, 0, 0, 2,   1, &
       3, 7, 8, 3, 14, 13, 1, 1, 1, 1, 20, 20, 2,  3, 1, 1, 1, 0, 2, 2, 2,   1], &
       [ncol, ncfg])
  integer, external :: numroc
  integer :: iam, np, sysctx, wctx, nfail, ncalls, nnowork, k, p, totfail
  integer, allocatable :: digs(:)
  integer :: h(2)

  call blacs_pinfo(iam, np)
  call blacs_get(0, 0, sysctx)
  wctx = sysctx
  call blacs_gridinit(wctx, 'R', 1, np)
  allocate(digs(3 * np))
  nfail = 0
  ncalls = 0
  nnowork = 0
  do k = 1, ncfg
     call run_cfg(k, h)
     digs = 0
     digs(3 * iam + 1) = h(1)
     digs(3 * iam + 2) = h(2)
     digs(3 * iam + 3) = ncalls
     call igsum2d(wctx, 'A', ' ', 3 * np, 1, digs, 3 * np, -1, -1)
     if (iam == 0) then
        do p = 0, np - 1
           write (*, '(a,i0,a,i0,a,i0,a,z8.8,z8.8)') 'cfg ', k, ' rank ', p, &
                ' calls ', digs(3 * p + 3), ' digest ', digs(3 * p + 1), &
                digs(3 * p + 2)
        end do
     end if
  end do
  digs = 0
  digs(3 * iam + 1) = nfail
  digs(3 * iam + 2) = ncalls
  digs(3 * iam + 3) = nnowork
  call igsum2d(wctx, 'A', ' ', 3 * np, 1, digs, 3 * np, -1, -1)
  totfail = 0
  do p = 0, np - 1
     totfail = totfail + digs(3 * p + 1)
  end do
  if (iam == 0) then
     do p = 0, np - 1
        write (*, '(a,i0,a,i0)') 'calls ', p, ' ', digs(3 * p + 2)
        ! M or N = 0: what the shim counts as path none
        write (*, '(a,i0,a,i0)') 'calls_no_work ', p, ' ', digs(3 * p + 3)
     end do
     if (totfail == 0) then
        write (*, '(a)') 'cs_test: OK'
     else
        write (*, '(a,i0,a)') 'cs_test: FAILED (', totfail, ' checks)'
     end if
  end if
  call blacs_gridexit(wctx)
  call blacs_exit(0)
  if (totfail /= 0) stop 1

contains

  ! Shape of the "2-D" grids: largest divisor of np that is <= sqrt(np).
  integer function rows2d()
    integer :: d
    rows2d = 1
    do d = 1, np
       if (mod(np, d) == 0 .and. d * d <= np) rows2d = d
    end do
  end function rows2d

  ! Create a grid of the given kind; returns the handle (-1 on non-members).
  subroutine make_grid(kind, ctxt)
    integer, intent(in) :: kind
    integer, intent(out) :: ctxt
    integer :: pr, pc, i, j, ldu
    integer :: umap(2 * 64 * 64)
    pr = rows2d()
    pc = np / pr
    ctxt = sysctx
    select case (kind)
    case (1)   ! 1 x np, row-major
       call blacs_gridinit(ctxt, 'R', 1, np)
    case (2)   ! pr x pc, column-major
       call blacs_gridinit(ctxt, 'C', pr, pc)
    case (3)   ! np x 1, ranks reversed
       do i = 0, np - 1
          umap(i + 1) = np - 1 - i
       end do
       call blacs_gridmap(ctxt, umap, np, np, 1)
    case (4)   ! 1 x 1 on rank 0
       call blacs_gridinit(ctxt, 'R', 1, 1)
    case (5)   ! 1 x (np-1) on ranks 1..np-1: rank 0 outside
       if (np == 1) then
          call blacs_gridinit(ctxt, 'R', 1, 1)
       else
          do j = 0, np - 2
             umap(j + 1) = j + 1
          end do
          call blacs_gridmap(ctxt, umap, 1, 1, np - 1)
       end if
    case (6)   ! 1 x 1 on the last rank
       umap(1) = np - 1
       call blacs_gridmap(ctxt, umap, 1, 1, 1)
    case (7)   ! pc x pr, row-major
       call blacs_gridinit(ctxt, 'R', pc, pr)
    case default   ! 8: pr x pc permuted map, LDU = pr + 1
       ldu = pr + 1
       umap = -7
       do j = 0, pc - 1
          do i = 0, pr - 1
             umap(i + j * ldu + 1) = mod(np - (i + j * pr), np)
          end do
       end do
       call blacs_gridmap(ctxt, umap, ldu, pr, pc)
    end select
  end subroutine make_grid

  ! Words per element.
  integer function nwords(t)
    integer, intent(in) :: t
    select case (t)
    case (1, 3)
       nwords = 2
    case (4)
       nwords = 4
    case default
       nwords = 1
    end select
  end function nwords

  ! Bit pattern of A(gi+1, gj+1) of config k: exact, distinct values.
  subroutine elem_words(t, gi, gj, k, w)
    integer, intent(in) :: t, gi, gj, k
    integer, intent(out) :: w(4)
    integer :: v
    real :: s(2)
    double precision :: d(2)
    v = 1 + gi + 256 * gj + 65536 * k
    if (mod(gi * 7 + gj * 3 + k, 5) == 0) v = -v
    w = 0
    select case (t)
    case (1)
       d(1) = dble(v) * 0.25d0
       w(1:2) = transfer(d(1), w(1:2))
    case (2)
       s(1) = real(v) * 0.5
       w(1:1) = transfer(s(1), w(1:1))
    case (3)
       s(1) = real(v)
       s(2) = -real(v) - 0.5
       w(1:2) = transfer(s, w(1:2))
    case (4)
       d(1) = dble(v) * 2.0d0
       d(2) = -dble(v) - 0.25d0
       w(1:4) = transfer(d, w(1:4))
    case default
       w(1) = v
    end select
  end subroutine elem_words

  ! Sentinel words: NaN with a payload for odd configs, large numbers else.
  subroutine sent_words(t, which, k, w)
    integer, intent(in) :: t, which, k
    integer, intent(out) :: w(4)
    real :: s
    double precision :: d
    w = 0
    if (mod(k, 2) == 1 .and. t /= 5) then
       select case (t)
       case (2, 3)   ! float sNaN 0x7FA5A5A5 / qNaN 0xFFE5A5A5
          w(1) = 2141562277
          if (which == 0) w(1) = -1727067
          w(2) = w(1)
       case default  ! double sNaN 0x7FF5A5A5A5A5A5A5 / 0xFFF5A5A5A5A5A5A5
          w(1) = -1515870811
          w(2) = 2146805157
          if (which == 0) w(2) = -678491
          w(3:4) = w(1:2)
       end select
    else
       select case (t)
       case (2, 3)
          s = 1.25e30
          if (which == 0) s = -1.5e30
          w(1:1) = transfer(s, w(1:1))
          w(2) = w(1)
       case (1, 4)
          d = 1.25d300
          if (which == 0) d = -7.5d299
          w(1:2) = transfer(d, w(1:2))
          w(3:4) = w(1:2)
       case default
          w(1) = 2000000001
          if (which == 0) w(1) = -2000000003
       end select
    end if
  end subroutine sent_words

  subroutine hash_words(w, n, h)
    integer, intent(in) :: n, w(n)
    integer, intent(inout) :: h(2)
    integer :: i
    integer(8) :: x, h1, h2
    h1 = h(1)
    h2 = h(2)
    do i = 1, n
       x = int(w(i), 8)
       if (x < 0) x = x + 4294967296_8
       h1 = mod(h1 * 1000003_8 + x, 2147483647_8)
       h2 = mod(h2 * 999331_8 + x + 7_8, 2147483629_8)
    end do
    h(1) = int(h1)
    h(2) = int(h2)
  end subroutine hash_words

  ! Local layout of one matrix on this process.
  subroutine layout(ctxt, mg, ng, mb, nb, rsrc, csrc, lldmode, member, &
       pr, pc, myr, myc, locr, locc, lld)
    integer, intent(in) :: ctxt, mg, ng, mb, nb, lldmode
    integer, intent(inout) :: rsrc, csrc
    logical, intent(out) :: member
    integer, intent(out) :: pr, pc, myr, myc, locr, locc, lld
    call blacs_gridinfo(ctxt, pr, pc, myr, myc)
    member = myr >= 0 .and. myr < pr
    locr = 0
    locc = 0
    lld = 0
    if (.not. member) return
    rsrc = mod(rsrc, pr)
    csrc = mod(csrc, pc)
    locr = numroc(mg, mb, myr, rsrc, pr)
    locc = numroc(ng, nb, myc, csrc, pc)
    select case (lldmode)
    case (0)
       lld = locr
    case (1)
       lld = max(1, locr)
    case default
       lld = locr + 2
    end select
  end subroutine layout

  integer function l2g(l, b, myp, src, np_)
    integer, intent(in) :: l, b, myp, src, np_
    l2g = ((l / b) * np_ + mod(myp - src + np_, np_)) * b + mod(l, b)
  end function l2g

  subroutine run_cfg(k, h)
    integer, intent(in) :: k
    integer, intent(out) :: h(2)
    integer :: t, m, n, ia, ja, ib, jb, nw, ctxa, ctxb, ctxg, gcall
    integer :: desca(9), descb(9)
    integer :: mga, nga, mgb, ngb, rsa, csa, rsb, csb
    integer :: pra, pca, mra, mca, lra, lca, llda
    integer :: prb, pcb, mrb, mcb, lrb, lcb, lldb
    logical :: ina, inb, zero
    integer :: nela, nelb, li, lj, gi, gj, si, sj, e, bad
    integer :: w(4), sa(4), sb(4)
    integer, allocatable :: wa(:), wb(:), wa0(:), wb0(:)
    double precision, allocatable :: xad(:), xbd(:)
    real, allocatable :: xas(:), xbs(:)
    complex, allocatable :: xac(:), xbc(:)
    complex(kind(1.0d0)), allocatable :: xaz(:), xbz(:)
    integer, allocatable :: xai(:), xbi(:)

    t = cfgtab(1, k)
    m = cfgtab(5, k)
    n = cfgtab(6, k)
    ia = cfgtab(7, k)
    ja = cfgtab(8, k)
    ib = cfgtab(9, k)
    jb = cfgtab(10, k)
    nw = nwords(t)
    zero = m == 0 .or. n == 0

    call make_grid(cfgtab(2, k), ctxa)
    if (cfgtab(3, k) == 0) then
       ctxb = ctxa
    else
       call make_grid(cfgtab(3, k), ctxb)
    end if
    if (cfgtab(4, k) == 0) then
       ctxg = ctxa
    else
       call make_grid(cfgtab(4, k), ctxg)
    end if

    mga = ia - 1 + m + cfgtab(19, k)
    nga = ja - 1 + n + cfgtab(19, k)
    mgb = ib - 1 + m + cfgtab(20, k)
    ngb = jb - 1 + n + cfgtab(20, k)
    rsa = cfgtab(15, k)
    csa = cfgtab(16, k)
    rsb = cfgtab(17, k)
    csb = cfgtab(18, k)
    call layout(ctxa, mga, nga, cfgtab(11, k), cfgtab(12, k), rsa, csa, &
         cfgtab(21, k), ina, pra, pca, mra, mca, lra, lca, llda)
    call layout(ctxb, mgb, ngb, cfgtab(13, k), cfgtab(14, k), rsb, csb, &
         cfgtab(21, k), inb, prb, pcb, mrb, mcb, lrb, lcb, lldb)
    desca = [cfgtab(22, k), ctxa, mga, nga, cfgtab(11, k), cfgtab(12, k), &
         rsa, csa, llda]
    descb = [cfgtab(22, k), ctxb, mgb, ngb, cfgtab(13, k), cfgtab(14, k), &
         rsb, csb, lldb]

    ! local arrays as words; at least one element (dummy on non-owners)
    nela = max(1, llda * lca)
    nelb = max(1, lldb * lcb)
    allocate(wa(nw * nela), wb(nw * nelb))
    call sent_words(t, 0, k, sa)
    call sent_words(t, 1, k, sb)
    do e = 0, nela - 1
       wa(e * nw + 1:e * nw + nw) = sa(1:nw)
    end do
    do e = 0, nelb - 1
       wb(e * nw + 1:e * nw + nw) = sb(1:nw)
    end do
    if (ina) then
       do lj = 0, lca - 1
          gj = l2g(lj, cfgtab(12, k), mca, csa, pca)
          do li = 0, lra - 1
             gi = l2g(li, cfgtab(11, k), mra, rsa, pra)
             call elem_words(t, gi, gj, k, w)
             e = lj * llda + li
             wa(e * nw + 1:e * nw + nw) = w(1:nw)
          end do
       end do
    end if
    allocate(wa0(size(wa)), wb0(size(wb)))
    wa0 = wa
    wb0 = wb
    if (zero) then
       ! M or N = 0: nothing may be read, not even gcontext
       desca = [-3, 99999, -1, 0, 0, -8, -9, -10, -11]
       descb = [777, -12345, 0, -1, 0, 0, 77, 77, -1]
       gcall = -1
    else
       gcall = ctxg
    end if

    select case (t)
    case (1)
       allocate(xad(nela), xbd(nelb))
       xad = transfer(wa, xad, nela)
       xbd = transfer(wb, xbd, nelb)
       call pdgemr2d(m, n, xad, ia, ja, desca, xbd, ib, jb, descb, gcall)
       wa = transfer(xad, wa, size(wa))
       wb = transfer(xbd, wb, size(wb))
       deallocate(xad, xbd)
    case (2)
       allocate(xas(nela), xbs(nelb))
       xas = transfer(wa, xas, nela)
       xbs = transfer(wb, xbs, nelb)
       call psgemr2d(m, n, xas, ia, ja, desca, xbs, ib, jb, descb, gcall)
       wa = transfer(xas, wa, size(wa))
       wb = transfer(xbs, wb, size(wb))
       deallocate(xas, xbs)
    case (3)
       allocate(xac(nela), xbc(nelb))
       xac = transfer(wa, xac, nela)
       xbc = transfer(wb, xbc, nelb)
       call pcgemr2d(m, n, xac, ia, ja, desca, xbc, ib, jb, descb, gcall)
       wa = transfer(xac, wa, size(wa))
       wb = transfer(xbc, wb, size(wb))
       deallocate(xac, xbc)
    case (4)
       allocate(xaz(nela), xbz(nelb))
       xaz = transfer(wa, xaz, nela)
       xbz = transfer(wb, xbz, nelb)
       call pzgemr2d(m, n, xaz, ia, ja, desca, xbz, ib, jb, descb, gcall)
       wa = transfer(xaz, wa, size(wa))
       wb = transfer(xbz, wb, size(wb))
       deallocate(xaz, xbz)
    case default
       allocate(xai(nela), xbi(nelb))
       xai = wa
       xbi = wb
       call pigemr2d(m, n, xai, ia, ja, desca, xbi, ib, jb, descb, gcall)
       wa = xai
       wb = xbi
       deallocate(xai, xbi)
    end select
    ncalls = ncalls + 1
    if (m == 0 .or. n == 0) nnowork = nnowork + 1

    ! A is never modified
    if (any(wa /= wa0)) then
       nfail = nfail + 1
       write (0, '(a,i0,a,i0,a)') 'FAIL cfg ', k, ' rank ', iam, &
            ': local A modified'
    end if
    ! B: sub(B) = sub(A), everything else unchanged
    bad = 0
    do lj = 0, lcb - 1
       gj = l2g(lj, cfgtab(14, k), mcb, csb, pcb)
       do li = 0, lldb - 1
          e = lj * lldb + li
          w(1:nw) = wb0(e * nw + 1:e * nw + nw)
          if (li < lrb .and. .not. zero) then
             gi = l2g(li, cfgtab(13, k), mrb, rsb, prb)
             si = gi - (ib - 1)
             sj = gj - (jb - 1)
             if (si >= 0 .and. si < m .and. sj >= 0 .and. sj < n) &
                  call elem_words(t, si + ia - 1, sj + ja - 1, k, w)
          end if
          if (any(wb(e * nw + 1:e * nw + nw) /= w(1:nw))) then
             if (bad < 5) write (0, '(a,i0,a,i0,a,i0,a,i0,a,4(1x,z8.8))') &
                  'FAIL cfg ', k, ' rank ', iam, ': B local (', li, ',', lj, &
                  ') got, expected words:', wb(e * nw + 1:e * nw + nw), w(1:nw)
             bad = bad + 1
          end if
       end do
    end do
    if (.not. inb .or. lldb * lcb == 0) then
       if (any(wb /= wb0)) bad = bad + 1   ! the dummy element
    end if
    if (bad > 0) then
       nfail = nfail + 1
       write (0, '(a,i0,a,i0,a,i0,a)') 'FAIL cfg ', k, ' rank ', iam, ': ', &
            bad, ' bad elements of B'
    end if

    h = [1, 7]
    call hash_words(wa, size(wa), h)
    call hash_words(wb, size(wb), h)
    deallocate(wa, wb, wa0, wb0)

    if (cfgtab(4, k) /= 0 .and. ctxg >= 0) call blacs_gridexit(ctxg)
    if (cfgtab(3, k) /= 0 .and. inb) call blacs_gridexit(ctxb)
    if (ina) call blacs_gridexit(ctxa)
  end subroutine run_cfg

end program gemr2d_fortran
