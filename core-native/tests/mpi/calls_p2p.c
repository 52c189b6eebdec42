/* calls_p2p - the point-to-point calls no other checkpointed program makes, each called every iteration
 * (so checkpoints fall between them) and each result checked.  In a ring (left -> rank -> right):
 *   ready      MPI_Rsend and MPI_Irsend to a receive the right neighbour posted before a barrier;
 *   sync       MPI_Issend pending over local work, polled with MPI_Request_get_status (which leaves the
 *              request alive) until it completes, then MPI_Wait;
 *   buffered   MPI_Ibsend from the attached buffer;
 *   persistent MPI_Bsend_init, MPI_Rsend_init, MPI_Ssend_init made once, each started with MPI_Start;
 *   probe      MPI_Iprobe polled until the message is there, its status and count checked;
 *   any/some   MPI_Testany and MPI_Testsome polled over receive arrays until every entry is done;
 *   replace    MPI_Sendrecv_replace;
 *   message    MPI_Mprobe's message handle through MPI_Message_c2f / MPI_Message_f2c, then MPI_Mrecv;
 *   large      (MPI 4.0 only) MPI_Send_c, MPI_Rsend_c, MPI_Irsend_c, MPI_Issend_c and the persistent
 *              MPI_Bsend_init_c, MPI_Rsend_init_c, MPI_Ssend_init_c.
 * Every received value goes into the checksum. */
#include "mpitest.h"

#define N 16
#define BIG (96 * 1024)          /* above both MPIs' eager limits: MPI_Issend and MPI_Ssend_init wait */

static MPI_Comm w;
static int rank, size, right, left;

static void fill(long *b, int n, int who, long it, int tag)
{
    for (int i = 0; i < n; i++) b[i] = who * 100000L + it * 100 + tag * 7 + i;
}

static void check(const long *b, int n, int who, long it, int tag, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != who * 100000L + it * 100 + tag * 7 + i)
            mt_fail("%s: element %d is %ld, want %ld (iteration %ld)", what, i, b[i], who * 100000L + it * 100 + tag * 7 + i, it);
}

static void check_status(const MPI_Status *st, int src, int tag, MPI_Datatype t, int count, const char *what)
{
    int n = -1;
    MPI_Get_count(st, t, &n);
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag || n != count)
        mt_fail("%s: status source %d tag %d count %d, want %d %d %d", what, st->MPI_SOURCE, st->MPI_TAG, n, src, tag, count);
}

struct pers {
    MPI_Request bs, rs, ss;
    long bbuf[N], rbuf[N];
#if MPI_VERSION >= 4
    MPI_Request bsc, rsc, ssc;
    long cb[N], cr[N];
#endif
};

