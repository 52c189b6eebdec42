/*
 * corpus.h - reads the golden frame corpus (docs/wire-corpus/frames.txt,
 * shared with the Java tests) for test_codec.c.  Each frame: its name, type,
 * request id, bytes, and its fields (kind, name, value) in wire order.
 */
#ifndef MANA_TEST_CORPUS_H
#define MANA_TEST_CORPUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS_MAX_FRAMES 64
#define CORPUS_MAX_FIELDS 32
#define CORPUS_MAX_PHASES 32

struct corpus_field {
    char kind[8], name[48], value[160];
};

struct corpus_frame {
    char     name[48], type[32];
    unsigned code, reqid;
    unsigned char bytes[1024];
    size_t   len;
    int      nfields;
    struct corpus_field f[CORPUS_MAX_FIELDS];
};

/* A `phase NAME NUMBER` line: the table of COLLECTIVE phase numbers (MANA_PHASE_NAME). */
struct corpus_phase {
    char name[48];
    long value;
};

struct corpus {
    char secret[64];
    int  n;
    struct corpus_frame fr[CORPUS_MAX_FRAMES];
    int  nphases;
    struct corpus_phase ph[CORPUS_MAX_PHASES];
};

static int corpus_hex(const char *s, unsigned char *out, size_t cap, size_t *n)
{
    *n = 0;
    for (; s[0] && s[1]; s += 2) {
        unsigned v;
        if (*n >= cap || sscanf(s, "%2x", &v) != 1)
            return -1;
        out[(*n)++] = (unsigned char)v;
    }
    return 0;
}

/* 0, or -1 with a message on stderr. */
static int corpus_read(const char *path, struct corpus *c)
{
    FILE *fp = fopen(path, "r");
    char line[512];
    struct corpus_frame *cur = NULL;
    if (!fp) {
        perror(path);
        return -1;
    }
    memset(c, 0, sizeof *c);
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "secret ", 7)) {
            snprintf(c->secret, sizeof c->secret, "%.63s", line + 7);
        } else if (!cur && !strncmp(line, "phase ", 6)) {
            if (c->nphases == CORPUS_MAX_PHASES)
                goto bad;
            struct corpus_phase *ph = &c->ph[c->nphases++];
            if (sscanf(line, "phase %47s %ld", ph->name, &ph->value) != 2)
                goto bad;
        } else if (!strncmp(line, "frame ", 6)) {
            if (c->n == CORPUS_MAX_FRAMES)
                goto bad;
            cur = &c->fr[c->n];
            if (sscanf(line, "frame %47s %31s %x %u", cur->name, cur->type, &cur->code, &cur->reqid) != 4)
                goto bad;
        } else if (cur && !strncmp(line, "hex ", 4)) {
            size_t n;
            if (corpus_hex(line + 4, cur->bytes + cur->len, sizeof cur->bytes - cur->len, &n) < 0)
                goto bad;
            cur->len += n;
        } else if (cur && !strcmp(line, "end")) {
            c->n++;
            cur = NULL;
        } else if (cur && line[0]) {
            if (cur->nfields == CORPUS_MAX_FIELDS)
                goto bad;
            struct corpus_field *f = &cur->f[cur->nfields++];
            char *sp1 = strchr(line, ' ');
            if (!sp1)
                goto bad;
            *sp1 = 0;
            char *name = sp1 + 1, *sp2 = strchr(name, ' ');
            if (sp2)
                *sp2 = 0;
            snprintf(f->kind, sizeof f->kind, "%.7s", line);
            snprintf(f->name, sizeof f->name, "%.47s", name);
            snprintf(f->value, sizeof f->value, "%.159s", sp2 ? sp2 + 1 : "");
        }
    }
    fclose(fp);
    return 0;
bad:
    fprintf(stderr, "%s: cannot parse '%s'\n", path, line);
    fclose(fp);
    return -1;
}

static const struct corpus_frame *corpus_find(const struct corpus *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->fr[i].name, name))
            return &c->fr[i];
    return NULL;
}

static const char *corpus_get(const struct corpus_frame *fr, const char *name)
{
    for (int i = 0; i < fr->nfields; i++)
        if (!strcmp(fr->f[i].name, name))
            return fr->f[i].value;
    return NULL;
}

static long long corpus_int(const struct corpus_frame *fr, const char *name)
{
    const char *v = corpus_get(fr, name);
    return v ? strtoll(v, NULL, 10) : -999;
}

#endif
