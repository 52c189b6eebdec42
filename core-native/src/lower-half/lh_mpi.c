/*
 * lh_mpi.c - the MPI part of a lower half (bin/lower-half-openmpi, bin/lower-half-mpich).
 *
 * Built once per MPI ABI against that MPI's real library.  Before the upper half exists (launch) or
 * once its address ranges are reserved (restart), lh_mpi_init() initializes the real MPI here, in
 * the lower half, and publishes in mana_lh.mpi what the upper half's MPI library (src/mpi/) needs:
 * a resolver for the real entry points, the lower TLS to switch to, rank and size, and the threads
 * the MPI library started for itself (they belong to the lower half: never stopped, never saved).
 */
#define _GNU_SOURCE
#include "lower_half.h"
#include "mana_sys.h"
#include "mana_util.h"

#include <mpi.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/auxv.h>
#include <unistd.h>

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

#ifdef OPEN_MPI
const char lh_mpi_name[] = "openmpi";
#define KIND MANA_MPI_OPENMPI
#else
const char lh_mpi_name[] = "mpich";
#define KIND MANA_MPI_MPICH
#endif

/* The real symbol by name: the upper half's MPI library resolves every entry point and predefined
 * object through this (it runs on the lower TLS). */
static void *lh_mpi_resolve(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

/* The process's exit, called by the upper half's last exit handler (plugin.c, at_exit_final) on the
 * lower TLS: the lower libc runs the lower half's exit handlers and destructors, then ends the process. */
static void lh_mpi_exit(int status)
{
    exit(status);
}

/* One of those handlers, the lower half's own: under MANA_DEBUG it says that they ran (tests check it). */
static void lh_mpi_at_exit(int status, void *arg)
{
    (void)arg;
    mana_dbg("the lower half's exit handlers run (exit status %d)", status);
}

/* Descriptors MPI_Init opened (sockets, pipes, shared memory): the lower half's, never saved.  Those it
 * opens later are marked as it opens them (lh_track.c). */
static void record_lower_fds(const unsigned char *before)
{
    unsigned char now[MANA_LOWER_FDS / 8] = { 0 };
    DIR *d = opendir("/proc/self/fd");
    if (!d) return;
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == self || fd < 3 || fd >= MANA_LOWER_FDS) continue;
        if (before[fd / 8] & (1u << (fd % 8))) continue;
        now[fd / 8] |= (unsigned char)(1u << (fd % 8));
    }
    closedir(d);
    /* after closedir: the directory's own descriptor may have been marked by the open hook */
    memset(mana_lh.mpi.lower_fds, 0, sizeof mana_lh.mpi.lower_fds);
    for (int fd = 0; fd < MANA_LOWER_FDS; fd++)
        if (now[fd / 8] & (1u << (fd % 8))) lh_fd_mark(fd);
}

static void open_fds(unsigned char *map)
{
    memset(map, 0, 64);
    for (int fd = 0; fd < 512; fd++)
        if (fcntl(fd, F_GETFD) >= 0) map[fd / 8] |= (unsigned char)(1u << (fd % 8));
}

static void record_lower_tids(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    int self = mana_gettid();
    struct dirent *e;
    mana_lh.mpi.n_lower_tids = 0;
    while ((e = readdir(d)) != NULL && mana_lh.mpi.n_lower_tids < MANA_MAX_LOWER_TIDS) {
        int tid = atoi(e->d_name);
        if (tid > 0 && tid != self) mana_lh.mpi.lower_tids[mana_lh.mpi.n_lower_tids++] = tid;
    }
    closedir(d);
}

/* Whether the upper half's waiting loops should yield: MANA_YIELD=1 or 0 says so; else yes where this node
 * runs more ranks of the job than the CPUs they may use between them.  There a polling rank holds a CPU its
 * partner needs until the scheduler's slice ends (4 MPICH ranks on 2 CPUs: 0.5 s a step of heat_mpi instead
 * of 0.1 s); elsewhere a yield only lets other programs' work in ahead of the message (a round trip beside
 * two spinning processes: 36 us polling, 128 us yielding).  The CPUs are the union of the node's ranks'
 * affinity masks: Open MPI's mpirun binds each of 2 ranks to a core of its own, and one rank's mask alone
 * (1 CPU) made every such job yield.  Asked afresh at every restart. */
