/*
 * drain_model.c - a deterministic model of both drains (src/mpi/drain_rounds.c), without MPI.
 *
 * N fake ranks, each a thread running the real drain_quiesce (or drain_p2p_rounds) on operations the
 * model gives.  The coordinator's reduction is a barrier of those threads: the last to arrive combines
 * the vectors (MAX or SUM, element by element, as the coordinator's Collectives do) and, while every
 * rank waits there, moves the program one step (below).  Each rank's program is a script per thread:
 * collective calls on communicators, constructors (a collective on the parent that makes a new
 * communicator on its members when it returns), one-sided post/start calls that change the rank's
 * share of the post/start sum.  A collective returns only once every member has made its k-th call
 * on that communicator; on a "lazy" one (MPICH's shared-memory collectives) the members after the
 * first return only once the first has turned its progress engine since (or still has a thread in a
 * collective, whose waiting loop turns it).
 *
 * When the program moves, and nothing else moves it:
 *   - at every barrier: first every call that can return returns (ranks and threads in order), then
 *     every thread that is not inside a call tries its next one;
 *   - inside a rank's own "sleep" and "yield" operations (the drain lets the program run): that rank's
 *     threads try their next call (what only the rank's own state decides).
 * A thread's try passes the gate as coll_enter does: phase 0 it enters, phase 1 it waits, phase 2 it
 * enters only while seq < target; a waiting thread is in the rank's gate list.  One-sided calls pass
 * the one-sided gate (closed during the settle rounds).  The clock is the rank's own: 50 us a reading,
 * 10 ms a sleep.  Between two barriers a rank reads and writes its own state only, so each run of a case
 * does exactly the same thing (checked: every case runs three times, with the same trace each time).
 *
 * Before the drain the program runs with the gate open until each thread has entered `pre` calls (the
 * last one stays inside when the thread is marked `hold`: the checkpoint came while it was there).
 *
 * Checked for every case: the ranks call the reduction with the same phase, op and length in the same
 * order, in the phases docs/coordinator-protocol.md gives the drains; when the target rounds end
 * (a batch of settle rounds starts) no rank is behind on any communicator; and the outcome: every rank
 * drained, every communicator has the same count on all its members (and exists on all of them), no
 * thread is inside a call; or the refusal expected, with its message, on every rank.
 *
 * Usage: drain_model [case...]   (no case: all of them).  MANA_DEBUG=1: the drains' own messages.
 */
#include "drain_rounds.h"
#include "mana_mpi_iface.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXR 4          /* ranks */
#define MAXT 3          /* threads a rank */
#define MAXC 8          /* communicators */
#define MAXS 12         /* steps a thread */
#define MAXM 8          /* point-to-point messages */
/* a drain that needs more reductions fails its case (a drain that never ends would hang the test; the
 * settle rounds' own refusal, after 40,000 rounds, still fits) */
#define MAX_REDUCTIONS 50000

/* ---- the program ---- */

enum { S_END = 0, S_COLL, S_MAKE, S_START, S_POST, S_LOCK, S_PUT, S_UNLOCK, S_LOOP, S_GCOLL, S_ICOLL, S_NBC };

struct step {
    int kind;
    int comm;           /* S_COLL, S_ICOLL: the communicator; S_MAKE: the parent; S_GCOLL: the group */
    int made;           /* S_MAKE, S_GCOLL, S_ICOLL: the communicator this rank gets (-1: none, MPI_UNDEFINED) */
    int peer;           /* S_START, S_LOCK, S_PUT, S_UNLOCK: the target; S_POST: the origin; S_ICOLL: the
                         * other group's local communicator */
};

#define COLL(c) { S_COLL, (c), -1, 0 }
#define MAKE(p, n) { S_MAKE, (p), (n), 0 }
#define START(t) { S_START, 0, -1, (t) }
#define POST(o) { S_POST, 0, -1, (o) }
/* passive target: an exclusive MPI_Win_lock of target t's window (inside until the lock is free: it
 * waits for the holder), a put in the epoch (inside until the next barrier), its MPI_Win_unlock (returns
 * at once), and a jump back to the first step */
#define LOCK(t) { S_LOCK, 0, -1, (t) }
#define PUT(t) { S_PUT, 0, -1, (t) }
#define UNLOCK(t) { S_UNLOCK, 0, -1, (t) }
#define LOOP { S_LOOP, 0, -1, 0 }
/* MPI_Comm_create_group over group g (a cdef marked `group`: no communicator counts it), making n; it
 * passes the rank's own gate (core.c's group_gate) and returns once every member of g made the call */
#define GCOLL(g, n) { S_GCOLL, (g), (n), 0 }
/* MPI_Intercomm_create: counted on the local communicator c, returns once every member of c and of the
 * other group's local communicator o made the call (each group counts it on its own) */
#define ICOLL(c, o, n) { S_ICOLL, (c), (n), (o) }
/* the start of a nonblocking collective on c: counted at the gate like a blocking one, returns at once
 * (what it moves, the model leaves out) */
#define NBC(c) { S_NBC, (c), -1, 0 }

struct cdef {
    const char *name;
    unsigned members;   /* bit r: rank r is a member */
    int at_start;       /* exists before the program runs (else a MAKE makes it) */
    int lazy;
    uint64_t gid;
    int group;          /* a group of MPI_Comm_create_group: no communicator, no table entry */
};

struct tdef {
    struct step s[MAXS];
    int pre;            /* calls entered before the checkpoint */
    int hold;           /* the pre-th is still inside at the checkpoint */
};

struct msgdef { int from, to, arrive; };   /* arrive: the p2p round it can first be received in; -1 never */

struct casedef {
    const char *name;
    int nranks;
    struct cdef c[MAXC];
    int nc;
    struct tdef t[MAXR][MAXT];
    int rma;            /* the ranks have windows (mana_rma_used) */
    long epoch_wait_s;
    struct msgdef m[MAXM];
    int nm;             /* > 0: a point-to-point case (drain_p2p_rounds only) */
    const char *refusal;    /* expected message (every rank), or NULL: drained */
    int (*check)(char *why, size_t len);    /* the case's own expectations, after the common ones */
};

/* ---- the model's state ---- */

enum { T_READY, T_GATED, T_INSIDE, T_DONE };

struct rec {            /* one object-table entry: a communicator of this rank */
    uint64_t gid, seq, target, cm_epoch, cm_done;
    int64_t cm_val;
    int def;
};

struct thr {
    const struct step *s;
    int pc;             /* steps done */
    int state;
    uint64_t call;      /* T_INSIDE: which call on the communicator (its seq after entering) */
    int pre, hold;
};

struct rank {
    int id;
    struct rec tab[MAXC + 1];   /* entries 1..used */
    uint32_t used;
    int entry[MAXC];            /* def -> entry, 0 none */
    struct thr th[MAXT];
    int phase, rma_closed, rma_used, gen;
    int held[MAXR], nheld;      /* passive-target locks this rank holds, by target */
    struct rec gg;              /* the gate in front of MPI_Comm_create_group (seq, target only) */
    uint64_t gcount[MAXC];      /* MPI_Comm_create_group calls made, by group */
    int64_t share, clock;
    uint64_t pokes;
    uint64_t sent, received;
    int rc;
    char err[1024];
    struct drain_coll d;
};

