/* plugin.h - internal interfaces of libmana.so (the upper-half plugin). */
#ifndef MANA_PLUGIN_H
#define MANA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <ucontext.h>

#include "lh_info.h"
#include "fault_sig.h"
#include "mana_ctx.h"
#include "mana_mpi_iface.h"
#include "mana/image_format.h"

#define MANA_MAX_THREADS 4096

/* libmana.so is preloaded into the program, behind the program itself in the symbol scope: any name it
 * exported would be taken over by a program's global of the same name (mana_pl, mana_err...).  So it is
 * built with -fvisibility=hidden and libmana.map, and exports only what is marked MANA_EXPORT (and listed
 * there): the libc functions it interposes and mana_mpi_register, the MPI library's way in. */
#define MANA_EXPORT __attribute__((visibility("default")))

/* What the checkpoint signal handler records for each suspended thread. */
struct mana_thr {
    volatile int tid;
    int      flags;             /* MANA_THR_* */
    uint64_t fs_base;
    ucontext_t *uc;             /* the signal frame on the thread's own stack */
    stack_t  altstack;
    uint64_t robust_head;
    uint64_t robust_len;
};

/* The upper-half variable whose address the image records (PROCESS.lh_info_slot). */
extern struct lh_info *volatile mana_lh_info;

/* The program's actions for the fault signals (sigwrap.c, fault_sig.h), and their publication in a
 * lower half's block (at launch, after a restart). */
extern struct mana_fault_act mana_fault_acts[];
void mana_fault_publish(struct lh_info *lh);
void mana_altstack_adopt(struct lh_info *lh);     /* sigwrap.c: the main thread's alternate stack in upper memory */
/* The fault signals the program's table answers for (bit s-1), 0 before it is published. */
uint64_t mana_fault_routed(void);

/* Plugin state the writer needs. */
struct mana_plugin {
    struct mana_settings cfg;           /* copy of the lower half's settings */
    char     app_path[4096];
    int      argc;
    char   **argv;
    uint32_t tid_offset;                /* tid field in glibc's struct pthread */
    struct mana_range uh_stack;
    uint64_t uh_entry;
    char    *scratch;                   /* writer's work area (never stored) */
    size_t   scratch_size;
    int      internal_fds[8];           /* descriptors the plugin owns (not saved) */
    int      n_internal_fds;
    struct mana_thr *thr;               /* suspended threads */
    int      n_thr;
    struct mana_ctx *ckpt_ctx;          /* the checkpoint thread's saved context */
    int      ckpt_tid;
    uint64_t ckpt_fs;
    uint32_t generation;
    uint32_t n_inherited;               /* launcher's descriptors (launch and every restart) */
    struct mana_inherited_fd inherited[MANA_MAX_INHERITED];
    const struct mana_mpi_hooks *mpi;   /* the MPI library's hooks (NULL: no MPI) */
};
extern struct mana_plugin mana_pl;

struct mana_write_result {
    uint64_t file_bytes;
    uint64_t stored_bytes;
    uint64_t mapped_bytes;
    uint64_t inherited_bytes;           /* incremental: bytes of pages left to the parent */
    uint32_t regions;
    uint32_t header_crc;                /* the image's, for a child's PARENT record */
    int      incremental;               /* the image written is incremental (a request can end up full) */
    int      zstd_threads;              /* threads that compressed it (0: not compressed) */
    int64_t  ns;
};

/* What kind of image to write (incremental checkpoints: docs/image-format.md). */
struct mana_incr {
    int incremental;                    /* a generation of a chain on `parent`: unchanged pages left out */
    int untracked;                      /* incremental was asked for; the kernel cannot track: flag the image */
    int protect;                        /* write-protect each stored region as it is read (dirty.c) */
    struct mana_img_parent parent;      /* for incremental */
    const char *parent_name;            /* file name of the parent, in the same folder */
};

/* Write the image of this process to path (already-suspended threads). 0, or -1 with err.  `inc` NULL:
 * a full image without tracking. */
int mana_write_image(const char *path, uint32_t generation, const struct mana_incr *inc,
                     struct mana_write_result *res, char *err, size_t errlen);

/* Forked checkpoints (MANA_FORKED): the writer process's result, on a page it shares with the program. */
struct mana_fork_shared {
    int done;                           /* 1 written, 2 failed (err) */
    struct mana_write_result res;
    char err[512];
};
struct mana_fork_writer {
    int pid;                            /* the writer process; 0: the image was written here (why) */
    struct mana_fork_shared *shared;
    char why[256];                      /* why it was not forked */
};
/* Take what the image needs from the stopped program, then start a writer process for the rest and
 * return (fw->pid set): the caller resumes the program, then waits with mana_fork_writer_wait.  Where
 * a writer process could not copy the program faithfully the image is written here (fw->pid 0). */
int mana_write_image_forked(const char *path, uint32_t generation, struct mana_write_result *res,
                            struct mana_fork_writer *fw, char *err, size_t errlen);
/* Wait for the writer: 0 with its result, or -1 and why (its error, a signal that killed it). */
int mana_fork_writer_wait(struct mana_fork_writer *fw, struct mana_write_result *res, char *err, size_t errlen);

/* dirty.c: written-page tracking (userfaultfd write-protect, asynchronous). */
int mana_dirty_start(char *why, size_t len);       /* 0, or -1 and why */
int mana_dirty_register(uint64_t start, uint64_t end);   /* 0, or -1: the range stays untracked */
int mana_dirty_protect(uint64_t start, uint64_t end);    /* write-protect a registered range */
int mana_dirty_fd(void);
void mana_dirty_forget(void);
/* pagemap bit 57: the page is still write-protected, i.e. unchanged since the last checkpoint */
#define MANA_PM_UFFD_WP (1ULL << 57)

/* timers.c: POSIX timers' time left, at a checkpoint; re-created in a restarted process. */
void mana_timers_snapshot(void);
void mana_timers_restarted(void);

/* mutexwrap.c: take in the old->new tid map of a restart. */
void mana_mutex_restarted(void);

/* env.c: the lh_info this process may use (validated), or NULL; puts the user's environment back. */
struct lh_info *mana_env_claim_lh_info(void);
const char *mana_env_get(const char *name);
void mana_env_unset(const char *name);
/* Read len bytes at addr without faulting: 0, or -1 where that memory is not readable. */
int mana_safe_read(uint64_t addr, void *buf, size_t len);

/* Active, and this is the launched process itself (not a forked or vfork child): plugin.c. */
int mana_plugin_active(void);

#endif
