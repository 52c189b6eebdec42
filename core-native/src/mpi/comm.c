/*
 * comm.c - the communicator constructors and calls objects.c does not have: dup_with_info, idup,
 * create_group, set_info/get_info.
 *
 * Hints given to a communicator are kept as an attribute of an internal keyval (attr.c): an info of
 * our own (info.c), freed with the communicator, not copied by a dup, in the image across a restart.
 * Names (MPI_Comm_set_name) are kept the same way, so a restarted communicator keeps its name.
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>

int mana_info_dup(MPI_Info src, MPI_Info *out);

static int hints_kv = MPI_KEYVAL_INVALID;

static int hints_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c; (void)kv; (void)extra;
    MPI_Info in = HMAKE(MPI_Info, (uint64_t)(uintptr_t)val);
    return PMPI_Info_free(&in);
}

/* Keeps in hints (ours) only the keys the MPI library keeps, as a native MPI_Comm_get_info answers
 * (MPICH's comm/comm_info: a key the library does not know must not come back).  The library is asked on a
 * real duplicate of MPI_COMM_SELF made for the question, by the call the program made (by_dup: with
 * MPI_Comm_dup_with_info, where Open MPI 4.1 keeps every key, else MPI_Comm_set_info, where it drops those
 * it does not know), and freed at once (local: no other rank takes part),
 * never on the program's communicator: the hints are not given to the library (the mpi_assert_* ones could
 * change what the drain's wildcard probes of the program's communicators see, p2p.c), so they cannot be
 * lost by a restart either; MPI_Comm_get_info answers from what is kept here. */
static int hints_filter(MPI_Info hints, int by_dup)
{
    int n = 0, rc = PMPI_Info_get_nkeys(hints, &n);
    if (rc != MPI_SUCCESS || n == 0) return rc;
    char (*keys)[MPI_MAX_INFO_KEY + 1] = calloc((size_t)n, sizeof *keys);
    if (!keys) return MPI_ERR_NO_MEM;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) rc = PMPI_Info_get_nthkey(hints, i, keys[i]);
    MPI_Info ri = rc == MPI_SUCCESS ? mana_info_real(hints) : HMAKE(MPI_Info, v2r(HBITS(MPI_INFO_NULL)));
    if (HBITS(ri) != v2r(HBITS(MPI_INFO_NULL))) {
        MPI_Comm probe;
        MPI_Info used;
        int lrc, len, flag;
        unsigned char *kept = calloc((size_t)n, 1);
        LOWER(lrc = by_dup ? real.Comm_dup_with_info(R(MPI_COMM_SELF), ri, &probe) : real.Comm_dup(R(MPI_COMM_SELF), &probe);
              if (lrc == MPI_SUCCESS) {
                  if ((by_dup || (lrc = real.Comm_set_info(probe, ri)) == MPI_SUCCESS) &&
                      (lrc = real.Comm_get_info(probe, &used)) == MPI_SUCCESS) {
                      for (int i = 0; kept && i < n; i++)
                          kept[i] = real.Info_get_valuelen(used, keys[i], &len, &flag) != MPI_SUCCESS || flag;
                      real.Info_free(&used);
                  }
                  real.Comm_free(&probe);
              });
        mana_info_real_free(ri);
        /* a library that failed to answer (none does here) keeps every key as given */
        for (int i = 0; lrc == MPI_SUCCESS && kept && i < n; i++)
            if (!kept[i]) PMPI_Info_delete(hints, keys[i]);
        free(kept);
    }
    free(keys);
    return rc;
}

/* by_dup: hints given by a dup with info (MPI_Comm_dup_with_info, _idup_with_info), not MPI_Comm_set_info */
static int hints_set(MPI_Comm comm, MPI_Info info, int by_dup)
{
    if (hints_kv == MPI_KEYVAL_INVALID) {
        int rc = PMPI_Comm_create_keyval(NULL, hints_delete, &hints_kv, NULL);
        if (rc != MPI_SUCCESS) return rc;
    }
    MPI_Info copy;
    int rc = mana_info_dup(info, &copy);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = hints_filter(copy, by_dup)) != MPI_SUCCESS) { PMPI_Info_free(&copy); return rc; }
    return PMPI_Comm_set_attr(comm, hints_kv, (void *)(uintptr_t)HBITS(copy));
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    MANA_CHECK_INIT();
    if (!comm_obj(comm)) return MPI_ERR_COMM;
    return hints_set(comm, info, 0);
}
ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *out)
{
    MANA_CHECK_INIT();
    if (!comm_obj(comm)) return MPI_ERR_COMM;
    void *val = NULL;
    int flag = 0;
    if (hints_kv != MPI_KEYVAL_INVALID) PMPI_Comm_get_attr(comm, hints_kv, &val, &flag);
    return mana_info_dup(flag ? HMAKE(MPI_Info, (uint64_t)(uintptr_t)val) : MPI_INFO_NULL, out);
}
ALIAS(Comm_get_info)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS || info == MPI_INFO_NULL) return rc;
    return hints_set(*newcomm, info, 1);
}
ALIAS(Comm_dup_with_info)

