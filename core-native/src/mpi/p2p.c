/*
 * p2p.c - point-to-point calls, requests and the point-to-point drain.
 *
 * Blocking calls are a request plus a waiting loop that runs in the lower half and leaves it when a
 * checkpoint wants the thread (lower_interrupted); the thread then stops between two lower-half
 * excursions, never inside one, and finds its request (virtual) completed by the drain or posted
 * again after a restart.
 *
 * Drain (docs/architecture.md): every rank counts the messages it sent and received.  With the
 * program's threads stopped, the checkpoint thread tests the pending requests and receives every
 * message that no posted receive matched into an upper-half buffer, until the coordinator's sum of
 * (sent - received) over the job is zero.  Later receives and probes take matching messages from
 * that buffer first, in arrival order.
 */
#include "mpi_int.h"
#include "drain_rounds.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

uint64_t p2p_sent, p2p_received;

/* ---- buffered messages ---- */

struct bufmsg {
    struct bufmsg *next;
    size_t map_len;
    struct vobj *comm;
    int src, tag;
    size_t len;
    char data[];
};
static struct bufmsg *bq_head, *bq_tail;

/* Buffered messages get pages of their own (the drain makes few): they are handed from the checkpoint
 * thread to the program's threads, across a restart, without involving either thread's malloc arena. */
static struct bufmsg *bufmsg_new(size_t bytes)
{
    size_t len = sizeof(struct bufmsg) + bytes;
    long r = mana_sys6(SYS_mmap, 0, (long)len, 3 /* PROT_READ|PROT_WRITE */, 0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */, -1, 0);
    if (r < 0 && r > -4096) return NULL;
    struct bufmsg *m = (struct bufmsg *)r;
    m->map_len = len;
    return m;
}

static void bufmsg_free(struct bufmsg *m)
{
    mana_sys2(SYS_munmap, (long)m, (long)m->map_len);
}
static uint32_t bq_count;
static uint64_t bq_bytes;
/* Messages ever buffered.  A caller that found no matching message before its excursion reads it
 * before looking and compares once inside (the lower half held: no drain runs then): a checkpoint
 * may have stopped it between the two and buffered the very message it waits for, which the real MPI
 * will never show it again (threads_3_cycles: an MPI_Probe spun for good after a restart). */
static uint32_t bq_gen;

uint32_t buffered_gen(void) { return __atomic_load_n(&bq_gen, __ATOMIC_ACQUIRE); }

/* Test hook (MANA_TEST_BUFFER_HOLD=1, probe_hold.sh): a probe or receive that found nothing buffered
 * says so and waits, outside MPI, until a checkpoint's point-to-point drain has run since: the
 * window above, held open. */
static uint32_t p2p_drains;

void mana_test_buffer_hold(const char *call)
{
    static int hold = -1;
    if (hold < 0) {
        const char *e = getenv("MANA_TEST_BUFFER_HOLD");
        hold = e && strcmp(e, "1") == 0;
    }
    if (!hold) return;
    uint32_t d = __atomic_load_n(&p2p_drains, __ATOMIC_ACQUIRE);
    mana_say("mana: test: %s found no buffered message; held until a checkpoint", call);
    while (__atomic_load_n(&p2p_drains, __ATOMIC_ACQUIRE) == d) {
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    mana_say("mana: test: %s goes on", call);
}

static void status_fill(MPI_Status *st, int src, int tag, size_t bytes)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = src;
    st->MPI_TAG = tag;
    LOWER(real.Status_set_elements_x(st, R(MPI_BYTE), (MPI_Count)bytes));
}

/* The queue changes while the thread holds the lower half (without entering it: FS stays the
 * program's): threads of an MPI_THREAD_MULTIPLE program take messages from it at once, and a
 * checkpoint, whose drain appends to it, never stops a thread that holds the lower half. */
static int bq_matches(const struct bufmsg *m, const struct vobj *comm, int src, int tag)
{
    return m->comm == comm && (src == MPI_ANY_SOURCE || src == m->src) && (tag == MPI_ANY_TAG || tag == m->tag);
}

/* Take the oldest buffered message that matches out of the queue (NULL: none); fills *st. */
struct bufmsg *buffered_detach(struct vobj *comm, int src, int tag, MPI_Status *st)
{
    if (!bq_head) return NULL;          /* the common case, without taking the lower half */
    struct bufmsg *prev = NULL, *m;
    uint64_t up = lower_acquire();
    for (m = bq_head; m; prev = m, m = m->next) {
        if (!bq_matches(m, comm, src, tag)) continue;
        if (prev) prev->next = m->next; else bq_head = m->next;
        if (bq_tail == m) bq_tail = prev;
        m->next = NULL;
        bq_count--;
        bq_bytes -= m->len;
        break;
    }
    lower_release(up);
    if (m) status_fill(st, m->src, m->tag, m->len);
    return m;
}

/* MPI_Pack and MPI_Unpack at MPI_BOTTOM, inside an excursion.  MPICH refuses a null buffer ("Null
 * pointer in parameter outbuf") even with a datatype of absolute addresses, which is what a send or
 * receive at MPI_BOTTOM names (a Fortran program's struct of absolute addresses: a message the drain
 * buffered for such a receive failed so after a restart, mpi_mpich_fortran_mpif_2_kill).  For such a
 * buffer, *buf becomes the datatype's true lower bound and *t a type that starts at minus that bound:
 * the same addresses, the same stride (the extent is unchanged).  Returns 1 when *t is a new type the
 * caller frees (real.Type_free), 0 when nothing changed, or an MPI error code as its negative. */
int mana_bottom_shift(void **buf, mana_cnt n, MPI_Datatype *t)
{
    MPI_Count lb = 0, extent = 0;
    if (*buf != MPI_BOTTOM || n <= 0 || real.Type_get_true_extent_x(*t, &lb, &extent) != MPI_SUCCESS || lb == 0)
        return 0;
    int one = 1;
    MPI_Aint disp = -(MPI_Aint)lb;
    MPI_Datatype shifted;
    int rc = real.Type_create_struct(1, &one, &disp, t, &shifted);
    if (rc == MPI_SUCCESS && (rc = real.Type_commit(&shifted)) != MPI_SUCCESS) real.Type_free(&shifted);
    if (rc != MPI_SUCCESS) return -rc;
    *buf = (void *)(intptr_t)lb;
    *t = shifted;
    return 1;
}

