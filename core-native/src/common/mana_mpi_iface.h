/*
 * mana_mpi_iface.h - how the upper half's MPI library (src/mpi/, one build per MPI ABI) and the
 * checkpoint plugin (libmana.so, MPI-agnostic) work together.
 *
 * The MPI library's start-up finds mana_mpi_register() in libmana.so (preloaded, so always there
 * under the runtime) and hands over its hooks; it gets back the plugin's side: the words the
 * checkpoint signal handler and the wrappers share, the coordinator's reductions for the drains, and
 * the lower half's block.  mana_mpi_register is the only name libmana.so exports besides the libc
 * functions it interposes, and the MPI library looks it up in libmana.so alone (dlopen RTLD_NOLOAD of
 * its soname, then dlsym on that handle): a program's global of that name, or of any other of the
 * plugin's names, is never taken for the plugin's.
 *
 * Checkpoint (plugin.c do_checkpoint):   quiesce (user threads still run: collective drain)
 *                                        -> user threads stopped -> drain (p2p, by the checkpoint
 *                                        thread) -> image -> resume (or exit)
 * Restart (plugin.c after_restart):      restart (new real objects under the old virtual handles)
 */
#ifndef MANA_MPI_IFACE_H
#define MANA_MPI_IFACE_H

#include <stddef.h>
#include <stdint.h>

#include "mana/image_format.h"
#include "mana/phases.h"

struct lh_info;                   /* lh_info.h */

/* Coordinator reduction ops (as MNCP's COLLECTIVE op). */
#define MANA_RED_BARRIER 0
#define MANA_RED_SUM     1
#define MANA_RED_MAX     2
#define MANA_RED_OR      3
#define MANA_RED_MIN     4

/* The MPI section of an image: struct mana_img_mpi in mana/image_format.h (MANA_SEC_MPI). */

struct mana_mpi_hooks {
    /* Before the user threads stop, with them running: bring every communicator to the same
     * collective sequence number on all its members.  0, or -1 with err. */
    int (*quiesce)(uint32_t generation, char *err, size_t errlen);
    /* User threads stopped; the checkpoint thread may call MPI: drain point-to-point traffic. */
    int (*drain)(uint32_t generation, char *err, size_t errlen);
    /* Summary for the image's MPI section. */
    void (*describe)(struct mana_img_mpi *out);
    /* The checkpoint is over (committed or failed): user threads may use MPI again. */
    void (*resume)(void);
    /* After a restart, before user threads may call MPI: rebuild every object.  0, or -1 with err. */
    int (*restart)(uint32_t generation, char *err, size_t errlen);
    /* 1 once the program called MPI_Finalize (checkpoints are then skipped). */
    int (*finalized)(void);
    /* The image's MPI_OBJECTS records (image_format.h): each record, then its name, given to put
     * (which copies and pads it; NULL when the section is full).  Returns the number of records, or -1
     * when put failed.  Called after drain, with the user threads stopped. */
    int (*objects)(void *ctx, void *(*put)(void *ctx, const void *data, size_t len));
};

struct mana_plugin_iface {
    /* Tid of the thread that holds the lower half (inside a wrapper), 0 if none.  The signal
     * handler defers a checkpoint signal that lands on it; the wrapper re-raises on its way out. */
    volatile int *lower_owner;
    /* Set by the handler when it deferred; cleared by the wrapper that re-raises. */
    volatile int *deferred;
    const volatile int *ckpt_signal;   /* the current checkpoint signal (a restart may move it) */
    /* COLLECTIVE over the job (MANA_PHASE_*: the drain rounds and the free phases).  0, or -1 with err. */
    int (*reduce)(uint32_t generation, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err,
                  size_t errlen);
    /* Tid of the checkpoint thread (it passes the restart gate). */
    volatile int *ckpt_tid;
    /* Offset of the tid field in glibc's struct pthread (from pthread_self(), i.e. FS:0x10), found
     * once by the plugin (plugin.c: find_tid_offset); 0 if unknown. */
    const uint32_t *tid_offset;
    /* The plugin's pointer to the lower half's block (lh_info.h): set at launch from the environment,
     * rewritten by the restore code at restart. */
    struct lh_info *volatile *lh_info;
    /* 1 from just before a checkpoint's context is saved until the program runs again: after the write in
     * this process, and at the end of the restart sequence (the coordinator's barriers, the MPI layer's
     * restart hook) in a restarted one.  The MPI library's first call (mana_mpi_init_lazy) waits while it
     * is 1: a program checkpointed before its first MPI call runs on as soon as it is restored, and its
     * MPI_Init must not overtake the restart sequence (which would run the restart hook on the new MPI
     * state in the middle of the program's run).  Futex word. */
    volatile int *restarting;
};

/* In libmana.so (its soname: MANA_PLUGIN_SONAME). */
#define MANA_PLUGIN_SONAME "libmana.so"
struct mana_plugin_iface *mana_mpi_register(const struct mana_mpi_hooks *hooks);

#endif
