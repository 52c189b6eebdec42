/*
 * client.c - the rank side of MNCP: HELLO/WELCOME, collectives, reports,
 * KV records, unsolicited events.  One request is outstanding at a time;
 * unsolicited frames that arrive while a request waits are queued (or, for
 * CKPT_ABORT of the collective's generation and KILL, end the wait).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include <string.h>
#include <unistd.h>

#include "coord_internal.h"

/* ---- receiving ---------------------------------------------------------- */

/*
 * Read one whole frame into c->hdr / c->body.  On TIMEOUT the partial frame
 * stays in the handle and the next call continues it.
 */
static int read_frame(struct mana_coord *c, int64_t deadline, char *err, size_t errlen)
{
    int rc;
    if (c->rx_have < MNCP_HDR_LEN) {
        rc = coord_recv_upto(c->fd, c->rx, MNCP_HDR_LEN, &c->rx_have, deadline, err, errlen);
        if (rc != MANA_COORD_OK)
            return rc;
        const char *why;
        if (mncp_parse_hdr(c->rx, &c->hdr, &why) < 0) {
            coord_err(err, errlen, "malformed frame from the coordinator: %s", why);
            return MANA_COORD_EPROTO;
        }
        if (c->max_body && c->hdr.len > c->max_body) {
            /* before AUTH_OK the peer is a stranger: allocate nothing on its word */
            coord_err(err, errlen, "a %u-byte frame before the coordinator proved the secret (limit %u)",
                      (unsigned)c->hdr.len, (unsigned)c->max_body);
            return MANA_COORD_EPROTO;
        }
        c->body = c->rx + MNCP_HDR_LEN;
        if (c->hdr.len > COORD_BUF) {
            /* Only large KV values get here; allocate once, keep it. */
            if (c->bigcap < c->hdr.len) {
                uint8_t *nb = realloc(c->big, c->hdr.len);
                if (!nb) {
                    coord_err(err, errlen, "out of memory for a %u-byte frame", (unsigned)c->hdr.len);
                    return MANA_COORD_EARG;
                }
                c->big = nb;
                c->bigcap = c->hdr.len;
            }
            c->body = c->big;
        }
    }
    size_t got = c->rx_have - MNCP_HDR_LEN;
    rc = coord_recv_upto(c->fd, c->body, c->hdr.len, &got, deadline, err, errlen);
    c->rx_have = MNCP_HDR_LEN + got;
    if (rc != MANA_COORD_OK)
        return rc;
    c->rx_have = 0;            /* complete: the next read starts a new frame */
    coord_log(c, "recv type 0x%02x len %u req %u", c->hdr.type, (unsigned)c->hdr.len,
              (unsigned)c->hdr.reqid);
    return MANA_COORD_OK;
}

static void enqueue(struct mana_coord *c, const struct mana_coord_event *ev)
{
    if (c->qlen == COORD_QLEN) {
        coord_log(c, "event queue full: dropping the oldest event");
        c->qhead = (c->qhead + 1) % COORD_QLEN;
        c->qlen--;
    }
    c->q[(c->qhead + c->qlen) % COORD_QLEN] = *ev;
    c->qlen++;
}

/* Remove queued event i (0 = oldest), keeping the order of the rest. */
static void dequeue_at(struct mana_coord *c, unsigned i, struct mana_coord_event *ev)
{
    if (ev)
        *ev = c->q[(c->qhead + i) % COORD_QLEN];
    for (unsigned k = i; k + 1 < c->qlen; k++)
        c->q[(c->qhead + k) % COORD_QLEN] = c->q[(c->qhead + k + 1) % COORD_QLEN];
    c->qlen--;
}

/* An ERROR frame: the coordinator closes the connection after it. */
static int remote_error(struct mana_coord *c, char *err, size_t errlen)
{
    uint16_t code;
    char msg[MANA_COORD_STR_MAX + 1];
    if (mncp_dec_error(c->body, c->hdr.len, &code, msg, sizeof msg) < 0) {
        coord_err(err, errlen, "malformed ERROR frame from the coordinator");
        return MANA_COORD_EPROTO;
    }
    c->remote_code = code;
    coord_err(err, errlen, "coordinator error %u: %s", (unsigned)code, msg);
    return MANA_COORD_EREMOTE;
}

/*
 * Wait for the reply `want` to request `reqid`.  abort_gen >= 0 makes a
 * CKPT_ABORT of that generation end the wait (collectives).  On OK the reply
 * body is in c->body / c->hdr.len.
 */
