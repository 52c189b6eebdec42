/*
 * image_check.c - read a MANA checkpoint image and check it against the rules of the format, once,
 * for both of its users: the restore (restore.c) and `lower-half --check IMAGE` (main.c).
 *
 * The rules are the list in docs/image-format.md, "What a reader checks"; the Java reader
 * (image-inspector, ManaImageReader) applies the same list, and CheckAgreementTest feeds both the same
 * mutated images and wants the same verdict on each.  A rule added here is added there too.
 *
 * This runs in the lower half before the upper half exists, on the lower half's libc (pread, malloc,
 * snprintf), like the rest of restore.c before its final step; every call's result is checked.  The
 * first broken rule ends the check with one line in im->err.
 */
#define _GNU_SOURCE
#include "image_check.h"
#include "mana_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define PAGE ((uint64_t)MANA_IMG_PAGE_SIZE)

static const char *sec_name(uint32_t type)
{
    static const char *names[] = { "?", "PROCESS", "MEMORY", "THREADS", "FILES", "SIGNALS", "MPI", "FILEDATA",
                                   "MPI_OBJECTS", "PARENT", "ZSTD" };
    return type >= 1 && type <= 10 ? names[type] : "unknown";
}

/* One line in im->err: "PATH: KIND: detail".  Always -1. */
__attribute__((format(printf, 3, 4)))
static int bad(struct mana_image *im, const char *kind, const char *fmt, ...)
{
    int n = snprintf(im->err, sizeof im->err, "%s: %s: ", im->path, kind);
    if (n < 0 || (size_t)n >= sizeof im->err) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(im->err + n, sizeof im->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int read_at(struct mana_image *im, void *buf, uint64_t len, uint64_t off)
{
    char *p = buf;
    while (len) {
        ssize_t r = pread(im->fd, p, len, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return bad(im, "cannot read", "offset %llu: %s", (unsigned long long)off, strerror(errno));
        if (r == 0) return bad(im, "truncated", "the file ends at offset %llu", (unsigned long long)off);
        p += r;
        off += (uint64_t)r;
        len -= (uint64_t)r;
    }
    return 0;
}

/* A cursor over one loaded section, as the Java reader's: every read checks what is left. */
struct cur {
    struct mana_image *im;
    const char *base, *p, *end;
    uint32_t type;
};

static int need(struct cur *c, uint64_t n, const char *field)
{
    if (n <= (uint64_t)(c->end - c->p)) return 0;
    const struct mana_img_section *s = c->im->sec_ent[c->type];
    return bad(c->im, "corrupt", "section %s (offset %llu): %s at byte %ld needs %llu bytes, %ld are left",
               sec_name(c->type), (unsigned long long)s->offset, field, (long)(c->p - c->base), (unsigned long long)n,
               (long)(c->end - c->p));
}

static int take(struct cur *c, void *out, uint64_t n, const char *field)
{
    if (need(c, n, field)) return -1;
    memcpy(out, c->p, n);
    c->p += n;
    return 0;
}

/* `len` bytes of string (no NUL in the image), then zeros to a multiple of 8 from the section start;
 * the copy in `*out` is NUL-terminated (malloc'd). */
static int string_n(struct cur *c, uint64_t len, const char **out, const char *field)
{
    if (need(c, len, field)) return -1;
    char *s = malloc(len + 1);
    if (!s) return bad(c->im, "out of memory", "%s", field);
    memcpy(s, c->p, len);
    s[len] = 0;
    c->p += len;
    uint64_t pad = (8 - ((uint64_t)(c->p - c->base) & 7)) & 7;
    if (need(c, pad, field)) { free(s); return -1; }
    c->p += pad;
    *out = s;
    return 0;
}

/* u32 length + bytes + padding. */
static int string(struct cur *c, const char **out, const char *field)
{
    uint32_t len;
    if (take(c, &len, 4, field)) return -1;
    return string_n(c, len, out, field);
}

static int at_end(struct cur *c)
{
    if (c->p == c->end) return 0;
    return bad(c->im, "corrupt", "section %s (offset %llu): %ld bytes after the last record", sec_name(c->type),
               (unsigned long long)c->im->sec_ent[c->type]->offset, (long)(c->end - c->p));
}

static void cur_init(struct cur *c, struct mana_image *im, uint32_t type)
{
    c->im = im;
    c->type = type;
    c->base = c->p = im->sec[type];
    c->end = c->base + im->sec_len[type];
}

/* ---- header and table ---- */

static int check_header(struct mana_image *im)
{
    struct mana_img_header *h = &im->h;
    if (im->size < sizeof *h)
        return bad(im, "truncated", "%llu bytes, shorter than the %zu-byte header", (unsigned long long)im->size,
                   sizeof *h);
    if (read_at(im, h, sizeof *h, 0)) return -1;
    if (memcmp(h->magic, MANA_IMG_MAGIC, 8) != 0) return bad(im, "not a MANA checkpoint image", "bad magic");
    if (h->version != MANA_IMG_VERSION)
        return bad(im, "unsupported", "image format version %u (this reader knows %u)", h->version, MANA_IMG_VERSION);
    if (h->header_size != MANA_IMG_HEADER_SIZE)
        return bad(im, "corrupt", "header: header_size is %u, version 1 has 256", h->header_size);
    struct mana_img_header z = *h;
    z.header_crc = 0;
    uint32_t crc = mana_crc32c_update(0, &z, sizeof z);
    if (crc != h->header_crc)
        return bad(im, "corrupt", "header: checksum mismatch (stored 0x%08x, computed 0x%08x)", h->header_crc, crc);
    if (im->size < h->file_size)
        return bad(im, "truncated", "the file has %llu bytes, its header says %llu", (unsigned long long)im->size,
                   (unsigned long long)h->file_size);
    if (im->size > h->file_size)
        return bad(im, "corrupt", "%llu bytes follow the end the header declares (file_size %llu)",
                   (unsigned long long)(im->size - h->file_size), (unsigned long long)h->file_size);
    if (h->page_size != PAGE) return bad(im, "unsupported", "header: page size %u (version 1 has 4096)", h->page_size);
    if (h->section_entry_size != sizeof(struct mana_img_section))
        return bad(im, "corrupt", "header: section_entry_size is %u, version 1 has 32", h->section_entry_size);
    return 0;
}

static int check_table(struct mana_image *im)
{
    const struct mana_img_header *h = &im->h;
    if (h->section_count == 0 || h->section_count > MANA_IMG_MAX_SECTIONS)
        return bad(im, "corrupt", "header: section count %u (1 to %d)", h->section_count, MANA_IMG_MAX_SECTIONS);
    uint64_t tab_len = (uint64_t)h->section_count * sizeof(struct mana_img_section);
    if (h->section_table_offset < PAGE || h->section_table_offset > h->file_size ||
        h->file_size - h->section_table_offset != tab_len)
        return bad(im, "corrupt", "section table at offset %llu with %u entries does not end the file (%llu bytes)",
                   (unsigned long long)h->section_table_offset, h->section_count, (unsigned long long)h->file_size);
    if (read_at(im, im->tab, tab_len, h->section_table_offset)) return -1;
    im->nsec = h->section_count;
    for (uint32_t i = 0; i < im->nsec; i++) {
        const struct mana_img_section *s = &im->tab[i];
        uint64_t end = s->offset + s->length;
        if (s->offset < PAGE || end < s->offset || end > h->section_table_offset)
            return bad(im, "corrupt", "section %u (%s): bytes [%llu, +%llu) lie outside the metadata area [4096, %llu)",
                       i, sec_name(s->type), (unsigned long long)s->offset, (unsigned long long)s->length,
                       (unsigned long long)h->section_table_offset);
        if (s->offset & 7)
            return bad(im, "corrupt", "section %u (%s): offset %llu is not 8-byte aligned", i, sec_name(s->type),
                       (unsigned long long)s->offset);
        if ((s->type < 1 || s->type > 7) && s->type != MANA_SEC_PARENT && s->type != MANA_SEC_ZSTD)
            continue;                                        /* unknown: skipped (its CRC: check_bytes) */
        if (im->sec_ent[s->type]) return bad(im, "corrupt", "section %s appears twice", sec_name(s->type));
        im->sec_ent[s->type] = s;
    }
    for (uint32_t t = MANA_SEC_PROCESS; t <= MANA_SEC_SIGNALS; t++)
        if (!im->sec_ent[t]) return bad(im, "corrupt", "no %s section", sec_name(t));
    for (uint32_t t = 1; t <= MANA_SEC_ZSTD; t++)
        if (im->sec_ent[t] && im->sec_ent[t]->version != 1)
            return bad(im, "unsupported", "section %s has layout version %u (this reader knows 1)", sec_name(t),
                       im->sec_ent[t]->version);
    /* page 0 after the header is zero (the header is written last, over a zero page) */
    char page0[PAGE - sizeof(struct mana_img_header)];
    if (read_at(im, page0, sizeof page0, sizeof(struct mana_img_header))) return -1;
    for (size_t i = 0; i < sizeof page0; i++)
        if (page0[i])
            return bad(im, "corrupt", "byte %zu of page 0 (after the header) is not zero", i + sizeof(struct mana_img_header));
    return 0;
}

static int check_header_values(struct mana_image *im)
{
    const struct mana_img_header *h = &im->h;
    if (h->nranks < 1 || h->rank >= h->nranks) return bad(im, "corrupt", "header: rank %u of %u ranks", h->rank, h->nranks);
    if (h->generation < 1) return bad(im, "corrupt", "header: generation 0 (the first is 1)");
    int has_mpi = im->sec_ent[MANA_SEC_MPI] != NULL;
    if (!!(h->flags & MANA_IMG_F_MPI) != has_mpi)
        return bad(im, "corrupt", has_mpi ? "the image has an MPI section; the header's MPI flag is clear"
                                          : "the header says the image has an MPI section; there is none");
    int has_parent = im->sec_ent[MANA_SEC_PARENT] != NULL;
    if (!!(h->flags & MANA_IMG_F_INCREMENTAL) != has_parent)
        return bad(im, "corrupt", has_parent ? "the image has a PARENT section; the header's incremental flag is clear"
                                             : "the header says the image is incremental; there is no PARENT section");
    if ((h->flags & MANA_IMG_F_INCREMENTAL) && (h->flags & MANA_IMG_F_UNTRACKED))
        return bad(im, "corrupt", "header: flags %#x: an incremental image cannot be untracked", h->flags);
    return 0;
}

/* PARENT (incremental images): small, read whole here; the chain itself is the restore's to follow. */
static int parse_parent(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_PARENT];
    if (!s) return 0;
    struct mana_img_parent *p = &im->parent;
    if (s->count != 1 || s->length < sizeof *p || s->length > sizeof *p + sizeof im->parent_name)
        return bad(im, "corrupt", "section PARENT (offset %llu): count %u, length %llu (want 1 record of %zu bytes and "
                   "a name)", (unsigned long long)s->offset, s->count, (unsigned long long)s->length, sizeof *p);
    char buf[sizeof *p + sizeof im->parent_name];
    if (read_at(im, buf, s->length, s->offset)) return -1;
    uint32_t crc = mana_crc32c_update(0, buf, s->length);
    if (crc != s->crc)
        return bad(im, "corrupt", "section PARENT (offset %llu): checksum mismatch (stored 0x%08x, computed 0x%08x)",
                   (unsigned long long)s->offset, s->crc, crc);
    memcpy(p, buf, sizeof *p);
    if (p->name_len == 0 || p->name_len >= sizeof im->parent_name || ((sizeof *p + p->name_len + 7) & ~7ULL) != s->length)
        return bad(im, "corrupt", "section PARENT (offset %llu): a name of %u bytes does not fill the %llu-byte section",
                   (unsigned long long)s->offset, p->name_len, (unsigned long long)s->length);
    memcpy(im->parent_name, buf + sizeof *p, p->name_len);
    im->parent_name[p->name_len] = 0;
    if (strlen(im->parent_name) != p->name_len || strchr(im->parent_name, '/') ||
        strcmp(im->parent_name, ".") == 0 || strcmp(im->parent_name, "..") == 0)
        return bad(im, "corrupt", "section PARENT: the parent's name is not a file name of this folder");
    for (uint32_t k = p->name_len; sizeof *p + k < s->length; k++)
        if (buf[sizeof *p + k]) return bad(im, "corrupt", "section PARENT: padding after the name is not zero");
    if (p->generation < 1 || p->generation >= im->h.generation)
        return bad(im, "corrupt", "section PARENT: parent generation %u, this image is generation %u (the parent is older)",
                   p->generation, im->h.generation);
    if (p->depth < 1 || p->depth >= MANA_IMG_MAX_CHAIN)
        return bad(im, "corrupt", "section PARENT: chain depth %u (1 to %u)", p->depth, MANA_IMG_MAX_CHAIN - 1);
    return 0;
}

/* The sections the restore reads (types 1..5) are loaded whole (bounded) and their CRC checked; the
 * MPI section is opaque to this layer (its CRC: check_bytes). */
static int load_sections(struct mana_image *im)
{
    for (uint32_t t = MANA_SEC_PROCESS; t <= MANA_SEC_SIGNALS; t++) {
        const struct mana_img_section *s = im->sec_ent[t];
        if (!s) continue;
        if (s->length > MANA_IMG_MAX_META)
            return bad(im, "corrupt", "section %s (offset %llu): absurd length %llu", sec_name(t),
                       (unsigned long long)s->offset, (unsigned long long)s->length);
        im->sec[t] = malloc(s->length ? s->length : 1);
        if (!im->sec[t]) return bad(im, "out of memory", "section %s: %llu bytes", sec_name(t), (unsigned long long)s->length);
        if (read_at(im, im->sec[t], s->length, s->offset)) return -1;
        im->sec_len[t] = s->length;
        uint32_t crc = mana_crc32c_update(0, im->sec[t], s->length);
        if (crc != s->crc)
            return bad(im, "corrupt", "section %s (offset %llu): checksum mismatch (stored 0x%08x, computed 0x%08x)",
                       sec_name(t), (unsigned long long)s->offset, s->crc, crc);
    }
    return 0;
}

/* ---- sections ---- */

static int parse_process(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_PROCESS];
    if (s->count != 1) return bad(im, "corrupt", "section PROCESS (offset %llu): count is %u, must be 1",
                                  (unsigned long long)s->offset, s->count);
    struct cur c;
    cur_init(&c, im, MANA_SEC_PROCESS);
    if (take(&c, &im->proc, sizeof im->proc, "the process record") || string(&c, &im->exe, "exe path") ||
        string(&c, &im->cwd, "cwd"))
        return -1;
    uint32_t argc[2];
    if (take(&c, argc, 8, "argc")) return -1;
    if ((uint64_t)argc[0] * 4 > (uint64_t)(c.end - c.p))
        return bad(im, "corrupt", "section PROCESS (offset %llu): absurd argc %u", (unsigned long long)s->offset, argc[0]);
    for (uint32_t i = 0; i < argc[0]; i++) {
        const char *arg;
        if (string(&c, &arg, "an argument")) return -1;
        free((void *)arg);                                   /* the upper half has argv; checked only */
    }
    im->argc = argc[0];
    if (at_end(&c)) return -1;
    if (!im->proc.lh_info_slot)
        return bad(im, "corrupt", "section PROCESS (offset %llu): lh_info_slot is 0", (unsigned long long)s->offset);
    return 0;
}

/* Not carried by the image: lower half, kernel, guard, and shared file mappings without a copy. */
static int saved_kind(const struct mana_img_region *r)
{
    if (r->flags & (MANA_REG_LOWER | MANA_REG_VDSO | MANA_REG_VVAR | MANA_REG_GUARD)) return 0;
    return !((r->flags & MANA_REG_SHARED) && (r->flags & MANA_REG_FILE) && r->stored_bytes == 0);
}

static uint64_t metadata_start(const struct mana_image *im);

/* ZSTD: one record per compressed region, in region order; the compressed payload lies in the payload
 * area (the rule MEMORY applies to other payloads).  Read after MEMORY. */
static int parse_zstd(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_ZSTD];
    uint32_t flagged = 0;
    for (uint32_t i = 0; i < im->nregs; i++) if (im->regs[i].r.flags & MANA_REG_ZSTD) flagged++;
    if (!s) {
        if (flagged) return bad(im, "corrupt", "%u regions are compressed; there is no ZSTD section", flagged);
        return 0;
    }
    if (s->count != flagged || (uint64_t)s->count * sizeof(struct mana_img_zstd) != s->length)
        return bad(im, "corrupt", "section ZSTD (offset %llu): %u records in %llu bytes, %u regions are compressed",
                   (unsigned long long)s->offset, s->count, (unsigned long long)s->length, flagged);
    if (s->length > MANA_IMG_MAX_META)
        return bad(im, "corrupt", "section ZSTD (offset %llu): absurd length %llu", (unsigned long long)s->offset,
                   (unsigned long long)s->length);
    struct mana_img_zstd *z = malloc(s->length ? s->length : 1);
    if (!z) return bad(im, "out of memory", "section ZSTD");
    if (read_at(im, z, s->length, s->offset)) { free(z); return -1; }
    uint32_t crc = mana_crc32c_update(0, z, s->length);
    int rc = 0;
    if (crc != s->crc)
        rc = bad(im, "corrupt", "section ZSTD (offset %llu): checksum mismatch (stored 0x%08x, computed 0x%08x)",
                 (unsigned long long)s->offset, s->crc, crc);
    uint64_t limit = metadata_start(im);
    for (uint32_t k = 0; k < s->count && !rc; k++) {
        uint32_t i = z[k].region;
        if (i >= im->nregs || !(im->regs[i].r.flags & MANA_REG_ZSTD) || (k && i <= z[k - 1].region)) {
            rc = bad(im, "corrupt", "section ZSTD: record %u names region %u: not a compressed region, or out of order", k, i);
            break;
        }
        const struct mana_img_region *r = &im->regs[i].r;
        uint64_t pe = r->payload_offset + z[k].compressed_bytes;
        if (!z[k].compressed_bytes || r->payload_offset % PAGE || r->payload_offset < PAGE || pe < r->payload_offset ||
            pe > limit)
            rc = bad(im, "corrupt", "region %u: compressed payload [%llu, +%llu) is empty, misaligned or outside the "
                     "payload area [4096, %llu)", i, (unsigned long long)r->payload_offset,
                     (unsigned long long)z[k].compressed_bytes, (unsigned long long)limit);
        im->regs[i].payload_len = z[k].compressed_bytes;
    }
    free(z);
    return rc;
}

