/*
 * drain_rounds.c - the rounds of both drains: what each rank sends the coordinator, what it makes of
 * the answer, when it stops and when it gives up (drain_rounds.h; docs/architecture.md, "Checkpoint").
 * Everything it touches goes through the operations it is given: core.c and p2p.c run it on the real
 * process, core-native/tests/unit/drain_model.c on a model of several ranks.
 */
#include "drain_rounds.h"

#include <stdio.h>

#include "mana_mpi_iface.h"     /* MANA_RED_*, and the phases (mana/phases.h) */

/* ---- per-communicator maxima over the ranks ----
 *
 * The drain needs, for each communicator, the largest of a count over its members.  The coordinator
 * reduces vectors of one length over all ranks, so a communicator has a slot in a table, by a hash of
 * its id, and every slot carries the largest and the smallest id put there besides the value: a slot
 * is clean when both are the same id.  Communicators that share a slot (with 5 live communicators
 * about one table in 140 has such a pair, with 60 three in four) get their maxima in another round,
 * by another hash, on a table of the unresolved ones only.  Every rank sees the same slots, clean or
 * not, so all run the same rounds.  (A checkpoint used to be refused at such a pair: ~7% of the
 * checkpoints of one test program, whose live communicators happened to hash that way.) */
#define CM_SLOTS DRAIN_CM_SLOTS
#define CM_ROUNDS DRAIN_CM_ROUNDS

static int cm_slot(uint64_t gid, int round)
{
    return (int)(drain_mix(gid ^ drain_mix(0x2545f4914f6cdd1dULL + (uint64_t)round)) % CM_SLOTS);
}

/* The reduction phases of one quiesce (free phases, docs/coordinator-protocol.md: 64 + n & 0x3fff). */
static uint16_t drain_phase(int *n)
{
    return (uint16_t)(MANA_PHASE_FREE_FIRST + ((*n)++ & MANA_PHASE_COLL_DRAIN_MASK));
}

/* For every communicator live now: *cm_val = the largest of value(c) over the members that have it
 * live now (cm_done marks the ones done).  *flag: in, this rank's; out, the largest of all ranks'. */
static int comm_max_by(struct drain_coll *d, uint32_t g, int *phase, int (*view)(void *, uint32_t, struct drain_comm *),
                       int64_t (*value)(const struct drain_comm *), int64_t *flag, char *err, size_t errlen)
{
    const struct drain_coll_ops *ops = d->ops;
    int64_t *t = d->table;
    uint64_t ep = ++d->cm_epoch;
    uint32_t used = ops->used(d->ctx);
    struct drain_comm c;
    for (uint32_t i = 1; i <= used; i++) {
        if (!view(d->ctx, i, &c)) continue;
        *c.cm_val = value(&c);
        *c.cm_epoch = ep;
    }
    for (int round = 0; round < CM_ROUNDS; round++) {
        for (int k = 0; k < CM_SLOTS; k++) { t[k] = 0; t[CM_SLOTS + k] = INT64_MIN; t[2 * CM_SLOTS + k] = INT64_MIN; }
        t[3 * CM_SLOTS] = *flag;
        for (uint32_t i = 1; i <= used; i++) {
            view(d->ctx, i, &c);                /* counted above: live then, whatever it is now */
            if (*c.cm_epoch != ep) continue;
            int k = cm_slot(c.gid, round);
            if ((int64_t)c.gid > t[k]) t[k] = (int64_t)c.gid;
            if (-(int64_t)c.gid > t[CM_SLOTS + k]) t[CM_SLOTS + k] = -(int64_t)c.gid;
            if (*c.cm_val > t[2 * CM_SLOTS + k]) t[2 * CM_SLOTS + k] = *c.cm_val;
        }
        if (ops->reduce(d->ctx, g, drain_phase(phase), MANA_RED_MAX, t, 3 * CM_SLOTS + 1, err, errlen) != 0)
            return -1;
        *flag = t[3 * CM_SLOTS];
        int shared = 0;
        for (int k = 0; k < CM_SLOTS && !shared; k++) shared = t[k] != 0 && t[k] != -t[CM_SLOTS + k];
        for (uint32_t i = 1; i <= used; i++) {
            view(d->ctx, i, &c);
            if (*c.cm_epoch != ep) continue;
            int k = cm_slot(c.gid, round);
            if (t[k] == (int64_t)c.gid && -t[CM_SLOTS + k] == (int64_t)c.gid) {
                *c.cm_val = t[2 * CM_SLOTS + k];
                *c.cm_epoch = 0;
                *c.cm_done = ep;
            }
        }
        if (!shared) return 0;
        if (ops->debug(d->ctx)) ops->message("mana: collective drain: communicator ids share slots of table %d; one more", round);
    }
    snprintf(err, errlen, "collective drain: communicator ids still shared slots after %d tables; checkpoint refused",
             CM_ROUNDS);
    return -1;
}