static int unpack_in_lower(const void *in, mana_cnt insize, mana_cnt *pos, void *out, mana_cnt n, MPI_Datatype t,
                           MPI_Comm c)
{
    int made = mana_bottom_shift(&out, n, &t);
    if (made < 0) return -made;
    int rc = REAL_C(Unpack)(in, insize, pos, out, n, t, c);
    if (made) real.Type_free(&t);
    return rc;
}

/* Deliver a detached message into the program's buffer, then free it. */
int buffered_unpack(struct bufmsg *m, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *st)
{
    /* Unpack exactly the elements the message holds: a receive may name a larger count, and Open
     * MPI's MPI_Unpack refuses to unpack more than its input holds (MPI_ERR_TRUNCATE). */
    int rc = MPI_SUCCESS;
    MPI_Count tsize = 0, n = count;
    mana_cnt pos = 0;
    LOWER(rc = real.Type_size_x(R(type), &tsize));
    if (rc != MPI_SUCCESS) return rc;
    if (tsize > 0 && (size_t)count * (size_t)tsize > m->len) n = (MPI_Count)(m->len / (size_t)tsize);
    else if (tsize > 0 && (size_t)count * (size_t)tsize < m->len) rc = MPI_ERR_TRUNCATE;
    if (m->len && n > 0 && rc == MPI_SUCCESS)
        LOWER(rc = unpack_in_lower(m->data, (mana_cnt)m->len, &pos, buf, (mana_cnt)n, R(type),
                                   HMAKE(MPI_Comm, m->comm->real)));
    status_fill(st, m->src, m->tag, m->len);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = rc;
    buffered_free(m);
    return rc;
}

/* A message for the buffer (the drain's, or a matched one of mprobe.c): *data gets its bytes. */
struct bufmsg *buffered_new(struct vobj *comm, int src, int tag, size_t bytes, void **data)
{
    struct bufmsg *m = bufmsg_new(bytes);
    if (!m) return NULL;
    m->next = NULL;
    m->comm = comm;
    m->src = src;
    m->tag = tag;
    m->len = bytes;
    *data = m->data;
    return m;
}

void buffered_free(struct bufmsg *m) { bufmsg_free(m); }

/* Does a buffered message wait on this communicator?  (cfree.c; the caller holds the lower half, or
 * runs in the checkpoint with every program thread kept out of it.) */
int buffered_on(const struct vobj *comm)
{
    for (const struct bufmsg *m = bq_head; m; m = m->next)
        if (m->comm == comm) return 1;
    return 0;
}

/* Queue a message the drain received, after those already there (arrival order). */
static void buffered_append(struct bufmsg *m)
{
    if (bq_tail) bq_tail->next = m; else bq_head = m;
    bq_tail = m;
    bq_count++;
    __atomic_add_fetch(&bq_gen, 1, __ATOMIC_RELEASE);
    bq_bytes += m->len;
}

int buffered_take(struct vobj *comm, int src, int tag, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *st,
                  int peek)
{
    if (peek) {
        if (!bq_head) return 0;
        int found = 0, msrc = 0, mtag = 0;
        size_t mlen = 0;
        uint64_t up = lower_acquire();
        for (struct bufmsg *m = bq_head; m && !found; m = m->next)
            if (bq_matches(m, comm, src, tag)) { found = 1; msrc = m->src; mtag = m->tag; mlen = m->len; }
        lower_release(up);
        if (found) status_fill(st, msrc, mtag, mlen);
        return found;
    }
    struct bufmsg *m = buffered_detach(comm, src, tag, st);
    if (!m) return 0;
    buffered_unpack(m, buf, count, type, st);
    return 1;
}

/* ---- requests ---- */

int req_is_send(int k) { return k == RQ_SEND || k == RQ_SSEND || k == RQ_RSEND || k == RQ_BSEND || k == RQ_BSENT; }

struct vobj *req_new(int rkind, void *buf, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm)
{
    struct vobj *r = vnew(K_REQ, 0);
    r->rkind = (uint16_t)rkind;
    r->buf = buf;
    r->count = count;
    r->peer = peer;
    r->tag = tag;
    r->a[0] = (int64_t)HBITS(type);
    r->a[1] = (int64_t)HBITS(comm);
    r->comm = comm_obj(comm);
    /* the request names its datatype: a program may free the type before the operation ends */
    struct vobj *t = vobj_of(HBITS(type));
    if (t && t->kind == K_TYPE) { vref(t); r->type = t; }
    return r;
}