/* Payloads lie after page 0 and before the first section. */
static uint64_t metadata_start(const struct mana_image *im)
{
    uint64_t m = im->h.section_table_offset;
    for (uint32_t i = 0; i < im->nsec; i++)
        if (im->tab[i].offset < m) m = im->tab[i].offset;
    return m;
}

static int parse_memory(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_MEMORY];
    uint32_t n = s->count;
    if (n > MANA_IMG_MAX_REGIONS || (uint64_t)n * sizeof(struct mana_img_region) > im->sec_len[MANA_SEC_MEMORY])
        return bad(im, "corrupt", "section MEMORY (offset %llu): absurd region count %u for %llu bytes",
                   (unsigned long long)s->offset, n, (unsigned long long)im->sec_len[MANA_SEC_MEMORY]);
    im->regs = calloc(n ? n : 1, sizeof *im->regs);
    if (!im->regs) return bad(im, "out of memory", "%u regions", n);
    struct cur c;
    cur_init(&c, im, MANA_SEC_MEMORY);
    uint64_t limit = metadata_start(im), prev_end = 0, stored_total = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct mana_image_region *g = &im->regs[i];
        struct mana_img_region *r = &g->r;
        if (take(&c, r, sizeof *r, "a region record")) return -1;
        if (r->name_len > MANA_IMG_MAX_NAME)
            return bad(im, "corrupt", "section MEMORY: region %u: absurd name length %u", i, r->name_len);
        if (string_n(&c, r->name_len, &g->name, "a region name")) return -1;
        im->nregs = i + 1;                                   /* names to free */
        if ((uint64_t)r->run_count * sizeof(struct mana_img_run) > (uint64_t)(c.end - c.p))
            return bad(im, "corrupt", "section MEMORY: region %u: absurd run count %u", i, r->run_count);
        g->runs = (const struct mana_img_run *)c.p;
        c.p += (uint64_t)r->run_count * sizeof(struct mana_img_run);
        if (r->zero_run_count && !(im->h.flags & MANA_IMG_F_INCREMENTAL))
            return bad(im, "corrupt", "section MEMORY: region %u: %u zero runs in a full image", i, r->zero_run_count);
        if ((uint64_t)r->zero_run_count * sizeof(struct mana_img_run) > (uint64_t)(c.end - c.p))
            return bad(im, "corrupt", "section MEMORY: region %u: absurd zero run count %u", i, r->zero_run_count);
        g->zero_runs = (const struct mana_img_run *)c.p;
        c.p += (uint64_t)r->zero_run_count * sizeof(struct mana_img_run);
        const char *nm = g->name[0] ? g->name : "(anonymous)";
        uint64_t pages = r->end > r->start ? (r->end - r->start) / PAGE : 0, next = 0, sum = 0;
        for (uint32_t k = 0; k < r->run_count; k++) {
            uint64_t first = g->runs[k].first_page, cnt = g->runs[k].page_count;
            if (cnt == 0 || first < next || first > pages || cnt > pages - first)
                return bad(im, "corrupt", "section MEMORY: region %u %s: run %u (pages %llu+%llu) is empty, out of "
                           "order, overlapping or outside the region's %llu pages", i, nm, k, (unsigned long long)first,
                           (unsigned long long)cnt, (unsigned long long)pages);
            next = first + cnt;
            sum += cnt;
        }
        /* zero runs: sorted, disjoint, inside the region, and on no stored page */
        next = 0;
        uint32_t sk = 0;
        for (uint32_t k = 0; k < r->zero_run_count; k++) {
            uint64_t first = g->zero_runs[k].first_page, cnt = g->zero_runs[k].page_count;
            if (cnt == 0 || first < next || first > pages || cnt > pages - first)
                return bad(im, "corrupt", "section MEMORY: region %u %s: zero run %u (pages %llu+%llu) is empty, out of "
                           "order, overlapping or outside the region's %llu pages", i, nm, k, (unsigned long long)first,
                           (unsigned long long)cnt, (unsigned long long)pages);
            next = first + cnt;
            while (sk < r->run_count && g->runs[sk].first_page + g->runs[sk].page_count <= first) sk++;
            if (sk < r->run_count && g->runs[sk].first_page < next)
                return bad(im, "corrupt", "section MEMORY: region %u %s: zero run %u (pages %llu+%llu) overlaps stored "
                           "run %u", i, nm, k, (unsigned long long)first, (unsigned long long)cnt, sk);
        }
        if (r->start % PAGE || r->end % PAGE || r->end <= r->start)
            return bad(im, "corrupt", "section MEMORY: region %u: [%#llx, %#llx) is empty or not page-aligned", i,
                       (unsigned long long)r->start, (unsigned long long)r->end);
        if (r->start < prev_end)
            return bad(im, "corrupt", "section MEMORY: region %u at %#llx overlaps or precedes the previous one (ends "
                       "%#llx)", i, (unsigned long long)r->start, (unsigned long long)prev_end);
        prev_end = r->end;
        if (sum * PAGE != r->stored_bytes)
            return bad(im, "corrupt", "section MEMORY: region %u %s: stored_bytes %llu, its runs hold %llu pages", i, nm,
                       (unsigned long long)r->stored_bytes, (unsigned long long)sum);
        g->payload_len = r->stored_bytes;
        if ((r->flags & MANA_REG_ZSTD) && !r->stored_bytes)
            return bad(im, "corrupt", "section MEMORY: region %u %s: compressed, but nothing is stored", i, nm);
        uint64_t pe = r->payload_offset + r->stored_bytes;
        if (r->stored_bytes && !(r->flags & MANA_REG_ZSTD) && (r->payload_offset % PAGE || r->payload_offset < PAGE ||
                                pe < r->payload_offset || pe > limit))
            return bad(im, "corrupt", "section MEMORY: region %u %s: payload [%llu, +%llu) is misaligned or outside the "
                       "payload area [4096, %llu)", i, nm, (unsigned long long)r->payload_offset,
                       (unsigned long long)r->stored_bytes, (unsigned long long)limit);
        if (!r->stored_bytes && r->payload_crc)
            return bad(im, "corrupt", "section MEMORY: region %u %s: payload_crc is set but nothing is stored", i, nm);
        if (!saved_kind(r) && (r->stored_bytes || r->run_count || r->zero_run_count))
            return bad(im, "corrupt", "section MEMORY: region %u %s: a region of this kind (flags %#x) stores nothing, "
                       "it stores %llu bytes", i, nm, r->flags, (unsigned long long)r->stored_bytes);
        stored_total += r->stored_bytes;
    }
    if (at_end(&c)) return -1;
    if (stored_total != im->h.stored_bytes)
        return bad(im, "corrupt", "header: stored_bytes %llu, the regions store %llu",
                   (unsigned long long)im->h.stored_bytes, (unsigned long long)stored_total);
    return 0;
}