static int comm_max(struct drain_coll *d, uint32_t g, int *phase, int64_t (*value)(const struct drain_comm *),
                    int64_t *flag, char *err, size_t errlen)
{
    return comm_max_by(d, g, phase, d->ops->comm, value, flag, err, errlen);
}

static int64_t comm_seq(const struct drain_comm *c) { return (int64_t)*c->seq; }
static int64_t comm_want(const struct drain_comm *c) { return (int64_t)(*c->seq > *c->target ? *c->seq : *c->target); }

/* Every rank reached its targets, but a thread may still be inside its last collective: a partner
 * that already left the same collective can owe it data that only the partner's progress engine
 * moves (MPICH's shared-memory collectives do this), and a stopped partner would never move it.  So
 * no rank goes on to stop its threads until no rank has a thread inside a collective; meanwhile
 * every rank keeps its progress engine turning.  Rounds of one coordinator sum each, phases 16,448
 * and up (free for the runtime, docs/coordinator-protocol.md; 64-16,447 are the count and target rounds). */
#define SETTLE_PHASE0 MANA_PHASE_SETTLE_FIRST /* after the count and target rounds' phases (drain_phase) */
#define SETTLE_ROUNDS DRAIN_SETTLE_ROUNDS
/* Returns 0 settled, -1 failed, 1 still busy after SETTLE_BATCH rounds: the caller runs target rounds
 * again, since a communicator a rank made after the last target round may hold a thread at the gate
 * that a partner's collective waits for, and lets every held thread make one more call (see
 * drain_quiesce).  A batch in which a thread has been inside a collective over a group for
 * SETTLE_GROUP rounds ends there: such a call waits for members that no count says are behind.
 * `*rp` counts rounds across calls (phases stay distinct). */
#define SETTLE_BATCH DRAIN_SETTLE_BATCH
#define SETTLE_GROUP DRAIN_SETTLE_GROUP

/* Let the program and the progress engine run for `ns` (the clock's own time), turning the engine. */
static void run_on(struct drain_coll *d, int64_t ns)
{
    const struct drain_coll_ops *ops = d->ops;
    int64_t t0 = ops->now_ns(d->ctx), t;
    do {
        ops->poke(d->ctx);
        ops->yield(d->ctx);
        t = ops->now_ns(d->ctx);
    } while (t - t0 < ns);
}

static int settle_batch(struct drain_coll *d, uint32_t g, int *rp, int64_t *unmatched, int *expired, int64_t t0,
                        char *err, size_t errlen);

/* *unmatched: the job's sum of the post/start shares (win.c) in the last round (stable once settled); 0
 * when every open general active-target epoch has its partner open.  *expired: some rank has been in
 * this checkpoint (since t0, its clock) for MANA_EPOCH_WAIT seconds or more; a sum, so every rank learns
 * it in the same round and they all give up together. */
static int settle(struct drain_coll *d, uint32_t g, int *rp, int64_t *unmatched, int *expired, int64_t t0,
                  char *err, size_t errlen)
{
    /* no one-sided call starts during the rounds (but see settle_batch); the gate opens again when the
     * target rounds must run again (a thread may have to pass it to reach a collective), and at resume() */
    d->ops->rma_close(d->ctx, DRAIN_RMA_STRICT);
    int rc = settle_batch(d, g, rp, unmatched, expired, t0, err, errlen);
    if (rc == 1) d->ops->rma_close(d->ctx, DRAIN_RMA_OPEN);
    return rc;
}

