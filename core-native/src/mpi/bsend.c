/*
 * bsend.c - buffered sends (MPI_Buffer_attach/detach, MPI_Bsend, MPI_Ibsend; MPI_Bsend_init via
 * persist.c), done in the upper half.
 *
 * The real MPI's buffered send would keep its bookkeeping inside the program's attached buffer and
 * its pending messages inside the lower half, neither of which a restart can give back to a new
 * MPI.  So the runtime does what the standard describes itself: MPI_Bsend packs the message into the
 * attached buffer (MPI_PACKED, which any matching typed receive accepts) and posts an ordinary
 * nonblocking send of it (kind RQ_BSENT).  Those sends are requests like any other: the drain
 * completes them before an image is written, and their buffer space is reused once they are done.
 * Each message takes its packed size plus MPI_BSEND_OVERHEAD of the buffer, as the standard tells
 * programs to reserve.
 */
#include "mpi_int.h"

#include <stdlib.h>

static char *att_buf;          /* the attached buffer (the program's memory) */
static size_t att_size;

/* Messages in the buffer, sorted by offset. */
struct bslot { size_t off, len; struct vobj *req; };
#define MAX_BSLOTS 4096
static struct bslot slots[MAX_BSLOTS];
static int nslots;

/* The buffer's bookkeeping is shared by the program's threads (MPI_THREAD_MULTIPLE programs bsend from
 * several at once: MPICH's threads/pt2pt/mt_bsendrecv crashed on it).  A spin lock, held across the
 * excursions of one buffered send: the lower half is never taken while waiting for it, and no
 * excursion waits for it, so the two cannot wait for each other.  A plain word, so that a thread the
 * checkpoint stopped while holding it holds it again after a restart and gives it back. */
static int bs_lock;
static void bs_take(void) { while (__atomic_exchange_n(&bs_lock, 1, __ATOMIC_ACQUIRE)) mana_sys0(SYS_sched_yield); }
static void bs_give(void) { __atomic_store_n(&bs_lock, 0, __ATOMIC_RELEASE); }

/* Let the space of finished sends go. */
static void reap(void)
{
    int k = 0;
    for (int i = 0; i < nslots; i++) {
        int flag = 0;
        req_test(slots[i].req, &flag, MPI_STATUS_IGNORE);
        if (flag) vrelease(slots[i].req);
        else slots[k++] = slots[i];
    }
    nslots = k;
}

/* First fit; (size_t)-1 if no gap is large enough. */
static size_t find_gap(size_t len, int *at)
{
    size_t prev_end = 0;
    for (int i = 0; i <= nslots; i++) {
        size_t next = i < nslots ? slots[i].off : att_size;
        if (next >= prev_end && next - prev_end >= len) { *at = i; return prev_end; }
        if (i < nslots) prev_end = slots[i].off + slots[i].len;
    }
    return (size_t)-1;
}

static int bsend_locked(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int rc;
    mana_cnt psize = 0;
    LOWER(rc = REAL_C(Pack_size)((mana_cnt)count, R(type), R(comm), &psize));
    if (rc != MPI_SUCCESS) return rc;
    size_t need = (size_t)psize + MPI_BSEND_OVERHEAD;
    int at = 0;
    size_t off = find_gap(need, &at);
    if (off == (size_t)-1 || nslots == MAX_BSLOTS) {
        reap();
        off = find_gap(need, &at);
    }
    if (off == (size_t)-1 || nslots == MAX_BSLOTS) return MPI_ERR_BUFFER;
    mana_cnt pos = 0;
    void *in = (void *)buf;             /* MPI_BOTTOM: at the type's lower bound (mana_bottom_shift) */
    MPI_Datatype rt = R(type);
    LOWER(int made = mana_bottom_shift(&in, (mana_cnt)count, &rt);
          rc = made < 0 ? -made : REAL_C(Pack)(in, (mana_cnt)count, rt, att_buf + off, psize, &pos, R(comm));
          if (made > 0) real.Type_free(&rt));
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *r = req_new(RQ_BSENT, att_buf + off, pos, MPI_PACKED, dest, tag, comm);
    r->flags |= VF_INTERNAL;
    rc = req_post(r);
    if (rc != MPI_SUCCESS) { vrelease(r); return rc; }
    for (int i = nslots; i > at; i--) slots[i] = slots[i - 1];
    slots[at] = (struct bslot){ off, need, r };
    nslots++;
    return MPI_SUCCESS;
}

int mana_bsend(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (!comm_obj(comm)) return MPI_ERR_COMM;
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    bs_take();
    int rc = bsend_locked(buf, count, type, dest, tag, comm);
    bs_give();
    return rc;
}

static int attach(void *buf, MPI_Count size)
{
    MANA_CHECK_INIT();
    if (size < 0 || (size > 0 && !buf)) return MPI_ERR_ARG;
    bs_take();
    int rc = att_buf ? MPI_ERR_BUFFER : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        att_buf = buf;
        att_size = (size_t)size;
    }
    bs_give();
    return rc;
}

int PMPI_Buffer_attach(void *buf, int size) { return attach(buf, size); }
ALIAS(Buffer_attach)

/* Waits until every buffered message has gone (interruptible by a checkpoint, like every wait). */
static int detach(void *addr, MPI_Count *size)
{
    MANA_CHECK_INIT();
    bs_take();
    if (!att_buf) { bs_give(); *(void **)addr = NULL; *size = 0; return MPI_SUCCESS; }
    while (nslots) {
        struct vobj *rs[64];
        int n = nslots < 64 ? nslots : 64;
        for (int i = 0; i < n; i++) rs[i] = slots[i].req;
        req_wait_set(rs, n, 1, NULL);
        reap();
    }
    *(void **)addr = att_buf;
    *size = (MPI_Count)att_size;
    att_buf = NULL;
    att_size = 0;
    bs_give();
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *addr, int *size)
{
    MPI_Count n = 0;
    int rc = detach(addr, &n);
    if (rc == MPI_SUCCESS) *size = (int)n;   /* attached through the int call, or truncated as MPI says */
    return rc;
}
ALIAS(Buffer_detach)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    MANA_CHECK_INIT();
    return mana_bsend(buf, count, type, dest, tag, comm);
}
ALIAS(Bsend)

/* Complete at once: the message is in the attached buffer. */
static int ibsend(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    MANA_CHECK_INIT();
    int rc = mana_bsend(buf, count, type, dest, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *r = req_new(RQ_BSEND, (void *)buf, count, type, dest, tag, comm);
    status_empty(&r->status);
    r->flags |= VF_POSTED | VF_DONE;
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return ibsend(buf, count, type, dest, tag, comm, req); }
ALIAS(Ibsend)

#ifdef MANA_HAVE_C
int PMPI_Buffer_attach_c(void *buf, MPI_Count size) { return attach(buf, size); }
ALIAS(Buffer_attach_c)
int PMPI_Buffer_detach_c(void *addr, MPI_Count *size) { return detach(addr, size); }
ALIAS(Buffer_detach_c)
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    MANA_CHECK_INIT();
    return mana_bsend(buf, count, type, dest, tag, comm);
}
ALIAS(Bsend_c)
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request *req)
{ return ibsend(buf, count, type, dest, tag, comm, req); }
ALIAS(Ibsend_c)
#endif