static uint32_t yield_waits(void)
{
    const char *env = getenv("MANA_YIELD");
    if (env && *env) return strcmp(env, "0") != 0;
    cpu_set_t mine, all;
    CPU_ZERO(&mine);
    int have = sched_getaffinity(0, sizeof mine, &mine) == 0;
    int ncpu = 0, local = 1;
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        /* the union: the masks' bytes OR-ed together (MPI_BOR is defined on MPI_BYTE); a rank that could
         * not read its mask adds none, which can only make the node look busier */
        if (MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BOR, node) == MPI_SUCCESS)
            ncpu = CPU_COUNT(&all);
        MPI_Comm_free(&node);
    }
    if (ncpu <= 0 && have) ncpu = CPU_COUNT(&mine);      /* no union: this rank's own */
    if (ncpu <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        ncpu = n > 0 ? (int)n : 1;
    }
    mana_dbg("%d rank(s) of the job on this node, %d CPU(s) between them: waits %s", local, ncpu,
             local > ncpu ? "yield" : "poll");
    return local > ncpu;
}

int lh_mpi_init(void)
{
    int64_t t0 = mana_now_ns();
    /* Later mappings of the MPI library are the lower half's (lh_track.c).  UCX (MPICH's ch4:ucx)
     * would otherwise rewrite mmap itself and bypass the patched entry points. */
    if (lh_track_install() != 0) return -1;
    lh_track_start();
    unsigned char before[64];
    open_fds(before);
    int provided = 0;
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
        mana_err("MPI_Init_thread failed in the lower half (%s, error %d)", lh_mpi_name, rc);
        return -1;
    }
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t fs = 0;
    mana_sys2(SYS_arch_prctl, ARCH_GET_FS, (long)&fs);
    mana_lh.mpi.resolve = (uint64_t)lh_mpi_resolve;
    mana_lh.mpi.kind = KIND;
    mana_lh.mpi.thread_provided = provided;
    mana_lh.mpi.world_size = size;
    mana_lh.mpi.world_rank = rank;
    mana_lh.mpi.lh_fs_base = fs;
    mana_lh.mpi.lower_exit = (uint64_t)lh_mpi_exit;
#if MPI_VERSION >= 4
    /* The hidden communicator of partitioned communication (src/mpi/part.c): made here, at launch and
     * at every restart, where every rank makes it at the same point before any program code runs. */
    MPI_Comm part_comm = MPI_COMM_NULL;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &part_comm);
    if (rc != MPI_SUCCESS) {
        mana_err("MPI_Comm_dup failed in the lower half (%s, error %d)", lh_mpi_name, rc);
        return -1;
    }
    mana_lh.part_comm = (uint64_t)(uint32_t)part_comm;
#endif
    on_exit(lh_mpi_at_exit, NULL);
    /* Asked afresh by every lower half, launch or restart: an image may restart on another CPU. */
    const char *nofs = getenv("MANA_NO_FSGSBASE");
    mana_lh.mpi.fsgsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) && !(nofs && *nofs && strcmp(nofs, "0") != 0);
    mana_lh.mpi.yield_waits = yield_waits();
    record_lower_tids();
    record_lower_fds(before);
    lh_track_fds(1);
    mana_lh.settings.rank = rank;
    mana_lh.settings.nranks = size;
    mana_dbg("MPI (%s) initialized in the lower half: rank %d of %d, thread level %d, %u MPI thread(s), FS "
             "switched by %s", lh_mpi_name, rank, size, provided, mana_lh.mpi.n_lower_tids,
             mana_lh.mpi.fsgsbase ? "wrfsbase" : "arch_prctl");
    mana_timing("lower-half MPI_Init_thread", mana_now_ns() - t0);
    return 0;
}