static struct {
    const struct casedef *cs;
    int n;
    struct rank r[MAXR];
    /* the barrier */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived, exited;
    uint64_t bgen;
    uint16_t phase;
    int op;
    uint32_t nvals;
    int64_t *vals[MAXR];
    int failed;
    char why[512];
    /* lazy collectives: the first member's last return (call) and its progress count then */
    uint64_t lazy_call[MAXC], lazy_pokes[MAXC];
    /* point-to-point: messages that can be received now */
    int delivered[MAXM], taken[MAXM];
    /* what happened */
    uint64_t trace;             /* hash of every reduction's phase, op and result */
    int reductions, settle_rounds, settle_batches, p2p_rounds;
    int shared_tables;
    int learned;                /* target rounds' closing sums that found a rank behind after all */          /* comm_max tables whose result had a slot of two communicators */
    uint16_t last, last_settle;
} M;

static int debug_on;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    if (M.failed) return;
    M.failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(M.why, sizeof M.why, fmt, ap);
    va_end(ap);
}

static const struct cdef *cdef(int c) { return &M.cs->c[c]; }
static int member(int c, int r) { return (cdef(c)->members >> r) & 1; }
static struct rec *rec_of(struct rank *r, int c) { return r->entry[c] ? &r->tab[r->entry[c]] : NULL; }

static void make_comm(struct rank *r, int c)
{
    if (r->entry[c]) { fail("rank %d made %s twice", r->id, cdef(c)->name); return; }
    uint32_t i = ++r->used;
    memset(&r->tab[i], 0, sizeof r->tab[i]);
    r->tab[i].gid = cdef(c)->gid;
    r->tab[i].def = c;
    r->entry[c] = (int)i;
}

/* The one-sided key of the pair (origin, target), as win.c's pair_key (any odd number per pair will do). */
static int64_t pair_key(int origin, int target) { return (int64_t)(drain_mix((uint64_t)(origin * 64 + target)) | 1); }

/* A thread tries its next call.  Only the rank's own state is read or written. */
static void try_step(struct rank *r, struct thr *t)
{
    if (t->state != T_READY && t->state != T_GATED) return;
    const struct step *s = &t->s[t->pc];
    if (s->kind == S_END) { t->state = T_DONE; return; }
    if (s->kind == S_LOOP) { t->pc = 0; t->state = T_READY; return; }
    if (s->kind == S_LOCK) {
        if (r->rma_closed) return;      /* a call that opens an epoch waits at any closed gate */
        t->state = T_INSIDE;            /* until the lock is free (can_return) */
        return;
    }
    if (s->kind == S_PUT || s->kind == S_UNLOCK) {
        /* closed strictly, it waits; closed leniently, it passes while the rank has an epoch open */
        if (r->rma_closed == DRAIN_RMA_STRICT || (r->rma_closed && !r->nheld)) return;
        if (s->kind == S_PUT) { t->state = T_INSIDE; return; }
        if (!r->held[s->peer]) { fail("rank %d unlocks target %d, which it does not hold", r->id, s->peer); return; }
        r->held[s->peer] = 0;
        r->nheld--;
        t->pc++;
        t->state = T_READY;
        return;
    }
    if (s->kind == S_START || s->kind == S_POST) {
        if (r->rma_closed) return;      /* rma_enter waits */
        r->share += s->kind == S_START ? pair_key(r->id, s->peer) : -pair_key(s->peer, r->id);
        t->pc++;
        t->state = T_READY;
        return;
    }
    if (s->kind == S_GCOLL) {
        struct rec *gg = &r->gg;
        if (r->phase == 1 || (r->phase == 2 && gg->seq >= gg->target)) { t->state = T_GATED; return; }
        gg->seq++;
        t->call = ++r->gcount[s->comm];
        t->state = T_INSIDE;
        return;
    }
    struct rec *c = rec_of(r, s->comm);
    if (!c) return;                     /* its communicator is still being made by another thread */
    if (r->phase == 1 || (r->phase == 2 && c->seq >= c->target)) { t->state = T_GATED; return; }
    c->seq++;
    t->call = c->seq;
    if (s->kind == S_NBC) { t->pc++; t->state = T_READY; return; }
    t->state = T_INSIDE;
}

static void try_rank(struct rank *r, int before)
{
    for (int k = 0; k < MAXT; k++) {
        struct thr *t = &r->th[k];
        if (!t->s) continue;
        if (before && t->pc >= t->pre) continue;
        try_step(r, t);
    }
}

/* Can this thread's call return now?  Reads every member's state: only at a barrier (or before). */
static int can_return(struct rank *r, struct thr *t)
{
    if (t->s[t->pc].kind == S_PUT) return 1;
    if (t->s[t->pc].kind == S_LOCK) {
        for (int m = 0; m < M.n; m++)
            if (M.r[m].held[t->s[t->pc].peer]) return 0;
        return 1;
    }
    int c = t->s[t->pc].comm;
    if (t->s[t->pc].kind == S_GCOLL) {
        for (int m = 0; m < M.n; m++)
            if (member(c, m) && M.r[m].gcount[c] < t->call) return 0;
        return 1;
    }
    if (t->s[t->pc].kind == S_ICOLL) {
        int o = t->s[t->pc].peer;
        for (int m = 0; m < M.n; m++) {
            if (!member(o, m)) continue;
            struct rec *x = rec_of(&M.r[m], o);
            if (!x || x->seq < t->call) return 0;
        }
    }
    int first = -1;
    for (int m = 0; m < M.n; m++) {
        if (!member(c, m)) continue;
        if (first < 0) first = m;
        struct rec *x = rec_of(&M.r[m], c);
        if (!x || x->seq < t->call) return 0;
    }
    if (!cdef(c)->lazy || r->id == first) return 1;
    /* the others wait for data only the first one's progress engine moves */
    struct rank *f = &M.r[first];
    if (M.lazy_call[c] < t->call) return 0;
    for (int k = 0; k < MAXT; k++)
        if (f->th[k].s && f->th[k].state == T_INSIDE) return 1;
    return f->pokes > M.lazy_pokes[c];
}

static void return_from(struct rank *r, struct thr *t)
{
    const struct step *s = &t->s[t->pc];
    if (s->kind == S_LOCK || s->kind == S_PUT) {
        if (s->kind == S_LOCK) { r->held[s->peer] = 1; r->nheld++; }
        t->pc++;
        t->state = T_READY;
        return;
    }
    int c = s->comm;
    if (s->kind != S_GCOLL && cdef(c)->lazy && member(c, r->id)) {
        int first = -1;
        for (int m = 0; m < M.n && first < 0; m++) if (member(c, m)) first = m;
        if (r->id == first) { M.lazy_call[c] = t->call; M.lazy_pokes[c] = r->pokes; }
    }
    if ((s->kind == S_MAKE || s->kind == S_GCOLL || s->kind == S_ICOLL) && s->made >= 0) make_comm(r, s->made);
    t->pc++;
    t->state = T_READY;
}

