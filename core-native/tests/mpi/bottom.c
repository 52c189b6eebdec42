/* bottom - sends and receives at MPI_BOTTOM with a struct of absolute addresses, as Fortran programs make
 * them (bottom.sh).
 *
 * Two ranks.  Each has a struct type over the absolute addresses of an int and a double of its own
 * (MPI_Get_address; the buffer argument is MPI_BOTTOM).  Without a checkpoint: rank 1 sends with
 * MPI_Bsend, both swap with MPI_Sendrecv_replace (the runtime packs and unpacks both).  Then rank 1 sends
 * one more message that rank 0 receives only once the file named by argv[1] exists: the script checkpoints,
 * kills and restarts the job in between, so the checkpoint's drain holds that message in the runtime's
 * buffer and the restarted receive unpacks it from there into MPI_BOTTOM.  (MPICH's MPI_Pack and
 * MPI_Unpack refuse a null buffer even for such a type: mpi_mpich_fortran_mpif_2_kill failed so.)
 *
 * Output: rank 0 prints "ready" once the last message was sent, then "bottom done: sum=S". */
#include "pairtest.h"

static void fail(const char *what, double got) { pt_fail("%s (%g)", what, got); }

static int iv;
static double dv;

static MPI_Datatype at_bottom(void)
{
    int len[2] = { 1, 1 };
    MPI_Aint disp[2];
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, t;
    MPI_Get_address(&iv, &disp[0]);
    MPI_Get_address(&dv, &disp[1]);
    MPI_Type_create_struct(2, len, disp, types, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "bottom", 1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = at_bottom();
    double sum = 0;
    int rc;
    /* 1. MPI_Bsend from MPI_BOTTOM */
    static char bbuf[1024 + MPI_BSEND_OVERHEAD];
    MPI_Buffer_attach(bbuf, sizeof bbuf);
    if (rank == 1) {
        iv = 11, dv = 1.5;
        if ((rc = MPI_Bsend(MPI_BOTTOM, 1, t, 0, 1, MPI_COMM_WORLD)) != MPI_SUCCESS) fail("MPI_Bsend at MPI_BOTTOM", rc);
    } else {
        iv = -1, dv = -1;
        if ((rc = MPI_Recv(MPI_BOTTOM, 1, t, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            fail("MPI_Recv at MPI_BOTTOM", rc);
        if (iv != 11 || dv != 1.5) fail("the buffered send's values", iv);
        sum += iv + dv;
    }
    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    /* 2. MPI_Sendrecv_replace at MPI_BOTTOM */
    iv = 100 + rank, dv = 0.25 * rank;
    if ((rc = MPI_Sendrecv_replace(MPI_BOTTOM, 1, t, 1 - rank, 2, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) !=
        MPI_SUCCESS)
        fail("MPI_Sendrecv_replace at MPI_BOTTOM", rc);
    if (iv != 100 + (1 - rank) || dv != 0.25 * (1 - rank)) fail("the swapped values", iv);
    if (rank == 0) sum += iv + dv;
    /* 3. a message the checkpoint's drain buffers, received at MPI_BOTTOM after the restart */
    if (rank == 1) {
        iv = 33, dv = 4.75;
        if ((rc = MPI_Send(MPI_BOTTOM, 1, t, 0, 3, MPI_COMM_WORLD)) != MPI_SUCCESS) fail("MPI_Send at MPI_BOTTOM", rc);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        pt_out("ready\n");
        pt_await_file(argv[1]);
        iv = -1, dv = -1;
        if ((rc = MPI_Recv(MPI_BOTTOM, 1, t, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            fail("MPI_Recv at MPI_BOTTOM after the restart", rc);
        if (iv != 33 || dv != 4.75) fail("the last message's values", iv);
        sum += iv + dv;
    }
    /* rank 1 waits in a receive, not a collective: a checkpoint must not need rank 0 to leave its wait */
    int ack = 7;
    if (rank == 0) MPI_Send(&ack, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    else MPI_Recv(&ack, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) pt_out("bottom done: sum=%g\n", sum);
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
