/* calls_coll - the collectives no other checkpointed program makes, each called every iteration (so
 * checkpoints fall between them) and each result checked against what it must be:
 *   blocking     MPI_Allgatherv, MPI_Alltoallv, MPI_Scatterv, MPI_Reduce_scatter, MPI_Reduce_scatter_block;
 *   local        MPI_Reduce_local (a predefined and a user-defined operation), MPI_Op_commutative;
 *   nonblocking  MPI_Ibcast, MPI_Iallgather, MPI_Ialltoall, MPI_Igather, MPI_Igatherv, MPI_Iscatter,
 *                MPI_Iscatterv, MPI_Ireduce, MPI_Ireduce_scatter, all in flight at once over local work
 *                (a checkpoint finds them pending), completed by one MPI_Waitall.
 * Every received value goes into the checksum.  The roots move with the iteration. */
#include "mpitest.h"

#define K 3                      /* values per rank and block */

/* a non-commutative (and associative) user operation: the product of 2x2 matrices, inout = in x inout */
struct m2 { uint64_t a, b, c, d; };
static struct m2 mul(struct m2 x, struct m2 y)
{
    struct m2 z = { x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d };
    return z;
}
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((struct m2 *)inout)[i] = mul(((struct m2 *)in)[i], ((struct m2 *)inout)[i]);
}
static struct m2 mat(int who, long it, int i)
{
    struct m2 m = { 1 + (uint64_t)who, (uint64_t)(it + i), (uint64_t)(who * 7 + i), 3 };
    return m;
}
static int same(struct m2 x, struct m2 y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

/* the value rank `who` contributes at position i in iteration it */
static long val(int who, long it, int i) { return who * 1000L + it * 10 + i; }

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int n = r.size, me = r.rank;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Op matop;
    MPI_Op_create(matmul, 0, &matop);   /* mana-lint: ignore MPI_Op_create (one op: far below the limit) */
    MPI_Datatype mt;
    MPI_Type_contiguous(4, MPI_UINT64_T, &mt);
    MPI_Type_commit(&mt);
    size_t nn = (size_t)n;
    int *cnt = malloc(sizeof(int) * nn), *dsp = malloc(sizeof(int) * nn);
    int *rcnt = malloc(sizeof(int) * nn), *rdsp = malloc(sizeof(int) * nn);
    long *sbuf = malloc(sizeof(long) * K * nn * nn), *rbuf = malloc(sizeof(long) * K * nn * nn);
    long *nb[9];
    for (int k = 0; k < 9; k++) nb[k] = malloc(sizeof(long) * K * nn * nn);
    struct m2 *ms = malloc(sizeof *ms * K * nn);
    if (!cnt || !dsp || !rcnt || !rdsp || !sbuf || !rbuf || !ms) mt_fail("out of memory");
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        int root = (int)(it % n);

        /* MPI_Allgatherv: rank j gives 1 + j % K values, placed at K * j */
        long mine[K];
        for (int i = 0; i < K; i++) mine[i] = val(me, it, i);
        for (int j = 0; j < n; j++) { cnt[j] = 1 + j % K; dsp[j] = K * j; }
        for (size_t i = 0; i < K * nn; i++) rbuf[i] = -1;
        MPI_Allgatherv(mine, cnt[me], MPI_LONG, rbuf, cnt, dsp, MPI_LONG, w);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < K; i++)
                if (rbuf[K * j + i] != (i < cnt[j] ? val(j, it, i) : -1))
                    mt_fail("Allgatherv: [%d][%d] = %ld", j, i, rbuf[K * j + i]);
        h = mt_hash(h, rbuf, sizeof(long) * K * nn);

        /* MPI_Alltoallv: rank me sends 1 + (me + j) % K values to rank j, from K * j */
        for (int j = 0; j < n; j++) {
            cnt[j] = 1 + (me + j) % K;
            dsp[j] = K * j;
            rcnt[j] = 1 + (j + me) % K;
            rdsp[j] = K * (n - 1 - j);
            for (int i = 0; i < K; i++) sbuf[K * j + i] = val(me, it, 100 * j + i);
        }
        for (size_t i = 0; i < K * nn; i++) rbuf[i] = -1;
        MPI_Alltoallv(sbuf, cnt, dsp, MPI_LONG, rbuf, rcnt, rdsp, MPI_LONG, w);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < rcnt[j]; i++)
                if (rbuf[K * (n - 1 - j) + i] != val(j, it, 100 * me + i))
                    mt_fail("Alltoallv: from %d [%d] = %ld", j, i, rbuf[K * (n - 1 - j) + i]);
        h = mt_hash(h, rbuf, sizeof(long) * K * nn);

        /* MPI_Scatterv from root: rank j gets 1 + j % K values from K * (n - 1 - j) */
        for (int j = 0; j < n; j++) {
            cnt[j] = 1 + j % K;
            dsp[j] = K * (n - 1 - j);
            for (int i = 0; i < K; i++) sbuf[K * j + i] = val(root, it, 10 * j + i);
        }
        long got[K] = { -1, -1, -1 };
        MPI_Scatterv(sbuf, cnt, dsp, MPI_LONG, got, cnt[me], MPI_LONG, root, w);
        for (int i = 0; i < cnt[me]; i++)
            if (got[i] != val(root, it, 10 * (n - 1 - me) + i)) mt_fail("Scatterv: [%d] = %ld", i, got[i]);
        h = mt_hash(h, got, sizeof got);

        /* MPI_Reduce_scatter: block j (1 + j % K values) of the sum goes to rank j */
        size_t tot = 0;
        for (int j = 0; j < n; j++) { cnt[j] = 1 + j % K; tot += (size_t)cnt[j]; }
        for (size_t i = 0; i < tot; i++) sbuf[i] = val(me, it, (int)i);
        long rs[K] = { -1, -1, -1 };
        MPI_Reduce_scatter(sbuf, rs, cnt, MPI_LONG, MPI_SUM, w);
        int off = 0;
        for (int j = 0; j < me; j++) off += cnt[j];
        for (int i = 0; i < cnt[me]; i++) {
            long want = 0;
            for (int j = 0; j < n; j++) want += val(j, it, off + i);
            if (rs[i] != want) mt_fail("Reduce_scatter: [%d] = %ld, want %ld", i, rs[i], want);
        }
        h = mt_hash(h, rs, sizeof rs);
        /* MPI_Reduce_scatter_block, with the non-commutative operation: the product in rank order */
        struct m2 mr[K];
        for (int j = 0; j < n; j++)
            for (int i = 0; i < K; i++) ms[K * j + i] = mat(me, it, K * j + i);
        memset(mr, 0, sizeof mr);
        MPI_Reduce_scatter_block(ms, mr, K, mt, matop, w);
        for (int i = 0; i < K; i++) {
            struct m2 want = mat(0, it, K * me + i);
            for (int j = 1; j < n; j++) want = mul(want, mat(j, it, K * me + i));
            if (!same(mr[i], want)) mt_fail("Reduce_scatter_block: [%d] = %llu, want %llu", i, (unsigned long long)mr[i].b, (unsigned long long)want.b);
        }
        h = mt_hash(h, mr, sizeof mr);

        /* MPI_Reduce_local and MPI_Op_commutative */
        long la[K], lb[K];
        for (int i = 0; i < K; i++) { la[i] = val(me, it, i); lb[i] = it + i; }
        MPI_Reduce_local(la, lb, K, MPI_LONG, MPI_SUM);
        for (int i = 0; i < K; i++)
            if (lb[i] != val(me, it, i) + it + i) mt_fail("Reduce_local(MPI_SUM): [%d] = %ld", i, lb[i]);
        h = mt_hash(h, lb, sizeof lb);
        struct m2 ma[K], mb[K];
        for (int i = 0; i < K; i++) { ma[i] = mat(me, it, i); mb[i] = mat(me + 1, it, i + 1); }
        MPI_Reduce_local(ma, mb, K, mt, matop);
        for (int i = 0; i < K; i++)
            if (!same(mb[i], mul(mat(me, it, i), mat(me + 1, it, i + 1)))) mt_fail("Reduce_local(user op): [%d]", i);
        h = mt_hash(h, mb, sizeof mb);
        int c1 = -1, c2 = -1;
        MPI_Op_commutative(MPI_SUM, &c1);
        MPI_Op_commutative(matop, &c2);
        if (c1 != 1 || c2 != 0) mt_fail("Op_commutative: MPI_SUM %d, user op %d", c1, c2);

        /* nonblocking: nine collectives in flight at once */
        MPI_Request q[9];
        long bc[K], ag[K], g[K], sc[K] = { -1, -1, -1 }, scv[K] = { -1, -1, -1 }, red[K], rsc[K] = { -1, -1, -1 };
        for (int i = 0; i < K; i++) bc[i] = me == root ? val(root, it, 50 + i) : -1;
        for (size_t i = 0; i < K * nn * nn; i++)
            for (int k = 0; k < 9; k++) nb[k][i] = -1;
        for (int i = 0; i < K; i++) { ag[i] = val(me, it, 60 + i); g[i] = val(me, it, 70 + i); red[i] = val(me, it, 80 + i); }
        long *a2a = sbuf, *isc = nb[8];
        for (int j = 0; j < n; j++)
            for (int i = 0; i < K; i++) {
                a2a[K * j + i] = val(me, it, 200 + 10 * j + i);
                isc[K * j + i] = val(root, it, 300 + 10 * j + i);
            }
        for (int j = 0; j < n; j++) { cnt[j] = 1 + j % K; dsp[j] = K * j; rcnt[j] = K; }
        MPI_Ibcast(bc, K, MPI_LONG, root, w, &q[0]);
        MPI_Iallgather(ag, K, MPI_LONG, nb[1], K, MPI_LONG, w, &q[1]);
        MPI_Ialltoall(a2a, K, MPI_LONG, nb[2], K, MPI_LONG, w, &q[2]);
        MPI_Igather(g, K, MPI_LONG, nb[3], K, MPI_LONG, root, w, &q[3]);
        MPI_Igatherv(g, cnt[me], MPI_LONG, nb[4], cnt, dsp, MPI_LONG, root, w, &q[4]);
        MPI_Iscatter(isc, K, MPI_LONG, sc, K, MPI_LONG, root, w, &q[5]);
        MPI_Iscatterv(isc, cnt, dsp, MPI_LONG, scv, cnt[me], MPI_LONG, root, w, &q[6]);
        MPI_Ireduce(red, nb[5], K, MPI_LONG, MPI_SUM, root, w, &q[7]);
        for (size_t i = 0; i < K * nn; i++) nb[6][i] = val(me, it, 400 + (int)i);
        MPI_Ireduce_scatter(nb[6], rsc, rcnt, MPI_LONG, MPI_MAX, w, &q[8]);
        usleep(500);                  /* local work: a checkpoint finds them in flight */
        MPI_Status st[9];
        if (MPI_Waitall(9, q, st) != MPI_SUCCESS) mt_fail("Waitall of the nonblocking collectives failed");
        for (int k = 0; k < 9; k++)
            if (q[k] != MPI_REQUEST_NULL) mt_fail("nonblocking collective %d: request not null", k);
        for (int i = 0; i < K; i++) {
            if (bc[i] != val(root, it, 50 + i)) mt_fail("Ibcast: [%d] = %ld", i, bc[i]);
            if (sc[i] != val(root, it, 300 + 10 * me + i)) mt_fail("Iscatter: [%d] = %ld", i, sc[i]);
            if (i < cnt[me] && scv[i] != val(root, it, 300 + 10 * me + i)) mt_fail("Iscatterv: [%d] = %ld", i, scv[i]);
            if (i >= cnt[me] && scv[i] != -1) mt_fail("Iscatterv wrote past its count");
            long want = 0;
            for (int j = 0; j < n; j++) want = want > val(j, it, 400 + K * me + i) ? want : val(j, it, 400 + K * me + i);
            if (rsc[i] != want) mt_fail("Ireduce_scatter: [%d] = %ld, want %ld", i, rsc[i], want);
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < K; i++) {
                if (nb[1][K * j + i] != val(j, it, 60 + i)) mt_fail("Iallgather: [%d][%d] = %ld", j, i, nb[1][K * j + i]);
                if (nb[2][K * j + i] != val(j, it, 200 + 10 * me + i)) mt_fail("Ialltoall: [%d][%d] = %ld", j, i, nb[2][K * j + i]);
                if (me == root) {
                    if (nb[3][K * j + i] != val(j, it, 70 + i)) mt_fail("Igather: [%d][%d] = %ld", j, i, nb[3][K * j + i]);
                    if (nb[4][K * j + i] != (i < cnt[j] ? val(j, it, 70 + i) : -1))
                        mt_fail("Igatherv: [%d][%d] = %ld", j, i, nb[4][K * j + i]);
                }
            }
        if (me == root)
            for (int i = 0; i < K; i++) {
                long want = 0;
                for (int j = 0; j < n; j++) want += val(j, it, 80 + i);
                if (nb[5][i] != want) mt_fail("Ireduce: [%d] = %ld, want %ld", i, nb[5][i], want);
            }
        h = mt_hash(h, bc, sizeof bc);
        h = mt_hash(h, sc, sizeof sc);
        h = mt_hash(h, scv, sizeof scv);
        h = mt_hash(h, rsc, sizeof rsc);
        h = mt_hash(h, nb[1], sizeof(long) * K * nn);
        h = mt_hash(h, nb[2], sizeof(long) * K * nn);
        if (me == root) {
            h = mt_hash(h, nb[3], sizeof(long) * K * nn);
            h = mt_hash(h, nb[4], sizeof(long) * K * nn);
            h = mt_hash(h, nb[5], sizeof(long) * K);
        }
    } while (!mt_done(&r, it));
    MPI_Op_free(&matop);
    MPI_Type_free(&mt);
    for (int k = 0; k < 9; k++) free(nb[k]);
    free(cnt); free(dsp); free(rcnt); free(rdsp); free(sbuf); free(rbuf); free(ms);
    mt_finish(&r, "calls_coll", it, h);
    return 0;
}
