/* mana_util.c - see mana_util.h. */
#define _GNU_SOURCE
#include "mana_util.h"
#include "mana_sys.h"
#include "lh_info.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct mana_log_cfg mana_log_cfg = { 0, 0, 0, "mana" };

void mana_log_setup(const char *who, int debug, int timing, int quiet)
{
    mana_log_cfg.who = who;
    mana_log_cfg.debug = debug;
    mana_log_cfg.timing = timing;
    mana_log_cfg.quiet = quiet;
}

void mana_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static void vlog(const char *tag, const char *fmt, va_list ap)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s: %s", mana_log_cfg.who, tag);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    if (m < 0) m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    buf[len++] = '\n';
    mana_write_all(2, buf, len);
}

void mana_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("", fmt, ap);
    va_end(ap);
}

void mana_warn(const char *fmt, ...)
{
    if (mana_log_cfg.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vlog("", fmt, ap);
    va_end(ap);
}

void mana_dbg(const char *fmt, ...)
{
    if (!mana_log_cfg.debug) return;
    va_list ap;
    va_start(ap, fmt);
    char tag[32];
    snprintf(tag, sizeof tag, "[%d] ", mana_gettid());
    vlog(tag, fmt, ap);
    va_end(ap);
}

void mana_timing(const char *what, int64_t ns)
{
    if (!mana_log_cfg.timing) return;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s: timing: %s %.3f ms\n", mana_log_cfg.who, what, ns / 1e6);
    if (n > 0) mana_write_all(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static int64_t clock_ns(int clk)
{
    struct timespec ts;
    /* Raw syscall: no vdso, so it works whatever the vdso/TLS state. */
    if (mana_sys2(SYS_clock_gettime, clk, (long)&ts) < 0) return 0;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
int64_t mana_now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
int64_t mana_realtime_ns(void) { return clock_ns(CLOCK_REALTIME); }

/* ---- CRC-32C ---- */
static uint32_t crc_table[8][256];
static int crc_init_done;
static int crc_hw = -1;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
    crc_init_done = 1;
}

static uint32_t crc_sw(uint32_t c, const unsigned char *p, size_t n)
{
    if (!crc_init_done) crc_init();
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        v ^= c;
        c = crc_table[7][v & 0xff] ^ crc_table[6][(v >> 8) & 0xff] ^ crc_table[5][(v >> 16) & 0xff] ^
            crc_table[4][(v >> 24) & 0xff] ^ crc_table[3][(v >> 32) & 0xff] ^
            crc_table[2][(v >> 40) & 0xff] ^ crc_table[1][(v >> 48) & 0xff] ^ crc_table[0][v >> 56];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
    return c;
}

/* x^(8n) mod P shifting, used to combine three interleaved hardware streams. */
static uint32_t gf2_mul(uint32_t a, uint32_t b)
{
    /* multiply two reflected polynomials modulo P (bitwise; only used for the small table) */
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) {
        if (b & 0x80000000u >> i) r ^= a;
        a = (a & 1) ? (a >> 1) ^ 0x82F63B78u : a >> 1;
    }
    return r;
}

#define CRC_BLOCK 8192                 /* bytes per stream per round in the 3-way loop */
static uint32_t crc_shift_block;       /* x^(8*CRC_BLOCK) in reflected form */
static uint32_t crc_shift_block2;      /* x^(16*CRC_BLOCK) */

static uint32_t xpow8n(size_t n)
{
    /* x^(8n) mod P, reflected: start from x^0 = 0x80000000 and multiply by x^8 n times via squaring */
    uint32_t result = 0x80000000u, base = 0x00800000u; /* x^8 */
    while (n) {
        if (n & 1) result = gf2_mul(result, base);
        base = gf2_mul(base, base);
        n >>= 1;
    }
    return result;
}

__attribute__((target("sse4.2")))
static uint32_t crc_hw_run(uint32_t c, const unsigned char *p, size_t n)
{
    uint64_t c0 = c;
    while (n && ((uintptr_t)p & 7)) { c0 = __builtin_ia32_crc32qi((uint32_t)c0, *p++); n--; }
    /* three independent streams hide the 3-cycle latency of crc32q */
    while (n >= 3 * CRC_BLOCK) {
        uint64_t c1 = 0, c2 = 0;
        const uint64_t *a = (const uint64_t *)p, *b = (const uint64_t *)(p + CRC_BLOCK),
                       *d = (const uint64_t *)(p + 2 * CRC_BLOCK);
        for (size_t i = 0; i < CRC_BLOCK / 8; i++) {
            c0 = __builtin_ia32_crc32di(c0, a[i]);
            c1 = __builtin_ia32_crc32di(c1, b[i]);
            c2 = __builtin_ia32_crc32di(c2, d[i]);
        }
        c0 = gf2_mul((uint32_t)c0, crc_shift_block2) ^ gf2_mul((uint32_t)c1, crc_shift_block) ^ (uint32_t)c2;
        p += 3 * CRC_BLOCK;
        n -= 3 * CRC_BLOCK;
    }
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c0 = __builtin_ia32_crc32di(c0, v);
        p += 8;
        n -= 8;
    }
    while (n--) c0 = __builtin_ia32_crc32qi((uint32_t)c0, *p++);
    return (uint32_t)c0;
}

uint32_t mana_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
    if (crc_hw < 0) {
        crc_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
        crc_shift_block = xpow8n(CRC_BLOCK);
        crc_shift_block2 = xpow8n(2 * CRC_BLOCK);
    }
    uint32_t c = ~crc;
    c = crc_hw ? crc_hw_run(c, buf, len) : crc_sw(c, buf, len);
    return ~c;
}

