/* names - a program whose own globals and functions carry the names the runtime uses inside its
 * libraries (src/mpi/mpi_int.h: lower, real, vtab, vnew, coll_enter, comm_obj, buffered_*, mana_*;
 * src/plugin: mana_lh_info, mana_pl, mana_write_image...), with other types and values.  Built with
 * -rdynamic, so they are in the global symbol scope ahead of every library, as the globals of any
 * program linked that way (plugin hosts, interpreters) or of a library loaded before MPI are.
 *
 * A library that exported its internals under these names would bind its own references to the
 * program's objects: it would write its state over the program's data and call the program's
 * functions as its own.  The runtime's libraries export only the MPI ABI and the libc functions the
 * plugin interposes, so the program must see exactly its own values and results: every iteration
 * checks its globals, and its work (ring exchange, nonblocking neighbour exchange, collectives on
 * MPI_COMM_WORLD and on a duplicate, a vector datatype) is compared with a native run. */
#include "mpitest.h"

/* ---- globals named like the runtime's (their type there in the comment) ---- */
int lower = 7;                                               /* struct mana_lower */
double real[4] = { 1.5, -2.25, 3.125, 1e10 };                /* struct mana_real: entry points */
char vtab[64] = "vtab: the program's own table of vectors";  /* struct vobj * */
long p2p_sent = -12345;                                      /* uint64_t counter */
short world_obj[3] = { 1, 2, 3 };                            /* struct vobj * */
double mana_gate = 0.25;                                     /* volatile int: 1 closes MPI */
int mana_initialized = 3;                                    /* int: 0 or 1 */
const char *mana_lh_info = "the program's lh_info";          /* plugin: struct lh_info *volatile */
int mana_pl[2] = { 5, 6 };                                   /* plugin: struct mana_plugin */
float mana_log_cfg = 2.5f;                                   /* plugin: struct mana_log_cfg */

static void check_globals(const char *where, long it)
{
    static const double real0[4] = { 1.5, -2.25, 3.125, 1e10 };
    if (lower != 7 || memcmp(real, real0, sizeof real) != 0 ||
        strcmp(vtab, "vtab: the program's own table of vectors") != 0 || p2p_sent != -12345 ||
        world_obj[0] != 1 || world_obj[1] != 2 || world_obj[2] != 3 || mana_gate != 0.25 ||
        mana_initialized != 3 || strcmp(mana_lh_info, "the program's lh_info") != 0 ||
        mana_pl[0] != 5 || mana_pl[1] != 6 || mana_log_cfg != 2.5f)
        mt_fail("%s, iteration %ld: a global of the program changed (lower=%d real[0]=%g vtab=%.8s "
                "p2p_sent=%ld world_obj[0]=%d mana_gate=%g mana_initialized=%d mana_pl[0]=%d mana_log_cfg=%g)",
                where, it, lower, real[0], vtab, p2p_sent, world_obj[0], mana_gate, mana_initialized,
                mana_pl[0], (double)mana_log_cfg);
}

/* ---- functions named like the runtime's (its signature in the comment) ---- */

/* A pool of small vectors.  (struct vobj *vnew(enum vkind, uint64_t real)) */
struct vec { int n; double x[8]; };
static struct vec pool[4];
static int npool;
struct vec *vnew(int n)
{
    if (n < 1 || n > 8) mt_fail("vnew(%d): a caller that is not the program", n);
    struct vec *v = &pool[npool++ % 4];
    v->n = n;
    for (int i = 0; i < n; i++) v->x[i] = 0;
    return v;
}

/* Counts the program's collectives; coll_leave checks the pairing.
 * (uint64_t coll_enter(struct vobj *), void coll_leave(uint64_t)) */
static long ncoll, open_coll;
long coll_enter(const char *what)
{
    if (what[0] != 'A' && what[0] != 'B') mt_fail("coll_enter: a caller that is not the program");
    open_coll = ++ncoll;
    return open_coll;
}
void coll_leave(long n)
{
    if (n != open_coll) mt_fail("coll_leave(%ld): a caller that is not the program", n);
    open_coll = 0;
}

/* The program's names of its communicators.  (struct vobj *comm_obj(MPI_Comm)) */
static MPI_Comm dup_comm = MPI_COMM_NULL;
const char *comm_obj(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD) return "world";
    if (c == dup_comm) return "dup";
    mt_fail("comm_obj: a communicator the program never named");
}

