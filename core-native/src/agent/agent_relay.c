/*
 * agent_relay.c - the node agent's work: accept the node's ranks (the coordinator's handshake, §2),
 * gather their HELLOs, register them upstream as one rank group (§4.8) and relay:
 *
 *   rank COLLECTIVE      -> once every live member contributed: one GROUP_COLLECTIVE with the
 *                           members' vectors reduced here -> COLLECTIVE_DONE to each with its own id
 *   rank CKPT_WRITTEN/FAILED, BYE -> GROUP_CKPT_WRITTEN/FAILED, GROUP_BYE (the last member: BYE)
 *   rank KV_PUT/KV_GET   -> forwarded under a request id of the agent's, the reply routed back
 *   CKPT_REQUEST, CKPT_ABORT, KILL, ERROR from the coordinator -> every member
 *   a rank that comes after the group was registered -> a connection of its own, passed through
 *
 * A member that disconnects without BYE during a checkpoint aborts it (GROUP_CKPT_FAILED, as a direct
 * disconnect would); the coordinator going away closes every member's connection, which is what a
 * rank sees today when its coordinator goes.  One thread, one poll() loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "coord_internal.h"

int agent_debug;

void agent_dbg(const char *fmt, ...)
{
    if (!agent_debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[mana agent %d] ", (int)getpid());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void agent_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mana_node_agent: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void agent_close(int fd, const char *what)
{
    if (fd >= 0 && close(fd) < 0)
        agent_dbg("close %s (fd %d): %s", what, fd, strerror(errno));
}

/* ---- frames ------------------------------------------------------------------------------ */