/* Post r in the real MPI; inside an excursion, so the flags change with the real state. */
static int post_in_lower(struct vobj *r)
{
    MPI_Datatype rt = R(HMAKE(MPI_Datatype, r->a[0]));
    MPI_Comm rc_ = R(HMAKE(MPI_Comm, r->a[1]));
    MPI_Request rr = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    switch (r->rkind) {
    case RQ_BSENT:
    case RQ_SEND:  rc = REAL_C(Isend)(r->buf, (mana_cnt)r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_SSEND: rc = REAL_C(Issend)(r->buf, (mana_cnt)r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_RSEND: rc = REAL_C(Irsend)(r->buf, (mana_cnt)r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_BSEND: rc = REAL_C(Ibsend)(r->buf, (mana_cnt)r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_RECV:  rc = REAL_C(Irecv)(r->buf, (mana_cnt)r->count, rt, r->peer, r->tag, rc_, &rr); break;
    default: break;
    }
    if (rc == MPI_SUCCESS) {
        r->real = HBITS(rr);
        r->flags |= VF_POSTED;
        if (req_is_send(r->rkind) && r->peer != MPI_PROC_NULL && !(r->flags & VF_COUNTED)) {
            p2p_sent++;
            r->flags |= VF_COUNTED;
        }
    }
    return rc;
}

int req_post(struct vobj *r)
{
    int recv = r->rkind == RQ_RECV && r->comm;
    for (;;) {
        uint32_t gen = buffered_gen();
        if (recv && buffered_take(r->comm, r->peer, r->tag, r->buf, r->count, HMAKE(MPI_Datatype, r->a[0]), &r->status, 0)) {
            r->flags |= VF_DONE | VF_POSTED;
            if (r->flags & VF_PART) mana_part_status(r);
            return MPI_SUCCESS;
        }
        if (recv) mana_test_buffer_hold("a receive");
        uint64_t up = lower_enter();
        if (recv && buffered_gen() != gen) { lower_leave(up); continue; }   /* a drain buffered messages since */
        int rc = post_in_lower(r);
        lower_leave(up);
        return rc;
    }
}

/* The request finished: count it, keep its status (inside an excursion). */
static void req_finished(struct vobj *r, const MPI_Status *st)
{
    r->flags |= VF_DONE;
    r->status = *st;
    if ((r->flags & VF_PART) && r->rkind == RQ_RECV) mana_part_status(r);
    /* A cancelled operation moved no message: a cancelled receive counted as received made the drain
     * see more received than sent ("-8 message(s) still in flight": HPCC's RandomAccess cancels its
     * pending any-source receives); a cancelled send is no longer in flight. */
    int canc = 0;
    if (r->flags & VF_CANCELING) real.Test_cancelled(st, &canc);
    if (canc && req_is_send(r->rkind) && (r->flags & VF_COUNTED)) p2p_sent--;
    if (!canc && (r->rkind == RQ_RECV || r->rkind == RQ_MRECV) && r->peer != MPI_PROC_NULL &&
        st->MPI_SOURCE != MPI_PROC_NULL)
        p2p_received++;
}

static void status_out(MPI_Status *dst, const MPI_Status *src) { status_give(dst, src); }

static int sendrecv_test(struct vobj *r);
static struct vobj *part(const struct vobj *r, int k);

/* One test of a pending request in the lower half (call inside an excursion). */
static int test_in_lower(struct vobj *r)
{
    /* (atomic: a generalized request is completed by another program thread, greq.c) */
    if (__atomic_load_n(&r->flags, __ATOMIC_ACQUIRE) & VF_DONE) return 1;
    if (!(r->flags & VF_POSTED)) return 0;
    if (r->rkind == RQ_SENDRECV) return sendrecv_test(r);
    MPI_Request rr = HMAKE(MPI_Request, r->real);
    int flag = 0;
    MPI_Status st;          /* no libc call here: this runs on the lower TLS */
    /* MPI_Test does not set MPI_ERROR (single completions never do): the status says success unless
     * the call itself failed, and the completion calls read MPI_ERROR from here. */
    st.MPI_ERROR = MPI_SUCCESS;
    int rc = real.Test(&rr, &flag, &st);
    if (rc != MPI_SUCCESS) { flag = 1; st.MPI_ERROR = rc; }
    if (flag) {
        r->real = HBITS(rr);
        if (r->rkind == RQ_COLL && r->a[5] == 1) mana_idup_finish(r);
        req_finished(r, &st);
    }
    return flag;
}

int req_test(struct vobj *r, int *flag, MPI_Status *st)
{
    if (!(r->flags & VF_DONE)) LOWER(test_in_lower(r));
    *flag = (r->flags & VF_DONE) != 0;
    if (*flag) status_out(st, &r->status);
    return MPI_SUCCESS;
}

/* Test until done (all, or one) or until a checkpoint or another thread wants the lower half; inside
 * an excursion.  Every excursion tests at least once: two threads that took turns without testing
 * would never see their messages. */
static void spin_in_lower(struct vobj **rs, int n, int need_all)
{
    for (unsigned spin = 0;; spin++) {
        int got = 0, file_waits = 0;
        for (int i = 0; i < n; i++) {
            if (!rs[i]) continue;
            /* done already: by an earlier pass, or by another thread (a generalized request the program
             * completes from a thread of its own: MPI_Waitany and _Waitsome never saw it, MPICH's
             * threads/pt2pt/greq_wait) */
            if (__atomic_load_n(&rs[i]->flags, __ATOMIC_ACQUIRE) & VF_DONE) { got++; continue; }
            /* MPI-IO requests one at a time, in the array's order, as the real MPI_Waitall does: ROMIO's
             * nonblocking collective I/O (generalized requests driven by their poll function) hangs when
             * a later one is polled before an earlier one is done, natively too (MPICH 4.0.2: a loop of
             * MPI_Testall or MPI_Testany over four MPI_File_iwrite_at_all requests never ends, where
             * MPI_Waitall or in-order MPI_Test ends at once; MPICH's io/i_aggregation1, i_hindexed). */
            if (rs[i]->rkind == RQ_FILE && file_waits) continue;
            if (test_in_lower(rs[i])) got++;
            else if (rs[i]->rkind == RQ_FILE) file_waits = 1;
        }
        if (got && !need_all) break;
        if (need_all) {
            int all = 1;
            for (int i = 0; i < n && all; i++) if (rs[i] && !(rs[i]->flags & VF_DONE)) all = 0;
            if (all) break;
        }
        if (lower_interrupted()) break;
        if (__builtin_expect(spin_yield(spin), 0)) mana_sys0(SYS_sched_yield);
    }
}

/* Wait in the lower half; leave it whenever a checkpoint asks, then go on. */
void req_wait_set(struct vobj **rs, int n, int need_all, int *which)
{
    for (;;) {
        /* Null and inactive entries (rs[i] == NULL) count as complete: MPI_Waitall ignores them. */
        int done = 0, first = -1;
        for (int i = 0; i < n; i++) {
            if (!rs[i]) { done++; continue; }
            if (rs[i]->flags & VF_DONE) { done++; if (first < 0) first = i; }
        }
        if ((need_all && done == n) || (!need_all && first >= 0)) { if (which) *which = first; return; }
        lower_pass();
        uint64_t up = lower_enter();
        spin_in_lower(rs, n, need_all);
        lower_leave(up);
    }
}

/* Blocking calls: post the program's operations and wait for all of them, in one lower-half excursion
 * when no buffered message could match (the common case: one FS switch there and one back). */
static int post_and_wait(struct vobj **rs, int n)
{
    int rc = MPI_SUCCESS, posted = 0;
    uint64_t up = lower_enter();
    if (!bq_head) {                 /* checked while holding the lower half: no drain runs meanwhile */
        for (; posted < n && rc == MPI_SUCCESS; posted++) rc = post_in_lower(rs[posted]);
        if (rc == MPI_SUCCESS) spin_in_lower(rs, n, 1);
    }
    lower_leave(up);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = posted; i < n; i++)
        if ((rc = req_post(rs[i])) != MPI_SUCCESS) return rc;
    req_wait_set(rs, n, 1, NULL);
    return MPI_SUCCESS;
}

int req_wait(struct vobj *r, MPI_Status *st)
{
    req_wait_set(&r, 1, 1, NULL);
    status_out(st, &r->status);
    return r->status.MPI_ERROR == MPI_SUCCESS || r->rkind != RQ_RECV ? MPI_SUCCESS : r->status.MPI_ERROR;
}

/* The program learnt that its request completed: it ends, or (persistent) becomes inactive. */
void req_complete_user(MPI_Request *h, struct vobj *r)
{
    if (r->flags & VF_PERSIST) {
        r->flags &= ~(VF_DONE | VF_POSTED | VF_COUNTED | VF_ACTIVE | VF_CANCELING);
        r->real = 0;
        return;
    }
    vrelease(r);
    *h = MPI_REQUEST_NULL;
}

int req_lookup(MPI_Request h, struct vobj **r)
{
    *r = NULL;
    if (h == MPI_REQUEST_NULL) return MPI_SUCCESS;
    struct vobj *o = vobj_of(HBITS(h));
    if (!o || o->kind != K_REQ) return MPI_ERR_REQUEST;
    if ((o->flags & VF_PERSIST) && !(o->flags & VF_ACTIVE)) return MPI_SUCCESS;
    *r = o;
    return MPI_SUCCESS;
}

void status_empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE) return;
    memset(st, 0, sizeof *st);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
}

/* ---- sends and receives ---- */

/* Requests the program freed while they were still in flight (MPI_Request_free after MPI_Isend, a
 * common idiom): they stay until they complete, then go, so a loop of them does not fill the table. */
#define MAX_ORPHANS 1024
static struct vobj *orphans[MAX_ORPHANS];
static int n_orphans;

/* The list changes inside one lower-half excursion (threads of an MPI_THREAD_MULTIPLE program share
 * it); the finished requests are released after it, on the program's TLS (vrelease calls free). */
static void orphans_reap(void)
{
    struct vobj *done[64];
    int nd;
    do {
        nd = 0;
        uint64_t up = lower_enter();
        int k = 0;
        for (int i = 0; i < n_orphans; i++) {
            if (nd < 64 && test_in_lower(orphans[i])) done[nd++] = orphans[i];
            else orphans[k++] = orphans[i];
        }
        n_orphans = k;
        lower_leave(up);
        for (int i = 0; i < nd; i++) vrelease(done[i]);
    } while (nd == 64);
}

static void orphan_add(struct vobj *r)
{
    if (n_orphans >= MAX_ORPHANS) orphans_reap();
    uint64_t up = lower_acquire();
    /* 1,024 freed requests all still in flight: this one stays in the table for good (the drain still
     * sees it), rather than being released while the real MPI works on it */
    if (n_orphans < MAX_ORPHANS) orphans[n_orphans++] = r;
    lower_release(up);
}

static int start(int kind, const void *buf, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request *req)
{
    MANA_CHECK_INIT();
    if (__builtin_expect(n_orphans > 0, 0)) orphans_reap();
    struct vobj *r = req_new(kind, (void *)buf, count, type, peer, tag, comm);
    int rc = req_post(r);
    if (rc != MPI_SUCCESS) { vrelease(r); *req = MPI_REQUEST_NULL; return rc; }
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

static int blocking(int kind, const void *buf, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                    MPI_Status *st)
{
    MANA_CHECK_INIT();
    if (__builtin_expect(n_orphans > 0, 0)) orphans_reap();
    struct vobj *r = req_new(kind, (void *)buf, count, type, peer, tag, comm);
    r->flags |= VF_INTERNAL;
    int rc = post_and_wait(&r, 1);
    if (rc == MPI_SUCCESS) {
        status_out(st, &r->status);
        if (r->rkind == RQ_RECV && r->status.MPI_ERROR != MPI_SUCCESS) rc = r->status.MPI_ERROR;
    }
    vrelease(r);
    return rc;
}

/* Each call has its large-count twin (MPI 4.0 "_c", where the real library exports them), defined
 * after the int ones below: the same engine, which keeps counts as MPI_Count. */

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{ return blocking(RQ_SEND, buf, count, type, dest, tag, comm, MPI_STATUS_IGNORE); }
ALIAS(Send)
int PMPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{ return blocking(RQ_SSEND, buf, count, type, dest, tag, comm, MPI_STATUS_IGNORE); }
ALIAS(Ssend)
int PMPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{ return blocking(RQ_RSEND, buf, count, type, dest, tag, comm, MPI_STATUS_IGNORE); }
ALIAS(Rsend)
int PMPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *st)
{ return blocking(RQ_RECV, buf, count, type, src, tag, comm, st); }
ALIAS(Recv)

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_SEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Isend)
int PMPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_SSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Issend)
int PMPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_RSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Irsend)
int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_RECV, buf, count, type, src, tag, comm, req); }
ALIAS(Irecv)

