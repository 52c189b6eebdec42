/* largecount - MPI 4.0's large-count point-to-point calls ("_c": counts are MPI_Count), pending across
 * checkpoints.  MPICH 4.0 exports them (PETSc routes its scatters through MPI_Send_c/Isend_c/
 * Send_init_c; mpi4py receives pickled data with MPI_Mprobe + MPI_Mrecv_c); Open MPI 4.1 does not, so
 * the test is registered for MPICH only.
 *
 * Each iteration, in a ring (left -> rank -> right):
 *   nonblocking  MPI_Irecv_c and MPI_Isend_c of 192 KiB (rendezvous: both stay pending while the rank
 *                does local work, so a checkpoint finds them in flight), then MPI_Waitall;
 *   unexpected   MPI_Isend_c of a small message the right neighbour receives only after local work
 *                (the drain may buffer it), with MPI_Recv_c, then MPI_Get_count_c of the status;
 *   sendrecv     MPI_Sendrecv_c, MPI_Sendrecv_replace_c, MPI_Isendrecv_c, MPI_Isendrecv_replace_c;
 *   persistent   MPI_Send_init_c / MPI_Recv_init_c made once, started every iteration;
 *   matched      MPI_Mprobe + MPI_Mrecv_c (mpi4py's pattern), MPI_Improbe + MPI_Imrecv_c;
 *   buffered     MPI_Bsend_c into a buffer attached with MPI_Buffer_attach_c, MPI_Ibsend_c;
 *   blocking     MPI_Ssend_c / MPI_Recv_c between even and odd ranks.
 * Every received byte goes into the checksum. */
#include "mpitest.h"

#if MPI_VERSION >= 4

#define BIG (192 * 1024)

static void expect_count(const MPI_Status *st, MPI_Datatype t, MPI_Count want, const char *what)
{
    MPI_Count got = -1;
    MPI_Get_count_c(st, t, &got);
    if (got != want) mt_fail("%s: MPI_Get_count_c says %lld, want %lld", what, (long long)got, (long long)want);
}