int agent_rx_next(struct agent_rx *rx, int fd, const char **why)
{
    for (;;) {
        size_t avail = rx->have - rx->start, want = MNCP_HDR_LEN;
        if (avail >= MNCP_HDR_LEN) {
            if (mncp_parse_hdr(rx->buf + rx->start, &rx->hdr, why) < 0)
                return -1;
            if (rx->hdr.len > rx->max_body) {
                *why = "frame too large";
                return -1;
            }
            want = MNCP_HDR_LEN + rx->hdr.len;
            if (avail >= want)
                return 1;
        }
        if (rx->drained) {           /* nothing more until poll() says so */
            rx->drained = 0;
            return 0;
        }
        /* room for the frame in progress, the partial frame moved to the front */
        if (rx->start) {
            memmove(rx->buf, rx->buf + rx->start, avail);
            rx->have = avail;
            rx->start = 0;
        }
        size_t room = rx->max_body > MNCP_PRE_AUTH_MAX && want < 65536 ? 65536 : want;
        if (rx->cap < room) {
            uint8_t *nb = realloc(rx->buf, room);
            if (!nb) {
                *why = "out of memory";
                return -1;
            }
            rx->buf = nb;
            rx->cap = room;
        }
        size_t ask = (rx->max_body > MNCP_PRE_AUTH_MAX ? rx->cap : want) - rx->have;
        ssize_t r = recv(fd, rx->buf + rx->have, ask, 0);
        if (r > 0) {
            rx->have += (size_t)r;
            rx->drained = (size_t)r < ask;
            continue;
        }
        if (r == 0) {
            *why = "closed";
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        *why = strerror(errno);
        return -1;
    }
}

void agent_rx_consume(struct agent_rx *rx)
{
    rx->start += MNCP_HDR_LEN + rx->hdr.len;
    if (rx->start >= rx->have)
        rx->start = rx->have = 0;
}

void agent_rx_free(struct agent_rx *rx)
{
    free(rx->buf);
    rx->buf = NULL;
    rx->cap = rx->have = rx->start = 0;
    rx->drained = 0;
}

int agent_send(int fd, uint16_t type, uint32_t reqid, const void *body, size_t len)
{
    /* Header and body in one send where they fit (two small writes on a TCP_NODELAY socket are two
     * packets; without NODELAY, Nagle and delayed ACKs made each relay hop ~40 ms). */
    static uint8_t frame[MNCP_HDR_LEN + 65536];
    int64_t dl = coord_deadline(AGENT_SEND_MS);
    char err[256];
    int rc;
    mncp_put_hdr(frame, type, (uint32_t)len, reqid);
    if (len <= sizeof frame - MNCP_HDR_LEN) {
        if (len)
            memcpy(frame + MNCP_HDR_LEN, body, len);
        rc = coord_send_all(fd, frame, MNCP_HDR_LEN + len, dl, err, sizeof err);
    } else {
        rc = coord_send_all(fd, frame, MNCP_HDR_LEN, dl, err, sizeof err);
        if (rc == MANA_COORD_OK)
            rc = coord_send_all(fd, body, len, dl, err, sizeof err);
    }
    if (rc != MANA_COORD_OK) {
        agent_dbg("send 0x%02x to fd %d: %s", type, fd, err);
        return -1;
    }
    return 0;
}

int agent_send_error(int fd, uint32_t reqid, uint16_t code, const char *msg)
{
    uint8_t b[1024];
    struct mncp_w w;
    mncp_w_init(&w, b, sizeof b);
    mncp_w_u16(&w, code);
    mncp_w_str(&w, msg);
    return w.bad ? -1 : agent_send(fd, MNCP_ERROR, reqid, b, w.len);
}

/* ---- state ------------------------------------------------------------------------------- */

/* M_PROXIED: a rank that came after the group was registered, carried on a connection of its own to
 * the coordinator (role 1, every frame passed on as it is). */
enum mstate { M_CHALLENGED, M_AUTHED, M_HELLOED, M_LIVE, M_LEFT, M_CLOSED, M_PROXIED };

/* One rank connection. */
struct member {
    int           fd;
    enum mstate   st;
    uint8_t       snonce[MNCP_NONCE_LEN];
    struct agent_rx rx;
    int           up_fd;           /* M_PROXIED: its own coordinator connection, else -1 */
    struct agent_rx up_rx;
    uint32_t      hello_req;
    /* its HELLO */
    char          job[MANA_COORD_STR_MAX + 1];
    int32_t       rank, nranks, pid;
    char          host[256], mpi[64];
    uint32_t      generation;
    uint8_t       restarting;
    char          ckptdir[MANA_COORD_STR_MAX + 1], program[MANA_COORD_STR_MAX + 1];
};

/* A collective being gathered (or sent upstream and awaiting its COLLECTIVE_DONE). */
#define AGENT_MAX_PENDING 16
struct pending {
    int       used, sent;
    uint32_t  gen;
    uint16_t  phase;
    uint8_t   op;
    uint32_t  count;
    int64_t   v[MANA_COORD_MAX_VALUES];
    uint32_t *req;           /* per member: its request id, 0 = not contributed */
    uint32_t  upreq;
};

/* A KV request forwarded upstream. */
#define AGENT_MAX_KV 1024
struct kvmap {
    uint32_t upreq;          /* 0 = free */
    int      m;
    uint32_t req;
};

struct agent {
    struct agent_cfg *cfg;
    int               lfd, ufd;
    struct agent_rx   urx;
    struct member    *m[AGENT_MAX_MEMBERS];
    int               nm;             /* members (connections that sent a HELLO we accepted) */
    int               nconn;          /* entries used in m[] */
    int               closed_group;   /* registration done: later HELLOs are refused */
    struct pending    pend[AGENT_MAX_PENDING];
    struct kvmap      kv[AGENT_MAX_KV];
    uint32_t          next_upreq;
    struct mana_coord_welcome welcome;
    int               ckpt_active;
    uint32_t          ckpt_gen;
    int64_t           aborted_gen;    /* -1: none */
    int               coord_gone;     /* the group's coordinator connection ended */
    uint8_t           out[MNCP_HDR_LEN + 65536];
};

static uint32_t upreq(struct agent *a)
{
    if (++a->next_upreq == 0)
        a->next_upreq = 1;
    return a->next_upreq;
}

static int live(const struct member *m)
{
    return m && m->st == M_LIVE;
}

static int live_count(const struct agent *a)
{
    int n = 0;
    for (int i = 0; i < a->nconn; i++)
        n += live(a->m[i]);
    return n;
}

static int proxied_count(const struct agent *a)
{
    int n = 0;
    for (int i = 0; i < a->nconn; i++)
        n += a->m[i]->st == M_PROXIED;
    return n;
}

static void member_close(struct agent *a, int i)
{
    struct member *m = a->m[i];
    agent_close(m->fd, "a rank's connection");
    agent_close(m->up_fd, "a rank's own coordinator connection");
    m->fd = m->up_fd = -1;
    agent_rx_free(&m->up_rx);
    agent_rx_free(&m->rx);
    m->st = M_CLOSED;
}

static int proxy_open(struct agent *a, struct member *m, const uint8_t *b, uint32_t n, uint32_t req);
static void member_leaves(struct agent *a, int i, const uint8_t *bye, uint32_t byelen);

/* ---- the handshake with a rank (§2), answered as the coordinator would ------------------------ */

static int accept_one(struct agent *a)
{
    int fd = accept4(a->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            agent_err("accept: %s", strerror(errno));
        return -1;
    }
    if (a->nconn >= AGENT_MAX_MEMBERS) {
        agent_send_error(fd, 0, MANA_COORD_RE_PROTOCOL, "node agent: too many connections");
        agent_close(fd, "a refused connection");
        return -1;
    }
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
        agent_dbg("TCP_NODELAY: %s", strerror(errno));
    struct member *m = calloc(1, sizeof *m);
    if (!m) {
        agent_close(fd, "a refused connection");
        return -1;
    }
    m->fd = fd;
    m->up_fd = -1;
    m->st = M_CHALLENGED;
    m->rx.max_body = MNCP_PRE_AUTH_MAX;
    if (getrandom(m->snonce, sizeof m->snonce, 0) != (ssize_t)sizeof m->snonce) {
        agent_err("getrandom: %s", strerror(errno));
        agent_close(fd, "a refused connection");
        free(m);
        return -1;
    }
    a->m[a->nconn++] = m;
    agent_dbg("connection %d accepted", a->nconn - 1);
    return agent_send(fd, MNCP_CHALLENGE, 0, m->snonce, sizeof m->snonce);
}

/* AUTH: check the rank's proof with the job secret, prove ours. */
static int on_auth(struct agent *a, struct member *m, const uint8_t *b, uint32_t n, uint32_t req)
{
    if (n < 2 * MNCP_NONCE_LEN)
        return agent_send_error(m->fd, req, MANA_COORD_RE_BAD_FRAME, "short AUTH"), -1;
    uint8_t want[MNCP_SHA256_LEN], mine[MNCP_SHA256_LEN];
    mncp_auth_proof(a->cfg->secret, 0, m->snonce, b, want);
    unsigned diff = 0;
    for (int i = 0; i < MNCP_SHA256_LEN; i++)
        diff |= (unsigned)(want[i] ^ b[MNCP_NONCE_LEN + i]);
    if (diff)
        return agent_send_error(m->fd, req, MANA_COORD_RE_AUTH, "wrong secret"), -1;
    mncp_auth_proof(a->cfg->secret, 1, m->snonce, b, mine);
    m->st = M_AUTHED;
    m->rx.max_body = MNCP_BODY_MAX;
    return agent_send(m->fd, MNCP_AUTH_OK, req, mine, sizeof mine);
}

/* HELLO of a rank (role 1 only: control clients talk to the coordinator itself). */
static int on_hello(struct agent *a, struct member *m, const uint8_t *b, uint32_t n, uint32_t req)
{
    struct mncp_r r;
    mncp_r_init(&r, b, n);
    uint8_t role = mncp_r_u8(&r);
    mncp_r_str(&r, m->job, sizeof m->job);
    if (role != MANA_COORD_ROLE_RANK)
        return agent_send_error(m->fd, req, MANA_COORD_RE_PROTOCOL,
                                "this is a node agent: it carries ranks only; control clients "
                                "connect to the coordinator itself"), -1;
    m->rank = (int32_t)mncp_r_u32(&r);
    m->nranks = (int32_t)mncp_r_u32(&r);
    mncp_r_str(&r, m->host, sizeof m->host);
    m->pid = (int32_t)mncp_r_u32(&r);
    mncp_r_str(&r, m->mpi, sizeof m->mpi);
    m->generation = mncp_r_u32(&r);
    m->restarting = mncp_r_u8(&r);
    mncp_r_str(&r, m->ckptdir, sizeof m->ckptdir);
    mncp_r_str(&r, m->program, sizeof m->program);
    if (r.bad)
        return agent_send_error(m->fd, req, MANA_COORD_RE_BAD_FRAME, "malformed HELLO"), -1;
    if (a->closed_group)
        return proxy_open(a, m, b, n, req);
    for (int i = 0; i < a->nconn; i++) {
        struct member *o = a->m[i];
        if (o == m || o->st != M_HELLOED)
            continue;
        if (strcmp(o->job, m->job) != 0 || o->nranks != m->nranks)
            return agent_send_error(m->fd, req, MANA_COORD_RE_MISMATCH,
                                    "node agent: job or nranks differs from the node's other ranks"), -1;
        if (o->rank == m->rank)
            return agent_send_error(m->fd, req, MANA_COORD_RE_DUPLICATE_RANK,
                                    "node agent: rank already registered"), -1;
    }
    m->hello_req = req;
    m->st = M_HELLOED;
    a->nm++;
    agent_dbg("rank %d of %d (pid %d) said HELLO (%d of %d)", (int)m->rank, (int)m->nranks, (int)m->pid,
              a->nm, a->cfg->expect);
    return 0;
}

/* ---- registration upstream --------------------------------------------------------------- */

static int up_handshake(struct agent *a, int *fdp, struct agent_rx *rx, int64_t dl, char *err, size_t errlen,
                        uint16_t *code);

/* Wait for one whole frame on an upstream socket (the handshakes only). */
static int up_wait_frame(int fd, struct agent_rx *rx, int64_t deadline, const char **why)
{
    for (;;) {
        int r = agent_rx_next(rx, fd, why);
        if (r != 0)
            return r;
        int64_t left = deadline - coord_now_ms();
        if (left <= 0) {
            *why = "timed out waiting for the coordinator";
            return -1;
        }
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
            *why = strerror(errno);
            return -1;
        }
    }
}

