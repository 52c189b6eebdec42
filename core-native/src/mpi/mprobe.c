/*
 * mprobe.c - matched probes: MPI_Mprobe/MPI_Improbe take a message out of matching, MPI_Mrecv/
 * MPI_Imrecv receive exactly that message.
 *
 * A message handle (vkind K_MSG) is either a real MPI_Message still in the lower half (real != 0), or
 * an upper-half copy of the message (buf: a struct bufmsg of p2p.c) when it came from the drain's
 * buffer or when a checkpoint came between the probe and the receive: a matched message is invisible
 * to MPI_Iprobe, so the drain receives it here (mana_mprobe_drain) and counts it, and the program's
 * MPI_Mrecv, before or after a restart, gets it from the copy.  The handle is made before the real
 * probe and filled inside the same lower-half excursion, so no checkpoint falls between a message
 * leaving the real MPI's matching and the runtime knowing about it.
 */
#include "mpi_int.h"

static void status_copy(MPI_Status *dst, const MPI_Status *src) { status_give(dst, src); }

/* A handle for the oldest buffered message that matches, if any. */
static int from_buffer(struct vobj *c, int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    MPI_Status s;
    struct bufmsg *m = buffered_detach(c, src, tag, &s);
    if (!m) return 0;
    struct vobj *o = vnew(K_MSG, 0);
    o->buf = m;
    o->comm = c;
    o->a[1] = (int64_t)HBITS(comm);
    *msg = V(MPI_Message, o);
    status_copy(st, &s);
    return 1;
}

/* Inside an excursion: one real MPI_Improbe; on a match the handle o holds the message. */
static int improbe_in_lower(struct vobj *o, int src, int tag, MPI_Comm rcomm, int *flag, MPI_Status *s)
{
    MPI_Message rm;
    int rc = real.Improbe(src, tag, rcomm, flag, &rm, s);
    if (rc != MPI_SUCCESS || !*flag) return rc;
    mana_cnt bytes = 0;
    REAL_C(Get_count)(s, R(MPI_BYTE), &bytes);
    o->real = HBITS(rm);
    o->peer = s->MPI_SOURCE;
    o->tag = s->MPI_TAG;
    o->count = bytes;
    return rc;
}

/* The handle the program gets: MPI_MESSAGE_NO_PROC stays predefined. */
static MPI_Message handle_out(struct vobj *o)
{
    if (o->peer == MPI_PROC_NULL) {
        uint64_t rm = o->real;
        vrelease(o);
        return HMAKE(MPI_Message, vfind(K_MSG, rm));
    }
    return V(MPI_Message, o);
}

int PMPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (!c) return MPI_ERR_COMM;
    if (from_buffer(c, src, tag, comm, msg, st)) { *flag = 1; return MPI_SUCCESS; }
    struct vobj *o = vnew(K_MSG, 0);
    o->comm = c;
    o->a[1] = (int64_t)HBITS(comm);
    MPI_Status s;
    int rc;
    LOWER(rc = improbe_in_lower(o, src, tag, R(comm), flag, &s));
    if (rc != MPI_SUCCESS || !*flag) { vrelease(o); return rc; }
    status_copy(st, &s);
    *msg = handle_out(o);
    return MPI_SUCCESS;
}
ALIAS(Improbe)

int PMPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (!c) return MPI_ERR_COMM;
    for (;;) {
        /* After a checkpoint left the loop below, or stopped this thread before it, the drain may have
         * buffered the message (buffered_gen, p2p.c). */
        uint32_t gen = buffered_gen();
        if (from_buffer(c, src, tag, comm, msg, st)) return MPI_SUCCESS;
        mana_test_buffer_hold("MPI_Mprobe");
        struct vobj *o = vnew(K_MSG, 0);
        o->comm = c;
        o->a[1] = (int64_t)HBITS(comm);
        MPI_Status s;
        int flag = 0, rc = MPI_SUCCESS;
        lower_pass();
        uint64_t up = lower_enter();
        if (buffered_gen() != gen) { lower_leave(up); vrelease(o); continue; }
        for (unsigned spin = 0;; spin++) {
            rc = improbe_in_lower(o, src, tag, R(comm), &flag, &s);
            if (flag || rc != MPI_SUCCESS || lower_interrupted()) break;
            if (__builtin_expect(spin_yield(spin), 0)) mana_sys0(SYS_sched_yield);
        }
        lower_leave(up);
        if (rc != MPI_SUCCESS) { vrelease(o); return rc; }
        if (flag) { status_copy(st, &s); *msg = handle_out(o); return MPI_SUCCESS; }
        vrelease(o);
    }
}
ALIAS(Mprobe)