static int settle_batch(struct drain_coll *d, uint32_t g, int *rp, int64_t *unmatched, int *expired, int64_t t0,
                        char *err, size_t errlen)
{
    const struct drain_coll_ops *ops = d->ops;
    /* A thread inside MPI_Win_lock waits for the rank that holds the lock, whose MPI_Win_unlock (or the
     * put before it) is one-sided too: with the gate closed to it the waiter stays inside for good
     * (MPICH's lockcontention tests: the checkpoint never came).  So after a round that found a
     * thread inside, the gate turns lenient: a call of a rank that holds a passive-target epoch on the
     * call's window passes, and ends that epoch, while the calls that open epochs still wait.  Only a
     * round made with the gate strict can settle: a thread that passed leniently is counted inside by
     * then (rma_close returns once no thread is between the gate's check and its count). */
    int strict = 1, said = 0, group_rounds = 0;
    for (int n = 0; n < SETTLE_BATCH; n++, (*rp)++) {
        int round = *rp;
        if (round >= SETTLE_ROUNDS) break;
        ops->rma_close(d->ctx, strict ? DRAIN_RMA_STRICT : DRAIN_RMA_LENIENT);
        /* the epochs' counts change only inside one-sided calls: once none is inside (busy 0) and none
         * may start (the gate strict), this rank's share stays what it is read as here */
        int64_t now_s = ops->now_ns(d->ctx) / 1000000000LL;
        int64_t v[4] = { ops->inside(d->ctx), 0, now_s - t0 >= d->epoch_wait_s,
                         ops->inside_group ? ops->inside_group(d->ctx) : 0 };
        if (ops->rma_used(d->ctx)) v[1] = ops->pscw_share(d->ctx);
        if (ops->reduce(d->ctx, g, (uint16_t)(SETTLE_PHASE0 + round), MANA_RED_SUM, v, 4, err, errlen) != 0)
            return -1;
        int64_t busy = v[0];
        *unmatched = v[1];
        *expired = v[2] != 0;
        /* an epoch without its partner all this time (a rank blocked in MPI_Win_start or _complete for a
         * post its target makes only after the checkpoint stays busy): give up now */
        if (*unmatched != 0 && *expired) return 0;
        if (busy == 0 && strict) {
            if (ops->debug(d->ctx) && round) ops->message("mana: collective drain: settled after %d round(s)", round);
            return 0;
        }
        if (strict && busy && ops->rma_used(d->ctx) && ops->debug(d->ctx) && !said++)
            ops->message("mana: collective drain: %lld thread(s) inside a collective or one-sided call; the one-sided "
                         "gate lets passive-target epochs finish", (long long)busy);
        strict = busy == 0;
        /* a collective over a group waits for members held at gates they have reached (every rank sees
         * the same sums, so all return here in the same round) */
        group_rounds = busy && v[3] ? group_rounds + 1 : 0;
        if (group_rounds >= SETTLE_GROUP) {
            if (ops->debug(d->ctx))
                ops->message("mana: collective drain: %lld thread(s) inside a collective over a group for %d rounds",
                             (long long)v[3], group_rounds);
            (*rp)++;
            return 1;
        }
        run_on(d, 1000000L);
    }
    if (*rp < SETTLE_ROUNDS) return 1;
    snprintf(err, errlen, "collective drain: a collective call did not finish within %d rounds", SETTLE_ROUNDS);
    return -1;
}

/* Is any live communicator of this rank behind its target? */
static int behind_here(struct drain_coll *d)
{
    struct drain_comm c;
    uint32_t used = d->ops->used(d->ctx);
    for (uint32_t i = 1; i <= used; i++)
        if (d->ops->comm(d->ctx, i, &c) && *c.seq < *c.target) return 1;
    return d->ops->local_behind && d->ops->local_behind(d->ctx);
}

/* A thread waits at the gate of a communicator already at its target while its rank is behind
 * elsewhere (or while a collective waits for held ranks, drain_quiesce): it may make one more call
 * there (that target goes up by one; the other members learn it in the next round).  Returns how many
 * gates got one more. */
static int one_more(struct drain_coll *d)
{
    struct drain_comm c;
    int more = 0;
    for (int i = 0; i < d->ops->ngated; i++)
        if (d->ops->gated(d->ctx, i, &c) && *c.seq >= *c.target) { *c.target = *c.seq + 1; more++; }
    return more;
}

