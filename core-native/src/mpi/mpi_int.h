/*
 * mpi_int.h - internals of the upper half's MPI library (lib/mana/<mpi>/libmpi.so.40 or
 * libmpich.so.12), compiled once per ABI against that MPI's own mpi.h.
 *
 * The application calls these functions believing they are its MPI.  Each one translates the
 * virtual handles the application holds into the real handles of the lower half's MPI, switches
 * the FS base to the lower half's TLS, calls the real function, switches back and translates the
 * results.  Virtual handles stay valid across a restart: the objects behind them are rebuilt from
 * their recipes (replay.c) under the same virtual value.
 *
 * Virtual handles
 *   Open MPI  handles are pointers.  A virtual handle is the address of a `struct vobj` in this
 *             library's table, or of one of the predefined objects the stub defines
 *             (ompi_mpi_comm_world, ompi_mpi_int, ...).  Both hold the real handle in their first
 *             8 bytes, so translation is one load.
 *   MPICH     handles are ints.  Built-in handles (kind bits 01) and the NULL handles are the same
 *             in both halves and pass through; a virtual handle is the kind's NULL value with the
 *             table index in its low 26 bits (MPICH's own handles always have kind bits 10 or 11,
 *             and those pass through too: its predefined pair types MPI_DOUBLE_INT... are direct).
 *
 * Fortran handles (convert.c)
 *   Open MPI  MPI_X_c2f of an object of ours is MANA_F_BASE + its table index, so the Fortran value
 *             is the same after a restart; a predefined object keeps the real library's value (small
 *             numbers, below MANA_F_BASE), and f2c of such a value asks the real library and maps the
 *             result back to the predefined object.
 *   MPICH     c2f/f2c are casts in mpi.h: the virtual handle is its own Fortran handle.
 * The MPIs' own Fortran libraries (libmpi_mpifh and libmpi_usempif08, libmpichfort) run in the upper
 * half unchanged and call this library's PMPI_ functions; what else they take from the C library
 * (Open MPI's fields of a C handle and internal helpers, MPICH's attribute entry points and the F08
 * status sentinels) is fortran.c's.
 *
 * Keyvals (attr.c) are ints of our own (MANA_KV_BASE + slot).  Attributes, keyvals and the contents
 * of info objects live in the upper half only: they are in the image, and the replay has nothing to
 * do but give an info the new real MPI_INFO_NULL.  User error handlers (errh.c): every communicator
 * with one has the same real error handler in the lower half, whose function only notes
 * (communicator, code); lower_leave sees the note and runs the program's handler once the thread is
 * back on its own TLS and no longer owns the lower half.
 */
#ifndef MANA_MPI_INT_H
#define MANA_MPI_INT_H

#define _GNU_SOURCE
/* What the program may see of this library is the MPI ABI and nothing else: it is built with
 * -fvisibility=hidden and linked with a version script that api/gen_stub.py writes from the real library's
 * own exports (CMakeLists.txt), so every name below (lower, real, vtab, vnew, coll_enter...) is local and
 * a program's global of the same name cannot take it over.  mpi.h declares the API: its declarations are
 * given default visibility, so the wrappers' definitions of them are exported; MANA_ABI marks the few
 * exported definitions mpi.h does not declare (MPICH's MPIR_Dup_fn). */
#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop
#define MANA_ABI __attribute__((visibility("default")))

/* Large counts (MPI 4.0's "_c" functions; here MPICH 4.0 exports them, Open MPI 4.1 does not).  The
 * point-to-point engine keeps every count as MPI_Count and, where the real library has the _c
 * functions, always calls those: a program's MPI_Send and MPI_Send_c take the same path, and a
 * message the drain buffers may be larger than 2 GiB.  REAL_C(Isend) names whichever exists. */
#if MPI_VERSION >= 4
#define MANA_HAVE_C 1
#define REAL_C(fn) real.fn##_c
typedef MPI_Count mana_cnt;   /* what the real library's counts, sizes and positions are */
#else
#define REAL_C(fn) real.fn
typedef int mana_cnt;
#endif
#include <stddef.h>
#include <stdint.h>

#include "lh_info.h"
#include "mana_mpi_iface.h"
#include "mana_sys.h"
#include "real_fns.h"

/* ---- the program's entry points ----
 * Each wrapper is defined as PMPI_n; ALIAS(n) after it makes MPI_n a weak alias, as an MPI library does, so
 * a profiling tool's MPI_n still reaches ours through PMPI_n. */
#define ALIAS(n) extern __typeof__(PMPI_##n) MPI_##n __attribute__((weak, alias("PMPI_" #n)));

/* ---- the real entry points ----
 * real_fns.h is generated per ABI into the build tree (api/gen_real.py): every function the wrappers
 * call, as an X-macro list, so the table and its resolution (core.c) cannot drift apart. */
#define MANA_DECL_REAL(n) __typeof__(PMPI_##n) *n;
struct mana_real { MANA_REAL_FNS(MANA_DECL_REAL) };
extern struct mana_real real;

/* ---- virtual objects ---- */
enum vkind { K_FREE = 0, K_COMM, K_GROUP, K_TYPE, K_OP, K_REQ, K_ERRH, K_INFO, K_MSG,
             K_ERRCODE, /* an added error class, code or string (errh.c): a recipe, no handle */
             K_FILE,    /* an MPI-IO file (io.c): its handle is the entry's address, for both MPIs */
             K_WIN      /* an RMA window (win.c): Open MPI's handle is the entry's address, MPICH's is
                         * MPI_WIN_NULL's kind bits with the table index, like the other kinds */ };

