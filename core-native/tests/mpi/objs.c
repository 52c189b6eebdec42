/* objs - many MPI objects, and datatypes freed while something still names them.
 *
 *   held    70,000 derived datatypes created at the start and kept for the whole run (more than the
 *           runtime's old table of 65,535 objects), a few checked every iteration.
 *   chains  every iteration 300 chains contiguous -> vector -> struct(vector, contiguous) -> dup, each
 *           freed parent first, then used and freed: a type freed while another's recipe names it
 *           must go once the last one that names it goes (the old runtime kept each such parent for
 *           good and ran out of objects after ~70 iterations).
 *   ops     two user reduction ops made, used and freed every iteration (BLACS does so per combine).
 *   pending a persistent send and receive made with a derived type that the program frees at once,
 *           started every iteration (MPICH's multi_psend_derived), and an Isend whose type is freed
 *           before the wait: MPI lets the operation go on with it, before and after a restart.
 * Ranks exchange with their ring neighbours; the checksum covers what they receive. */
#include "mpitest.h"

#define HELD 70000
#define CHAINS 300

static MPI_Datatype held[HELD];

/* a user reduction: the value of largest magnitude */
static void maxabs(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    const long *a = in;
    long *b = inout;
    for (int i = 0; i < *len; i++) if (labs(a[i]) > labs(b[i])) b[i] = a[i];
}

static MPI_Datatype chain(int k)
{
    MPI_Datatype c, v, st, d;
    MPI_Type_contiguous(1 + k % 3, MPI_INT, &c);
    MPI_Type_vector(2, 1, 2, c, &v);
    int bl[2] = { 1, 1 };
    MPI_Aint dis[2] = { 0, 64 };
    MPI_Datatype ts[2] = { v, c };
    MPI_Type_create_struct(2, bl, dis, ts, &st);
    MPI_Type_free(&c);                          /* parents first: named by v and st */
    MPI_Type_free(&v);                          /* named by st */
    MPI_Type_dup(st, &d);
    MPI_Type_free(&st);                         /* named by d */
    return d;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    for (int i = 0; i < HELD; i++) MPI_Type_contiguous(1 + i % 7, MPI_DOUBLE, &held[i]);

    /* the persistent pair's type: 4 ints out of every 8, freed right after the requests are made */
    int pout[64], pin[64];
    MPI_Datatype every2;
    MPI_Type_vector(8, 4, 8, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    MPI_Request pers[2];
    MPI_Recv_init(pin, 1, every2, left, 7, MPI_COMM_WORLD, &pers[0]);
    MPI_Send_init(pout, 1, every2, right, 7, MPI_COMM_WORLD, &pers[1]);
    MPI_Type_free(&every2);
    if (every2 != MPI_DATATYPE_NULL) mt_fail("Type_free did not null the handle");

    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        for (int k = 0; k < 3; k++) {
            int i = (int)((it * 7919 + k * 104729) % HELD), sz = 0;
            MPI_Type_size(held[i], &sz);
            if (sz != (1 + i % 7) * (int)sizeof(double)) mt_fail("held type %d: size %d", i, sz);
        }
        long total = 0;
        for (int k = 0; k < CHAINS; k++) {
            MPI_Datatype d = chain(k + (int)it);
            int sz = 0;
            MPI_Type_size(d, &sz);
            total += sz;
            MPI_Type_free(&d);
        }
        if (total <= 0) mt_fail("chains: total size %ld", total);
        h = mt_hash(h, &total, sizeof total);

        for (int i = 0; i < 64; i++) { pout[i] = (int)(r.rank * 100000 + it * 64 + i); pin[i] = -1; }
        MPI_Startall(2, pers);
        MPI_Status pst[2];
        MPI_Waitall(2, pers, pst);
        for (int i = 0; i < 64; i++) {
            int want = (i % 8) < 4 ? (int)(left * 100000 + it * 64 + i) : -1;
            if (pin[i] != want) mt_fail("persistent derived: pin[%d] = %d, want %d", i, pin[i], want);
        }
        h = mt_hash(h, pin, sizeof pin);

        /* user ops made and freed every iteration, as BLACS does for each combine (more than 64 in a run) */
        for (int k = 0; k < 2; k++) {
            MPI_Op op;
            MPI_Op_create(maxabs, 1, &op);   /* mana-lint: ignore MPI_Op_create (one function) */
            long v = (r.rank % 2 ? -1 : 1) * (r.rank * 10 + it + k), res = 0;
            MPI_Allreduce(&v, &res, 1, MPI_LONG, op, MPI_COMM_WORLD);
            MPI_Op_free(&op);
            long want = (long)((r.size - 1) % 2 ? -1 : 1) * ((r.size - 1) * 10 + it + k);
            if (res != want) mt_fail("user op: %ld, want %ld", res, want);
            h = mt_hash(h, &res, sizeof res);
        }

        /* an Isend whose type the program frees before the receive is even posted */
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_LONG, &pair);
        MPI_Type_commit(&pair);
        long sv[2] = { r.rank * 3 + it, -it }, rv[2] = { 0, 0 };
        MPI_Request sq;
        MPI_Isend(sv, 1, pair, right, 8, MPI_COMM_WORLD, &sq);
        MPI_Type_free(&pair);
        MPI_Recv(rv, 2, MPI_LONG, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&sq, MPI_STATUS_IGNORE);
        if (rv[0] != left * 3 + it || rv[1] != -it) mt_fail("isend with a freed type: %ld %ld", rv[0], rv[1]);
        h = mt_hash(h, rv, sizeof rv);
    } while (!mt_done(&r, it));
    MPI_Request_free(&pers[0]);
    MPI_Request_free(&pers[1]);
    for (int i = 0; i < HELD; i++) MPI_Type_free(&held[i]);
    mt_finish(&r, "objs", it, h);
    return 0;
}