/* ---- names: kept like hints (an internal attribute), so a restarted communicator has its name ---- */

static int name_kv = MPI_KEYVAL_INVALID;

static int name_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c; (void)kv; (void)extra;
    free(val);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Comm_set_name(R(comm), name));   /* for the MPI library's own messages */
    if (rc != MPI_SUCCESS) return rc;
    if (name_kv == MPI_KEYVAL_INVALID && (rc = PMPI_Comm_create_keyval(NULL, name_delete, &name_kv, NULL)) != MPI_SUCCESS)
        return rc;
    char *copy = strdup(name);
    if (!copy) return MPI_ERR_NO_MEM;
    return PMPI_Comm_set_attr(comm, name_kv, copy);
}
ALIAS(Comm_set_name)

/* A name kept as an internal attribute, handed out as MPI_Comm_get_name/MPI_Type_get_name do. */
int mana_name_out(const char *val, char *name, int *len)
{
    size_t n = strlen(val);
    if (n > MPI_MAX_OBJECT_NAME - 1) n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(name, val, n);
    name[n] = 0;
    *len = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *len)
{
    MANA_CHECK_INIT();
    void *val = NULL;
    int flag = 0, rc;
    if (name_kv != MPI_KEYVAL_INVALID) PMPI_Comm_get_attr(comm, name_kv, &val, &flag);
    if (flag) return mana_name_out(val, name, len);
    LOWER(rc = real.Comm_get_name(R(comm), name, len));
    return rc;
}
ALIAS(Comm_get_name)

/*
 * MPI_Comm_idup: the real nonblocking dup, counted as a collective on the parent like any nonblocking
 * collective.  The new communicator's entry exists at once (the program holds its handle), with the
 * real MPI writing the real handle into it when the dup completes (Open MPI writes it only then), and
 * id, rank and size filled in at completion (mana_idup_finish): until then the drain skips it (id 0),
 * and a checkpoint's drain completes the request as it completes every nonblocking collective.  The
 * recipe is a plain dup: a restart makes a completed one again with MPI_Comm_dup, in creation order.
 * Attributes are copied at the call.  (A dup that only returns when done deadlocked programs that
 * communicate between the idup and its wait: MPICH's comm_idup tests.)
 */
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
    MANA_CHECK_INIT();
    int rc = mana_comm_idup_post(comm, newcomm, req);
    if (rc != MPI_SUCCESS) return rc;
    return mana_attr_copy(K_COMM, HBITS(comm), HBITS(*newcomm));
}
ALIAS(Comm_idup)

/* The real nonblocking dup and its entries, without the attribute copies (MPI_Comm_dup's own way under
 * MPI_THREAD_MULTIPLE, objects.c, copies them after the wait). */
int mana_comm_idup_post(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
    struct vobj *p = comm_obj(comm);
    if (!p) return MPI_ERR_COMM;
    struct vobj *nc = vnew(K_COMM, 0), *v = vnew(K_REQ, 0);
    mana_record_parent(nc, p);
    nc->errh = p->errh ? p->errh : HBITS(MPI_ERRORS_ARE_FATAL);
    v->rkind = RQ_COLL;
    v->a[4] = nc->idx;
    v->a[5] = 1;                               /* an idup: finish the communicator at completion */
    MPI_Request rr;
    int rc;
    /* The recipe is set inside the excursion that posts the real idup: a checkpoint that stops this
     * thread in coll_enter (the entry made, nothing posted) must not have the restart make a dup on this
     * rank alone (mpi_mpich_inter_2_kill hung in the replay's MPI_Comm_dup on one rank). */
    COLL_LOWER(p, nc->recipe = R_COMM_DUP;
               nc->a[2] = (int64_t)p->seq;
               rc = real.Comm_idup(R(comm), (MPI_Comm *)&nc->real, &rr);
               if (rc == MPI_SUCCESS) { v->real = HBITS(rr); v->flags |= VF_POSTED; });
    if (rc != MPI_SUCCESS) { vrelease(v); vrelease(nc); return rc; }
    *newcomm = V(MPI_Comm, nc);
    *req = V(MPI_Request, v);
    return MPI_SUCCESS;
}