#define VF_PREDEF   0x01u     /* predefined (MPI_COMM_WORLD...): never replayed */
#define VF_ZOMBIE   0x02u     /* freed by the program, kept because another recipe names it */
#define VF_PARENT   0x04u     /* named by another object's recipe */
#define VF_DONE     0x08u     /* request completed by the checkpoint's drain: status below */
#define VF_COMMITTED 0x10u    /* datatype committed */
#define VF_INTERNAL 0x20u     /* request made by a blocking wrapper, not the program */
#define VF_POSTED   0x40u     /* request handed to the real MPI (set in the same lower-half excursion) */
#define VF_COUNTED  0x80u     /* send counted in p2p_sent (idem: a stopped thread never leaves a
                               * message counted but not sent, or sent but not counted) */
#define VF_PERSIST  0x100u    /* persistent request (MPI_Send_init...): outlives its completions */
#define VF_ACTIVE   0x200u    /* persistent request started and not yet completed */
#define VF_CANCELING 0x400u   /* the program cancelled it: its completion may have moved no message */
#define VF_FOPEN    0x800u    /* file open (set and cleared in the excursion that opens or closes it) */
#define VF_FSHARED  0x1000u   /* file whose shared pointer the program used (io.c) */
#define VF_FILE_PARENT 0x2000u /* communicator a file was opened on: a zombie of it outlives the replay
                               * until the files' pointers are back (io.c) */
#define VF_FFACE    0x4000u   /* Open MPI: the communicator's Fortran face is written (fortran.c) */
#define VF_WOPEN    0x8000u   /* window alive (set and cleared in the excursion that creates or frees it) */
#define VF_PART     0x10000u  /* partitioned request (part.c): a persistent one on the hidden communicator */
#define VF_CFREED   0x20000u  /* communicator the program freed (cfree.c): a zombie whose real one is freed,
                               * still counted by the drains until every rank of its call is done with it */

/* How an object was made, for the replay at restart. */
enum recipe {
    R_NONE = 0,
    R_COMM_DUP, R_COMM_SPLIT, R_COMM_CREATE, R_COMM_SPLIT_TYPE, R_CART_CREATE, R_CART_SUB,
    R_GROUP_WORLD_RANKS,
    R_TYPE_CONTIGUOUS, R_TYPE_VECTOR, R_TYPE_HVECTOR, R_TYPE_INDEXED, R_TYPE_INDEXED_BLOCK,
    R_TYPE_HINDEXED, R_TYPE_STRUCT, R_TYPE_SUBARRAY, R_TYPE_RESIZED, R_TYPE_DUP,
    R_OP_CREATE,
    /* info.c, errh.c, topo.c, dtype.c */
    R_INFO, R_ERRH_USER, R_ERR_CLASS, R_ERR_CODE, R_ERR_STRING,
    R_GRAPH_CREATE, R_DIST_GRAPH, R_DIST_GRAPH_ADJ, R_COMM_CREATE_GROUP,
    R_TYPE_DARRAY, R_TYPE_HINDEXED_BLOCK, R_TYPE_F90,
    /* intercomm.c */
    R_INTERCOMM_CREATE, R_INTERCOMM_MERGE,
    /* io.c */
    R_FILE_OPEN,
    /* win.c: MPI_Win_create, _allocate (made with Win_create on our memory) and _create_dynamic */
    R_WIN_CREATE,
    /* dtype.c: a handle MPI_Type_get_contents gave, the same type as a[1] (not a dup of it) */
    R_TYPE_CONTENTS,
};
/* a[7] of a datatype or an op made by a large-count (_c) constructor of MPI 4 (dtype_c.c, objects.c):
 * the replay calls that one again, with the MPI_Count values a[] and arr hold whole (dtype_c.c says
 * each recipe's layout).  a[7] because the int recipes use a[0..4] and no datatype or op uses a[7]. */
#define RECIPE_LARGE 0x4c43

/* Requests: what the program asked for, so a pending one can be posted again after a restart. */
enum rkind { RQ_SEND = 1, RQ_SSEND, RQ_RSEND, RQ_BSEND, RQ_RECV, RQ_COLL,
             RQ_MRECV,    /* MPI_Imrecv of a matched message: never posted again (its message is gone) */
             RQ_BSENT,    /* the send behind an MPI_Bsend (bsend.c): internal, owns attached-buffer space */
             RQ_SENDRECV, /* MPI_Isendrecv(_replace): done when its two parts are (a[4], a[5]: their
                           * table indices; arr: the _replace form's receive buffer) */
             RQ_PCOLL,    /* persistent collective (pcoll.c): each MPI_Start posts its nonblocking twin */
             RQ_GREQ,     /* generalized request (greq.c): upper half only, done when the program says so */
             RQ_FILE,     /* MPI-IO request (io.c): completed by the drain like RQ_COLL, never posted again */
             RQ_RMA };    /* request-based RMA (MPI_Rput...: win.c): completed by the window drain, after
                           * the flushes, never posted again */