/* The program's step at a barrier (or before the drain, `before`: the pre-phase's limits). */
static int program_step(int before)
{
    int moved = 0;
    for (int i = 0; i < M.n; i++)
        for (int k = 0; k < MAXT; k++) {
            struct rank *r = &M.r[i];
            struct thr *t = &r->th[k];
            if (!t->s || t->state != T_INSIDE) continue;
            if (before && t->hold && t->pc == t->pre - 1) continue;
            if (can_return(r, t)) { return_from(r, t); moved = 1; }
        }
    for (int i = 0; i < M.n; i++) {
        struct rank *r = &M.r[i];
        int was[MAXT];
        for (int k = 0; k < MAXT; k++) was[k] = r->th[k].state * 1000 + r->th[k].pc;
        try_rank(r, before);
        for (int k = 0; k < MAXT; k++) if (was[k] != r->th[k].state * 1000 + r->th[k].pc) moved = 1;
    }
    return moved;
}

/* ---- the barrier (the coordinator's COLLECTIVE) ---- */

static void mix_trace(uint64_t v) { M.trace = drain_mix(M.trace ^ v); }

/* When the target rounds end, no rank may be behind anywhere: the drain's reason to stop. */
static void check_settle_start(void)
{
    for (int i = 0; i < M.n; i++) {
        struct rank *r = &M.r[i];
        for (uint32_t e = 1; e <= r->used; e++)
            if (r->tab[e].seq < r->tab[e].target)
                fail("the target rounds ended with rank %d behind on %s (count %llu, target %llu)", i,
                     cdef(r->tab[e].def)->name, (unsigned long long)r->tab[e].seq,
                     (unsigned long long)r->tab[e].target);
        if (r->gg.seq < r->gg.target)
            fail("the target rounds ended with rank %d granted an MPI_Comm_create_group call it has not made", i);
    }
}

static void combine(void)
{
    uint16_t ph = M.phase;
    int settle = ph >= MANA_PHASE_SETTLE_FIRST;
    int p2p = ph >= MANA_PHASE_P2P_DRAIN_FIRST && ph <= MANA_PHASE_DRAIN_LAST;
    if (!settle && !p2p && (ph < MANA_PHASE_FREE_FIRST || ph > MANA_PHASE_COLL_DRAIN_LAST))
        fail("reduction in phase %u, outside the drains' phases", ph);
    if (settle && (M.last < MANA_PHASE_SETTLE_FIRST)) { M.settle_batches++; check_settle_start(); }
    if (settle) {
        /* one phase a round, 16,448 + the round, counted across batches: a batch goes on from the last
         * one's next round, or from its last round when that one settled (the drain did not count it;
         * the protocol lets a phase be used again once it is done) */
        int first = M.last < MANA_PHASE_SETTLE_FIRST;
        int ok = M.settle_rounds == 0 ? ph == MANA_PHASE_SETTLE_FIRST
                 : first ? ph == M.last_settle || ph == M.last_settle + 1 : ph == M.last_settle + 1;
        if (!ok) fail("settle round %d in phase %u (the last one was %u)", M.settle_rounds + 1, ph, M.last_settle);
        M.settle_rounds++;
        M.last_settle = ph;
    }
    if (p2p) {
        if (ph != MANA_PHASE_P2P_DRAIN_FIRST + M.p2p_rounds % DRAIN_P2P_ROUNDS) fail("p2p round %d in phase %u", M.p2p_rounds, ph);
        M.p2p_rounds++;
    }
    if (++M.reductions > MAX_REDUCTIONS) fail("still draining after %d reductions", MAX_REDUCTIONS);
    M.last = ph;
    int64_t *out = M.vals[0];
    for (int i = 1; i < M.n; i++)
        for (uint32_t k = 0; k < M.nvals; k++) {
            int64_t a = out[k], b = M.vals[i][k];
            if (M.op == MANA_RED_SUM) out[k] = (int64_t)((uint64_t)a + (uint64_t)b);
            else if (M.op == MANA_RED_MAX) out[k] = a > b ? a : b;
            else fail("reduction op %d", M.op);
        }
    for (int i = 1; i < M.n; i++) memcpy(M.vals[i], out, M.nvals * sizeof *out);
    if (M.op == MANA_RED_SUM && M.nvals == 1 && !settle && !p2p && out[0]) M.learned++;
    if (M.op == MANA_RED_MAX && M.nvals == 3 * DRAIN_CM_SLOTS + 1) {
        int shared = 0;
        for (int k = 0; k < DRAIN_CM_SLOTS; k++) shared |= out[k] != 0 && out[k] != -out[DRAIN_CM_SLOTS + k];
        M.shared_tables += shared;
    }
    mix_trace(((uint64_t)ph << 32) | (uint64_t)M.op);
    for (uint32_t k = 0; k < M.nvals; k++) if (out[k]) mix_trace(((uint64_t)k << 40) ^ (uint64_t)out[k]);
    /* point-to-point: the messages of the next round arrive */
    if (p2p)
        for (int j = 0; j < M.cs->nm; j++)
            if (M.cs->m[j].arrive == M.p2p_rounds) M.delivered[j] = 1;
    program_step(0);
}

static int model_reduce(void *ctx, uint32_t g, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err,
                        size_t errlen)
{
    struct rank *r = ctx;
    (void)g;
    pthread_mutex_lock(&M.mu);
    if (M.arrived == 0) { M.phase = phase; M.op = op; M.nvals = n; }
    else if (M.phase != phase || M.op != op || M.nvals != n)
        fail("rank %d reduces (phase %u, op %d, %u values) while another does (phase %u, op %d, %u values)", r->id,
             phase, op, n, M.phase, M.op, M.nvals);
    M.vals[r->id] = vals;
    M.arrived++;
    uint64_t my = M.bgen;
    if (M.arrived + M.exited == M.n) {
        if (M.exited) fail("rank %d reduces in phase %u after another rank left the drain", r->id, phase);
        if (!M.failed) combine();
        M.arrived = 0;
        M.bgen++;
        pthread_cond_broadcast(&M.cv);
    } else {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 20;
        while (M.bgen == my && !M.failed)
            if (pthread_cond_timedwait(&M.cv, &M.mu, &dl) == ETIMEDOUT) {
                fail("rank %d waited 20 s in the reduction of phase %u", r->id, phase);
                pthread_cond_broadcast(&M.cv);
            }
    }
    int bad = M.failed;
    pthread_mutex_unlock(&M.mu);
    if (bad) { snprintf(err, errlen, "model: %s", M.why); return -1; }
    return 0;
}

/* ---- the operations of the collective drain ---- */

static uint32_t op_used(void *ctx) { return ((struct rank *)ctx)->used; }

static void view(struct rec *x, struct drain_comm *c)
{
    c->gid = x->gid;
    c->seq = &x->seq;
    c->target = &x->target;
    c->cm_epoch = &x->cm_epoch;
    c->cm_done = &x->cm_done;
    c->cm_val = &x->cm_val;
}

static int op_comm(void *ctx, uint32_t i, struct drain_comm *c)
{
    struct rank *r = ctx;
    view(&r->tab[i], c);
    return r->tab[i].gid != 0;
}

static int op_gated(void *ctx, int slot, struct drain_comm *c)
{
    struct rank *r = ctx;
    struct thr *t = &r->th[slot];
    if (!t->s || t->state != T_GATED) return 0;
    view(t->s[t->pc].kind == S_GCOLL ? &r->gg : rec_of(r, t->s[t->pc].comm), c);
    return 1;
}

