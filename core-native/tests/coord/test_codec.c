/*
 * test_codec.c - MNCP codec against frames built by hand from the protocol
 * table (docs/coordinator-protocol.md), byte by byte, so an encoder and a
 * decoder that agree with each other but not with the spec still fail.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "corpus.h"
#include "mncp.h"
#include "mana/phases.h"

/* A little-endian byte builder for the expected frames. */
struct bb { uint8_t b[8192]; size_t n; };
static void b8(struct bb *x, uint8_t v) { x->b[x->n++] = v; }
static void b16(struct bb *x, uint16_t v) { b8(x, v & 0xff); b8(x, v >> 8); }
static void b32(struct bb *x, uint32_t v) { b16(x, v & 0xffff); b16(x, v >> 16); }
static void b64(struct bb *x, uint64_t v) { b32(x, (uint32_t)v); b32(x, (uint32_t)(v >> 32)); }
static void bs(struct bb *x, const char *s)
{
    b16(x, (uint16_t)strlen(s));
    memcpy(x->b + x->n, s, strlen(s));
    x->n += strlen(s);
}

static void test_header(void)
{
    uint8_t p[16];
    struct mncp_hdr h;
    const char *why;
    static const uint8_t want[16] = {'M', 'N', 'C', 'P', 2, 0, 0x10, 0, 0x34, 0x12, 0, 0,
                                     0x78, 0x56, 0x34, 0x12};
    mncp_put_hdr(p, 0x10, 0x1234, 0x12345678);
    CHECK(memcmp(p, want, 16) == 0);
    CHECK(mncp_parse_hdr(p, &h, &why) == 0);
    CHECK(h.type == 0x10 && h.len == 0x1234 && h.reqid == 0x12345678);

    p[0] = 'X';
    CHECK(mncp_parse_hdr(p, &h, &why) < 0);
    mncp_put_hdr(p, 0x10, 0, 0);
    p[4] = 1;                                      /* version 1: its HELLO carried the secret */
    CHECK(mncp_parse_hdr(p, &h, &why) < 0);
    p[4] = 3;
    CHECK(mncp_parse_hdr(p, &h, &why) < 0);
    mncp_put_hdr(p, 0x10, MNCP_BODY_MAX, 0);
    CHECK(mncp_parse_hdr(p, &h, &why) == 0);       /* exactly 1 MiB is allowed */
    mncp_put_hdr(p, 0x10, MNCP_BODY_MAX + 1, 0);
    CHECK(mncp_parse_hdr(p, &h, &why) < 0);
}

static void test_hello(void)
{
    uint8_t buf[4096];
    struct bb x = {{0}, 0};
    struct mana_coord_hello h = {.job = "j1", .rank = 3, .nranks = 4, .mpi = "openmpi",
                                 .generation = 7, .restarting = 1, .ckptdir = "/ck",
                                 .program = "/bin/app"};
    b8(&x, 1); bs(&x, "j1"); b32(&x, 3); b32(&x, 4); bs(&x, "node1");
    b32(&x, 4242); bs(&x, "openmpi"); b32(&x, 7); b8(&x, 1); bs(&x, "/ck"); bs(&x, "/bin/app");
    long n = mncp_enc_hello(buf, sizeof buf, &h, "node1", 4242);
    CHECK(n == (long)x.n && memcmp(buf, x.b, x.n) == 0);

    /* Control role: no rank fields; NULL strings are empty. */
    struct mana_coord_hello hc = {.role = MANA_COORD_ROLE_CONTROL};
    struct bb y = {{0}, 0};
    b8(&y, 2); bs(&y, "");
    n = mncp_enc_hello(buf, sizeof buf, &hc, "x", 1);
    CHECK(n == (long)y.n && memcmp(buf, y.b, y.n) == 0);

    /* Defaults: mpi NULL is "none". */
    struct mana_coord_hello hd = {.rank = 0, .nranks = 1};
    n = mncp_enc_hello(buf, sizeof buf, &hd, "h", 1);
    CHECK(n > 0 && memmem(buf, (size_t)n, "\x04\x00none", 6) != NULL);

    /* Too small a buffer, and a string over 4096 bytes, are refused. */
    CHECK(mncp_enc_hello(buf, 10, &h, "node1", 1) < 0);
    static char big[5000];
    memset(big, 'a', sizeof big - 1);
    h.program = big;
    static uint8_t large[16384];
    CHECK(mncp_enc_hello(large, sizeof large, &h, "n", 1) < 0);
}

