/*
 * core.c - start-up, virtual objects, the FS-switch gate and the collective drain of the upper
 * half's MPI library.  See mpi_int.h for the handle scheme and docs/architecture.md ("MPI").
 */
#include "mpi_int.h"
#include "drain_rounds.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct mana_real real;
struct mana_lower lower;
volatile int mana_gate;
volatile uint64_t mana_up_fs;
int mana_initialized, mana_finalized;
static int app_thread_level = MPI_THREAD_SINGLE;
int mana_thread_multiple;
volatile int mana_lower_waiters;
int mana_lower_depth;
/* The thread that initialized MPI (MPI_Is_thread_main), by its thread descriptor: that is restored at the
 * same address, while a restart gives every thread a new kernel tid. */
static pthread_t main_thread;

/* Predefined objects of the ABI (generated stub: names and our addresses; none for MPICH). */
extern const char *const mana_predef_names[];
extern void *const mana_predef_addrs[];
extern const unsigned mana_predef_count;

/* ---- messages ---- */

#define say mana_say
int mana_debug_on(void) { return lower.lh && lower.lh->settings.debug; }

void mana_say(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof buf - 2) n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    mana_write_all(2, buf, (unsigned long)n);
}

void mana_unsupported(const char *fn, const char *reason)
{
    say("MANA: %s is not supported under checkpointing (%s)", fn, reason && *reason ? reason : "not implemented");
    if (mana_initialized && !mana_finalized && real.Abort) {
        int rc;
        LOWER(rc = real.Abort(R(MPI_COMM_WORLD), 1));
        (void)rc;
    }
    _exit(1);
}

/* ---- virtual objects ---- */

struct vobj *vtab;
static uint32_t vtab_used;          /* high-water mark */
static uint32_t free_head;          /* free list through a[0] (0 = empty; index 0 is never used) */
static uint64_t order_counter;
static volatile int vtab_lock;

static void vlock(void)
{
    while (__atomic_exchange_n(&vtab_lock, 1, __ATOMIC_ACQUIRE)) mana_sys0(SYS_sched_yield);
}
static void vunlock(void) { __atomic_store_n(&vtab_lock, 0, __ATOMIC_RELEASE); }

#ifndef OPEN_MPI
static const uint32_t mpich_null[] = {
    [K_COMM] = 0x04000000u, [K_GROUP] = 0x08000000u, [K_TYPE] = 0x0c000000u, [K_ERRH] = 0x14000000u,
    [K_OP] = 0x18000000u, [K_INFO] = 0x1c000000u, [K_REQ] = 0x2c000000u, [K_MSG] = 0x2c000000u,
    [K_WIN] = 0x20000000u,    /* MPI_WIN_NULL */
};
#endif

uint32_t vtab_usable;               /* entries made readable and writable so far */

/* Reserve the whole table, usable in chunks (untouched, a chunk costs nothing; the rest is a PROT_NONE
 * reservation that an image records without payload). */
static void vtab_reserve(void)
{
    size_t len = (size_t)MANA_MAX_VOBJ * sizeof(struct vobj);
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { say("MANA: cannot reserve the MPI object table: %s", strerror(errno)); _exit(1); }
    vtab = p;
}

/* Make entries up to i usable (under vlock). 0, or -1 when the system refuses. */
static int vtab_grow(uint32_t i)
{
    while (i >= vtab_usable) {
        if (vtab_usable + MANA_VOBJ_CHUNK > MANA_MAX_VOBJ) return -1;
        if (mprotect(&vtab[vtab_usable], (size_t)MANA_VOBJ_CHUNK * sizeof(struct vobj), PROT_READ | PROT_WRITE) != 0)
            return -1;
        vtab_usable += MANA_VOBJ_CHUNK;
    }
    return 0;
}

static uint64_t mix(uint64_t x);

/* Real -> virtual (MPI_Type_get_contents, MPI_Comm_get_errhandler, the f2c calls...) goes through a
 * direct-mapped cache of table indices by (kind, real handle): an entry is only a hint, checked against
 * the table before use, so the many places that give an entry a new real handle (replay, requests
 * posted again) need not keep it current.  vnew fills it; a miss scans the table once and fills it. */
#define VFIND_SLOTS (1u << 16)
static uint32_t vfind_cache[VFIND_SLOTS];

static uint32_t vfind_slot(enum vkind k, uint64_t realh)
{
    return (uint32_t)(mix(realh ^ ((uint64_t)k << 56)) & (VFIND_SLOTS - 1));
}

struct vobj *vnew(enum vkind k, uint64_t realh)
{
    vlock();
    uint32_t i;
    if (free_head) {
        i = free_head;
        free_head = (uint32_t)vtab[i].a[0];
    } else {
        if (vtab_used + 1 >= MANA_MAX_VOBJ || vtab_grow(vtab_used + 1) != 0) {
            vunlock();
            mana_unsupported("(object table)", "more than 4,194,303 live MPI objects, or no memory for more");
        }
        i = ++vtab_used;
    }
    struct vobj *o = &vtab[i];
    memset(o, 0, sizeof *o);
    o->real = realh;
    o->kind = (uint16_t)k;
    o->idx = i;
    o->order = ++order_counter;
    if (realh) vfind_cache[vfind_slot(k, realh)] = i;
    vunlock();
    return o;
}

void vref(struct vobj *o)
{
    if (o) __atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
}