static void op_set_phase(void *ctx, int phase)
{
    struct rank *r = ctx;
    r->phase = phase;
    if (phase == 1) r->gg.target = r->gg.seq;
}
static int op_gen(void *ctx) { return ((struct rank *)ctx)->gen; }
static void op_wake(void *ctx) { ((struct rank *)ctx)->gen++; }

static void op_sleep(void *ctx, int gen)
{
    struct rank *r = ctx;
    r->clock += gen == r->gen ? 10000000 : 100000;
    try_rank(r, 0);
}

static int64_t op_inside(void *ctx)
{
    struct rank *r = ctx;
    int64_t n = 0;
    for (int k = 0; k < MAXT; k++) n += r->th[k].s && r->th[k].state == T_INSIDE;
    return n;
}

static int64_t op_inside_group(void *ctx)
{
    struct rank *r = ctx;
    int64_t n = 0;
    for (int k = 0; k < MAXT; k++)
        n += r->th[k].s && r->th[k].state == T_INSIDE &&
             (r->th[k].s[r->th[k].pc].kind == S_GCOLL || r->th[k].s[r->th[k].pc].kind == S_ICOLL);
    return n;
}

static int op_local_behind(void *ctx) { struct rank *r = ctx; return r->gg.seq < r->gg.target; }
static int op_finalized(void *ctx) { (void)ctx; return 0; }
static int op_rma_used(void *ctx) { return ((struct rank *)ctx)->rma_used; }
static int64_t op_pscw_share(void *ctx) { return ((struct rank *)ctx)->share; }

static void op_rma_close(void *ctx, int closed)
{
    struct rank *r = ctx;
    r->rma_closed = closed;
    if (closed != DRAIN_RMA_STRICT) r->gen++;
}

static void op_poke(void *ctx) { ((struct rank *)ctx)->pokes++; }
static void op_yield(void *ctx) { try_rank(ctx, 0); }

static int64_t op_now_ns(void *ctx)
{
    struct rank *r = ctx;
    return r->clock += 50000;
}

static int op_debug(void *ctx) { (void)ctx; return debug_on; }

static void op_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static const struct drain_coll_ops coll_ops = {
    .used = op_used, .comm = op_comm, .ngated = MAXT, .gated = op_gated, .set_phase = op_set_phase,
    .gen = op_gen, .wake = op_wake, .sleep = op_sleep, .inside = op_inside, .inside_group = op_inside_group,
    .local_behind = op_local_behind, .finalized = op_finalized,
    .rma_used = op_rma_used, .pscw_share = op_pscw_share, .rma_close = op_rma_close, .poke = op_poke,
    .yield = op_yield, .now_ns = op_now_ns, .reduce = model_reduce, .debug = op_debug, .message = op_message,
};

/* ---- the operations of the point-to-point drain ---- */

static void p2p_round(void *ctx)
{
    struct rank *r = ctx;
    for (int j = 0; j < M.cs->nm; j++)
        if (M.cs->m[j].to == r->id && M.delivered[j] && !M.taken[j]) { M.taken[j] = 1; r->received++; }
}

static void p2p_counts(void *ctx, uint64_t *sent, uint64_t *received)
{
    struct rank *r = ctx;
    *sent = r->sent;
    *received = r->received;
}

static const struct drain_p2p_ops p2p_ops = {
    .round = p2p_round, .counts = p2p_counts, .reduce = model_reduce, .debug = op_debug, .message = op_message,
};

/* ---- running a case ---- */

static void *rank_main(void *arg)
{
    struct rank *r = arg;
    if (M.cs->nm) r->rc = drain_p2p_rounds(&p2p_ops, r, 7, r->err, sizeof r->err);
    else r->rc = drain_quiesce(&r->d, 7, r->err, sizeof r->err);
    pthread_mutex_lock(&M.mu);
    M.exited++;
    if (M.arrived && M.arrived + M.exited == M.n) {
        fail("rank %d left the drain while another waits in the reduction of phase %u", r->id, M.phase);
        pthread_cond_broadcast(&M.cv);
    }
    pthread_mutex_unlock(&M.mu);
    return NULL;
}

static void setup(const struct casedef *cs)
{
    memset(&M, 0, sizeof M);
    pthread_mutex_init(&M.mu, NULL);
    pthread_cond_init(&M.cv, NULL);
    M.cs = cs;
    M.n = cs->nranks;
    for (int i = 0; i < M.n; i++) {
        struct rank *r = &M.r[i];
        r->id = i;
        r->clock = 1000LL * 1000000000LL;
        r->rma_used = cs->rma;
        r->d.ops = &coll_ops;
        r->d.ctx = r;
        r->d.epoch_wait_s = cs->epoch_wait_s ? cs->epoch_wait_s : 60;
        for (int c = 0; c < cs->nc; c++)
            if (cs->c[c].at_start && member(c, i)) make_comm(r, c);
        for (int k = 0; k < MAXT; k++) {
            const struct tdef *td = &cs->t[i][k];
            if (td->s[0].kind == S_END && !td->pre) continue;
            r->th[k].s = td->s;
            r->th[k].pre = td->pre;
            r->th[k].hold = td->hold;
        }
    }
    for (int j = 0; j < cs->nm; j++) {
        M.r[cs->m[j].from].sent++;
        if (cs->m[j].arrive == 0) M.delivered[j] = 1;
    }
    /* the program up to the checkpoint */
    for (int k = 0; k < 1000 && program_step(1); k++) {}
    for (int i = 0; i < M.n; i++)
        for (int k = 0; k < MAXT; k++) {
            struct thr *t = &M.r[i].th[k];
            int entered = t->pc + (t->state == T_INSIDE);
            if (t->s && entered != t->pre && t->state != T_DONE)
                fail("case set-up: rank %d thread %d entered %d call(s) before the checkpoint, not %d", i, k, entered,
                     t->pre);
        }
}

/* The outcome every drained case must have. */
static void check_drained(void)
{
    for (int i = 0; i < M.n; i++) {
        if (M.r[i].rc != 0) { fail("rank %d: drain failed: %s", i, M.r[i].err); return; }
        for (int k = 0; k < MAXT; k++)
            if (M.r[i].th[k].s && M.r[i].th[k].state == T_INSIDE)
                fail("rank %d thread %d is still inside %s", i, k,
                     M.r[i].th[k].s[M.r[i].th[k].pc].kind == S_LOCK ? "MPI_Win_lock"
                     : M.r[i].th[k].s[M.r[i].th[k].pc].kind == S_PUT ? "MPI_Put"
                     : cdef(M.r[i].th[k].s[M.r[i].th[k].pc].comm)->name);
    }
    for (int c = 0; c < M.cs->nc; c++) {
        int first = __builtin_ctz(cdef(c)->members);
        if (cdef(c)->group) {
            for (int i = first + 1; i < M.n; i++)
                if (member(c, i) && M.r[i].gcount[c] != M.r[first].gcount[c])
                    fail("group %s: %llu MPI_Comm_create_group call(s) on rank %d, %llu on rank %d", cdef(c)->name,
                         (unsigned long long)M.r[i].gcount[c], i, (unsigned long long)M.r[first].gcount[c], first);
            continue;
        }
        struct rec *x0 = rec_of(&M.r[first], c);
        for (int i = first + 1; i < M.n; i++) {
            if (!member(c, i)) continue;
            struct rec *x = rec_of(&M.r[i], c);
            if (!x != !x0) fail("%s exists on rank %d but not on rank %d", cdef(c)->name, x ? i : first, x ? first : i);
            else if (x && x->seq != x0->seq)
                fail("%s: count %llu on rank %d, %llu on rank %d", cdef(c)->name, (unsigned long long)x->seq, i,
                     (unsigned long long)x0->seq, first);
        }
    }
}

