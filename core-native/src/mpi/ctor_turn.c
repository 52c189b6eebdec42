/*
 * ctor_turn.c - under MPI_THREAD_MULTIPLE, the turn a blocking communicator constructor waits for (and
 * the window calls and the blocking dup that wait for their whole group: win.c, objects.c).
 *
 * The real MPI runs one thread of a rank at a time (MPI_THREAD_SERIALIZED), and a constructor with no
 * nonblocking twin (MPI_Comm_split, _split_type, _create, the topology constructors, Cart_sub) holds the
 * rank's lower half for its whole real call, waiting there for the other members.  Two threads per rank
 * making communicators from two parents in opposite orders on two ranks deadlocked: rank 0 in c1's
 * constructor waiting for rank 1, whose lower half its other thread held in c2's, waiting for rank 0
 * (test ctor_mt; MPICH's threads/comm/comm_split_threads and comm_create_threads).
 *
 * So such a call first agrees with the other members of its parent that every one of them is ready to run
 * it and nothing else of its kind: once all have arrived (a barrier), each member votes (yes only while it
 * holds this rank's one constructor turn), and the votes meet in an MPI_Allreduce on the parent.  Those are
 * collectives the program cannot mind: it may not run another collective on the parent meanwhile, and
 * under MPI_THREAD_MULTIPLE each is a nonblocking one and a wait that gives the lower half up between
 * polls (COLL_MT), so no thread holds a lower half while it votes.  Every member sees the same result of
 * every round, so all make the same number of rounds and the parent's collective count stays the same on
 * all of them.  When every vote was yes, every member holds its turn for this call alone and enters the
 * real call as soon as it gets its own lower half, which no other thread keeps for long: the call
 * completes.  Otherwise those that held their turn give it up and vote again.
 *
 * Progress: a rank gives its turn only to the waiting thread (past the barrier) with the smallest
 * parent id (the parent's gid, the same on every member and distinct between the communicators that
 * exist), as MPICH's context id allocation does, so the constructor with the smallest id among those
 * waiting gets a yes from every member in some round.  And the order in which a rank makes communicators
 * from parents that share two members is the same on both: the restart's replay, one constructor at a
 * time in each rank's creation order, does not deadlock either.
 *
 * A parent of one member (MPI_COMM_SELF) takes no turn: its call waits for no other rank.
 * MPI_Comm_create_group has no collective over its group to vote on: its members vote by messages to the
 * one of them with the lowest world rank, on a dup of MPI_COMM_WORLD made at MPI_Init_thread by a program
 * that asks for MPI_THREAD_MULTIPLE (mana_group_turn_take below).  So do the members of both groups of an
 * inter-communicator for a constructor on it (MPI_Intercomm_merge, dup, split, create: an allreduce there
 * hands each group the other group's votes, not all of them), and those of both groups of an
 * MPI_Intercomm_create, once each group has the other's members from its leader (mana_intercomm_turn_take).
 * Without it a merge holding the lower half on three ranks waited for the fourth, whose lower half a
 * split with its turn held, waiting for the three (MPICH's threads/comm/idup_comm_gen, checkpointed).
 * Windows take turns too (win.c): their creation on its communicator, MPI_Win_fence and MPI_Win_free on a dup of it that the window keeps for this (the
 * program may run its own
 * collectives on the window's communicator while it fences).  So do files (io.c): MPI_File_open on its
 * communicator, the file's collective calls (views, collective reads and writes, sync, size, atomicity,
 * info, shared pointer) and MPI_File_close on a dup of it that the file keeps.
 */
#include "mpi_int.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define TURN_WAITERS 64           /* threads of a rank waiting at once that get priority; more just wait */

static volatile int turn_lock;            /* spin lock over the three below */
static uint64_t turn_holder;              /* the parent gid whose constructor holds the turn; 0: free */
static uint64_t turn_waiting[TURN_WAITERS];   /* gids of the constructors waiting for it; 0: empty slot */

