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

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#define ALIAS(n) extern __typeof__(PMPI_##n) MPI_##n __attribute__((weak, alias("PMPI_" #n)));

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

static void status_fill(MPI_Status *st, int src, int tag, size_t bytes)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = src;
    st->MPI_TAG = tag;
    st->MPI_ERROR = MPI_SUCCESS;
    LOWER(real.Status_set_elements(st, R(MPI_BYTE), (int)bytes));
}

int buffered_take(struct vobj *comm, int src, int tag, void *buf, int count, MPI_Datatype type, MPI_Status *st,
                  int peek)
{
    struct bufmsg *prev = NULL;
    for (struct bufmsg *m = bq_head; m; prev = m, m = m->next) {
        if (m->comm != comm || (src != MPI_ANY_SOURCE && src != m->src) || (tag != MPI_ANY_TAG && tag != m->tag))
            continue;
        if (peek) { status_fill(st, m->src, m->tag, m->len); return 1; }
        int pos = 0;
        if (m->len) LOWER(real.Unpack(m->data, (int)m->len, &pos, buf, count, R(type), HMAKE(MPI_Comm, comm->real)));
        status_fill(st, m->src, m->tag, m->len);
        if (prev) prev->next = m->next; else bq_head = m->next;
        if (bq_tail == m) bq_tail = prev;
        bq_count--;
        bq_bytes -= m->len;
        bufmsg_free(m);
        return 1;
    }
    return 0;
}

/* ---- requests ---- */

static int is_send(int k) { return k == RQ_SEND || k == RQ_SSEND || k == RQ_RSEND || k == RQ_BSEND; }

struct vobj *req_new(int rkind, void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm)
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
    return r;
}

