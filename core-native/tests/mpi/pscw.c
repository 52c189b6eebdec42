/* pscw - a halo exchange in general active-target epochs (MPI_Win_post/start/complete/wait/test).
 * Every rank exposes a window of MPI_Win_create on its own memory to its two ring neighbours and, in
 * the same iteration, puts a block into each of theirs: into the left neighbour's "from the right" half
 * and into the right neighbour's "from the left" half.  Once its exposure epoch is over every rank
 * checks both halves against the values its neighbours must have put there in this iteration (odd
 * iterations end the exposure epoch with MPI_Win_wait, even ones with a loop of MPI_Win_test).
 *
 * With MT_HOLD_FILE set in the environment (cr_mpi.sh --hold), iteration 3 holds the job inside its
 * epochs until that file is gone: every rank but rank 1 stops between its puts and MPI_Win_complete
 * (its access and exposure epochs open, its puts not yet complete) and prints "holding"; rank 1 prints
 * "waiting", then calls MPI_Win_complete and MPI_Win_wait: the wait cannot return before its held
 * neighbours complete, and with MPICH (no asynchronous progress) the complete already waits for rank
 * 0's progress engine, so rank 1 is blocked in one of the two.  (Were some rank not held, it could
 * finish the iteration and wait in the next collective for held ranks that never come to it: no
 * checkpoint could bring every rank to the same collective then.)  A checkpoint taken then must drain the
 * epochs and open them again, on resume and on restart, for the program's own complete and wait to
 * end them.
 *
 * With MT_UNMATCHED_FILE set (pscw_unmatched.sh), iteration 3 holds rank 1 before its MPI_Win_post
 * until that file is gone, and it prints "holding before post": its neighbours' access epochs towards
 * it, and their exposure epochs to it, have no partner, and no drain can close them; a checkpoint asked
 * then must be refused (after MANA_EPOCH_WAIT seconds), the program going on untouched. */
#include "mpitest.h"

#include <time.h>

#define NV 64                     /* longs in each half of a window */

static long value(int from, long it, int k, int dir) { return (long)from * 1000003L + it * 131L + k * 7L + dir; }

/* rank 0 at the hold: until the hold file is gone (the harness removes it after the checkpoint) */
static void hold(const char *file)
{
    mt_out("holding\n");
    struct timespec ts = { 0, 2000000 };
    while (access(file, F_OK) == 0) nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    const char *hold_file = getenv("MT_HOLD_FILE");
    const char *unmatched_file = getenv("MT_UNMATCHED_FILE");
    int left = (r.rank + r.size - 1) % r.size, right = (r.rank + 1) % r.size;
    long *mem = calloc(2 * NV, sizeof *mem);  /* [0, NV): from the left neighbour; [NV, 2NV): from the right */
    long out[2][NV];
    if (!mem) mt_fail("out of memory");
    MPI_Win win;
    if (MPI_Win_create(mem, 2 * NV * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win) != MPI_SUCCESS)
        mt_fail("MPI_Win_create");
    /* the neighbours as a group (one rank when there are two) */
    MPI_Group world, nbrs;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int peers[2] = { left, right };
    MPI_Group_incl(world, left == right ? 1 : 2, peers, &nbrs);
    MPI_Group_free(&world);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        int held = hold_file && it == 3;
        if (unmatched_file && it == 3 && r.rank == 1) {
            mt_out("holding before post\n");
            struct timespec ts = { 0, 2000000 };
            while (access(unmatched_file, F_OK) == 0) nanosleep(&ts, NULL);
        }
        /* (every epoch's partner opens it in the same iteration: a checkpoint finds them matched) */
        if (MPI_Win_post(nbrs, 0, win) != MPI_SUCCESS) mt_fail("iteration %ld: MPI_Win_post", it); /* mana-lint: ignore MPI_Win_post */
        if (MPI_Win_start(nbrs, 0, win) != MPI_SUCCESS) mt_fail("iteration %ld: MPI_Win_start", it); /* mana-lint: ignore MPI_Win_start */
        for (int k = 0; k < NV; k++) {
            out[0][k] = value(r.rank, it, k, 0);   /* to the right neighbour, its "from the left" half */
            out[1][k] = value(r.rank, it, k, 1);   /* to the left neighbour, its "from the right" half */
        }
        MPI_Put(out[0], NV, MPI_LONG, right, 0, NV, MPI_LONG, win);
        MPI_Put(out[1], NV, MPI_LONG, left, NV, NV, MPI_LONG, win);
        if (held && r.rank != 1) hold(hold_file);
        if (held && r.rank == 1) mt_out("waiting\n");
        if (MPI_Win_complete(win) != MPI_SUCCESS) mt_fail("iteration %ld: MPI_Win_complete", it);
        if (it % 2) {
            if (MPI_Win_wait(win) != MPI_SUCCESS) mt_fail("iteration %ld: MPI_Win_wait", it);
        } else {
            int flag = 0;
            while (!flag)
                if (MPI_Win_test(win, &flag) != MPI_SUCCESS) mt_fail("iteration %ld: MPI_Win_test", it);
        }
        for (int k = 0; k < NV; k++) {
            if (mem[k] != value(left, it, k, 0))
                mt_fail("iteration %ld: from the left [%d] = %ld, want %ld", it, k, mem[k], value(left, it, k, 0));
            if (mem[NV + k] != value(right, it, k, 1))
                mt_fail("iteration %ld: from the right [%d] = %ld, want %ld", it, k, mem[NV + k], value(right, it, k, 1));
        }
        h = mt_hash(h, mem, 2 * NV * sizeof *mem);
    } while (!mt_done(&r, it));
    MPI_Group_free(&nbrs);
    MPI_Win_free(&win);
    free(mem);
    mt_finish(&r, "pscw", it, h);
    return 0;
}