struct vobj {
    uint64_t real;            /* the real handle: MUST stay first (see above) */
    uint16_t kind;            /* enum vkind */
    uint16_t recipe;          /* enum recipe */
    uint32_t flags;           /* VF_* */
    uint32_t idx;             /* index in the table */
    uint32_t nparents;
    uint64_t order;           /* creation order: the replay order */
    struct vobj *parent[2];   /* objects the recipe names */
    int64_t  a[8];            /* scalar arguments of the recipe */
    void    *arr;             /* array arguments of the recipe (malloc'd, upper half) */
    size_t   arr_len;
    /* communicators */
    uint64_t gid;             /* the same on every member: hash of how it was made */
    uint64_t seq;             /* collectives started on it */
    uint64_t target;          /* drain: the sequence number every member must reach */
    uint64_t cm_epoch;        /* drain: the comm_max call (core.c) that counted it, still unresolved */
    uint64_t cm_done;         /* drain: the comm_max call that found its maximum (in cm_val) */
    int64_t  cm_val;          /* drain: its value for comm_max, then the maximum over its members */
    uint64_t errh;            /* real predefined errhandler set on it (0 = default) */
    uint32_t refs;            /* objects that name this one: recipes (parent[], a struct's type list)
                               * and requests (their datatype).  A datatype the program frees while
                               * named stays, a zombie that keeps its real type, until the last goes */
    /* requests */
    uint16_t rkind;           /* enum rkind */
    int      peer, tag;
    MPI_Count count;          /* elements: an MPI_Count, so an MPI_Send_c and an MPI_Send are one path */
    void    *buf;
    struct vobj *type, *comm;
    MPI_Status status;        /* VF_DONE: what the program gets from the completion call */
#ifdef OPEN_MPI
    /* Open MPI's Fortran library (libmpi_mpifh) reads a few fields straight out of the C handles it
     * gets from MPI_X_f2c, at the offsets of Open MPI's own objects: fortran.c writes them there, into
     * space the entry's kind does not otherwise use (a request's a[7], a datatype's buf, a
     * communicator's status and this tail; fortran.c checks the offsets at compile time). */
    unsigned char ompi_face[0x20];
#endif
    /* communicators (cfree.c): the id of the collective call that made it, the same on every rank that
     * took part, whatever communicator (or none) each got; and the real MPI_Ibarrier MPI_Comm_free
     * posted, which completes once every member has freed it (0: none) */
    uint64_t call;
    uint64_t free_req;
    uint32_t free_next;       /* cfree.c's list of freed communicators waiting for their barrier (index) */
};

/* The table is one reservation (never moved: Open MPI handles are addresses in it) made usable in
 * chunks as it fills; MPICH handles hold the index in 26 bits. */
#define MANA_MAX_VOBJ (1u << 22)
#define MANA_VOBJ_CHUNK (1u << 14)
extern struct vobj *vtab;
extern uint32_t vtab_usable;                 /* entries below this index are mapped */
uint32_t mana_vtab_used(void);               /* entries ever used: the walks over the table stop there */

struct vobj *vnew(enum vkind k, uint64_t real);
void vref(struct vobj *o);                   /* one more object names o (NULL: nothing) */
void vunref(struct vobj *o);                 /* one less; a freed datatype goes with its last one */
void mana_type_drop_refs(struct vobj *o);    /* objects.c: the refs a struct type's list holds */
void mana_req_drop_parts(struct vobj *o);    /* p2p.c: an MPI_Isendrecv's two parts */
void vrelease(struct vobj *o);
void vunlink(struct vobj *o, struct vobj *was);   /* vrelease's two steps: the entry leaves the table */
void vdrop(struct vobj *was);                     /* (copied to *was), then what it named goes */
/* made by a large-count (_c) constructor (RECIPE_LARGE above) */
static inline int recipe_large(const struct vobj *o) { return o->a[7] == RECIPE_LARGE; }
struct vobj *vobj_of(uint64_t h);            /* NULL for a NULL or unknown handle */
uint64_t vhandle(const struct vobj *o);      /* the handle the program holds */
uint64_t vfind(enum vkind k, uint64_t real); /* real -> virtual for objects that already exist */
uint64_t v2r_slow(uint64_t h);

#ifdef OPEN_MPI
#define HBITS(h) ((uint64_t)(uintptr_t)(h))
#define HMAKE(T, v) ((T)(uintptr_t)(v))
static inline uint64_t v2r(uint64_t h) { return h ? *(const uint64_t *)h : 0; }
#else
#define HBITS(h) ((uint64_t)(uint32_t)(h))
#define HMAKE(T, v) ((T)(int)(uint32_t)(v))
static inline uint64_t v2r(uint64_t h)
{
    /* MPICH's own handles pass through: built-in (01) and its predefined pair types (MPI_DOUBLE_INT...: direct, 10) */
    if ((h & 0xC0000000u) != 0 || (h & 0x03FFFFFFu) == 0) return h;
    return v2r_slow(h);
}
#endif
/* Real handle of a virtual one, of the same C type. */
#define R(h) HMAKE(__typeof__(h), v2r(HBITS(h)))
/* Virtual handle of a vobj, as the C type T. */
#define V(T, o) HMAKE(T, vhandle(o))