static void test_collective(void)
{
    uint8_t buf[64];
    int64_t v[2] = {-1, 0x0102030405060708LL};
    struct bb x = {{0}, 0};
    b32(&x, 9); b16(&x, 16); b8(&x, 1); b8(&x, 0); b32(&x, 2);
    b64(&x, UINT64_MAX); b64(&x, 0x0102030405060708ULL);
    long n = mncp_enc_collective(buf, sizeof buf, 9, 16, 1, v, 2);
    CHECK(n == (long)x.n && memcmp(buf, x.b, x.n) == 0);
    CHECK(mncp_enc_collective(buf, sizeof buf, 9, 16, 0, NULL, 0) == 12);
    CHECK(mncp_enc_collective(buf, sizeof buf, 9, 16, 1, v, MANA_COORD_MAX_VALUES + 1) < 0);

    /* COLLECTIVE_DONE: same layout; decode it back. */
    int64_t out[2] = {0, 0};
    const char *why;
    CHECK(mncp_dec_collective_done(x.b, x.n, 9, 16, 1, 2, out, &why) == 0);
    CHECK(out[0] == -1 && out[1] == 0x0102030405060708LL);
    /* Trailing bytes (a newer minor revision) are ignored. */
    CHECK(mncp_dec_collective_done(x.b, x.n + 5, 9, 16, 1, 2, out, &why) == 0);
    /* Wrong generation, phase, op or count; truncated array; truncated head. */
    CHECK(mncp_dec_collective_done(x.b, x.n, 8, 16, 1, 2, out, &why) < 0);
    CHECK(mncp_dec_collective_done(x.b, x.n, 9, 17, 1, 2, out, &why) < 0);
    CHECK(mncp_dec_collective_done(x.b, x.n, 9, 16, 2, 2, out, &why) < 0);
    CHECK(mncp_dec_collective_done(x.b, x.n, 9, 16, 1, 1, out, &why) < 0);
    out[0] = 42;
    CHECK(mncp_dec_collective_done(x.b, x.n - 1, 9, 16, 1, 2, out, &why) < 0);
    CHECK(out[0] == 42);                           /* nothing half-written */
    CHECK(mncp_dec_collective_done(x.b, 7, 9, 16, 1, 2, out, &why) < 0);
}

static void test_reports(void)
{
    uint8_t buf[256];
    struct bb x = {{0}, 0};
    b32(&x, 3); b64(&x, 1ULL << 40); b64(&x, 123456789); bs(&x, "/d/ckpt_rank_0/img");
    long n = mncp_enc_ckpt_written(buf, sizeof buf, 3, 1ULL << 40, 123456789, "/d/ckpt_rank_0/img");
    CHECK(n == (long)x.n && memcmp(buf, x.b, x.n) == 0);

    struct bb y = {{0}, 0};
    b32(&y, 4); bs(&y, "disk full");
    n = mncp_enc_ckpt_failed(buf, sizeof buf, 4, "disk full");
    CHECK(n == (long)y.n && memcmp(buf, y.b, y.n) == 0);

    struct bb z = {{0}, 0};
    b8(&z, 1); b32(&z, (uint32_t)-2);
    n = mncp_enc_bye(buf, sizeof buf, 1, -2);
    CHECK(n == (long)z.n && memcmp(buf, z.b, z.n) == 0);

    struct bb k = {{0}, 0};
    bs(&k, "key"); b32(&k, 3); memcpy(k.b + k.n, "abc", 3); k.n += 3;
    n = mncp_enc_kv_put(buf, sizeof buf, "key", "abc", 3);
    CHECK(n == (long)k.n && memcmp(buf, k.b, k.n) == 0);

    struct bb g = {{0}, 0};
    bs(&g, "key"); b8(&g, 1);
    n = mncp_enc_kv_get(buf, sizeof buf, "key", 1);
    CHECK(n == (long)g.n && memcmp(buf, g.b, g.n) == 0);
}

