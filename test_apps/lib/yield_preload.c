/*
 * test_apps/lib/yield_preload.c - PMPI wrapper library for oversubscribed
 * test runs (more MPI ranks than cores).
 *
 * Why: MPICH ch4:ucx busy-polls inside blocking calls, so a rank waiting for
 * a message burns its whole time slice while the rank it waits for is not
 * scheduled.  Preloaded (LD_PRELOAD=.../yield_preload.so, after the shim if
 * any), every blocking point-to-point, wait and collective call used by the
 * tests, BLACS/ScaLAPACK and the shim becomes the nonblocking variant plus a
 * loop of PMPI_Test* and sched_yield().  Communicator constructors and
 * MPI_Finalize (blocking internal collectives we cannot split) are preceded
 * by an Ibarrier + yield loop so the ranks arrive together, and during
 * communicator construction a 100 us SIGALRM interval timer makes the rank
 * sched_yield() out of MPICH's internal spin loop (that is what makes BLACS
 * grid creation ~30x faster at 3-6 ranks on 2 cores).
 *
 * Semantics are unchanged for correct programs that use the preload on all
 * ranks.  Env: CS_YIELD_SLEEP_US=N sleeps N microseconds instead of
 * sched_yield() once a wait has spun for a while (default 0 = yield only);
 * CS_YIELD_TIMER=0 disables the SIGALRM timer.
 *
 * Built for Open MPI the library is empty: Open MPI has its own remedy,
 * mpi_yield_when_idle (on by itself when a node is oversubscribed, and set
 * for every check by cs_openmpi_env).  Measured: test_engine 200 cases on
 * 4 ranks, 2 cores: Open MPI 1.2-1.3 s with or without this preload, 7.5 s
 * with mpi_yield_when_idle 0; MPICH 8.2 s without it, 1.7 s with it.
 */
#include <mpi.h>

#ifndef OPEN_MPI
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static int sleep_us = -1;

static void backoff(unsigned long *spins)
{
    if (sleep_us < 0) {
        const char *e = getenv("CS_YIELD_SLEEP_US");
        sleep_us = e ? atoi(e) : 0;
        if (sleep_us < 0)
            sleep_us = 0;
    }
    if (sleep_us > 0 && ++*spins > 64) {
        struct timespec ts = {0, (long)sleep_us * 1000L};
        nanosleep(&ts, NULL);
    } else {
        sched_yield();
    }
}

static int wait1(MPI_Request *req, MPI_Status *st)
{
    unsigned long spins = 0;
    int flag = 0, rc = PMPI_Test(req, &flag, st);
    while (rc == MPI_SUCCESS && !flag) {
        backoff(&spins);
        rc = PMPI_Test(req, &flag, st);
    }
    return rc;
}

static int waitn(int n, MPI_Request *req, MPI_Status *st)
{
    unsigned long spins = 0;
    int flag = 0, rc = PMPI_Testall(n, req, &flag, st);
    while (rc == MPI_SUCCESS && !flag) {
        backoff(&spins);
        rc = PMPI_Testall(n, req, &flag, st);
    }
    return rc;
}

static void sync_comm(MPI_Comm comm)
{
    MPI_Request r;
    if (comm != MPI_COMM_NULL && PMPI_Ibarrier(comm, &r) == MPI_SUCCESS)
        wait1(&r, MPI_STATUS_IGNORE);
}

/*
 * Inside calls that block in MPICH's own progress loop (communicator
 * construction) a wall-clock interval timer makes the spinning rank call
 * sched_yield() from a signal handler every TICK_US microseconds.
 * CS_YIELD_TIMER=0 disables this.
 */
#define TICK_US 100
static int timer_on = -1;
static struct sigaction old_sa;

static void on_tick(int sig)
{
    (void)sig;
    sched_yield();
}

static void spin_guard_begin(void)
{
    if (timer_on < 0) {
        const char *e = getenv("CS_YIELD_TIMER");
        timer_on = !(e && !strcmp(e, "0"));
    }
    if (!timer_on)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old_sa);
    struct itimerval it = {{0, TICK_US}, {0, TICK_US}};
    setitimer(ITIMER_REAL, &it, NULL);
}

static void spin_guard_end(void)
{
    if (!timer_on)
        return;
    struct itimerval it = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &it, NULL);
    sigaction(SIGALRM, &old_sa, NULL);
}

/* ---- waits ---- */
int MPI_Wait(MPI_Request *req, MPI_Status *st) { return wait1(req, st); }

int MPI_Waitall(int n, MPI_Request req[], MPI_Status st[])
{
    return waitn(n, req, st);
}

int MPI_Waitany(int n, MPI_Request req[], int *idx, MPI_Status *st)
{
    unsigned long spins = 0;
    int flag = 0, rc = PMPI_Testany(n, req, idx, &flag, st);
    while (rc == MPI_SUCCESS && !flag) {
        backoff(&spins);
        rc = PMPI_Testany(n, req, idx, &flag, st);
    }
    return rc;
}