/* ---- who owns which bytes of the file ---- */

enum { EX_PAGE0, EX_PAYLOAD, EX_SECTION, EX_TABLE };
struct extent { uint64_t start, end; int kind; uint32_t idx; };    /* idx: region or table entry */

static int by_start(const void *a, const void *b)
{
    const struct extent *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* Page 0, every payload, every section and the table, sorted by offset. */
static struct extent *extents(struct mana_image *im, uint32_t *count)
{
    struct extent *e = malloc(((uint64_t)im->nregs + im->nsec + 2) * sizeof *e);
    if (!e) { bad(im, "out of memory", "extents"); return NULL; }
    uint32_t n = 0;
    e[n++] = (struct extent){ 0, PAGE, EX_PAGE0, 0 };
    for (uint32_t i = 0; i < im->nregs; i++)
        if (im->regs[i].r.stored_bytes)
            e[n++] = (struct extent){ im->regs[i].r.payload_offset,
                                      im->regs[i].r.payload_offset + im->regs[i].payload_len, EX_PAYLOAD, i };
    for (uint32_t i = 0; i < im->nsec; i++)
        e[n++] = (struct extent){ im->tab[i].offset, im->tab[i].offset + im->tab[i].length, EX_SECTION, i };
    e[n++] = (struct extent){ im->h.section_table_offset, im->h.file_size, EX_TABLE, 0 };
    qsort(e, n, sizeof *e, by_start);
    *count = n;
    return e;
}

/* No byte of the file is claimed twice (payloads, sections and the table do not overlap). */
static int check_overlap(struct mana_image *im)
{
    uint32_t n;
    struct extent *e = extents(im, &n);
    if (!e) return -1;
    uint64_t reach = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].end <= e[i].start) continue;               /* empty */
        if (e[i].start < reach) {
            uint64_t s = e[i].start, t = e[i].end < reach ? e[i].end : reach;
            free(e);
            return bad(im, "corrupt", "file bytes [%llu, %llu) are claimed twice (payloads, sections or the table "
                       "overlap)", (unsigned long long)s, (unsigned long long)t);
        }
        reach = e[i].end;
    }
    free(e);
    return 0;
}