/* ---- the lower half ---- */
struct mana_lower {
    uint64_t fs;                               /* lower TLS */
    volatile int *owner;                       /* plugin: tid inside the lower half */
    volatile int *deferred;                    /* plugin: a checkpoint signal waits */
    const volatile int *sig;                   /* plugin: the checkpoint signal */
    volatile int *ckpt_tid;
    struct mana_plugin_iface *iface;
    struct lh_info *lh;
    uint32_t tid_offset;                       /* tid in glibc's struct pthread */
    uint32_t fsgsbase;                         /* lh->mpi.fsgsbase: wrfsbase, not arch_prctl */
    uint32_t yield_waits;                      /* lh->mpi.yield_waits: an oversubscribed node */
};
extern struct mana_lower lower;
extern volatile int mana_gate;                 /* 1: MPI closed (checkpoint/restart in progress) */
extern volatile int mana_lower_waiters;        /* threads waiting in lower_acquire for the lower half */
extern int mana_lower_depth;                   /* the owner's excursions nested in its own (lower_acquire) */
extern int mana_thread_multiple;               /* the program asked for (and got) MPI_THREAD_MULTIPLE */
extern volatile uint64_t mana_up_fs;           /* upper TLS of the thread in the lower half */
extern int mana_initialized, mana_finalized;

void mana_gate_wait(void);
void mana_mpi_init_lazy(void);

static inline int cur_tid(uint64_t up_fs) { return *(volatile int *)(up_fs + lower.tid_offset); }

/* Take the lower half for this thread (other program threads wait; the checkpoint thread passes the
 * restart gate).  While a thread holds it, a checkpoint signal is deferred (plugin.c). */
static inline __attribute__((always_inline)) uint64_t lower_acquire(void)
{
    uint64_t up;
    __asm__ volatile("mov %%fs:0x10, %0" : "=r"(up));
    int tid = cur_tid(up), waiting = 0;
    /* This thread holds it already: an MPI call from a function the real MPI called back (a user op
     * that asks MPI_Type_get_extent of its datatype: MPICH's coll/nonblocking2 hung here).  It nests:
     * the outer excursion keeps the lower half (and the gate is not waited at: the checkpoint waits
     * for the outer one). */
    if (__builtin_expect(__atomic_load_n(lower.owner, __ATOMIC_RELAXED) == tid, 0)) {
        mana_lower_depth++;
        return up;
    }
    for (;;) {
        if (__builtin_expect(mana_gate, 0) && tid != *lower.ckpt_tid) mana_gate_wait();
        int zero = 0;
        if (__atomic_compare_exchange_n(lower.owner, &zero, tid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            if (__builtin_expect(mana_gate, 0) && tid != *lower.ckpt_tid) {
                __atomic_store_n(lower.owner, 0, __ATOMIC_RELEASE);
                continue;
            }
            if (__builtin_expect(waiting, 0)) __atomic_sub_fetch(&mana_lower_waiters, 1, __ATOMIC_RELAXED);
            return up;
        }
        /* Say so: a thread polling in the lower half for a message (p2p.c) gives it up between polls
         * when someone waits, so that under MPI_THREAD_MULTIPLE the thread whose call would produce
         * that message (here or at a peer) is never shut out. */
        if (!waiting) { waiting = 1; __atomic_add_fetch(&mana_lower_waiters, 1, __ATOMIC_RELAXED); }
        mana_sys0(SYS_sched_yield);
    }
}

/* Give it back (FS already the upper one); a deferred checkpoint signal is raised again now. */
static inline __attribute__((always_inline)) void lower_release(uint64_t up)
{
    if (__builtin_expect(mana_lower_depth, 0)) { mana_lower_depth--; return; }   /* a nested one */
    __atomic_store_n(lower.owner, 0, __ATOMIC_RELEASE);
    if (__builtin_expect(*lower.deferred, 0)) {
        *lower.deferred = 0;
        mana_sys3(SYS_tgkill, mana_getpid(), cur_tid(up), *lower.sig);
    }
}

/* Point FS at another TLS.  Where the kernel lets user code write the FS base itself (HWCAP2_FSGSBASE,
 * Linux 5.9+ on CPUs that have it) that is one instruction; elsewhere a system call (~1-4 us in a VM),
 * twice per MPI call.  The kernel saves and restores the base on every context switch either way. */
static inline __attribute__((always_inline)) void mana_set_fs(uint64_t fs)
{
    if (__builtin_expect(lower.fsgsbase, 1)) __asm__ volatile("wrfsbase %0" : : "r"(fs) : "memory");
    else mana_sys2(SYS_arch_prctl, 0x1002 /* ARCH_SET_FS */, (long)fs);
}

static inline __attribute__((always_inline)) void lower_switch(uint64_t up)
{
    mana_up_fs = up;
    mana_set_fs(lower.fs);
}

static inline __attribute__((always_inline)) uint64_t lower_enter(void)
{
    uint64_t up = lower_acquire();
    lower_switch(up);
    return up;
}

extern volatile int mana_errh_pending;          /* errh.c: the real MPI called a user error handler */
void mana_errh_leave(uint64_t up);               /* lower_release, then run that handler */

static inline __attribute__((always_inline)) void lower_leave(uint64_t up)
{
    mana_set_fs(up);
    if (__builtin_expect(mana_errh_pending, 0)) { mana_errh_leave(up); return; }
    lower_release(up);
}

/* One real call in the lower half: LOWER(rc = real.Send(...)); */
#define LOWER(stmt) do { uint64_t up_ = lower_enter(); stmt; lower_leave(up_); } while (0)
/* A group made by the real MPI (stmt: one real call that sets rc and the real group g) and its table
 * entry (new_group: its world ranks, two more excursions), with no checkpoint in between: the thread
 * holds the lower half on its own TLS across them, so a checkpoint signal waits for the end (plugin.c).
 * A checkpoint in between, then a restart, left g a handle of the old lower half: the next excursion
 * asked the new one about it (MPICH: "Invalid rank ... less than -136549768" in MPI_Group_translate_ranks;
 * groups.c, which makes a group every iteration).  Only for local calls: a thread that holds the lower
 * half must never wait for another rank. */
#define GROUP_LOWER(rc, stmt, g, out) do { \
        uint64_t hold_ = lower_acquire(); \
        LOWER(stmt); \
        if ((rc) == MPI_SUCCESS) (rc) = new_group((g), (out)); \
        lower_release(hold_); \
    } while (0)