/* An ERROR frame from upstream as text. */
static void up_error_text(const uint8_t *b, uint32_t n, uint16_t *code, char *msg, size_t cap)
{
    if (mncp_dec_error(b, n, code, msg, cap) < 0) {
        *code = MANA_COORD_RE_PROTOCOL;
        snprintf(msg, cap, "malformed ERROR");
    }
}

/* Connect to the coordinator and authenticate (§2): *fdp and rx ready for the HELLO.  0, or -1 with
 * the reason in err (and *code the coordinator's ERROR code where it refused). */
static int up_handshake(struct agent *a, int *fdp, struct agent_rx *rx, int64_t dl, char *err, size_t errlen,
                        uint16_t *code)
{
    const char *why = "";
    *code = MANA_COORD_RE_PROTOCOL;
    if (coord_tcp_connect(a->cfg->coord_host, a->cfg->coord_port, dl, fdp, err, errlen) != MANA_COORD_OK)
        return -1;
    int fd = *fdp;
    rx->max_body = MNCP_PRE_AUTH_MAX;
    if (up_wait_frame(fd, rx, dl, &why) < 0 || rx->hdr.type != MNCP_CHALLENGE) {
        snprintf(err, errlen, "coordinator handshake: %s", rx->have ? "no CHALLENGE" : why);
        return -1;
    }
    uint8_t snonce[MNCP_NONCE_LEN], cnonce[MNCP_NONCE_LEN], mac[MNCP_SHA256_LEN], body[64];
    if (mncp_dec_challenge(AGENT_RX_BODY(rx), rx->hdr.len, snonce) < 0 ||
        getrandom(cnonce, sizeof cnonce, 0) != (ssize_t)sizeof cnonce) {
        snprintf(err, errlen, "coordinator handshake: bad CHALLENGE");
        return -1;
    }
    agent_rx_consume(rx);
    mncp_auth_proof(a->cfg->secret, 0, snonce, cnonce, mac);
    long len = mncp_enc_auth(body, sizeof body, cnonce, mac);
    if (len < 0 || agent_send(fd, MNCP_AUTH, upreq(a), body, (size_t)len) < 0 ||
        up_wait_frame(fd, rx, dl, &why) < 0) {
        snprintf(err, errlen, "coordinator handshake: %s", why);
        return -1;
    }
    if (rx->hdr.type == MNCP_ERROR) {
        up_error_text(AGENT_RX_BODY(rx), rx->hdr.len, code, err, errlen);
        return -1;
    }
    uint8_t theirs[MNCP_SHA256_LEN];
    mncp_auth_proof(a->cfg->secret, 1, snonce, cnonce, mac);
    if (rx->hdr.type != MNCP_AUTH_OK ||
        mncp_dec_auth_ok(AGENT_RX_BODY(rx), rx->hdr.len, theirs) < 0 ||
        memcmp(theirs, mac, sizeof mac) != 0) {
        snprintf(err, errlen, "the coordinator did not prove it knows the job secret");
        return -1;
    }
    agent_rx_consume(rx);
    rx->max_body = MNCP_BODY_MAX;
    return 0;
}