void vunref(struct vobj *o)
{
    if (!o || __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    /* Only datatypes go here: a freed communicator's record stays while any member may still need the
     * collective that made it (the replay runs it on every member). */
    if (o->kind != K_TYPE || !(o->flags & VF_ZOMBIE)) return;
    /* The real handle is read inside the excursion: a checkpoint comes before or after both, never
     * between (a handle read before a restart is the old process's). */
    MPI_Datatype t;
    LOWER(t = HMAKE(MPI_Datatype, o->real); if (o->real) real.Type_free(&t));
    vrelease(o);
}

void vunlink(struct vobj *o, struct vobj *was)
{
    *was = *o;
    vlock();
    uint32_t i = o->idx;
    memset(o, 0, sizeof *o);
    o->idx = i;
    o->a[0] = free_head;
    free_head = i;
    vunlock();
}

void vrelease(struct vobj *o)
{
    if (!o || (o->flags & VF_PREDEF)) return;
    /* The entry goes first, then what it named (its recipe's parents, a request's datatype and parts),
     * from a copy: a checkpoint that stops this thread inside that cascade (it frees real types in
     * excursions) must not find a recipe that names an entry already gone (a restart then made a struct
     * type from a released member: 'Null Datatype pointer'). */
    struct vobj was;
    vunlink(o, &was);
    vdrop(&was);
}

void vdrop(struct vobj *was)
{
    for (uint32_t k = 0; k < was->nparents && k < 2; k++) vunref(was->parent[k]);
    if (was->kind == K_TYPE) mana_type_drop_refs(was);
    if (was->kind == K_REQ) { vunref(was->type); mana_req_drop_parts(was); }
    if (was->kind == K_REQ && was->rkind == RQ_GREQ) mana_greq_free(was);
    free(was->arr);
}

uint64_t vhandle(const struct vobj *o)
{
#ifdef OPEN_MPI
    return (uint64_t)(uintptr_t)o;
#else
    return mpich_null[o->kind] | o->idx;
#endif
}

uint64_t v2r_slow(uint64_t h)
{
    uint32_t i = (uint32_t)(h & 0x03FFFFFFu);
    return i < vtab_usable ? vtab[i].real : h;
}

struct vobj *vobj_of(uint64_t h)
{
#ifdef OPEN_MPI
    uint64_t lo = (uint64_t)(uintptr_t)vtab, hi = lo + (uint64_t)vtab_usable * sizeof(struct vobj);
    if (h >= lo && h < hi) return (struct vobj *)(uintptr_t)h;
    return NULL;
#else
    if ((h & 0xC0000000u) != 0 || (h & 0x03FFFFFFu) == 0) return NULL;
    uint32_t i = (uint32_t)(h & 0x03FFFFFFu);
    return i < vtab_usable && vtab[i].kind ? &vtab[i] : NULL;
#endif
}

static int vfind_match(uint32_t i, enum vkind k, uint64_t realh)
{
    return i && i <= vtab_used && vtab[i].kind == k && vtab[i].real == realh && !(vtab[i].flags & VF_ZOMBIE);
}

uint64_t vfind(enum vkind k, uint64_t realh)
{
#ifdef OPEN_MPI
    for (unsigned i = 0; i < mana_predef_count; i++)
        if (*(const uint64_t *)mana_predef_addrs[i] == realh) return (uint64_t)(uintptr_t)mana_predef_addrs[i];
#else
    if ((realh & 0xC0000000u) == 0x40000000u || (realh & 0x03FFFFFFu) == 0) return realh;
#endif
    uint32_t slot = vfind_slot(k, realh), hint = vfind_cache[slot];
    if (vfind_match(hint, k, realh)) return vhandle(&vtab[hint]);
    for (uint32_t i = 1; i <= vtab_used; i++)
        if (vfind_match(i, k, realh)) {
            vfind_cache[slot] = i;
            return vhandle(&vtab[i]);
        }
    return 0;
}

void mana_record_parent(struct vobj *child, struct vobj *p)
{
    if (!p || child->nparents >= 2) return;
    child->parent[child->nparents++] = p;
    p->flags |= VF_PARENT;
    vref(p);
}

/* ---- communicators ---- */

struct vobj *world_obj, *self_obj;
static uint64_t real_world_group;

struct vobj *comm_obj(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD) return world_obj;
    if (c == MPI_COMM_SELF) return self_obj;
    return vobj_of(HBITS(c));
}

static uint64_t mix(uint64_t x) { return drain_mix(x); }

/* The same value on every member of the new communicator and on no other communicator: how it was
 * made (parent, the parent's collective count at that moment) and which of the communicators that
 * call made (the world rank of its rank 0).  Call inside LOWER. */
uint64_t mana_gid_combine(uint64_t a, uint64_t b)
{
    uint64_t h = mix(mix(a) ^ mix(b + 0x9e3779b9)) & 0x3fffffffffffffffULL;
    return h ? h : 1;
}

/* World rank of rank 0 of a real group (inside an excursion). */
static int world_rank0(MPI_Group g)
{
    int wr = 0, zero = 0;
    real.Group_translate_ranks(g, 1, &zero, HMAKE(MPI_Group, real_world_group), &wr);
    return wr;
}

static uint64_t gid_of(uint64_t parent_gid, uint64_t parent_seq, uint64_t realcomm)
{
    int wr = 0, inter = 0;
    MPI_Group g;
    if (real.Comm_group(HMAKE(MPI_Comm, realcomm), &g) == MPI_SUCCESS) {
        wr = world_rank0(g);
        real.Group_free(&g);
    }
    /* an inter-communicator: both groups must get the same id, so take the smaller of the two groups'
     * first world ranks (its local group is a different one in each) */
    real.Comm_test_inter(HMAKE(MPI_Comm, realcomm), &inter);
    if (inter && real.Comm_remote_group(HMAKE(MPI_Comm, realcomm), &g) == MPI_SUCCESS) {
        int wr2 = world_rank0(g);
        real.Group_free(&g);
        if (wr2 < wr) wr = wr2;
    }
    uint64_t h = mix(mix(parent_gid) ^ mix(parent_seq + 0x51ed27) ^ mix((uint64_t)wr + 0x1234567));
    h &= 0x3fffffffffffffffULL;
    return h ? h : 1;
}