static void test_replies(void)
{
    struct mana_coord_welcome w;
    struct bb x = {{0}, 0};
    b32(&x, 17); b32(&x, 2); b32(&x, 30); bs(&x, "default");
    CHECK(mncp_dec_welcome(x.b, x.n, &w) == 0);
    CHECK(w.client_id == 17 && w.generation == 2 && w.interval == 30 && !strcmp(w.job, "default"));
    CHECK(mncp_dec_welcome(x.b, x.n - 1, &w) < 0);     /* ends inside the job string */
    CHECK(mncp_dec_welcome(x.b, 11, &w) < 0);

    /* A str whose length says 4097: over the protocol limit. */
    static struct bb big;
    big.n = 0;
    b32(&big, 1); b32(&big, 0); b32(&big, 0); b16(&big, 4097);
    memset(big.b + big.n, 'a', 4097);
    big.n += 4097;
    CHECK(mncp_dec_welcome(big.b, big.n, &w) < 0);

    struct bb kv = {{0}, 0};
    b8(&kv, 1); b32(&kv, 4); memcpy(kv.b + kv.n, "\0\1\2\3", 4); kv.n += 4;
    int found;
    const uint8_t *v;
    uint32_t vl;
    CHECK(mncp_dec_kv_value(kv.b, kv.n, &found, &v, &vl) == 0);
    CHECK(found == 1 && vl == 4 && memcmp(v, "\0\1\2\3", 4) == 0);
    CHECK(mncp_dec_kv_value(kv.b, kv.n - 1, &found, &v, &vl) < 0);
    struct bb kb = {{0}, 0};
    b8(&kb, 1); b32(&kb, MANA_COORD_BLOB_MAX + 1);
    CHECK(mncp_dec_kv_value(kb.b, kb.n, &found, &v, &vl) < 0);

    struct mana_coord_event ev;
    struct bb rq = {{0}, 0};
    b32(&rq, 5); b8(&rq, 1); bs(&rq, "/other");
    CHECK(mncp_dec_event(MNCP_CKPT_REQUEST, rq.b, rq.n, &ev) == 0);
    CHECK(ev.type == MANA_COORD_EV_CKPT_REQUEST && ev.generation == 5 && ev.flags == 1 &&
          !strcmp(ev.text, "/other"));
    CHECK(mncp_dec_event(MNCP_CKPT_REQUEST, rq.b, 4, &ev) < 0);
    struct bb ab = {{0}, 0};
    b32(&ab, 5); bs(&ab, "rank 1 disconnected");
    CHECK(mncp_dec_event(MNCP_CKPT_ABORT, ab.b, ab.n, &ev) == 0);
    CHECK(ev.type == MANA_COORD_EV_CKPT_ABORT && !strcmp(ev.text, "rank 1 disconnected"));
    CHECK(mncp_dec_event(MNCP_KILL, NULL, 0, &ev) == 0 && ev.type == MANA_COORD_EV_KILL);
    CHECK(mncp_dec_event(MNCP_WELCOME, ab.b, ab.n, &ev) < 0);

    struct bb er = {{0}, 0};
    b16(&er, 3); bs(&er, "wrong secret");
    uint16_t code;
    char msg[64];
    CHECK(mncp_dec_error(er.b, er.n, &code, msg, sizeof msg) == 0);
    CHECK(code == 3 && !strcmp(msg, "wrong secret"));
    CHECK(mncp_dec_error(er.b, 1, &code, msg, sizeof msg) < 0);
    CHECK(mncp_dec_error(er.b, er.n, &code, msg, 5) < 0);   /* does not fit the buffer */
}