int drain_quiesce(struct drain_coll *d, uint32_t g, char *err, size_t errlen)
{
    const struct drain_coll_ops *ops = d->ops;
    void *ctx = d->ctx;
    int64_t t0 = ops->now_ns(ctx) / 1000000000LL;
    ops->set_phase(ctx, 1);

    /* Every member's count for every communicator: the targets.  A communicator whose constructor
     * returned after every rank had counted is in no count (target 0): nobody has used it yet, and a
     * target round below raises its target if somebody does. */
    int *phase = &d->phase;
    *phase = 0;
    int64_t none = 0;
    struct drain_comm c;
    uint32_t used = ops->used(ctx);
    for (uint32_t i = 1; i <= used; i++)
        if (ops->comm(ctx, i, &c)) *c.target = 0;
    if (comm_max(d, g, phase, comm_seq, &none, err, errlen) != 0) return -1;
    uint64_t behind = 0;
    for (uint32_t i = 1; i <= used; i++) {
        if (!ops->comm(ctx, i, &c) || *c.cm_done != d->cm_epoch) continue;
        *c.target = (uint64_t)*c.cm_val;
        if (*c.seq < *c.target) behind += *c.target - *c.seq;
    }
    ops->set_phase(ctx, 2);
    /* Run on until every communicator reached its target.  A target is the highest count any member
     * has, so it can take more than one round: a thread that must pass a communicator already at
     * its target to reach another's (a collective that only some ranks make between two of a shared
     * communicator) may make one more call there (its target goes up by one here, and on the other
     * members with the next round); rounds go on until no rank is behind anywhere. */
    int settle_round = 0, stuck = 0, behind_rounds = 0;
again:
    /* The settle rounds found a thread inside a collective for a whole batch, or inside one over a group
     * (MPI_Comm_create_group, MPI_Intercomm_create): it may wait for a rank that is held at a gate its
     * counts say it has reached (MPICH's comm_group_rand: rank 0 inside a create_group with rank 2,
     * which waits at the gate of a barrier on a communicator it shares with rank 1 only; no count
     * links them).  So every thread held at a gate makes one more call there, on every rank (all saw
     * the same sums): the targets go up by one, the other members learn it in the rounds below, and
     * the settle rounds come again.  Each such step moves the program by one collective; one that
     * never frees the waiting thread ends with the settle rounds' own limit. */
    if (stuck) {
        int more = one_more(d);
        behind += (uint64_t)more;
        if (more) ops->wake(ctx);
        if (ops->debug(ctx) && more)
            ops->message("mana: collective drain: a collective is waiting for held ranks: %d gate(s) here let one more call through", more);
        stuck = 0;
    }
    for (;;) {
        int64_t r0 = ops->now_ns(ctx);
        int behind_now;
        for (;;) {
            int gen = ops->gen(ctx);
            behind_now = behind_here(d);
            if (!behind_now || ops->finalized(ctx)) break;
            int more = one_more(d);
            behind += (uint64_t)more;
            if (more) ops->wake(ctx);
            int64_t now = ops->now_ns(ctx);
            if (now / 1000000000LL - t0 > 600) {
                snprintf(err, errlen, "collective drain: this rank did not reach the other ranks' collective calls within 600 s");
                return -1;
            }
            /* stuck (a thread in a collective that waits for ranks held elsewhere): tell the others */
            if (now - r0 > 20000000LL) break;
            ops->sleep(ctx, gen);
        }
        /* A rank behind for two rounds may be running on through a wait for data that only this rank's
         * progress engine moves, while this rank's threads are held at gates: MPICH (no asynchronous
         * progress) completes a nonblocking collective or a rendezvous send only as its members' engines
         * turn (MPICH's coll/nonblocking3: rank 0 in MPI_Waitall on collectives the others had started
         * and were held after, for good).  So this rank turns its engine while the others run on: the
         * window a behind rank has before the next round.  (Not in the first round: a rank is nearly
         * always one call behind, made at once.) */
        if (!behind_now && behind_rounds >= 2) {
            if (ops->debug(ctx) && behind_rounds == 2)
                ops->message("mana: collective drain: ranks behind for 2 rounds; this rank turns its progress engine while they run on");
            run_on(d, 20000000LL);
        }
        /* a thread of another rank may wait in a one-sided call for this rank's progress (see rma_enter) */
        else if (ops->rma_used(ctx)) ops->poke(ctx);
        /* The counts again (a communicator made since has one now), and whether anyone is behind. */
        int64_t anyone_behind = behind_now && !ops->finalized(ctx);
        if (comm_max(d, g, phase, comm_want, &anyone_behind, err, errlen) != 0) return -1;
        behind_rounds = anyone_behind ? behind_rounds + 1 : 0;
        /* The counts are applied before anyone decides to stop: a rank can learn here that it is behind
         * although nobody said so (a communicator it made after the first count, whose target is still
         * 0, on which a partner has already started a collective: stopping now left that partner inside
         * the collective for good, seen about once in 300 runs). */
        int64_t learned = 0;
        used = ops->used(ctx);
        for (uint32_t i = 1; i <= used; i++) {
            if (ops->comm(ctx, i, &c) && *c.cm_done == d->cm_epoch && (uint64_t)*c.cm_val > *c.target) {
                *c.target = (uint64_t)*c.cm_val;
                if (*c.seq < *c.target) learned = 1;
            }
        }
        ops->wake(ctx);
        if (!anyone_behind) {
            /* nobody was behind: stop only if nobody is behind now either (one more sum) */
            if (ops->reduce(ctx, g, drain_phase(phase), MANA_RED_SUM, &learned, 1, err, errlen) != 0)
                return -1;
            if (!learned) break;
        }
    }
    if (ops->debug(ctx)) ops->message("mana: collective drain: ran %llu collective call(s) on to the targets",
                                  (unsigned long long)behind);
    int64_t unmatched = 0;
    int expired = 0;
    int sr = settle(d, g, &settle_round, &unmatched, &expired, t0, err, errlen);
    if (sr >= 0 && unmatched != 0 && expired) {
        snprintf(err, errlen, "one-sided drain: for %ld s a rank has been in an MPI_Win_start access epoch whose "
                 "target has not posted it, or in an MPI_Win_post exposure epoch whose origin has not started "
                 "it (MANA_EPOCH_WAIT); the checkpoint is refused (the program goes on; take it again)",
                 d->epoch_wait_s);
        return -1;
    }
    if (sr == 1) { stuck = 1; goto again; }     /* still busy: targets again (every rank sees the same sums, so all come) */
    /* Settled, but a post/start epoch is open on one side of a pair only (an origin started towards a
     * target whose program has not posted yet, or the other way round): the drain could not close it.
     * The program threads run on a little and the rounds start again (every rank sees the same sum):
     * a program that meets a collective every iteration is soon held at its gate with its epochs
     * matched.  After 60 s (MANA_EPOCH_WAIT; all ranks at once, see settle) the drain refuses the
     * checkpoint instead. */
    if (sr == 0 && unmatched != 0) {
        ops->rma_close(ctx, DRAIN_RMA_OPEN);
        run_on(d, 2000000L);
        if (ops->debug(ctx)) ops->message("mana: collective drain: post/start epochs not matched yet; the program runs on");
        goto again;
    }
    return sr;
}