static uint64_t iteration(long it, struct pers *p, char *sbig, char *rbig, uint64_t h)
{
    MPI_Status st;
    long out[N], in[N], out2[N], in2[N];

    /* ready mode: the receives are posted before the barrier, the ready sends come after it */
    MPI_Request rr[2], rs;
    MPI_Irecv(in, N, MPI_LONG, left, 1, w, &rr[0]);
    MPI_Irecv(in2, N, MPI_LONG, left, 2, w, &rr[1]);
    MPI_Barrier(w);
    fill(out, N, rank, it, 1);
    fill(out2, N, rank, it, 2);
    MPI_Rsend(out, N, MPI_LONG, right, 1, w);
    MPI_Irsend(out2, N, MPI_LONG, right, 2, w, &rs);
    MPI_Status sts[2];
    MPI_Waitall(2, rr, sts);
    MPI_Wait(&rs, MPI_STATUS_IGNORE);
    if (rs != MPI_REQUEST_NULL) mt_fail("Irsend: the request is not null after MPI_Wait");
    check_status(&sts[0], left, 1, MPI_LONG, N, "Rsend");
    check_status(&sts[1], left, 2, MPI_LONG, N, "Irsend");
    check(in, N, left, it, 1, "Rsend");
    check(in2, N, left, it, 2, "Irsend");
    h = mt_hash(h, in, sizeof in);
    h = mt_hash(h, in2, sizeof in2);

    /* synchronous, pending over local work; MPI_Request_get_status polls without freeing */
    memset(sbig, (int)((rank * 3 + it) & 0x7f), BIG);
    MPI_Request sq;
    MPI_Issend(sbig, BIG, MPI_CHAR, right, 3, w, &sq);
    int flag = 0;
    MPI_Request_get_status(sq, &flag, &st);
    usleep(300);                                  /* local work: the receiver is not there yet */
    MPI_Recv(rbig, BIG, MPI_CHAR, left, 3, w, &st);
    check_status(&st, left, 3, MPI_CHAR, BIG, "Issend");
    for (int i = 0; i < BIG; i += 1024)
        if (rbig[i] != (char)((left * 3 + it) & 0x7f)) mt_fail("Issend: byte %d is %d", i, rbig[i]);
    h = mt_hash(h, rbig, BIG);
    long polls = 0;
    for (flag = 0; !flag; polls++) {
        MPI_Request_get_status(sq, &flag, &st);
        if (polls > 10000000) mt_fail("Request_get_status: the synchronous send never completes");
    }
    if (sq == MPI_REQUEST_NULL) mt_fail("Request_get_status freed the request");
    MPI_Wait(&sq, &st);
    if (sq != MPI_REQUEST_NULL) mt_fail("Issend: not null after MPI_Wait");

    /* buffered, nonblocking */
    MPI_Request bq;
    fill(out, N, rank, it, 4);
    MPI_Ibsend(out, N, MPI_LONG, right, 4, w, &bq);
    MPI_Recv(in, N, MPI_LONG, left, 4, w, &st);
    MPI_Wait(&bq, MPI_STATUS_IGNORE);
    check_status(&st, left, 4, MPI_LONG, N, "Ibsend");
    check(in, N, left, it, 4, "Ibsend");
    h = mt_hash(h, in, sizeof in);

    /* persistent buffered, ready and synchronous sends, each started with MPI_Start */
    fill(p->bbuf, N, rank, it, 5);
    MPI_Start(&p->bs);
    MPI_Recv(in, N, MPI_LONG, left, 5, w, &st);
    MPI_Wait(&p->bs, MPI_STATUS_IGNORE);
    if (p->bs == MPI_REQUEST_NULL) mt_fail("Bsend_init: MPI_Wait freed the persistent request");
    check(in, N, left, it, 5, "Bsend_init");
    h = mt_hash(h, in, sizeof in);
    MPI_Irecv(in, N, MPI_LONG, left, 6, w, &rr[0]);
    MPI_Barrier(w);
    fill(p->rbuf, N, rank, it, 6);
    MPI_Start(&p->rs);
    MPI_Wait(&rr[0], &st);
    MPI_Wait(&p->rs, MPI_STATUS_IGNORE);
    check_status(&st, left, 6, MPI_LONG, N, "Rsend_init");
    check(in, N, left, it, 6, "Rsend_init");
    h = mt_hash(h, in, sizeof in);
    memset(sbig, (int)((rank * 5 + it) & 0x7f), BIG);
    MPI_Start(&p->ss);
    usleep(200);                                  /* local work */
    MPI_Recv(rbig, BIG, MPI_CHAR, left, 7, w, &st);
    MPI_Wait(&p->ss, MPI_STATUS_IGNORE);
    check_status(&st, left, 7, MPI_CHAR, BIG, "Ssend_init");
    for (int i = 0; i < BIG; i += 1024)
        if (rbig[i] != (char)((left * 5 + it) & 0x7f)) mt_fail("Ssend_init: byte %d is %d", i, rbig[i]);
    h = mt_hash(h, rbig, 4096);

    /* MPI_Iprobe, polled */
    fill(out, N, rank, it, 8);
    MPI_Request iq;
    MPI_Isend(out, 1 + (int)(it % N), MPI_LONG, right, 8, w, &iq);
    flag = 0;
    while (!flag) MPI_Iprobe(left, 8, w, &flag, &st);
    check_status(&st, left, 8, MPI_LONG, 1 + (int)(it % N), "Iprobe");
    MPI_Recv(in, N, MPI_LONG, left, 8, w, &st);
    MPI_Wait(&iq, MPI_STATUS_IGNORE);
    check(in, 1 + (int)(it % N), left, it, 8, "Iprobe");
    h = mt_hash(h, in, sizeof(long) * (size_t)(1 + it % N));

    /* MPI_Testany and MPI_Testsome over arrays of receives (with a null entry) */
    long a[3][N];
    MPI_Request aq[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL }, sq3[3];
    for (int k = 0; k < 3; k++) MPI_Irecv(a[k], N, MPI_LONG, left, 10 + k, w, &aq[k + 1]);
    long o[3][N];
    MPI_Status s3[3];
    for (int k = 2; k >= 0; k--) {
        fill(o[k], N, rank, it, 10 + k);
        MPI_Isend(o[k], N, MPI_LONG, right, 10 + k, w, &sq3[k]);
    }
    int done = 0, seen[4] = { 0, 0, 0, 0 };
    while (done < 3) {
        int idx = -2;
        flag = 0;
        MPI_Testany(4, aq, &idx, &flag, &st);
        if (flag) {
            if (idx < 1 || idx > 3 || seen[idx]) mt_fail("Testany: index %d", idx);
            seen[idx] = 1;
            done++;
            check_status(&st, left, 9 + idx, MPI_LONG, N, "Testany");
            if (aq[idx] != MPI_REQUEST_NULL) mt_fail("Testany: request %d not null", idx);
        }
    }
    int idx = -2;
    MPI_Testany(4, aq, &idx, &flag, &st);
    if (!flag || idx != MPI_UNDEFINED) mt_fail("Testany over null entries: flag %d index %d", flag, idx);
    MPI_Waitall(3, sq3, s3);
    for (int k = 0; k < 3; k++) {
        check(a[k], N, left, it, 10 + k, "Testany");
        h = mt_hash(h, a[k], sizeof a[k]);
    }
    for (int k = 0; k < 3; k++) MPI_Irecv(a[k], N, MPI_LONG, left, 20 + k, w, &aq[k]);
    for (int k = 0; k < 3; k++) {
        fill(o[k], N, rank, it, 20 + k);
        MPI_Isend(o[k], N, MPI_LONG, right, 20 + k, w, &sq3[k]);
    }
    done = 0;
    memset(seen, 0, sizeof seen);
    while (done < 3) {
        int outc = -2, idxs[3];
        MPI_Status ss[3];
        MPI_Testsome(3, aq, &outc, idxs, ss);
        if (outc == MPI_UNDEFINED || outc < 0 || outc > 3 - done) mt_fail("Testsome: outcount %d with %d done", outc, done);
        for (int k = 0; k < outc; k++) {
            if (idxs[k] < 0 || idxs[k] > 2 || seen[idxs[k]]) mt_fail("Testsome: index %d", idxs[k]);
            seen[idxs[k]] = 1;
            check_status(&ss[k], left, 20 + idxs[k], MPI_LONG, N, "Testsome");
        }
        done += outc;
    }
    int outc = -2, idxs[3];
    MPI_Testsome(3, aq, &outc, idxs, s3);
    if (outc != MPI_UNDEFINED) mt_fail("Testsome over null entries: outcount %d", outc);
    MPI_Waitall(3, sq3, s3);
    for (int k = 0; k < 3; k++) {
        check(a[k], N, left, it, 20 + k, "Testsome");
        h = mt_hash(h, a[k], sizeof a[k]);
    }

    /* MPI_Sendrecv_replace */
    fill(out, N, rank, it, 30);
    MPI_Sendrecv_replace(out, N, MPI_LONG, right, 30, left, 30, w, &st);
    check_status(&st, left, 30, MPI_LONG, N, "Sendrecv_replace");
    check(out, N, left, it, 30, "Sendrecv_replace");
    h = mt_hash(h, out, sizeof out);

    /* a matched message's handle through its Fortran integer */
    fill(out, N, rank, it, 31);
    MPI_Isend(out, N, MPI_LONG, right, 31, w, &iq);
    MPI_Message msg;
    MPI_Mprobe(left, 31, w, &msg, &st);
    MPI_Fint fmsg = MPI_Message_c2f(msg);
    MPI_Message msg2 = MPI_Message_f2c(fmsg);
    if (msg2 != msg) mt_fail("Message_c2f/f2c: the handle changed");
    if (MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) != MPI_MESSAGE_NULL ||
        MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) != MPI_MESSAGE_NO_PROC)
        mt_fail("Message_c2f/f2c of the predefined messages");
    MPI_Mrecv(in, N, MPI_LONG, &msg2, &st);
    if (msg2 != MPI_MESSAGE_NULL) mt_fail("Mrecv: the message is not null");
    MPI_Wait(&iq, MPI_STATUS_IGNORE);
    check_status(&st, left, 31, MPI_LONG, N, "Message_f2c");
    check(in, N, left, it, 31, "Message_f2c");
    h = mt_hash(h, in, sizeof in);