static int hex_is(const uint8_t *d, const char *hex)
{
    char got[2 * MNCP_SHA256_LEN + 1];
    for (int i = 0; i < MNCP_SHA256_LEN; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    if (strcmp(got, hex) != 0) {
        fprintf(stderr, "got  %s\nwant %s\n", got, hex);
        return 0;
    }
    return 1;
}

static void sha(const void *p, size_t n, uint8_t *out)
{
    struct mncp_sha256 s;
    mncp_sha256_init(&s);
    mncp_sha256_update(&s, p, n);
    mncp_sha256_final(&s, out);
}

/* FIPS 180-4 examples and RFC 4231 test cases 1, 2, 4, 6 (a key longer than a block). */
static void test_sha256_hmac(void)
{
    uint8_t d[MNCP_SHA256_LEN];
    sha("", 0, d);
    CHECK(hex_is(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    sha("abc", 3, d);
    CHECK(hex_is(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";   /* 56 bytes: two blocks */
    sha(two, strlen(two), d);
    CHECK(hex_is(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    static uint8_t million[1000000];
    memset(million, 'a', sizeof million);
    struct mncp_sha256 s;                       /* fed in uneven pieces */
    mncp_sha256_init(&s);
    for (size_t off = 0; off < sizeof million; off += 777)
        mncp_sha256_update(&s, million + off, sizeof million - off < 777 ? sizeof million - off : 777);
    mncp_sha256_final(&s, d);
    CHECK(hex_is(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));

    uint8_t key[131];
    memset(key, 0x0b, 20);
    struct mncp_iov hi = {"Hi There", 8};
    mncp_hmac_sha256(key, 20, &hi, 1, d);
    CHECK(hex_is(d, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
    struct mncp_iov jefe[2] = {{"what do ya want ", 16}, {"for nothing?", 12}};   /* split input */
    mncp_hmac_sha256("Jefe", 4, jefe, 2, d);
    CHECK(hex_is(d, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    for (int i = 0; i < 25; i++)
        key[i] = (uint8_t)(i + 1);
    uint8_t cd[50];
    memset(cd, 0xcd, sizeof cd);
    struct mncp_iov c4 = {cd, sizeof cd};
    mncp_hmac_sha256(key, 25, &c4, 1, d);
    CHECK(hex_is(d, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"));
    memset(key, 0xaa, sizeof key);
    struct mncp_iov c6 = {"Test Using Larger Than Block-Size Key - Hash Key First", 54};
    mncp_hmac_sha256(key, 131, &c6, 1, d);
    CHECK(hex_is(d, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
}

/* AUTH's layout, and both proofs against values the Java side computes (the corpus checks them too). */
static void test_auth(void)
{
    uint8_t buf[128], nonce[MNCP_NONCE_LEN], mac[MNCP_SHA256_LEN], back[MNCP_SHA256_LEN];
    for (int i = 0; i < MNCP_NONCE_LEN; i++)
        nonce[i] = (uint8_t)i;
    memset(mac, 0xee, sizeof mac);
    long n = mncp_enc_auth(buf, sizeof buf, nonce, mac);
    CHECK(n == 64 && memcmp(buf, nonce, 32) == 0 && memcmp(buf + 32, mac, 32) == 0);
    CHECK(mncp_enc_auth(buf, 63, nonce, mac) < 0);
    CHECK(mncp_dec_challenge(buf, 64, back) == 0 && memcmp(back, nonce, 32) == 0);
    CHECK(mncp_dec_challenge(buf, 31, back) < 0);
    CHECK(mncp_dec_auth_ok(buf + 32, 32, back) == 0 && memcmp(back, mac, 32) == 0);
    CHECK(mncp_dec_auth_ok(buf, 5, back) < 0);

    /* The proof is the HMAC of label || coordinator nonce || client nonce. */
    uint8_t sn[MNCP_NONCE_LEN], cn[MNCP_NONCE_LEN], p1[MNCP_SHA256_LEN], p2[MNCP_SHA256_LEN];
    memset(sn, 1, sizeof sn);
    memset(cn, 2, sizeof cn);
    mncp_auth_proof("s3cr3t", 0, sn, cn, p1);
    struct mncp_iov parts[3] = {{"MNCP2 client", 12}, {sn, 32}, {cn, 32}};
    mncp_hmac_sha256("s3cr3t", 6, parts, 3, p2);
    CHECK(memcmp(p1, p2, 32) == 0);
    mncp_auth_proof("s3cr3t", 1, sn, cn, p2);
    CHECK(memcmp(p1, p2, 32) != 0);               /* the two sides' proofs differ */
    mncp_auth_proof("s3cr3u", 0, sn, cn, p2);
    CHECK(memcmp(p1, p2, 32) != 0);
}

/* ---- the golden corpus (docs/wire-corpus), shared with the Java tests ---- */

/* Each frame is its fields in order, written by mncp_w (the C field writer). */
static void corpus_fields_in_order(const struct corpus_frame *fr)
{
    static uint8_t buf[2048];
    struct mncp_w w;
    mncp_w_init(&w, buf + MNCP_HDR_LEN, sizeof buf - MNCP_HDR_LEN);
    for (int i = 0; i < fr->nfields; i++) {
        const struct corpus_field *f = &fr->f[i];
        if (!strcmp(f->kind, "u8") || !strcmp(f->kind, "bool"))
            mncp_w_u8(&w, (uint8_t)strtol(f->value, NULL, 10));
        else if (!strcmp(f->kind, "u16"))
            mncp_w_u16(&w, (uint16_t)strtol(f->value, NULL, 10));
        else if (!strcmp(f->kind, "u32") || !strcmp(f->kind, "count") || !strcmp(f->kind, "i32"))
            mncp_w_u32(&w, (uint32_t)strtoll(f->value, NULL, 10));
        else if (!strcmp(f->kind, "u64"))
            mncp_w_u64(&w, strtoull(f->value, NULL, 10));
        else if (!strcmp(f->kind, "i64"))
            mncp_w_u64(&w, (uint64_t)strtoll(f->value, NULL, 10));
        else if (!strcmp(f->kind, "str"))
            mncp_w_str(&w, f->value);
        else if (!strcmp(f->kind, "bytes") || !strcmp(f->kind, "blob")) {
            unsigned char b[128];
            size_t n;
            CHECK(corpus_hex(f->value, b, sizeof b, &n) == 0);
            if (!strcmp(f->kind, "blob"))
                mncp_w_blob(&w, b, n);
            else
                mncp_w_bytes(&w, b, n);
        } else if (!strcmp(f->kind, "i64s")) {
            int64_t v[16];
            uint32_t n = 0;
            for (char *p = (char *)f->value; *p && n < 16; n++) {
                v[n] = strtoll(p, &p, 10);
                if (*p == ',')
                    p++;
            }
            mncp_w_u32(&w, n);
            for (uint32_t i = 0; i < n; i++)
                mncp_w_u64(&w, (uint64_t)v[i]);
        } else {
            fprintf(stderr, "%s: unknown field kind %s\n", fr->name, f->kind);
            CHECK(0);
        }
    }
    CHECK(!w.bad);
    mncp_put_hdr(buf, (uint16_t)fr->code, (uint32_t)w.len, fr->reqid);
    if (MNCP_HDR_LEN + w.len != fr->len || memcmp(buf, fr->bytes, fr->len) != 0) {
        fprintf(stderr, "corpus %s: bytes differ from its fields\n", fr->name);
        CHECK(0);
    }
}

/* Encoders of what a rank sends: same bytes as the corpus. */
static void corpus_encode(const struct corpus_frame *fr, int *checked)
{
    uint8_t buf[2048];
    long n = -2;
    const uint8_t *body = fr->bytes + MNCP_HDR_LEN;
    size_t blen = fr->len - MNCP_HDR_LEN;
    if (fr->code == MNCP_HELLO && corpus_int(fr, "role") != 3) {
        struct mana_coord_hello h = {
            .role = (uint8_t)corpus_int(fr, "role"), .job = corpus_get(fr, "job"),
            .rank = (int32_t)corpus_int(fr, "rank"), .nranks = (int32_t)corpus_int(fr, "nranks"),
            .mpi = corpus_get(fr, "mpi"), .generation = (uint32_t)corpus_int(fr, "generation"),
            .restarting = (uint8_t)corpus_int(fr, "restarting"), .ckptdir = corpus_get(fr, "ckptdir"),
            .program = corpus_get(fr, "program")};
        n = mncp_enc_hello(buf, sizeof buf, &h, corpus_get(fr, "host"), (int32_t)corpus_int(fr, "pid"));
    } else if (fr->code == MNCP_AUTH) {
        uint8_t nonce[32], mac[32];
        size_t k;
        corpus_hex(corpus_get(fr, "nonce"), nonce, 32, &k);
        corpus_hex(corpus_get(fr, "mac"), mac, 32, &k);
        n = mncp_enc_auth(buf, sizeof buf, nonce, mac);
    } else if (fr->code == MNCP_COLLECTIVE) {
        int64_t v[16];
        uint32_t cnt = 0;
        for (char *p = (char *)corpus_get(fr, "values"); *p && cnt < 16; cnt++) {
            v[cnt] = strtoll(p, &p, 10);
            if (*p == ',')
                p++;
        }
        n = mncp_enc_collective(buf, sizeof buf, (uint32_t)corpus_int(fr, "generation"),
                                (uint16_t)corpus_int(fr, "phase"), (uint8_t)corpus_int(fr, "op"), v, cnt);
    } else if (fr->code == MNCP_CKPT_WRITTEN) {
        n = mncp_enc_ckpt_written(buf, sizeof buf, (uint32_t)corpus_int(fr, "generation"),
                                  strtoull(corpus_get(fr, "image_bytes"), NULL, 10),
                                  strtoull(corpus_get(fr, "write_ns"), NULL, 10), corpus_get(fr, "path"));
    } else if (fr->code == MNCP_CKPT_FAILED) {
        n = mncp_enc_ckpt_failed(buf, sizeof buf, (uint32_t)corpus_int(fr, "generation"), corpus_get(fr, "reason"));
    } else if (fr->code == MNCP_KV_PUT) {
        uint8_t v[64];
        size_t k;
        corpus_hex(corpus_get(fr, "value"), v, sizeof v, &k);
        n = mncp_enc_kv_put(buf, sizeof buf, corpus_get(fr, "key"), v, k);
    } else if (fr->code == MNCP_KV_GET) {
        n = mncp_enc_kv_get(buf, sizeof buf, corpus_get(fr, "key"), (uint8_t)corpus_int(fr, "wait"));
    } else if (fr->code == MNCP_BYE) {
        n = mncp_enc_bye(buf, sizeof buf, (uint8_t)corpus_int(fr, "reason"), (int32_t)corpus_int(fr, "status"));
    }
    if (n == -2)
        return;
    (*checked)++;
    if (n != (long)blen || memcmp(buf, body, blen) != 0) {
        fprintf(stderr, "corpus %s: the C encoder writes other bytes\n", fr->name);
        CHECK(0);
    }
}

/* Decoders of what the coordinator sends: the corpus's fields. */
static void corpus_decode(const struct corpus_frame *fr, int *checked)
{
    const uint8_t *body = fr->bytes + MNCP_HDR_LEN;
    size_t blen = fr->len - MNCP_HDR_LEN;
    struct mncp_hdr h;
    const char *why;
    CHECK(mncp_parse_hdr(fr->bytes, &h, &why) == 0 && h.type == fr->code && h.len == blen && h.reqid == fr->reqid);
    int ok = 1;
    switch (fr->code) {
    case MNCP_CHALLENGE: case MNCP_AUTH_OK: {
        uint8_t got[32], want[32];
        size_t k;
        int rc = fr->code == MNCP_CHALLENGE ? mncp_dec_challenge(body, blen, got) : mncp_dec_auth_ok(body, blen, got);
        corpus_hex(corpus_get(fr, fr->code == MNCP_CHALLENGE ? "nonce" : "mac"), want, 32, &k);
        ok = rc == 0 && memcmp(got, want, 32) == 0;
        break;
    }
    case MNCP_WELCOME: {
        struct mana_coord_welcome w;
        ok = mncp_dec_welcome(body, blen, &w) == 0 && w.client_id == corpus_int(fr, "client_id") &&
             w.generation == corpus_int(fr, "generation") && w.interval == corpus_int(fr, "interval") &&
             !strcmp(w.job, corpus_get(fr, "job"));
        break;
    }
    case MNCP_COLLECTIVE_DONE: {
        int64_t out[16];
        const char *res = corpus_get(fr, "result");
        uint32_t cnt = 0;
        int64_t want[16];
        for (char *p = (char *)res; *p && cnt < 16; cnt++) {
            want[cnt] = strtoll(p, &p, 10);
            if (*p == ',')
                p++;
        }
        ok = mncp_dec_collective_done(body, blen, (uint32_t)corpus_int(fr, "generation"),
                                      (uint16_t)corpus_int(fr, "phase"), (uint8_t)corpus_int(fr, "op"), cnt, out,
                                      &why) == 0 && memcmp(out, want, cnt * sizeof *out) == 0;
        break;
    }
    case MNCP_KV_VALUE: {
        int found;
        const uint8_t *v;
        uint32_t vl;
        uint8_t want[64];
        size_t k;
        corpus_hex(corpus_get(fr, "value"), want, sizeof want, &k);
        ok = mncp_dec_kv_value(body, blen, &found, &v, &vl) == 0 && found == corpus_int(fr, "found") &&
             vl == k && memcmp(v, want, k) == 0;
        break;
    }
    case MNCP_CKPT_REQUEST: case MNCP_CKPT_ABORT: case MNCP_KILL: {
        static struct mana_coord_event ev;
        ok = mncp_dec_event((uint16_t)fr->code, body, blen, &ev) == 0;
        if (fr->code != MNCP_KILL)
            ok = ok && ev.generation == corpus_int(fr, "generation") &&
                 !strcmp(ev.text, corpus_get(fr, fr->code == MNCP_CKPT_REQUEST ? "ckptdir" : "reason"));
        if (fr->code == MNCP_CKPT_REQUEST)
            ok = ok && ev.flags == corpus_int(fr, "flags");
        break;
    }
    case MNCP_CKPT_RESULT: {
        static struct mana_coord_ckpt_result r;
        ok = mncp_dec_ckpt_result(body, blen, &r) == 0 && r.ok == corpus_int(fr, "ok") &&
             r.generation == corpus_int(fr, "generation") && r.elapsed_ns == (uint64_t)corpus_int(fr, "elapsed_ns") &&
             r.total_bytes == (uint64_t)corpus_int(fr, "total_bytes") && r.ranks == corpus_int(fr, "ranks") &&
             !strcmp(r.dir, corpus_get(fr, "dir")) && !strcmp(r.message, corpus_get(fr, "message"));
        break;
    }
    case MNCP_LIST_REPLY: {
        static struct mana_coord_rank_info ri[4];
        uint32_t cnt = 0;
        char key[64];
        ok = mncp_dec_list_reply(body, blen, ri, 4, &cnt) == 0 && cnt == corpus_int(fr, "ranks");
        for (uint32_t i = 0; ok && i < cnt && i < 4; i++) {
#define RF(f) (snprintf(key, sizeof key, "ranks.%u." f, (unsigned)i), key)
            ok = ri[i].rank == corpus_int(fr, RF("rank")) && !strcmp(ri[i].host, corpus_get(fr, RF("host"))) &&
                 ri[i].pid == corpus_int(fr, RF("pid")) && ri[i].state == corpus_int(fr, RF("state")) &&
                 ri[i].generation == corpus_int(fr, RF("generation")) &&
                 !strcmp(ri[i].mpi, corpus_get(fr, RF("mpi"))) && ri[i].client_id == corpus_int(fr, RF("client_id"));
#undef RF
        }
        break;
    }
    case MNCP_ERROR: {
        uint16_t code;
        char msg[256];
        ok = mncp_dec_error(body, blen, &code, msg, sizeof msg) == 0 && code == corpus_int(fr, "code") &&
             !strcmp(msg, corpus_get(fr, "message"));
        break;
    }
    default:
        return;
    }
    (*checked)++;
    if (!ok) {
        fprintf(stderr, "corpus %s: the C decoder disagrees with the fields\n", fr->name);
        CHECK(0);
    }
}

/* The corpus's `phase` lines are the table of phase numbers: every MANA_PHASE_* has its line, with its
 * number, and every line has its MANA_PHASE_* (the Java side checks Protocol.PHASE_* the same way). */
static void corpus_phases(const struct corpus *c)
{
    static const struct { const char *name; long value; } ours[] = {
#define P(n) { #n, MANA_PHASE_##n }
        P(SUSPENDED), P(DRAINED), P(CHECKPOINTED), P(COMMITTED), P(DRAIN_FIRST), P(P2P_DRAIN_FIRST),
        P(DRAIN_LAST), P(RESTARTED), P(REFILLED), P(RESUMED), P(FREE_FIRST), P(COLL_DRAIN_LAST), P(SETTLE_FIRST),
#undef P
    };
    size_t n = sizeof ours / sizeof ours[0];
    CHECK(c->nphases == (int)n);
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (int k = 0; k < c->nphases; k++)
            if (!strcmp(c->ph[k].name, ours[i].name)) {
                found = 1;
                if (c->ph[k].value != ours[i].value)
                    fprintf(stderr, "corpus: phase %s is %ld, MANA_PHASE_%s is %ld\n", ours[i].name, c->ph[k].value,
                            ours[i].name, ours[i].value);
                CHECK(c->ph[k].value == ours[i].value);
            }
        if (!found)
            fprintf(stderr, "corpus: no phase line for MANA_PHASE_%s\n", ours[i].name);
        CHECK(found);
    }
}

static void test_corpus(const char *path)
{
    static struct corpus c;
    CHECK(corpus_read(path, &c) == 0);
    CHECK(c.n >= 35);
    corpus_phases(&c);
    int enc = 0, dec = 0;
    for (int i = 0; i < c.n; i++) {
        corpus_fields_in_order(&c.fr[i]);
        corpus_encode(&c.fr[i], &enc);
        corpus_decode(&c.fr[i], &dec);
    }
    /* every message the C client writes (HELLO x2, AUTH, COLLECTIVE x2, CKPT_WRITTEN, CKPT_FAILED,
     * KV_PUT, KV_GET, BYE; LIST, CHECKPOINT and SET_INTERVAL carry nothing to compare) and reads
     * (CHALLENGE, AUTH_OK, WELCOME, COLLECTIVE_DONE, KV_VALUE, CKPT_REQUEST, CKPT_ABORT, KILL,
     * CKPT_RESULT, LIST_REPLY, ERROR) */
    CHECK(enc == 10);
    CHECK(dec == 11);
    /* the handshake in the corpus is a real one: our HMAC gives its proofs */
    const struct corpus_frame *ch = corpus_find(&c, "challenge"), *au = corpus_find(&c, "auth"),
                              *ao = corpus_find(&c, "auth_ok");
    CHECK(ch && au && ao && c.secret[0]);
    if (ch && au && ao) {
        uint8_t sn[32], cn[32], mac[32], want[32];
        size_t k;
        corpus_hex(corpus_get(ch, "nonce"), sn, 32, &k);
        corpus_hex(corpus_get(au, "nonce"), cn, 32, &k);
        mncp_auth_proof(c.secret, 0, sn, cn, mac);
        corpus_hex(corpus_get(au, "mac"), want, 32, &k);
        CHECK(memcmp(mac, want, 32) == 0);
        mncp_auth_proof(c.secret, 1, sn, cn, mac);
        corpus_hex(corpus_get(ao, "mac"), want, 32, &k);
        CHECK(memcmp(mac, want, 32) == 0);
    }
    printf("test_codec: corpus: %d frames, %d encoded and %d decoded by the C codec\n", c.n, enc, dec);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        test_corpus(argv[1]);
    else
        fprintf(stderr, "test_codec: no corpus given (docs/wire-corpus/frames.txt)\n");
    test_sha256_hmac();
    test_auth();
    test_header();
    test_hello();
    test_collective();
    test_reports();
    test_replies();
    if (failures)
        fprintf(stderr, "test_codec: %d failure(s)\n", failures);
    else
        printf("test_codec: ok\n");
    return failures != 0;
}
