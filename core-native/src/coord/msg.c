/*
 * msg.c - MNCP message bodies: encoders for what a rank sends, decoders for
 * what the coordinator answers.  Field order follows
 * docs/coordinator-protocol.md §4 exactly; decoders ignore trailing bytes
 * (newer minor revisions append fields) and reject short bodies.
 */
#include <stddef.h>
#include <string.h>

#include "mncp.h"

static long w_done(const struct mncp_w *w)
{
    return w->bad ? -1 : (long)w->len;
}

long mncp_enc_hello(uint8_t *buf, size_t cap, const struct mana_coord_hello *h, const char *host,
                    int32_t pid)
{
    struct mncp_w w;
    uint8_t role = h->role ? h->role : MANA_COORD_ROLE_RANK;

    mncp_w_init(&w, buf, cap);
    mncp_w_u8(&w, role);
    mncp_w_str(&w, h->job);
    if (role == MANA_COORD_ROLE_RANK) {
        mncp_w_u32(&w, (uint32_t)h->rank);
        mncp_w_u32(&w, (uint32_t)h->nranks);
        mncp_w_str(&w, host);
        mncp_w_u32(&w, (uint32_t)pid);
        mncp_w_str(&w, h->mpi ? h->mpi : "none");
        mncp_w_u32(&w, h->generation);
        mncp_w_u8(&w, h->restarting ? 1 : 0);
        mncp_w_str(&w, h->ckptdir);
        mncp_w_str(&w, h->program);
    }
    return w_done(&w);
}

long mncp_enc_auth(uint8_t *buf, size_t cap, const uint8_t nonce[MNCP_NONCE_LEN],
                   const uint8_t mac[MNCP_SHA256_LEN])
{
    struct mncp_w w;

    mncp_w_init(&w, buf, cap);
    mncp_w_bytes(&w, nonce, MNCP_NONCE_LEN);
    mncp_w_bytes(&w, mac, MNCP_SHA256_LEN);
    return w_done(&w);
}

long mncp_enc_collective(uint8_t *buf, size_t cap, uint32_t gen, uint16_t phase, uint8_t op,
                         const int64_t *v, uint32_t count)
{
    struct mncp_w w;

    if (count > MANA_COORD_MAX_VALUES || (count && !v))
        return -1;
    mncp_w_init(&w, buf, cap);
    mncp_w_u32(&w, gen);
    mncp_w_u16(&w, phase);
    mncp_w_u8(&w, op);
    mncp_w_u8(&w, 0);
    mncp_w_u32(&w, count);
    for (uint32_t i = 0; i < count; i++)
        mncp_w_u64(&w, (uint64_t)v[i]);
    return w_done(&w);
}

long mncp_enc_ckpt_written(uint8_t *buf, size_t cap, uint32_t gen, uint64_t bytes,
                           uint64_t ns, const char *path)
{
    struct mncp_w w;

    mncp_w_init(&w, buf, cap);
    mncp_w_u32(&w, gen);
    mncp_w_u64(&w, bytes);
    mncp_w_u64(&w, ns);
    mncp_w_str(&w, path);
    return w_done(&w);
}

long mncp_enc_ckpt_failed(uint8_t *buf, size_t cap, uint32_t gen, const char *reason)
{
    struct mncp_w w;

    mncp_w_init(&w, buf, cap);
    mncp_w_u32(&w, gen);
    mncp_w_str(&w, reason);
    return w_done(&w);
}

long mncp_enc_kv_put(uint8_t *buf, size_t cap, const char *key, const void *v, size_t n)
{
    struct mncp_w w;

    mncp_w_init(&w, buf, cap);
    mncp_w_str(&w, key);
    mncp_w_blob(&w, v, n);
    return w_done(&w);
}

long mncp_enc_kv_get(uint8_t *buf, size_t cap, const char *key, uint8_t wait)
{
    struct mncp_w w;

    mncp_w_init(&w, buf, cap);
    mncp_w_str(&w, key);
    mncp_w_u8(&w, wait ? 1 : 0);
    return w_done(&w);
}

long mncp_enc_bye(uint8_t *buf, size_t cap, uint8_t reason, int32_t status)
{
    struct mncp_w w;

    mncp_w_init(&w, buf, cap);
    mncp_w_u8(&w, reason);
    mncp_w_u32(&w, (uint32_t)status);
    return w_done(&w);
}

static int dec_fixed(const uint8_t *b, size_t n, uint8_t *out, size_t len)
{
    if (n < len)              /* trailing bytes are allowed (§1), missing ones are not */
        return -1;
    memcpy(out, b, len);
    return 0;
}

int mncp_dec_challenge(const uint8_t *b, size_t n, uint8_t nonce[MNCP_NONCE_LEN])
{
    return dec_fixed(b, n, nonce, MNCP_NONCE_LEN);
}

int mncp_dec_auth_ok(const uint8_t *b, size_t n, uint8_t mac[MNCP_SHA256_LEN])
{
    return dec_fixed(b, n, mac, MNCP_SHA256_LEN);
}