static const struct mana_image_region *region_at(const struct mana_image *im, uint64_t a)
{
    uint32_t lo = 0, hi = im->nregs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct mana_img_region *r = &im->regs[mid].r;
        if (a < r->start) hi = mid;
        else if (a >= r->end) lo = mid + 1;
        else return &im->regs[mid];
    }
    return NULL;
}

static int parse_threads(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_THREADS];
    if ((uint64_t)s->count * sizeof(struct mana_img_thread) != im->sec_len[MANA_SEC_THREADS] || s->count == 0)
        return bad(im, "corrupt", "section THREADS (offset %llu): count %u does not fill its %llu bytes (296 per thread, "
                   "at least one)", (unsigned long long)s->offset, s->count, (unsigned long long)im->sec_len[MANA_SEC_THREADS]);
    im->thr = (const struct mana_img_thread *)im->sec[MANA_SEC_THREADS];
    im->nthr = s->count;
    int mains = 0;
    for (uint32_t i = 0; i < im->nthr; i++) {
        const struct mana_img_thread *t = &im->thr[i];
        if (t->flags & MANA_THR_MAIN) mains++;
        if (!t->ucontext_addr && !t->ctx_addr)
            return bad(im, "corrupt", "section THREADS: thread %d has no saved context", t->tid);
        if (t->stack_end && (!region_at(im, t->stack_start) || !region_at(im, t->stack_end - 1)))
            return bad(im, "corrupt", "section THREADS: thread %d: stack [%#llx, %#llx) is not in the memory map", t->tid,
                       (unsigned long long)t->stack_start, (unsigned long long)t->stack_end);
    }
    if (mains > 1) return bad(im, "corrupt", "section THREADS: %d threads are flagged MAIN", mains);
    return 0;
}

