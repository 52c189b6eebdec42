/*
 * part.c - partitioned communication (MPI 4.0 sec. 4.2: MPI_Psend_init ... MPI_Parrived).
 *
 * Built on the runtime's own persistent point-to-point requests (persist.c), so the drains and the
 * restart need nothing of their own: a partitioned request is a persistent request (VF_PERSIST |
 * VF_PART) of the whole buffer, partitions * count elements.
 *   send     MPI_Start arms it (every partition not ready); MPI_Pready* mark partitions, and the
 *            last one posts the whole buffer as one ordinary send (req_post).  Until then nothing of
 *            it is in the lower half: a checkpoint saves the ready marks with the upper half.
 *   receive  MPI_Start posts one receive of the whole buffer, as a persistent receive's does.
 *            MPI_Parrived tests it (without completing it for the program) and says true for every
 *            partition once it completed: MPI allows a partition to be reported late, never early.
 *   Wait/Test/Request_free are those of every persistent request.
 *
 * Matching.  Partitioned sends match partitioned receives only (sec. 4.2.2), in the order of their
 * initialization calls per (communicator, source, destination, tag).  The messages therefore travel on
 * a communicator the program never sees: a duplicate of MPI_COMM_WORLD the lower half makes right
 * after its MPI_Init, at launch and at every restart (lh_info.part_comm; MPICH only, the one MPI that
 * exports these functions), known here as a predefined table entry (never replayed; its real handle
 * refreshed at restart), so the drain probes it and buffers what it finds like any communicator's.
 * On it a request's peer is the world rank of the program's peer, and its tag a hash, within the real
 * MPI_TAG_UB, of (the communicator's id, which every member shares, source and destination ranks, the
 * program's tag, and the ordinal of this initialization among those of the same four values on this
 * rank): the k-th MPI_Psend_init of a rank and the k-th matching MPI_Precv_init of its peer compute
 * the same tag, and nothing else on that communicator does, except by a hash collision between two
 * partitioned operations that are live at once between the same two ranks (about 2^-30 per pair of
 * them; MPICH 4.0's MPI_TAG_UB is 2^31 - 1 or more).  The program's status gets its own source and tag.
 * Inter-communicators are refused (MPI_ERR_COMM).
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4

static struct vobj *pshadow;      /* the hidden communicator of partitioned traffic */
static uint64_t ptag_ub;          /* the real MPI_TAG_UB */

/* Ordinals of initializations, per (communicator id, source, destination, tag): upper-half memory,
 * so a restart continues their count. */
struct pord { struct pord *next; uint64_t gid; int src, dst, tag; uint64_t k; };
static struct pord *pords;

/* At MPI_Init and after a restart's replay: the hidden communicator's real handle (the lower half's
 * new one at a restart) and the tag bound.  No partitioned request has been posted before either. */
void mana_part_refresh(int at_restart)
{
    uint64_t real_comm = lower.lh->part_comm;
    if (!real_comm || (at_restart && !pshadow)) return;
    if (!at_restart) {
        pshadow = vnew(K_COMM, real_comm);
        pshadow->flags |= VF_PREDEF;
        pshadow->gid = 3;                     /* world is 1; the others are 62-bit hashes (core.c) */
        pshadow->a[6] = world_obj->a[6];
        pshadow->a[7] = world_obj->a[7];
    } else {
        pshadow->real = real_comm;
    }
    void *p = NULL;
    int flag = 0;
    LOWER(real.Comm_get_attr(R(MPI_COMM_WORLD), MPI_TAG_UB, &p, &flag));
    ptag_ub = flag && p ? (uint64_t)*(int *)p : 32767;
}

static uint64_t pmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The next ordinal of (gid, src, dst, tag) on this rank; -1: out of memory. */
static int64_t next_ordinal(uint64_t gid, int src, int dst, int tag)
{
    for (struct pord *o = pords; o; o = o->next)
        if (o->gid == gid && o->src == src && o->dst == dst && o->tag == tag) return (int64_t)o->k++;
    struct pord *o = malloc(sizeof *o);
    if (!o) return -1;
    *o = (struct pord){ pords, gid, src, dst, tag, 1 };
    pords = o;
    return 0;
}