int mncp_dec_welcome(const uint8_t *b, size_t n, struct mana_coord_welcome *wl)
{
    struct mncp_r r;

    mncp_r_init(&r, b, n);
    wl->client_id = mncp_r_u32(&r);
    wl->generation = mncp_r_u32(&r);
    wl->interval = mncp_r_u32(&r);
    mncp_r_str(&r, wl->job, sizeof wl->job);
    return r.bad ? -1 : 0;
}

int mncp_dec_collective_done(const uint8_t *b, size_t n, uint32_t gen, uint16_t phase,
                             uint8_t op, uint32_t count, int64_t *out, const char **why)
{
    struct mncp_r r;

    mncp_r_init(&r, b, n);
    uint32_t g = mncp_r_u32(&r);
    uint16_t ph = mncp_r_u16(&r);
    uint8_t o = mncp_r_u8(&r);
    (void)mncp_r_u8(&r);
    uint32_t cnt = mncp_r_u32(&r);
    if (r.bad) {
        *why = "COLLECTIVE_DONE body truncated";
        return -1;
    }
    if (g != gen || ph != phase || o != op || cnt != count) {
        *why = "COLLECTIVE_DONE does not match the COLLECTIVE sent";
        return -1;
    }
    /* Check the whole array is present before touching out: a short body
     * must not leave a half-written result behind. */
    if ((n - r.off) / 8 < cnt) {
        *why = "COLLECTIVE_DONE result array truncated";
        return -1;
    }
    for (uint32_t i = 0; i < cnt; i++)
        out[i] = (int64_t)mncp_r_u64(&r);
    return 0;
}

int mncp_dec_kv_value(const uint8_t *b, size_t n, int *found, const uint8_t **val,
                      uint32_t *vlen)
{
    struct mncp_r r;

    mncp_r_init(&r, b, n);
    *found = mncp_r_u8(&r) ? 1 : 0;
    *val = mncp_r_blob(&r, vlen);
    return r.bad ? -1 : 0;
}

int mncp_dec_event(uint16_t type, const uint8_t *b, size_t n, struct mana_coord_event *ev)
{
    struct mncp_r r;

    /* Clear the fixed fields only: text is 4 KiB and set below anyway. */
    memset(ev, 0, offsetof(struct mana_coord_event, text));
    ev->text[0] = 0;
    ev->type = type;
    mncp_r_init(&r, b, n);
    switch (type) {
    case MNCP_CKPT_REQUEST:
        ev->generation = mncp_r_u32(&r);
        ev->flags = mncp_r_u8(&r);
        mncp_r_str(&r, ev->text, sizeof ev->text);
        break;
    case MNCP_CKPT_ABORT:
        ev->generation = mncp_r_u32(&r);
        mncp_r_str(&r, ev->text, sizeof ev->text);
        break;
    case MNCP_KILL:
        break;
    default:
        return -1;
    }
    return r.bad ? -1 : 0;
}

int mncp_dec_list_reply(const uint8_t *b, size_t n, struct mana_coord_rank_info *out, uint32_t cap,
                        uint32_t *count)
{
    struct mncp_r r;
    static struct mana_coord_rank_info skip;   /* ranks past cap are read and dropped */

    mncp_r_init(&r, b, n);
    *count = mncp_r_u32(&r);
    for (uint32_t i = 0; i < *count && !r.bad; i++) {
        struct mana_coord_rank_info *ri = i < cap ? &out[i] : &skip;
        ri->rank = (int32_t)mncp_r_u32(&r);
        mncp_r_str(&r, ri->host, sizeof ri->host);
        ri->pid = (int32_t)mncp_r_u32(&r);
        ri->state = mncp_r_u8(&r);
        ri->generation = mncp_r_u32(&r);
        mncp_r_str(&r, ri->mpi, sizeof ri->mpi);
        ri->client_id = mncp_r_u32(&r);
    }
    return r.bad || r.off != r.len ? -1 : 0;
}

int mncp_dec_error(const uint8_t *b, size_t n, uint16_t *code, char *msg, size_t cap)
{
    struct mncp_r r;

    mncp_r_init(&r, b, n);
    *code = mncp_r_u16(&r);
    mncp_r_str(&r, msg, cap);
    return r.bad ? -1 : 0;
}

int mncp_dec_ckpt_result(const uint8_t *b, size_t n, struct mana_coord_ckpt_result *res)
{
    struct mncp_r r;

    mncp_r_init(&r, b, n);
    res->ok = mncp_r_u8(&r);
    res->generation = mncp_r_u32(&r);
    res->elapsed_ns = mncp_r_u64(&r);
    res->total_bytes = mncp_r_u64(&r);
    res->ranks = mncp_r_u32(&r);
    mncp_r_str(&r, res->dir, sizeof res->dir);
    mncp_r_str(&r, res->message, sizeof res->message);
    return r.bad ? -1 : 0;
}
