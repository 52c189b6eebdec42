/* reqnull - completion calls over request arrays that hold MPI_REQUEST_NULL and inactive persistent
 * requests (both legal: the standard says such entries are ignored), before and after a restart.
 *
 * Each iteration:
 *   ring   MPI_Waitall over {null, Irecv from the left, null, Isend to the right, a persistent send and
 *          receive that are started only every other iteration}; then Waitany/Waitsome/Testall over
 *          arrays that are all null or inactive.
 *   pairs  ranks 2k and 2k+1: the even one posts an any-source receive for an acknowledgement and a
 *          256 KiB send (rendezvous on both MPIs), polls the send with MPI_Test between bits of local
 *          work while its partner does not receive yet, then MPI_Waitall's both.  A checkpoint taken
 *          during the polls completes the send in its drain, MPI_Test then sets the handle to
 *          MPI_REQUEST_NULL, and MPI_Waitall gets a null entry (a real benchmark hung there).
 *   isendrecv (MPI 4.0 only) MPI_Isendrecv and MPI_Isendrecv_replace in the ring, both pending at once.
 *   cancel a cancelled any-source receive that no message matches, waited for after a bit of work.
 * The checksum covers every byte received, so it does not depend on when MPI_Test saw the send end. */
#include "mpitest.h"

#define BIG (256 * 1024)
#define POLLS 8

static uint64_t ring(int rank, int size, long it, int *pin, int *pout, MPI_Request pers[2], uint64_t h)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[4], in[4] = { -1, -1, -1, -1 };
    for (int i = 0; i < 4; i++) out[i] = (int)(rank * 1000 + it * 7 + i);
    MPI_Request rq[6] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                          pers[0], pers[1] };
    MPI_Irecv(in, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(out, 4, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[3]);
    int started = it % 2 == 0;
    if (started) {
        *pout = (int)(rank + it);
        MPI_Startall(2, pers);
    }
    MPI_Status st[6];
    if (MPI_Waitall(6, rq, st) != MPI_SUCCESS) mt_fail("Waitall over null entries returned an error");
    for (int i = 0; i < 4; i++) {
        if (rq[i] != MPI_REQUEST_NULL) mt_fail("Waitall left request %d non-null", i);
        if (in[i] != (int)(left * 1000 + it * 7 + i)) mt_fail("ring: got %d, want %d", in[i], (int)(left * 1000 + it * 7 + i));
    }
    if (rq[4] != pers[0] || rq[5] != pers[1]) mt_fail("Waitall freed a persistent request");
    if (st[1].MPI_SOURCE != left || st[1].MPI_TAG != 1) mt_fail("ring: status source %d tag %d", st[1].MPI_SOURCE, st[1].MPI_TAG);
    /* A null or inactive entry's status is the empty one: source MPI_ANY_SOURCE, tag MPI_ANY_TAG. */
    if (st[0].MPI_SOURCE != MPI_ANY_SOURCE || st[0].MPI_TAG != MPI_ANY_TAG) mt_fail("null entry: status not empty");
    if (!started && (st[4].MPI_SOURCE != MPI_ANY_SOURCE || st[5].MPI_TAG != MPI_ANY_TAG))
        mt_fail("inactive persistent entry: status not empty");
    if (started && *pin != (int)(left + it)) mt_fail("persistent: got %d, want %d", *pin, (int)(left + it));
    h = mt_hash(h, in, sizeof in);
    if (started) h = mt_hash(h, pin, sizeof *pin);

#if MPI_VERSION >= 4
    /* MPI 4.0's nonblocking sendrecv (MPICH 4.0 has it, Open MPI 4.1 not), both forms pending at once,
     * perhaps across a checkpoint */
    long sx[3] = { rank * 5 + it, it, -rank }, rx[3] = { 0, 0, 0 }, rep[2] = { rank * 7 + it, -rank - it };
    MPI_Request q[2];
    MPI_Status qs[2];
    MPI_Isendrecv(sx, 3, MPI_LONG, right, 11, rx, 3, MPI_LONG, left, 11, MPI_COMM_WORLD, &q[0]);
    MPI_Isendrecv_replace(rep, 2, MPI_LONG, right, 12, left, 12, MPI_COMM_WORLD, &q[1]);
    usleep(100);                                /* local work */
    if (MPI_Waitall(2, q, qs) != MPI_SUCCESS) mt_fail("Isendrecv: Waitall returned an error");
    /* (data only: MPICH 4.0.2's own statuses of these are not the receive's) */
    if (rx[0] != left * 5 + it || rx[1] != it || rx[2] != -left) mt_fail("Isendrecv: got %ld %ld %ld", rx[0], rx[1], rx[2]);
    if (rep[0] != left * 7 + it || rep[1] != -left - it) mt_fail("Isendrecv_replace: got %ld %ld", rep[0], rep[1]);
    h = mt_hash(h, rx, sizeof rx);
    h = mt_hash(h, rep, sizeof rep);
#endif

    /* Nothing active at all: every completion call returns at once. */
    MPI_Request none[3] = { MPI_REQUEST_NULL, pers[0], MPI_REQUEST_NULL };
    int idx = 0, n = 0, flag = 0, idxs[3];
    MPI_Status sts[3];
    MPI_Waitany(3, none, &idx, &sts[0]);
    if (idx != MPI_UNDEFINED) mt_fail("Waitany over null/inactive entries: index %d", idx);
    MPI_Waitsome(3, none, &n, idxs, sts);
    if (n != MPI_UNDEFINED) mt_fail("Waitsome over null/inactive entries: outcount %d", n);
    MPI_Testall(3, none, &flag, sts);
    if (!flag) mt_fail("Testall over null/inactive entries: flag 0");
    MPI_Waitall(3, none, sts);
    /* MPI_Status_set_cancelled only edits a status (generalized requests' query functions use it). */
    int canc = -1;
    MPI_Status_set_cancelled(&sts[0], (int)(it & 1));
    MPI_Test_cancelled(&sts[0], &canc);
    if (canc != (int)(it & 1)) mt_fail("Status_set_cancelled(%d) read back as %d", (int)(it & 1), canc);

    /* A receive nobody sends to, cancelled (HPCC's RandomAccess ends with this): it completes cancelled
     * and moved no message, so the drain's count of messages in flight must not change.  The checkpoint
     * may come between the cancel and the wait. */
    int none_sent = 0;
    MPI_Request cr;
    MPI_Status cst;
    MPI_Irecv(&none_sent, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &cr);
    MPI_Cancel(&cr);
    usleep(100);                                /* local work */
    MPI_Wait(&cr, &cst);
    canc = 0;
    MPI_Test_cancelled(&cst, &canc);
    if (!canc) mt_fail("the cancelled receive was not cancelled (got %d from %d)", none_sent, cst.MPI_SOURCE);
    return h;
}

