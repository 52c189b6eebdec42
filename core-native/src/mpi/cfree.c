/*
 * cfree.c - MPI_Comm_free, and when the runtime may forget a communicator the program freed.
 *
 * MPI_Comm_free is collective but does not synchronize: a member frees a communicator while another
 * still has a receive pending on it or collectives left to make on it (MPICH's comm/cmfree, cmfree2:
 * a free that waited for the other members hung there).  So the free returns at once, and the entry
 * stays, a zombie marked VF_CFREED, for two reasons:
 *   - the collective drain: its count of collectives is final here, while a member that has not freed
 *     it may be behind (the drains count freed entries like live ones: core.c, live_comm);
 *   - the replay: a restart makes every communicator again with the collective call that made it, on
 *     every rank that took part in that call (a split's MPI_UNDEFINED ranks too: comm_zombie).  A rank
 *     may forget a call only when every rank of it does, or the others' replay waits for it for ever.
 *     Each entry carries the call's id (vobj.call), the same on every rank of the call.
 * The real communicator goes at once, unless a request or message of this rank is still on it (a
 * persistent request may start on it again; a receive is posted on it again at a restart).
 * An entry is forgotten when no rank of its call needs it any more, found two ways:
 *   - at a checkpoint (mana_cfree_drain): one comm_max over the calls (drain_calls_needed) finds the
 *     calls that no rank needs: freed or MPI_COMM_NULL everywhere, no recipe naming them, no request or
 *     message on them.  Every rank forgets those together, before the image is written.
 *   - between checkpoints, for communicators made by their members alone (dup, idup, create_group,
 *     intercomm create and merge) that made no other: such a free keeps the real one, on a list, and
 *     posts an MPI_Ibarrier on it as soon as nothing of this rank is on it (at once, mostly; a later
 *     MPI_Comm_free looks again).  Once the barrier completes every member has freed it and none has
 *     anything on it or can ever again, and a later MPI_Comm_free (mana_cfree_reap) frees the real
 *     one and forgets the entry.  At a checkpoint that forgets such a call, a member that has not
 *     posted yet posts then, and the drain completes every barrier before it frees.  (The real one waits
 *     for its barrier: Open MPI 4.1's libnbc does not keep a communicator alive for a pending
 *     nonblocking collective; its progress crashed in MPI_Test after the free.  And every member must
 *     post at last: a barrier some never join keeps real communicators for good, and MPICH's
 *     context ids ran out, MPI_Comm_dup hung.)
 *   Without this a program that dups and frees a communicator every step would fill the object table
 *   between checkpoints.  The split family waits for the next checkpoint: its ranks that got another
 *   communicator, or none, cannot be asked without a collective.
 */
#include "mpi_int.h"

#include <stdio.h>
#include <stdlib.h>

#define VF_CNAMED 0x40000u      /* (drain only) a request or message of this rank names it */

/* The freed communicators whose real one waits for their barrier, linked by free_next (index + 1;
 * 0 ends).  Changed only with the lower half held (or by the checkpoint, which keeps program threads
 * out of it). */
static uint32_t waiting_head;
static volatile int waiting_n;

/* The communicator entry o still holds on to: a request's or a matched message's (a completed request
 * only if it is persistent: it may start again); NULL for any other. */
static struct vobj *held_comm(const struct vobj *o)
{
    if (!o->comm || o->kind == K_COMM) return NULL;
    if (o->kind == K_REQ && (o->flags & VF_DONE) && !(o->flags & VF_PERSIST)) return NULL;
    return o->comm;
}

/* Does a request or a message of this rank name the communicator? */
static int named(const struct vobj *c)
{
    if (buffered_on(c)) return 1;
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++)
        if (held_comm(&vtab[i]) == c) return 1;
    return 0;
}

/* Made by its members alone, and no other communicator made from it: every member of its call can
 * tell, with one barrier, that all are done with it.  The same answer on every member (a child is
 * made by all of them: VF_PARENT). */
static int solo(const struct vobj *c)
{
    int r = c->recipe;
    return (r == R_COMM_DUP || r == R_COMM_CREATE_GROUP || r == R_INTERCOMM_CREATE || r == R_INTERCOMM_MERGE) &&
           !(c->flags & VF_PARENT);
}

/* Post the communicator's barrier (inside an excursion). */
static void post_barrier(struct vobj *c)
{
    MPI_Request br;
    if (real.Ibarrier(HMAKE(MPI_Comm, c->real), &br) == MPI_SUCCESS) c->free_req = HBITS(br);
}

/* Post it once nothing of this rank is on it. */
static void post_if_unnamed(struct vobj *c)
{
    if (!c->free_req && !named(c)) post_barrier(c);
}

/* Has every member freed it: its barrier posted (now, if it may be) and complete?  (Inside an
 * excursion; the caller takes a done entry off the list at once, so no second barrier is posted.) */