#if MPI_VERSION >= 4
    /* the large-count forms of the same */
    MPI_Request cq[2];
    fill(out, N, rank, it, 40);
    MPI_Irecv(in, N, MPI_LONG, left, 40, w, &cq[0]);
    MPI_Irecv(in2, N, MPI_LONG, left, 41, w, &cq[1]);
    MPI_Barrier(w);
    MPI_Rsend_c(out, (MPI_Count)N, MPI_LONG, right, 40, w);
    fill(out2, N, rank, it, 41);
    MPI_Irsend_c(out2, (MPI_Count)N, MPI_LONG, right, 41, w, &rs);
    MPI_Waitall(2, cq, sts);
    MPI_Wait(&rs, MPI_STATUS_IGNORE);
    check_status(&sts[0], left, 40, MPI_LONG, N, "Rsend_c");
    check_status(&sts[1], left, 41, MPI_LONG, N, "Irsend_c");
    check(in, N, left, it, 40, "Rsend_c");
    check(in2, N, left, it, 41, "Irsend_c");
    h = mt_hash(h, in, sizeof in);
    h = mt_hash(h, in2, sizeof in2);

    /* MPI_Send_c in pairs (an odd last rank sends to itself, received after) and MPI_Issend_c in the ring */
    fill(out, N, rank, it, 42);
    int peer = (rank ^ 1) < size ? (rank ^ 1) : rank;
    if (peer == rank) {
        MPI_Irecv(in, N, MPI_LONG, rank, 42, w, &cq[0]);
        MPI_Send_c(out, (MPI_Count)N, MPI_LONG, rank, 42, w);
        MPI_Wait(&cq[0], &st);
    } else if (rank % 2 == 0) {
        MPI_Send_c(out, (MPI_Count)N, MPI_LONG, peer, 42, w);
        MPI_Recv(in, N, MPI_LONG, peer, 42, w, &st);
    } else {
        MPI_Recv(in, N, MPI_LONG, peer, 42, w, &st);
        MPI_Send_c(out, (MPI_Count)N, MPI_LONG, peer, 42, w);
    }
    check_status(&st, peer, 42, MPI_LONG, N, "Send_c");
    check(in, N, peer, it, 42, "Send_c");
    h = mt_hash(h, in, sizeof in);
    memset(sbig, (int)((rank * 7 + it) & 0x7f), BIG);
    MPI_Issend_c(sbig, (MPI_Count)BIG, MPI_CHAR, right, 43, w, &sq);
    usleep(200);                                  /* local work */
    MPI_Recv(rbig, BIG, MPI_CHAR, left, 43, w, &st);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);
    check_status(&st, left, 43, MPI_CHAR, BIG, "Issend_c");
    if (rbig[0] != (char)((left * 7 + it) & 0x7f) || rbig[BIG - 1] != rbig[0]) mt_fail("Issend_c: byte %d", rbig[0]);
    h = mt_hash(h, rbig, 4096);

    /* persistent large-count sends */
    fill(p->cb, N, rank, it, 44);
    MPI_Start(&p->bsc);
    MPI_Recv(in, N, MPI_LONG, left, 44, w, &st);
    MPI_Wait(&p->bsc, MPI_STATUS_IGNORE);
    check(in, N, left, it, 44, "Bsend_init_c");
    h = mt_hash(h, in, sizeof in);
    MPI_Irecv(in, N, MPI_LONG, left, 45, w, &cq[0]);
    MPI_Barrier(w);
    fill(p->cr, N, rank, it, 45);
    MPI_Start(&p->rsc);
    MPI_Wait(&cq[0], &st);
    MPI_Wait(&p->rsc, MPI_STATUS_IGNORE);
    check(in, N, left, it, 45, "Rsend_init_c");
    h = mt_hash(h, in, sizeof in);
    memset(sbig, (int)((rank * 11 + it) & 0x7f), BIG);
    MPI_Start(&p->ssc);
    usleep(200);                                  /* local work */
    MPI_Recv(rbig, BIG, MPI_CHAR, left, 46, w, &st);
    MPI_Wait(&p->ssc, MPI_STATUS_IGNORE);
    check_status(&st, left, 46, MPI_CHAR, BIG, "Ssend_init_c");
    if (rbig[0] != (char)((left * 11 + it) & 0x7f) || rbig[BIG - 1] != rbig[0]) mt_fail("Ssend_init_c: byte %d", rbig[0]);
    h = mt_hash(h, rbig, 4096);