static int sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
    MANA_CHECK_INIT();
    if (__builtin_expect(n_orphans > 0, 0)) orphans_reap();
    struct vobj *rs[2] = { req_new(RQ_RECV, rbuf, rcount, rtype, src, rtag, comm),
                           req_new(RQ_SEND, (void *)sbuf, scount, stype, dest, stag, comm) };
    rs[0]->flags |= VF_INTERNAL;
    rs[1]->flags |= VF_INTERNAL;
    int rc = post_and_wait(rs, 2);
    if (rc == MPI_SUCCESS) {
        status_out(st, &rs[0]->status);
        if (rs[0]->status.MPI_ERROR != MPI_SUCCESS) rc = rs[0]->status.MPI_ERROR;
    }
    vrelease(rs[0]);
    vrelease(rs[1]);
    return rc;
}

int PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                  MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{ return sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st); }
ALIAS(Sendrecv)

/* The _replace forms receive into a packed buffer of their own (the send reads the program's buffer
 * until it is done), then unpack it into the program's buffer. */
static int replace_buffer(MPI_Count count, MPI_Datatype type, MPI_Comm comm, char **tmp, mana_cnt *size)
{
    int rc;
    *size = 0;
    LOWER(rc = REAL_C(Pack_size)((mana_cnt)count, R(type), R(comm), size));
    if (rc != MPI_SUCCESS) return rc;
    *tmp = malloc(*size ? (size_t)*size : 1);
    return *tmp ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag, int src, int rtag,
                            MPI_Comm comm, MPI_Status *st)
{
    MANA_CHECK_INIT();
    char *tmp;
    mana_cnt size;
    int rc = replace_buffer(count, type, comm, &tmp, &size);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Status s2;
    rc = sendrecv(buf, count, type, dest, stag, tmp, size, MPI_PACKED, src, rtag, comm, &s2);
    if (rc == MPI_SUCCESS) {
        mana_cnt pos = 0, got = 0;
        LOWER(REAL_C(Get_count)(&s2, R(MPI_PACKED), &got);
              rc = unpack_in_lower(tmp, got, &pos, buf, (mana_cnt)count, R(type), R(comm)));
        if (st != MPI_STATUS_IGNORE) {
            status_give(st, &s2);
            LOWER(real.Status_set_elements_x(st, R(MPI_BYTE), got));
        }
    }
    free(tmp);
    return rc;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag, MPI_Comm comm,
                          MPI_Status *st)
{ return sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, st); }
ALIAS(Sendrecv_replace)