/* The request of an MPI_Imrecv; *msg becomes MPI_MESSAGE_NULL as the standard says. */
static int imrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *msg, struct vobj **out)
{
    *out = NULL;
    struct vobj *o = *msg == MPI_MESSAGE_NULL ? NULL : vobj_of(HBITS(*msg));
    MPI_Comm comm = o ? HMAKE(MPI_Comm, o->a[1]) : MPI_COMM_SELF;
    if (!o) {
        /* MPI_MESSAGE_NO_PROC (predefined): a receive from MPI_PROC_NULL, done at once. */
        if (*msg == MPI_MESSAGE_NULL) return MPI_ERR_REQUEST;
        struct vobj *r = req_new(RQ_MRECV, buf, count, type, MPI_PROC_NULL, MPI_ANY_TAG, comm);
        status_empty(&r->status);
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->flags |= VF_POSTED | VF_DONE;
        *msg = MPI_MESSAGE_NULL;
        *out = r;
        return MPI_SUCCESS;
    }
    if (o->kind != K_MSG) return MPI_ERR_ARG;
    struct vobj *r = req_new(RQ_MRECV, buf, count, type, o->peer, o->tag, comm);
    int rc = MPI_SUCCESS;
    if (o->buf) {
        rc = buffered_unpack(o->buf, buf, count, type, &r->status);
        o->buf = NULL;
        r->flags |= VF_POSTED | VF_DONE;
    } else {
        uint64_t up = lower_enter();
        MPI_Message rm = HMAKE(MPI_Message, o->real);
        MPI_Request rr;
        rc = REAL_C(Imrecv)(buf, (mana_cnt)count, R(type), &rm, &rr);
        if (rc == MPI_SUCCESS) {
            r->real = HBITS(rr);
            r->flags |= VF_POSTED;
            o->real = 0;            /* the request has the message now (same excursion) */
        }
        lower_leave(up);
    }
    if (rc != MPI_SUCCESS) { vrelease(r); return rc; }
    vrelease(o);
    *msg = MPI_MESSAGE_NULL;
    *out = r;
    return MPI_SUCCESS;
}

static int imrecv_user(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *msg, MPI_Request *req)
{
    MANA_CHECK_INIT();
    struct vobj *r;
    int rc = imrecv(buf, count, type, msg, &r);
    if (rc != MPI_SUCCESS) return rc;
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

static int mrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *msg, MPI_Status *st)
{
    MANA_CHECK_INIT();
    struct vobj *r;
    int rc = imrecv(buf, count, type, msg, &r);
    if (rc != MPI_SUCCESS) return rc;
    r->flags |= VF_INTERNAL;
    rc = req_wait(r, st);
    vrelease(r);
    return rc;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Request *req)
{ return imrecv_user(buf, count, type, msg, req); }
ALIAS(Imrecv)
int PMPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Status *st)
{ return mrecv(buf, count, type, msg, st); }
ALIAS(Mrecv)
#ifdef MANA_HAVE_C
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *msg, MPI_Request *req)
{ return imrecv_user(buf, count, type, msg, req); }
ALIAS(Imrecv_c)
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *msg, MPI_Status *st)
{ return mrecv(buf, count, type, msg, st); }
ALIAS(Mrecv_c)
#endif

/* Drain: matched messages not yet received are received into upper-half copies and counted. */
int mana_mprobe_drain(void)
{
    uint32_t n = mana_vtab_used();
    int got = 0;
    for (uint32_t i = 1; i <= n; i++) {
        struct vobj *o = &vtab[i];
        if (o->kind != K_MSG || !o->real || o->buf) continue;
        void *data;
        struct bufmsg *m = buffered_new(o->comm, o->peer, o->tag, (size_t)(o->count > 0 ? o->count : 0), &data);
        if (!m) mana_unsupported("(drain)", "out of memory while receiving a matched message");
        MPI_Message rm = HMAKE(MPI_Message, o->real);
        int rc;
        LOWER(rc = REAL_C(Mrecv)(data, (mana_cnt)o->count, R(MPI_BYTE), &rm, MPI_STATUS_IGNORE));
        if (rc != MPI_SUCCESS) mana_unsupported("(drain)", "a matched message could not be received");
        o->real = 0;
        o->buf = m;
        p2p_received++;
        got++;
    }
    return got;
}