static int parse_files(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_FILES];
    uint32_t n = s->count;
    if ((uint64_t)n * sizeof(struct mana_img_file) > im->sec_len[MANA_SEC_FILES])
        return bad(im, "corrupt", "section FILES (offset %llu): absurd count %u for %llu bytes",
                   (unsigned long long)s->offset, n, (unsigned long long)im->sec_len[MANA_SEC_FILES]);
    im->files = calloc(n ? n : 1, sizeof *im->files);
    if (!im->files) return bad(im, "out of memory", "%u files", n);
    struct cur c;
    cur_init(&c, im, MANA_SEC_FILES);
    for (uint32_t i = 0; i < n; i++) {
        struct mana_image_file *f = &im->files[i];
        if (take(&c, &f->f, sizeof f->f, "a file record")) return -1;
        if (f->f.path_len > MANA_IMG_MAX_NAME)
            return bad(im, "corrupt", "section FILES: fd %d: absurd path length %u", f->f.fd, f->f.path_len);
        if (string_n(&c, f->f.path_len, &f->path, "a file path")) return -1;
        im->nfiles = i + 1;
        if (f->f.fd < 0) return bad(im, "corrupt", "section FILES: record %u has descriptor %d", i, f->f.fd);
    }
    return at_end(&c);
}

