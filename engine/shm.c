/*
 * engine/shm.c - the send buffer that processes on the same node read
 * directly: an MPI-3 shared-memory window over the node's processes of
 * MPI_COMM_WORLD, one segment per process.
 *
 * RATIONALE: a package sent through MPI is copied three times (packed,
 * copied by MPI into the receiver, unpacked); when the receiver can read
 * the sender's packed buffer itself, MPI's copy disappears.  Measured
 * (pdtran 4000 x 4000 on 2 ranks, CI machine, same run): 13.4-13.8 ->
 * 10.8-11.1 ms, a = 2, b = 3 18.0-19.9 -> 15.1-16.9 ms.
 *
 * The window is created and grown collectively, only at points where
 * every process of MPI_COMM_WORLD takes part (cs_eng_shm_grow); between
 * growths it is only read and written.  One of the project's named
 * registries.  Not thread-safe: the shim uses it only below
 * MPI_THREAD_MULTIPLE, where one call runs at a time in a process.
 *
 * Every step that can fail on one process is agreed on before the next
 * collective: a process whose window or segment table could not be made
 * tells the others in the same reduction, and all of the node drop the
 * window together, so the state stays the same on every process of a
 * node.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>

#include "engine/engine_int.h"

static struct {
    int state;            /* 0: not set up, 1: window exists, -1: off */
    int have_node;        /* node and node_group exist */
    MPI_Comm node;        /* the world's processes on this node */
    MPI_Group node_group;
    MPI_Win win;
    char *mine;           /* this process's segment */
    int64_t size;         /* its bytes */
    char **base;          /* every node process's segment, mapped here */
    int64_t credit;       /* bytes sent through MPI that could have waited
                           * in a shared buffer (cs_eng_shm_count) */
} cs_eng_shm;

/* Page size for the faults taken when a segment is created. */
#define CS_ENG_SHM_PAGE 4096

/*
 * Bytes after each segment, so that the next process's segment starts on
 * its own cache line.  RATIONALE: segments are allocated contiguously, and
 * with a size that is not a multiple of the page: where every size is
 * page-aligned (or segments are asked for non-contiguously) MPICH 4.0
 * first tries to map the window at the same address in every process, and
 * probes each candidate range with one msync per 4 KiB page: 36 MiB took
 * 63-71 ms, with this padding 0.2-0.6 ms (2 ranks, CI machine).
 */
#define CS_ENG_SHM_PAD 64

/* Linux 5.14's madvise advice, for older headers; older kernels refuse it
 * (EINVAL) and the pages are touched one by one instead. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * RATIONALE: shared memory gets no huge pages here, and a fault per 4 KiB
 * page costs about 23 us on the CI machine (a virtual machine).  One
 * madvise that populates the whole segment is cheaper, although the first
 * store to each page still costs more than later ones there: 32 MiB in a
 * tmpfs file, touching every page then writing it all: 90-96 + 0.9-1.6 ms;
 * populating then writing: 7.7-8.7 + 37 ms (same runs).  Readers of the
 * segment fault their own mappings as they read (populating those with
 * MADV_POPULATE_READ saved nothing: 34-40 ms either way for 32 MiB).
 */
static void shm_populate(char *p, int64_t len)
{
    /* from the page that holds p (shared with the previous segment, whose
     * bytes populating does not change) */
    char *lo = (char *)((uintptr_t)p & ~(uintptr_t)(CS_ENG_SHM_PAGE - 1));
    size_t n = (size_t)(p + len - lo);
    if (len <= 0 || madvise(lo, n, MADV_POPULATE_WRITE) == 0) {
        return;
    }
    for (int64_t o = 0; o < len; o += CS_ENG_SHM_PAGE) {
        ((volatile char *)p)[o] = 0;
    }
}

void cs_eng_shm_count(int64_t bytes)
{
    cs_eng_shm.credit += bytes;
}

int cs_eng_shm_pays(int64_t bytes)
{
    return cs_eng_shm.credit / CS_ENG_SHM_PAYBACK >= bytes;
}

int64_t cs_eng_shm_size(void)
{
    return cs_eng_shm.state == 1 ? cs_eng_shm.size : 0;
}

char *cs_eng_shm_mine(void)
{
    return cs_eng_shm.state == 1 ? cs_eng_shm.mine : NULL;
}