#endif
    return h;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    w = MPI_COMM_WORLD;
    rank = r.rank;
    size = r.size;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    char *sbig = malloc(BIG), *rbig = malloc(BIG);
    int bsize = 8 * ((int)sizeof(long) * N + MPI_BSEND_OVERHEAD);
    char *battach = malloc((size_t)bsize);
    if (!sbig || !rbig || !battach) mt_fail("out of memory");
    MPI_Buffer_attach(battach, bsize);
    struct pers p;
    MPI_Bsend_init(p.bbuf, N, MPI_LONG, right, 5, w, &p.bs);
    MPI_Rsend_init(p.rbuf, N, MPI_LONG, right, 6, w, &p.rs);
    MPI_Ssend_init(sbig, BIG, MPI_CHAR, right, 7, w, &p.ss);
#if MPI_VERSION >= 4
    MPI_Bsend_init_c(p.cb, (MPI_Count)N, MPI_LONG, right, 44, w, &p.bsc);
    MPI_Rsend_init_c(p.cr, (MPI_Count)N, MPI_LONG, right, 45, w, &p.rsc);
    MPI_Ssend_init_c(sbig, (MPI_Count)BIG, MPI_CHAR, right, 46, w, &p.ssc);
#endif
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        h = iteration(it, &p, sbig, rbig, h);
    } while (!mt_done(&r, it));
    MPI_Request_free(&p.bs);
    MPI_Request_free(&p.rs);
    MPI_Request_free(&p.ss);
#if MPI_VERSION >= 4
    MPI_Request_free(&p.bsc);
    MPI_Request_free(&p.rsc);
    MPI_Request_free(&p.ssc);
#endif
    void *back;
    int bback = 0;
    MPI_Buffer_detach(&back, &bback);
    if (back != battach || bback != bsize) mt_fail("Buffer_detach: %p %d", back, bback);
    free(battach);
    free(sbig);
    free(rbig);
    mt_finish(&r, "calls_p2p", it, h);
    return 0;
}
