/* fin_wait - a checkpoint while one rank waits inside MPI_Finalize for another that computes outside MPI
 * (fin_wait.sh).
 *
 * Two ranks share two duplicates of MPI_COMM_WORLD: `kept`, never freed (MPI does not ask a program to
 * free its communicators), and `freed`, freed by rank 0 at once and by rank 1 only later.  Rank 0 goes
 * straight into MPI_Finalize, which must wait there until rank 1 has let go of both (the runtime
 * completes a barrier on each before the real MPI_Finalize).  Rank 1 stays outside MPI until the file
 * named by argv[1] exists: the script checkpoints the job meanwhile, once letting it go on and once
 * killing and restarting it.  (The runtime held its lower half for the whole wait, so the checkpoint
 * waited for rank 0 for ever.)
 *
 * Output: rank 1 prints "ready" once rank 0 has been sent into MPI_Finalize, each rank
 * "fin_wait done: rank R sum=S" after it. */
#include "pairtest.h"

static void fail(const char *what, int got) { pt_fail("%s (%d)", what, got); }

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "fin_wait", 1);
    MPI_Comm kept, freed;
    MPI_Comm_dup(MPI_COMM_WORLD, &kept);
    MPI_Comm_dup(MPI_COMM_WORLD, &freed);
    int one = rank + 1, a = 0, b = 0;
    MPI_Allreduce(&one, &a, 1, MPI_INT, MPI_SUM, kept);
    MPI_Allreduce(&one, &b, 1, MPI_INT, MPI_SUM, freed);
    if (a != 3 || b != 3) fail("the sums on the duplicates", a * 10 + b);
    if (rank == 0) {
        MPI_Comm_free(&freed);
        MPI_Send(&one, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);   /* rank 1: rank 0 is on its way in */
    } else {
        int go;
        MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pt_out("ready\n");
        pt_await_file(argv[1]);
        MPI_Comm_free(&freed);
    }
    MPI_Finalize();
    pt_out("fin_wait done: rank %d sum=%d\n", rank, a + b);
    return 0;
}
