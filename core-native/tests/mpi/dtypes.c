/* dtypes - derived datatypes over the wire: a column of a matrix (vector), a struct of int+double
 * pairs (create_struct, resized), and a subarray; sent to the right neighbour, received with the same
 * type from the left, with ANY_SOURCE/ANY_TAG receives checked by MPI_Probe and the status' count. */
#include "mpitest.h"

struct pair { int32_t i; double d; };

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    MPI_Datatype col, ptmp, pty, sub;
    MPI_Type_vector(8, 1, 8, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    int bl[2] = { 1, 1 };
    MPI_Aint dp[2] = { offsetof(struct pair, i), offsetof(struct pair, d) };
    MPI_Datatype ty[2] = { MPI_INT32_T, MPI_DOUBLE };
    MPI_Type_create_struct(2, bl, dp, ty, &ptmp);
    MPI_Type_create_resized(ptmp, 0, sizeof(struct pair), &pty);
    MPI_Type_free(&ptmp);
    MPI_Type_commit(&pty);
    int sz[2] = { 6, 6 }, ss[2] = { 3, 2 }, st0[2] = { 1, 2 };
    MPI_Type_create_subarray(2, sz, ss, st0, MPI_ORDER_C, MPI_INT32_T, &sub);
    MPI_Type_commit(&sub);
    double m[64], mr[64];
    struct pair p[4], pr[4];
    int32_t a[36], ar[36];
    for (int i = 0; i < 64; i++) m[i] = r.rank + i;
    memset(p, 0, sizeof p);          /* the padding after .i is hashed too: make it the same in every run */
    for (int i = 0; i < 4; i++) { p[i].i = r.rank + i; p[i].d = r.rank * 0.25 + i; }
    for (int i = 0; i < 36; i++) a[i] = r.rank * 100 + i;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        memset(mr, 0, sizeof mr);
        memset(ar, 0, sizeof ar);
        MPI_Request q[3];
        MPI_Isend(&m[it % 8], 1, col, right, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(p, 4, pty, right, 2, MPI_COMM_WORLD, &q[1]);
        MPI_Isend(a, 1, sub, right, 3, MPI_COMM_WORLD, &q[2]);
        for (int k = 0; k < 3; k++) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_SOURCE != left) mt_fail("probe source %d", st.MPI_SOURCE);
            int bytes;
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            if (st.MPI_TAG == 1) MPI_Recv(&mr[it % 8], 1, col, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            else if (st.MPI_TAG == 2) MPI_Recv(pr, 4, pty, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            else MPI_Recv(ar, 1, sub, left, 3, MPI_COMM_WORLD, &st);
            h = mt_hash(h, &bytes, sizeof bytes);
        }
        MPI_Status sts[3];
        MPI_Waitall(3, q, sts);
        for (int i = 0; i < 64; i++) m[i] = m[i] * 0.9 + mr[i];
        for (int i = 0; i < 4; i++) { p[i].i += pr[i].i; p[i].d = p[i].d * 0.5 + pr[i].d; }
        for (int i = 0; i < 36; i++) a[i] = a[i] * 3 + ar[i];
        h = mt_hash(h, m, sizeof m);
        h = mt_hash(h, p, sizeof p);
        h = mt_hash(h, a, sizeof a);
    } while (!mt_done(&r, it));
    MPI_Type_free(&col);
    MPI_Type_free(&pty);
    MPI_Type_free(&sub);
    mt_finish(&r, "dtypes", it, h);
    return 0;
}