/* Waiting loops poll the real MPI as the real MPI's own blocking calls do (they never yield: yielding
 * after every test put a round trip at 20 us on a busy machine, against 1.4 us); only a loop that has
 * polled for long gives the CPU up now and then.  On a node with more ranks than CPUs (the lower half
 * decides: lh_mpi.c) a loop yields every 64 polls from the start, as Open MPI's own waits do there: the
 * rank it waits for may need this CPU. */
static inline int spin_yield(unsigned spin)
{
    if (lower.yield_waits) return (spin & 63u) == 63u;
    return spin >= (1u << 16) && (spin & 1023u) == 0;
}

/* A checkpoint wants this thread, or another thread waits for the lower half: leave a waiting loop
 * there (the caller polls again once it has the lower half back). */
static inline int lower_interrupted(void) { return *lower.deferred || mana_gate || mana_lower_waiters; }

/* Between two polls of a waiting loop: let a thread that waits for the lower half have it first. */
static inline void lower_pass(void) { if (__builtin_expect(mana_lower_waiters, 0)) mana_sys0(SYS_sched_yield); }

/* ---- communicators, requests, drains (core.c, p2p.c) ---- */
struct vobj *comm_obj(MPI_Comm c);                 /* never NULL for a valid communicator */
void comm_init_gid(struct vobj *nc, struct vobj *parent);
uint64_t comm_call_id(const struct vobj *parent, uint64_t parent_seq);   /* core.c: see vobj.call */
struct vobj *comm_zombie(struct vobj *parent, int recipe);   /* the entry of a call that gave MPI_COMM_NULL */
/* cfree.c: freed communicators */
void mana_cfree_reap(void);                  /* forget those every member has freed (MPI_Comm_dup and kin) */
void mana_cfree_finalize(void);              /* MPI_Finalize: complete every barrier of ours first */
void mana_cfree_mark(void);                  /* at a checkpoint: mark those a request or message names */
int64_t mana_cfree_need(const struct vobj *c);     /* 1 while this rank needs the communicator */
int  mana_cfree_drain(uint64_t epoch, char *err, size_t errlen);  /* release those no rank needs */
void mana_cfree_restart_free(void);          /* after a restart: free the real ones the replay made */
uint64_t mana_gid_combine(uint64_t a, uint64_t b);  /* an id from two (the same on every rank) */
void mana_idup_finish(struct vobj *req);            /* an MPI_Comm_idup's request completed (in an excursion) */
MPI_Info mana_info_real(MPI_Info ours);             /* info.c: a real info with our hints (free below) */
void mana_info_real_free(MPI_Info real_info);
/* The same from inside the lower half: what a gated call (COLL_LOWER) gives the real MPI is made after
 * its gate, since a checkpoint may be taken while the caller waits there. */
MPI_Info mana_info_real_lower(MPI_Info ours);
void mana_info_real_free_lower(MPI_Info real_info);
int mana_info_dup(MPI_Info src, MPI_Info *out);
/* Collective sequence gate, then the lower half: returns like lower_enter.  The count goes up only
 * while the thread holds the lower half, so no thread ever stops between counting a collective and
 * being inside it (a checkpoint would otherwise wait for a partner that can never come). */
uint64_t coll_enter(struct vobj *comm);
void coll_leave(uint64_t up);                      /* lower_leave for coll_enter */
#define COLL_LOWER(c, stmt) do { uint64_t upc_ = coll_enter(c); stmt; coll_leave(upc_); } while (0)
/* A collective over a group that no one communicator counts on all its members: MPI_Comm_create_group
 * (c NULL: a gate of this rank's own, core.c) and MPI_Intercomm_create (c the local communicator; the
 * other group counts it on its own).  Counted as inside a collective, and as inside such a call: a
 * checkpoint that finds one waiting lets held threads make one more call (drain_rounds.c). */
uint64_t group_coll_enter(struct vobj *comm);
void group_coll_leave(uint64_t up);
#define GROUP_COLL_LOWER(c, stmt) do { uint64_t upg_ = group_coll_enter(c); stmt; group_coll_leave(upg_); } while (0)
/* A collective that makes a communicator (MPI_Comm_dup, _split, _create, Cart_create, the graph
 * constructors, the inter-communicator calls) and that communicator's table entry (new_comm: more
 * excursions), with no checkpoint in between.  COLL_MAKE runs stmt as COLL_LOWER does; when rc says the
 * call succeeded, the thread keeps the lower half (hold: non-zero) and the entry's own excursions nest
 * in it, until made_release(hold).  A checkpoint signal waits for that (plugin.c).  A checkpoint
 * between the two, then a restart, left the program a communicator the replay never made, on a handle
 * of the old lower half.  Files and windows are marked live inside their excursion instead (io.c,
 * win.c).  Only local work may run under the hold: a user callback (attribute copy) runs after it. */