/* ---- MPI_Isendrecv, MPI_Isendrecv_replace (MPI 4.0) ----
 * The program's request stands for two ordinary ones, a receive and a send, which the drain and a
 * restart treat as any others (the send is completed, the receive buffered or posted again); it is
 * done when both are.  The _replace form receives into a buffer of its own and unpacks it into the
 * program's buffer once both parts are done (the send reads that buffer until then). */

static struct vobj *part(const struct vobj *r, int k) { return &vtab[(uint32_t)r->a[4 + k]]; }

/* Inside an excursion (test_in_lower). */
static int sendrecv_test(struct vobj *r)
{
    struct vobj *rv = part(r, 0), *sd = part(r, 1);
    int a = test_in_lower(rv), b = test_in_lower(sd);
    if (!a || !b) return 0;
    r->status = rv->status;
    if (r->arr && rv->status.MPI_ERROR == MPI_SUCCESS) {
        mana_cnt pos = 0, got = 0;
        REAL_C(Get_count)(&rv->status, R(MPI_PACKED), &got);
        int rc = unpack_in_lower(r->arr, got, &pos, r->buf, (mana_cnt)r->count, R(HMAKE(MPI_Datatype, r->a[0])),
                                 R(HMAKE(MPI_Comm, r->a[1])));
        real.Status_set_elements_x(&r->status, R(MPI_BYTE), got);
        if (rc != MPI_SUCCESS) r->status.MPI_ERROR = rc;
    }
    r->flags |= VF_DONE;
    return 1;
}

void mana_req_drop_parts(struct vobj *o)
{
    if (o->rkind != RQ_SENDRECV) return;
    for (int k = 0; k < 2; k++) {
        struct vobj *p = part(o, k);
        if (p->kind == K_REQ) vrelease(p);
    }
}

static int isendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                     MPI_Count rcount,
                     MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, void *tmp, MPI_Request *req)
{
    if (__builtin_expect(n_orphans > 0, 0)) orphans_reap();
    struct vobj *rv = req_new(RQ_RECV, rbuf, rcount, rtype, src, rtag, comm);
    struct vobj *sd = req_new(RQ_SEND, (void *)sbuf, scount, stype, dest, stag, comm);
    rv->flags |= VF_INTERNAL;
    sd->flags |= VF_INTERNAL;
    int rc = req_post(rv);
    if (rc == MPI_SUCCESS) rc = req_post(sd);
    if (rc != MPI_SUCCESS) {
        /* a part that was posted still completes: leave it to the orphans */
        if (rv->flags & VF_POSTED) orphan_add(rv); else vrelease(rv);
        if (sd->flags & VF_POSTED) orphan_add(sd); else vrelease(sd);
        free(tmp);
        *req = MPI_REQUEST_NULL;
        return rc;
    }
    struct vobj *r = vnew(K_REQ, 0);
    r->rkind = RQ_SENDRECV;
    r->comm = comm_obj(comm);
    r->a[4] = rv->idx;
    r->a[5] = sd->idx;
    r->arr = tmp;
    r->flags |= VF_POSTED;
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

int PMPI_Isendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                   MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Request *req)
{
    MANA_CHECK_INIT();
    return isendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, NULL, req);
}
ALIAS(Isendrecv)

static int isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag, int src, int rtag,
                             MPI_Comm comm, MPI_Request *req)
{
    MANA_CHECK_INIT();
    char *tmp;
    mana_cnt size;
    int rc = replace_buffer(count, type, comm, &tmp, &size);
    if (rc != MPI_SUCCESS) return rc;
    rc = isendrecv(buf, count, type, dest, stag, tmp, size, MPI_PACKED, src, rtag, comm, tmp, req);
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *r = vobj_of(HBITS(*req)), *t = vobj_of(HBITS(type));
    if (t && t->kind == K_TYPE) { vref(t); r->type = t; }     /* the unpack at completion uses it */
    r->buf = buf;
    r->count = count;
    r->a[0] = (int64_t)HBITS(type);
    r->a[1] = (int64_t)HBITS(comm);
    return MPI_SUCCESS;
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag, MPI_Comm comm,
                           MPI_Request *req)
{ return isendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, req); }
ALIAS(Isendrecv_replace)