static void check_refused(const char *want)
{
    for (int i = 0; i < M.n; i++) {
        if (M.r[i].rc == 0) { fail("rank %d drained; want the refusal '%s'", i, want); return; }
        if (!strstr(M.r[i].err, want)) { fail("rank %d: '%s'; want '%s'", i, M.r[i].err, want); return; }
        if (strcmp(M.r[i].err, M.r[0].err) != 0) fail("ranks 0 and %d refuse differently", i);
    }
}

static uint64_t seq_of(int rank, int c)
{
    struct rec *x = rec_of(&M.r[rank], c);
    return x ? x->seq : (uint64_t)-1;
}

/* DRAIN_MODEL_DUMP=1: every rank's communicators and threads after the drain */
static void dump(void)
{
    for (int i = 0; i < M.n; i++) {
        struct rank *r = &M.r[i];
        fprintf(stderr, "  rank %d:", i);
        for (uint32_t e = 1; e <= r->used; e++)
            fprintf(stderr, " %s %llu/%llu", cdef(r->tab[e].def)->name, (unsigned long long)r->tab[e].seq,
                    (unsigned long long)r->tab[e].target);
        for (int k = 0; k < MAXT; k++)
            if (r->th[k].s) fprintf(stderr, " | thread %d: step %d state %d", k, r->th[k].pc, r->th[k].state);
        fputc('\n', stderr);
    }
}

static int run_once(const struct casedef *cs, uint64_t *trace, char *why, size_t len)
{
    setup(cs);
    pthread_t th[MAXR];
    if (!M.failed) {
        for (int i = 0; i < M.n; i++)
            if (pthread_create(&th[i], NULL, rank_main, &M.r[i]) != 0) { fail("pthread_create"); return -1; }
        for (int i = 0; i < M.n; i++) pthread_join(th[i], NULL);
    }
    if (!M.failed) {
        if (cs->refusal) check_refused(cs->refusal);
        else check_drained();
    }
    if (!M.failed && cs->check) {
        char w[512] = "";
        if (cs->check(w, sizeof w) != 0) fail("%s", w);
    }
    *trace = M.trace;
    if (getenv("DRAIN_MODEL_DUMP")) dump();
    if (M.failed) { snprintf(why, len, "%s", M.why); return -1; }
    return 0;
}

/* ---- the cases ---- */

/* comm ids: any distinct nonzero values below 2^62 (drain_rounds.c hashes them into slots) */
#define GID(n) (0x1000 + (uint64_t)(n) * 0x9e37)

/* X (a dup of world) returns on both ranks after the count: its target is 0 everywhere.  Rank 0 is
 * behind on Y, so its thread at X's gate may make one more call there; rank 1 learns X's new target
 * only from the next count, in a round in which nobody was behind: the "learned" sum keeps the
 * rounds going until rank 1 has made that call too. */
static int check_created_after_count(char *why, size_t len)
{
    if (M.learned < 1) { snprintf(why, len, "no closing sum found a rank behind"); return -1; }
    if (seq_of(0, 1) != 1 || seq_of(1, 1) != 1) {
        snprintf(why, len, "X's count %llu/%llu, want 1 on both (the one more call)", (unsigned long long)seq_of(0, 1),
                 (unsigned long long)seq_of(1, 1));
        return -1;
    }
    return 0;
}

static const struct casedef case_created_after_count = {
    .name = "comm_created_after_count", .nranks = 2, .nc = 3,
    .c = { { "world", 3, 1, 0, 1 }, { "X", 3, 0, 0, GID(1) }, { "Y", 3, 1, 0, GID(2) } },
    .t = {
        { { { MAKE(0, 1), COLL(1) }, 1, 1 }, { { COLL(2) }, 0, 0 } },
        { { { MAKE(0, 1), COLL(1) }, 1, 1 }, { { COLL(2) }, 1, 1 } },
    },
    .check = check_created_after_count,
};

/* Rank 0 is inside world's third collective (a lazy one: the others return only after rank 0's
 * progress engine turned) when the checkpoint comes; rank 1 has made two, rank 2 is still inside its
 * second.  They run on to the target; the others' last call returns only in the settle rounds, where
 * every rank turns its engine (rank 0 has left its own by then). */
static int check_deferred(char *why, size_t len)
{
    if (seq_of(0, 0) != 3) { snprintf(why, len, "world's count %llu, want 3", (unsigned long long)seq_of(0, 0)); return -1; }
    if (M.settle_rounds < 2) { snprintf(why, len, "%d settle round(s): the lazy collective returned before them", M.settle_rounds); return -1; }
    return 0;
}

static const struct casedef case_deferred = {
    .name = "rank_deferred_inside_collective", .nranks = 3, .nc = 1,
    .c = { { "world", 7, 1, 1, 1 } },
    .t = {
        { { { COLL(0), COLL(0), COLL(0) }, 3, 1 } },
        { { { COLL(0), COLL(0), COLL(0) }, 2, 0 } },
        { { { COLL(0), COLL(0), COLL(0) }, 2, 1 } },
    },
    .check = check_deferred,
};

/* Rank 0 is inside world's first collective; rank 1's thread is already at the gate for it when the
 * count is taken, and rank 1's second thread waits at Y's gate (Y at its target, 0, everywhere).  Rank 1
 * is behind on world, so Y gets one more call there (the rule is the rank's, whichever thread waits);
 * rank 0 learns it from the next count and makes it too (its thread, out of world, was at Y's gate).
 * Rank 1's first thread, out of world, is then held at Y: the drain ends with it waiting there. */
static int check_partner_at_gate(char *why, size_t len)
{
    if (seq_of(0, 0) != 1 || seq_of(0, 1) != 1) { snprintf(why, len, "world %llu Y %llu, want 1 and 1", (unsigned long long)seq_of(0, 0), (unsigned long long)seq_of(0, 1)); return -1; }
    if (M.r[1].th[0].state != T_GATED || M.r[1].th[1].state != T_DONE) { snprintf(why, len, "rank 1's threads: %d and %d, want held at Y and done", M.r[1].th[0].state, M.r[1].th[1].state); return -1; }
    return 0;
}

static const struct casedef case_partner_at_gate = {
    .name = "partner_at_gate", .nranks = 2, .nc = 2,
    .c = { { "world", 3, 1, 0, 1 }, { "Y", 3, 1, 0, GID(2) } },
    .t = {
        { { { COLL(0), COLL(1) }, 1, 1 } },
        { { { COLL(0), COLL(1) }, 0, 0 }, { { COLL(1) }, 0, 0 } },
    },
    .check = check_partner_at_gate,
};