uint64_t coll_leave_held(uint64_t up, int rc);
uint64_t group_coll_leave_held(uint64_t up, int rc);
/* Under MPI_THREAD_MULTIPLE the call first waits for its turn (ctor_turn.c: every member of the parent
 * ready for this constructor and no other), given up once the real call has returned. */
uint64_t mana_ctor_turn_take(struct vobj *parent);   /* 0: no turn taken (not MULTIPLE, MPI_COMM_SELF) */
void mana_ctor_turn_give(uint64_t turn);
/* MPI_Comm_create_group's turn, voted among the members (world ranks wr) by messages; key: the call's, the
 * same on every member.  mana_ctor_turn_init: at MPI_Init_thread, the communicator it votes on. */
uint64_t mana_group_turn_take(uint64_t key, const int *wr, int n);
/* MPI_Intercomm_create's, voted among both groups once the leaders have exchanged them (its arguments). */
uint64_t mana_intercomm_turn_take(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader, int tag);
void mana_ctor_turn_init(int multiple);
#define COLL_MAKE(c, hold, rc, stmt) do { \
        uint64_t turn_ = __builtin_expect(mana_thread_multiple, 0) ? mana_ctor_turn_take(c) : 0; \
        uint64_t upm_ = coll_enter(c); stmt; (hold) = coll_leave_held(upm_, (rc)); \
        mana_ctor_turn_give(turn_); \
    } while (0)
/* A file's collective call (io.c, the generated FILE_GATE): under MPI_THREAD_MULTIPLE its turn first,
 * voted on the file's own dup of its communicator (io.c mana_file_turn). */
uint64_t mana_file_turn(struct vobj *f);
#define FILE_COLL_LOWER(f, stmt) do { \
        uint64_t turnf_ = __builtin_expect(mana_thread_multiple, 0) ? mana_file_turn(f) : 0; \
        COLL_LOWER(f, stmt); \
        mana_ctor_turn_give(turnf_); \
    } while (0)
#define GROUP_COLL_MAKE(c, hold, rc, stmt) \
    do { uint64_t upm_ = group_coll_enter(c); stmt; (hold) = group_coll_leave_held(upm_, (rc)); } while (0)
static inline void made_release(uint64_t hold) { if (hold) lower_release(hold); }
int mana_comm_idup_post(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req);  /* comm.c: MPI_Comm_idup less attributes */
void mana_test_made_hold(void);                    /* test hook MANA_TEST_MADE_HOLD (core.c) */
/* One-sided calls that may wait for a target's progress: the one-sided gate, then the lower half
 * (core.c: counted like a thread inside a collective, so a checkpoint waits for them with every rank's
 * progress engine turning, and starts no new one once it settles). */
uint64_t rma_enter(const struct vobj *win);
extern int mana_rma_used;                          /* a window was made: the drain turns progress engines */
#define RMA_LOWER(stmt) do { uint64_t upr_ = rma_enter(NULL); stmt; coll_leave(upr_); } while (0)
/* The same for a call that works in, or ends, a passive-target epoch on window w (a put, a flush, an
 * unlock): while the drain's gate is lenient it passes if this rank holds such an epoch on w. */
#define RMA_LOWER_IN_EPOCH(w, stmt) do { uint64_t upr_ = rma_enter(w); stmt; coll_leave(upr_); } while (0)
int  mana_win_passive_open(const struct vobj *w);  /* win.c: this rank holds a lock or lock_all on w */
extern struct vobj *world_obj, *self_obj;

/* Point-to-point accounting (drain). */
extern uint64_t p2p_sent, p2p_received;
int  buffered_take(struct vobj *comm, int src, int tag, void *buf, MPI_Count count, MPI_Datatype type,
                   MPI_Status *st, int peek);
int  req_wait(struct vobj *r, MPI_Status *st);     /* blocking completion of one request */
int  req_test(struct vobj *r, int *flag, MPI_Status *st);
void req_complete_user(MPI_Request *h, struct vobj *r);
struct vobj *req_new(int rkind, void *buf, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm);
int  req_post(struct vobj *r);                     /* (re)post a request in the lower half */
int  mana_p2p_drain(uint32_t g, char *err, size_t errlen);
/* p2p.c internals the other point-to-point files share (persist.c, bsend.c, mprobe.c). */
void req_wait_set(struct vobj **rs, int n, int need_all, int *which);
void status_empty(MPI_Status *st);
/* Copy a status out to the program.  MPI calls never write its MPI_ERROR field, except the multiple
 * completions when they return MPI_ERR_IN_STATUS (MPI 4.0 3.2.5): the program's value stays (MPICH's
 * mprobe test checks it). */
static inline void status_give(MPI_Status *dst, const MPI_Status *src)
{
    if (dst == MPI_STATUS_IGNORE) return;
    int e = dst->MPI_ERROR;
    *dst = *src;
    dst->MPI_ERROR = e;
}
int  req_is_send(int rkind);
/* A program's request handle: 0 and *r set (NULL for MPI_REQUEST_NULL or an inactive persistent
 * request, which complete at once with an empty status), or MPI_ERR_REQUEST. */