static void turn_lock_take(void)
{
    while (__atomic_exchange_n(&turn_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
static void turn_lock_give(void) { __atomic_store_n(&turn_lock, 0, __ATOMIC_RELEASE); }

/* This rank's turn for the constructor on parent id; 1 when it got it.  Only the waiting constructor
 * with the smallest id gets it, so that the smallest one wins on every member. */
static int turn_try(uint64_t id)
{
    int got = 0;
    turn_lock_take();
    if (turn_holder == 0) {
        uint64_t least = id;
        for (int i = 0; i < TURN_WAITERS; i++)
            if (turn_waiting[i] && turn_waiting[i] < least) least = turn_waiting[i];
        if (least == id) { turn_holder = id; got = 1; }
    }
    turn_lock_give();
    return got;
}

static void turn_put(uint64_t id)
{
    turn_lock_take();
    if (turn_holder == id) turn_holder = 0;
    turn_lock_give();
}

/* The slot of a waiting constructor, or -1 where all are taken (it waits without priority). */
static int waiter_add(uint64_t id)
{
    int slot = -1;
    turn_lock_take();
    for (int i = 0; i < TURN_WAITERS && slot < 0; i++)
        if (!turn_waiting[i]) { turn_waiting[i] = id; slot = i; }
    turn_lock_give();
    return slot;
}

static void waiter_drop(int slot)
{
    if (slot < 0) return;
    turn_lock_take();
    turn_waiting[slot] = 0;
    turn_lock_give();
}

static uint64_t group_turn_take(uint64_t key, const int *wr, int n, const char *call);

/* A constructor on an inter-communicator: the turn voted among the members of both groups. */
static uint64_t inter_turn_take(struct vobj *parent, MPI_Comm comm)
{
    MPI_Group lg, rg;
    int rc, rrc = MPI_ERR_OTHER;
    LOWER(rc = real.Comm_group(R(comm), &lg);
          if (rc == MPI_SUCCESS && (rrc = real.Comm_remote_group(R(comm), &rg)) != MPI_SUCCESS) real.Group_free(&lg));
    if (rc != MPI_SUCCESS || rrc != MPI_SUCCESS) return 0;     /* the constructor reports it */
    int nl = 0, nr = 0;
    int *l = world_ranks(lg, &nl), *r = world_ranks(rg, &nr);
    LOWER(real.Group_free(&lg); real.Group_free(&rg));
    int *all = l && r ? realloc(l, ((size_t)nl + (size_t)nr + 1) * sizeof *all) : NULL;
    uint64_t turn = 0;
    if (all) {
        memcpy(all + nl, r, (size_t)nr * sizeof *r);
        turn = group_turn_take(mana_gid_combine(parent->gid, 0x696e746572ULL), all, nl + nr,
                               "a constructor on an inter-communicator");
        free(all);
    } else {
        free(l);
    }
    free(r);
    return turn;
}

uint64_t mana_ctor_turn_take(struct vobj *parent)
{
    if (!mana_thread_multiple || !parent || parent->kind != K_COMM || !parent->gid) return 0;
    MPI_Comm comm = V(MPI_Comm, parent);
    int inter = 0, size = 0;
    LOWER(real.Comm_test_inter(R(comm), &inter); real.Comm_size(R(comm), &size));
    if (inter) return inter_turn_take(parent, comm);
    if (size < 2) return 0;              /* alone in it (MPI_COMM_SELF): no one to wait for */
    uint64_t id = parent->gid;
    /* First every member arrives: a thread holds the turn while its round is open, and a round only
     * completes once every member has voted, so a member still far off (its thread waiting in the program
     * for this rank's other constructor to finish, say) would keep the turn from that constructor for
     * good.  After the barrier every member is in this loop and each round completes promptly. */
    if (PMPI_Barrier(comm) != MPI_SUCCESS) return 0;
    int slot = waiter_add(id);
    for (;;) {
        int mine = turn_try(id), all = 0;
        int rc = PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
        if (rc != MPI_SUCCESS) all = 0;
        if (all) { waiter_drop(slot); return id; }
        if (mine) turn_put(id);
        if (rc != MPI_SUCCESS) { waiter_drop(slot); return 0; }  /* the constructor reports it */
        sched_yield();
    }
}

void mana_ctor_turn_give(uint64_t turn)
{
    if (turn) turn_put(turn);
}

/* ---- MPI_Comm_create_group: the same turn, voted among the group's members alone ----
 * The call is collective over its group only, and no communicator spans exactly the group, so the members
 * meet by point-to-point messages on a communicator of ours over MPI_COMM_WORLD (every process is in it: no
 * dynamic processes here): each sends its word to the member of lowest world rank, which answers all of
 * them.  The tag comes from the call's key (parent, tag, members: the same on every member, and distinct
 * between calls that may run at once, which MPI requires to differ in tag or group); each message carries
 * the key too, checked.  Blocking sends and receives under MPI_THREAD_MULTIPLE give the lower half up
 * between polls (p2p.c), as the collectives of the turn above do. */
static MPI_Comm group_votes = MPI_COMM_NULL;
static int group_tag_ub;

void mana_ctor_turn_init(int multiple)
{
    /* Only a program that asks for MPI_THREAD_MULTIPLE pays for it, and it asks on every rank (a rank that
     * asked for less would leave the others in this dup).  No collective at all otherwise: MPI_Init does
     * not wait for the other ranks here (test mpi_start_vote: rank 0 in MPI while rank 1 holds before
     * MPI_Init; an MPI_Allreduce here, to agree on the level, kept rank 0 in MPI_Init). */
    if (!multiple) return;
    int *ub = NULL, flag = 0;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) != MPI_SUCCESS || !flag || !ub || *ub < 2) return;
    group_tag_ub = *ub;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &group_votes) != MPI_SUCCESS) group_votes = MPI_COMM_NULL;
}