static int wait_reply(struct mana_coord *c, uint16_t want, uint32_t reqid, int64_t abort_gen,
                      int64_t deadline, char *err, size_t errlen)
{
    struct mana_coord_event ev;
    for (;;) {
        int rc = read_frame(c, deadline, err, errlen);
        if (rc != MANA_COORD_OK)
            return rc;
        uint16_t t = c->hdr.type;
        if (t == MNCP_ERROR)
            return remote_error(c, err, errlen);
        if (t == MNCP_CKPT_REQUEST || t == MNCP_CKPT_ABORT || t == MNCP_KILL) {
            if (mncp_dec_event(t, c->body, c->hdr.len, &ev) < 0) {
                coord_err(err, errlen, "malformed message 0x%02x from the coordinator", t);
                return MANA_COORD_EPROTO;
            }
            if (t == MNCP_KILL) {
                coord_err(err, errlen, "killed by the coordinator");
                return MANA_COORD_KILLED;
            }
            if (t == MNCP_CKPT_ABORT && abort_gen >= 0 && ev.generation == (uint64_t)abort_gen) {
                coord_err(err, errlen, "checkpoint %u aborted: %s", (unsigned)ev.generation, ev.text);
                return MANA_COORD_ABORTED;
            }
            enqueue(c, &ev);
            continue;
        }
        if (t == want && c->hdr.reqid == reqid)
            return MANA_COORD_OK;
        coord_err(err, errlen, "unexpected message 0x%02x (request id %u) from the coordinator",
                  t, (unsigned)c->hdr.reqid);
        return MANA_COORD_EPROTO;
    }
}

/* ---- sending ------------------------------------------------------------ */

static uint32_t new_reqid(struct mana_coord *c)
{
    if (++c->next_reqid == 0)  /* 0 is reserved for unsolicited messages */
        c->next_reqid = 1;
    return c->next_reqid;
}

/* The body is already in c->tx + MNCP_HDR_LEN. */
static int send_tx(struct mana_coord *c, uint16_t type, long len, uint32_t reqid,
                   int64_t deadline, char *err, size_t errlen)
{
    if (len < 0) {
        coord_err(err, errlen, "message 0x%02x exceeds a protocol limit", type);
        return MANA_COORD_EARG;
    }
    mncp_put_hdr(c->tx, type, (uint32_t)len, reqid);
    coord_log(c, "send type 0x%02x len %ld req %u", type, len, (unsigned)reqid);
    return coord_send_all(c->fd, c->tx, MNCP_HDR_LEN + (size_t)len, deadline, err, errlen);
}

#define TXB(c) ((c)->tx + MNCP_HDR_LEN), COORD_BUF

/* ---- authentication (protocol §2) --------------------------------------- */