uint32_t mana_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    /* crc(A.B) = crc(A) * x^(8 len(B)) + crc(B) mod P: the pre- and post-conditioning terms cancel */
    return gf2_mul(crc_a, xpow8n((size_t)len_b)) ^ crc_b;
}

/* ---- /proc files and maps ---- */
long mana_read_file(const char *path, char *buf, size_t cap)
{
    long fd = mana_sys4(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return fd;
    size_t got = 0;
    for (;;) {
        if (got + 1 >= cap) { mana_sys1(SYS_close, fd); return -7; /* E2BIG */ }
        long r = mana_sys3(SYS_read, fd, (long)(buf + got), (long)(cap - 1 - got));
        if (r == -4) continue;
        if (r < 0) { mana_sys1(SYS_close, fd); return r; }
        if (r == 0) break;
        got += (size_t)r;
    }
    buf[got] = 0;
    mana_sys1(SYS_close, fd);
    return (long)got;
}

static uint64_t parse_hex(char **pp)
{
    uint64_t v = 0;
    char *p = *pp;
    for (;; p++) {
        char ch = *p;
        if (ch >= '0' && ch <= '9') v = v * 16 + (uint64_t)(ch - '0');
        else if (ch >= 'a' && ch <= 'f') v = v * 16 + (uint64_t)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F') v = v * 16 + (uint64_t)(ch - 'A' + 10);
        else break;
    }
    *pp = p;
    return v;
}

int mana_parse_maps(char *text, struct mana_map *maps, int cap)
{
    int n = 0;
    char *p = text;
    while (*p) {
        char *eol = strchr(p, '\n');
        if (eol) *eol = 0;
        if (n >= cap) return -1;
        struct mana_map *m = &maps[n];
        memset(m, 0, sizeof *m);
        char *q = p;
        m->start = parse_hex(&q);
        if (*q == '-') q++;
        m->end = parse_hex(&q);
        while (*q == ' ') q++;
        if (q[0] == 'r') m->prot |= PROT_READ;
        if (q[1] == 'w') m->prot |= PROT_WRITE;
        if (q[2] == 'x') m->prot |= PROT_EXEC;
        m->shared = q[3] == 's';
        q += 4;
        while (*q == ' ') q++;
        m->offset = parse_hex(&q);
        while (*q == ' ') q++;
        m->dev_major = (uint32_t)parse_hex(&q);
        if (*q == ':') q++;
        m->dev_minor = (uint32_t)parse_hex(&q);
        while (*q == ' ') q++;
        uint64_t ino = 0;
        while (*q >= '0' && *q <= '9') ino = ino * 10 + (uint64_t)(*q++ - '0');
        m->inode = ino;
        while (*q == ' ') q++;
        m->name = q;
        n++;
        if (!eol) break;
        p = eol + 1;
    }
    return n;
}

int mana_range_overlaps(const struct mana_range *r, uint32_t n, uint64_t start, uint64_t end)
{
    for (uint32_t i = 0; i < n; i++)
        if (r[i].start < end && start < r[i].end) return 1;
    return 0;
}

uint64_t mana_range_piece(const struct mana_range *r, uint32_t n, uint64_t start, uint64_t end, int *inside)
{
    uint64_t e = end;
    *inside = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (r[i].start <= start && start < r[i].end) {
            *inside = 1;
            if (r[i].end < e) e = r[i].end;
        } else if (r[i].start > start && r[i].start < e) {
            e = r[i].start;
        }
    }
    return e;
}

void mana_image_name(char *buf, size_t len, const char *dir, int rank, const char *program,
                     uint32_t generation, int tmp)
{
    snprintf(buf, len, "%s/ckpt_rank_%d/ckpt_%s_gen%u.mana%s", dir, rank, program, generation,
             tmp ? ".tmp" : "");
}

uint32_t mana_image_generation(const char *name)
{
    size_t n = strlen(name);
    if (n < 15 || strncmp(name, "ckpt_", 5) != 0 || strcmp(name + n - 5, ".mana") != 0) return 0;
    /* find the last "_gen" */
    const char *g = NULL;
    for (const char *p = name; (p = strstr(p, "_gen")) != NULL; p++) g = p;
    if (!g) return 0;
    const char *d = g + 4;
    uint64_t v = 0;
    if (d >= name + n - 5) return 0;
    for (; d < name + n - 5; d++) {
        if (*d < '0' || *d > '9') return 0;
        v = v * 10 + (uint64_t)(*d - '0');
        if (v > 0xffffffffu) return 0;
    }
    return (uint32_t)v;
}
