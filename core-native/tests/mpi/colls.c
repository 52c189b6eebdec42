/* colls - a loop over the collectives: Bcast, Reduce, Allreduce and Ireduce with a user-defined op that
 * calls MPI itself, Allgather,
 * Alltoall, Gather/Scatter(v), Scan/Exscan, Reduce_scatter_block, plus nonblocking Ibarrier and
 * Iallreduce kept in flight across the next blocking call. */
#include "mpitest.h"

static int op_bad;

/* It asks MPI about its datatype, as user ops do (MPICH's coll/nonblocking2): an MPI call from inside
 * the real MPI's reduction (it hung the runtime). */
static void xor_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int sz = 0;
    if (MPI_Type_size(*dt, &sz) != MPI_SUCCESS || sz != 4) op_bad = 1;
    for (int i = 0; i < *len; i++) ((uint32_t *)inout)[i] ^= ((uint32_t *)in)[i] * 2654435761u;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int n = r.size;
    MPI_Op xop;
    MPI_Op_create(xor_op, 1, &xop);   /* mana-lint: ignore MPI_Op_create (one op: far below the limit) */
    double v[8], w[8 * 64];
    uint32_t u[4], uo[4];
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < 8; i++) v[i] = r.rank + i;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        MPI_Request ib, ia;
        double pre = v[0], preo = 0;
        MPI_Ibarrier(MPI_COMM_WORLD, &ib);
        MPI_Iallreduce(&pre, &preo, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &ia);
        MPI_Bcast(v, 8, MPI_DOUBLE, (int)(it % n), MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, v, 8, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double s = 0;
        MPI_Reduce(&v[1], &s, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Allgather(v, 2, MPI_DOUBLE, w, 2, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Alltoall(w, 2, MPI_DOUBLE, w + 2 * n, 2, MPI_DOUBLE, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) { cnt[i] = 1 + i % 2; dsp[i] = 2 * i; }
        MPI_Gatherv(v, cnt[r.rank], MPI_DOUBLE, w, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Scatter(w, 1, MPI_DOUBLE, &v[7], 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        double sc = 0, ex = 0;
        MPI_Scan(&v[2], &sc, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Exscan(&v[2], &ex, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < 4; i++) u[i] = (uint32_t)(it * 7 + r.rank * 13 + i);
        MPI_Allreduce(u, uo, 4, MPI_UINT32_T, xop, MPI_COMM_WORLD);
        uint32_t ur[4];
        MPI_Request ir;
        MPI_Ireduce(u, ur, 4, MPI_UINT32_T, xop, (int)(it % n), MPI_COMM_WORLD, &ir);
        MPI_Wait(&ir, MPI_STATUS_IGNORE);
        if (r.rank == (int)(it % n)) h = mt_hash(h, ur, sizeof ur);   /* (the op is not associative: no comparison) */
        if (op_bad) mt_fail("iteration %ld: the op's MPI_Type_size failed", it);
        MPI_Wait(&ib, MPI_STATUS_IGNORE);
        MPI_Wait(&ia, MPI_STATUS_IGNORE);
        for (int i = 0; i < 8; i++) v[i] = v[i] * 0.5 + sc * 1e-3 + ex * 1e-4 + preo * 1e-5 + (double)(uo[i % 4] % 97);
        h = mt_hash(h, v, sizeof v);
        h = mt_hash(h, uo, sizeof uo);
        if (r.rank == 0) h = mt_hash(h, &s, sizeof s);
    } while (!mt_done(&r, it));
    MPI_Op_free(&xop);
    mt_finish(&r, "colls", it, h);
    return 0;
}