static void shm_drop(void)
{
    if (cs_eng_shm.state == 1) {
        MPI_Win_unlock_all(cs_eng_shm.win);
        MPI_Win_free(&cs_eng_shm.win);
        free(cs_eng_shm.base);
        cs_eng_shm.base = NULL;
        cs_eng_shm.mine = NULL;
        cs_eng_shm.size = 0;
        cs_eng_shm.state = 0;
    }
}

/* 1 when want bytes per process of the node fit the shared-memory file
 * system (MPICH maps its windows from /dev/shm): a window past its end
 * would fail with SIGBUS on first touch instead of an error. */
static int shm_fits(int64_t want)
{
    int64_t total = 0, mine = want;
    MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, cs_eng_shm.node);
    struct statvfs fs;
    int ok = statvfs("/dev/shm", &fs) == 0 &&
             (int64_t)fs.f_bavail * (int64_t)fs.f_frsize / 2 >= total;
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, cs_eng_shm.node);
    return all;
}

int64_t cs_eng_shm_grow_size(int64_t bytes)
{
    /* headroom so slowly growing calls do not rebuild it each time */
    int64_t want = bytes + bytes / 8;
    if (want < cs_eng_shm_size()) {
        want = cs_eng_shm_size();
    }
    return (want + CS_ENG_SHM_PAGE - 1) / CS_ENG_SHM_PAGE * CS_ENG_SHM_PAGE;
}

int cs_eng_shm_grow(int64_t bytes, int test_fail)
{
    if (cs_eng_shm.state < 0) {
        return 0; /* the same on every process of this node */
    }
    if (!cs_eng_shm.have_node) {
        if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL,
                                &cs_eng_shm.node) != MPI_SUCCESS) {
            cs_eng_shm.state = -1;
            return 0;
        }
        MPI_Comm_group(cs_eng_shm.node, &cs_eng_shm.node_group);
        cs_eng_shm.have_node = 1;
        MPI_Comm_set_errhandler(cs_eng_shm.node, MPI_ERRORS_RETURN);
    }
    int64_t want = cs_eng_shm_grow_size(bytes);
    if (!shm_fits(want)) {
        return cs_eng_shm.state == 1; /* keep what there is */
    }
    shm_drop();
    int n = 0;
    MPI_Comm_size(cs_eng_shm.node, &n);
    /* what can fail here fails before the window, and is agreed with it */
    char **base = test_fail ? NULL : malloc((size_t)n * sizeof(char *));
    char *mine = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int made = MPI_Win_allocate_shared((MPI_Aint)(want + CS_ENG_SHM_PAD), 1,
                                       MPI_INFO_NULL, cs_eng_shm.node, &mine,
                                       &win) == MPI_SUCCESS;
    int ok = made && base, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, cs_eng_shm.node);
    if (!all) {
        /* off for good on the whole node; a window made is freed by every
         * process that made it (all of them, or MPI failed collectively) */
        if (made) {
            MPI_Win_free(&win);
        }
        free(base);
        cs_eng_shm.state = -1;
        return 0;
    }
    for (int r = 0; r < n; r++) {
        MPI_Aint sz = 0;
        int du = 0;
        MPI_Win_shared_query(win, r, &sz, &du, (void *)&base[r]);
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    /* the faults of a new segment are taken here, not inside a call */
    shm_populate(mine, want);
    cs_eng_shm.win = win;
    cs_eng_shm.base = base;
    cs_eng_shm.mine = mine;
    cs_eng_shm.size = want;
    cs_eng_shm.state = 1;
    return 1;
}

char *cs_eng_shm_peer(MPI_Comm comm, int peer)
{
    if (cs_eng_shm.state != 1) {
        return NULL;
    }
    MPI_Group g;
    int nr = MPI_UNDEFINED;
    MPI_Comm_group(comm, &g);
    MPI_Group_translate_ranks(g, 1, &peer, cs_eng_shm.node_group, &nr);
    MPI_Group_free(&g);
    return nr == MPI_UNDEFINED ? NULL : cs_eng_shm.base[nr];
}

void cs_eng_shm_sync(void)
{
    if (cs_eng_shm.state == 1) {
        MPI_Win_sync(cs_eng_shm.win);
    }
}

void cs_eng_shm_release(void)
{
    shm_drop();
    if (cs_eng_shm.have_node) {
        MPI_Group_free(&cs_eng_shm.node_group);
        MPI_Comm_free(&cs_eng_shm.node);
        cs_eng_shm.have_node = 0;
    }
    cs_eng_shm.state = 0;
}