int req_post(struct vobj *r)
{
    MPI_Datatype type = HMAKE(MPI_Datatype, r->a[0]);
    MPI_Comm comm = HMAKE(MPI_Comm, r->a[1]);
    MPI_Request rr = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (r->rkind == RQ_RECV && r->comm && buffered_take(r->comm, r->peer, r->tag, r->buf, r->count, type, &r->status, 0)) {
        r->flags |= VF_DONE | VF_POSTED;
        return MPI_SUCCESS;
    }
    uint64_t up = lower_enter();
    MPI_Datatype rt = R(type);
    MPI_Comm rc_ = R(comm);
    switch (r->rkind) {
    case RQ_SEND:  rc = real.Isend(r->buf, r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_SSEND: rc = real.Issend(r->buf, r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_RSEND: rc = real.Irsend(r->buf, r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_BSEND: rc = real.Ibsend(r->buf, r->count, rt, r->peer, r->tag, rc_, &rr); break;
    case RQ_RECV:  rc = real.Irecv(r->buf, r->count, rt, r->peer, r->tag, rc_, &rr); break;
    default: break;
    }
    if (rc == MPI_SUCCESS) {
        r->real = HBITS(rr);
        r->flags |= VF_POSTED;
        if (is_send(r->rkind) && r->peer != MPI_PROC_NULL && !(r->flags & VF_COUNTED)) {
            p2p_sent++;
            r->flags |= VF_COUNTED;
        }
    }
    lower_leave(up);
    return rc;
}

/* The request finished: count it, keep its status. */
static void req_finished(struct vobj *r, const MPI_Status *st)
{
    r->flags |= VF_DONE;
    r->status = *st;
    if (r->rkind == RQ_RECV && r->peer != MPI_PROC_NULL && st->MPI_SOURCE != MPI_PROC_NULL) p2p_received++;
}

static void status_out(MPI_Status *dst, const MPI_Status *src)
{
    if (dst != MPI_STATUS_IGNORE) *dst = *src;
}

/* One test of a pending request in the lower half (call inside an excursion). */
static int test_in_lower(struct vobj *r)
{
    if (r->flags & VF_DONE) return 1;
    if (!(r->flags & VF_POSTED)) return 0;
    MPI_Request rr = HMAKE(MPI_Request, r->real);
    int flag = 0;
    MPI_Status st;          /* no libc call here: this runs on the lower TLS */
    real.Test(&rr, &flag, &st);
    if (flag) { r->real = HBITS(rr); req_finished(r, &st); }
    return flag;
}

int req_test(struct vobj *r, int *flag, MPI_Status *st)
{
    if (!(r->flags & VF_DONE)) LOWER(test_in_lower(r));
    *flag = (r->flags & VF_DONE) != 0;
    if (*flag) status_out(st, &r->status);
    return MPI_SUCCESS;
}

/* Wait in the lower half; leave it whenever a checkpoint asks, then go on. */
static void wait_set(struct vobj **rs, int n, int need_all, int *which)
{
    for (;;) {
        int done = 0, first = -1;
        for (int i = 0; i < n; i++)
            if (rs[i] && (rs[i]->flags & VF_DONE)) { done++; if (first < 0) first = i; }
        if ((need_all && done == n) || (!need_all && first >= 0)) { if (which) *which = first; return; }
        uint64_t up = lower_enter();
        for (unsigned spin = 0; !lower_interrupted(); spin++) {
            int got = 0;
            for (int i = 0; i < n; i++) {
                if (!rs[i] || (rs[i]->flags & VF_DONE)) continue;
                if (test_in_lower(rs[i])) got++;
            }
            if (got && !need_all) break;
            if (need_all) {
                int all = 1;
                for (int i = 0; i < n && all; i++) if (rs[i] && !(rs[i]->flags & VF_DONE)) all = 0;
                if (all) break;
            }
            if (spin > 64) mana_sys0(SYS_sched_yield);
        }
        lower_leave(up);
    }
}

int req_wait(struct vobj *r, MPI_Status *st)
{
    wait_set(&r, 1, 1, NULL);
    status_out(st, &r->status);
    return r->status.MPI_ERROR == MPI_SUCCESS || r->rkind != RQ_RECV ? MPI_SUCCESS : r->status.MPI_ERROR;
}

void req_complete_user(MPI_Request *h, struct vobj *r)
{
    vrelease(r);
    *h = MPI_REQUEST_NULL;
}

static void status_empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE) return;
    memset(st, 0, sizeof *st);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
}

/* ---- sends and receives ---- */

static int start(int kind, const void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request *req)
{
    MANA_CHECK_INIT();
    struct vobj *r = req_new(kind, (void *)buf, count, type, peer, tag, comm);
    int rc = req_post(r);
    if (rc != MPI_SUCCESS) { vrelease(r); *req = MPI_REQUEST_NULL; return rc; }
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

static int blocking(int kind, const void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                    MPI_Status *st)
{
    MPI_Request h;
    int rc = start(kind, buf, count, type, peer, tag, comm, &h);
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *r = vobj_of(HBITS(h));
    r->flags |= VF_INTERNAL;
    rc = req_wait(r, st);
    vrelease(r);
    return rc;
}

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

int PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                  MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
    MPI_Request h[2];
    int rc = start(RQ_RECV, rbuf, rcount, rtype, src, rtag, comm, &h[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = start(RQ_SEND, sbuf, scount, stype, dest, stag, comm, &h[1]);
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *rs[2] = { vobj_of(HBITS(h[0])), vobj_of(HBITS(h[1])) };
    rs[0]->flags |= VF_INTERNAL;
    rs[1]->flags |= VF_INTERNAL;
    wait_set(rs, 2, 1, NULL);
    status_out(st, &rs[0]->status);
    vrelease(rs[0]);
    vrelease(rs[1]);
    return MPI_SUCCESS;
}
ALIAS(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
                          MPI_Comm comm, MPI_Status *st)
{
    MANA_CHECK_INIT();
    int size = 0, rc;
    LOWER(rc = real.Pack_size(count, R(type), R(comm), &size));
    if (rc != MPI_SUCCESS) return rc;
    char *tmp = malloc(size ? (size_t)size : 1);
    if (!tmp) return MPI_ERR_NO_MEM;
    MPI_Status s2;
    rc = PMPI_Sendrecv(buf, count, type, dest, stag, tmp, size, MPI_PACKED, src, rtag, comm, &s2);
    if (rc == MPI_SUCCESS) {
        int pos = 0, got = 0;
        LOWER(real.Get_count(&s2, R(MPI_PACKED), &got); rc = real.Unpack(tmp, got, &pos, buf, count, R(type), R(comm)));
        if (st != MPI_STATUS_IGNORE) {
            *st = s2;
            LOWER(real.Status_set_elements(st, R(MPI_BYTE), got));
        }
    }
    free(tmp);
    return rc;
}
ALIAS(Sendrecv_replace)

/* ---- completion ---- */

int PMPI_Wait(MPI_Request *h, MPI_Status *st)
{
    MANA_CHECK_INIT();
    if (*h == MPI_REQUEST_NULL) { status_empty(st); return MPI_SUCCESS; }
    struct vobj *r = vobj_of(HBITS(*h));
    if (!r) return MPI_ERR_REQUEST;
    int rc = req_wait(r, st);
    req_complete_user(h, r);
    return rc;
}
ALIAS(Wait)

int PMPI_Test(MPI_Request *h, int *flag, MPI_Status *st)
{
    MANA_CHECK_INIT();
    if (*h == MPI_REQUEST_NULL) { *flag = 1; status_empty(st); return MPI_SUCCESS; }
    struct vobj *r = vobj_of(HBITS(*h));
    if (!r) return MPI_ERR_REQUEST;
    req_test(r, flag, st);
    if (*flag) req_complete_user(h, r);
    return MPI_SUCCESS;
}
ALIAS(Test)

#define MAXSET 4096

int PMPI_Waitall(int n, MPI_Request hs[], MPI_Status sts[])
{
    MANA_CHECK_INIT();
    struct vobj *small[64], **rs = n <= 64 ? small : malloc((size_t)n * sizeof *rs);
    if (!rs) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) rs[i] = hs[i] == MPI_REQUEST_NULL ? NULL : vobj_of(HBITS(hs[i]));
    wait_set(rs, n, 1, NULL);
    for (int i = 0; i < n; i++) {
        if (!rs[i]) { if (sts != MPI_STATUSES_IGNORE) status_empty(&sts[i]); continue; }
        if (sts != MPI_STATUSES_IGNORE) sts[i] = rs[i]->status;
        req_complete_user(&hs[i], rs[i]);
    }
    if (rs != small) free(rs);
    return MPI_SUCCESS;
}
ALIAS(Waitall)

int PMPI_Waitany(int n, MPI_Request hs[], int *index, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *small[64], **rs = n <= 64 ? small : malloc((size_t)n * sizeof *rs);
    if (!rs) return MPI_ERR_NO_MEM;
    int active = 0;
    for (int i = 0; i < n; i++) {
        rs[i] = hs[i] == MPI_REQUEST_NULL ? NULL : vobj_of(HBITS(hs[i]));
        if (rs[i]) active++;
    }
    if (!active) { *index = MPI_UNDEFINED; status_empty(st); if (rs != small) free(rs); return MPI_SUCCESS; }
    int which = -1;
    wait_set(rs, n, 0, &which);
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
    if (sts != MPI_STATUSES_IGNORE) sts[k] = st;
    k++;
    for (int i = 0; i < n; i++) {
        if (hs[i] == MPI_REQUEST_NULL) continue;
        int flag = 0;
        struct vobj *r = vobj_of(HBITS(hs[i]));
        if (!r) continue;
        req_test(r, &flag, &st);
        if (!flag) continue;
        idx[k] = i;
        if (sts != MPI_STATUSES_IGNORE) sts[k] = st;
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
    int all = 1;
    for (int i = 0; i < n; i++) {
        if (hs[i] == MPI_REQUEST_NULL) continue;
        struct vobj *r = vobj_of(HBITS(hs[i]));
        int f = 0;
        if (r) req_test(r, &f, MPI_STATUS_IGNORE);
        if (!f) all = 0;
    }
    *flag = all;
    if (!all) return MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (hs[i] == MPI_REQUEST_NULL) { if (sts != MPI_STATUSES_IGNORE) status_empty(&sts[i]); continue; }
        struct vobj *r = vobj_of(HBITS(hs[i]));
        if (sts != MPI_STATUSES_IGNORE) sts[i] = r->status;
        req_complete_user(&hs[i], r);
    }
    return MPI_SUCCESS;
}
ALIAS(Testall)

int PMPI_Testany(int n, MPI_Request hs[], int *index, int *flag, MPI_Status *st)
{
    MANA_CHECK_INIT();
    int active = 0;
    for (int i = 0; i < n; i++) {
        if (hs[i] == MPI_REQUEST_NULL) continue;
        active++;
        struct vobj *r = vobj_of(HBITS(hs[i]));
        int f = 0;
        if (r) req_test(r, &f, st);
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
        if (hs[i] == MPI_REQUEST_NULL) continue;
        active++;
        struct vobj *r = vobj_of(HBITS(hs[i]));
        int f = 0;
        MPI_Status st;
        if (r) req_test(r, &f, &st);
        if (!f) continue;
        idx[k] = i;
        if (sts != MPI_STATUSES_IGNORE) sts[k] = st;
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
    if (!r) return MPI_ERR_REQUEST;
    if (!(r->flags & VF_DONE)) {
        /* The operation still completes; keep the request so the drain still counts it. */
        r->flags |= VF_INTERNAL;
        *h = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    req_complete_user(h, r);
    return MPI_SUCCESS;
}
ALIAS(Request_free)

int PMPI_Cancel(MPI_Request *h)
{
    MANA_CHECK_INIT();
    struct vobj *r = vobj_of(HBITS(*h));
    if (!r) return MPI_ERR_REQUEST;
    if (r->flags & VF_DONE) return MPI_SUCCESS;
    MPI_Request rr = HMAKE(MPI_Request, r->real);
    int rc;
    LOWER(rc = real.Cancel(&rr));
    /* A cancelled send is no longer in flight. */
    if (rc == MPI_SUCCESS && is_send(r->rkind)) {
        MPI_Status st;
        int flag = 0, canc = 0;
        LOWER(real.Wait(&rr, &st); real.Test_cancelled(&st, &canc); (void)flag);
        r->real = HBITS(rr);
        r->flags |= VF_DONE;
        r->status = st;
        if (canc && (r->flags & VF_COUNTED)) p2p_sent--;
    }
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
        if (c && buffered_take(c, src, tag, NULL, 0, MPI_BYTE, st, 1)) return MPI_SUCCESS;
        int flag = 0, rc = MPI_SUCCESS;
        uint64_t up = lower_enter();
        for (unsigned spin = 0; !flag && !lower_interrupted(); spin++) {
            rc = real.Iprobe(src, tag, R(comm), &flag, st);
            if (rc != MPI_SUCCESS) break;
            if (spin > 64) mana_sys0(SYS_sched_yield);
        }
        lower_leave(up);
        if (flag || rc != MPI_SUCCESS) return rc;
    }
}
ALIAS(Probe)

/* ---- the drain ---- */

/* One pass: test pending requests, receive every unexpected message into the buffer.  Upper-libc
 * calls (malloc) happen between lower-half excursions, never inside one: they use the upper TLS. */
static int drain_round(void)
{
    int got = 0;
    extern uint32_t mana_vtab_used(void);
    uint32_t n = mana_vtab_used();
    uint64_t up = lower_enter();
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *r = &vtab[i];
        if (r->kind == K_REQ && !(r->flags & VF_DONE)) got += test_in_lower(r);
    }
    lower_leave(up);
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *c = &vtab[i];
        if (c->kind != K_COMM || (c->flags & VF_ZOMBIE) || !c->real) continue;
        for (;;) {
            int flag = 0, bytes = 0;
            MPI_Status st;
            LOWER(if (real.Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, HMAKE(MPI_Comm, c->real), &flag, &st) == MPI_SUCCESS && flag)
                      real.Get_count(&st, R(MPI_BYTE), &bytes));
            if (!flag) break;
            if (bytes < 0) bytes = 0;
            struct bufmsg *m = bufmsg_new((size_t)bytes);
            if (!m) mana_unsupported("(drain)", "out of memory while buffering a message");
            m->next = NULL;
            m->comm = c;
            m->src = st.MPI_SOURCE;
            m->tag = st.MPI_TAG;
            m->len = (size_t)bytes;
            LOWER(real.Recv(m->data, bytes, R(MPI_BYTE), st.MPI_SOURCE, st.MPI_TAG, HMAKE(MPI_Comm, c->real),
                            MPI_STATUS_IGNORE));
            if (bq_tail) bq_tail->next = m; else bq_head = m;
            bq_tail = m;
            bq_count++;
            bq_bytes += m->len;
            p2p_received++;
            got++;
        }
    }
    return got;
}

