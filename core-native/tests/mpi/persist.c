/* persist - persistent requests and buffered sends: every iteration restarts a persistent receive
 * from the left and a persistent send to the right (MPI_Startall/MPI_Waitall), sends a second block
 * with MPI_Bsend from an attached buffer and receives it with MPI_Recv; every 16th iteration the
 * buffer is detached and attached again.  A checkpoint finds persistent requests active or inactive
 * and buffered messages in flight. */
#include "mpitest.h"

#define N 128

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    int64_t mine[N], got[N], extra[N / 4], gotx[N / 4];
    for (int i = 0; i < N; i++) mine[i] = r.rank * 100003 + i;
    int bsize = 4 * ((int)sizeof extra + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Request q[2];
    MPI_Recv_init(got, N, MPI_INT64_T, left, 3, MPI_COMM_WORLD, &q[0]);
    MPI_Send_init(mine, N, MPI_INT64_T, right, 3, MPI_COMM_WORLD, &q[1]);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        MPI_Startall(2, q);
        for (int i = 0; i < N / 4; i++) extra[i] = mine[i * 4] ^ it;
        MPI_Bsend(extra, N / 4, MPI_INT64_T, right, 4, MPI_COMM_WORLD);
        MPI_Status st[2];
        MPI_Waitall(2, q, st);
        if (q[0] == MPI_REQUEST_NULL || q[1] == MPI_REQUEST_NULL) mt_fail("a persistent request was freed by Waitall");
        if (st[0].MPI_SOURCE != left || st[0].MPI_TAG != 3) mt_fail("status %d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG);
        MPI_Status sx;
        MPI_Recv(gotx, N / 4, MPI_INT64_T, left, 4, MPI_COMM_WORLD, &sx);
        int cnt = 0;
        MPI_Get_count(&sx, MPI_INT64_T, &cnt);
        if (cnt != N / 4) mt_fail("buffered message of %d elements", cnt);
        /* An inactive persistent request completes at once with an empty status. */
        int flag = 0;
        MPI_Test(&q[1], &flag, MPI_STATUS_IGNORE);
        if (!flag) mt_fail("inactive persistent request not complete");
        for (int i = 0; i < N; i++) mine[i] = mine[i] * 6364136223846793005LL + got[i] + gotx[i / 4];
        h = mt_hash(h, mine, sizeof mine);
        if (it % 16 == 0) {
            void *b;
            int s;
            MPI_Buffer_detach(&b, &s);
            if (b != bbuf || s != bsize) mt_fail("detach gave %p/%d", b, s);
            MPI_Buffer_attach(bbuf, bsize);
        }
    } while (!mt_done(&r, it));
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
    void *b;
    int s;
    MPI_Buffer_detach(&b, &s);
    free(bbuf);
    mt_finish(&r, "persist", it, h);
    return 0;
}
