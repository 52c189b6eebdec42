/* groups - collectives over groups that no one communicator counts on all their members, made while
 * other members are elsewhere, every iteration (MPICH's comm_group_rand and probe_intercomm):
 *
 *   groups create_group   3 or more ranks.  Iteration it picks p and q among ranks 1..n-1; rank p
 *                         naps 2 ms, then p and q make a communicator with MPI_Comm_create_group over
 *                         {p, q} (on a dup of MPI_COMM_WORLD, below) and reduce on it, then rank 0 and p do the same over {0, p}.  So rank 0
 *                         and rank q spend most of the time inside MPI_Comm_create_group waiting for p.
 *   groups intercomm      2 or more ranks (even).  The even and the odd ranks split the world, the odd
 *                         side naps 2 ms, and MPI_Intercomm_create joins the two sides: the even side
 *                         waits inside it for the odd one; then a reduction across it.
 *
 * A checkpoint nearly always finds a rank inside such a call whose partner is held at a gate that no
 * count links to the call (the nap, then the gate: the partner's own create_group, or the local
 * communicator it has just made).  Such a checkpoint never completed before the runtime let held
 * threads make one more call while a collective over a group waits (drain_rounds.c); groups.sh asks
 * MANA_DEBUG for proof that it happened.  Every reduction's sum is checked and goes into the checksum. */
#include "mpitest.h"

static void nap(void)
{
    struct timespec ts = { 0, 2000000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* A communicator over world ranks a and b made by MPI_Comm_create_group on parent (a dup of
 * MPI_COMM_WORLD; world: its group); the sum of (rank + it) on it. */
static long pair_sum(MPI_Comm parent, MPI_Group world, int a, int b, int tag, int me, long it)
{
    int ranks[2] = { a < b ? a : b, a < b ? b : a };
    MPI_Group g;
    MPI_Comm c;
    MPI_Group_incl(world, 2, ranks, &g);
    MPI_Comm_create_group(parent, g, tag, &c);
    MPI_Group_free(&g);
    if (c == MPI_COMM_NULL) mt_fail("iteration %ld: MPI_Comm_create_group over {%d, %d} gave MPI_COMM_NULL", it, a, b);
    int size = 0;
    MPI_Comm_size(c, &size);
    if (size != 2) mt_fail("iteration %ld: the communicator over {%d, %d} has %d ranks", it, a, b, size);
    long v = me + it, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c);
    if (sum != a + b + 2 * it) mt_fail("iteration %ld: sum over {%d, %d} is %ld, want %ld", it, a, b, sum, a + b + 2 * it);
    MPI_Comm_free(&c);
    return sum;
}

static uint64_t create_group_iteration(struct mt_run *r, MPI_Comm parent, MPI_Group world, long it, uint64_t h)
{
    int n = r->size, p = 1 + (int)(it % (n - 1)), q = 1 + (int)((it + 1) % (n - 1));
    if (r->rank == p) nap();
    if (r->rank == p || r->rank == q) {
        long s = pair_sum(parent, world, p, q, 10, r->rank, it);
        h = mt_hash(h, &s, sizeof s);
    }
    if (r->rank == 0 || r->rank == p) {
        long s = pair_sum(parent, world, 0, p, 11, r->rank, it);
        h = mt_hash(h, &s, sizeof s);
    }
    return h;
}

static uint64_t intercomm_iteration(struct mt_run *r, long it, uint64_t h)
{
    int side = r->rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, side, r->rank, &local);
    int lrank = -1;
    MPI_Comm_rank(local, &lrank);
    if (side) nap();
    /* leaders: world ranks 0 and 1 (the peer communicator matters at the leaders only) */
    MPI_Intercomm_create(local, 0, lrank == 0 ? MPI_COMM_WORLD : MPI_COMM_NULL, side ? 0 : 1, 20 + (int)(it % 5), &inter);
    /* an inter-communicator's MPI_Allreduce gives each side the other side's sum */
    long v = r->rank + it, sum = 0, want = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, inter);
    for (int k = 1 - side; k < r->size; k += 2) want += k + it;
    if (sum != want) mt_fail("iteration %ld: the other side's sum is %ld, want %ld", it, sum, want);
    h = mt_hash(h, &sum, sizeof sum);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return h;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    const char *mode = r.argc >= 1 ? r.argv[0] : "";
    int cg = strcmp(mode, "create_group") == 0;
    if (!cg && strcmp(mode, "intercomm") != 0) mt_fail("usage: groups --stop-file F | --iters K create_group|intercomm");
    if (cg && r.size < 3) mt_fail("create_group needs 3 or more ranks, not %d", r.size);
    if (!cg && r.size % 2) mt_fail("intercomm needs an even number of ranks, not %d", r.size);
    /* The parent is a dup of MPI_COMM_WORLD whose group is taken once, here.  MPICH 4.0's
     * MPI_Comm_create_group reads the parent's group without making it (a communicator whose group no
     * one took crashes it natively), so after a restart, on the parent made again, the program's next
     * call crashed until the runtime took that group first (comm.c, replay.c). */
    MPI_Comm parent;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    MPI_Group world;
    MPI_Comm_group(parent, &world);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        h = cg ? create_group_iteration(&r, parent, world, it, h) : intercomm_iteration(&r, it, h);
    } while (!mt_done(&r, it));
    MPI_Group_free(&world);
    MPI_Comm_free(&parent);
    mt_finish(&r, cg ? "groups create_group" : "groups intercomm", it, h);
    return 0;
}