static uint64_t pairs(int rank, int size, long it, char *big, uint64_t h)
{
    int peer = rank ^ 1;
    if (peer >= size) {                     /* an odd last rank sits the pair exchange out */
        MPI_Barrier(MPI_COMM_WORLD);
        return h;
    }
    if (rank % 2 == 0) {
        int ack = 0, flag = 0;
        memset(big, (int)(it & 0x7f), BIG);
        MPI_Request req[2];
        MPI_Irecv(&ack, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(big, BIG, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &req[1]);
        for (int p = 0; p < POLLS; p++) {
            if (req[1] != MPI_REQUEST_NULL) MPI_Test(&req[1], &flag, MPI_STATUS_IGNORE);
            usleep(250);                    /* local work */
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Status st[2];
        if (MPI_Waitall(2, req, st) != MPI_SUCCESS) mt_fail("pairs: Waitall returned an error");
        if (ack != (int)(it + 1) || st[0].MPI_SOURCE != peer || st[0].MPI_TAG != 6)
            mt_fail("pairs: ack %d from %d tag %d", ack, st[0].MPI_SOURCE, st[0].MPI_TAG);
        h = mt_hash(h, &ack, sizeof ack);
    } else {
        for (int p = 0; p < POLLS; p++) usleep(250);   /* local work: the send stays pending */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(big, BIG, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < BIG; i += 4096)
            if (big[i] != (char)(it & 0x7f)) mt_fail("pairs: byte %d is %d, want %d", i, big[i], (int)(it & 0x7f));
        h = mt_hash(h, big, BIG);
        int ack = (int)(it + 1);
        MPI_Send(&ack, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
    }
    return h;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    char *big = malloc(BIG);
    if (!big) mt_fail("out of memory");
    int pin = -1, pout = 0;
    MPI_Request pers[2];
    MPI_Recv_init(&pin, 1, MPI_INT, (r.rank + r.size - 1) % r.size, 2, MPI_COMM_WORLD, &pers[0]);
    MPI_Send_init(&pout, 1, MPI_INT, (r.rank + 1) % r.size, 2, MPI_COMM_WORLD, &pers[1]);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        h = ring(r.rank, r.size, it, &pin, &pout, pers, h);
        h = pairs(r.rank, r.size, it, big, h);
    } while (!mt_done(&r, it));
    MPI_Request_free(&pers[0]);
    MPI_Request_free(&pers[1]);
    free(big);
    mt_finish(&r, "reqnull", it, h);
    return 0;
}