static int barrier_done(struct vobj *c)
{
    post_if_unnamed(c);
    if (!c->free_req) return 0;
    MPI_Request br = HMAKE(MPI_Request, c->free_req);
    int flag = 0;
    if (real.Test(&br, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) return 0;
    c->free_req = 0;
    return 1;
}

/* The program frees the communicator (inside an excursion): a solo one waits on the list; another
 * goes now, unless something of this rank is still on it (kept for it: a persistent request may start
 * on it again, a receive is posted on it again at a restart; the checkpoint that forgets it frees it). */
static int free_real(struct vobj *c)
{
    if (solo(c)) {
        c->free_req = 0;
        c->free_next = waiting_head;
        waiting_head = c->idx + 1;
        waiting_n++;
        post_if_unnamed(c);
        return MPI_SUCCESS;
    }
    if (named(c)) return MPI_SUCCESS;
    MPI_Comm r = HMAKE(MPI_Comm, c->real);
    int rc = real.Comm_free(&r);
    if (rc == MPI_SUCCESS) c->real = 0;
    return rc;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(*comm);
    /* (a zombie: a handle the program freed already, kept in a copy) */
    if (!c || c->kind != K_COMM || (c->flags & (VF_PREDEF | VF_ZOMBIE))) return MPI_ERR_COMM;
    int rc = mana_attr_clear(K_COMM, HBITS(*comm));
    if (rc != MPI_SUCCESS) return rc;
    /* One excursion: a checkpoint finds it live, or freed (and on the list, its barrier posted). */
    LOWER(rc = free_real(c); if (rc == MPI_SUCCESS) c->flags |= VF_ZOMBIE | VF_CFREED);
    if (rc != MPI_SUCCESS) return rc;
    *comm = MPI_COMM_NULL;
    mana_cfree_reap();
    return MPI_SUCCESS;
}
ALIAS(Comm_free)

/* Take entry c (at *link) off the list. */
static void unlist(uint32_t *link, struct vobj *c)
{
    *link = c->free_next;
    c->free_next = 0;
    waiting_n--;
}

void mana_cfree_reap(void)
{
    if (!__atomic_load_n(&waiting_n, __ATOMIC_RELAXED)) return;
    struct vobj gone[8];
    int ngone = 0;
    /* Tested and forgotten with the lower half held: a checkpoint comes before or after, and finds
     * the entry waiting for its barrier, or gone. */
    uint64_t up = lower_enter();
    for (uint32_t *link = &waiting_head; *link;) {
        struct vobj *c = &vtab[*link - 1];
        /* every entry is visited, so each gets its barrier posted as soon as it may be (once a pass had
         * stopped at 8 forgotten: 39 persistent collectives freed before MPI_Finalize left barriers
         * unposted on one rank while the others' waited, and MPICH's MPI_Finalize hung on them) */
        if (ngone == 8) { post_if_unnamed(c); link = &c->free_next; continue; }
        if (!barrier_done(c)) { link = &c->free_next; continue; }
        MPI_Comm r = HMAKE(MPI_Comm, c->real);
        real.Comm_free(&r);
        c->real = 0;
        unlist(link, c);
        vunlink(c, &gone[ngone++]);
    }
    lower_leave(up);
    for (int i = 0; i < ngone; i++) vdrop(&gone[i]);
}

/* MPI_Finalize: no barrier of ours may be left to the real one (MPICH's hung in its progress on one
 * whose other members had left theirs: 20 persistent collectives freed before MPI_Finalize, 3 ranks,
 * about one run in four).  MPI_Finalize is collective over every process, so every member of a solo
 * communicator's call is here too, with it freed (on the list) or still live (MPI does not ask a
 * program to free its communicators).  The live ones are freed here as MPI_Comm_free frees them
 * (nothing may be used after MPI_Finalize); then each member posts the barrier on every listed one,
 * whatever is still on it, and waits until all of its barriers complete.  The real communicators are
 * left to the real MPI_Finalize.
 *
 * The wait takes the lower half for one pass at a time: another member may be far from its own
 * MPI_Finalize, and a checkpoint asked for meanwhile needs this rank too (it waited for ever while this
 * rank held the lower half for the whole wait: mpi_*_fin_wait).  A checkpoint treats these entries as
 * it treats any freed ones: forgotten by every rank once no member needs them, or made again by the
 * restart's replay and listed again with their barriers posted (mana_cfree_restart_free), which the
 * next pass here waits for. */
void mana_cfree_finalize(void)
{
    uint64_t up = lower_enter();
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++) {       /* the live ones are freed, and join the list */
        struct vobj *c = &vtab[i];
        if (c->kind != K_COMM || (c->flags & (VF_ZOMBIE | VF_PREDEF)) || !c->real || !solo(c)) continue;
        c->flags |= VF_ZOMBIE | VF_CFREED;
        c->free_req = 0;                      /* (the listed ones are zombies: none is listed twice) */
        c->free_next = waiting_head;
        waiting_head = c->idx + 1;
        waiting_n++;
    }
    lower_leave(up);
    /* each entry leaves the list once its barrier completed (or could not be posted); the real
     * communicators are the real MPI_Finalize's.  As req_wait_set (p2p.c): spin in the lower half, leave
     * it whenever a checkpoint (or another thread) asks. */
    for (int said = 0;;) {
        lower_pass();
        up = lower_enter();
        /* (the first time one pass only: the wait is told of before it begins) */
        for (unsigned spin = 0; waiting_head && !lower_interrupted() && (said || !spin); spin++) {
            for (uint32_t *link = &waiting_head; *link;) {
                struct vobj *c = &vtab[*link - 1];
                if (!c->free_req) post_barrier(c);
                MPI_Request br = HMAKE(MPI_Request, c->free_req);
                int flag = 0;
                if (!c->free_req || real.Test(&br, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag) {
                    c->free_req = 0;
                    unlist(link, c);
                } else {
                    link = &c->free_next;
                }
            }
            if (__builtin_expect(spin_yield(spin), 0)) mana_sys0(SYS_sched_yield);
        }
        int left = waiting_n;
        lower_leave(up);                      /* a checkpoint may come in here */
        if (!left) break;
        if (!said++ && mana_debug_on()) {
            mana_say("mana: MPI_Finalize waits for %d freed communicators' barriers (another member has "
                     "not freed them or reached MPI_Finalize yet)", left);
        }
    }
}

/* ---- at a checkpoint ---- */

void mana_cfree_mark(void)
{
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++)
        if (vtab[i].kind == K_COMM) vtab[i].flags &= ~VF_CNAMED;
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *c = held_comm(&vtab[i]);
        if (c) c->flags |= VF_CNAMED;
    }
    for (uint32_t i = 1; i <= n; i++)
        if (vtab[i].kind == K_COMM && (vtab[i].flags & VF_ZOMBIE) && buffered_on(&vtab[i])) vtab[i].flags |= VF_CNAMED;
}