#ifndef OPEN_MPI
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *req)
{
    int rc = PMPI_Comm_idup(comm, newcomm, req);
    if (rc != MPI_SUCCESS || info == MPI_INFO_NULL) return rc;
    return hints_set(*newcomm, info, 1);
}
ALIAS(Comm_idup_with_info)
#endif

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* How many MPI_Comm_create_group calls with this (parent, group, tag) this rank made: the same on
 * every member, so it tells apart communicators the same call made twice. */
struct cg_count { uint64_t key; uint64_t n; };
static struct cg_count *cg;
static size_t ncg;

static uint64_t cg_next(uint64_t key)
{
    for (size_t i = 0; i < ncg; i++) if (cg[i].key == key) return ++cg[i].n;
    struct cg_count *n = realloc(cg, (ncg + 1) * sizeof *n);
    if (!n) return 0;
    cg = n;
    cg[ncg++] = (struct cg_count){ key, 1 };
    return 1;
}

/* Collective over the group only, so not counted as a collective of the parent (its other members
 * never call it): it has a gate of its own (core.c, group_coll_enter), and a checkpoint that finds a
 * thread waiting inside lets held threads through until its partners come (drain_rounds.c). */
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(comm), *g = vobj_of(HBITS(group));
    if (!p) return MPI_ERR_COMM;
    /* the members' world ranks and the call's key: the same on every member */
    int n;
    int *wr;
    if (g && g->arr) { n = (int)(g->arr_len / sizeof(int)); wr = malloc(g->arr_len + 1); if (wr) memcpy(wr, g->arr, g->arr_len); }
    else wr = world_ranks(R(group), &n);
    if (!wr) return MPI_ERR_NO_MEM;
    uint64_t key = mix(p->gid ^ mix((uint64_t)(uint32_t)tag));
    for (int i = 0; i < n; i++) key = mix(key ^ (uint64_t)(uint32_t)wr[i]);
    /* Under MPI_THREAD_MULTIPLE the real call, which waits for the members holding the lower half, first
     * waits for its turn (ctor_turn.c), voted among the members; kept until the entry is made, so that this
     * rank makes one such communicator at a time (cg_next, creation order = turn order). */
    uint64_t turn = mana_group_turn_take(key, wr, n);
    MPI_Comm rc_;
    int rc;
    uint64_t hold;
    /* MPICH 4.0 reads the parent's group in the call without making it first (SIGSEGV at a NULL group):
     * a program makes it with the MPI_Comm_group it takes its group from, but after a restart that group
     * may be a replayed one while the parent is new (replay.c does the same) */
    MPI_Group pg;
    GROUP_COLL_MAKE(NULL, hold, rc, rc = real.Comm_group(R(comm), &pg); if (rc == MPI_SUCCESS) real.Group_free(&pg);
                    if (rc == MPI_SUCCESS) rc = real.Comm_create_group(R(comm), R(group), tag, &rc_));
    if (rc != MPI_SUCCESS) { mana_ctor_turn_give(turn); free(wr); return rc; }
    struct vobj *o;
    new_comm(rc_, p, R_COMM_CREATE_GROUP, newcomm, &o);
    if (!o) { made_release(hold); mana_ctor_turn_give(turn); free(wr); return MPI_SUCCESS; }   /* not a member */
    o->a[0] = tag;
    o->arr = wr;
    o->arr_len = (size_t)n * sizeof(int);
    o->gid = (mix(key ^ mix(p->seq) ^ cg_next(key)) & 0x3fffffffffffffffULL) | 4;
    o->call = o->gid;           /* made by its members alone */
    made_release(hold);
    mana_ctor_turn_give(turn);
    return MPI_SUCCESS;
}
ALIAS(Comm_create_group)

/* The profiling interface's hook: no profiler sits between the program and this library. */
int PMPI_Pcontrol(const int level, ...) { (void)level; return MPI_SUCCESS; }
ALIAS(Pcontrol)