/* World split into A = {0,1} and B = {2,3} (a collective on world), each rank at its own count on its
 * half when the checkpoint comes, then a world collective. */
static int check_split(char *why, size_t len)
{
    if (seq_of(0, 1) != 2 || seq_of(2, 2) != 1 || seq_of(0, 0) != 1) {
        snprintf(why, len, "A %lld B %lld world %lld, want 2, 1 and 1", (long long)seq_of(0, 1), (long long)seq_of(2, 2),
                 (long long)seq_of(0, 0));
        return -1;
    }
    if (M.settle_rounds < 2) { snprintf(why, len, "B's lazy call returned before the settle rounds"); return -1; }
    return 0;
}

#define SPLIT_SCRIPT(h) { MAKE(0, h), COLL(h), COLL(h), COLL(0), COLL(h), COLL(h) }
static const struct casedef case_split = {
    .name = "split_communicators", .nranks = 4, .nc = 3,
    .c = { { "world", 15, 1, 0, 1 }, { "A", 3, 0, 0, GID(3) }, { "B", 12, 0, 1, GID(4) } },
    .t = {
        { { SPLIT_SCRIPT(1), 3, 1 } },
        { { SPLIT_SCRIPT(1), 2, 0 } },
        { { SPLIT_SCRIPT(2), 1, 0 } },
        { { SPLIT_SCRIPT(2), 2, 1 } },
    },
    .check = check_split,
};

/* Four ranks, two threads each, interleaved: world, D (a dup of it, lazy), the pairs P02 and Q13, and E,
 * made by a constructor on world that rank 0 is inside when the checkpoint comes (rank 3 is still inside
 * world's second call, ranks 1 and 2 at the constructor's gate): the others make it during the drain,
 * so E appears on every rank after the count, with target 0; on D rank 2 is one call behind. */
static int check_four(char *why, size_t len)
{
    for (int r = 0; r < 4; r++)
        if (seq_of(r, 0) != 3 || seq_of(r, 1) != 2 || seq_of(r, 4) != 0) {
            snprintf(why, len, "rank %d: world %lld D %lld E %lld, want 3, 2 and 0 (E made)", r, (long long)seq_of(r, 0),
                     (long long)seq_of(r, 1), (long long)seq_of(r, 4));
            return -1;
        }
    return 0;
}

static const struct casedef case_four = {
    .name = "four_ranks", .nranks = 4, .nc = 5,
    .c = { { "world", 15, 1, 0, 1 }, { "D", 15, 1, 1, GID(5) }, { "P02", 5, 1, 0, GID(6) }, { "Q13", 10, 1, 0, GID(7) },
           { "E", 15, 0, 0, GID(8) } },
    .t = {
        { { { COLL(0), COLL(2), COLL(0), MAKE(0, 4), COLL(4) }, 4, 1 }, { { COLL(1), COLL(1), COLL(1) }, 2, 0 } },
        { { { COLL(0), COLL(3), COLL(0), MAKE(0, 4), COLL(4) }, 3, 0 }, { { COLL(1), COLL(1), COLL(1) }, 2, 1 } },
        { { { COLL(0), COLL(2), COLL(0), MAKE(0, 4), COLL(4) }, 3, 0 }, { { COLL(1), COLL(1), COLL(1) }, 1, 1 } },
        { { { COLL(0), COLL(3), COLL(0), MAKE(0, 4), COLL(4) }, 3, 1 }, { { COLL(1), COLL(1), COLL(1) }, 2, 0 } },
    },
    .check = check_four,
};

/* S = {0,1}: ranks 0 and 1 make a collective on S between two on world, which rank 2 does not.  At the
 * checkpoint ranks 0 and 1 have made world's first and wait at S (count 0 everywhere: target 0) while
 * rank 2 is inside world's second: they must each make one more call on S to reach it. */
static int check_some(char *why, size_t len)
{
    for (int r = 0; r < 3; r++)
        if (seq_of(r, 0) != 2) { snprintf(why, len, "world's count on rank %d: %llu, want 2", r, (unsigned long long)seq_of(r, 0)); return -1; }
    if (seq_of(0, 1) != 1) { snprintf(why, len, "S's count %llu, want 1", (unsigned long long)seq_of(0, 1)); return -1; }
    return 0;
}

static const struct casedef case_some = {
    .name = "collective_only_some_ranks_make", .nranks = 3, .nc = 2,
    .c = { { "world", 7, 1, 0, 1 }, { "S", 3, 1, 0, GID(9) } },
    .t = {
        { { { COLL(0), COLL(1), COLL(0) }, 1, 0 } },
        { { { COLL(0), COLL(1), COLL(0) }, 1, 0 } },
        { { { COLL(0), COLL(0) }, 2, 1 } },
    },
    .check = check_some,
};

/* Rank 0 started an access epoch towards rank 1, whose program posts only after a world collective
 * nobody has made (target 0): the epochs never match, the program runs on in vain, and after
 * MANA_EPOCH_WAIT (1 s of the model's clock) every rank refuses in the same settle round. */
static int check_expired(char *why, size_t len)
{
    if (M.settle_rounds < 10) { snprintf(why, len, "refused after %d settle round(s): the program did not run on", M.settle_rounds); return -1; }
    return 0;
}

static const struct casedef case_pscw_expired = {
    .name = "pscw_unmatched_expired", .nranks = 2, .nc = 1, .rma = 1, .epoch_wait_s = 1,
    .c = { { "world", 3, 1, 0, 1 } },
    .t = {
        { { { START(1), COLL(0) }, 1, 0 } },
        { { { COLL(0), POST(0) }, 0, 0 } },
    },
    .refusal = "one-sided drain: for 1 s a rank has been in an MPI_Win_start access epoch",
    .check = check_expired,
};

/* The same start, but rank 1 posts as soon as it is out of world's first collective, a lazy one that
 * returns on rank 1 only in the settle rounds (rank 0's progress engine), where one-sided calls wait:
 * the rounds settle with the epochs unmatched, the program runs on (the one-sided gate open), rank 1
 * posts, and the next rounds drain with the epochs matched. */
static int check_posted(char *why, size_t len)
{
    if (M.r[0].share + M.r[1].share != 0) { snprintf(why, len, "the post/start shares do not cancel"); return -1; }
    if (M.settle_batches < 2) { snprintf(why, len, "%d batch(es) of settle rounds: the program never ran on", M.settle_batches); return -1; }
    return 0;
}

static const struct casedef case_pscw_posted = {
    .name = "pscw_posted_while_running_on", .nranks = 2, .nc = 1, .rma = 1, .epoch_wait_s = 1,
    .c = { { "world", 3, 1, 1, 1 } },
    .t = {
        { { { START(1), COLL(0) }, 1, 0 } },
        { { { COLL(0), POST(0) }, 1, 1 } },
    },
    .check = check_posted,
};

/* Passive-target lock contention (MPICH's lockcontention tests): three ranks lock rank 0's window in
 * turn, put and unlock, for ever.  When the settle rounds close the one-sided gate, one rank holds the
 * lock (inside its put, or before its unlock) and the others are inside MPI_Win_lock, waiting for it.
 * A gate closed strictly holds the holder's put or unlock, so the waiters stay inside for good (busy
 * in every round: the checkpoint never came).  The lenient gate lets a rank with an epoch open finish
 * it: each holder in turn puts and unlocks, every rank then waits at the gate in front of its next
 * MPI_Win_lock, and a strict round finds nobody inside. */