int  req_lookup(MPI_Request h, struct vobj **r);
/* A message the drain received before the program asked for it (p2p.c). */
struct bufmsg;
int buffered_on(const struct vobj *comm);     /* a buffered message waits on it (cfree.c) */
uint32_t buffered_gen(void);                   /* messages ever buffered: compare inside the excursion */
int  mana_bottom_shift(void **buf, mana_cnt n, MPI_Datatype *t);   /* Pack/Unpack at MPI_BOTTOM (p2p.c) */
void mana_test_buffer_hold(const char *call);  /* test hook MANA_TEST_BUFFER_HOLD (p2p.c) */
struct bufmsg *buffered_detach(struct vobj *comm, int src, int tag, MPI_Status *st);
int  buffered_unpack(struct bufmsg *m, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *st);
int  mana_bsend(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);  /* bsend.c */
int  mana_w_peers(MPI_Comm comm, int neighbours, int *ns, int *nr);  /* coll.c: datatypes of a "w" collective */
/* neighbor_c.c: the large-count neighbour v and w collectives run through their int forms */
int  mana_nb_too_large(MPI_Comm comm, const char *fn);   /* a count that does not fit: MPI_ERR_COUNT */
struct nbv { int *scs, *sds, *rcs, *rds; void *mem; size_t n; };   /* a v form's n int copies, in mem */
int  mana_nbv_narrow(MPI_Comm comm, const char *fn, const MPI_Count scs[], const MPI_Aint sds[],
                     const MPI_Count rcs[], const MPI_Aint rds[], struct nbv *o);
int  mana_nbw_narrow(MPI_Comm comm, const char *fn, const MPI_Count scs[], const MPI_Count rcs[], int **sci,
                     int **rci, void **mem, size_t *n);   /* a w form's n int counts, in *mem */

/* Under MPI_THREAD_MULTIPLE a blocking collective runs as its nonblocking twin (icall, which writes
 * its request to rr_) and a wait: the wait gives the lower half up between polls, so another thread of
 * this rank reaches the real MPI meanwhile (a collective on another communicator, a send a peer waits
 * for).  Holding it for the whole real blocking call would deadlock two ranks whose threads enter two
 * collectives in opposite orders.  The request is an ordinary one: a checkpoint's drain completes it
 * like a program's.  Returns from the calling wrapper. */
int  mana_coll_mt_wait(struct vobj *v);            /* coll.c: wait, release, the collective's result */
#define COLL_MT(comm, tarr, icall) do { \
        MPI_Request rr_; int rcm_; \
        struct vobj *v_ = vnew(K_REQ, 0); \
        v_->rkind = RQ_COLL; \
        v_->flags |= VF_INTERNAL; \
        v_->arr = (tarr); \
        COLL_LOWER(comm_obj(comm), rcm_ = icall; \
                   if (rcm_ == MPI_SUCCESS) { v_->real = HBITS(rr_); v_->flags |= VF_POSTED; }); \
        if (rcm_ != MPI_SUCCESS) { vrelease(v_); return rcm_; } \
        return mana_coll_mt_wait(v_); \
    } while (0)
int  mana_part_start(struct vobj *r);              /* part.c: MPI_Start of a partitioned send (1: armed) */
void mana_part_status(struct vobj *r);             /* part.c: the program's source and tag in its status */
void mana_part_refresh(int at_restart);            /* part.c: the hidden communicator, at start and restart */
int  mana_pcoll_start(struct vobj *r);             /* pcoll.c: MPI_Start of a persistent collective */
void mana_pcoll_free(struct vobj *r);              /* pcoll.c: its MPI_Request_free (its communicator) */
int  mana_greq_cancel(struct vobj *r);             /* greq.c: the program's cancel function */
int  mana_greq_free(struct vobj *r);               /* greq.c: the program's free function (vrelease) */
struct bufmsg *buffered_new(struct vobj *comm, int src, int tag, size_t bytes, void **data);
void buffered_free(struct bufmsg *m);
int  mana_mprobe_drain(void);                      /* mprobe.c: matched messages into the buffer */
void mana_p2p_describe(struct mana_img_mpi *d);
int  mana_p2p_restart(void);
int  mana_replay(char *err, size_t errlen);
uint32_t mana_replay_count(void);
void mana_refresh_predefined(void);
void mana_fortran_refresh(void);                   /* fortran.c: after the predefined handles, at start and restart */
void mana_fortran_face(int kind, uint64_t h);      /* fortran.c: Open MPI's Fortran face of a handle f2c hands out */
void mana_f2c_forget(void);                        /* convert.c: Open MPI: forget the predefined Fortran values */
void mana_fortran_op_c2f(uint64_t h);              /* fortran.c: Open MPI: an op the Fortran binding flagged */
void mana_op_fortran(int slot);                    /* objects.c: that op's function takes Fortran arguments */
void mana_fortran_req_c2f(uint64_t h);             /* fortran.c: Open MPI: a generalized request from Fortran */
void mana_record_parent(struct vobj *child, struct vobj *p);
const uint64_t *mana_struct_types(const struct vobj *o);   /* objects.c: a struct type's member types */
#if MPI_VERSION >= 4
int  mana_type_c_replay(struct vobj *o, MPI_Datatype *t);  /* dtype_c.c: a type a _c constructor made */
MPI_User_function_c *mana_op_tramp_c(int slot);            /* objects.c: MPI_Op_create_c's trampolines */
#endif

