/*
 * drain_rounds.h - the decisions of both drains, apart from MPI (docs/architecture.md, "Checkpoint").
 *
 * The collective drain (core.c: quiesce) and the point-to-point drain (p2p.c: mana_p2p_drain) talk to
 * the coordinator through one reduction and read and write a few counters of each communicator.  Their
 * rounds (which reduction, with which vector, what its result means, when to stop, when to give up)
 * live in drain_rounds.c and see the rest of the process only through the operations below: core.c
 * and p2p.c give the real ones, and the unit test core-native/tests/unit/drain_model.c gives a model
 * of N ranks (threads of one process, a barrier for the coordinator), so the same code runs in both.
 *
 * Part of the upper half (compiled into the runtime's MPI library with -fno-stack-protector); it never
 * runs in a restore path.  No mpi.h here.
 */
#ifndef MANA_DRAIN_ROUNDS_H
#define MANA_DRAIN_ROUNDS_H

#include <stddef.h>
#include <stdint.h>

/* comm_max's table: 3 values a slot and one flag, 4,096 values (the coordinator's limit) */
#define DRAIN_CM_SLOTS 1365
#define DRAIN_CM_ROUNDS 32
/* settle rounds: 40,000 in all, in batches of 256 (see drain_rounds.c); a batch ends after 16 rounds
 * that found a thread inside a collective over a group (inside_group) */
#define DRAIN_SETTLE_ROUNDS 40000
#define DRAIN_SETTLE_BATCH 256
#define DRAIN_SETTLE_GROUP 16
/* the point-to-point drain's phases (18..31, used in turn) and its limit: rounds in a row in which the
 * job's count of messages in flight did not fall */
#define DRAIN_P2P_ROUNDS 14

/* One live communicator (or open file, or window: each has its own sequence of collective calls) as
 * the collective drain sees it: its id, and its counters in the caller's record. */
struct drain_comm {
    uint64_t gid;             /* the same on every member */
    uint64_t *seq;            /* collectives started on it here (the program's threads raise it) */
    uint64_t *target;         /* the count every member must reach (the drain sets it) */
    uint64_t *cm_epoch;       /* comm_max: the call that counted it, still unresolved */
    uint64_t *cm_done;        /* comm_max: the call that found its maximum (in cm_val) */
    int64_t *cm_val;          /* comm_max: its value, then the largest over its members */
    int64_t need;             /* drain_calls_needed: 1 while this rank needs the communicator (cfree.c) */
};

/* The one-sided gate's states (rma_close). */
#define DRAIN_RMA_OPEN    0
#define DRAIN_RMA_LENIENT 1
#define DRAIN_RMA_STRICT  2

