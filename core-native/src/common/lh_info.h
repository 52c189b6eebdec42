/*
 * lh_info.h - the block of information the lower half publishes for the upper half.
 *
 * The lower half (bin/lower-half) owns this structure; it lives in lower-half memory and is never
 * saved in a checkpoint.  The upper half finds it:
 *   - at launch: through the environment variable MANA_LH_INFO_ADDR ("0x..." address);
 *   - at restart: the upper environment comes from the image, so the restore code writes the new
 *     block's address into the upper-half variable whose address the image records
 *     (PROCESS.lh_info_slot: libmana.so's `mana_lh_info`).
 *
 * Layout rules: only append fields; `size` tells a reader how much of it the writer knew.
 * The MPI issue fills the `mpi` part (MPI_Init result, function table, constants) without
 * reshaping the rest.
 */
#ifndef MANA_LH_INFO_H
#define MANA_LH_INFO_H

#include <stdint.h>

#define MANA_LH_MAGIC   0x4f464e49484c414eULL   /* "NALHINFO" little-endian */
#define MANA_LH_VERSION 3u

#define MANA_LH_F_RESTART 0x1u
#define MANA_DEFAULT_CKPT_SIGNAL 40   /* SIGRTMIN+6 on Linux/glibc */        /* this lower half restored an image */
#define MANA_MAX_INHERITED 128
#define MANA_MAX_THREADS_LH 4096          /* as MANA_MAX_THREADS of the plugin */

/* A half-open address range [start, end). */
struct mana_range {
    uint64_t start;
    uint64_t end;
};

/* Settings the launchers pass in the environment (see docs/architecture.md). */
struct mana_settings {
    char     coord_host[256];         /* MANA_COORD_HOST ("" = resolve) */
    int32_t  coord_port;              /* MANA_COORD_PORT (0 = resolve) */
    int32_t  ckpt_signal;             /* MANA_CKPT_SIGNAL, default MANA_DEFAULT_CKPT_SIGNAL */
    char     coord_secret[256];       /* MANA_COORD_SECRET */
    char     job[256];                /* MANA_JOB */
    char     ckpt_dir[4096];          /* MANA_CKPT_DIR (absolute; default: cwd) */
    uint32_t ckpt_interval;           /* MANA_CKPT_INTERVAL seconds, 0 = none */
    int32_t  debug;                   /* MANA_DEBUG */
    int32_t  timing;                  /* MANA_TIMING */
    int32_t  quiet;                   /* MANA_QUIET */
    int32_t  no_coord;                /* MANA_NO_COORD (debugging aid: no coordinator) */
    int32_t  rank;                    /* from OMPI_COMM_WORLD_RANK / PMI_RANK / PMIX_RANK / SLURM_PROCID */
    int32_t  nranks;                  /* 1 without MPI */
    int32_t  restart_pause;           /* MANA_RESTART_PAUSE / DMTCP_RESTART_PAUSE */
};

/* The MPI part, filled by a lower half built against an MPI (bin/lower-half-openmpi, -mpich) after
 * its MPI_Init_thread.  Everything here is lower-half code or memory: the upper half calls `resolve`
 * and the functions it returns only with the FS base switched to lh_fs_base (src/mpi/). */
#define MANA_MPI_NONE    0u
#define MANA_MPI_OPENMPI 1u
#define MANA_MPI_MPICH   2u
#define MANA_MAX_LOWER_TIDS 64
#define MANA_LOWER_FDS 512
#define MANA_RESTART_F_IO_REPLACED 0x1u   /* MANA_IO_REPLACED=1: MPI-IO files replaced since are accepted (io.c) */
struct mana_fd_id { uint64_t dev, ino; };
struct mana_lh_mpi {
    uint64_t resolve;                 /* void *(*)(const char *name): the real MPI's symbol, or 0 */
    uint32_t kind;                    /* MANA_MPI_* */
    int32_t  thread_provided;         /* what the real MPI_Init_thread granted */
    int32_t  world_size;
    int32_t  world_rank;
    uint64_t lh_fs_base;              /* lower-half TLS of the main thread */
    uint32_t n_lower_tids;            /* threads the MPI library started (never stopped, never saved) */
    int32_t  lower_tids[MANA_MAX_LOWER_TIDS];
    uint32_t fsgsbase;                /* 1: switch FS with wrfsbase (the kernel allows it: HWCAP2_FSGSBASE;
                                         MANA_NO_FSGSBASE=1 turns it off), 0: arch_prctl */
    uint32_t yield_waits;             /* 1: waiting loops give the CPU up every few polls (this node runs
                                         more ranks than the process may use CPUs; MANA_YIELD overrides) */
    uint64_t lower_exit;              /* void (*)(int): the lower libc's exit (its handlers run), called
                                         by the upper half's last exit handler (plugin.c) */
    uint64_t lower_fds[8];            /* bitmap of descriptors 0..511 the MPI library has open: those of
                                         MPI_Init, and those it opened since (lh_track.c: MPI-IO files...) */
};