/* A byte budget.  (buffered_take/new/free: drained messages) */
static long budget = 1 << 20;
int buffered_take(long n)
{
    if (n < 0 || n > budget) mt_fail("buffered_take(%ld): a caller that is not the program", n);
    budget -= n;
    return 0;
}
void *buffered_new(long n)
{
    (void)n;
    mt_fail("buffered_new: the program never calls it");
}
void buffered_free(void *p)
{
    (void)p;
    mt_fail("buffered_free: the program never calls it");
}

/* (void mana_say(const char *fmt, ...), int mana_debug_on(void): MPI library's messages) */
void mana_say(int code) { mt_fail("mana_say(%d): the program never calls it", code); }
int mana_debug_on(void) { mt_fail("mana_debug_on: the program never calls it"); }

/* Plugin's: int mana_write_image(const char *path, uint32_t gen, ...), mana_env_get, mana_err. */
uint64_t mana_write_image(const void *p, size_t n)
{
    if (n > 64) mt_fail("mana_write_image(%zu bytes): a caller that is not the program", n);
    return mt_hash(MT_HASH0, p, n);
}
const char *mana_env_get(const char *name) { mt_fail("mana_env_get(%.40s): the program never calls it", name); }
void mana_err(int code) { mt_fail("mana_err(%d): the program never calls it", code); }

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    check_globals("after MPI_Init", 0);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm);
    MPI_Datatype every_other;                       /* x[0], x[2], x[4], x[6] */
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    struct vec *mine = vnew(8), *got = vnew(8), *nb = vnew(4);
    for (int i = 0; i < 8; i++) mine->x[i] = r.rank * 10 + i + 0.5;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        /* ring: blocking send-receive of every other element */
        MPI_Sendrecv(mine->x, 1, every_other, right, 1, got->x, 1, every_other, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        /* both neighbours, nonblocking, on the duplicate */
        MPI_Request rq[4];
        double to_l = mine->x[1], to_r = mine->x[3];
        MPI_Irecv(&nb->x[0], 1, MPI_DOUBLE, left, 2, dup_comm, &rq[0]);
        MPI_Irecv(&nb->x[1], 1, MPI_DOUBLE, right, 3, dup_comm, &rq[1]);
        MPI_Isend(&to_r, 1, MPI_DOUBLE, right, 2, dup_comm, &rq[2]);
        MPI_Isend(&to_l, 1, MPI_DOUBLE, left, 3, dup_comm, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        if (buffered_take(16) != 0) mt_fail("buffered_take");
        /* collectives, counted by the program's own coll_enter/coll_leave */
        double sum = 0, mx[2];
        long c = coll_enter("Allreduce");
        MPI_Allreduce(&got->x[0], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        coll_leave(c);
        c = coll_enter("Allreduce on dup");
        MPI_Allreduce(nb->x, mx, 2, MPI_DOUBLE, MPI_MAX, dup_comm);
        coll_leave(c);
        double root_val = mine->x[5];
        c = coll_enter("Bcast");
        MPI_Bcast(&root_val, 1, MPI_DOUBLE, (int)(it % r.size), strcmp(comm_obj(dup_comm), "dup") == 0 ? dup_comm
                                                                                                       : MPI_COMM_WORLD);
        coll_leave(c);
        for (int i = 0; i < 8; i++)
            mine->x[i] = mine->x[i] * 0.75 + got->x[i & 6] * 0.125 + nb->x[i & 1] * 0.0625 + sum * 1e-3 +
                         mx[i & 1] * 1e-4 + root_val * 1e-5;
        h = mt_hash(h, mine->x, sizeof mine->x);
        uint64_t img = mana_write_image(&h, sizeof h);
        h ^= img;
        check_globals(comm_obj(MPI_COMM_WORLD), it);
        budget = 1 << 20;
    } while (!mt_done(&r, it));
    check_globals("at the end", it);
    if (ncoll != 3 * it) mt_fail("%ld collectives counted, %ld made", ncoll, 3 * it);
    MPI_Type_free(&every_other);
    MPI_Comm_free(&dup_comm);
    mt_finish(&r, "names", it, h);
    return 0;
}
