/*
 * fortran.c - what the MPIs' own Fortran libraries need from the C library beyond the C API.
 *
 * A Fortran program (mpif.h, `use mpi`, `use mpi_f08`) runs with its MPI's Fortran libraries unchanged
 * (Open MPI: libmpi_mpifh.so.40, libmpi_usempi_ignore_tkr.so.40, libmpi_usempif08.so.40; MPICH:
 * libmpichfort.so.12).  They are bindings over the C library, whose soname they need: in the upper half
 * that is this library, so every call reaches the wrappers (`PMPI_Send`, `PMPI_Comm_f2c` ...), and the
 * Fortran sentinels are recognised where they always were:
 *   Open MPI  MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE are the common blocks
 *             mpi_fortran_bottom_ ... (defined by the C library, which here is the stub's definition,
 *             or the program's own copy); libmpi_mpifh compares an argument's address with them and
 *             passes the C sentinel to the C call.
 *   MPICH     libmpichfort defines its common blocks and records their addresses itself at its first
 *             call (mpirinitf_: MPIR_F_MPI_BOTTOM ..., and the C library's MPI_F_STATUS(ES)_IGNORE,
 *             which it writes through the GOT into this library's copies); mpi_f08's sentinels are
 *             symbols it compares with directly.
 * What they take besides the C API is here:
 *   Open MPI  libmpi_mpifh reads a few fields of a C handle as Open MPI's objects have them (the
 *             *face* below, written when MPI_X_f2c hands the handle out), calls internal helpers
 *             (Fortran strings, attributes, MPI_Type_match_size's lookup, error invocation), reads
 *             ompi_status_empty, ompi_mpi_state and ompi_mpi_param_check (mirrored from the lower half),
 *             and Open MPI's C library itself exports a few Fortran functions (MPI_WTIME_F90 ...).
 *             MPI_F_STATUS(ES)_IGNORE point at the Fortran sentinels, as in the real library.
 *   MPICH     libmpichfort's attribute entry points (MPII_Comm_get_attr ...), the C library's
 *             MPI_F08_STATUS(ES)_IGNORE (pointers to mpi_f08's sentinels) and MPIR_C_MPI_UNWEIGHTED /
 *             WEIGHTS_EMPTY (the C values the f08 binding compares with, set at MPI_Init).
 * Not here, so their Fortran callers end the job with the coverage message (the stub; api/gen_stub.py
 * names the Fortran call): keyvals, error handlers and generalized requests with Fortran callbacks,
 * dynamic processes.  Every exported definition in this file starts with MANA_ABI at the start of its
 * line: gen_stub.py leaves those names out of the stub.
 */