/* An MPI_Comm_idup completed (inside an excursion): the communicator's id, rank and size, from its
 * parent's id and the parent's count when the idup was called (a[2]). */
void mana_idup_finish(struct vobj *req)
{
    struct vobj *nc = &vtab[(uint32_t)req->a[4]], *parent = nc->parent[0];
    int r = 0, s = 1;
    if (!parent || !nc->real) return;
    real.Comm_rank(HMAKE(MPI_Comm, nc->real), &r);
    real.Comm_size(HMAKE(MPI_Comm, nc->real), &s);
    nc->a[6] = r;
    nc->a[7] = s;
    nc->target = 0;
    if (nc->errh) real.Comm_set_errhandler(HMAKE(MPI_Comm, nc->real), HMAKE(MPI_Errhandler, v2r(nc->errh)));
    nc->gid = gid_of(parent->gid, (uint64_t)nc->a[2], nc->real);
    nc->call = comm_call_id(parent, (uint64_t)nc->a[2]);
    req->a[5] = 0;
}

uint64_t comm_call_id(const struct vobj *parent, uint64_t parent_seq)
{
    return (mix(mix(parent->gid + 0x6a09e667f3bcc908ULL) ^ mix(parent_seq + 0xbb67ae8584caa73bULL)) & 0x3fffffffffffffffULL) | 2;
}

struct vobj *comm_zombie(struct vobj *parent, int recipe)
{
    struct vobj *z = vnew(K_COMM, 0);
    z->recipe = (uint16_t)recipe;
    z->flags |= VF_ZOMBIE;
    z->call = comm_call_id(parent, parent->seq);
    mana_record_parent(z, parent);
    return z;
}

void comm_init_gid(struct vobj *nc, struct vobj *parent)
{
    int r = 0, s = 1;
    LOWER(nc->gid = gid_of(parent->gid, parent->seq, nc->real);
          real.Comm_rank(HMAKE(MPI_Comm, nc->real), &r); real.Comm_size(HMAKE(MPI_Comm, nc->real), &s));
    nc->a[6] = r;
    nc->a[7] = s;
    nc->target = 0;
}

/* ---- collective drain (quiesce) ---- */

static volatile int coll_phase;       /* 0 open, 1 everyone waits, 2 wait once at target */
static volatile int coll_gen;         /* futex word: changes with every phase change and entry */
static volatile int entering;

/* The communicators program threads wait at (phase 2 of the drain: see quiesce). */
#define GATED_MAX 32
static struct vobj *volatile gated[GATED_MAX];