/* Connect, authenticate and register the gathered members as one group.  0, or -1 with the reason in
 * err, and with *code the coordinator's ERROR code where it refused. */
static int register_group(struct agent *a, char *err, size_t errlen, uint16_t *code)
{
    const char *why = "";
    int64_t dl = coord_deadline(15000);
    if (up_handshake(a, &a->ufd, &a->urx, dl, err, errlen, code) < 0)
        return -1;

    /* The group HELLO: every gathered member's record (§4.8). */
    size_t cap = MNCP_BODY_MAX;
    uint8_t *hb = malloc(cap);
    if (!hb) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct mncp_w w;
    struct member *first = NULL;
    mncp_w_init(&w, hb, cap);
    for (int i = 0; i < a->nconn && !first; i++)
        if (a->m[i]->st == M_HELLOED)
            first = a->m[i];
    mncp_w_u8(&w, 3);
    mncp_w_str(&w, first->job);
    mncp_w_u32(&w, (uint32_t)first->nranks);
    mncp_w_u32(&w, (uint32_t)a->nm);
    for (int i = 0; i < a->nconn; i++) {
        struct member *m = a->m[i];
        if (m->st != M_HELLOED)
            continue;
        mncp_w_u32(&w, (uint32_t)m->rank);
        mncp_w_str(&w, m->host);
        mncp_w_u32(&w, (uint32_t)m->pid);
        mncp_w_str(&w, m->mpi);
        mncp_w_u32(&w, m->generation);
        mncp_w_u8(&w, m->restarting);
        mncp_w_str(&w, m->ckptdir);
        mncp_w_str(&w, m->program);
    }
    int bad = w.bad || agent_send(a->ufd, MNCP_HELLO, upreq(a), hb, w.len) < 0;
    free(hb);
    if (bad || up_wait_frame(a->ufd, &a->urx, dl, &why) < 0) {
        snprintf(err, errlen, "group HELLO: %s", bad ? "cannot send it" : why);
        return -1;
    }
    if (a->urx.hdr.type == MNCP_ERROR) {
        up_error_text(AGENT_RX_BODY(&a->urx), a->urx.hdr.len, code, err, errlen);
        return -1;
    }
    if (a->urx.hdr.type != MNCP_WELCOME ||
        mncp_dec_welcome(AGENT_RX_BODY(&a->urx), a->urx.hdr.len, &a->welcome) < 0) {
        snprintf(err, errlen, "group HELLO: no WELCOME (message 0x%02x)", a->urx.hdr.type);
        return -1;
    }
    agent_rx_consume(&a->urx);
    return 0;
}

/* A rank that comes after the group was registered (later than the gathering's bound, more ranks than
 * expected, a program that re-registers): carried on a connection of its own, its HELLO and every later
 * frame passed on unchanged both ways, so the coordinator sees it as a direct rank.  0, or -1 (the rank
 * got an ERROR; the caller closes it). */
static int proxy_open(struct agent *a, struct member *m, const uint8_t *b, uint32_t n, uint32_t req)
{
    char err[512];
    uint16_t code;
    if (up_handshake(a, &m->up_fd, &m->up_rx, coord_deadline(5000), err, sizeof err, &code) < 0 ||
        agent_send(m->up_fd, MNCP_HELLO, req, b, n) < 0) {
        agent_err("rank %d: %s", (int)m->rank, err);
        agent_send_error(m->fd, req, code, err);
        return -1;
    }
    m->st = M_PROXIED;
    agent_err("rank %d came after the node's group of %d ranks was registered: carried on its own "
              "connection (MANA_AGENT_RANKS, MANA_AGENT_GATHER_MS)", (int)m->rank, a->nm);
    return 0;
}

/* Every gathered member gets the group's WELCOME (or the coordinator's refusal) as its answer. */
static void answer_hellos(struct agent *a, int ok, uint16_t code, const char *msg)
{
    uint8_t b[MANA_COORD_STR_MAX + 64];
    struct mncp_w w;
    mncp_w_init(&w, b, sizeof b);
    mncp_w_u32(&w, a->welcome.client_id);
    mncp_w_u32(&w, a->welcome.generation);
    mncp_w_u32(&w, a->welcome.interval);
    mncp_w_str(&w, a->welcome.job);
    for (int i = 0; i < a->nconn; i++) {
        struct member *m = a->m[i];
        if (m->st != M_HELLOED)
            continue;
        if (ok) {
            /* registered upstream either way: one that cannot be told leaves as by a disconnect */
            m->st = M_LIVE;
            if (agent_send(m->fd, MNCP_WELCOME, m->hello_req, b, w.len) < 0)
                member_leaves(a, i, NULL, 0);
            continue;
        }
        agent_send_error(m->fd, m->hello_req, code, msg);
        member_close(a, i);
    }
}