struct lh_info {
    uint64_t magic;                   /* MANA_LH_MAGIC */
    uint32_t version;                 /* MANA_LH_VERSION */
    uint32_t size;                    /* sizeof(struct lh_info) of the writer */
    uint32_t flags;                   /* MANA_LH_F_* */
    uint32_t generation;              /* generation restored (0 at launch) */
    int64_t  start_ns;                /* CLOCK_MONOTONIC when the lower half started */

    struct mana_settings settings;

    /* Lower-half memory, so the upper half can classify /proc/self/maps without debug symbols.
     * Ranges are sorted by start and do not overlap. */
    struct mana_range *lh_ranges;
    uint32_t lh_range_count;
    uint32_t lh_range_cap;
    struct mana_range brk_guard;      /* the PROT_NONE page just past the kernel break */

    /* The upper half as the lower half laid it out at launch (kept in the image afterwards). */
    struct mana_range uh_stack;       /* stack given to the upper half (incl. its guard page) */
    uint64_t uh_entry;                /* upper ld.so entry point */
    uint64_t uh_ldso_base;            /* AT_BASE */
    uint64_t uh_app_base;             /* load bias of the application */
    int32_t  uh_argc;                 /* argc/argv as the upper half sees them (upper memory) */
    int32_t  pad0;
    uint64_t uh_argv;
    char     app_path[4096];          /* the application as resolved by the lower half */
    char     orig_ld_preload[4096];   /* the user's LD_PRELOAD ("" if none) */
    int32_t  had_ld_preload;
    int32_t  pad1;

    struct mana_lh_mpi mpi;
    uint64_t lower_fd_ids;            /* struct mana_fd_id[MANA_LOWER_FDS]: device and inode of each
                                         descriptor in mpi.lower_fds when it was marked (0: none kept) */
    uint64_t restart_flags;           /* MANA_RESTART_F_*: what the restart's environment asks of the
                                         upper half, whose own environment is the checkpoint's */
    uint64_t part_comm;               /* MPICH: the real duplicate of MPI_COMM_WORLD made right after
                                         MPI_Init, the hidden communicator of partitioned traffic
                                         (src/mpi/part.c); 0 where the MPI has no partitioned calls */
    /* Fault signals (fault_sig.h, lower-half/lh_sig.c).  fault_routed: bit s-1 when the kernel's
     * handler of signal s is the lower half's dispatcher (fault_dispatch, with fault_restorer); the
     * upper half then keeps the program's actions in its table at upper_fault_acts (struct
     * mana_fault_act[MANA_NSIG_TABLE], upper memory: saved with it), published at launch and again
     * after each restart. */
    uint64_t fault_routed;
    uint64_t fault_dispatch;
    uint64_t fault_restorer;
    uint64_t upper_fault_acts;
    uint64_t upper_fs_slot;           /* src/mpi's mana_up_fs: the upper TLS of the program's thread inside
                                         the lower half (its fault goes to the program's handler there) */
    uint64_t reserved[8];

    /* Descriptors above 2 that were open when the lower half started (inherited from the launcher). */
    uint32_t inherited_count;
    uint32_t pad2;
    struct mana_inherited_fd {
        int32_t  fd;
        uint32_t pad;
        uint64_t dev;
        uint64_t ino;
    } inherited[MANA_MAX_INHERITED];

    /* Version 3.  Who may use this block: MANA_LH_INFO_ADDR is "0xADDR:PID:TOKEN"; the plugin trusts
     * ADDR only in process PID (a child has another pid) and only when the block it reads there (with
     * a read that cannot fault) has the magic and this token (a program that exec'd another one
     * natively keeps its pid, not its memory).  Everything else stays out, silently. */
    int32_t  owner_pid;
    int32_t  exec_followed;           /* 1: started by following an exec of the previous program */
    uint64_t token;                   /* random, per lower half */
    uint32_t exec_generation;         /* exec_followed: the last generation of the program before */
    int32_t  had_glibc_tunables;      /* the user's GLIBC_TUNABLES before the runtime added rseq=0 */
    char     orig_glibc_tunables[4096];

    /* Restart: every restored thread's tid at the checkpoint and now (the main thread's is the pid),
     * so that mutexes that record their owner's tid keep working (plugin/mutexwrap.c). */
    uint32_t n_tid_map;
    uint32_t pad5;
    struct mana_tid_pair { int32_t old_tid, new_tid; } tid_map[MANA_MAX_THREADS_LH];

    /* MANA_COORD_RC: the status file that named the coordinator ("" = a flag or a variable did): a
     * rank that loses its coordinator follows this file to the next one (plugin.c, reconnect). */
    char     coord_rc[1024];
};

/* What an exec'ing upper half hands to the lower half that follows it (plugin/execwrap.c ->
 * lower-half/main.c), in a memfd named by MANA_LH_EXEC_FD. */
#define MANA_EXEC_SETTINGS_MAGIC 0x5845434558414e4dULL   /* "MNAXECEX" */
struct mana_exec_settings {
    uint64_t magic;
    uint32_t size;                    /* sizeof of the writer's struct */
    uint32_t generation;              /* last committed generation of the program before */
    struct mana_settings settings;
};

#endif
