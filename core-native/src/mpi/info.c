/*
 * info.c - info objects, kept entirely in the upper half.
 *
 * An info the program makes is a table entry (kind K_INFO, recipe R_INFO) whose `arr` holds its
 * (key, value) pairs in insertion order; its real handle is the real MPI_INFO_NULL (refreshed by the
 * replay after a restart).  So when a wrapper passes R(info) to a real call, the real library gets
 * MPI_INFO_NULL: hints are advice an MPI may ignore, and a hint the program set is still there for
 * MPI_Info_get and MPI_Comm_get_info, before and after a restart (the pairs are in the image).
 * Predefined infos (MPI_INFO_ENV) are read from the real library.
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>

struct info {
    int n, cap;
    char **key, **val;
};

static struct info *info_of(MPI_Info h)
{
    struct vobj *o = vobj_of(HBITS(h));
    return o && o->kind == K_INFO ? o->arr : NULL;
}

static int find(const struct info *in, const char *key)
{
    for (int i = 0; i < in->n; i++) if (strcmp(in->key[i], key) == 0) return i;
    return -1;
}

static int put(struct info *in, const char *key, const char *val)
{
    int i = find(in, key);
    char *v = strdup(val);
    if (!v) return MPI_ERR_NO_MEM;
    if (i >= 0) { free(in->val[i]); in->val[i] = v; return MPI_SUCCESS; }
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        char **k = realloc(in->key, (size_t)cap * sizeof *k);
        if (k) in->key = k;
        char **w = realloc(in->val, (size_t)cap * sizeof *w);
        if (w) in->val = w;
        if (!k || !w) { free(v); return MPI_ERR_NO_MEM; }
        in->cap = cap;
    }
    in->key[in->n] = strdup(key);
    in->val[in->n++] = v;
    return MPI_SUCCESS;
}

/* A new empty info of ours. */
static int info_new(MPI_Info *out, struct info **made)
{
    struct info *in = calloc(1, sizeof *in);
    if (!in) return MPI_ERR_NO_MEM;
    struct vobj *o = vnew(K_INFO, v2r(HBITS(MPI_INFO_NULL)));
    o->recipe = R_INFO;
    o->arr = in;                     /* vrelease frees the struct; info_free the strings */
    *out = V(MPI_Info, o);
    if (made) *made = in;
    return MPI_SUCCESS;
}

int mana_info_dup(MPI_Info src, MPI_Info *out);

/* A real info holding the hints of one of ours, for a call whose result depends on them (the real
 * MPI_INFO_NULL for none); the caller frees it with mana_info_real_free.  Upper half: mallocs nothing. */
/* Already in the lower half (inside LOWER, or after a gate that coll_enter passed: a real info made
 * before a gate belongs to the lower half of before a checkpoint taken while the caller waited there,
 * and MPI_Win_set_info crashed on it after a restart). Only table lookups and the real MPI here. */
MPI_Info mana_info_real_lower(MPI_Info ours)
{
    MPI_Info ri = HMAKE(MPI_Info, v2r(HBITS(MPI_INFO_NULL)));
    const struct info *in = ours == MPI_INFO_NULL ? NULL : info_of(ours);
    if (!in || in->n == 0) return ri;
    int rc = real.Info_create(&ri);
    for (int i = 0; rc == MPI_SUCCESS && i < in->n; i++) rc = real.Info_set(ri, in->key[i], in->val[i]);
    return rc == MPI_SUCCESS ? ri : HMAKE(MPI_Info, v2r(HBITS(MPI_INFO_NULL)));
}

void mana_info_real_free_lower(MPI_Info ri)
{
    if (HBITS(ri) != v2r(HBITS(MPI_INFO_NULL))) real.Info_free(&ri);
}

MPI_Info mana_info_real(MPI_Info ours)
{
    MPI_Info ri;
    LOWER(ri = mana_info_real_lower(ours));
    return ri;
}

void mana_info_real_free(MPI_Info ri)
{
    if (HBITS(ri) == v2r(HBITS(MPI_INFO_NULL))) return;
    LOWER(real.Info_free(&ri));
}

/* One of ours holding a real info's hints (MPI_File_get_info: the hints the library uses). */
int mana_info_from_real(MPI_Info ri, MPI_Info *out)
{
    struct info *in;
    int rc = info_new(out, &in), n = 0;
    if (rc != MPI_SUCCESS) return rc;
    LOWER(rc = real.Info_get_nkeys(ri, &n));
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        LOWER(rc = real.Info_get_nthkey(ri, i, key);
              if (rc == MPI_SUCCESS) rc = real.Info_get(ri, key, MPI_MAX_INFO_VAL, val, &flag));
        if (rc == MPI_SUCCESS && flag && put(in, key, val) != MPI_SUCCESS) rc = MPI_ERR_NO_MEM;
    }
    return rc;
}