/* ---- relaying: collectives ---------------------------------------------------------------- */

static struct pending *pend_find(struct agent *a, uint32_t gen, uint16_t phase, int sent)
{
    for (int i = 0; i < AGENT_MAX_PENDING; i++) {
        struct pending *p = &a->pend[i];
        if (p->used && p->sent == sent && p->gen == gen && p->phase == phase)
            return p;
    }
    return NULL;
}

static void pend_free(struct pending *p)
{
    p->used = p->sent = 0;
    memset(p->req, 0, AGENT_MAX_MEMBERS * sizeof *p->req);
}

/* Fold one member's vector into the gathered one. */
static void reduce(struct pending *p, const uint8_t *vals, int first)
{
    for (uint32_t k = 0; k < p->count; k++) {
        int64_t x;
        uint64_t u = 0;
        for (int j = 7; j >= 0; j--)
            u = (u << 8) | vals[8 * k + (unsigned)j];
        memcpy(&x, &u, sizeof x);
        if (first) {
            p->v[k] = x;
            continue;
        }
        switch (p->op) {
        case MANA_COORD_SUM: p->v[k] = (int64_t)((uint64_t)p->v[k] + (uint64_t)x); break;
        case MANA_COORD_MAX: if (x > p->v[k]) p->v[k] = x; break;
        case MANA_COORD_MIN: if (x < p->v[k]) p->v[k] = x; break;
        case MANA_COORD_OR:  p->v[k] |= x; break;
        default: break;
        }
    }
}

/* A gathered collective goes upstream once every live member is in it. */
static void pend_maybe_send(struct agent *a, struct pending *p)
{
    int n = 0;
    for (int i = 0; i < a->nconn; i++) {
        if (!live(a->m[i]))
            continue;
        if (!p->req[i])
            return;
        n++;
    }
    if (n == 0)
        return;
    struct mncp_w w;
    mncp_w_init(&w, a->out, sizeof a->out);
    mncp_w_u32(&w, p->gen);
    mncp_w_u16(&w, p->phase);
    mncp_w_u8(&w, p->op);
    mncp_w_u8(&w, 0);
    mncp_w_u32(&w, (uint32_t)n);
    mncp_w_u32(&w, p->count);
    for (uint32_t k = 0; k < p->count; k++)
        mncp_w_u64(&w, (uint64_t)p->v[k]);
    p->upreq = upreq(a);
    p->sent = 1;
    agent_dbg("GROUP_COLLECTIVE gen %u phase %u op %u members %d", p->gen, p->phase, p->op, n);
    if (agent_send(a->ufd, 0x12 /* GROUP_COLLECTIVE */, p->upreq, a->out, w.len) < 0)
        agent_dbg("upstream send failed (the poll loop sees the close)");
}

/* A reply (same body to each) to every contributor of p, with its own request id. */
static void pend_fanout(struct agent *a, struct pending *p, uint16_t type, const uint8_t *b, uint32_t n)
{
    for (int i = 0; i < a->nconn; i++)
        if (p->req[i] && a->m[i]->fd >= 0)
            agent_send(a->m[i]->fd, type, p->req[i], b, n);
}

static void on_collective(struct agent *a, int i, const uint8_t *b, uint32_t n, uint32_t req)
{
    struct member *m = a->m[i];
    struct mncp_r r;
    mncp_r_init(&r, b, n);
    uint32_t gen = mncp_r_u32(&r);
    uint16_t phase = mncp_r_u16(&r);
    uint8_t op = mncp_r_u8(&r);
    (void)mncp_r_u8(&r);
    uint32_t count = mncp_r_u32(&r);
    if (r.bad || count > MANA_COORD_MAX_VALUES || r.len - r.off < (size_t)count * 8) {
        agent_send_error(m->fd, req, MANA_COORD_RE_BAD_FRAME, "malformed COLLECTIVE");
        member_leaves(a, i, NULL, 0);      /* the coordinator hears of it as of a disconnect */
        return;
    }
    if (op > MANA_COORD_MIN) {
        agent_send_error(m->fd, req, MANA_COORD_RE_PROTOCOL, "unknown collective op");
        return;
    }
    /* a late contribution to a checkpoint already aborted: the coordinator's answer (§4.2) */
    if (a->aborted_gen == (int64_t)gen && phase >= 1 && phase <= 31 &&
        !(a->ckpt_active && a->ckpt_gen == gen)) {
        uint8_t ab[64];
        struct mncp_w w;
        mncp_w_init(&w, ab, sizeof ab);
        mncp_w_u32(&w, gen);
        mncp_w_str(&w, "checkpoint aborted");
        agent_send(m->fd, MNCP_CKPT_ABORT, req, ab, w.len);
        return;
    }
    struct pending *p = pend_find(a, gen, phase, 0);
    if (!p) {
        for (int k = 0; k < AGENT_MAX_PENDING && !p; k++)
            if (!a->pend[k].used)
                p = &a->pend[k];
        if (!p) {
            agent_send_error(m->fd, req, MANA_COORD_RE_BUSY, "node agent: too many collectives pending");
            return;
        }
        p->used = 1;
        p->gen = gen;
        p->phase = phase;
        p->op = op;
        p->count = count;
        reduce(p, b + r.off, 1);
    } else if (p->req[i]) {
        agent_send_error(m->fd, req, MANA_COORD_RE_PROTOCOL, "collective repeated by this rank");
        return;
    } else if (p->op != op || p->count != count) {
        /* as the coordinator: MISMATCH for every participant */
        p->req[i] = req;
        for (int k = 0; k < a->nconn; k++)
            if (p->req[k] && a->m[k]->fd >= 0)
                agent_send_error(a->m[k]->fd, p->req[k], MANA_COORD_RE_MISMATCH,
                                 "collective op or count differs between ranks");
        pend_free(p);
        return;
    } else {
        reduce(p, b + r.off, 0);
    }
    p->req[i] = req;
    pend_maybe_send(a, p);
}