#include "mpi_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FORTRAN_ALIAS(target, name) \
    MANA_ABI __typeof__(target) name __attribute__((alias(#target)));

/* Fortran attribute calls over the C ones.  A Fortran attribute is an integer: a predefined keyval's
 * (MPI_TAG_UB ...) is the value the C call points to; any other is the value the attribute holds,
 * which a Fortran set stores as the C attribute's pointer bits (as both MPIs do). */
static int fattr_get(int kind, uint64_t h, int kv, MPI_Aint *val, int *flag)
{
    void *p = NULL;
    int rc = kind == K_COMM ? PMPI_Comm_get_attr(HMAKE(MPI_Comm, h), kv, &p, flag)
                            : PMPI_Type_get_attr(HMAKE(MPI_Datatype, h), kv, &p, flag);
    if (rc != MPI_SUCCESS || !*flag) return rc;
    *val = kind == K_COMM && !mana_attr_kv_ours(kv) ? (MPI_Aint)*(const int *)p : (MPI_Aint)(intptr_t)p;
    return MPI_SUCCESS;
}

static int fattr_set(int kind, uint64_t h, int kv, MPI_Aint val)
{
    return kind == K_COMM ? PMPI_Comm_set_attr(HMAKE(MPI_Comm, h), kv, (void *)(intptr_t)val)
                          : PMPI_Type_set_attr(HMAKE(MPI_Datatype, h), kv, (void *)(intptr_t)val);
}

#ifdef OPEN_MPI
/* ---- Open MPI ---- */

/* Where Open MPI 4.1 (x86-64) keeps what libmpi_mpifh reads out of a C handle (found in its code):
 *   request    req_f_to_c_index (int): MPI_Wait/Test and friends and MPI_Request_free write it back as
 *              the program's Fortran handle once the call returns (0 for MPI_REQUEST_NULL, whose object
 *              is the stub's, zero there)
 *   datatype   d_keyhash: MPI_Type_get/set_attr pass it to ompi_attr_get/set_*
 *   comm       c_flags (bit 0: inter-communicator), c_local_group and c_remote_group (each group's
 *              size at +0x10): MPI_Alltoallw and friends size their type arrays with them; c_keyhash:
 *              MPI_Comm_get/set_attr, MPI_Attr_get/put */
#define OF_OP_FLAGS      0x54      /* ompi_op_t.o_flags: MPI_Op_create's Fortran binding sets bit 1 */
#define OF_OP_FORTRAN    0x2u
#define OF_REQ_FINDEX    0x68
#define OF_GREQ_C        0xc0      /* ompi_grequest_t.greq_funcs_are_c: MPI_Grequest_start's Fortran binding clears it */
#define OF_TYPE_KEYHASH  0xd0
#define OF_COMM_FLAGS    0xe8
#define OF_COMM_LGROUP   0xf8
#define OF_COMM_RGROUP   0x100
#define OF_COMM_KEYHASH  0x110
#define OF_GROUP_SIZE    0x10
#define OF_COMM_SIZES    0x118     /* ours: the local and remote sizes the two group pointers lead to */
#define OF_COMM_END      0x120
/* The entry's space those land in is space its kind does not use (mpi_int.h): */
_Static_assert(offsetof(struct vobj, a[4]) + 4 == OF_OP_FLAGS, "an op's a[4] takes Open MPI's flags");
_Static_assert(offsetof(struct vobj, a[7]) == OF_REQ_FINDEX, "a request's a[7] is its Fortran index");
_Static_assert(offsetof(struct vobj, peer) == OF_GREQ_C, "a generalized request's peer is the C marker");
_Static_assert(offsetof(struct vobj, buf) == OF_TYPE_KEYHASH, "a datatype's buf is its key hash");
_Static_assert(offsetof(struct vobj, status) == OF_COMM_FLAGS, "a communicator's face starts at status");
_Static_assert(sizeof(struct vobj) >= OF_COMM_END, "the table entry holds a communicator's face");

/* The "key hash" this library puts in a handle: the handle itself, its kind in the low bits (entries
 * and the stub's objects are aligned to 64). */
#define KH_COMM 1u
#define KH_TYPE 2u

static void put_ptr(unsigned char *o, unsigned off, uintptr_t v) { memcpy(o + off, &v, sizeof v); }

static void face_comm(uint64_t h, int inter, int lsize, int rsize)
{
    unsigned char *o = (unsigned char *)(uintptr_t)h;
    uint32_t flags = inter ? 1u : 0u;
    int32_t sizes[2] = { lsize, rsize };
    memcpy(o + OF_COMM_SIZES, sizes, sizeof sizes);
    put_ptr(o, OF_COMM_LGROUP, (uintptr_t)(o + OF_COMM_SIZES - OF_GROUP_SIZE));
    put_ptr(o, OF_COMM_RGROUP, (uintptr_t)(o + OF_COMM_SIZES + 4 - OF_GROUP_SIZE));
    put_ptr(o, OF_COMM_KEYHASH, (uintptr_t)h | KH_COMM);
    memcpy(o + OF_COMM_FLAGS, &flags, sizeof flags);
}

void mana_fortran_face(int kind, uint64_t h)
{
    if (!h) return;
    struct vobj *v = vobj_of(h);
    switch (kind) {
    case K_REQ:
        if (v) v->a[7] = MANA_F_BASE + v->idx;           /* as PMPI_Request_c2f gives it */
        break;
    case K_TYPE:
        put_ptr((unsigned char *)(uintptr_t)h, OF_TYPE_KEYHASH, (uintptr_t)h | KH_TYPE);
        break;
    case K_COMM: {
        /* the predefined communicators' faces are written at start (mana_fortran_refresh) */
        if (!v || (__atomic_load_n(&v->flags, __ATOMIC_ACQUIRE) & VF_FFACE)) break;
        int inter = 0, lsize = 0, rsize = 0;
        MPI_Comm c = HMAKE(MPI_Comm, h);
        if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || PMPI_Comm_size(c, &lsize) != MPI_SUCCESS) break;
        if (inter && PMPI_Comm_remote_size(c, &rsize) != MPI_SUCCESS) break;
        face_comm(h, inter, lsize, inter ? rsize : lsize);
        __atomic_or_fetch(&v->flags, VF_FFACE, __ATOMIC_RELEASE);
        break;
    }
    default:
        break;
    }
}

/* MPI_Op_create's Fortran binding flags the new op as Fortran in the C object (in a[4] of ours), then
 * asks for its Fortran handle: from then on the trampoline calls the function the Fortran way (the
 * datatype as a Fortran handle).  MPICH calls Fortran and C functions alike (its handles are ints). */
void mana_fortran_op_c2f(uint64_t h)
{
    struct vobj *o = vobj_of(h);
    uint32_t flags;
    if (!o || o->kind != K_OP || o->recipe != R_OP_CREATE) return;
    memcpy(&flags, (const unsigned char *)o + OF_OP_FLAGS, sizeof flags);
    if (flags & OF_OP_FORTRAN) mana_op_fortran((int)o->a[0]);
}

/* MPI_Grequest_start's Fortran binding marks the request's callbacks as Fortran (it clears a byte of
 * the C object: the low byte of our entry's peer, -1 for a generalized request), then asks for its
 * Fortran handle.  Fortran callbacks are not supported: end the job as MPICH's binding does (the stub). */
void mana_fortran_req_c2f(uint64_t h)
{
    struct vobj *o = vobj_of(h);
    if (o && o->kind == K_REQ && o->rkind == RQ_GREQ && ((const unsigned char *)o)[OF_GREQ_C] == 0)
        mana_unsupported("MPI_Grequest_start from Fortran", "generalized requests with Fortran callbacks are not supported yet");
}

/* A symbol of the real library, in the lower half (the lower half's dlsym). */
static void *lower_symbol(const char *name)
{
    void *(*resolve)(const char *) = (void *(*)(const char *))lower.lh->mpi.resolve;
    void *r;
    LOWER(r = resolve(name));
    return r;
}

/* Mirrored from the lower half: what libmpi_mpifh reads of the C library's state. */
extern struct ompi_status_public_t ompi_status_empty MANA_ABI;   /* MPI_Waitany/Testany's empty status */
extern int ompi_mpi_state MANA_ABI;                               /* MPI_Type_match_size's checks */
extern bool ompi_mpi_param_check MANA_ABI;
static void *(*real_match_size)(int size, uint16_t datakind, uint16_t datalang);

void mana_fortran_refresh(void)
{
    const void *p;
    if ((p = lower_symbol("ompi_status_empty"))) memcpy(&ompi_status_empty, p, sizeof ompi_status_empty);
    if ((p = lower_symbol("ompi_mpi_state"))) memcpy(&ompi_mpi_state, p, sizeof ompi_mpi_state);
    if ((p = lower_symbol("ompi_mpi_param_check"))) memcpy(&ompi_mpi_param_check, p, sizeof ompi_mpi_param_check);
    real_match_size = (void *(*)(int, uint16_t, uint16_t))lower_symbol("ompi_datatype_match_size");
    mana_f2c_forget();
    int ws = (int)lower.lh->mpi.world_size;          /* no wrapper here: at a restart the gate is closed */
    face_comm(HBITS(MPI_COMM_WORLD), 0, ws, ws);
    face_comm(HBITS(MPI_COMM_SELF), 0, 1, 1);
}

/* The C library's pointers to the Fortran status sentinels (the real library's initial values). */
extern MPI_Fint mpi_fortran_status_ignore_ MANA_ABI;
extern MPI_Fint mpi_fortran_statuses_ignore_ MANA_ABI;
MANA_ABI MPI_Fint *MPI_F_STATUS_IGNORE = &mpi_fortran_status_ignore_;
MANA_ABI MPI_Fint *MPI_F_STATUSES_IGNORE = &mpi_fortran_statuses_ignore_;

/* Fortran strings: blank-padded, no terminator.  f2c gives a malloc'd copy without leading and
 * trailing blanks (the caller frees it); c2f copies and pads with blanks.  0, or Open MPI's
 * OMPI_ERR_OUT_OF_RESOURCE (-2). */
MANA_ABI int ompi_fortran_string_f2c(const char *fstr, int len, char **cstr)
{
    int b = 0, e = len;
    while (b < e && fstr[b] == ' ') b++;
    while (e > b && fstr[e - 1] == ' ') e--;
    char *s = malloc((size_t)(e - b) + 1);
    if (!s) return -2;
    memcpy(s, fstr + b, (size_t)(e - b));
    s[e - b] = '\0';
    *cstr = s;
    return 0;
}

MANA_ABI int ompi_fortran_string_c2f(const char *cstr, char *fstr, int len)
{
    int n = (int)strnlen(cstr, (size_t)(len > 0 ? len : 0));
    memcpy(fstr, cstr, (size_t)n);
    if (len > n) memset(fstr + n, ' ', (size_t)(len - n));
    return 0;
}

/* Attributes: the key hash names the handle (face above); the object is given to the setters. */
static int hash_handle(const void *hash, int *kind, uint64_t *h)
{
    uintptr_t k = (uintptr_t)hash;
    if ((k & 3u) == KH_COMM) *kind = K_COMM;
    else if ((k & 3u) == KH_TYPE) *kind = K_TYPE;
    else return MPI_ERR_ARG;
    *h = k & ~(uintptr_t)3u;
    return MPI_SUCCESS;
}

MANA_ABI int ompi_attr_get_aint(void *hash, int key, MPI_Aint *attribute, int *flag)
{
    int kind;
    uint64_t h;
    *flag = 0;
    int rc = hash_handle(hash, &kind, &h);
    return rc == MPI_SUCCESS ? fattr_get(kind, h, key, attribute, flag) : rc;
}

MANA_ABI int ompi_attr_get_fint(void *hash, int key, MPI_Fint *attribute, int *flag)
{
    MPI_Aint v = 0;
    int rc = ompi_attr_get_aint(hash, key, &v, flag);
    if (rc == MPI_SUCCESS && *flag) *attribute = (MPI_Fint)v;
    return rc;
}

/* type: Open MPI's COMM_ATTR 1, TYPE_ATTR 2 (WIN_ATTR 3: window attributes from Fortran are not mapped
 * here yet; the C calls are, win.c and attr.c) */
static int attr_kind(int type) { return type == 1 ? K_COMM : type == 2 ? K_TYPE : -1; }

MANA_ABI int ompi_attr_set_aint(int type, void *object, void **hash, int key, MPI_Aint attribute, bool predefined)
{
    (void)hash; (void)predefined;
    int kind = attr_kind(type);
    if (kind < 0) mana_unsupported("MPI_Win_set_attr", "window attributes are not wrapped for Open MPI's Fortran bindings yet");
    return fattr_set(kind, (uint64_t)(uintptr_t)object, key, attribute);
}

MANA_ABI int ompi_attr_set_fint(int type, void *object, void **hash, int key, MPI_Fint attribute, bool predefined)
{
    return ompi_attr_set_aint(type, object, hash, key, (MPI_Aint)attribute, predefined);
}

/* MPI_Type_match_size's lookup: the real library's, in the lower half, mapped to the program's
 * predefined handle. */
MANA_ABI void *ompi_datatype_match_size(int size, uint16_t datakind, uint16_t datalang)
{
    void *r = NULL;
    if (real_match_size) LOWER(r = real_match_size(size, datakind, datalang));
    uint64_t v = r ? vfind(K_TYPE, (uint64_t)(uintptr_t)r) : 0;
    return v ? (void *)(uintptr_t)v : (void *)MPI_DATATYPE_NULL;
}

/* An error the Fortran library found itself (a string it could not convert...): its object is
 * MPI_COMM_WORLD, whose handler decides, as in the real library. */
MANA_ABI int ompi_errhandler_invoke(void *errhandler, void *mpi_object, int object_type, int err_code,
                                    const char *message)
{
    (void)errhandler; (void)mpi_object; (void)object_type;
    if (mana_debug_on()) mana_say("mana: Fortran binding error %d: %s", err_code, message ? message : "");
    if (err_code != MPI_SUCCESS) PMPI_Comm_call_errhandler(MPI_COMM_WORLD, err_code);
    return err_code;
}

/* MPI_ERRORS_ARE_FATAL, as libmpi_mpifh invokes it itself (MPI_Type_match_size's argument checks). */
MANA_ABI void ompi_mpi_errors_are_fatal_comm_handler(MPI_Comm *comm, int *err, ...)
{
    (void)comm;
    mana_say("MANA: MPI error %d in a Fortran call (MPI_ERRORS_ARE_FATAL): the job ends", *err);
    PMPI_Abort(MPI_COMM_WORLD, *err);
}

/* Fortran functions Open MPI's C library exports (the `use mpi` module's MPI_Wtime, MPI_Aint_add ...),
 * each under its four names. */
MANA_ABI double mpi_wtime_f90(void) { return PMPI_Wtime(); }
MANA_ABI double mpi_wtick_f90(void) { return PMPI_Wtick(); }
MANA_ABI MPI_Aint mpi_aint_add_f90(MPI_Aint *base, MPI_Aint *disp) { return *base + *disp; }
MANA_ABI MPI_Aint mpi_aint_diff_f90(MPI_Aint *addr1, MPI_Aint *addr2) { return *addr1 - *addr2; }
FORTRAN_ALIAS(mpi_wtime_f90, MPI_WTIME_F90)
FORTRAN_ALIAS(mpi_wtime_f90, mpi_wtime_f90_)
FORTRAN_ALIAS(mpi_wtime_f90, mpi_wtime_f90__)
FORTRAN_ALIAS(mpi_wtick_f90, MPI_WTICK_F90)
FORTRAN_ALIAS(mpi_wtick_f90, mpi_wtick_f90_)
FORTRAN_ALIAS(mpi_wtick_f90, mpi_wtick_f90__)
FORTRAN_ALIAS(mpi_aint_add_f90, MPI_AINT_ADD_F90)
FORTRAN_ALIAS(mpi_aint_add_f90, mpi_aint_add_f90_)
FORTRAN_ALIAS(mpi_aint_add_f90, mpi_aint_add_f90__)
FORTRAN_ALIAS(mpi_aint_diff_f90, MPI_AINT_DIFF_F90)
FORTRAN_ALIAS(mpi_aint_diff_f90, mpi_aint_diff_f90_)
FORTRAN_ALIAS(mpi_aint_diff_f90, mpi_aint_diff_f90__)

#else
/* ---- MPICH ---- */

/* The C values of MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY that mpi_f08's graph calls compare with: the
 * real MPI_Init sets the real library's; libmpichfort defines them too, and whichever definition the
 * program's symbol scope finds first is the one both sides use. */
extern void *MPIR_C_MPI_UNWEIGHTED MANA_ABI;
extern void *MPIR_C_MPI_WEIGHTS_EMPTY MANA_ABI;

void mana_fortran_refresh(void)
{
    MPIR_C_MPI_UNWEIGHTED = MPI_UNWEIGHTED;
    MPIR_C_MPI_WEIGHTS_EMPTY = MPI_WEIGHTS_EMPTY;
}

void mana_fortran_face(int kind, uint64_t h) { (void)kind; (void)h; }

/* mpi_f08's status sentinels, as the real library initialises them. */
MANA_ABI MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MANA_ABI MPI_F08_status *MPI_F08_STATUSES_IGNORE = &MPIR_F08_MPI_STATUSES_IGNORE_OBJ[0];

/* libmpichfort's attribute calls: outtype is MPICH's MPIR_Attr_type, MPIR_ATTR_AINT 1 (MPI_Comm_get_attr)
 * or MPIR_ATTR_INT 3 (MPI_Attr_get); the value goes out as an MPI_Aint either way (libmpichfort reads the
 * int of an MPIR_ATTR_INT from its first bytes). */
static int mpich_get(int kind, uint64_t h, int kv, void *val, int *flag)
{
    MPI_Aint v = 0;
    *flag = 0;
    int rc = fattr_get(kind, h, kv, &v, flag);
    if (rc == MPI_SUCCESS && *flag) memcpy(val, &v, sizeof v);
    return rc;
}

MANA_ABI int MPII_Comm_get_attr(MPI_Comm comm, int kv, void *val, int *flag, int outtype)
{
    (void)outtype;
    return mpich_get(K_COMM, HBITS(comm), kv, val, flag);
}

MANA_ABI int MPII_Type_get_attr(MPI_Datatype type, int kv, void *val, int *flag, int outtype)
{
    (void)outtype;
    return mpich_get(K_TYPE, HBITS(type), kv, val, flag);
}

MANA_ABI int MPII_Comm_set_attr(MPI_Comm comm, int kv, void *val, int attrtype)
{
    (void)attrtype;
    return fattr_set(K_COMM, HBITS(comm), kv, (MPI_Aint)(intptr_t)val);
}

MANA_ABI int MPII_Type_set_attr(MPI_Datatype type, int kv, void *val, int attrtype)
{
    (void)attrtype;
    return fattr_set(K_TYPE, HBITS(type), kv, (MPI_Aint)(intptr_t)val);
}
#endif