int PMPI_Info_create(MPI_Info *info) { MANA_CHECK_INIT(); return info_new(info, NULL); }
ALIAS(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    MANA_CHECK_INIT();
    struct info *in = info_of(info);
    if (!in) return MPI_ERR_INFO;
    if (!key || !*key || strlen(key) >= MPI_MAX_INFO_KEY) return MPI_ERR_INFO_KEY;
    if (!value || strlen(value) >= MPI_MAX_INFO_VAL) return MPI_ERR_INFO_VALUE;
    return put(in, key, value);
}
ALIAS(Info_set)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    MANA_CHECK_INIT();
    struct info *in = info_of(info);
    if (!in) return MPI_ERR_INFO;
    int i = find(in, key);
    if (i < 0) return MPI_ERR_INFO_NOKEY;
    free(in->key[i]);
    free(in->val[i]);
    memmove(in->key + i, in->key + i + 1, (size_t)(in->n - i - 1) * sizeof *in->key);
    memmove(in->val + i, in->val + i + 1, (size_t)(in->n - i - 1) * sizeof *in->val);
    in->n--;
    return MPI_SUCCESS;
}
ALIAS(Info_delete)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    MANA_CHECK_INIT();
    struct info *in = info_of(info);
    if (!in) { int rc; LOWER(rc = real.Info_get(R(info), key, valuelen, value, flag)); return rc; }
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0) {
        /* valuelen is one less than the space the program has; longer values are cut */
        size_t n = strlen(in->val[i]);
        if (valuelen >= 0 && n > (size_t)valuelen) n = (size_t)valuelen;
        memcpy(value, in->val[i], n);
        value[n] = 0;
    }
    return MPI_SUCCESS;
}
ALIAS(Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    MANA_CHECK_INIT();
    struct info *in = info_of(info);
    if (!in) { int rc; LOWER(rc = real.Info_get_valuelen(R(info), key, valuelen, flag)); return rc; }
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0) *valuelen = (int)strlen(in->val[i]);
    return MPI_SUCCESS;
}
ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    MANA_CHECK_INIT();
    struct info *in = info_of(info);
    if (!in) { int rc; LOWER(rc = real.Info_get_nkeys(R(info), nkeys)); return rc; }
    *nkeys = in->n;
    return MPI_SUCCESS;
}
ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    MANA_CHECK_INIT();
    struct info *in = info_of(info);
    if (!in) { int rc; LOWER(rc = real.Info_get_nthkey(R(info), n, key)); return rc; }
    if (n < 0 || n >= in->n) return MPI_ERR_ARG;
    strcpy(key, in->key[n]);
    return MPI_SUCCESS;
}
ALIAS(Info_get_nthkey)

#ifndef OPEN_MPI
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    MANA_CHECK_INIT();
    struct info *in = info_of(info);
    if (!in) { int rc; LOWER(rc = real.Info_get_string(R(info), key, buflen, value, flag)); return rc; }
    int i = find(in, key);
    *flag = i >= 0;
    if (i < 0) return MPI_SUCCESS;
    int len = (int)strlen(in->val[i]);
    if (*buflen > 0) {
        int n = len < *buflen - 1 ? len : *buflen - 1;
        memcpy(value, in->val[i], (size_t)n);
        value[n] = 0;
    }
    *buflen = len + 1;
    return MPI_SUCCESS;
}
ALIAS(Info_get_string)
#endif

/* A copy of any info (ours, or a predefined one read from the real library) as one of ours. */
int mana_info_dup(MPI_Info src, MPI_Info *out)
{
    struct info *in = info_of(src), *dst;
    int rc = info_new(out, &dst);
    if (rc != MPI_SUCCESS) return rc;
    if (in) {
        for (int i = 0; i < in->n && rc == MPI_SUCCESS; i++) rc = put(dst, in->key[i], in->val[i]);
        return rc;
    }
    if (src == MPI_INFO_NULL) return MPI_SUCCESS;
    int n = 0;
    LOWER(rc = real.Info_get_nkeys(R(src), &n));
    static char key[MPI_MAX_INFO_KEY + 1];
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int len = 0, flag = 0;
        LOWER(rc = real.Info_get_nthkey(R(src), i, key); if (rc == MPI_SUCCESS) rc = real.Info_get_valuelen(R(src), key, &len, &flag));
        if (rc != MPI_SUCCESS || !flag) continue;
        char *v = malloc((size_t)len + 1);
        if (!v) return MPI_ERR_NO_MEM;
        LOWER(rc = real.Info_get(R(src), key, len, v, &flag));
        if (rc == MPI_SUCCESS) rc = put(dst, key, v);
        free(v);
    }
    return rc;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *out)
{
    MANA_CHECK_INIT();
    if (info == MPI_INFO_NULL) return MPI_ERR_INFO;
    return mana_info_dup(info, out);
}
ALIAS(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    MANA_CHECK_INIT();
    struct vobj *o = vobj_of(HBITS(*info));
    if (!o || o->kind != K_INFO) return MPI_ERR_INFO;
    struct info *in = o->arr;
    for (int i = 0; i < in->n; i++) { free(in->key[i]); free(in->val[i]); }
    free(in->key);
    free(in->val);
    vrelease(o);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
ALIAS(Info_free)

#ifndef OPEN_MPI
/* MPI-4 (MPICH): an info with the environment's keys, i.e. a copy of MPI_INFO_ENV. */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    (void)argc; (void)argv;
    MANA_CHECK_INIT();
    return mana_info_dup(MPI_INFO_ENV, info);
}
ALIAS(Info_create_env)
#endif