/* ---- relaying: everything else a member sends --------------------------------------------- */

/* GROUP_ variant: the member's rank, then the rank message's own body. */
static void send_group_variant(struct agent *a, uint16_t type, int32_t rank, const uint8_t *b, uint32_t n)
{
    if (n + 4 > sizeof a->out)
        return;
    struct mncp_w w;
    mncp_w_init(&w, a->out, sizeof a->out);
    mncp_w_u32(&w, (uint32_t)rank);
    mncp_w_bytes(&w, b, n);
    /* a request id of the agent's: an ERROR the coordinator answers it with (a rank it does not count
     * as a live member, §4.8) is then told apart from an unsolicited one, which goes to every member */
    agent_send(a->ufd, type, upreq(a), a->out, w.len);
}

/* A member leaves: by BYE (bye != NULL, its body) or by disconnecting.  The last one to leave takes
 * the group with it: a plain BYE (or, for a disconnect, the close of the group connection). */
static void member_leaves(struct agent *a, int i, const uint8_t *bye, uint32_t byelen)
{
    struct member *m = a->m[i];
    if (m->st != M_LIVE) {
        member_close(a, i);
        return;
    }
    m->st = M_LEFT;
    int left = live_count(a);
    agent_dbg("rank %d leaves (%s), %d live", (int)m->rank, bye ? "BYE" : "disconnect", left);
    if (!bye && a->ckpt_active) {
        char why[128];
        uint8_t b[256];
        struct mncp_w w;
        snprintf(why, sizeof why, "rank %d disconnected from the node agent during the checkpoint", (int)m->rank);
        mncp_w_init(&w, b, sizeof b);
        mncp_w_u32(&w, a->ckpt_gen);
        mncp_w_str(&w, why);
        send_group_variant(a, 0x16 /* GROUP_CKPT_FAILED */, m->rank, b, w.len);
    }
    if (left == 0) {
        if (bye)
            agent_send(a->ufd, MNCP_BYE, 0, bye, byelen);
        /* a disconnect: closing the group connection is the members' disconnect (§4.8) */
        agent_close(a->ufd, "the group's coordinator connection");
        a->ufd = -1;
    } else {
        uint8_t b[8] = {0};          /* reason 0, status 0 for a disconnect */
        send_group_variant(a, 0x31 /* GROUP_BYE */, m->rank, bye ? bye : b, bye ? byelen : 5);
        /* collectives the others were waiting on may now be complete */
        for (int k = 0; k < AGENT_MAX_PENDING; k++)
            if (a->pend[k].used && !a->pend[k].sent)
                pend_maybe_send(a, &a->pend[k]);
    }
    if (!bye)
        member_close(a, i);
}

static void forward_kv(struct agent *a, int i, uint16_t type, const uint8_t *b, uint32_t n, uint32_t req)
{
    struct kvmap *k = NULL;
    for (int j = 0; j < AGENT_MAX_KV && !k; j++)
        if (!a->kv[j].upreq)
            k = &a->kv[j];
    if (!k) {
        agent_send_error(a->m[i]->fd, req, MANA_COORD_RE_BUSY, "node agent: too many requests pending");
        return;
    }
    k->upreq = upreq(a);
    k->m = i;
    k->req = req;
    agent_send(a->ufd, type, k->upreq, b, n);
}

/* One whole frame from a member. */
static void on_member_frame(struct agent *a, int i)
{
    struct member *m = a->m[i];
    const uint8_t *b = AGENT_RX_BODY(&m->rx);
    uint32_t n = m->rx.hdr.len, req = m->rx.hdr.reqid;
    uint16_t t = m->rx.hdr.type;
    if (m->st == M_CHALLENGED) {
        if (t != MNCP_AUTH) {
            agent_send_error(m->fd, req, MANA_COORD_RE_PROTOCOL, "AUTH first");
            member_close(a, i);
        } else if (on_auth(a, m, b, n, req) < 0)
            member_close(a, i);
        return;
    }
    if (m->st == M_AUTHED) {
        if (t != MNCP_HELLO) {
            agent_send_error(m->fd, req, MANA_COORD_RE_PROTOCOL, "HELLO first");
            member_close(a, i);
        } else if (on_hello(a, m, b, n, req) < 0)
            member_close(a, i);
        return;
    }
    if (m->st == M_PROXIED) {
        if (agent_send(m->up_fd, t, req, b, n) < 0)
            member_close(a, i);
        return;
    }
    if (m->st != M_LIVE)
        return;                    /* HELLOED (waiting for WELCOME) or LEFT: nothing expected */
    switch (t) {
    case MNCP_COLLECTIVE:   on_collective(a, i, b, n, req); break;
    case MNCP_CKPT_WRITTEN: send_group_variant(a, 0x15 /* GROUP_CKPT_WRITTEN */, m->rank, b, n); break;
    case MNCP_CKPT_FAILED:  send_group_variant(a, 0x16 /* GROUP_CKPT_FAILED */, m->rank, b, n); break;
    case MNCP_BYE:
        if (n < 5) {
            agent_send_error(m->fd, req, MANA_COORD_RE_BAD_FRAME, "malformed BYE");
            member_leaves(a, i, NULL, 0);
        } else
            member_leaves(a, i, b, n);
        break;
    case MNCP_KV_PUT:
    case MNCP_KV_GET:       forward_kv(a, i, t, b, n, req); break;
    default:
        agent_send_error(m->fd, req, MANA_COORD_RE_PROTOCOL, "message not allowed for a rank");
        member_leaves(a, i, NULL, 0);
    }
}