#ifdef MANA_HAVE_C
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{ return blocking(RQ_SEND, buf, count, type, dest, tag, comm, MPI_STATUS_IGNORE); }
ALIAS(Send_c)

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{ return blocking(RQ_SSEND, buf, count, type, dest, tag, comm, MPI_STATUS_IGNORE); }
ALIAS(Ssend_c)

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{ return blocking(RQ_RSEND, buf, count, type, dest, tag, comm, MPI_STATUS_IGNORE); }
ALIAS(Rsend_c)

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *st)
{ return blocking(RQ_RECV, buf, count, type, src, tag, comm, st); }
ALIAS(Recv_c)

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_SEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Isend_c)

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_SSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Issend_c)

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_RSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Irsend_c)

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{ return start(RQ_RECV, buf, count, type, src, tag, comm, req); }
ALIAS(Irecv_c)

int PMPI_Sendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf, MPI_Count rcount,
                    MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{ return sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st); }
ALIAS(Sendrecv_c)

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag, int src, int rtag, MPI_Comm comm,
                            MPI_Status *st)
{ return sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, st); }
ALIAS(Sendrecv_replace_c)

int PMPI_Isendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf, MPI_Count rcount,
                     MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Request *req)
{
    MANA_CHECK_INIT();
    return isendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, NULL, req);
}
ALIAS(Isendrecv_c)

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag, int src, int rtag, MPI_Comm comm,
                             MPI_Request *req)
{ return isendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, req); }
ALIAS(Isendrecv_replace_c)
#endif

/* ---- completion ---- */

int PMPI_Wait(MPI_Request *h, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *r;
    if (req_lookup(*h, &r) != MPI_SUCCESS) return MPI_ERR_REQUEST;
    if (!r) { status_empty(st); return MPI_SUCCESS; }
    int rc = req_wait(r, st);
    req_complete_user(h, r);
    return rc;
}
ALIAS(Wait)

int PMPI_Test(MPI_Request *h, int *flag, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *r;
    if (req_lookup(*h, &r) != MPI_SUCCESS) return MPI_ERR_REQUEST;
    if (!r) { *flag = 1; status_empty(st); return MPI_SUCCESS; }
    req_test(r, flag, st);
    if (*flag) req_complete_user(h, r);
    return MPI_SUCCESS;
}
ALIAS(Test)

/* Nondestructive: the request stays as it is (MPI 3.1 3.7.3). */
int PMPI_Request_get_status(MPI_Request h, int *flag, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *r;
    if (req_lookup(h, &r) != MPI_SUCCESS) return MPI_ERR_REQUEST;
    if (!r) { *flag = 1; status_empty(st); return MPI_SUCCESS; }
    return req_test(r, flag, st);
}
ALIAS(Request_get_status)

/* The program's handles as requests (NULL for null and inactive ones); MPI_ERR_REQUEST if one is not
 * a request.  *rs is `small` when n fits. */
static int lookup_all(int n, const MPI_Request hs[], struct vobj *small[64], struct vobj ***rs)
{
    *rs = n <= 64 ? small : malloc((size_t)n * sizeof **rs);
    if (!*rs) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        if (req_lookup(hs[i], &(*rs)[i]) != MPI_SUCCESS) {
            if (*rs != small) free(*rs);
            return MPI_ERR_REQUEST;
        }
    return MPI_SUCCESS;
}

int PMPI_Waitall(int n, MPI_Request hs[], MPI_Status sts[])
{
    MANA_CHECK_INIT();
    struct vobj *small[64], **rs;
    int rc = lookup_all(n, hs, small, &rs);
    if (rc != MPI_SUCCESS) return rc;
    req_wait_set(rs, n, 1, NULL);
    for (int i = 0; i < n; i++) {
        if (!rs[i]) { if (sts != MPI_STATUSES_IGNORE) status_empty(&sts[i]); continue; }
        if (sts != MPI_STATUSES_IGNORE) status_give(&sts[i], &rs[i]->status);
        req_complete_user(&hs[i], rs[i]);
    }
    if (rs != small) free(rs);
    return MPI_SUCCESS;
}
ALIAS(Waitall)

int PMPI_Waitany(int n, MPI_Request hs[], int *index, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *small[64], **rs;
    int rc = lookup_all(n, hs, small, &rs);
    if (rc != MPI_SUCCESS) return rc;
    int active = 0;
    for (int i = 0; i < n; i++) if (rs[i]) active++;
    if (!active) { *index = MPI_UNDEFINED; status_empty(st); if (rs != small) free(rs); return MPI_SUCCESS; }
    int which = -1;
    req_wait_set(rs, n, 0, &which);
    *index = which;
    status_out(st, &rs[which]->status);
    req_complete_user(&hs[which], rs[which]);
    if (rs != small) free(rs);
    return MPI_SUCCESS;
}
ALIAS(Waitany)

int PMPI_Waitsome(int n, MPI_Request hs[], int *outcount, int idx[], MPI_Status sts[])
{
    int first;
    MPI_Status st;
    int rc = PMPI_Waitany(n, hs, &first, &st);
    if (rc != MPI_SUCCESS) return rc;
    if (first == MPI_UNDEFINED) { *outcount = MPI_UNDEFINED; return MPI_SUCCESS; }
    int k = 0;
    idx[k] = first;
    if (sts != MPI_STATUSES_IGNORE) status_give(&sts[k], &st);
    k++;
    for (int i = 0; i < n; i++) {
        struct vobj *r;
        if (i == first || req_lookup(hs[i], &r) != MPI_SUCCESS || !r) continue;
        int flag = 0;
        req_test(r, &flag, &st);
        if (!flag) continue;
        idx[k] = i;
        if (sts != MPI_STATUSES_IGNORE) status_give(&sts[k], &st);
        k++;
        req_complete_user(&hs[i], r);
    }
    *outcount = k;
    return MPI_SUCCESS;
}
ALIAS(Waitsome)

int PMPI_Testall(int n, MPI_Request hs[], int *flag, MPI_Status sts[])
{
    MANA_CHECK_INIT();
    struct vobj *small[64], **rs;
    int rc = lookup_all(n, hs, small, &rs);
    if (rc != MPI_SUCCESS) return rc;
    int all = 1;
    for (int i = 0; i < n; i++) {
        if (!rs[i]) continue;
        int f = 0;
        req_test(rs[i], &f, MPI_STATUS_IGNORE);
        if (!f) all = 0;
    }
    *flag = all;
    for (int i = 0; all && i < n; i++) {
        if (!rs[i]) { if (sts != MPI_STATUSES_IGNORE) status_empty(&sts[i]); continue; }
        if (sts != MPI_STATUSES_IGNORE) status_give(&sts[i], &rs[i]->status);
        req_complete_user(&hs[i], rs[i]);
    }
    if (rs != small) free(rs);
    return MPI_SUCCESS;
}
ALIAS(Testall)