static int check_lock_contention(char *why, size_t len)
{
    if (M.settle_batches != 1) { snprintf(why, len, "%d batches of settle rounds, want 1", M.settle_batches); return -1; }
    if (M.settle_rounds < 3) { snprintf(why, len, "%d settle round(s): the contention was never seen", M.settle_rounds); return -1; }
    for (int i = 0; i < M.n; i++)
        if (M.r[i].nheld) { snprintf(why, len, "rank %d still holds a lock", i); return -1; }
    return 0;
}

static const struct casedef case_lock_contention = {
    .name = "passive_lock_contention", .nranks = 3, .nc = 1, .rma = 1,
    .c = { { "world", 7, 1, 0, 1 } },
    .t = {
        { { { LOCK(0), PUT(0), UNLOCK(0), LOOP }, 1, 0 } },
        { { { LOCK(0), PUT(0), UNLOCK(0), LOOP }, 1, 1 } },
        { { { LOCK(0), PUT(0), UNLOCK(0), LOOP }, 1, 1 } },
    },
    .check = check_lock_contention,
};

/* A lock held at the checkpoint with nobody waiting for it stays held (the restart takes it again,
 * win.c): rank 1 holds it and waits at world's gate (target 0) before its unlock; the first settle
 * round is strict and finds nobody inside. */
static int check_lock_held(char *why, size_t len)
{
    if (M.settle_rounds != 1) { snprintf(why, len, "%d settle rounds, want 1", M.settle_rounds); return -1; }
    if (!M.r[1].held[0]) { snprintf(why, len, "rank 1 gave its lock up in the drain"); return -1; }
    return 0;
}

static const struct casedef case_lock_held = {
    .name = "passive_lock_held", .nranks = 2, .nc = 1, .rma = 1,
    .c = { { "world", 3, 1, 0, 1 } },
    .t = {
        { { { COLL(0) }, 0, 0 } },
        { { { LOCK(0), COLL(0), UNLOCK(0) }, 1, 0 } },
    },
    .check = check_lock_held,
};

/* Two communicators whose ids fall into one slot of comm_max's first table: their maxima come from a
 * second table (two reductions for the count). */
static struct casedef shared_slots;     /* its ids are chosen at start-up (find_colliding_ids) */

static int check_shared(char *why, size_t len)
{
    if (M.shared_tables < 1) { snprintf(why, len, "no comm_max table had a shared slot"); return -1; }
    if (seq_of(0, 1) != 2 || seq_of(1, 2) != 1) { snprintf(why, len, "counts %llu and %llu, want 2 and 1", (unsigned long long)seq_of(0, 1), (unsigned long long)seq_of(1, 2)); return -1; }
    return 0;
}

/* Messages received over several rounds: 0->1 at once, 1->2 in round 1, 2->0 and 0->2 in round 3 (the
 * drain ends after 4 rounds); then one that arrives in the last round (14). */
static int check_p2p_4(char *why, size_t len)
{
    if (M.p2p_rounds != 4) { snprintf(why, len, "%d rounds, want 4", M.p2p_rounds); return -1; }
    return 0;
}

static const struct casedef case_p2p = {
    .name = "p2p_in_flight_rounds", .nranks = 3, .nm = 4,
    .m = { { 0, 1, 0 }, { 1, 2, 1 }, { 2, 0, 3 }, { 0, 2, 3 } },
    .check = check_p2p_4,
};

static int check_p2p_14(char *why, size_t len)
{
    if (M.p2p_rounds != 14) { snprintf(why, len, "%d rounds, want 14", M.p2p_rounds); return -1; }
    return 0;
}

static const struct casedef case_p2p_last = {
    .name = "p2p_in_flight_last_round", .nranks = 2, .nm = 2,
    .m = { { 0, 1, 0 }, { 1, 0, 13 } },
    .check = check_p2p_14,
};

/* A transport that hands over one message a round: 0->1 in round 2, 1->0 in round 14, 0->1 in round 27
 * (12 rounds after the last one that received anything): the rounds go on while the count falls, past
 * the 14 phases, which serve again in turn. */
static int check_p2p_28(char *why, size_t len)
{
    if (M.p2p_rounds != 28) { snprintf(why, len, "%d rounds, want 28", M.p2p_rounds); return -1; }
    return 0;
}

static const struct casedef case_p2p_trickle = {
    .name = "p2p_in_flight_trickle", .nranks = 2, .nm = 3,
    .m = { { 0, 1, 2 }, { 1, 0, 14 }, { 0, 1, 27 } },
    .check = check_p2p_28,
};

/* One message never arrives: refused once 14 rounds in a row received nothing (rounds 3..16). */
static int check_p2p_17(char *why, size_t len)
{
    if (M.p2p_rounds != 17) { snprintf(why, len, "%d rounds, want 17", M.p2p_rounds); return -1; }
    return 0;
}

static const struct casedef case_p2p_refused = {
    .name = "p2p_in_flight_refused", .nranks = 2, .nm = 2,
    .m = { { 0, 1, 2 }, { 1, 0, -1 } },
    .refusal = "point-to-point drain: 1 message(s) still in flight after 14 rounds that received none",
    .check = check_p2p_17,
};

/* comm_max's slot of an id in table `round`, as drain_rounds.c computes it (cm_slot). */
static int slot_of(uint64_t gid, int round)
{
    return (int)(drain_mix(gid ^ drain_mix(0x2545f4914f6cdd1dULL + (uint64_t)round)) % DRAIN_CM_SLOTS);
}

static void find_colliding_ids(void)
{
    shared_slots = (struct casedef){
        .name = "comm_max_shared_slots", .nranks = 2, .nc = 3,
        .c = { { "world", 3, 1, 0, 1 }, { "U", 3, 1, 0, 0 }, { "V", 3, 1, 0, 0 } },
        .t = {
            { { { COLL(1), COLL(1) }, 2, 1 }, { { COLL(2) }, 0, 0 } },
            { { { COLL(1), COLL(1) }, 1, 0 }, { { COLL(2) }, 1, 1 } },
        },
        .check = check_shared,
    };
    uint64_t a = GID(10);
    for (uint64_t b = a + 1;; b++)
        if (slot_of(b, 0) == slot_of(a, 0) && slot_of(b, 1) != slot_of(a, 1) && slot_of(b, 0) != slot_of(1, 0) &&
            slot_of(a, 1) != slot_of(1, 1) && slot_of(b, 1) != slot_of(1, 1)) {
            shared_slots.c[1].gid = a;
            shared_slots.c[2].gid = b;
            return;
        }
}

/* MPICH's comm_group_rand: rank 0 is inside MPI_Comm_create_group with rank 2 (group G02), while
 * ranks 1 and 2 wait at the gate of a barrier on C12, which their own create_group (G12) made before
 * the count: target 0.  No count links rank 0's call to rank 2 (the call is counted on no
 * communicator rank 2 knows), so nobody is behind, and the settle rounds find rank 0 inside for good
 * (the drain used to run out of its 40,000 settle rounds).  The rounds that find a thread inside a
 * collective over a group let every held thread make one more call: ranks 1 and 2 pass C12's barrier,
 * rank 2 then waits at its create_group gate, the next such step lets it in, G02's call returns on
 * both and the drain ends with ranks 0 and 2 held at C02's first barrier. */
