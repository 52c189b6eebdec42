/*
 * attr.c - keyvals and attributes on communicators and datatypes (and window keyvals).
 *
 * Kept entirely in the upper half: a keyval is an int of our own (MANA_KV_BASE + slot), an attribute
 * is (object kind, the program's handle, keyval, value) in a list of ours.  So the program's copy and
 * delete callbacks run here, on the program's own TLS and with its own handles, never from inside
 * the real MPI; and everything is in the image: a restart has nothing to replay (the handles the
 * list names are virtual, the same after a restart).  Predefined attributes (MPI_TAG_UB,
 * MPI_WTIME_IS_GLOBAL, ...) still come from the real library.
 *
 * Callbacks, as the standard says: copy on MPI_Comm_dup / dup_with_info / idup and MPI_Type_dup
 * (objects.c, comm.c call mana_attr_copy); delete on free (mana_attr_clear), on delete_attr, when a
 * set_attr replaces a value, and for MPI_COMM_SELF at MPI_Finalize (newest first).
 */
#include "mpi_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

enum { KV_WIN = 100 };              /* kind of a window keyval (K_COMM, K_TYPE for the others) */

struct keyval {
    int kind;
    int freed;                      /* freed by the program: kept for the attributes that use it */
    void (*copy)(void);             /* the program's callbacks (NULL: MPICH's NULL_COPY/DELETE_FN) */
    void (*del)(void);
    void *extra;
};
static struct keyval *kvs;
static int nkv, capkv;

struct attr {
    struct attr *next;
    int kind;
    uint64_t obj;                   /* the program's handle */
    int kv;
    void *val;
};
static struct attr *attrs;          /* newest first */

/* The keyvals and the list are shared by the program's threads (MPI_THREAD_MULTIPLE): one thread's
 * MPI_Comm_dup_with_info adds its hints attribute (comm.c) while another's MPI_Comm_free unlinks and
 * frees one, and the list head ended up pointing at a freed node (tests/mpi/dup_mt.c crashed in
 * mana_attr_clear, 2 % of restarts).  One lock, recursive because the program's copy and delete
 * callbacks run under it and may set or delete attributes themselves.  Its owner is the thread's
 * pthread_self() (its descriptor's address: the program's threads get theirs back at a restart, where
 * tids change), a plain word, so a thread the checkpoint stopped while holding it still holds it after
 * a restart, knows it, and gives it back.  Never held while waiting for the lower half's owner to change,
 * and no excursion takes it, so the two cannot wait for each other. */
static uintptr_t attr_owner;
static int attr_depth;

static void attr_take(void)
{
    uintptr_t me = (uintptr_t)pthread_self();
    if (__atomic_load_n(&attr_owner, __ATOMIC_ACQUIRE) == me) { attr_depth++; return; }
    for (uintptr_t none = 0;
         !__atomic_compare_exchange_n(&attr_owner, &none, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED); none = 0)
        mana_sys0(SYS_sched_yield);
    attr_depth = 1;
}

static void attr_give(void)
{
    if (--attr_depth == 0) __atomic_store_n(&attr_owner, 0, __ATOMIC_RELEASE);
}

static struct keyval *kv_of(int kv, int kind)
{
    int i = kv - MANA_KV_BASE;
    if (i < 0 || i >= nkv || kvs[i].kind != kind) return NULL;
    return &kvs[i];
}
static int is_ours(int kv) { return kv >= MANA_KV_BASE && kv < MANA_KV_BASE + nkv; }
int mana_attr_kv_ours(int kv) { return is_ours(kv); }

static int kv_create_unlocked(int kind, void (*copy)(void), void (*del)(void), int *kv, void *extra)
{
    MANA_CHECK_INIT();
    if (nkv == capkv) {
        int cap = capkv ? 2 * capkv : 16;
        struct keyval *n = realloc(kvs, (size_t)cap * sizeof *n);
        if (!n) return MPI_ERR_NO_MEM;
        kvs = n;
        capkv = cap;
    }
    kvs[nkv] = (struct keyval){ kind, 0, copy, del, extra };
    *kv = MANA_KV_BASE + nkv++;
    return MPI_SUCCESS;
}

static int kv_create(int kind, void (*copy)(void), void (*del)(void), int *kv, void *extra)
{
    attr_take();
    int rc = kv_create_unlocked(kind, copy, del, kv, extra);
    attr_give();
    return rc;
}