int PMPI_Testany(int n, MPI_Request hs[], int *index, int *flag, MPI_Status *st)
{
    MANA_CHECK_INIT();
    int active = 0;
    for (int i = 0; i < n; i++) {
        struct vobj *r;
        if (req_lookup(hs[i], &r) != MPI_SUCCESS) return MPI_ERR_REQUEST;
        if (!r) continue;
        active++;
        int f = 0;
        req_test(r, &f, st);
        if (f) { *index = i; *flag = 1; req_complete_user(&hs[i], r); return MPI_SUCCESS; }
    }
    *index = MPI_UNDEFINED;
    *flag = active == 0;
    if (!active) status_empty(st);
    return MPI_SUCCESS;
}
ALIAS(Testany)

int PMPI_Testsome(int n, MPI_Request hs[], int *outcount, int idx[], MPI_Status sts[])
{
    MANA_CHECK_INIT();
    int k = 0, active = 0;
    for (int i = 0; i < n; i++) {
        struct vobj *r;
        if (req_lookup(hs[i], &r) != MPI_SUCCESS) return MPI_ERR_REQUEST;
        if (!r) continue;
        active++;
        int f = 0;
        MPI_Status st;
        req_test(r, &f, &st);
        if (!f) continue;
        idx[k] = i;
        if (sts != MPI_STATUSES_IGNORE) status_give(&sts[k], &st);
        k++;
        req_complete_user(&hs[i], r);
    }
    *outcount = active ? k : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
ALIAS(Testsome)

int PMPI_Request_free(MPI_Request *h)
{
    MANA_CHECK_INIT();
    if (*h == MPI_REQUEST_NULL) return MPI_ERR_REQUEST;
    struct vobj *r = vobj_of(HBITS(*h));
    if (!r || r->kind != K_REQ) return MPI_ERR_REQUEST;
    *h = MPI_REQUEST_NULL;
    if (r->rkind == RQ_PCOLL) mana_pcoll_free(r);
    if (((r->flags & VF_POSTED) || r->rkind == RQ_GREQ) && !(r->flags & VF_DONE)) {
        /* The operation still completes; keep the request so the drain still counts it, and let it
         * go once it has (req_reap). */
        r->flags = (r->flags & ~VF_PERSIST) | VF_INTERNAL;
        orphan_add(r);
        return MPI_SUCCESS;
    }
    vrelease(r);
    return MPI_SUCCESS;
}
ALIAS(Request_free)

int PMPI_Cancel(MPI_Request *h)
{
    MANA_CHECK_INIT();
    struct vobj *r = vobj_of(HBITS(*h));
    if (!r || r->kind != K_REQ) return MPI_ERR_REQUEST;
    if (r->rkind == RQ_GREQ) return mana_greq_cancel(r);
    if (r->flags & VF_DONE) return MPI_SUCCESS;
    /* Only marks the request (MPI_Cancel is local): it completes through the program's next wait or
     * test, or the drain's, and req_finished then sees whether it was cancelled.  Waiting here hung
     * where the real MPI cannot cancel (Open MPI and an MPI_Issend to self that nobody receives).  The
     * real handle is read inside the excursion: a restart may have posted the request anew. */
    int rc = MPI_SUCCESS;
    r->flags |= VF_CANCELING;
    if (r->rkind == RQ_SENDRECV) {                   /* both parts */
        for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++) {
            MPI_Request ph = V(MPI_Request, part(r, k));
            rc = PMPI_Cancel(&ph);
        }
        return rc;
    }
    LOWER(if (r->flags & VF_POSTED) { MPI_Request rr = HMAKE(MPI_Request, r->real); rc = real.Cancel(&rr); });
    return rc;
}
ALIAS(Cancel)

int PMPI_Test_cancelled(const MPI_Status *st, int *flag)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Test_cancelled(st, flag));
    return rc;
}
ALIAS(Test_cancelled)

/* Only edits the program's status (generalized requests' query functions call it, and so do
 * programs that build statuses): the real function knows where this ABI keeps the bit. */
int PMPI_Status_set_cancelled(MPI_Status *st, int flag)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Status_set_cancelled(st, flag));
    return rc;
}
ALIAS(Status_set_cancelled)

int PMPI_Get_count(const MPI_Status *st, MPI_Datatype type, int *count)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Get_count(st, R(type), count));
    return rc;
}
ALIAS(Get_count)

int PMPI_Get_elements(const MPI_Status *st, MPI_Datatype type, int *count)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Get_elements(st, R(type), count));
    return rc;
}
ALIAS(Get_elements)

/* ---- probes ---- */

int PMPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (c && buffered_take(c, src, tag, NULL, 0, MPI_BYTE, st, 1)) { *flag = 1; return MPI_SUCCESS; }
    int rc;
    LOWER(rc = real.Iprobe(src, tag, R(comm), flag, st));
    return rc;
}
ALIAS(Iprobe)

int PMPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    MANA_CHECK_INIT();
    for (;;) {
        struct vobj *c = comm_obj(comm);
        uint32_t gen = buffered_gen();
        if (c && buffered_take(c, src, tag, NULL, 0, MPI_BYTE, st, 1)) return MPI_SUCCESS;
        mana_test_buffer_hold("MPI_Probe");
        int flag = 0, rc = MPI_SUCCESS;
        lower_pass();
        uint64_t up = lower_enter();
        if (buffered_gen() != gen) { lower_leave(up); continue; }     /* a drain buffered messages since */
        for (unsigned spin = 0;; spin++) {
            rc = real.Iprobe(src, tag, R(comm), &flag, st);
            if (flag || rc != MPI_SUCCESS || lower_interrupted()) break;
            if (__builtin_expect(spin_yield(spin), 0)) mana_sys0(SYS_sched_yield);
        }
        lower_leave(up);
        if (flag || rc != MPI_SUCCESS) return rc;
    }
}
ALIAS(Probe)