static int parse_signals(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_SIGNALS];
    struct cur c;
    cur_init(&c, im, MANA_SEC_SIGNALS);
    if (take(&c, &im->sig, sizeof im->sig, "the signals head")) return -1;
    uint64_t rest = (uint64_t)(c.end - c.p);
    if (im->sig.nsig != s->count)
        return bad(im, "corrupt", "section SIGNALS: nsig %u differs from the table's count %u", im->sig.nsig, s->count);
    if (im->sig.nsig > MANA_IMG_MAX_SIGACTIONS || im->sig.ntimers > MANA_IMG_MAX_TIMERS)
        return bad(im, "corrupt", "section SIGNALS: %u actions and %u timers (at most 64 and 3)", im->sig.nsig,
                   im->sig.ntimers);
    if ((uint64_t)im->sig.nsig * sizeof(struct mana_img_sigaction) + (uint64_t)im->sig.ntimers * sizeof(struct mana_img_itimer) != rest)
        return bad(im, "corrupt", "section SIGNALS: %u actions and %u timers do not fill its %llu record bytes",
                   im->sig.nsig, im->sig.ntimers, (unsigned long long)rest);
    im->sigs = (const struct mana_img_sigaction *)c.p;
    im->timers = (const struct mana_img_itimer *)(c.p + im->sig.nsig * sizeof(struct mana_img_sigaction));
    return 0;
}

/* FILEDATA is streamed, never loaded whole (up to MANA_SAVE_FILES_MAX): record heads in bounds, CRC. */
static int check_filedata(struct mana_image *im)
{
    const struct mana_img_section *s = im->sec_ent[MANA_SEC_FILEDATA];
    if (!s) return 0;
    im->saved = calloc(s->count ? s->count : 1, sizeof *im->saved);
    if (!im->saved) return bad(im, "out of memory", "%u saved files", s->count);
    static char buf[1 << 20];
    uint32_t crc = 0;
    uint64_t pos = s->offset, end = s->offset + s->length;
    for (uint32_t i = 0; i < s->count; i++) {
        struct mana_img_filedata d;
        if (end - pos < sizeof d)
            return bad(im, "corrupt", "section FILEDATA (offset %llu): record %u of %u does not fit",
                       (unsigned long long)s->offset, i, s->count);
        if (read_at(im, &d, sizeof d, pos)) return -1;
        crc = mana_crc32c_update(crc, &d, sizeof d);
        pos += sizeof d;
        if (d.size < 0 || (uint64_t)d.size > end - pos || (((uint64_t)d.size + 7) & ~7ULL) > end - pos)
            return bad(im, "corrupt", "section FILEDATA (offset %llu): record %u (fd %d) has %lld bytes, %llu are left",
                       (unsigned long long)s->offset, i, d.fd, (long long)d.size, (unsigned long long)(end - pos));
        im->saved[im->nsaved++] = (struct mana_image_saved){ d.fd, d.size, pos };
        for (uint64_t left = ((uint64_t)d.size + 7) & ~7ULL; left;) {
            uint64_t n = left < sizeof buf ? left : sizeof buf;
            if (read_at(im, buf, n, pos)) return -1;
            crc = mana_crc32c_update(crc, buf, n);
            pos += n;
            left -= n;
        }
    }
    if (pos != end)
        return bad(im, "corrupt", "section FILEDATA (offset %llu): %llu bytes after the last record",
                   (unsigned long long)s->offset, (unsigned long long)(end - pos));
    if (crc != s->crc)
        return bad(im, "corrupt", "section FILEDATA (offset %llu): checksum mismatch (stored 0x%08x, computed 0x%08x)",
                   (unsigned long long)s->offset, s->crc, crc);
    return 0;
}

