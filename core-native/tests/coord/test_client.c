/*
 * test_client.c - the client against a scripted fake coordinator (a forked
 * child on a loopback port).  Each scenario: the child accepts, plays its
 * script, and exits 0 if what it received was right; the parent drives the
 * client and checks return codes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mncp.h"

/* ---- fake coordinator side ---------------------------------------------- */

static int srv;                     /* accepted connection in the child */
static uint8_t body[2 * 1024 * 1024];

static int readn(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Read one frame; returns its type, or -1 on EOF. */
static int srv_read(struct mncp_hdr *h)
{
    uint8_t hb[16];
    const char *why;
    if (readn(srv, hb, 16) < 0 || mncp_parse_hdr(hb, h, &why) < 0 || readn(srv, body, h->len) < 0)
        return -1;
    return h->type;
}

static void srv_send_raw(const void *p, size_t n)
{
    if (write(srv, p, n) != (ssize_t)n)
        _exit(90);
}

static void srv_send(uint16_t type, uint32_t reqid, const struct mncp_w *w)
{
    uint8_t hb[16];
    mncp_put_hdr(hb, type, w ? (uint32_t)w->len : 0, reqid);
    srv_send_raw(hb, 16);
    if (w && w->len)
        srv_send_raw(w->buf, w->len);
}

static uint8_t wb[2 * 1024 * 1024];

static void srv_welcome(uint32_t reqid)
{
    struct mncp_w w;
    mncp_w_init(&w, wb, sizeof wb);
    mncp_w_u32(&w, 11); mncp_w_u32(&w, 4); mncp_w_u32(&w, 0); mncp_w_str(&w, "default");
    srv_send(MNCP_WELCOME, reqid, &w);
}

static const uint8_t srv_nonce[MNCP_NONCE_LEN] = "the fake coordinator's nonce...";

/*
 * The handshake of protocol §2 as a coordinator plays it: CHALLENGE, then
 * AUTH checked against "sekrit".  how: 0 = answer AUTH_OK with the right
 * proof, 1 = refuse with ERROR AUTH, 2 = answer with a wrong proof (a
 * coordinator that does not know the secret).  Returns the AUTH's check:
 * 0 when the client's proof was right.
 */
static int srv_auth(int how)
{
    struct mncp_hdr h;
    struct mncp_w w;
    mncp_w_init(&w, wb, sizeof wb);
    mncp_w_bytes(&w, srv_nonce, sizeof srv_nonce);
    srv_send(MNCP_CHALLENGE, 0, &w);
    if (srv_read(&h) != MNCP_AUTH || h.len != 64)
        return -1;
    uint8_t want[32], cnonce[32];
    memcpy(cnonce, body, 32);
    mncp_auth_proof("sekrit", 0, srv_nonce, cnonce, want);
    int ok = memcmp(want, body + 32, 32) == 0 ? 0 : -1;
    mncp_w_init(&w, wb, sizeof wb);
    if (how == 1) {
        mncp_w_u16(&w, 3);
        mncp_w_str(&w, "authentication failed");
        srv_send(MNCP_ERROR, h.reqid, &w);
        return ok;
    }
    mncp_auth_proof(how == 2 ? "other" : "sekrit", 1, srv_nonce, cnonce, want);
    mncp_w_bytes(&w, want, 32);
    srv_send(MNCP_AUTH_OK, h.reqid, &w);
    return ok;
}

/* Expect AUTH, then HELLO with the test's fields; answer WELCOME. */
static int srv_hello(void)
{
    struct mncp_hdr h;
    if (srv_auth(0) < 0 || srv_read(&h) != MNCP_HELLO)
        return -1;
    /* the secret is nowhere in what the client sent */
    if (memmem(body, h.len, "sekrit", 6))
        return -1;
    struct mncp_r r;
    char job[64], host[64], mpi[64], dir[64], prog[64];
    mncp_r_init(&r, body, h.len);
    uint8_t role = mncp_r_u8(&r);
    mncp_r_str(&r, job, sizeof job);
    int32_t rank = (int32_t)mncp_r_u32(&r), nranks = (int32_t)mncp_r_u32(&r);
    mncp_r_str(&r, host, sizeof host);
    int32_t pid = (int32_t)mncp_r_u32(&r);
    mncp_r_str(&r, mpi, sizeof mpi);
    uint32_t gen = mncp_r_u32(&r);
    uint8_t rs = mncp_r_u8(&r);
    mncp_r_str(&r, dir, sizeof dir);
    mncp_r_str(&r, prog, sizeof prog);
    if (r.bad || r.off != h.len || role != 1 || strcmp(job, "jobA") ||
        rank != 1 || nranks != 2 || strcmp(host, "hostX") || pid != (int32_t)getppid() ||
        strcmp(mpi, "none") || gen != 0 || rs != 0 || strcmp(dir, "/tmp/ck") || strcmp(prog, "/bin/true"))
        return -1;
    srv_welcome(h.reqid);
    return 0;
}

static void srv_collective_done(uint32_t reqid, uint32_t gen, uint16_t ph, uint8_t op,
                                uint32_t cnt, const int64_t *v)
{
    struct mncp_w w;
    mncp_w_init(&w, wb, sizeof wb);
    mncp_w_u32(&w, gen); mncp_w_u16(&w, ph); mncp_w_u8(&w, op); mncp_w_u8(&w, 0);
    mncp_w_u32(&w, cnt);
    for (uint32_t i = 0; i < cnt; i++)
        mncp_w_u64(&w, (uint64_t)v[i]);
    srv_send(MNCP_COLLECTIVE_DONE, reqid, &w);
}

static void srv_event(uint16_t type, uint32_t gen, const char *text)
{
    struct mncp_w w;
    mncp_w_init(&w, wb, sizeof wb);
    if (type == MNCP_CKPT_REQUEST) {
        mncp_w_u32(&w, gen); mncp_w_u8(&w, 1); mncp_w_str(&w, text);
    } else if (type == MNCP_CKPT_ABORT) {
        mncp_w_u32(&w, gen); mncp_w_str(&w, text);
    }
    srv_send(type, 0, &w);
}

/* ---- harness ------------------------------------------------------------ */

static struct mana_coord_addr addr;
static pid_t child;

/* Listen on a fresh loopback port, fork the script; parent gets the port. */
static void start(int (*script)(void))
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 4) < 0 ||
        getsockname(ls, (struct sockaddr *)&sa, &sl) < 0) {
        perror("fake coordinator");
        exit(2);
    }
    memset(&addr, 0, sizeof addr);
    strcpy(addr.host, "127.0.0.1");
    strcpy(addr.secret, "sekrit");
    addr.port = ntohs(sa.sin_port);
    child = fork();
    if (child == 0) {
        alarm(20);
        srv = accept(ls, NULL, NULL);
        _exit(srv < 0 ? 91 : script() == 0 ? 0 : 92);
    }
    close(ls);
}