int mana_p2p_drain(uint32_t g, char *err, size_t errlen)
{
    for (int round = 0; round < 14; round++) {
        drain_round();
        int64_t v = (int64_t)(p2p_sent - p2p_received);
        if (lower.iface->reduce(g, (uint16_t)(18 + round), MANA_RED_SUM, &v, 1, err, errlen) != 0) return -1;
        if (mana_debug_on())
            mana_say("mana: p2p drain round %d: sent %llu received %llu here, %lld in flight in the job", round,
                     (unsigned long long)p2p_sent, (unsigned long long)p2p_received, (long long)v);
        if (v == 0) break;
        if (round == 13) {
            snprintf(err, errlen, "point-to-point drain: %lld message(s) still in flight after 14 rounds", (long long)v);
            return -1;
        }
    }
    /* Every message is received: what the program still waits for completes (sends, collectives). */
    extern uint32_t mana_vtab_used(void);
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *r = &vtab[i];
        if (r->kind != K_REQ || (r->flags & VF_DONE) || !(r->flags & VF_POSTED) || r->rkind == RQ_RECV) continue;
        uint64_t up = lower_enter();
        for (long spin = 0; spin < 10000000 && !test_in_lower(r); spin++) ;
        lower_leave(up);
        if (!(r->flags & VF_DONE)) {
            snprintf(err, errlen, "point-to-point drain: a request of this rank did not complete");
            return -1;
        }
    }
    return 0;
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
    extern uint32_t mana_vtab_used(void);
    uint32_t n = mana_vtab_used();
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *r = &vtab[i];
        if (r->kind != K_REQ || (r->flags & VF_DONE) || !(r->flags & VF_POSTED)) continue;
        if (r->rkind != RQ_RECV) { r->flags |= VF_DONE; continue; }
        if (req_post(r) != MPI_SUCCESS) return -1;
    }
    return 0;
}