static int random_bytes(uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Constant time: how long it takes says nothing about where a proof differs. */
static int same_mac(const uint8_t *a, const uint8_t *b)
{
    uint8_t d = 0;
    for (int i = 0; i < MNCP_SHA256_LEN; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

/*
 * CHALLENGE in; AUTH (our nonce, our proof) out; AUTH_OK in (the
 * coordinator's proof, checked); then the HELLO already encoded at hello_at
 * out and WELCOME in, left in c->body.  HELLO waits for AUTH_OK: sent right
 * behind a refused AUTH it would sit unread when the coordinator closes, and
 * the reset that makes could destroy the ERROR frame before we read it.  Nothing derived from the secret stays on
 * the stack or in the handle: the image of a checkpoint must not hold it.
 */
static int authenticate(struct mana_coord *c, const char *secret, uint8_t *hello_at, long hello_len,
                        int64_t deadline, char *err, size_t errlen)
{
    uint8_t snonce[MNCP_NONCE_LEN], cnonce[MNCP_NONCE_LEN], mac[MNCP_SHA256_LEN];
    c->max_body = MNCP_PRE_AUTH_MAX;
    int rc = read_frame(c, deadline, err, errlen);
    if (rc != MANA_COORD_OK)
        return rc;
    if (c->hdr.type == MNCP_ERROR)
        return remote_error(c, err, errlen);
    if (c->hdr.type != MNCP_CHALLENGE || mncp_dec_challenge(c->body, c->hdr.len, snonce) < 0) {
        coord_err(err, errlen, "coordinator sent message 0x%02x instead of CHALLENGE (an MNCP v1 coordinator?)",
                  c->hdr.type);
        return MANA_COORD_EPROTO;
    }
    if (random_bytes(cnonce, sizeof cnonce) < 0) {
        coord_err(err, errlen, "getrandom: %s", strerror(errno));
        return MANA_COORD_EIO;
    }
    mncp_auth_proof(secret, 0, snonce, cnonce, mac);
    uint32_t auth_req = new_reqid(c);
    long alen = mncp_enc_auth(c->tx + MNCP_HDR_LEN, MNCP_NONCE_LEN + MNCP_SHA256_LEN, cnonce, mac);
    mncp_put_hdr(c->tx, MNCP_AUTH, (uint32_t)alen, auth_req);
    coord_log(c, "send AUTH req %u", (unsigned)auth_req);
    rc = coord_send_all(c->fd, c->tx, MNCP_HDR_LEN + (size_t)alen, deadline, err, errlen);
    mncp_wipe(mac, sizeof mac);
    mncp_wipe(c->tx, MNCP_HDR_LEN + (size_t)alen);
    if (rc == MANA_COORD_OK)
        rc = wait_reply(c, MNCP_AUTH_OK, auth_req, -1, deadline, err, errlen);
    if (rc == MANA_COORD_OK) {
        uint8_t want[MNCP_SHA256_LEN];
        mncp_auth_proof(secret, 1, snonce, cnonce, want);
        if (mncp_dec_auth_ok(c->body, c->hdr.len, mac) < 0 || !same_mac(mac, want)) {
            coord_err(err, errlen, "the coordinator does not know the secret (its AUTH_OK proof is wrong)");
            rc = MANA_COORD_EPROTO;
        }
        mncp_wipe(want, sizeof want);
        mncp_wipe(mac, sizeof mac);
    }
    if (rc == MANA_COORD_OK)
        c->max_body = 0;       /* the coordinator proved the secret: the protocol's own limit */
    if (rc != MANA_COORD_OK)
        return rc;
    uint32_t hello_req = new_reqid(c);
    mncp_put_hdr(hello_at - MNCP_HDR_LEN, MNCP_HELLO, (uint32_t)hello_len, hello_req);
    rc = coord_send_all(c->fd, hello_at - MNCP_HDR_LEN, MNCP_HDR_LEN + (size_t)hello_len, deadline, err, errlen);
    if (rc == MANA_COORD_OK)
        rc = wait_reply(c, MNCP_WELCOME, hello_req, -1, deadline, err, errlen);
    return rc;
}

/* ---- API ---------------------------------------------------------------- */

mana_coord_t *mana_coord_connect(const struct mana_coord_addr *addr,
                                 const struct mana_coord_hello *hello,
                                 struct mana_coord_welcome *welcome,
                                 int timeout_ms, int *rcp, char *err, size_t errlen)
{
    int64_t deadline = coord_deadline(timeout_ms);
    int rc, dummy;
    if (!rcp)
        rcp = &dummy;

    if (!addr || !hello) {
        coord_err(err, errlen, "mana_coord_connect: missing address or hello");
        *rcp = MANA_COORD_EARG;
        return NULL;
    }
    struct mana_coord *c = calloc(1, sizeof *c);
    if (!c) {
        coord_err(err, errlen, "out of memory for the coordinator client");
        *rcp = MANA_COORD_EARG;
        return NULL;
    }
    c->fd = -1;
    const char *dbg = getenv("MANA_DEBUG");
    c->debug = dbg && *dbg;

    char host[256];
    const char *h = hello->host;
    if (!h) {
        if (gethostname(host, sizeof host) < 0)
            strcpy(host, "unknown");
        host[sizeof host - 1] = 0;
        h = host;
    }
    int32_t pid = hello->pid ? hello->pid : (int32_t)getpid();
    /* tx holds AUTH (header + 64 bytes) then HELLO (protocol §2). */
    uint8_t *hello_at = c->tx + 2 * MNCP_HDR_LEN + MNCP_NONCE_LEN + MNCP_SHA256_LEN;
    long len = mncp_enc_hello(hello_at, sizeof c->tx - (size_t)(hello_at - c->tx), hello, h, pid);
    if (len < 0) {
        coord_err(err, errlen, "HELLO field over the protocol's 4096-byte limit");
        rc = MANA_COORD_EARG;
        goto fail;
    }

    rc = coord_tcp_connect(addr->host, addr->port, deadline, &c->fd, err, errlen);
    if (rc != MANA_COORD_OK)
        goto fail;
    coord_log(c, "connected to %s:%u as rank %d of %d (fd %d)", addr->host, (unsigned)addr->port,
              (int)hello->rank, (int)hello->nranks, c->fd);

    rc = authenticate(c, addr->secret, hello_at, len, deadline, err, errlen);
    if (rc == MANA_COORD_TIMEOUT) {
        coord_err(err, errlen, "coordinator at %s:%u did not answer HELLO in time", addr->host,
                  (unsigned)addr->port);
        rc = MANA_COORD_ECONNECT;
    }
    if (rc != MANA_COORD_OK)
        goto fail;

    struct mana_coord_welcome wl;
    if (mncp_dec_welcome(c->body, c->hdr.len, &wl) < 0) {
        coord_err(err, errlen, "malformed WELCOME from the coordinator");
        rc = MANA_COORD_EPROTO;
        goto fail;
    }
    if (welcome)
        *welcome = wl;
    *rcp = MANA_COORD_OK;
    return c;

fail:
    *rcp = rc;
    mana_coord_close(c);
    return NULL;
}

int mana_coord_fd(const mana_coord_t *c)
{
    return c ? c->fd : -1;
}

int mana_coord_pending(const mana_coord_t *c)
{
    return c ? (int)c->qlen : 0;
}

int mana_coord_remote_code(const mana_coord_t *c)
{
    return c ? c->remote_code : 0;
}

int mana_coord_wait_event(mana_coord_t *c, int timeout_ms, struct mana_coord_event *ev,
                          char *err, size_t errlen)
{
    if (!c || !ev) {
        coord_err(err, errlen, "mana_coord_wait_event: bad arguments");
        return MANA_COORD_EARG;
    }
    if (c->qlen) {
        dequeue_at(c, 0, ev);
        return MANA_COORD_OK;
    }
    int rc = read_frame(c, coord_deadline(timeout_ms), err, errlen);
    if (rc != MANA_COORD_OK)
        return rc;
    uint16_t t = c->hdr.type;
    if (t == MNCP_ERROR)
        return remote_error(c, err, errlen);
    if (mncp_dec_event(t, c->body, c->hdr.len, ev) < 0) {
        coord_err(err, errlen, "unexpected or malformed message 0x%02x from the coordinator", t);
        return MANA_COORD_EPROTO;
    }
    return MANA_COORD_OK;
}

int mana_coord_collective(mana_coord_t *c, uint32_t generation, uint16_t phase,
                          enum mana_coord_op op, const int64_t *in, int64_t *out,
                          uint32_t count, int timeout_ms, char *err, size_t errlen)
{
    int64_t deadline = coord_deadline(timeout_ms);

    if (!c || (unsigned)op > MANA_COORD_MIN || count > MANA_COORD_MAX_VALUES ||
        (count && (!in || !out)) || (op == MANA_COORD_BARRIER && count)) {
        coord_err(err, errlen, "mana_coord_collective: bad arguments");
        return MANA_COORD_EARG;
    }
    /* An abort or kill that is already queued settles it without a send:
     * the coordinator will never complete this collective. */
    for (unsigned i = 0; i < c->qlen; i++) {
        const struct mana_coord_event *q = &c->q[(c->qhead + i) % COORD_QLEN];
        if (q->type == MANA_COORD_EV_KILL) {
            coord_err(err, errlen, "killed by the coordinator");
            dequeue_at(c, i, NULL);
            return MANA_COORD_KILLED;
        }
        if (q->type == MANA_COORD_EV_CKPT_ABORT && q->generation == generation) {
            coord_err(err, errlen, "checkpoint %u aborted: %s", (unsigned)generation, q->text);
            dequeue_at(c, i, NULL);
            return MANA_COORD_ABORTED;
        }
    }

    long len = mncp_enc_collective(TXB(c), generation, phase, (uint8_t)op, in, count);
    uint32_t req = new_reqid(c);
    int rc = send_tx(c, MNCP_COLLECTIVE, len, req, deadline, err, errlen);
    if (rc == MANA_COORD_OK)
        rc = wait_reply(c, MNCP_COLLECTIVE_DONE, req, generation, deadline, err, errlen);
    if (rc != MANA_COORD_OK)
        return rc;
    const char *why;
    if (mncp_dec_collective_done(c->body, c->hdr.len, generation, phase, (uint8_t)op, count, out,
                                 &why) < 0) {
        coord_err(err, errlen, "%s", why);
        return MANA_COORD_EPROTO;
    }
    return MANA_COORD_OK;
}

int mana_coord_barrier(mana_coord_t *c, uint32_t generation, uint16_t phase, int timeout_ms,
                       char *err, size_t errlen)
{
    return mana_coord_collective(c, generation, phase, MANA_COORD_BARRIER, NULL, NULL, 0,
                                 timeout_ms, err, errlen);
}

/* One-way reports are bounded by a generous fixed timeout: a coordinator
 * that does not read 64 KiB in 30 s is as good as gone. */
#define ONEWAY_MS 30000

int mana_coord_ckpt_written(mana_coord_t *c, uint32_t generation, uint64_t image_bytes,
                            uint64_t write_ns, const char *path, char *err, size_t errlen)
{
    if (!c)
        return MANA_COORD_EARG;
    long len = mncp_enc_ckpt_written(TXB(c), generation, image_bytes, write_ns, path);
    return send_tx(c, MNCP_CKPT_WRITTEN, len, 0, coord_deadline(ONEWAY_MS), err, errlen);
}

int mana_coord_ckpt_failed(mana_coord_t *c, uint32_t generation, const char *reason,
                           char *err, size_t errlen)
{
    if (!c)
        return MANA_COORD_EARG;
    long len = mncp_enc_ckpt_failed(TXB(c), generation, reason);
    return send_tx(c, MNCP_CKPT_FAILED, len, 0, coord_deadline(ONEWAY_MS), err, errlen);
}

int mana_coord_bye(mana_coord_t *c, uint8_t reason, int32_t status, char *err, size_t errlen)
{
    if (!c)
        return MANA_COORD_EARG;
    long len = mncp_enc_bye(TXB(c), reason, status);
    return send_tx(c, MNCP_BYE, len, 0, coord_deadline(ONEWAY_MS), err, errlen);
}

int mana_coord_kv_put(mana_coord_t *c, const char *key, const void *value, size_t vlen,
                      int timeout_ms, char *err, size_t errlen)
{
    int64_t deadline = coord_deadline(timeout_ms);
    if (!c || !key || (vlen && !value) || vlen > MANA_COORD_BLOB_MAX ||
        strlen(key) > MANA_COORD_STR_MAX) {
        coord_err(err, errlen, "mana_coord_kv_put: bad arguments");
        return MANA_COORD_EARG;
    }
    uint32_t req = new_reqid(c);
    size_t need = 2 + strlen(key) + 4 + vlen;
    int rc;
    if (need <= COORD_BUF) {
        rc = send_tx(c, MNCP_KV_PUT, mncp_enc_kv_put(TXB(c), key, value, vlen), req, deadline,
                     err, errlen);
    } else {
        /* Big values are rare (setup-time records): a temporary buffer. */
        uint8_t *b = malloc(MNCP_HDR_LEN + need);
        if (!b) {
            coord_err(err, errlen, "out of memory for a %zu-byte KV value", vlen);
            return MANA_COORD_EARG;
        }
        long len = mncp_enc_kv_put(b + MNCP_HDR_LEN, need, key, value, vlen);
        mncp_put_hdr(b, MNCP_KV_PUT, (uint32_t)len, req);
        rc = coord_send_all(c->fd, b, MNCP_HDR_LEN + need, deadline, err, errlen);
        free(b);
    }
    if (rc == MANA_COORD_OK)
        rc = wait_reply(c, MNCP_OK, req, -1, deadline, err, errlen);
    return rc;
}

int mana_coord_kv_get(mana_coord_t *c, const char *key, int wait, void *buf, size_t cap,
                      size_t *lenp, int *found, int timeout_ms, char *err, size_t errlen)
{
    int64_t deadline = coord_deadline(timeout_ms);
    if (!c || !key || !lenp || !found || (cap && !buf)) {
        coord_err(err, errlen, "mana_coord_kv_get: bad arguments");
        return MANA_COORD_EARG;
    }
    uint32_t req = new_reqid(c);
    int rc = send_tx(c, MNCP_KV_GET, mncp_enc_kv_get(TXB(c), key, (uint8_t)(wait != 0)), req,
                     deadline, err, errlen);
    if (rc == MANA_COORD_OK)
        rc = wait_reply(c, MNCP_KV_VALUE, req, -1, deadline, err, errlen);
    if (rc != MANA_COORD_OK)
        return rc;
    const uint8_t *v;
    uint32_t vl;
    if (mncp_dec_kv_value(c->body, c->hdr.len, found, &v, &vl) < 0) {
        coord_err(err, errlen, "malformed KV_VALUE from the coordinator");
        return MANA_COORD_EPROTO;
    }
    *lenp = vl;
    if (vl > cap) {
        coord_err(err, errlen, "KV value for '%s' is %u bytes, buffer holds %zu", key, vl, cap);
        return MANA_COORD_EARG;
    }
    if (vl)
        memcpy(buf, v, vl);
    return MANA_COORD_OK;
}

int mana_coord_set_interval(mana_coord_t *c, uint32_t seconds, int timeout_ms,
                            char *err, size_t errlen)
{
    int64_t deadline = coord_deadline(timeout_ms);
    if (!c)
        return MANA_COORD_EARG;
    struct mncp_w w;
    mncp_w_init(&w, TXB(c));
    mncp_w_u32(&w, seconds);
    uint32_t req = new_reqid(c);
    int rc = send_tx(c, MNCP_SET_INTERVAL, (long)w.len, req, deadline, err, errlen);
    if (rc == MANA_COORD_OK)
        rc = wait_reply(c, MNCP_OK, req, -1, deadline, err, errlen);
    return rc;
}

int mana_coord_checkpoint(mana_coord_t *c, uint8_t flags, struct mana_coord_ckpt_result *res,
                          int timeout_ms, char *err, size_t errlen)
{
    int64_t deadline = coord_deadline(timeout_ms);
    if (!c || !res)
        return MANA_COORD_EARG;
    struct mncp_w w;
    mncp_w_init(&w, TXB(c));
    mncp_w_u8(&w, flags);
    uint32_t req = new_reqid(c);
    int rc = send_tx(c, MNCP_CHECKPOINT, (long)w.len, req, deadline, err, errlen);
    /* CKPT_PROGRESS frames carry the same request id; skip them. */
    while (rc == MANA_COORD_OK) {
        rc = read_frame(c, deadline, err, errlen);
        if (rc != MANA_COORD_OK)
            break;
        if (c->hdr.type == MNCP_CKPT_PROGRESS)
            continue;
        if (c->hdr.type == MNCP_ERROR)
            return remote_error(c, err, errlen);
        if (c->hdr.type != MNCP_CKPT_RESULT || c->hdr.reqid != req) {
            coord_err(err, errlen, "unexpected message 0x%02x from the coordinator", c->hdr.type);
            return MANA_COORD_EPROTO;
        }
        if (mncp_dec_ckpt_result(c->body, c->hdr.len, res) < 0) {
            coord_err(err, errlen, "malformed CKPT_RESULT from the coordinator");
            return MANA_COORD_EPROTO;
        }
        if (!res->ok)
            coord_err(err, errlen, "checkpoint failed: %s", res->message);
        return MANA_COORD_OK;
    }
    return rc;
}

int mana_coord_list(mana_coord_t *c, struct mana_coord_rank_info *out, uint32_t cap, uint32_t *count,
                    int timeout_ms, char *err, size_t errlen)
{
    int64_t deadline = coord_deadline(timeout_ms);
    if (!c || !count || (cap && !out))
        return MANA_COORD_EARG;
    uint32_t req = new_reqid(c);
    int rc = send_tx(c, MNCP_LIST, 0, req, deadline, err, errlen);
    if (rc == MANA_COORD_OK)
        rc = wait_reply(c, MNCP_LIST_REPLY, req, -1, deadline, err, errlen);
    if (rc != MANA_COORD_OK)
        return rc;
    if (mncp_dec_list_reply(c->body, c->hdr.len, out, cap, count) < 0) {
        coord_err(err, errlen, "malformed LIST_REPLY from the coordinator");
        return MANA_COORD_EPROTO;
    }
    return MANA_COORD_OK;
}

void mana_coord_close(mana_coord_t *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);   /* nothing useful to do if close fails: the handle is gone */
    mana_coord_discard(c);
}

void mana_coord_discard(mana_coord_t *c)
{
    if (!c)
        return;
    free(c->big);
    free(c);
}

const char *mana_coord_rc_name(int rc)
{
    switch (rc) {
    case MANA_COORD_OK:       return "ok";
    case MANA_COORD_TIMEOUT:  return "timeout";
    case MANA_COORD_ABORTED:  return "checkpoint aborted";
    case MANA_COORD_KILLED:   return "killed";
    case MANA_COORD_EARG:     return "bad argument";
    case MANA_COORD_ECONNECT: return "cannot reach coordinator";
    case MANA_COORD_EIO:      return "coordinator connection lost";
    case MANA_COORD_EPROTO:   return "protocol error";
    case MANA_COORD_EREMOTE:  return "coordinator error";
    default:                  return "unknown";
    }
}