/* ---- relaying: what the coordinator sends ------------------------------------------------- */

static void fanout_all(struct agent *a, uint16_t type, const uint8_t *b, uint32_t n)
{
    for (int i = 0; i < a->nconn; i++)
        if (live(a->m[i]))
            agent_send(a->m[i]->fd, type, 0, b, n);
}

static void on_upstream_frame(struct agent *a)
{
    const uint8_t *b = AGENT_RX_BODY(&a->urx);
    uint32_t n = a->urx.hdr.len, req = a->urx.hdr.reqid;
    uint16_t t = a->urx.hdr.type;
    struct pending *p = NULL;
    for (int k = 0; req && k < AGENT_MAX_PENDING && !p; k++)
        if (a->pend[k].used && a->pend[k].sent && a->pend[k].upreq == req)
            p = &a->pend[k];
    struct kvmap *kv = NULL;
    for (int k = 0; req && !p && k < AGENT_MAX_KV && !kv; k++)
        if (a->kv[k].upreq == req)
            kv = &a->kv[k];
    agent_dbg("upstream 0x%02x req %u len %u", t, req, n);
    if (t == MNCP_CKPT_REQUEST && n >= 4) {
        a->ckpt_active = 1;
        a->ckpt_gen = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        fanout_all(a, t, b, n);
        return;
    }
    if (t == MNCP_CKPT_ABORT && n >= 4) {
        uint32_t g = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        if (a->ckpt_active && a->ckpt_gen == g)
            a->ckpt_active = 0;
        a->aborted_gen = g;
        if (p) {                            /* the answer to one late collective */
            pend_fanout(a, p, t, b, n);
            pend_free(p);
            return;
        }
        fanout_all(a, t, b, n);
        for (int k = 0; k < AGENT_MAX_PENDING; k++)   /* every member has the abort: nothing waits */
            if (a->pend[k].used && a->pend[k].gen == g)
                pend_free(&a->pend[k]);
        return;
    }
    if (t == MNCP_KILL) {
        fanout_all(a, t, b, n);
        return;
    }
    if (p && (t == MNCP_COLLECTIVE_DONE || t == MNCP_ERROR)) {
        if (t == MNCP_COLLECTIVE_DONE && p->phase == MANA_PHASE_COMMITTED && a->ckpt_gen == p->gen)
            a->ckpt_active = 0;
        pend_fanout(a, p, t, b, n);
        pend_free(p);
        return;
    }
    if (kv) {
        if (a->m[kv->m]->fd >= 0)
            agent_send(a->m[kv->m]->fd, t, kv->req, b, n);
        kv->upreq = 0;
        return;
    }
    if (t == MNCP_ERROR && req == 0) {      /* unsolicited: every member, as the coordinator closes */
        fanout_all(a, t, b, n);
        return;
    }
    if (t == MNCP_ERROR) {                  /* the answer to a one-way report of the agent's */
        uint16_t code;
        char msg[512];
        up_error_text(b, n, &code, msg, sizeof msg);
        agent_err("the coordinator refused a report of this node's ranks: error %u: %s", (unsigned)code, msg);
        return;
    }
    agent_dbg("ignored message 0x%02x (request id %u) from the coordinator", t, req);
}

/* ---- the loop ---------------------------------------------------------------------------- */

/* Read and handle what one member sent; closes it on EOF or a protocol error. */
static void member_readable(struct agent *a, int i)
{
    struct member *m = a->m[i];
    for (;;) {
        const char *why = "";
        int r = agent_rx_next(&m->rx, m->fd, &why);
        if (r == 0)
            return;
        if (r < 0) {
            agent_dbg("member %d: %s", i, why);
            if (m->st == M_HELLOED)
                a->nm--;
            member_leaves(a, i, NULL, 0);
            return;
        }
        on_member_frame(a, i);
        if (m->fd < 0)
            return;
        agent_rx_consume(&m->rx);
    }
}

/* Handle every frame the group's coordinator connection has (read or already buffered).  -1 when it
 * ended: the coordinator is gone. */
static int upstream_readable(struct agent *a)
{
    while (a->ufd >= 0) {            /* -1 once the group left (its last member's BYE or disconnect) */
        const char *why = "";
        int u = agent_rx_next(&a->urx, a->ufd, &why);
        if (u == 0)
            return 0;
        if (u < 0) {
            agent_dbg("coordinator connection: %s", why);
            a->coord_gone = 1;
            return -1;
        }
        on_upstream_frame(a);
        agent_rx_consume(&a->urx);
    }
    return 0;
}