/* What the collective drain needs from the process (core.c: the real ones). */
struct drain_coll_ops {
    /* entries 1..used() of the object table: comm(i) fills c for any entry (of another kind: its
     * counters are 0 and never set) and returns 1 when it is a live communicator */
    uint32_t (*used)(void *ctx);
    int (*comm)(void *ctx, uint32_t i, struct drain_comm *c);
    /* the same entries seen by the collective call that made them (drain_calls_needed): returns 1 for a
     * communicator made by such a call, live or freed or MPI_COMM_NULL here, with c->gid the call's id */
    int (*call)(void *ctx, uint32_t i, struct drain_comm *c);
    /* the gate list: slot 0..ngated-1 holds a live communicator a program thread waits at (returns 1) */
    int ngated;
    int (*gated)(void *ctx, int slot, struct drain_comm *c);
    /* the gate in front of every collective: 1 every thread waits (returns once no thread is between
     * the gate's check and its count), 2 a thread enters only while seq < target */
    void (*set_phase)(void *ctx, int phase);
    /* the gate's generation; wake the threads at the gate; let the program run until the generation
     * changes or 10 ms pass (the "run on until not behind" wait) */
    int (*gen)(void *ctx);
    void (*wake)(void *ctx);
    void (*sleep)(void *ctx, int gen);
    /* threads of this rank inside a collective call (or a one-sided call that may wait) */
    int64_t (*inside)(void *ctx);
    /* of those, threads inside a collective over a group that no one communicator counts on all its
     * members (MPI_Comm_create_group, MPI_Intercomm_create): a partner may be held at a gate that its
     * own counts say it has reached (NULL: none ever) */
    int64_t (*inside_group)(void *ctx);
    /* 1 while a gate of this rank's own, outside the table and every reduction (the one in front of
     * MPI_Comm_create_group), has a call granted by one_more that no thread has made yet (NULL: none) */
    int (*local_behind)(void *ctx);
    /* 1 once the program called MPI_Finalize */
    int (*finalized)(void *ctx);
    /* one-sided: a window exists; this rank's post/start share; the one-sided gate: DRAIN_RMA_OPEN,
     * _LENIENT (only a call that ends or works in a passive-target epoch the rank holds passes) or
     * _STRICT (none passes; returns once no thread is between the gate's check and its count) */
    int (*rma_used)(void *ctx);
    int64_t (*pscw_share)(void *ctx);
    void (*rma_close)(void *ctx, int closed);
    /* turn the lower half's progress engine once (unless a program thread holds it); give the CPU up */
    void (*poke)(void *ctx);
    void (*yield)(void *ctx);
    /* the monotonic clock, ns */
    int64_t (*now_ns)(void *ctx);
    /* the coordinator's COLLECTIVE over the job (mana_mpi_iface.h: reduce); 0, or -1 with err */
    int (*reduce)(void *ctx, uint32_t g, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err,
                  size_t errlen);
    /* MANA_DEBUG: the messages (one line each) */
    int (*debug)(void *ctx);
    void (*message)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

/* One rank's collective drain: its operations and what lasts from one checkpoint to the next. */
struct drain_coll {
    const struct drain_coll_ops *ops;
    void *ctx;
    long epoch_wait_s;        /* MANA_EPOCH_WAIT: how long post/start epochs may stay unmatched (60) */
    uint64_t cm_epoch;        /* comm_max calls so far */
    int phase;                /* the free phases one checkpoint has used (drain_quiesce starts it at 0) */
    int64_t table[3 * DRAIN_CM_SLOTS + 1];    /* comm_max's reduction vector (32 KiB: not on a stack) */
};

/* The collective drain of one checkpoint (the gate is open when it is called; it leaves it at phase 2,
 * for the caller's resume to open).  0 drained, -1 with err. */
int drain_quiesce(struct drain_coll *d, uint32_t g, char *err, size_t errlen);

/* After the drains, with every program thread kept out of MPI: for every communicator made by a
 * collective call, the largest `need` over all the ranks that took part in that call.  A call's
 * communicators are then in *c.cm_done == d->cm_epoch with *c.cm_val that largest need: 0 means no
 * rank needs any of them (all freed, or MPI_COMM_NULL), so every rank may forget the call at once and
 * a restart makes it on none.  0, or -1 with err. */
int drain_calls_needed(struct drain_coll *d, uint32_t g, char *err, size_t errlen);

/* What the point-to-point drain's rounds need (p2p.c: the real ones). */
struct drain_p2p_ops {
    /* test every pending request, receive every unmatched message into the upper half */
    void (*round)(void *ctx);
    /* messages this rank sent and received (the job's sums of both are equal once nothing is in flight) */
    void (*counts)(void *ctx, uint64_t *sent, uint64_t *received);
    int (*reduce)(void *ctx, uint32_t g, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err,
                  size_t errlen);
    int (*debug)(void *ctx);
    void (*message)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

/* Rounds until the job's sum of (sent - received) is 0; DRAIN_P2P_ROUNDS rounds in a row that receive
 * nothing anywhere fail.  0, or -1 with err. */
int drain_p2p_rounds(const struct drain_p2p_ops *ops, void *ctx, uint32_t g, char *err, size_t errlen);

/* The 64-bit mixer of communicator ids and slots (splitmix64's finalizer). */
static inline uint64_t drain_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

#endif
