/*
 * mncp.h - MNCP v2 wire codec (internal to the coordinator client; the unit
 * tests use it directly).  Pure functions over byte buffers: no I/O, no
 * allocation, so they can be tested against hand-built frames.
 */
#ifndef MANA_MNCP_H
#define MANA_MNCP_H

#include <stddef.h>
#include <stdint.h>

#include "mana/coord_client.h"

#define MNCP_HDR_LEN    16
#define MNCP_VERSION    2
#define MNCP_BODY_MAX   1048576u
#define MNCP_NONCE_LEN  32
#define MNCP_PRE_AUTH_MAX 256u     /* largest body before authentication (§2) */
#define MNCP_SHA256_LEN 32

/* Message types (protocol §4). */
enum {
    MNCP_HELLO = 0x01, MNCP_WELCOME = 0x02,
    MNCP_CHALLENGE = 0x03, MNCP_AUTH = 0x04, MNCP_AUTH_OK = 0x05,
    MNCP_COLLECTIVE = 0x10, MNCP_COLLECTIVE_DONE = 0x11,
    MNCP_CKPT_WRITTEN = 0x13, MNCP_CKPT_FAILED = 0x14,
    MNCP_KV_PUT = 0x20, MNCP_OK = 0x21, MNCP_KV_GET = 0x22, MNCP_KV_VALUE = 0x23,
    MNCP_BYE = 0x30,
    MNCP_LIST = 0x50, MNCP_LIST_REPLY = 0x51,
    MNCP_CHECKPOINT = 0x54, MNCP_CKPT_RESULT = 0x55, MNCP_CKPT_PROGRESS = 0x56,
    MNCP_SET_INTERVAL = 0x57,
    MNCP_CKPT_REQUEST = 0x40, MNCP_CKPT_ABORT = 0x41, MNCP_KILL = 0x42,
    MNCP_ERROR = 0x7F,
};

struct mncp_hdr {
    uint16_t type;
    uint32_t len;
    uint32_t reqid;
};

/* Header: write 16 bytes; parse returns 0, or -1 with a reason in *why. */
void mncp_put_hdr(uint8_t *p, uint16_t type, uint32_t len, uint32_t reqid);
int  mncp_parse_hdr(const uint8_t *p, struct mncp_hdr *h, const char **why);

/* Body writer over a fixed buffer: an overflow sets .bad and writes nothing. */
struct mncp_w {
    uint8_t *buf;
    size_t   cap, len;
    int      bad;
};
void mncp_w_init(struct mncp_w *w, uint8_t *buf, size_t cap);
void mncp_w_u8(struct mncp_w *w, uint8_t v);
void mncp_w_u16(struct mncp_w *w, uint16_t v);
void mncp_w_u32(struct mncp_w *w, uint32_t v);
void mncp_w_u64(struct mncp_w *w, uint64_t v);
void mncp_w_bytes(struct mncp_w *w, const void *p, size_t n);
void mncp_w_str(struct mncp_w *w, const char *s);     /* NULL = ""; > 4096 bytes sets bad */
void mncp_w_blob(struct mncp_w *w, const void *p, size_t n);

/* Body reader: reading past the end (or an over-long str) sets .bad and
 * yields zeros, so a decoder checks .bad once at the end. */
struct mncp_r {
    const uint8_t *p;
    size_t         len, off;
    int            bad;
};
void     mncp_r_init(struct mncp_r *r, const uint8_t *p, size_t len);
uint8_t  mncp_r_u8(struct mncp_r *r);
uint16_t mncp_r_u16(struct mncp_r *r);
uint32_t mncp_r_u32(struct mncp_r *r);
uint64_t mncp_r_u64(struct mncp_r *r);
/* Copy a str into dst (cap bytes incl. NUL); a str that does not fit sets bad. */
void     mncp_r_str(struct mncp_r *r, char *dst, size_t cap);
/* A blob in place: returns a pointer into the body and its length. */
const uint8_t *mncp_r_blob(struct mncp_r *r, uint32_t *n);