static int check_create_group(char *why, size_t len)
{
    if (seq_of(1, 2) != 1 || seq_of(2, 2) != 1) {
        snprintf(why, len, "C12's count %lld/%lld, want 1 on both (the one more call)", (long long)seq_of(1, 2),
                 (long long)seq_of(2, 2));
        return -1;
    }
    if (seq_of(0, 3) != 0 || seq_of(2, 3) != 0) { snprintf(why, len, "C02 not made on ranks 0 and 2, or used"); return -1; }
    if (M.r[0].th[0].state != T_GATED || M.r[2].th[0].state != T_GATED) {
        snprintf(why, len, "ranks 0 and 2 are not held at C02's barrier"); return -1;
    }
    if (M.settle_batches < 3) { snprintf(why, len, "%d settle batch(es): the create_group never waited", M.settle_batches); return -1; }
    return 0;
}

static const struct casedef case_create_group = {
    .name = "create_group_partner_held", .nranks = 3, .nc = 5,
    .c = { { "G12", 6, 0, 0, 0, 1 }, { "G02", 5, 0, 0, 0, 1 }, { "C12", 6, 0, 0, GID(11) }, { "C02", 5, 0, 0, GID(12) },
           { "world", 7, 1, 0, 1 } },
    .t = {
        { { { GCOLL(1, 3), COLL(3) }, 1, 1 } },
        { { { GCOLL(0, 2), COLL(2) }, 1, 0 } },
        { { { GCOLL(0, 2), COLL(2), GCOLL(1, 3), COLL(3) }, 1, 0 } },
    },
    .check = check_create_group,
};

/* MPICH's probe_intercomm on Open MPI: world split into L0 = {0,1} and L1 = {2,3}, then
 * MPI_Intercomm_create between them.  Ranks 0 and 1 are inside it (counted on L0) when the checkpoint
 * comes; ranks 2 and 3 have their L1 (made before the count: target 0) and wait at its gate.  Each
 * group counts the call on its own local communicator, so nobody is behind; the settle rounds find a
 * thread inside a collective over a group and let the held threads through: ranks 2 and 3 enter, the
 * call returns on all four, and the drain ends with every rank held at I's first collective. */
static int check_intercomm(char *why, size_t len)
{
    for (int r = 0; r < 4; r++)
        if (seq_of(r, r < 2 ? 1 : 2) != 1 || seq_of(r, 3) != 0) {
            snprintf(why, len, "rank %d: local %lld inter %lld, want 1 and 0 (made)", r, (long long)seq_of(r, r < 2 ? 1 : 2),
                     (long long)seq_of(r, 3));
            return -1;
        }
    return 0;
}

#define ICREATE_SCRIPT(l, o) { MAKE(0, l), ICOLL(l, o, 3), COLL(3) }
static const struct casedef case_intercomm = {
    .name = "intercomm_create_other_group_held", .nranks = 4, .nc = 4,
    .c = { { "world", 15, 1, 0, 1 }, { "L0", 3, 0, 0, GID(13) }, { "L1", 12, 0, 0, GID(14) }, { "I", 15, 0, 0, GID(15) } },
    .t = {
        { { ICREATE_SCRIPT(1, 2), 2, 1 } },
        { { ICREATE_SCRIPT(1, 2), 2, 1 } },
        { { ICREATE_SCRIPT(2, 1), 1, 0 } },
        { { ICREATE_SCRIPT(2, 1), 1, 0 } },
    },
    .check = check_intercomm,
};

/* MPICH's coll/nonblocking3: rank 1 waits (its thread inside a call on the lazy L, standing for an
 * MPI_Waitall on a nonblocking collective) for data only rank 0's progress engine moves, while rank 0,
 * which had returned from L at once and started two nonblocking collectives on X, waits at X's gate.
 * Rank 1 is behind on X by two; its wait ends only when rank 0's engine turns, which the target rounds
 * never did (only the settle rounds turned it, and they never came: rank 1 stayed behind until the
 * 600 s limit).  Ranks not behind now turn their engines while others stay behind round after round. */
static int check_lazy_wait(char *why, size_t len)
{
    if (seq_of(0, 1) != 2 || seq_of(1, 1) != 2 || seq_of(1, 0) != 1) {
        snprintf(why, len, "X %lld/%lld, L %lld, want 2, 2 and 1", (long long)seq_of(0, 1), (long long)seq_of(1, 1),
                 (long long)seq_of(1, 0));
        return -1;
    }
    if (M.r[0].pokes == 0) { snprintf(why, len, "rank 0 never turned its progress engine"); return -1; }
    return 0;
}

static const struct casedef case_lazy_wait = {
    .name = "behind_waiting_for_held_progress", .nranks = 2, .nc = 2,
    .c = { { "L", 3, 1, 1, GID(16) }, { "X", 3, 1, 0, GID(17) } },
    .t = {
        { { { COLL(0), NBC(1), NBC(1), COLL(1) }, 3, 0 } },
        { { { COLL(0), NBC(1), NBC(1), COLL(1) }, 1, 1 } },
    },
    .check = check_lazy_wait,
};

static const struct casedef *cases[] = {
    &case_created_after_count, &case_deferred, &case_partner_at_gate, &case_split, &case_four, &case_some,
    &case_pscw_expired, &case_pscw_posted, &case_lock_contention, &case_lock_held, &shared_slots, &case_p2p, &case_p2p_last, &case_p2p_trickle, &case_p2p_refused,
    &case_create_group, &case_intercomm, &case_lazy_wait,
};

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *dbg = getenv("MANA_DEBUG");
    debug_on = dbg && *dbg && strcmp(dbg, "0") != 0;
    find_colliding_ids();
    int failed = 0, ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct casedef *cs = cases[i];
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], cs->name) == 0;
        if (!wanted) continue;
        ran++;
        char why[600] = "";
        uint64_t tr[3] = { 0, 0, 0 };
        int bad = 0;
        for (int k = 0; k < 3 && !bad; k++) {
            bad = run_once(cs, &tr[k], why, sizeof why) != 0;
            if (!bad && k && tr[k] != tr[0]) {
                snprintf(why, sizeof why, "run %d did not do what run 1 did (trace %016llx, not %016llx)", k + 1,
                         (unsigned long long)tr[k], (unsigned long long)tr[0]);
                bad = 1;
            }
        }
        if (bad) {
            printf("FAIL %s: %s\n", cs->name, why);
            failed++;
        } else {
            printf("ok   %s: %d reductions (%d settle rounds in %d batch(es), %d p2p rounds), trace %016llx%s%s\n",
                   cs->name, M.reductions, M.settle_rounds, M.settle_batches, M.p2p_rounds,
                   (unsigned long long)tr[0], cs->refusal ? ", refused: " : "", cs->refusal ? M.r[0].err : "");
        }
    }
    if (!ran) { fprintf(stderr, "drain_model: no such case\n"); return 2; }
    printf("%d of %d case(s) passed\n", ran - failed, ran);
    return failed ? 1 : 0;
}
