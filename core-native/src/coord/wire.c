/*
 * wire.c - MNCP frame header and field codec.  All integers little-endian;
 * bytes are assembled one at a time so the code does not depend on host
 * byte order or alignment.
 */
#include <string.h>

#include "mncp.h"

void mncp_put_hdr(uint8_t *p, uint16_t type, uint32_t len, uint32_t reqid)
{
    p[0] = 'M'; p[1] = 'N'; p[2] = 'C'; p[3] = 'P';
    p[4] = MNCP_VERSION & 0xff; p[5] = MNCP_VERSION >> 8;
    p[6] = type & 0xff; p[7] = type >> 8;
    for (int i = 0; i < 4; i++) {
        p[8 + i] = (len >> (8 * i)) & 0xff;
        p[12 + i] = (reqid >> (8 * i)) & 0xff;
    }
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int mncp_parse_hdr(const uint8_t *p, struct mncp_hdr *h, const char **why)
{
    if (memcmp(p, "MNCP", 4) != 0) {
        *why = "bad magic (not an MNCP frame)";
        return -1;
    }
    if ((p[4] | p[5] << 8) != MNCP_VERSION) {
        *why = "unsupported protocol version";
        return -1;
    }
    h->type = (uint16_t)(p[6] | p[7] << 8);
    h->len = get32(p + 8);
    h->reqid = get32(p + 12);
    if (h->len > MNCP_BODY_MAX) {
        *why = "frame body over 1 MiB";
        return -1;
    }
    return 0;
}

void mncp_w_init(struct mncp_w *w, uint8_t *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->bad = 0;
}

/* All writers go through here: an overflow poisons the writer for good. */
static uint8_t *w_room(struct mncp_w *w, size_t n)
{
    if (w->bad || n > w->cap - w->len) {
        w->bad = 1;
        return NULL;
    }
    uint8_t *p = w->buf + w->len;
    w->len += n;
    return p;
}

static void w_le(struct mncp_w *w, uint64_t v, int n)
{
    uint8_t *p = w_room(w, (size_t)n);
    if (p)
        for (int i = 0; i < n; i++)
            p[i] = (v >> (8 * i)) & 0xff;
}

void mncp_w_u8(struct mncp_w *w, uint8_t v)   { w_le(w, v, 1); }
void mncp_w_u16(struct mncp_w *w, uint16_t v) { w_le(w, v, 2); }
void mncp_w_u32(struct mncp_w *w, uint32_t v) { w_le(w, v, 4); }
void mncp_w_u64(struct mncp_w *w, uint64_t v) { w_le(w, v, 8); }

void mncp_w_bytes(struct mncp_w *w, const void *src, size_t n)
{
    uint8_t *p = w_room(w, n);
    if (p && n)
        memcpy(p, src, n);
}

void mncp_w_str(struct mncp_w *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > MANA_COORD_STR_MAX) {
        w->bad = 1;
        return;
    }
    mncp_w_u16(w, (uint16_t)n);
    mncp_w_bytes(w, s, n);
}

void mncp_w_blob(struct mncp_w *w, const void *p, size_t n)
{
    if (n > MANA_COORD_BLOB_MAX) {
        w->bad = 1;
        return;
    }
    mncp_w_u32(w, (uint32_t)n);
    mncp_w_bytes(w, p, n);
}

void mncp_r_init(struct mncp_r *r, const uint8_t *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->off = 0;
    r->bad = 0;
}

static const uint8_t *r_take(struct mncp_r *r, size_t n)
{
    if (r->bad || n > r->len - r->off) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->off;
    r->off += n;
    return p;
}

static uint64_t r_le(struct mncp_r *r, int n)
{
    const uint8_t *p = r_take(r, (size_t)n);
    uint64_t v = 0;
    if (p)
        for (int i = 0; i < n; i++)
            v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t  mncp_r_u8(struct mncp_r *r)  { return (uint8_t)r_le(r, 1); }
uint16_t mncp_r_u16(struct mncp_r *r) { return (uint16_t)r_le(r, 2); }
uint32_t mncp_r_u32(struct mncp_r *r) { return (uint32_t)r_le(r, 4); }
uint64_t mncp_r_u64(struct mncp_r *r) { return r_le(r, 8); }

void mncp_r_str(struct mncp_r *r, char *dst, size_t cap)
{
    uint16_t n = mncp_r_u16(r);
    const uint8_t *p = NULL;
    if (n > MANA_COORD_STR_MAX || (size_t)n >= cap)
        r->bad = 1;
    else
        p = r_take(r, n);
    if (!p) {
        r->bad = 1;
        if (cap)
            dst[0] = 0;
        return;
    }
    memcpy(dst, p, n);
    dst[n] = 0;
}

const uint8_t *mncp_r_blob(struct mncp_r *r, uint32_t *n)
{
    *n = mncp_r_u32(r);
    if (*n > MANA_COORD_BLOB_MAX) {
        r->bad = 1;
        *n = 0;
        return NULL;
    }
    const uint8_t *p = r_take(r, *n);
    if (!p)
        *n = 0;
    return p;
}