/* What the coordinator sends a proxied rank goes to it unchanged; its end ends the rank's connection. */
static void proxy_readable(struct agent *a, int i)
{
    struct member *m = a->m[i];
    while (m->up_fd >= 0) {
        const char *why = "";
        int r = agent_rx_next(&m->up_rx, m->up_fd, &why);
        if (r == 0)
            return;
        if (r < 0 || agent_send(m->fd, m->up_rx.hdr.type, m->up_rx.hdr.reqid, AGENT_RX_BODY(&m->up_rx),
                                m->up_rx.hdr.len) < 0) {
            agent_dbg("proxied rank %d: %s", (int)m->rank, r < 0 ? why : "cannot send to the rank");
            member_close(a, i);
            return;
        }
        agent_rx_consume(&m->up_rx);
    }
}

/* poll() over the listener, the members, proxied ranks' coordinator connections and (once registered)
 * the group's.  Returns -1 when the group's coordinator connection ended (the coordinator is gone),
 * else 0 after timeout_ms or one round of events. */
static int poll_round(struct agent *a, int timeout_ms)
{
    static struct pollfd pfd[2 * AGENT_MAX_MEMBERS + 2];
    static int idx[2 * AGENT_MAX_MEMBERS + 2];
    int np = 0;
    pfd[np] = (struct pollfd){a->lfd, POLLIN, 0};
    idx[np++] = -1;
    if (a->ufd >= 0) {
        pfd[np] = (struct pollfd){a->ufd, POLLIN, 0};
        idx[np++] = -2;
    }
    for (int i = 0; i < a->nconn; i++) {
        if (a->m[i]->fd >= 0) {
            pfd[np] = (struct pollfd){a->m[i]->fd, POLLIN, 0};
            idx[np++] = i;
        }
        if (a->m[i]->up_fd >= 0) {
            pfd[np] = (struct pollfd){a->m[i]->up_fd, POLLIN, 0};
            idx[np++] = -3 - i;
        }
    }
    int r = poll(pfd, (nfds_t)np, timeout_ms);
    if (r < 0) {
        if (errno != EINTR)
            agent_err("poll: %s", strerror(errno));
        return 0;
    }
    for (int k = 0; k < np && r > 0; k++) {
        if (!pfd[k].revents)
            continue;
        if (idx[k] == -1)
            accept_one(a);
        else if (idx[k] == -2) {
            if (upstream_readable(a) < 0)
                return -1;
        } else if (idx[k] <= -3) {
            proxy_readable(a, -3 - idx[k]);
        } else if (a->m[idx[k]]->fd >= 0)
            member_readable(a, idx[k]);
    }
    return 0;
}

/* Gather HELLOs until the expected number is in or the bound runs out. */
static void gather(struct agent *a)
{
    int64_t end = coord_deadline(a->cfg->gather_ms);
    while (a->nm < a->cfg->expect) {
        int64_t left = end - coord_now_ms();
        if (left <= 0)
            break;
        poll_round(a, (int)(left > 100 ? 100 : left));
    }
    if (a->nm < a->cfg->expect)
        agent_err("%d of %d local ranks registered within %d ms: carrying those (MANA_AGENT_RANKS, "
                  "MANA_AGENT_GATHER_MS)", a->nm, a->cfg->expect, a->cfg->gather_ms);
}

int agent_run(struct agent_cfg *cfg, int listen_fd)
{
    static struct agent ag;             /* 1+ MiB: not on the stack */
    struct agent *a = &ag;
    a->cfg = cfg;
    a->lfd = listen_fd;
    a->ufd = -1;
    a->aborted_gen = -1;
    agent_debug = cfg->debug;
    for (int k = 0; k < AGENT_MAX_PENDING; k++) {
        a->pend[k].req = calloc(AGENT_MAX_MEMBERS, sizeof *a->pend[k].req);
        if (!a->pend[k].req) {
            agent_err("out of memory");
            return 1;
        }
    }
    gather(a);
    if (a->nm == 0) {
        agent_err("no rank connected within %d ms", cfg->gather_ms);
        return 1;
    }
    char err[1024] = "";
    uint16_t code = 0;
    int ok = register_group(a, err, sizeof err, &code) == 0;
    a->closed_group = 1;
    if (!ok)
        agent_err("cannot register the node's %d ranks with the coordinator at %s:%u: %s", a->nm,
                  cfg->coord_host, (unsigned)cfg->coord_port, err);
    answer_hellos(a, ok, code, err);
    if (!ok)
        return 1;
    agent_dbg("registered %d ranks as client %u", a->nm, a->welcome.client_id);
    /* what came behind the WELCOME in the same read (poll() would not say it is there) */
    upstream_readable(a);            /* the coordinator gone already: coord_gone, the loop is skipped */
    while (!a->coord_gone && (live_count(a) > 0 || a->ufd >= 0 || proxied_count(a) > 0)) {
        if (poll_round(a, 1000) < 0)
            break;
    }
    /* the coordinator went away, or the group left: every member's connection ends */
    for (int i = 0; i < a->nconn; i++)
        if (a->m[i]->fd >= 0)
            member_close(a, i);
    if (a->ufd >= 0)
        agent_close(a->ufd, "the group's coordinator connection");
    agent_dbg("group left; exiting");
    return 0;
}