static int gated_add(struct vobj *c)
{
    for (int i = 0; i < GATED_MAX; i++) {
        struct vobj *none = NULL;
        if (__atomic_compare_exchange_n(&gated[i], &none, c, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return i;
    }
    return -1;
}

static void coll_wake(void)
{
    __atomic_add_fetch(&coll_gen, 1, __ATOMIC_SEQ_CST);
    mana_futex_wake(&coll_gen, 0x7fffffff);
}

static void coll_sleep(int gen)
{
    struct timespec ts = { 0, 10000000 };
    mana_sys4(SYS_futex, (long)&coll_gen, MANA_FUTEX_WAIT_PRIVATE, gen, (long)&ts);
}

/* Threads of this rank inside a collective call (blocking or the start of a nonblocking one). */
static volatile int coll_inside;

void coll_leave(uint64_t up)
{
    __atomic_sub_fetch(&coll_inside, 1, __ATOMIC_SEQ_CST);
    lower_leave(up);
}

uint64_t coll_enter(struct vobj *c)
{
    if (!c) {
        uint64_t up = lower_enter();
        __atomic_add_fetch(&coll_inside, 1, __ATOMIC_SEQ_CST);
        return up;
    }
    for (;;) {
        /* Wait without holding the lower half while the drain holds this communicator. */
        int slot = -2;
        for (;;) {
            int g = __atomic_load_n(&coll_gen, __ATOMIC_SEQ_CST);
            int ph = __atomic_load_n(&coll_phase, __ATOMIC_SEQ_CST);
            if (!(ph == 1 || (ph == 2 && c->seq >= c->target))) break;
            if (slot == -2) slot = gated_add(c);
            coll_sleep(g);
        }
        if (slot >= 0) __atomic_store_n(&gated[slot], NULL, __ATOMIC_SEQ_CST);
        uint64_t up = lower_acquire();
        __atomic_add_fetch(&entering, 1, __ATOMIC_SEQ_CST);
        int ph = __atomic_load_n(&coll_phase, __ATOMIC_SEQ_CST);
        if (ph == 0 || (ph == 2 && c->seq < c->target)) {
            c->seq++;
            __atomic_add_fetch(&coll_inside, 1, __ATOMIC_SEQ_CST);
            __atomic_sub_fetch(&entering, 1, __ATOMIC_SEQ_CST);
            if (ph) coll_wake();
            lower_switch(up);
            return up;
        }
        __atomic_sub_fetch(&entering, 1, __ATOMIC_SEQ_CST);
        lower_release(up);
    }
}

/* The gate in front of MPI_Comm_create_group.  That call is collective over its group alone: no
 * communicator of the table counts it on all its members (the parent's other members never make it,
 * and a member that has not made it yet does not know it), so it waits at a gate of this rank's own,
 * outside the table and every reduction: held like any other in a drain (phase 1 sets its target to
 * its count), passed only with a call one_more grants (drain_rounds.c; local_behind says one is
 * still to be made).  A thread inside it, or inside MPI_Intercomm_create (whose two groups count it on
 * two different local communicators), is counted in group_inside too: settle rounds that find one
 * waiting let every held thread make one more call (drain_quiesce), until its partners come. */
static struct vobj group_gate = { .kind = K_COMM, .gid = 1 };
static volatile int group_inside;

uint64_t group_coll_enter(struct vobj *c)
{
    uint64_t up = coll_enter(c ? c : &group_gate);
    __atomic_add_fetch(&group_inside, 1, __ATOMIC_SEQ_CST);
    return up;
}

void group_coll_leave(uint64_t up)
{
    __atomic_sub_fetch(&group_inside, 1, __ATOMIC_SEQ_CST);
    coll_leave(up);
}

/* COLL_MAKE's end (mpi_int.h): out of the collective, back on the program's TLS, and still holding the
 * lower half when the call made something (returns the hold for made_release; 0 when it was given up). */
uint64_t coll_leave_held(uint64_t up, int rc)
{
    __atomic_sub_fetch(&coll_inside, 1, __ATOMIC_SEQ_CST);
    if (rc != MPI_SUCCESS || mana_errh_pending) { lower_leave(up); return 0; }
    mana_set_fs(up);
    mana_test_made_hold();
    return up;
}

uint64_t group_coll_leave_held(uint64_t up, int rc)
{
    __atomic_sub_fetch(&group_inside, 1, __ATOMIC_SEQ_CST);
    return coll_leave_held(up, rc);
}

/* Test hook (MANA_TEST_MADE_HOLD=1, made_hold.sh): a collective constructor that has made its real
 * communicator waits here, before the table entry, until a checkpoint begins (the gate closes, or its
 * signal waits for this thread).  Without the hold above, the checkpoint then falls in between. */
void mana_test_made_hold(void)
{
    static int hold = -1;
    if (hold < 0) {
        const char *e = getenv("MANA_TEST_MADE_HOLD");
        hold = e && strcmp(e, "1") == 0;
    }
    if (!hold) return;
    mana_say("mana: test: a collective made a communicator; held until a checkpoint begins");
    while (!__atomic_load_n(&mana_gate, __ATOMIC_ACQUIRE) && !__atomic_load_n(lower.deferred, __ATOMIC_ACQUIRE)) {
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    mana_say("mana: test: the constructor goes on");
}

/* ---- the one-sided gate ----
 * A one-sided call (win.c, and the generated w* wrappers) may wait inside the real MPI for a target
 * rank's progress engine (Open MPI's emulated atomics, MPICH without asynchronous progress): a flush,
 * a fetch-and-op, an unlock.  Such a thread holds the lower half, so it cannot stop for a checkpoint
 * until it is out; the checkpoint's target must keep progressing until then.  So these calls count as
 * "inside a collective" (coll_inside): the settle rounds (drain_rounds.c) wait for them with every
 * rank's progress engine turning, and the drain's rounds turn it too once a window exists
 * (mana_rma_used).  During the
 * settle rounds no new one-sided call starts (rma_closed): a call started after a rank's last settle
 * round would hold its thread, and wait for a target whose threads are stopping. */
static volatile int rma_closed;          /* DRAIN_RMA_OPEN, _LENIENT or _STRICT */
int mana_rma_used;

/* Whether a call on window w (NULL: one that opens an epoch) passes the gate in state `closed`.  The
 * lenient state lets a rank that holds a passive-target epoch on w finish it, so that a thread of
 * another rank waiting in MPI_Win_lock for that epoch can come out (drain_rounds.c, settle_batch). */
static int rma_passes(int closed, const struct vobj *w)
{
    return closed == DRAIN_RMA_OPEN || (closed == DRAIN_RMA_LENIENT && w && mana_win_passive_open(w));
}

uint64_t rma_enter(const struct vobj *w)
{
    for (;;) {
        for (;;) {
            int g = __atomic_load_n(&coll_gen, __ATOMIC_SEQ_CST);
            if (rma_passes(__atomic_load_n(&rma_closed, __ATOMIC_SEQ_CST), w)) break;
            coll_sleep(g);
        }
        uint64_t up = lower_acquire();
        __atomic_add_fetch(&entering, 1, __ATOMIC_SEQ_CST);
        if (rma_passes(__atomic_load_n(&rma_closed, __ATOMIC_SEQ_CST), w)) {
            __atomic_add_fetch(&coll_inside, 1, __ATOMIC_SEQ_CST);
            __atomic_sub_fetch(&entering, 1, __ATOMIC_SEQ_CST);
            lower_switch(up);
            return up;
        }
        __atomic_sub_fetch(&entering, 1, __ATOMIC_SEQ_CST);
        lower_release(up);
    }
}

/* A stricter state returns once no thread is between the gate's check and its count (so every thread
 * that passed is counted inside); a more open one wakes the threads waiting at the gate. */
static void rma_close(int closed)
{
    int was = __atomic_exchange_n(&rma_closed, closed, __ATOMIC_SEQ_CST);
    if (closed > was) while (__atomic_load_n(&entering, __ATOMIC_SEQ_CST)) mana_sys0(SYS_sched_yield);
    else if (closed < was) coll_wake();
}

static int live_comm(const struct vobj *o)
{
    /* gid 0: a constructor that is still running (vnew, then comm_init_gid) */
    /* an open MPI-IO file has its own sequence of collective calls, drained the same way (io.c); so
     * has a window (win.c: MPI_Win_fence, set_info and free) */
    /* a communicator the program freed is still counted (cfree.c): its count is final, and a member
     * that has not freed it yet may still have collectives to make on it */
    return (o->kind == K_COMM || (o->kind == K_FILE && (o->flags & VF_FOPEN)) ||
            (o->kind == K_WIN && (o->flags & VF_WOPEN))) && (!(o->flags & VF_ZOMBIE) || (o->flags & VF_CFREED)) &&
           o->gid;
}

/* ---- the collective drain (quiesce) ----
 * Its rounds are drain_rounds.c's (drain_quiesce): here are the operations they run on this process,
 * the object table, the gate, the progress engine, the clock and the coordinator. */

/* Drive the lower half's progress engine once, unless a thread of the program holds the lower half
 * (it is then in a waiting loop, which progresses by itself). */
static void poke_progress(void)
{
    uint64_t up;
    __asm__ volatile("mov %%fs:0x10, %0" : "=r"(up));
    int zero = 0;
    if (!__atomic_compare_exchange_n(lower.owner, &zero, cur_tid(up), 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    /* A program thread may have finalized MPI since the checkpoint began (its MPI_Finalize had passed the
     * gate already): MPICH aborts an MPI_Iprobe after MPI_Finalize.  mana_finalized is set inside that
     * call's excursion, which the owner word above orders with this one. */
    if (__atomic_load_n(&mana_finalized, __ATOMIC_SEQ_CST)) {
        lower_release(up);
        return;
    }
    lower_switch(up);
    int flag = 0;
    MPI_Status st;
    real.Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, R(MPI_COMM_WORLD), &flag, &st);
    lower_leave(up);
}

static void drain_view(struct vobj *o, struct drain_comm *c)
{
    c->gid = o->gid;
    c->seq = &o->seq;
    c->target = &o->target;
    c->cm_epoch = &o->cm_epoch;
    c->cm_done = &o->cm_done;
    c->cm_val = &o->cm_val;
}

static uint32_t dop_used(void *ctx) { (void)ctx; return __atomic_load_n(&vtab_used, __ATOMIC_SEQ_CST); }

static int dop_comm(void *ctx, uint32_t i, struct drain_comm *c)
{
    (void)ctx;
    drain_view(&vtab[i], c);
    return live_comm(&vtab[i]);
}

static int dop_call(void *ctx, uint32_t i, struct drain_comm *c)
{
    (void)ctx;
    struct vobj *o = &vtab[i];
    drain_view(o, c);
    if (o->kind != K_COMM || !o->call) return 0;
    c->gid = o->call;
    c->need = mana_cfree_need(o);
    return 1;
}

static int dop_gated(void *ctx, int slot, struct drain_comm *c)
{
    (void)ctx;
    struct vobj *o = __atomic_load_n(&gated[slot], __ATOMIC_SEQ_CST);
    if (!o || !live_comm(o)) return 0;
    drain_view(o, c);
    return 1;
}

/* Phase 1: every thread waits at the gate, and none is left between its check and its count. */
static void dop_set_phase(void *ctx, int phase)
{
    (void)ctx;
    __atomic_store_n(&coll_phase, phase, __ATOMIC_SEQ_CST);
    coll_wake();
    if (phase == 1) {
        while (__atomic_load_n(&entering, __ATOMIC_SEQ_CST)) mana_sys0(SYS_sched_yield);
        /* no thread passes the create_group gate until one_more grants it a call */
        group_gate.target = group_gate.seq;
    }
}

static int dop_gen(void *ctx) { (void)ctx; return __atomic_load_n(&coll_gen, __ATOMIC_SEQ_CST); }
static void dop_wake(void *ctx) { (void)ctx; coll_wake(); }
static void dop_sleep(void *ctx, int gen) { (void)ctx; coll_sleep(gen); }
static int64_t dop_inside(void *ctx) { (void)ctx; return __atomic_load_n(&coll_inside, __ATOMIC_SEQ_CST); }
static int64_t dop_inside_group(void *ctx) { (void)ctx; return __atomic_load_n(&group_inside, __ATOMIC_SEQ_CST); }
static int dop_local_behind(void *ctx) { (void)ctx; return group_gate.seq < group_gate.target; }
static int dop_finalized(void *ctx) { (void)ctx; return mana_finalized; }
static int dop_rma_used(void *ctx) { (void)ctx; return mana_rma_used; }
static int64_t dop_pscw_share(void *ctx) { (void)ctx; return (int64_t)mana_win_pscw_share(); }
static void dop_rma_close(void *ctx, int closed) { (void)ctx; rma_close(closed); }
static void dop_poke(void *ctx) { (void)ctx; poke_progress(); }
static void dop_yield(void *ctx) { (void)ctx; mana_sys0(SYS_sched_yield); }

static int64_t dop_now_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int dop_reduce(void *ctx, uint32_t g, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err,
                      size_t errlen)
{
    (void)ctx;
    return lower.iface->reduce(g, phase, op, vals, n, err, errlen);
}

static int dop_debug(void *ctx) { (void)ctx; return mana_debug_on(); }

static const struct drain_coll_ops coll_drain_ops = {
    .used = dop_used, .comm = dop_comm, .call = dop_call, .ngated = GATED_MAX, .gated = dop_gated, .set_phase = dop_set_phase,
    .gen = dop_gen, .wake = dop_wake, .sleep = dop_sleep, .inside = dop_inside, .inside_group = dop_inside_group,
    .local_behind = dop_local_behind, .finalized = dop_finalized,
    .rma_used = dop_rma_used, .pscw_share = dop_pscw_share, .rma_close = dop_rma_close, .poke = dop_poke,
    .yield = dop_yield, .now_ns = dop_now_ns, .reduce = dop_reduce, .debug = dop_debug, .message = mana_say,
};

/* This rank's drain; epoch_wait_s: MANA_EPOCH_WAIT, read at MPI start-up (default 60 s: how long a
 * checkpoint lets the program run on for its post/start epochs to match). */
static struct drain_coll coll_drain = { .ops = &coll_drain_ops, .epoch_wait_s = 60 };

static int quiesce(uint32_t g, char *err, size_t errlen)
{
    /* Called only when every rank's program has called into MPI (plugin.c, mpi_start_vote): one whose
     * first call is still setting up (mana_mpi_init_lazy) finishes it first, program threads running. */
    for (int64_t t0 = coll_drain.ops->now_ns(NULL); !__atomic_load_n(&mana_initialized, __ATOMIC_SEQ_CST);) {
        if (coll_drain.ops->now_ns(NULL) - t0 > 30000000000LL) {
            snprintf(err, errlen, "this rank's first MPI call did not finish setting up within 30 s");
            return -1;
        }
        mana_sys0(SYS_sched_yield);
    }
    if (mana_finalized) return 0;
    return drain_quiesce(&coll_drain, g, err, errlen);
}
static void resume(void)
{
    mana_gate = 0;
    __atomic_store_n(&rma_closed, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&coll_phase, 0, __ATOMIC_SEQ_CST);
    coll_wake();
    mana_futex_wake((volatile int *)&mana_gate, 0x7fffffff);
}

/* A program thread entering a wrapper while MPI is closed (restart in progress) waits here. */
void mana_gate_wait_entry(void)
{
    uint64_t up;
    __asm__ volatile("mov %%fs:0x10, %0" : "=r"(up));
    if (cur_tid(up) != *lower.ckpt_tid) mana_gate_wait();
}

void mana_gate_wait(void)
{
    while (mana_gate) {
        struct timespec ts = { 0, 5000000 };
        mana_sys4(SYS_futex, (long)&mana_gate, MANA_FUTEX_WAIT_PRIVATE, 1, (long)&ts);
    }
}

/* ---- hooks for libmana.so ---- */

static int drain(uint32_t g, char *err, size_t errlen)
{
    if (!mana_initialized || mana_finalized) return 0;
    /* From here until resume() or the restart hook, program threads do not enter the lower half. */
    mana_gate = 1;
    mana_mpit_drain();          /* first: performance variables as the program left them (mpit.c) */
    if (mana_p2p_drain(g, err, errlen) != 0) return -1;
    if (mana_io_drain(err, errlen) != 0) return -1;
    if (mana_win_drain(err, errlen) != 0) return -1;
    /* last: no request completes after it, and no thread frees a communicator (all wait at the gate) */
    mana_cfree_mark();
    if (drain_calls_needed(&coll_drain, g, err, errlen) != 0) return -1;
    return mana_cfree_drain(coll_drain.cm_epoch, err, errlen);
}

static void describe(struct mana_img_mpi *d)
{
    memset(d, 0, sizeof *d);
#ifdef OPEN_MPI
    d->kind = MANA_MPI_OPENMPI;
#else
    d->kind = MANA_MPI_MPICH;
#endif
    d->thread_level = app_thread_level;
    d->finalized = (uint32_t)mana_finalized;
    for (uint32_t i = 1; i <= vtab_used; i++) {
        const struct vobj *o = &vtab[i];
        if (o->flags & VF_ZOMBIE) continue;
        switch (o->kind) {
        case K_COMM: d->comms++; break;
        case K_GROUP: d->groups++; break;
        case K_TYPE: d->datatypes++; break;
        case K_OP: d->ops++; break;
        case K_REQ: d->requests++; break;
        default: break;
        }
    }
    d->replay_entries = mana_replay_count();
    mana_p2p_describe(d);
    if (mana_debug_on()) {
        uint32_t entries = 0;       /* zombies too: what the table holds (cfree.c keeps it from growing) */
        for (uint32_t i = 1; i <= vtab_used; i++) entries += vtab[i].kind != 0;
        say("mana: MPI state: %u communicators, %u requests, %u buffered messages; sent %llu received %llu; "
            "%u objects in the table", d->comms, d->requests, d->buffered_msgs, (unsigned long long)d->sent,
            (unsigned long long)d->received, entries);
    }
}

static int restart_hook(uint32_t g, char *err, size_t errlen)
{
    (void)g;
    if (!mana_initialized) { mana_gate = 0; return 0; }
    /* The new lower half's block, from the plugin's pointer, which the restore rewrote: lower.lh is
     * the old block's address, the same only when the lower half is the same build (a rebuilt one has
     * mana_lh elsewhere: "has no MPI", read from whatever lies at the old address). */
    struct lh_info *lh = lower.iface && lower.iface->lh_info ? *lower.iface->lh_info : lower.lh;
    lower.lh = lh;
    if (!lh || lh->mpi.kind == MANA_MPI_NONE) {
        snprintf(err, errlen, "the restarted lower half has no MPI");
        return -1;
    }
    lower.fs = lh->mpi.lh_fs_base;
    lh->upper_fs_slot = (uint64_t)(uintptr_t)&mana_up_fs;     /* for the fault dispatcher (lh_sig.c) */
    lower.fsgsbase = lh->mpi.fsgsbase;     /* this machine's answer, not the image's */
    lower.yield_waits = lh->mpi.yield_waits;
    void *(*resolve)(const char *) = (void *(*)(const char *))lh->mpi.resolve;
    /* Resolve the real entry points again: the new lower half may have loaded MPI elsewhere. */
#define RESOLVE(n) LOWER(real.n = (__typeof__(real.n))resolve("PMPI_" #n));
    MANA_REAL_FNS(RESOLVE)
#undef RESOLVE
    mana_refresh_predefined();
    world_obj->real = v2r(HBITS(MPI_COMM_WORLD));
    self_obj->real = v2r(HBITS(MPI_COMM_SELF));
    MPI_Group wg;
    LOWER(real.Comm_group(R(MPI_COMM_WORLD), &wg));
    real_world_group = HBITS(wg);
    mana_part_refresh(1);
    mana_fortran_refresh();
    if (mana_datarep_restart(err, errlen) != 0) return -1;   /* before the files and their views */
    if (mana_replay(err, errlen) != 0) return -1;
    if (mana_mpit_restart(err, errlen) != 0) return -1;   /* tool interface: its objects are back */
    if (mana_io_restart(err, errlen) != 0) return -1;
    if (mana_win_restart(err, errlen) != 0) return -1;
    if (mana_win_reopen(err, errlen) != 0) return -1;
    if (mana_p2p_restart() != 0) {
        snprintf(err, errlen, "cannot post the pending receives again");
        return -1;
    }
    mana_cfree_restart_free();      /* freed communicators a receive was posted on again */
    mana_mpit_restart_done();
    resume();
    return 0;
}

static int finalized_hook(void) { return mana_finalized; }

/* The image's MPI_OBJECTS records: open files (io.c), then live windows (win.c). */
static int objects(void *ctx, void *(*put)(void *ctx, const void *data, size_t len))
{
    if (!mana_initialized || mana_finalized) return 0;
    int f = mana_io_objects(ctx, put), w = f < 0 ? -1 : mana_win_objects(ctx, put);
    return f < 0 || w < 0 ? -1 : f + w;
}

/* The checkpoint is over and the program goes on in this process: the post/start epochs the drain
 * closed are opened again (win.c) before any program thread may call MPI. */
static void resume_hook(void)
{
    if (mana_initialized && !mana_finalized) { mana_win_reopen(NULL, 0); mana_mpit_resume(); }
    resume();
}

static const struct mana_mpi_hooks hooks = { quiesce, drain, describe, resume_hook, restart_hook, finalized_hook, objects };

/* ---- start-up ---- */

void mana_refresh_predefined(void)
{
    void *(*resolve)(const char *) = (void *(*)(const char *))lower.lh->mpi.resolve;
    for (unsigned i = 0; i < mana_predef_count; i++) {
        void *r;
        LOWER(r = resolve(mana_predef_names[i]));
        *(uint64_t *)mana_predef_addrs[i] = (uint64_t)(uintptr_t)r;
    }
}

void mana_mpi_init_lazy(void)
{
    if (mana_initialized) return;
    /* The plugin's entry point from libmana.so itself: a lookup in the global scope (RTLD_DEFAULT) would
     * take a program's global of the same name first.  A handle of an object searches that object and
     * its dependencies only; RTLD_NOLOAD finds the preloaded plugin by its soname, loads nothing. */
    struct mana_plugin_iface *(*reg)(const struct mana_mpi_hooks *) = NULL;
    void *plugin = dlopen(MANA_PLUGIN_SONAME, RTLD_NOW | RTLD_NOLOAD);
    if (plugin) {
        reg = (struct mana_plugin_iface *(*)(const struct mana_mpi_hooks *))dlsym(plugin, "mana_mpi_register");
        dlclose(plugin);          /* drops the reference NOLOAD took; a preloaded object stays */
    }
    /* Register now (hooks the plugin only calls during a checkpoint): the lower half's block comes back. */
    lower.iface = reg ? reg(&hooks) : NULL;
    /* A program restarted from an image taken before its first MPI call runs on at once: let the restart
     * sequence finish first (mana_mpi_iface.h, restarting). */
    if (lower.iface && lower.iface->restarting && __atomic_load_n(lower.iface->restarting, __ATOMIC_SEQ_CST)) {
        struct lh_info *l = *lower.iface->lh_info;
        if (l && l->magic == MANA_LH_MAGIC && l->settings.debug) say("mana: the first MPI call waits for the restart to end");
    }
    if (lower.iface && lower.iface->restarting)
        while (__atomic_load_n(lower.iface->restarting, __ATOMIC_SEQ_CST)) {
            struct timespec ts = { 0, 5000000 };
            mana_sys4(SYS_futex, (long)lower.iface->restarting, MANA_FUTEX_WAIT_PRIVATE, 1, (long)&ts);
        }
    struct lh_info *lh = lower.iface ? *lower.iface->lh_info : NULL;
    uint32_t want =
#ifdef OPEN_MPI
        MANA_MPI_OPENMPI;
#else
        MANA_MPI_MPICH;
#endif
    if (!lh || lh->magic != MANA_LH_MAGIC) {
        say("MANA: this program runs with MANA's MPI library but was not started by mana_launch or mana_restart");
        _exit(1);
    }
    if (lh->mpi.kind != want) {
        say("MANA: this program is linked against %s, but the runtime's lower half runs %s",
            want == MANA_MPI_OPENMPI ? "Open MPI" : "MPICH",
            lh->mpi.kind == MANA_MPI_OPENMPI ? "Open MPI" : lh->mpi.kind == MANA_MPI_MPICH ? "MPICH" : "no MPI");
        _exit(1);
    }
    lower.lh = lh;
    lower.fs = lh->mpi.lh_fs_base;
    lh->upper_fs_slot = (uint64_t)(uintptr_t)&mana_up_fs;     /* for the fault dispatcher (lh_sig.c) */
    lower.fsgsbase = lh->mpi.fsgsbase;
    lower.yield_waits = lh->mpi.yield_waits;
    lower.owner = lower.iface->lower_owner;
    lower.deferred = lower.iface->deferred;
    lower.sig = lower.iface->ckpt_signal;
    lower.ckpt_tid = lower.iface->ckpt_tid;
    main_thread = pthread_self();
    /* tid field of glibc's struct pthread (read without a system call on every MPI call): the
     * plugin's, which checks it (a scan of this thread alone can take a pointer's upper half for it) */
    lower.tid_offset = *lower.iface->tid_offset;
    if (!lower.tid_offset) {
        say("MANA: the runtime did not find the tid field of glibc's thread descriptor");
        _exit(1);
    }
    vtab_reserve();
    void *(*resolve)(const char *) = (void *(*)(const char *))lh->mpi.resolve;
#define RESOLVE(n) LOWER(real.n = (__typeof__(real.n))resolve("PMPI_" #n));
    MANA_REAL_FNS(RESOLVE)
#undef RESOLVE
    mana_refresh_predefined();
    world_obj = vnew(K_COMM, v2r(HBITS(MPI_COMM_WORLD)));
    world_obj->flags |= VF_PREDEF;
    world_obj->gid = 1;
    world_obj->a[6] = lh->mpi.world_rank;
    world_obj->a[7] = lh->mpi.world_size;
    self_obj = vnew(K_COMM, v2r(HBITS(MPI_COMM_SELF)));
    self_obj->flags |= VF_PREDEF;
    self_obj->gid = (mix(2 + (uint64_t)lh->mpi.world_rank) & 0x3fffffffffffffffULL) | 2;
    self_obj->a[6] = 0;
    self_obj->a[7] = 1;
    MPI_Group wg;
    LOWER(real.Comm_group(R(MPI_COMM_WORLD), &wg));
    real_world_group = HBITS(wg);
    mana_part_refresh(0);
    const char *ew = getenv("MANA_EPOCH_WAIT");
    if (ew && *ew) {
        char *end;
        long v = strtol(ew, &end, 10);
        if (*end || v < 0) say("MANA: MANA_EPOCH_WAIT '%s' is not a number of seconds; using %ld", ew,
                               coll_drain.epoch_wait_s);
        else coll_drain.epoch_wait_s = v;
    }
    mana_initialized = 1;
    mana_fortran_refresh();
}

/* ---- environment management ---- */

/* The program called MPI_Init or MPI_Init_thread.  Not mana_initialized, which says the wrappers are
 * bound to the lower half: the calls MPI allows before MPI_Init (MPI_T_init_thread and the tool
 * interface, MPI_Get_version, ...) bind them, and MPI_Init must still succeed after them. */
static int app_initialized;

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc; (void)argv;
    if (app_initialized) return MPI_ERR_OTHER;
    app_initialized = 1;
    mana_mpi_init_lazy();
    /* Every level is granted as asked.  The real MPI runs at MPI_THREAD_SERIALIZED (lh_mpi.c): the
     * threads of a rank take turns in the lower half, one excursion at a time, and under
     * MPI_THREAD_MULTIPLE no call waits there while another thread wants in (waiting loops give the
     * lower half up between polls, blocking collectives run as their nonblocking twin and a wait). */
    int granted = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE :
                  required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    if (provided) *provided = granted;
    app_thread_level = granted;
    mana_thread_multiple = granted == MPI_THREAD_MULTIPLE;
    mana_ctor_turn_init(mana_thread_multiple);   /* MPI_Comm_create_group's votes (ctor_turn.c) */
    return MPI_SUCCESS;
}
ALIAS(Init_thread)

int PMPI_Init(int *argc, char ***argv)
{
    int p;
    return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &p);
}
ALIAS(Init)

int PMPI_Initialized(int *flag) { *flag = app_initialized; return MPI_SUCCESS; }
ALIAS(Initialized)
int PMPI_Finalized(int *flag) { *flag = mana_finalized; return MPI_SUCCESS; }
ALIAS(Finalized)

int PMPI_Finalize(void)
{
    MANA_CHECK_INIT();
    mana_attr_finalize();
    mana_cfree_finalize();      /* the freed communicators' barriers, all complete (cfree.c) */
    int rc;
    /* finalized inside the excursion: a checkpoint's progress poke takes the lower half after it (poke_progress) */
    COLL_LOWER(world_obj, rc = real.Finalize(); __atomic_store_n(&mana_finalized, 1, __ATOMIC_SEQ_CST));
    return rc;
}
ALIAS(Finalize)

int PMPI_Abort(MPI_Comm comm, int code)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Abort(R(comm), code));
    _exit(code ? code : 1);
    return rc;
}
ALIAS(Abort)