/* World rank of rank `r` of the program's communicator (MPI_PROC_NULL stays). */
static int world_rank_of(MPI_Comm comm, int r, int *wr)
{
    if (r == MPI_PROC_NULL) { *wr = MPI_PROC_NULL; return MPI_SUCCESS; }
    int rc;
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    LOWER(rc = real.Comm_group(R(comm), &g);
          if (rc == MPI_SUCCESS) rc = real.Comm_group(R(MPI_COMM_WORLD), &wg);
          if (rc == MPI_SUCCESS) rc = real.Group_translate_ranks(g, 1, &r, wg, wr);
          if (g != MPI_GROUP_NULL) real.Group_free(&g);
          if (wg != MPI_GROUP_NULL) real.Group_free(&wg));
    return rc;
}

/* The checks of sec. 4.2.2 common to both initializations, then the request. */
static int pinit(int send, const void *buf, int partitions, MPI_Count count, MPI_Datatype type, int peer, int tag,
                 MPI_Comm comm, MPI_Request *req)
{
    MANA_CHECK_INIT();
    if (!pshadow) return MPI_ERR_INTERN;
    struct vobj *c = comm_obj(comm);
    if (!c || comm == MPI_COMM_NULL) return MPI_ERR_COMM;
    int inter = 0, me = 0, size = 0, rc;
    LOWER(rc = real.Comm_test_inter(R(comm), &inter);
          if (rc == MPI_SUCCESS) rc = real.Comm_rank(R(comm), &me);
          if (rc == MPI_SUCCESS) rc = real.Comm_size(R(comm), &size));
    if (rc != MPI_SUCCESS) return rc;
    if (inter) return MPI_ERR_COMM;
    if (partitions < 1) return MPI_ERR_ARG;
    MPI_Count total;
    if (count < 0 || __builtin_mul_overflow((MPI_Count)partitions, count, &total)) return MPI_ERR_COUNT;
    if (peer != MPI_PROC_NULL && (peer < 0 || peer >= size)) return MPI_ERR_RANK;   /* no MPI_ANY_SOURCE */
    if (tag < 0 || (uint64_t)tag > ptag_ub) return MPI_ERR_TAG;                      /* no MPI_ANY_TAG */
    int wpeer;
    if ((rc = world_rank_of(comm, peer, &wpeer)) != MPI_SUCCESS) return rc;
    int src = send ? me : peer, dst = send ? peer : me;
    int64_t k = next_ordinal(c->gid, src, dst, tag);
    if (k < 0) return MPI_ERR_NO_MEM;
    unsigned char *ready = calloc((size_t)partitions, 1);
    if (!ready) return MPI_ERR_NO_MEM;
    uint64_t h = pmix(pmix(pmix(c->gid) ^ ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst)) ^
                      ((uint64_t)(uint32_t)tag << 32 | (uint64_t)k));
    int ptag = (int)(h % (ptag_ub + 1));
    struct vobj *r = req_new(send ? RQ_SEND : RQ_RECV, (void *)buf, total, type, wpeer, ptag,
                             V(MPI_Comm, pshadow));
    r->flags |= VF_PERSIST | VF_PART;
    r->a[2] = peer;                /* the program's peer and tag, for its statuses */
    r->a[3] = tag;
    r->a[4] = partitions;
    r->a[5] = 0;                   /* partitions ready (send) since the last MPI_Start */
    r->arr = ready;
    r->arr_len = (size_t)partitions;
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ (void)info; return pinit(1, buf, partitions, count, type, dest, tag, comm, req); }
ALIAS(Psend_init)

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype type, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ (void)info; return pinit(0, buf, partitions, count, type, source, tag, comm, req); }
ALIAS(Precv_init)

/* MPI_Start of a partitioned send: arm it; 0 when r is no such request (persist.c posts it then). */
int mana_part_start(struct vobj *r)
{
    if (!(r->flags & VF_PART) || r->rkind != RQ_SEND) return 0;
    memset(r->arr, 0, r->arr_len);
    r->a[5] = 0;
    r->flags |= VF_ACTIVE;
    return 1;
}