/* ---- the entry points ---- */

int mana_image_open(struct mana_image *im, const char *path)
{
    memset(im, 0, sizeof *im);
    im->path = path;
    im->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (im->fd < 0) return bad(im, "cannot open", "%s", strerror(errno));
    struct stat st;
    if (fstat(im->fd, &st) != 0) return bad(im, "cannot stat", "%s", strerror(errno));
    if (!S_ISREG(st.st_mode)) return bad(im, "not a MANA checkpoint image", "not a regular file");
    im->size = (uint64_t)st.st_size;
    if (check_header(im)) return -1;
    /* Start reading the whole image now: the disk works while the metadata is checked (and, at a
     * restart, the address space reserved).  Only advice: a refusal changes nothing but speed. */
    int e = posix_fadvise(im->fd, 0, (off_t)im->h.file_size, POSIX_FADV_WILLNEED);
    if (e) mana_dbg("posix_fadvise(WILLNEED) on %s: %s", path, strerror(e));
    if (check_table(im) || check_header_values(im) || load_sections(im) || parse_parent(im) || parse_process(im) ||
        parse_memory(im) || parse_zstd(im) || check_overlap(im) || parse_threads(im) || parse_files(im) || parse_signals(im) ||
        check_filedata(im))
        return -1;
    return 0;
}

int mana_image_check_name(struct mana_image *im)
{
    const char *base = strrchr(im->path, '/');
    base = base ? base + 1 : im->path;
    size_t bl = strlen(base);
    if (strncmp(base, "ckpt_", 5) != 0 || bl < 10 || strcmp(base + bl - 5, ".mana") != 0) return 0;   /* a copy */
    const struct mana_img_header *h = &im->h;
    char prog[sizeof h->program + 1], want[256];
    memcpy(prog, h->program, sizeof h->program);
    prog[sizeof h->program] = 0;
    size_t pl = strlen(prog);
    if (pl < sizeof h->program - 1)
        snprintf(want, sizeof want, "ckpt_%s_gen%u.mana", prog, h->generation);
    else    /* a name the header had to cut: compare what it kept */
        snprintf(want, sizeof want, "ckpt_%s", prog);
    if (pl == 0 || strncmp(base, want, strlen(want)) != 0 || (pl < sizeof h->program - 1 && strcmp(base, want) != 0))
        return bad(im, "renamed", "holds a checkpoint of '%s' (generation %u), not what its name says: an image "
                   "renamed into place? (expected the name %s)", prog, h->generation, want);
    return 0;
}

/* CRC-32C of `len` bytes at `off`, read in 1 MiB pieces. */
static int crc_at(struct mana_image *im, uint64_t off, uint64_t len, uint32_t *out)
{
    static char buf[1 << 20];
    uint32_t crc = 0;
    while (len) {
        uint64_t k = len < sizeof buf ? len : sizeof buf;
        if (read_at(im, buf, k, off)) return -1;
        crc = mana_crc32c_update(crc, buf, k);
        off += k;
        len -= k;
    }
    *out = crc;
    return 0;
}

/*
 * Decompress `len` bytes of zstd frames at `off`: the CRC-32C of what comes out and its length.  With
 * `sink`, each piece of output also goes to it (the restore puts the pages in place); a non-zero return
 * from it stops with that value.  Too much output (more than stored_bytes) is the caller's to refuse:
 * the sink sees at most what it asks for.
 */
int mana_zstd_crc(struct mana_image *im, uint64_t off, uint64_t len, uint32_t *crc_out, uint64_t *out_len,
                  int (*sink)(void *ctx, const void *buf, size_t n), void *ctx)
{
    static char in[1 << 17], outb[1 << 17];
    static ZSTD_DStream *ds;
    if (!ds && !(ds = ZSTD_createDStream())) return bad(im, "out of memory", "zstd decompression");
    ZSTD_initDStream(ds);
    uint32_t crc = 0;
    uint64_t produced = 0;
    size_t last = 1;
    while (len) {
        size_t k = len < sizeof in ? (size_t)len : sizeof in;
        if (read_at(im, in, k, off)) return -1;
        off += k;
        len -= k;
        ZSTD_inBuffer ib = { in, k, 0 };
        ZSTD_outBuffer ob;
        do {                                   /* until this input is used and the output drained */
            ob = (ZSTD_outBuffer){ outb, sizeof outb, 0 };
            last = ZSTD_decompressStream(ds, &ob, &ib);
            if (ZSTD_isError(last))
                return bad(im, "corrupt", "compressed payload before offset %llu: %s", (unsigned long long)off,
                           ZSTD_getErrorName(last));
            if (last == 0) im->zframes++;      /* a frame ended; the next input, if any, starts another */
            if (ob.pos) {
                crc = mana_crc32c_update(crc, outb, ob.pos);
                produced += ob.pos;
                if (sink) {
                    int r = sink(ctx, outb, ob.pos);
                    if (r) return r;
                }
            }
            /* a full output buffer may hold more, unless the frame just ended (0: decoded and fully flushed):
             * calling again then starts on a next frame that is not there and returns its header's size, which
             * read as a cut-short frame whenever a payload decompresses to a multiple of the buffer (a region
             * of exactly 128 KiB stored) */
        } while (ib.pos < ib.size || (ob.pos == ob.size && last != 0));
    }
    if (last != 0)
        return bad(im, "corrupt", "compressed payload ending at offset %llu: the last frame is cut short",
                   (unsigned long long)off);
    *crc_out = crc;
    *out_len = produced;
    return 0;
}