int PMPI_Query_thread(int *provided) { *provided = app_thread_level; return MPI_SUCCESS; }
ALIAS(Query_thread)
int PMPI_Is_thread_main(int *flag) { *flag = pthread_equal(pthread_self(), main_thread) != 0; return MPI_SUCCESS; }
ALIAS(Is_thread_main)

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
ALIAS(Wtime)
double PMPI_Wtick(void) { return 1e-9; }
ALIAS(Wtick)

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
ALIAS(Get_version)

int PMPI_Get_processor_name(char *name, int *len)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Get_processor_name(name, len));
    return rc;
}
ALIAS(Get_processor_name)

int PMPI_Get_library_version(char *version, int *len)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Get_library_version(version, len));
    return rc;
}
ALIAS(Get_library_version)

int PMPI_Error_string(int code, char *s, int *len)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Error_string(code, s, len));
    return rc;
}
ALIAS(Error_string)

int PMPI_Error_class(int code, int *cls)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Error_class(code, cls));
    return rc;
}
ALIAS(Error_class)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (c) { *rank = (int)c->a[6]; return MPI_SUCCESS; }
    int rc;
    LOWER(rc = real.Comm_rank(R(comm), rank));
    return rc;
}
ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (c) { *size = (int)c->a[7]; return MPI_SUCCESS; }
    int rc;
    LOWER(rc = real.Comm_size(R(comm), size));
    return rc;
}
ALIAS(Comm_size)

uint32_t mana_vtab_used(void) { return vtab_used; }