/* ---- SHA-256 and HMAC-SHA256 (sha256.c), for the handshake of §2 ---- */
struct mncp_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t  buf[64];
    size_t   fill;
};
struct mncp_iov {
    const void *p;
    size_t      n;
};
void mncp_sha256_init(struct mncp_sha256 *s);
void mncp_sha256_update(struct mncp_sha256 *s, const void *data, size_t n);
void mncp_sha256_final(struct mncp_sha256 *s, uint8_t out[MNCP_SHA256_LEN]);
void mncp_hmac_sha256(const void *key, size_t keylen, const struct mncp_iov *parts, int nparts,
                      uint8_t out[MNCP_SHA256_LEN]);
/* HMAC-SHA256(secret, "MNCP2 client" or "MNCP2 coordinator" || snonce || cnonce). */
void mncp_auth_proof(const char *secret, int coordinator_side, const uint8_t snonce[MNCP_NONCE_LEN],
                     const uint8_t cnonce[MNCP_NONCE_LEN], uint8_t out[MNCP_SHA256_LEN]);
/* Zero memory in a way the compiler keeps. */
void mncp_wipe(void *p, size_t n);

/* ---- Messages: each encoder returns the body length, or -1 if it does not
 *      fit cap / breaks a protocol limit.  Decoders return 0 or -1. ---- */

/* HELLO (v2: no secret; AUTH before it proved the secret). */
long mncp_enc_hello(uint8_t *buf, size_t cap, const struct mana_coord_hello *h, const char *host,
                    int32_t pid);
long mncp_enc_auth(uint8_t *buf, size_t cap, const uint8_t nonce[MNCP_NONCE_LEN],
                   const uint8_t mac[MNCP_SHA256_LEN]);
long mncp_enc_collective(uint8_t *buf, size_t cap, uint32_t gen, uint16_t phase, uint8_t op,
                         const int64_t *v, uint32_t count);
long mncp_enc_ckpt_written(uint8_t *buf, size_t cap, uint32_t gen, uint64_t bytes,
                           uint64_t ns, const char *path);
long mncp_enc_ckpt_failed(uint8_t *buf, size_t cap, uint32_t gen, const char *reason);
long mncp_enc_kv_put(uint8_t *buf, size_t cap, const char *key, const void *v, size_t n);
long mncp_enc_kv_get(uint8_t *buf, size_t cap, const char *key, uint8_t wait);
long mncp_enc_bye(uint8_t *buf, size_t cap, uint8_t reason, int32_t status);

/* CHALLENGE: the coordinator's nonce; AUTH_OK: its proof. */
int mncp_dec_challenge(const uint8_t *b, size_t n, uint8_t nonce[MNCP_NONCE_LEN]);
int mncp_dec_auth_ok(const uint8_t *b, size_t n, uint8_t mac[MNCP_SHA256_LEN]);
int mncp_dec_welcome(const uint8_t *b, size_t n, struct mana_coord_welcome *w);
/* COLLECTIVE_DONE: checks gen/phase/op/count against what was sent and
 * copies count results into out (NULL allowed when count is 0). */
int mncp_dec_collective_done(const uint8_t *b, size_t n, uint32_t gen, uint16_t phase,
                             uint8_t op, uint32_t count, int64_t *out, const char **why);
/* KV_VALUE: *val points into b. */
int mncp_dec_kv_value(const uint8_t *b, size_t n, int *found, const uint8_t **val,
                      uint32_t *vlen);
/* CKPT_REQUEST, CKPT_ABORT, KILL into an event. */
int mncp_dec_event(uint16_t type, const uint8_t *b, size_t n, struct mana_coord_event *ev);
int mncp_dec_ckpt_result(const uint8_t *b, size_t n, struct mana_coord_ckpt_result *res);
/* LIST_REPLY: the first cap ranks into out, their number on the wire into *count. */
int mncp_dec_list_reply(const uint8_t *b, size_t n, struct mana_coord_rank_info *out, uint32_t cap,
                        uint32_t *count);
int mncp_dec_error(const uint8_t *b, size_t n, uint16_t *code, char *msg, size_t cap);

#endif /* MANA_MNCP_H */