/* One word from every member to the leader and the leader's answer to all: min of the words (phase 1, the
 * votes) or just the meeting (phase 0).  0 on success. */
static int group_meet(uint64_t key, const int *wr, int n, int me, int leader, int tag, int *word)
{
    uint64_t msg[2] = { key, (uint64_t)(uint32_t)*word };
    if (me != leader) {
        if (PMPI_Send(msg, 2, MPI_UINT64_T, leader, tag, group_votes) != MPI_SUCCESS ||
            PMPI_Recv(msg, 2, MPI_UINT64_T, leader, tag, group_votes, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (msg[0] != key) return -1;
        *word = (int)(uint32_t)msg[1];
        return 0;
    }
    int least = *word;
    for (int i = 0; i < n; i++) {
        if (wr[i] == me) continue;
        uint64_t in[2];
        if (PMPI_Recv(in, 2, MPI_UINT64_T, wr[i], tag, group_votes, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            in[0] != key)
            return -1;
        if ((int)(uint32_t)in[1] < least) least = (int)(uint32_t)in[1];
    }
    msg[1] = (uint64_t)(uint32_t)least;
    for (int i = 0; i < n; i++)
        if (wr[i] != me && PMPI_Send(msg, 2, MPI_UINT64_T, wr[i], tag, group_votes) != MPI_SUCCESS) return -1;
    *word = least;
    return 0;
}

uint64_t mana_group_turn_take(uint64_t key, const int *wr, int n)
{
    return group_turn_take(key, wr, n, "MPI_Comm_create_group");
}

static uint64_t group_turn_take(uint64_t key, const int *wr, int n, const char *call)
{
    if (!mana_thread_multiple || group_votes == MPI_COMM_NULL || n < 2) return 0;
    int me = -1, leader = wr[0], in = 0;
    if (PMPI_Comm_rank(group_votes, &me) != MPI_SUCCESS) return 0;
    for (int i = 0; i < n; i++) {
        if (wr[i] < leader) leader = wr[i];
        if (wr[i] == me) in = 1;
    }
    if (!in) return 0;                   /* not a member: the call will say so */
    uint64_t id = key | 1;               /* never 0 (a free turn) */
    int tag = (int)(key % (uint64_t)group_tag_ub);
    int word = 0;
    if (group_meet(key, wr, n, me, leader, tag, &word) == 0) {     /* every member has arrived */
        int slot = waiter_add(id);
        for (;;) {
            int mine = turn_try(id), all = mine;
            int rc = group_meet(key, wr, n, me, leader, tag, &all);
            if (rc == 0 && all) { waiter_drop(slot); return id; }
            if (mine) turn_put(id);
            if (rc != 0) break;
            sched_yield();
        }
        waiter_drop(slot);
    }
    mana_say("MANA: %s: the members' vote for its turn failed; it runs without one", call);
    return 0;
}

/* MPI_Intercomm_create: the turn voted among the members of both groups, as for a constructor on an
 * inter-communicator, but only the leaders can find the other group: each leader sends its group's world
 * ranks and its local communicator's id to the other leader (on the vote communicator, by world rank) and
 * broadcasts what it got, with the peer communicator's id, on its local communicator (every member of it is
 * in this call; under MPI_THREAD_MULTIPLE the broadcast is a nonblocking one and a wait, no lower half
 * held).  The key is made of the peer's id, the tag and the two local communicators' ids, which every
 * member of both groups then knows: two threads' calls at once between the same leaders with the same tag
 * on different peers (MPICH's idup_comm_gen) have different keys, where the leaders and the tag alone
 * mixed their votes and let both calls in at once.  A leader that could not exchange broadcasts that it
 * failed: then no member of its group takes a turn, and the other group's vote fails as a missing member's
 * would, each saying so. */
static uint64_t ic_key(uint64_t peer, int tag, uint64_t a, uint64_t b)
{
    return mana_gid_combine(mana_gid_combine(peer, (uint64_t)(uint32_t)tag),
                            mana_gid_combine(a < b ? a : b, a < b ? b : a));
}

uint64_t mana_intercomm_turn_take(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader, int tag)
{
    struct vobj *lc = comm_obj(local);
    if (!mana_thread_multiple || group_votes == MPI_COMM_NULL || !lc) return 0;
    MPI_Group lg;
    int rc, nl = 0, me = -1;
    LOWER(rc = real.Comm_group(R(local), &lg));
    if (rc != MPI_SUCCESS) return 0;                    /* the call reports it */
    int *l = world_ranks(lg, &nl);
    LOWER(real.Group_free(&lg));
    if (!l || PMPI_Comm_rank(local, &me) != MPI_SUCCESS || local_leader < 0 || local_leader >= nl) { free(l); return 0; }
    /* what the leader gives its group: 1 when the exchange worked, the remote group's size, the peer's id,
     * the remote local communicator's id */
    uint64_t hdr[4] = { 0, 0, 0, 0 };
    int *r = NULL;
    struct vobj *pc = me == local_leader ? comm_obj(peer) : NULL;
    if (pc) {
        /* the remote leader's world rank */
        MPI_Group pg;
        int prc, np = 0, rl = -1;
        LOWER(prc = real.Comm_group(R(peer), &pg));
        if (prc == MPI_SUCCESS) {
            int *pw = world_ranks(pg, &np);
            if (pw && remote_leader >= 0 && remote_leader < np) rl = pw[remote_leader];
            free(pw);
            LOWER(real.Group_free(&pg));
        }
        if (rl >= 0 && rl != MPI_UNDEFINED) {
            int t = (int)((ic_key(pc->gid, tag, (uint64_t)l[local_leader], (uint64_t)rl) + 1) % (uint64_t)group_tag_ub);
            uint64_t out[2] = { (uint64_t)nl, lc->gid }, in[2] = { 0, 0 };
            MPI_Request rq[2];
            if (PMPI_Isend(out, 2, MPI_UINT64_T, rl, t, group_votes, &rq[0]) == MPI_SUCCESS) {
                if (PMPI_Isend(l, nl, MPI_INT, rl, t, group_votes, &rq[1]) == MPI_SUCCESS) {
                    if (PMPI_Recv(in, 2, MPI_UINT64_T, rl, t, group_votes, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                        in[0] > 0 && in[0] < (1u << 30) && (r = malloc((size_t)in[0] * sizeof *r)) != NULL &&
                        PMPI_Recv(r, (int)in[0], MPI_INT, rl, t, group_votes, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
                        hdr[0] = 1;
                        hdr[1] = in[0];
                        hdr[2] = pc->gid;
                        hdr[3] = in[1];
                    }
                    PMPI_Wait(&rq[1], MPI_STATUS_IGNORE);
                }
                PMPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            }
        }
    }
    if (PMPI_Bcast(hdr, 4, MPI_UINT64_T, local_leader, local) != MPI_SUCCESS || !hdr[0]) {
        if (me == local_leader)
            mana_say("MANA: MPI_Intercomm_create: the leaders could not exchange their groups for its turn; "
                     "it runs without one");
        free(r);
        free(l);
        return 0;
    }
    int nr = (int)hdr[1];
    int *all = realloc(l, ((size_t)nl + (size_t)nr) * sizeof *all);
    if (!all) {
        /* every member must take part in the broadcast below: out of memory here, the job cannot go on */
        mana_say("MANA: MPI_Intercomm_create: out of memory for its turn");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    l = all;
    if (me == local_leader) memcpy(all + nl, r, (size_t)nr * sizeof *r);
    uint64_t turn = 0;
    if (PMPI_Bcast(all + nl, nr, MPI_INT, local_leader, local) == MPI_SUCCESS)
        turn = group_turn_take(ic_key(hdr[2], tag, lc->gid, hdr[3]), all, nl + nr, "MPI_Intercomm_create");
    free(r);
    free(l);
    return turn;
}
