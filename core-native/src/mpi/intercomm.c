/*
 * intercomm.c - inter-communicators: MPI_Intercomm_create, MPI_Intercomm_merge, MPI_Comm_remote_size,
 * MPI_Comm_remote_group.  (Dup, split, create and free of an inter-communicator, and collectives and
 * point-to-point on it, go through the ordinary wrappers.)
 *
 * Drain: every member of both groups holds the inter-communicator, and every collective on it is
 * entered by all of them, so its count works as an intra-communicator's.  Its id must be the same in
 * both groups, but each group only knows its own local communicator: inside the creation each group
 * puts a value derived from its local communicator into an MPI_MAX allreduce over the new
 * inter-communicator, which hands each group the other's, and both make the id from the pair.
 * Creation itself is counted as a collective on the local communicator only (the groups meet inside
 * the real call, and each group counts it on its own local communicator): a checkpoint that finds one
 * group inside while the other is held at its gate lets held threads through (GROUP_COLL_LOWER).
 *
 * Replay: the creation is made again from (local communicator, local leader, peer communicator, remote
 * leader, tag) in creation order, on every member of both groups, as the program made it; a merge from
 * (inter-communicator, high).
 */
#include "mpi_int.h"

int PMPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader, int tag,
                          MPI_Comm *newcomm)
{
    MANA_CHECK_INIT();
    struct vobj *lc = comm_obj(local);
    if (!lc) return MPI_ERR_COMM;
    /* the peer communicator is significant at the leaders only; elsewhere it may be anything */
    struct vobj *pc = peer == MPI_COMM_NULL ? NULL : comm_obj(peer);
    MPI_Comm ic = MPI_COMM_NULL;
    uint64_t mine = 0, theirs = 0;
    int rc;
    uint64_t hold;
    /* under MPI_THREAD_MULTIPLE the real call, which holds the lower half while it waits for both groups,
     * first waits for its turn, voted among the members of both (ctor_turn.c); kept until the entry is made */
    uint64_t turn = __builtin_expect(mana_thread_multiple, 0)
                        ? mana_intercomm_turn_take(local, local_leader, peer, remote_leader, tag) : 0;
    GROUP_COLL_MAKE(lc, hold, rc, mine = mana_gid_combine(lc->gid, lc->seq);
               rc = real.Intercomm_create(R(local), local_leader, pc ? R(peer) : R(MPI_COMM_NULL), remote_leader,
                                          tag, &ic);
               if (rc == MPI_SUCCESS)
                   rc = real.Allreduce(&mine, &theirs, 1, R(MPI_UINT64_T), R(MPI_MAX), ic));
    if (rc != MPI_SUCCESS) { mana_ctor_turn_give(turn); return rc; }
    lc->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(ic, lc, R_INTERCOMM_CREATE, newcomm, &o);
    if (!o) { made_release(hold); mana_ctor_turn_give(turn); return MPI_SUCCESS; }
    mana_record_parent(o, pc);
    o->gid = mana_gid_combine(mine < theirs ? mine : theirs, mine < theirs ? theirs : mine);
    o->call = o->gid;           /* made by its members alone (the two local groups) */
    o->a[0] = local_leader;
    o->a[1] = remote_leader;
    o->a[2] = tag;
    o->a[3] = pc != NULL;
    made_release(hold);
    mana_ctor_turn_give(turn);
    return MPI_SUCCESS;
}
ALIAS(Intercomm_create)

int PMPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *newcomm)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(inter);
    if (!p) return MPI_ERR_COMM;
    MPI_Comm nc;
    int rc;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Intercomm_merge(R(inter), high, &nc));
    if (rc != MPI_SUCCESS) return rc;
    p->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(nc, p, R_INTERCOMM_MERGE, newcomm, &o);
    if (o) o->a[0] = high;
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Intercomm_merge)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Comm_remote_size(R(comm), size));
    return rc;
}
ALIAS(Comm_remote_size)

/* A group of world ranks, like every group here (the remote group is a group of processes too). */
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    MANA_CHECK_INIT();
    MPI_Group g;
    int rc;
    GROUP_LOWER(rc, rc = real.Comm_remote_group(R(comm), &g), g, group);
    return rc;
}
ALIAS(Comm_remote_group)

/* replay.c: make one of ours again (the parents are already made). */
int mana_intercomm_replay(struct vobj *o, MPI_Comm *nc)
{
    int rc;
    MPI_Comm local = HMAKE(MPI_Comm, o->parent[0] ? o->parent[0]->real : 0);
    if (o->recipe == R_INTERCOMM_MERGE) {
        LOWER(rc = real.Intercomm_merge(local, (int)o->a[0], nc));
        return rc;
    }
    MPI_Comm peer = o->a[3] && o->nparents > 1 && o->parent[1] ? HMAKE(MPI_Comm, o->parent[1]->real)
                                                                : HMAKE(MPI_Comm, v2r(HBITS(MPI_COMM_NULL)));
    LOWER(rc = real.Intercomm_create(local, (int)o->a[0], peer, (int)o->a[1], (int)o->a[2], nc));
    return rc;
}