/* ---- the drain ---- */

/* The pending MPI-IO request the program started first, or NULL.  ROMIO moves its nonblocking
 * collective I/O forward only through the oldest such request (spin_in_lower above): a test of a younger
 * one first can wedge the job, and a table slot is reused, so table order is not start order. */
static struct vobj *oldest_file_req(uint32_t n)
{
    struct vobj *oldest = NULL;
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *r = &vtab[i];
        if (r->kind == K_REQ && r->rkind == RQ_FILE && (r->flags & VF_POSTED) && !(r->flags & VF_DONE) &&
            (!oldest || r->order < oldest->order))
            oldest = r;
    }
    return oldest;
}

/* One pass: test pending requests, receive every unexpected message into the buffer.  Upper-libc
 * calls (malloc) happen between lower-half excursions, never inside one: they use the upper TLS. */
static int drain_round(void)
{
    int got = 0;
    uint32_t n = mana_vtab_used();
    struct vobj *file = oldest_file_req(n);
    uint64_t up = lower_enter();
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *r = &vtab[i];
        /* of the MPI-IO requests only the oldest (see oldest_file_req) */
        if (r->kind == K_REQ && !(r->flags & VF_DONE) && (r->rkind != RQ_FILE || r == file))
            got += test_in_lower(r);
    }
    lower_leave(up);
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *c = &vtab[i];
        /* gid 0: an MPI_Comm_idup still running (its communicator cannot be used yet) */
        if (c->kind != K_COMM || (c->flags & VF_ZOMBIE) || !c->real || !c->gid) continue;
        for (;;) {
            int flag = 0;
            mana_cnt bytes = 0;
            MPI_Status st;
            LOWER(if (real.Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, HMAKE(MPI_Comm, c->real), &flag, &st) == MPI_SUCCESS && flag)
                      REAL_C(Get_count)(&st, R(MPI_BYTE), &bytes));
            if (!flag) break;
            if (bytes < 0) bytes = 0;
            void *data;
            struct bufmsg *m = buffered_new(c, st.MPI_SOURCE, st.MPI_TAG, (size_t)bytes, &data);
            if (!m) mana_unsupported("(drain)", "out of memory while buffering a message");
            LOWER(REAL_C(Recv)(data, bytes, R(MPI_BYTE), st.MPI_SOURCE, st.MPI_TAG, HMAKE(MPI_Comm, c->real),
                               MPI_STATUS_IGNORE));
            buffered_append(m);
            p2p_received++;
            got++;
        }
    }
    return got + mana_mprobe_drain();
}

/* The drain: test one posted request until it completes (0), or give up (-1). */
int mana_req_finish(struct vobj *r)
{
    uint64_t up = lower_enter();
    for (long spin = 0; spin < 10000000 && !test_in_lower(r); spin++) ;
    lower_leave(up);
    return (r->flags & VF_DONE) ? 0 : -1;
}

/* The operations of the drain's rounds (drain_rounds.c) on this process. */
static void p2p_op_round(void *ctx) { (void)ctx; drain_round(); }

static void p2p_op_counts(void *ctx, uint64_t *sent, uint64_t *received)
{
    (void)ctx;
    *sent = p2p_sent;
    *received = p2p_received;
}

static int p2p_op_reduce(void *ctx, uint32_t g, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err,
                         size_t errlen)
{
    (void)ctx;
    return lower.iface->reduce(g, phase, op, vals, n, err, errlen);
}

static int p2p_op_debug(void *ctx) { (void)ctx; return mana_debug_on(); }

static const struct drain_p2p_ops p2p_drain_ops = {
    .round = p2p_op_round, .counts = p2p_op_counts, .reduce = p2p_op_reduce, .debug = p2p_op_debug, .message = mana_say,
};

int mana_p2p_drain(uint32_t g, char *err, size_t errlen)
{
    /* rounds until nothing is in flight in the job (sent - received summed over the ranks is 0) */
    if (drain_p2p_rounds(&p2p_drain_ops, NULL, g, err, errlen) != 0) return -1;
    __atomic_add_fetch(&p2p_drains, 1, __ATOMIC_RELEASE);     /* (the test hook above) */
    /* Every message is received: what the program still waits for completes (sends, collectives). */
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *r = &vtab[i];
        /* (RMA requests complete after the window drain's flushes: win.c; MPI-IO ones below) */
        if (r->kind != K_REQ || (r->flags & VF_DONE) || !(r->flags & VF_POSTED) || r->rkind == RQ_RECV ||
            r->rkind == RQ_SENDRECV || r->rkind == RQ_RMA || r->rkind == RQ_FILE)
            continue;
        if (mana_req_finish(r) != 0) {
            snprintf(err, errlen, "point-to-point drain: a request of this rank did not complete");
            return -1;
        }
    }
    /* MPI-IO requests in the order the program started them (oldest_file_req) */
    for (;;) {
        struct vobj *oldest = oldest_file_req(n);
        if (!oldest) return 0;
        if (mana_req_finish(oldest) != 0) {
            snprintf(err, errlen, "point-to-point drain: an MPI-IO request of this rank did not complete");
            return -1;
        }
    }
}

void mana_p2p_describe(struct mana_img_mpi *d)
{
    d->buffered_msgs = bq_count;
    d->buffered_bytes = bq_bytes;
    d->sent = p2p_sent;
    d->received = p2p_received;
}

/* After a restart: receives the program still waits for are posted again in the new MPI. */
int mana_p2p_restart(void)
{
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *r = &vtab[i];
        if (r->kind != K_REQ || (r->flags & VF_DONE) || !(r->flags & VF_POSTED) || r->rkind == RQ_SENDRECV) continue;
        if (r->rkind != RQ_RECV) { r->flags |= VF_DONE; continue; }
        if (r->flags & VF_CANCELING) {
            /* cancelled before the checkpoint and still unmatched (the drain found no message for it):
             * it ends cancelled, as the real MPI would have ended it */
            status_empty(&r->status);
            LOWER(real.Status_set_cancelled(&r->status, 1));
            r->flags |= VF_DONE;
            continue;
        }
        if (req_post(r) != MPI_SUCCESS) return -1;
    }
    return 0;
}