static uint64_t iteration(int rank, int size, long it, char *sbig, char *rbig, MPI_Request pers[2], long *pin,
                          long *pout, uint64_t h)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Status st;

    /* nonblocking, pending across local work */
    memset(sbig, (int)((rank + it) & 0x7f), BIG);
    MPI_Request rq[2];
    MPI_Irecv_c(rbig, (MPI_Count)BIG, MPI_CHAR, left, 1, w, &rq[0]);
    MPI_Isend_c(sbig, (MPI_Count)BIG, MPI_CHAR, right, 1, w, &rq[1]);
    usleep(200);                                  /* local work */
    MPI_Status sts[2];
    if (MPI_Waitall(2, rq, sts) != MPI_SUCCESS) mt_fail("Waitall of Isend_c/Irecv_c failed");
    expect_count(&sts[0], MPI_CHAR, BIG, "Irecv_c");
    for (int i = 0; i < BIG; i += 4096)
        if (rbig[i] != (char)((left + it) & 0x7f)) mt_fail("Irecv_c: byte %d is %d", i, rbig[i]);
    h = mt_hash(h, rbig, BIG);

    /* unexpected: sent now, received after local work */
    long u[5] = { rank, it, rank * it, -it, 42 }, ur[5];
    MPI_Request ureq;
    MPI_Isend_c(u, (MPI_Count)5, MPI_LONG, right, 2, w, &ureq);
    usleep(300);                                  /* local work */
    MPI_Recv_c(ur, (MPI_Count)5, MPI_LONG, left, 2, w, &st);
    expect_count(&st, MPI_LONG, 5, "Recv_c");
    if (st.MPI_SOURCE != left || st.MPI_TAG != 2) mt_fail("Recv_c: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    if (ur[0] != left || ur[1] != it || ur[2] != left * it) mt_fail("Recv_c: got %ld %ld %ld", ur[0], ur[1], ur[2]);
    MPI_Wait(&ureq, MPI_STATUS_IGNORE);
    h = mt_hash(h, ur, sizeof ur);

    /* sendrecv family */
    double sx[3] = { rank + 0.5, (double)it, -1.0 * rank }, rx[3];
    MPI_Sendrecv_c(sx, (MPI_Count)3, MPI_DOUBLE, right, 3, rx, (MPI_Count)3, MPI_DOUBLE, left, 3, w, &st);
    expect_count(&st, MPI_DOUBLE, 3, "Sendrecv_c");
    if (rx[0] != left + 0.5 || rx[1] != (double)it) mt_fail("Sendrecv_c: got %g %g", rx[0], rx[1]);
    int rep[4] = { rank, (int)it, rank * 3, 7 };
    MPI_Sendrecv_replace_c(rep, (MPI_Count)4, MPI_INT, right, 4, left, 4, w, &st);
    if (rep[0] != left || rep[1] != (int)it || rep[2] != left * 3) mt_fail("Sendrecv_replace_c: got %d %d %d", rep[0], rep[1], rep[2]);
    short q1[6], q1r[6] = { 0 }, q2[2] = { (short)rank, (short)it };
    for (int i = 0; i < 6; i++) q1[i] = (short)(rank * 10 + i);
    MPI_Request qr[2];
    MPI_Isendrecv_c(q1, (MPI_Count)6, MPI_SHORT, right, 5, q1r, (MPI_Count)6, MPI_SHORT, left, 5, w, &qr[0]);
    MPI_Isendrecv_replace_c(q2, (MPI_Count)2, MPI_SHORT, right, 6, left, 6, w, &qr[1]);
    usleep(100);                                  /* local work */
    MPI_Waitall(2, qr, sts);
    if (q1r[5] != (short)(left * 10 + 5) || q2[0] != (short)left || q2[1] != (short)it)
        mt_fail("Isendrecv_c: got %d, replace %d %d", q1r[5], q2[0], q2[1]);
    h = mt_hash(h, rx, sizeof rx);
    h = mt_hash(h, rep, sizeof rep);
    h = mt_hash(h, q1r, sizeof q1r);
    h = mt_hash(h, q2, sizeof q2);

    /* persistent */
    *pout = rank * 100 + it;
    MPI_Startall(2, pers);
    usleep(100);                                  /* local work */
    MPI_Waitall(2, pers, sts);
    if (*pin != left * 100 + it) mt_fail("Send_init_c/Recv_init_c: got %ld", *pin);
    h = mt_hash(h, pin, sizeof *pin);

    /* matched probe: the receiver learns the size first, as mpi4py does */
    int msz = (int)(1 + (rank + it) % 17);
    int *mo = malloc(sizeof(int) * (size_t)msz);
    for (int i = 0; i < msz; i++) mo[i] = rank * 1000 + i;
    MPI_Request mreq;
    MPI_Isend_c(mo, (MPI_Count)msz, MPI_INT, right, 7, w, &mreq);
    MPI_Message msg;
    MPI_Mprobe(left, 7, w, &msg, &st);
    MPI_Count n = 0;
    MPI_Get_count_c(&st, MPI_INT, &n);
    if (n != 1 + (left + it) % 17) mt_fail("Mprobe: count %lld", (long long)n);
    int *mi = malloc(sizeof(int) * (size_t)n);
    MPI_Mrecv_c(mi, n, MPI_INT, &msg, &st);
    if (msg != MPI_MESSAGE_NULL || mi[n - 1] != left * 1000 + (int)n - 1) mt_fail("Mrecv_c: got %d", mi[n - 1]);
    h = mt_hash(h, mi, sizeof(int) * (size_t)n);
    MPI_Wait(&mreq, MPI_STATUS_IGNORE);
    free(mi);
    MPI_Isend_c(mo, (MPI_Count)msz, MPI_INT, right, 8, w, &mreq);
    int flag = 0;
    while (!flag) MPI_Improbe(left, 8, w, &flag, &msg, &st);
    mi = malloc(sizeof(int) * (size_t)n);
    MPI_Request ir;
    MPI_Imrecv_c(mi, n, MPI_INT, &msg, &ir);
    usleep(100);                                  /* local work */
    MPI_Wait(&ir, &st);
    expect_count(&st, MPI_INT, n, "Imrecv_c");
    h = mt_hash(h, mi, sizeof(int) * (size_t)n);
    MPI_Wait(&mreq, MPI_STATUS_IGNORE);
    free(mi);
    free(mo);

    /* buffered */
    float bo[3] = { (float)rank, (float)it, 0.25f }, bi[3], bo2 = (float)(rank * 2), bi2;
    MPI_Bsend_c(bo, (MPI_Count)3, MPI_FLOAT, right, 9, w);
    MPI_Request br;
    MPI_Ibsend_c(&bo2, (MPI_Count)1, MPI_FLOAT, right, 10, w, &br);
    MPI_Recv_c(bi, (MPI_Count)3, MPI_FLOAT, left, 9, w, MPI_STATUS_IGNORE);
    MPI_Recv_c(&bi2, (MPI_Count)1, MPI_FLOAT, left, 10, w, MPI_STATUS_IGNORE);
    MPI_Wait(&br, MPI_STATUS_IGNORE);
    if (bi[0] != (float)left || bi[1] != (float)it || bi2 != (float)(left * 2)) mt_fail("Bsend_c: got %g %g %g", bi[0], bi[1], bi2);
    h = mt_hash(h, bi, sizeof bi);

    /* blocking synchronous, in pairs */
    int peer = rank ^ 1;
    if (peer < size) {
        long v = rank * 31 + it, got = -1;
        if (rank % 2 == 0) {
            MPI_Ssend_c(&v, (MPI_Count)1, MPI_LONG, peer, 11, w);
            MPI_Recv_c(&got, (MPI_Count)1, MPI_LONG, peer, 12, w, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv_c(&got, (MPI_Count)1, MPI_LONG, peer, 11, w, MPI_STATUS_IGNORE);
            MPI_Ssend_c(&v, (MPI_Count)1, MPI_LONG, peer, 12, w);
        }
        if (got != peer * 31 + it) mt_fail("Ssend_c: got %ld", got);
        h = mt_hash(h, &got, sizeof got);
    }
    return h;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    char *sbig = malloc(BIG), *rbig = malloc(BIG);
    MPI_Count bsize = 4096;
    void *battach = malloc((size_t)bsize);
    if (!sbig || !rbig || !battach) mt_fail("out of memory");
    MPI_Buffer_attach_c(battach, bsize);
    long pin = -1, pout = 0;
    MPI_Request pers[2];
    MPI_Recv_init_c(&pin, (MPI_Count)1, MPI_LONG, (r.rank + r.size - 1) % r.size, 13, MPI_COMM_WORLD, &pers[0]);
    MPI_Send_init_c(&pout, (MPI_Count)1, MPI_LONG, (r.rank + 1) % r.size, 13, MPI_COMM_WORLD, &pers[1]);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        h = iteration(r.rank, r.size, it, sbig, rbig, pers, &pin, &pout, h);
    } while (!mt_done(&r, it));
    MPI_Request_free(&pers[0]);
    MPI_Request_free(&pers[1]);
    void *back;
    MPI_Count bback = 0;
    MPI_Buffer_detach_c(&back, &bback);
    if (back != battach || bback != bsize) mt_fail("Buffer_detach_c: %p %lld", back, (long long)bback);
    free(battach);
    free(sbig);
    free(rbig);
    mt_finish(&r, "largecount", it, h);
    return 0;
}

#else
int main(void)
{
    fprintf(stderr, "largecount: needs MPI 4.0's large-count calls (MPICH 4.0 has them)\n");
    return 77;
}
#endif