/* The program's source and tag in a completed partitioned receive's status. */
void mana_part_status(struct vobj *r)
{
    r->status.MPI_SOURCE = (int)r->a[2];
    r->status.MPI_TAG = (int)r->a[3];
}

/* The active partitioned send behind h, or NULL (then *rc says why). */
static struct vobj *psend_of(MPI_Request h, int *rc)
{
    struct vobj *r = h == MPI_REQUEST_NULL ? NULL : vobj_of(HBITS(h));
    *rc = MPI_ERR_REQUEST;
    if (!r || r->kind != K_REQ || !(r->flags & VF_PART) || r->rkind != RQ_SEND) return NULL;
    if (!(r->flags & VF_ACTIVE)) return NULL;        /* Pready on an inactive request is erroneous */
    *rc = MPI_SUCCESS;
    return r;
}

/* Mark partition p ready; the last one posts the whole buffer.  Threads of an MPI_THREAD_MULTIPLE
 * program mark partitions of one request at once (what partitioned communication is for): the mark
 * and the count are atomic, and exactly one thread, the one whose mark completes the count, posts. */
static int ready_one(struct vobj *r, int p)
{
    if (p < 0 || p >= r->a[4]) return MPI_ERR_ARG;
    unsigned char *ready = r->arr;
    if (__atomic_exchange_n(&ready[p], 1, __ATOMIC_ACQ_REL)) return MPI_ERR_ARG;   /* marked twice: erroneous */
    if (__atomic_add_fetch(&r->a[5], 1, __ATOMIC_ACQ_REL) < r->a[4]) return MPI_SUCCESS;
    int rc = req_post(r);
    if (rc != MPI_SUCCESS) r->flags &= ~VF_ACTIVE;
    return rc;
}

int PMPI_Pready(int partition, MPI_Request h)
{
    MANA_CHECK_INIT();
    int rc;
    struct vobj *r = psend_of(h, &rc);
    return r ? ready_one(r, partition) : rc;
}
ALIAS(Pready)

int PMPI_Pready_range(int low, int high, MPI_Request h)
{
    MANA_CHECK_INIT();
    int rc;
    struct vobj *r = psend_of(h, &rc);
    if (!r) return rc;
    if (low < 0 || high >= r->a[4] || low > high) return MPI_ERR_ARG;
    for (int p = low; p <= high && rc == MPI_SUCCESS; p++) rc = ready_one(r, p);
    return rc;
}
ALIAS(Pready_range)

int PMPI_Pready_list(int n, int parts[], MPI_Request h)
{
    MANA_CHECK_INIT();
    int rc;
    struct vobj *r = psend_of(h, &rc);
    if (!r) return rc;
    if (n < 0) return MPI_ERR_ARG;
    for (int i = 0; i < n; i++)                       /* every index checked before any is marked */
        if (parts[i] < 0 || parts[i] >= r->a[4] || __atomic_load_n(&((unsigned char *)r->arr)[parts[i]], __ATOMIC_ACQUIRE))
            return MPI_ERR_ARG;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) rc = ready_one(r, parts[i]);
    return rc;
}
ALIAS(Pready_list)

int PMPI_Parrived(MPI_Request h, int partition, int *flag)
{
    MANA_CHECK_INIT();
    struct vobj *r = h == MPI_REQUEST_NULL ? NULL : vobj_of(HBITS(h));
    if (!r || r->kind != K_REQ || !(r->flags & VF_PART) || r->rkind != RQ_RECV) return MPI_ERR_REQUEST;
    if (partition < 0 || partition >= r->a[4]) return MPI_ERR_ARG;
    /* an inactive request has nothing outstanding: every partition has arrived */
    if (!(r->flags & VF_ACTIVE)) { *flag = 1; return MPI_SUCCESS; }
    MPI_Status st;
    int done;
    int rc = req_test(r, &done, &st);       /* keeps the request active: Wait/Test complete it */
    *flag = done;
    return rc;
}
ALIAS(Parrived)

#else
void mana_part_refresh(int at_restart) { (void)at_restart; }
int mana_part_start(struct vobj *r) { (void)r; return 0; }
void mana_part_status(struct vobj *r) { (void)r; }
#endif