/* Shared by objects.c and the newer files (attr.c info.c errh.c topo.c dtype.c convert.c). */
int new_comm(MPI_Comm realc, struct vobj *parent, int recipe, MPI_Comm *out, struct vobj **made);
int new_group(MPI_Group realg, MPI_Group *out);
int *world_ranks(MPI_Group realg, int *n);
#define MANA_KV_BASE 0x10000
#define MANA_F_BASE  0x100000
int  mana_attr_kv_ours(int kv);                              /* a keyval of ours (not predefined) */
int  mana_attr_copy(int kind, uint64_t oldh, uint64_t newh);  /* copy callbacks (dup) */
int  mana_attr_clear(int kind, uint64_t h);                   /* delete callbacks (free) */
void mana_attr_finalize(void);                                /* MPI_COMM_SELF's, at MPI_Finalize */
void mana_errh_replay(void);                                  /* restart: the real handler again */
int  mana_comm_dup_attrs(MPI_Comm old, MPI_Comm *newcomm);    /* after a dup: attributes, or free it */

/* ---- MPI-IO (io.c) ---- */
/* The real file of a program's MPI_File (the entry's first 8 bytes; MPI_FILE_NULL stays NULL). */
#define FR(fh) ((MPI_File)(uintptr_t)((fh) ? *(const uint64_t *)(uintptr_t)(fh) : 0))
struct vobj *mana_file_obj(MPI_File fh);           /* the entry of an open file, or NULL */
int  mana_file_err_in(struct vobj *f, MPI_File fh, int rc, const char *call); /* rc through the file's error handler */
#define mana_file_err(f, fh, rc) mana_file_err_in(f, fh, rc, __func__)
int  mana_errh_file(uint64_t eh, MPI_File fh, int code, const char *call); /* errh.c: run a file error handler */
int  mana_errh_file_ok(uint64_t eh);               /* errh.c: eh may be set on a file */
int  mana_info_from_real(MPI_Info ri, MPI_Info *out);      /* info.c: ours, with a real info's hints */
int  mana_io_drain(char *err, size_t errlen);      /* the checkpoint: file pointers */
int  mana_io_objects(void *ctx, void *(*put)(void *ctx, const void *data, size_t len));  /* the image's records */
int  mana_win_objects(void *ctx, void *(*put)(void *ctx, const void *data, size_t len)); /* win.c: windows' */
int  mana_file_replay(struct vobj *f, MPI_Comm pc);        /* replay.c: R_FILE_OPEN */
int  mana_io_restart(char *err, size_t errlen);    /* after the replay: views, atomicity, pointers */
int  mana_datarep_restart(char *err, size_t errlen);  /* datarep.c: registrations again, before the replay */
int  mana_mpit_restart(char *err, size_t errlen);     /* mpit.c: the tool interface again, after the replay */
void mana_mpit_drain(void);          /* mpit.c: performance variables read for the image, as the drain starts */
void mana_mpit_resume(void);         /* ... the drain's own counts taken off, before the program goes on */
void mana_mpit_restart_done(void);   /* ... the restart's own counts taken off, before the program goes on */

/* ---- one-sided communication (win.c) ---- */
struct vobj *mana_win_obj(MPI_Win win);            /* the entry of a live window, or NULL */
int  mana_win_err_in(struct vobj *w, MPI_Win win, int rc, const char *call); /* rc through the window's error handler */
/* (CALL, the wrapper's __func__, names the failed call in MPI_ERRORS_ARE_FATAL's last words) */
#define mana_win_err(w, win, rc) mana_win_err_in(w, win, rc, __func__)
int  mana_errh_win(uint64_t eh, MPI_Win win, int code, const char *call);    /* errh.c: run a window error handler */
int  mana_errh_win_ok(uint64_t eh);                /* errh.c: eh may be set on a window */
int  mana_win_attr_predef(MPI_Win win, int kv, void *val, int *flag);  /* MPI_WIN_BASE...: our record */
int  mana_win_attr_clear(uint64_t h);              /* attr.c: a freed window's attributes */
int  mana_win_drain(char *err, size_t errlen);     /* the checkpoint: fences, flushes, RMA requests */
int  mana_win_replay(struct vobj *w, MPI_Comm pc); /* replay.c: R_WIN_CREATE */
int  mana_win_restart(char *err, size_t errlen);   /* after the replay: fence epochs and locks again */
int  mana_win_reopen(char *err, size_t errlen);    /* resume, restart: the post/start epochs the drain closed */
uint64_t mana_win_pscw_share(void);                /* this rank's side of the post/start match sum (0: none) */
int  mana_req_finish(struct vobj *r);              /* p2p.c: complete one posted request (drain); 0 done */

/* comm.c: a name kept as an internal attribute, copied out for MPI_Comm/Type_get_name. */
int mana_name_out(const char *val, char *name, int *len);

/* Messages to stderr (one write); MANA_DEBUG only for the second. */
void mana_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int mana_debug_on(void);

/* Unsupported call: abort the job with the contract's message. */
__attribute__((noreturn)) void mana_unsupported(const char *fn, const char *reason);
#define MANA_CHECK_INIT() do { \
        if (__builtin_expect(!mana_initialized, 0)) mana_mpi_init_lazy(); \
        if (__builtin_expect(mana_gate, 0)) mana_gate_wait_entry(); \
    } while (0)
void mana_gate_wait_entry(void);

#endif