int64_t mana_cfree_need(const struct vobj *c)
{
    return !(c->flags & VF_ZOMBIE) || c->refs > 0 || (c->flags & VF_CNAMED);
}

static int forgotten(const struct vobj *c, uint64_t epoch)
{
    return c->kind == K_COMM && c->call && (c->flags & VF_ZOMBIE) && c->cm_done == epoch && c->cm_val == 0;
}

int mana_cfree_drain(uint64_t epoch, char *err, size_t errlen)
{
    /* The waiting ones no rank needs: every member posts its barrier now if it has not (nothing is on
     * it any more, or the call would be needed), and all of them complete (every member of the call
     * has posted, here or when it freed). */
    uint64_t up = lower_enter();
    long spins = 0;
    for (int pending = 1; pending;) {
        pending = 0;
        for (uint32_t *link = &waiting_head; *link;) {
            struct vobj *c = &vtab[*link - 1];
            if (!forgotten(c, epoch)) link = &c->free_next;
            else if (barrier_done(c)) unlist(link, c);      /* its real one goes below */
            else { pending = 1; link = &c->free_next; }
        }
        if (pending && ++spins > 20000000L) {
            lower_leave(up);
            snprintf(err, errlen, "a freed communicator's barrier did not complete (cfree.c): the members "
                     "disagree on what they freed");
            return -1;
        }
    }
    lower_leave(up);
    uint32_t n = mana_vtab_used(), released = 0, left = 0;
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *c = &vtab[i];
        if (c->kind != K_COMM || !c->call || !(c->flags & VF_ZOMBIE)) continue;
        if (!forgotten(c, epoch)) { left += (c->flags & VF_CFREED) != 0; continue; }
        if (c->real) {          /* waiting for its barrier, or kept for a request that has gone since */
            MPI_Comm r = HMAKE(MPI_Comm, c->real);
            LOWER(real.Comm_free(&r));
        }
        vrelease(c);
        released++;
    }
    if (mana_debug_on() && (released || left))
        mana_say("mana: freed communicators: %u forgotten by every rank of their call, %u still needed by one",
                 released, left);
    return 0;
}

/* ---- after a restart ---- */

/* The replay made every remaining communicator again, freed ones too (their calls must be made on
 * every rank), and a receive may have been posted again on one since.  Now the program's free is done
 * again, as MPI_Comm_free does it (the old process's barriers and list are gone with it). */
void mana_cfree_restart_free(void)
{
    waiting_head = 0;
    waiting_n = 0;
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *c = &vtab[i];
        if (c->kind != K_COMM || !(c->flags & VF_CFREED)) continue;
        c->free_req = 0;
        c->free_next = 0;
        if (c->real) LOWER(free_real(c));
    }
}