/* Bytes [from, to) that nothing claims are zero. */
static int zero_at(struct mana_image *im, uint64_t from, uint64_t to)
{
    static char buf[1 << 20];
    while (from < to) {
        uint64_t k = to - from < sizeof buf ? to - from : sizeof buf;
        if (read_at(im, buf, k, from)) return -1;
        for (uint64_t j = 0; j < k; j++)
            if (buf[j])
                return bad(im, "corrupt", "byte %llu lies in no payload or section and is not zero",
                           (unsigned long long)(from + j));
        from += k;
    }
    return 0;
}

int mana_image_check_bytes(struct mana_image *im)
{
    uint32_t n;
    struct extent *e = extents(im, &n);
    if (!e) return -1;
    uint64_t reach = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const struct extent *x = &e[i];
        if (x->start > reach && (rc = zero_at(im, reach, x->start))) break;
        if (x->end > reach) reach = x->end;
        uint32_t crc;
        if (x->kind == EX_PAYLOAD) {
            const struct mana_image_region *g = &im->regs[x->idx];
            if (g->r.flags & MANA_REG_ZSTD) {
                uint64_t out = 0;
                if ((rc = mana_zstd_crc(im, x->start, x->end - x->start, &crc, &out, NULL, NULL))) break;
                if (out != g->r.stored_bytes) {
                    rc = bad(im, "corrupt", "region %u: the compressed payload holds %llu bytes, stored_bytes is %llu",
                             x->idx, (unsigned long long)out, (unsigned long long)g->r.stored_bytes);
                    break;
                }
            } else if ((rc = crc_at(im, x->start, x->end - x->start, &crc))) break;
            if (crc != g->r.payload_crc)
                rc = bad(im, "corrupt", "region %u [%#llx, %#llx) %s: payload at offset %llu: checksum mismatch (stored "
                         "0x%08x, computed 0x%08x)", x->idx, (unsigned long long)g->r.start, (unsigned long long)g->r.end,
                         g->name[0] ? g->name : "(anonymous)", (unsigned long long)x->start, g->r.payload_crc, crc);
        } else if (x->kind == EX_SECTION && (im->tab[x->idx].type < MANA_SEC_PROCESS ||
                                             im->tab[x->idx].type == MANA_SEC_MPI || (im->tab[x->idx].type > 7 &&
                                             im->tab[x->idx].type != MANA_SEC_PARENT &&
                                             im->tab[x->idx].type != MANA_SEC_ZSTD))) {
            /* MPI, or a type this reader does not know: the restore skips it; its CRC is checked here */
            const struct mana_img_section *s = &im->tab[x->idx];
            if ((rc = crc_at(im, s->offset, s->length, &crc))) break;
            if (crc != s->crc)
                rc = bad(im, "corrupt", "section %u (type %u, offset %llu): checksum mismatch (stored 0x%08x, computed "
                         "0x%08x)", x->idx, s->type, (unsigned long long)s->offset, s->crc, crc);
        }
    }
    free(e);
    return rc;
}

void mana_image_close(struct mana_image *im)
{
    if (im->fd >= 0 && close(im->fd) != 0) { /* read-only: nothing was written that a failed close could lose */ }
    im->fd = -1;
    for (int t = 0; t < 7; t++) free(im->sec[t]);
    free((void *)im->exe);
    free((void *)im->cwd);
    for (uint32_t i = 0; i < im->nregs; i++) free((void *)im->regs[i].name);
    free(im->regs);
    for (uint32_t i = 0; i < im->nfiles; i++) free((void *)im->files[i].path);
    free(im->files);
    free(im->saved);
    memset(im->sec, 0, sizeof im->sec);
    im->exe = im->cwd = NULL;
    im->regs = NULL;
    im->files = NULL;
    im->saved = NULL;
    im->nregs = im->nfiles = im->nsaved = 0;
}

int lh_check_image(const char *path)
{
    static struct mana_image im;       /* 2 KiB of table: not on the stack */
    if (mana_image_open(&im, path) || mana_image_check_name(&im) || mana_image_check_bytes(&im)) {
        mana_err("%s", im.err);
        mana_image_close(&im);
        return 1;
    }
    uint32_t stored = 0;
    uint32_t compressed = 0;
    uint64_t zbytes = 0;
    for (uint32_t i = 0; i < im.nregs; i++) {
        if (im.regs[i].r.stored_bytes) stored++;
        if (im.regs[i].r.flags & MANA_REG_ZSTD) { compressed++; zbytes += im.regs[i].payload_len; }
    }
    char prog[sizeof im.h.program + 1], mpi[sizeof im.h.mpi + 1];
    memcpy(prog, im.h.program, sizeof im.h.program);
    prog[sizeof im.h.program] = 0;
    memcpy(mpi, im.h.mpi, sizeof im.h.mpi);
    mpi[sizeof im.h.mpi] = 0;
    char chain[320] = "";
    if (im.h.flags & MANA_IMG_F_INCREMENTAL)
        snprintf(chain, sizeof chain, ", incremental on %s (generation %u, depth %u)", im.parent_name,
                 im.parent.generation, im.parent.depth);
    if (compressed)
        snprintf(chain + strlen(chain), sizeof chain - strlen(chain), ", %u regions compressed to %llu bytes in %llu frames",
                 compressed, (unsigned long long)zbytes, (unsigned long long)im.zframes);
    printf("%s: ok: program %s, generation %u, rank %u of %u, mpi %s, %u regions (%u with stored pages), %u threads, "
           "%u files, %llu bytes stored, %llu bytes in the file%s\n", path, prog, im.h.generation, im.h.rank, im.h.nranks,
           mpi[0] ? mpi : "none", im.nregs, stored, im.nthr, im.nfiles, (unsigned long long)im.h.stored_bytes,
           (unsigned long long)im.size, chain);
    mana_image_close(&im);
    if (fflush(stdout) != 0) { mana_err("cannot write the summary: %s", strerror(errno)); return 1; }
    return 0;
}