static int finish(void)
{
    int st;
    if (waitpid(child, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const struct mana_coord_hello hello = {.job = "jobA", .rank = 1, .nranks = 2,
                                              .host = "hostX", .ckptdir = "/tmp/ck",
                                              .program = "/bin/true"};
static char err[512];

static mana_coord_t *client(void)
{
    int rc;
    struct mana_coord_welcome w;
    mana_coord_t *c = mana_coord_connect(&addr, &hello, &w, 5000, &rc, err, sizeof err);
    CHECK(c != NULL);
    if (!c)
        fprintf(stderr, "connect: %s\n", err);
    else
        CHECK(w.client_id == 11 && w.generation == 4 && !strcmp(w.job, "default"));
    return c;
}

/* 1. A sum with a CKPT_REQUEST arriving before the reply: both get through. */
static int s_sum(void)
{
    struct mncp_hdr h;
    if (srv_hello() < 0 || srv_read(&h) != MNCP_COLLECTIVE)
        return -1;
    int64_t in[2];
    const char *why;
    struct mncp_r r;
    mncp_r_init(&r, body, h.len);
    uint32_t g = mncp_r_u32(&r); uint16_t ph = mncp_r_u16(&r); uint8_t op = mncp_r_u8(&r);
    (void)mncp_r_u8(&r);
    uint32_t cnt = mncp_r_u32(&r);
    if (g != 5 || ph != 16 || op != 1 || cnt != 2)
        return -1;
    if (mncp_dec_collective_done(body, h.len, 5, 16, 1, 2, in, &why) < 0 || in[0] != 10 || in[1] != -3)
        return -1;
    srv_event(MNCP_CKPT_REQUEST, 6, "/elsewhere");
    int64_t res[2] = {30, -6};
    srv_collective_done(h.reqid, 5, 16, 1, 2, res);
    /* Then a barrier and a BYE. */
    if (srv_read(&h) != MNCP_COLLECTIVE)
        return -1;
    srv_collective_done(h.reqid, 6, 1, 0, 0, NULL);
    if (srv_read(&h) != MNCP_BYE || h.len != 5 || body[0] != 0)
        return -1;
    return srv_read(&h) == -1 ? 0 : -1;     /* then EOF */
}

static void t_sum(void)
{
    start(s_sum);
    mana_coord_t *c = client();
    if (c) {
        int64_t v[2] = {10, -3};
        CHECK(mana_coord_collective(c, 5, 16, MANA_COORD_SUM, v, v, 2, 5000, err, sizeof err) == 0);
        CHECK(v[0] == 30 && v[1] == -6);
        struct mana_coord_event ev;
        CHECK(mana_coord_pending(c) == 1);
        CHECK(mana_coord_wait_event(c, 0, &ev, err, sizeof err) == 0);
        CHECK(mana_coord_pending(c) == 0);
        CHECK(ev.type == MANA_COORD_EV_CKPT_REQUEST && ev.generation == 6 && ev.flags == 1 &&
              !strcmp(ev.text, "/elsewhere"));
        CHECK(mana_coord_barrier(c, 6, 1, 5000, err, sizeof err) == 0);
        CHECK(mana_coord_wait_event(c, 0, &ev, err, sizeof err) == MANA_COORD_TIMEOUT);
        CHECK(mana_coord_bye(c, 0, 0, err, sizeof err) == 0);
        mana_coord_close(c);
    }
    CHECK(finish() == 0);
}

/* 2. CKPT_ABORT of another generation is queued; of ours ends the wait. */
static int s_abort(void)
{
    struct mncp_hdr h;
    if (srv_hello() < 0 || srv_read(&h) != MNCP_COLLECTIVE)
        return -1;
    srv_event(MNCP_CKPT_ABORT, 3, "old one");
    srv_event(MNCP_CKPT_ABORT, 7, "rank 0 failed: disk full");
    /* A queued abort answers the next collective of gen 8 without a send;
     * the test sends it after the client got its abort. */
    srv_event(MNCP_CKPT_ABORT, 8, "later");
    if (srv_read(&h) != MNCP_COLLECTIVE)    /* a gen-9 barrier */
        return -1;
    srv_send(MNCP_KILL, 0, NULL);
    return srv_read(&h) == -1 ? 0 : -1;
}

static void t_abort(void)
{
    start(s_abort);
    mana_coord_t *c = client();
    if (c) {
        CHECK(mana_coord_barrier(c, 7, 1, 5000, err, sizeof err) == MANA_COORD_ABORTED);
        CHECK(strstr(err, "disk full") != NULL);
        struct mana_coord_event ev;
        CHECK(mana_coord_wait_event(c, 5000, &ev, err, sizeof err) == 0);
        CHECK(ev.type == MANA_COORD_EV_CKPT_ABORT && ev.generation == 3);
        /* The gen-8 abort arrives; wait for it so it is queued or read. */
        usleep(100000);
        CHECK(mana_coord_barrier(c, 9, 1, 5000, err, sizeof err) == MANA_COORD_KILLED);
        /* gen-8 abort was queued while waiting: answers gen 8 without a send. */
        CHECK(mana_coord_barrier(c, 8, 1, 5000, err, sizeof err) == MANA_COORD_ABORTED);
        CHECK(strstr(err, "later") != NULL);
        mana_coord_close(c);
    }
    CHECK(finish() == 0);
}

/* 3. Malformed replies: each is rejected as a protocol error. */
static int bad_kind;
static int s_bad(void)
{
    struct mncp_hdr h;
    if (srv_hello() < 0 || srv_read(&h) != MNCP_COLLECTIVE)
        return -1;
    uint8_t hb[16];
    int64_t one = 1;
    switch (bad_kind) {
    case 0:                                  /* wrong count */
        srv_collective_done(h.reqid, 1, 16, 1, 2, (int64_t[]){1, 2});
        break;
    case 1:                                  /* bad magic */
        mncp_put_hdr(hb, MNCP_COLLECTIVE_DONE, 0, h.reqid);
        hb[0] = 'Z';
        srv_send_raw(hb, 16);
        break;
    case 2:                                  /* body shorter than its fields */
        mncp_put_hdr(hb, MNCP_COLLECTIVE_DONE, 6, h.reqid);
        srv_send_raw(hb, 16);
        srv_send_raw("\1\0\0\0\x10\0", 6);
        break;
    case 3:                                  /* wrong request id */
        srv_collective_done(h.reqid + 7, 1, 16, 1, 1, &one);
        break;
    case 4:                                  /* an unexpected type */
        srv_welcome(h.reqid);
        break;
    case 5:                                  /* length over 1 MiB */
        mncp_put_hdr(hb, MNCP_COLLECTIVE_DONE, MNCP_BODY_MAX + 1, h.reqid);
        srv_send_raw(hb, 16);
        break;
    case 6:                                  /* ERROR MISMATCH: the connection stays */
        {
            struct mncp_w w;
            mncp_w_init(&w, wb, sizeof wb);
            mncp_w_u16(&w, 5);
            mncp_w_str(&w, "op or count disagree");
            srv_send(MNCP_ERROR, h.reqid, &w);
            if (srv_read(&h) != MNCP_COLLECTIVE)
                return -1;
            srv_collective_done(h.reqid, 1, 16, 1, 1, &one);
        }
        break;
    case 7:                                  /* EOF */
        break;
    }
    usleep(200000);
    return 0;
}

static void t_bad(void)
{
    static const int want[] = {MANA_COORD_EPROTO, MANA_COORD_EPROTO, MANA_COORD_EPROTO,
                               MANA_COORD_EPROTO, MANA_COORD_EPROTO, MANA_COORD_EPROTO,
                               MANA_COORD_EREMOTE, MANA_COORD_EIO};
    for (bad_kind = 0; bad_kind < 8; bad_kind++) {
        start(s_bad);
        mana_coord_t *c = client();
        if (c) {
            int64_t v = 1;
            int rc = mana_coord_collective(c, 1, 16, MANA_COORD_SUM, &v, &v, 1, 5000, err, sizeof err);
            if (rc != want[bad_kind])
                fprintf(stderr, "bad reply %d: rc %d (%s)\n", bad_kind, rc, err);
            CHECK(rc == want[bad_kind]);
            CHECK(err[0] != 0);
            if (bad_kind == 6) {
                CHECK(mana_coord_remote_code(c) == MANA_COORD_RE_MISMATCH && strstr(err, "disagree"));
                /* An ERROR answering a request leaves the connection usable. */
                v = 1;
                CHECK(mana_coord_collective(c, 1, 16, MANA_COORD_SUM, &v, &v, 1, 5000, err, sizeof err) == 0);
            }
            mana_coord_close(c);
        }
        CHECK(finish() == 0);
    }
}

/* 4. AUTH refused: connect fails with the coordinator's message; a
 *    coordinator whose proof is wrong is not trusted. */
static int s_auth(void)
{
    /* the client's proof was made with another secret: refuse it */
    return srv_auth(1) == 0 ? -1 : 0;
}

static int s_impostor(void)
{
    if (srv_auth(2) < 0)
        return -1;
    usleep(200000);
    return 0;
}

/* A "coordinator" that announces a 1 MiB CHALLENGE: refused before anything is allocated for it. */
static int s_bigchallenge(void)
{
    uint8_t hb[16];
    mncp_put_hdr(hb, MNCP_CHALLENGE, MNCP_BODY_MAX, 0);
    srv_send_raw(hb, 16);
    usleep(200000);
    return 0;
}

static void t_auth(void)
{
    start(s_auth);
    strcpy(addr.secret, "wrong");
    int rc;
    mana_coord_t *c = mana_coord_connect(&addr, &hello, NULL, 5000, &rc, err, sizeof err);
    CHECK(c == NULL && rc == MANA_COORD_EREMOTE && strstr(err, "authentication failed"));
    CHECK(finish() == 0);

    start(s_impostor);
    c = mana_coord_connect(&addr, &hello, NULL, 5000, &rc, err, sizeof err);
    CHECK(c == NULL && rc == MANA_COORD_EPROTO && strstr(err, "does not know the secret"));
    CHECK(finish() == 0);

    start(s_bigchallenge);
    c = mana_coord_connect(&addr, &hello, NULL, 5000, &rc, err, sizeof err);
    CHECK(c == NULL && rc == MANA_COORD_EPROTO && strstr(err, "before the coordinator proved the secret"));
    CHECK(finish() == 0);
}

/* 5. A frame split across a timeout, and a 200 KB KV value both ways. */
static int s_split(void)
{
    struct mncp_hdr h;
    if (srv_hello() < 0)
        return -1;
    uint8_t fr[16 + 64];
    struct mncp_w w;
    mncp_w_init(&w, fr + 16, 64);
    mncp_w_u32(&w, 12); mncp_w_u8(&w, 0); mncp_w_str(&w, "");
    mncp_put_hdr(fr, MNCP_CKPT_REQUEST, (uint32_t)w.len, 0);
    srv_send_raw(fr, 10);                 /* half a header */
    usleep(300000);
    srv_send_raw(fr + 10, 16 + w.len - 10);

    if (srv_read(&h) != MNCP_KV_PUT)
        return -1;
    struct mncp_r r;
    char key[16];
    uint32_t n;
    mncp_r_init(&r, body, h.len);
    mncp_r_str(&r, key, sizeof key);
    const uint8_t *v = mncp_r_blob(&r, &n);
    if (r.bad || strcmp(key, "big") || n != 200000 || v[199999] != (uint8_t)199999)
        return -1;
    srv_send(MNCP_OK, h.reqid, NULL);
    if (srv_read(&h) != MNCP_KV_GET)
        return -1;
    mncp_w_init(&w, wb, sizeof wb);
    mncp_w_u8(&w, 1);
    mncp_w_blob(&w, v, n);
    srv_send(MNCP_KV_VALUE, h.reqid, &w);
    return srv_read(&h) == -1 ? 0 : -1;
}

static void t_split(void)
{
    start(s_split);
    mana_coord_t *c = client();
    if (c) {
        struct mana_coord_event ev;
        CHECK(mana_coord_wait_event(c, 100, &ev, err, sizeof err) == MANA_COORD_TIMEOUT);
        CHECK(mana_coord_wait_event(c, 5000, &ev, err, sizeof err) == 0);
        CHECK(ev.type == MANA_COORD_EV_CKPT_REQUEST && ev.generation == 12);
        static uint8_t big[200000], back[200000];
        for (size_t i = 0; i < sizeof big; i++)
            big[i] = (uint8_t)i;
        CHECK(mana_coord_kv_put(c, "big", big, sizeof big, 5000, err, sizeof err) == 0);
        size_t len;
        int found;
        CHECK(mana_coord_kv_get(c, "big", 1, back, sizeof back, &len, &found, 5000, err, sizeof err) == 0);
        CHECK(found == 1 && len == sizeof big && memcmp(big, back, len) == 0);
        mana_coord_close(c);
    }
    CHECK(finish() == 0);
}

/* 6. Nobody listening: ECONNECT with host:port in the message. */
static void t_refused(void)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 &&
          getsockname(ls, (struct sockaddr *)&sa, &sl) == 0);
    close(ls);                            /* the port is now (very likely) free */
    struct mana_coord_addr a = addr;
    a.port = ntohs(sa.sin_port);
    int rc;
    mana_coord_t *c = mana_coord_connect(&a, &hello, NULL, 2000, &rc, err, sizeof err);
    CHECK(c == NULL && rc == MANA_COORD_ECONNECT && strstr(err, "cannot reach coordinator at 127.0.0.1:"));
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    t_sum();
    t_abort();
    t_bad();
    t_auth();
    t_split();
    t_refused();
    if (failures)
        fprintf(stderr, "test_client: %d failure(s)\n", failures);
    else
        printf("test_client: ok\n");
    return failures != 0;
}