int MPI_Waitsome(int n, MPI_Request req[], int *outcount, int idx[],
                 MPI_Status st[])
{
    unsigned long spins = 0;
    int rc = PMPI_Testsome(n, req, outcount, idx, st);
    while (rc == MPI_SUCCESS && *outcount == 0) {
        backoff(&spins);
        rc = PMPI_Testsome(n, req, outcount, idx, st);
    }
    return rc;
}

/* ---- point to point ---- */
int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag,
             MPI_Comm comm, MPI_Status *st)
{
    MPI_Request r;
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : wait1(&r, st);
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dst, int tag,
             MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Isend(buf, count, dt, dst, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : wait1(&r, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dst, int tag,
              MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Issend(buf, count, dt, dst, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : wait1(&r, MPI_STATUS_IGNORE);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dst, int tag,
              MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Irsend(buf, count, dt, dst, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : wait1(&r, MPI_STATUS_IGNORE);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dst,
                 int stag, void *rbuf, int rcount, MPI_Datatype rdt, int src,
                 int rtag, MPI_Comm comm, MPI_Status *st)
{
    MPI_Request r[2];
    MPI_Status s[2];
    int rc = PMPI_Irecv(rbuf, rcount, rdt, src, rtag, comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Isend(sbuf, scount, sdt, dst, stag, comm, &r[1]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = waitn(2, r, s);
    if (st != MPI_STATUS_IGNORE)
        *st = s[0];
    return rc;
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    unsigned long spins = 0;
    int flag = 0, rc = PMPI_Iprobe(src, tag, comm, &flag, st);
    while (rc == MPI_SUCCESS && !flag) {
        backoff(&spins);
        rc = PMPI_Iprobe(src, tag, comm, &flag, st);
    }
    return rc;
}

/* ---- collectives ---- */
#define NB_COLL(call)                                                         \
    do {                                                                      \
        MPI_Request r_;                                                       \
        int rc_ = (call);                                                     \
        return rc_ != MPI_SUCCESS ? rc_ : wait1(&r_, MPI_STATUS_IGNORE);      \
    } while (0)

int MPI_Barrier(MPI_Comm comm) { NB_COLL(PMPI_Ibarrier(comm, &r_)); }

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    NB_COLL(PMPI_Ibcast(buf, count, dt, root, comm, &r_));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
               MPI_Op op, int root, MPI_Comm comm)
{
    NB_COLL(PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, comm, &r_));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                  MPI_Op op, MPI_Comm comm)
{
    NB_COLL(PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, &r_));
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
               int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    NB_COLL(PMPI_Igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm,
                         &r_));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                const int rcounts[], const int displs[], MPI_Datatype rdt,
                int root, MPI_Comm comm)
{
    NB_COLL(PMPI_Igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root,
                          comm, &r_));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    NB_COLL(PMPI_Iscatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm,
                          &r_));
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                 MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                 int root, MPI_Comm comm)
{
    NB_COLL(PMPI_Iscatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt,
                           root, comm, &r_));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                  int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    NB_COLL(PMPI_Iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, &r_));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rdt,
                   MPI_Comm comm)
{
    NB_COLL(PMPI_Iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                             comm, &r_));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                 int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    NB_COLL(PMPI_Ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, &r_));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                  MPI_Datatype sdt, void *rbuf, const int rcounts[],
                  const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
{
    NB_COLL(PMPI_Ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                            rdispls, rdt, comm, &r_));
}

int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                  const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                  const int rdispls[], const MPI_Datatype rdts[],
                  MPI_Comm comm)
{
    NB_COLL(PMPI_Ialltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                            rdispls, rdts, comm, &r_));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    NB_COLL(PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm,
                                       &r_));
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
             MPI_Op op, MPI_Comm comm)
{
    NB_COLL(PMPI_Iscan(sbuf, rbuf, count, dt, op, comm, &r_));
}

/* ---- blocking internal collectives: line the ranks up first ---- */
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    sync_comm(comm);
    spin_guard_begin();
    int rc = PMPI_Comm_create(comm, group, newcomm);
    spin_guard_end();
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    sync_comm(comm);
    spin_guard_begin();
    int rc = PMPI_Comm_dup(comm, newcomm);
    spin_guard_end();
    return rc;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    sync_comm(comm);
    spin_guard_begin();
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    spin_guard_end();
    return rc;
}

/* collective over the group only: no pre-sync possible, just the timer */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                          MPI_Comm *newcomm)
{
    spin_guard_begin();
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
    spin_guard_end();
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    sync_comm(comm);
    spin_guard_begin();
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    spin_guard_end();
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                        MPI_Comm *newcomm)
{
    sync_comm(comm);
    spin_guard_begin();
    int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
    spin_guard_end();
    return rc;
}

int MPI_Finalize(void)
{
    sync_comm(MPI_COMM_WORLD);
    return PMPI_Finalize();
}

#endif /* OPEN_MPI */