static int kv_free_unlocked(int kind, int *kv)
{
    MANA_CHECK_INIT();
    struct keyval *k = kv_of(*kv, kind);
    if (!k || k->freed) return MPI_ERR_KEYVAL;
    k->freed = 1;
    *kv = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int kv_free(int kind, int *kv)
{
    attr_take();
    int rc = kv_free_unlocked(kind, kv);
    attr_give();
    return rc;
}

static struct attr **find(int kind, uint64_t obj, int kv)
{
    for (struct attr **p = &attrs; *p; p = &(*p)->next)
        if ((*p)->kind == kind && (*p)->obj == obj && (*p)->kv == kv) return p;
    return NULL;
}

/* Takes (kind, obj, kv) out of the list, if it is there. */
static void unlink_attr(int kind, uint64_t obj, int kv)
{
    struct attr **p = find(kind, obj, kv);
    if (!p) return;
    struct attr *a = *p;
    *p = a->next;
    free(a);
}

/* The program's delete callback for one attribute. */
static int call_delete(int kind, uint64_t obj, int kv, void *val)
{
    struct keyval *k = kv_of(kv, kind);
    if (!k || !k->del) return MPI_SUCCESS;
    if (kind == K_COMM)
        return ((MPI_Comm_delete_attr_function *)k->del)(HMAKE(MPI_Comm, obj), kv, val, k->extra);
    if (kind == KV_WIN)
        return ((MPI_Win_delete_attr_function *)k->del)(HMAKE(MPI_Win, obj), kv, val, k->extra);
    return ((MPI_Type_delete_attr_function *)k->del)(HMAKE(MPI_Datatype, obj), kv, val, k->extra);
}

static int attr_add(int kind, uint64_t obj, int kv, void *val)
{
    struct attr *a = malloc(sizeof *a);
    if (!a) return MPI_ERR_NO_MEM;
    *a = (struct attr){ attrs, kind, obj, kv, val };
    attrs = a;
    return MPI_SUCCESS;
}

static int set_attr_unlocked(int kind, uint64_t obj, int kv, void *val)
{
    MANA_CHECK_INIT();
    struct keyval *k = kv_of(kv, kind);
    if (!k || k->freed) return MPI_ERR_KEYVAL;
    struct attr **p = find(kind, obj, kv);
    if (p) {
        /* Replacing a value deletes the old one first.  The callback is the program's: it may add or
         * delete attributes, so the list is searched again after it. */
        int rc = call_delete(kind, obj, kv, (*p)->val);
        if (rc != MPI_SUCCESS) return rc;
        if ((p = find(kind, obj, kv)) != NULL) {
            (*p)->val = val;
            return MPI_SUCCESS;
        }
    }
    return attr_add(kind, obj, kv, val);
}

static int set_attr(int kind, uint64_t obj, int kv, void *val)
{
    attr_take();
    int rc = set_attr_unlocked(kind, obj, kv, val);
    attr_give();
    return rc;
}

static int get_attr_unlocked(int kind, uint64_t obj, int kv, void *val, int *flag)
{
    MANA_CHECK_INIT();
    if (!kv_of(kv, kind)) return MPI_ERR_KEYVAL;
    struct attr **p = find(kind, obj, kv);
    *flag = p != NULL;
    if (p) *(void **)val = (*p)->val;
    return MPI_SUCCESS;
}

static int get_attr(int kind, uint64_t obj, int kv, void *val, int *flag)
{
    attr_take();
    int rc = get_attr_unlocked(kind, obj, kv, val, flag);
    attr_give();
    return rc;
}

static int delete_attr_unlocked(int kind, uint64_t obj, int kv)
{
    MANA_CHECK_INIT();
    if (!kv_of(kv, kind)) return MPI_ERR_KEYVAL;
    struct attr **p = find(kind, obj, kv);
    if (!p) return MPI_ERR_KEYVAL;
    int rc = call_delete(kind, obj, kv, (*p)->val);
    if (rc != MPI_SUCCESS) return rc;
    unlink_attr(kind, obj, kv);      /* found again: the callback may have changed the list */
    return MPI_SUCCESS;
}

static int delete_attr(int kind, uint64_t obj, int kv)
{
    attr_take();
    int rc = delete_attr_unlocked(kind, obj, kv);
    attr_give();
    return rc;
}

static int mana_attr_copy_unlocked(int kind, uint64_t oldh, uint64_t newh)
{
    /* New attributes go to the head of the list: the walk below only sees the old ones. */
    for (struct attr *a = attrs; a; a = a->next) {
        if (a->kind != kind || a->obj != oldh) continue;
        struct keyval *k = kv_of(a->kv, kind);
        if (!k || !k->copy) continue;
        void *out = NULL;
        int flag = 0, rc;
        if (kind == K_COMM)
            rc = ((MPI_Comm_copy_attr_function *)k->copy)(HMAKE(MPI_Comm, oldh), a->kv, k->extra, a->val, &out, &flag);
        else
            rc = ((MPI_Type_copy_attr_function *)k->copy)(HMAKE(MPI_Datatype, oldh), a->kv, k->extra, a->val, &out, &flag);
        if (rc != MPI_SUCCESS) return rc;
        if (flag && (rc = attr_add(kind, newh, a->kv, out)) != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int mana_attr_copy(int kind, uint64_t oldh, uint64_t newh)
{
    attr_take();
    int rc = mana_attr_copy_unlocked(kind, oldh, newh);
    attr_give();
    return rc;
}

static int mana_attr_clear_unlocked(int kind, uint64_t h)
{
    /* One attribute at a time, each found from the head of the list: a delete callback is the
     * program's and may delete or add attributes itself (mpi4py's on MPI_COMM_SELF does), which would
     * leave a pointer into the list held across it dangling. */
    for (int guard = 0; guard < 1 << 20; guard++) {
        struct attr *a = attrs;
        while (a && (a->kind != kind || a->obj != h)) a = a->next;
        if (!a) return MPI_SUCCESS;
        int kv = a->kv, rc = call_delete(kind, h, kv, a->val);
        if (rc != MPI_SUCCESS) return rc;
        unlink_attr(kind, h, kv);
    }
    return MPI_SUCCESS;
}

int mana_attr_clear(int kind, uint64_t h)
{
    attr_take();
    int rc = mana_attr_clear_unlocked(kind, h);
    attr_give();
    return rc;
}

int mana_comm_dup_attrs(MPI_Comm old, MPI_Comm *newcomm)
{
    if (*newcomm == MPI_COMM_NULL) return MPI_SUCCESS;
    int rc = mana_attr_copy(K_COMM, HBITS(old), HBITS(*newcomm));
    if (rc != MPI_SUCCESS) {
        /* A copy callback failed: the dup fails (the copies already made are deleted by the free). */
        PMPI_Comm_free(newcomm);
        *newcomm = MPI_COMM_NULL;
    }
    return rc;
}

void mana_attr_finalize(void)
{
    /* MPI_Finalize frees MPI_COMM_SELF's attributes first, as MPI_Comm_free would. */
    mana_attr_clear(K_COMM, HBITS(MPI_COMM_SELF));
}

/* ---- communicators ---- */

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, int *kv,
                            void *extra)
{ return kv_create(K_COMM, (void (*)(void))copy, (void (*)(void))del, kv, extra); }
ALIAS(Comm_create_keyval)
int PMPI_Comm_free_keyval(int *kv) { return kv_free(K_COMM, kv); }
ALIAS(Comm_free_keyval)
int PMPI_Comm_set_attr(MPI_Comm comm, int kv, void *val) { return set_attr(K_COMM, HBITS(comm), kv, val); }
ALIAS(Comm_set_attr)
int PMPI_Comm_delete_attr(MPI_Comm comm, int kv) { return delete_attr(K_COMM, HBITS(comm), kv); }
ALIAS(Comm_delete_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int kv, void *val, int *flag)
{
    MANA_CHECK_INIT();
    if (is_ours(kv)) return get_attr(K_COMM, HBITS(comm), kv, val, flag);
    /* Predefined keyvals (MPI_TAG_UB, MPI_WTIME_IS_GLOBAL, ...): the real library's values. */
    int rc;
    LOWER(rc = real.Comm_get_attr(R(comm), kv, val, flag));
    return rc;
}
ALIAS(Comm_get_attr)

/* MPI-1 names of the same (deprecated, still exported by both libraries). */
int PMPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *kv, void *extra)
{ return kv_create(K_COMM, (void (*)(void))copy, (void (*)(void))del, kv, extra); }
ALIAS(Keyval_create)
int PMPI_Keyval_free(int *kv) { return kv_free(K_COMM, kv); }
ALIAS(Keyval_free)
int PMPI_Attr_put(MPI_Comm comm, int kv, void *val) { return PMPI_Comm_set_attr(comm, kv, val); }
ALIAS(Attr_put)
int PMPI_Attr_get(MPI_Comm comm, int kv, void *val, int *flag) { return PMPI_Comm_get_attr(comm, kv, val, flag); }
ALIAS(Attr_get)
int PMPI_Attr_delete(MPI_Comm comm, int kv) { return PMPI_Comm_delete_attr(comm, kv); }
ALIAS(Attr_delete)

/* ---- datatypes ---- */

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del, int *kv,
                            void *extra)
{ return kv_create(K_TYPE, (void (*)(void))copy, (void (*)(void))del, kv, extra); }
ALIAS(Type_create_keyval)
int PMPI_Type_free_keyval(int *kv) { return kv_free(K_TYPE, kv); }
ALIAS(Type_free_keyval)
int PMPI_Type_set_attr(MPI_Datatype t, int kv, void *val) { return set_attr(K_TYPE, HBITS(t), kv, val); }
ALIAS(Type_set_attr)
int PMPI_Type_get_attr(MPI_Datatype t, int kv, void *val, int *flag)
{ return get_attr(K_TYPE, HBITS(t), kv, val, flag); }
ALIAS(Type_get_attr)
int PMPI_Type_delete_attr(MPI_Datatype t, int kv) { return delete_attr(K_TYPE, HBITS(t), kv); }
ALIAS(Type_delete_attr)

/* ---- windows (win.c keeps the windows; MPI_WIN_BASE and the other predefined attributes come from
 * its record, since the real window of a restarted process is another one) ---- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy, MPI_Win_delete_attr_function *del, int *kv,
                           void *extra)
{ return kv_create(KV_WIN, (void (*)(void))copy, (void (*)(void))del, kv, extra); }
ALIAS(Win_create_keyval)
int PMPI_Win_free_keyval(int *kv) { return kv_free(KV_WIN, kv); }
ALIAS(Win_free_keyval)
int PMPI_Win_set_attr(MPI_Win win, int kv, void *val)
{
    MANA_CHECK_INIT();
    if (!mana_win_obj(win)) return mana_win_err(NULL, win, MPI_ERR_WIN);
    return mana_win_err(mana_win_obj(win), win, set_attr(KV_WIN, HBITS(win), kv, val));
}
ALIAS(Win_set_attr)
int PMPI_Win_get_attr(MPI_Win win, int kv, void *val, int *flag)
{
    MANA_CHECK_INIT();
    if (!mana_win_obj(win)) return mana_win_err(NULL, win, MPI_ERR_WIN);
    if (is_ours(kv)) return mana_win_err(mana_win_obj(win), win, get_attr(KV_WIN, HBITS(win), kv, val, flag));
    return mana_win_attr_predef(win, kv, val, flag);
}
ALIAS(Win_get_attr)
int PMPI_Win_delete_attr(MPI_Win win, int kv)
{
    MANA_CHECK_INIT();
    if (!mana_win_obj(win)) return mana_win_err(NULL, win, MPI_ERR_WIN);
    return mana_win_err(mana_win_obj(win), win, delete_attr(KV_WIN, HBITS(win), kv));
}
ALIAS(Win_delete_attr)
int mana_win_attr_clear(uint64_t h) { return mana_attr_clear(KV_WIN, h); }

/* ---- the predefined callbacks: functions of the real library, so of ours too ---- */
#ifdef OPEN_MPI
#define NULL_COPY(name, T) \
    int name(T h, int kv, void *extra, void *in, void *out, int *flag) \
    { (void)h; (void)kv; (void)extra; (void)in; (void)out; *flag = 0; return MPI_SUCCESS; }
#define DUP(name, T) \
    int name(T h, int kv, void *extra, void *in, void *out, int *flag) \
    { (void)h; (void)kv; (void)extra; *(void **)out = in; *flag = 1; return MPI_SUCCESS; }
#define NULL_DELETE(name, T) \
    int name(T h, int kv, void *val, void *extra) { (void)h; (void)kv; (void)val; (void)extra; return MPI_SUCCESS; }
NULL_COPY(OMPI_C_MPI_COMM_NULL_COPY_FN, MPI_Comm)
DUP(OMPI_C_MPI_COMM_DUP_FN, MPI_Comm)
NULL_DELETE(OMPI_C_MPI_COMM_NULL_DELETE_FN, MPI_Comm)
NULL_COPY(OMPI_C_MPI_TYPE_NULL_COPY_FN, MPI_Datatype)
DUP(OMPI_C_MPI_TYPE_DUP_FN, MPI_Datatype)
NULL_DELETE(OMPI_C_MPI_TYPE_NULL_DELETE_FN, MPI_Datatype)
NULL_COPY(OMPI_C_MPI_WIN_NULL_COPY_FN, MPI_Win)
DUP(OMPI_C_MPI_WIN_DUP_FN, MPI_Win)
NULL_DELETE(OMPI_C_MPI_WIN_NULL_DELETE_FN, MPI_Win)
NULL_COPY(OMPI_C_MPI_NULL_COPY_FN, MPI_Comm)
DUP(OMPI_C_MPI_DUP_FN, MPI_Comm)
NULL_DELETE(OMPI_C_MPI_NULL_DELETE_FN, MPI_Comm)
#else
/* MPICH: the NULL callbacks are null pointers; MPI_*_DUP_FN is this one. */
MANA_ABI int MPIR_Dup_fn(MPI_Comm h, int kv, void *extra, void *in, void *out, int *flag);
int MPIR_Dup_fn(MPI_Comm h, int kv, void *extra, void *in, void *out, int *flag)
{ (void)h; (void)kv; (void)extra; *(void **)out = in; *flag = 1; return MPI_SUCCESS; }
#endif