/* ---- the point-to-point drain's rounds ----
 * Each round: every pending request tested, every unmatched message received into the upper half; then
 * one sum of (sent - received) over the job.  0: nothing in flight.  The rounds go on while that sum
 * falls: a round takes what the transport has handed over when it looks, and a transport hands over
 * only so many small messages at a time (Open MPI about 64 a round, MPICH 5 to 32), so 2,000 of them in
 * flight took some 30 to 60 rounds, where a cap of 14 refused the checkpoint (MPICH's
 * threads/pt2pt/mt_mprobe_isendrecv; test mpi_*_inflight).  DRAIN_P2P_ROUNDS rounds in a row in which
 * the sum did not fall end the drain with an error.  The sum is the same on every rank, so every rank
 * makes the same decision.  The rounds' phases cycle through 18..31: a round's reduction completes
 * everywhere before any rank starts the next, so no phase is ever in use twice at once. */
int drain_p2p_rounds(const struct drain_p2p_ops *ops, void *ctx, uint32_t g, char *err, size_t errlen)
{
    int64_t least = INT64_MAX;
    for (int round = 0, idle = 0;; round++) {
        ops->round(ctx);
        uint64_t sent = 0, received = 0;
        ops->counts(ctx, &sent, &received);
        int64_t v = (int64_t)(sent - received);
        uint16_t phase = (uint16_t)(MANA_PHASE_P2P_DRAIN_FIRST + round % DRAIN_P2P_ROUNDS);
        if (ops->reduce(ctx, g, phase, MANA_RED_SUM, &v, 1, err, errlen) != 0)
            return -1;
        if (ops->debug(ctx)) {
            ops->counts(ctx, &sent, &received);
            ops->message("mana: p2p drain round %d: sent %llu received %llu here, %lld in flight in the job", round,
                     (unsigned long long)sent, (unsigned long long)received, (long long)v);
        }
        if (v == 0) break;
        if (v < least) {
            least = v;
            idle = 0;
        } else if (++idle == DRAIN_P2P_ROUNDS) {
            snprintf(err, errlen, "point-to-point drain: %lld message(s) still in flight after %d rounds that "
                     "received none", (long long)v, DRAIN_P2P_ROUNDS);
            return -1;
        }
    }
    return 0;
}

/* ---- communicators nobody needs ---- */

static int64_t call_need(const struct drain_comm *c) { return c->need; }

int drain_calls_needed(struct drain_coll *d, uint32_t g, char *err, size_t errlen)
{
    int64_t none = 0;
    return comm_max_by(d, g, &d->phase, d->ops->call, call_need, &none, err, errlen);
}
