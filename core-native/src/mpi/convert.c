/*
 * convert.c - the C/Fortran handle converters (MPI_X_c2f, MPI_X_f2c) and MPI_Status_c2f/f2c.
 *
 * Open MPI: a Fortran handle is an int.  For an object of ours it is MANA_F_BASE + its table index
 * (stable across a restart, since the object keeps its index); predefined objects keep the real
 * library's Fortran value (small numbers, below MANA_F_BASE), mapped back to the program's predefined
 * handle by f2c.  See mpi_int.h.
 * MPICH: the handle converters are casts in mpi.h (the virtual handle is its own Fortran handle) and
 * the library does not export them; only the status converters are functions.
 * Open MPI's Fortran library gets every C handle it uses from f2c: a communicator, datatype or request
 * gets the fields it reads there (its Fortran face, fortran.c).  A predefined Fortran value (MPI_INTEGER,
 * MPI_COMM_WORLD ...) is looked up once: a small cache maps it to the program's predefined handle.
 */
#include "mpi_int.h"

#include <string.h>

int PMPI_Status_f2c(const MPI_Fint *f, MPI_Status *c)
{ MANA_CHECK_INIT(); int rc; LOWER(rc = real.Status_f2c(f, c)); return rc; }
ALIAS(Status_f2c)

#ifdef OPEN_MPI
/* Ours: MANA_F_BASE + index; -1 when h is not ours. */
static MPI_Fint ours_c2f(uint64_t h)
{
    struct vobj *o = vobj_of(h);
    return o ? (MPI_Fint)(MANA_F_BASE + o->idx) : -1;
}

/* The handle of a Fortran value of ours (kind checked), 0 when it is not one of ours. */
static uint64_t ours_f2c(MPI_Fint f, int kind, int *mine)
{
    *mine = f >= MANA_F_BASE;
    if (!*mine) return 0;
    uint32_t i = (uint32_t)(f - MANA_F_BASE);
    if (i >= vtab_usable || vtab[i].kind != kind || (vtab[i].flags & VF_ZOMBIE)) return 0;
    return vhandle(&vtab[i]);
}

/* Predefined Fortran values (the real library's, below MANA_F_BASE) -> the program's handle: the real
 * library's numbering of its predefined objects is fixed, so an answer holds for the run; cleared at a
 * restart all the same (mana_fortran_refresh -> mana_f2c_forget). */
#define FPRE_MAX 1024
static uint64_t fpre[K_MSG + 1][FPRE_MAX];

void mana_f2c_forget(void) { memset(fpre, 0, sizeof fpre); }

static uint64_t fpre_get(int kind, MPI_Fint f)
{
    return f >= 0 && f < FPRE_MAX ? __atomic_load_n(&fpre[kind][f], __ATOMIC_RELAXED) : 0;
}

/* The real library's answer for a value that is not ours, as the program's handle (remembered). */
static uint64_t fpre_put(int kind, MPI_Fint f, uint64_t realh)
{
    uint64_t v = vfind(kind, realh);
    if (v && f >= 0 && f < FPRE_MAX) __atomic_store_n(&fpre[kind][f], v, __ATOMIC_RELAXED);
    return v;
}

/* Each kind: c2f numbers ours and asks the real library for a predefined object; f2c the reverse, then
 * writes the handle's Fortran face (fortran.c). */
MPI_Fint PMPI_Comm_c2f(MPI_Comm h)
{
    MANA_CHECK_INIT();
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Comm_c2f(R(h)));
    return f;
}
ALIAS(Comm_c2f)
MPI_Comm PMPI_Comm_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_COMM, &mine);
    if (!mine && !(v = fpre_get(K_COMM, f))) {
        MPI_Comm r;
        LOWER(r = real.Comm_f2c(f));
        v = fpre_put(K_COMM, f, HBITS(r));
    }
    if (!v) return MPI_COMM_NULL;
    mana_fortran_face(K_COMM, v);
    return HMAKE(MPI_Comm, v);
}
ALIAS(Comm_f2c)

MPI_Fint PMPI_Group_c2f(MPI_Group h)
{
    MANA_CHECK_INIT();
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Group_c2f(R(h)));
    return f;
}
ALIAS(Group_c2f)
MPI_Group PMPI_Group_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_GROUP, &mine);
    if (!mine && !(v = fpre_get(K_GROUP, f))) {
        MPI_Group r;
        LOWER(r = real.Group_f2c(f));
        v = fpre_put(K_GROUP, f, HBITS(r));
    }
    if (!v) return MPI_GROUP_NULL;
    mana_fortran_face(K_GROUP, v);
    return HMAKE(MPI_Group, v);
}
ALIAS(Group_f2c)

MPI_Fint PMPI_Type_c2f(MPI_Datatype h)
{
    MANA_CHECK_INIT();
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Type_c2f(R(h)));
    return f;
}
ALIAS(Type_c2f)
MPI_Datatype PMPI_Type_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_TYPE, &mine);
    if (!mine && !(v = fpre_get(K_TYPE, f))) {
        MPI_Datatype r;
        LOWER(r = real.Type_f2c(f));
        v = fpre_put(K_TYPE, f, HBITS(r));
    }
    if (!v) return MPI_DATATYPE_NULL;
    mana_fortran_face(K_TYPE, v);
    return HMAKE(MPI_Datatype, v);
}
ALIAS(Type_f2c)

MPI_Fint PMPI_Op_c2f(MPI_Op h)
{
    MANA_CHECK_INIT();
    mana_fortran_op_c2f(HBITS(h));
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Op_c2f(R(h)));
    return f;
}
ALIAS(Op_c2f)
MPI_Op PMPI_Op_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_OP, &mine);
    if (!mine && !(v = fpre_get(K_OP, f))) {
        MPI_Op r;
        LOWER(r = real.Op_f2c(f));
        v = fpre_put(K_OP, f, HBITS(r));
    }
    if (!v) return MPI_OP_NULL;
    mana_fortran_face(K_OP, v);
    return HMAKE(MPI_Op, v);
}
ALIAS(Op_f2c)

MPI_Fint PMPI_Request_c2f(MPI_Request h)
{
    MANA_CHECK_INIT();
    mana_fortran_req_c2f(HBITS(h));
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Request_c2f(R(h)));
    return f;
}
ALIAS(Request_c2f)
MPI_Request PMPI_Request_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_REQ, &mine);
    if (!mine && !(v = fpre_get(K_REQ, f))) {
        MPI_Request r;
        LOWER(r = real.Request_f2c(f));
        v = fpre_put(K_REQ, f, HBITS(r));
    }
    if (!v) return MPI_REQUEST_NULL;
    mana_fortran_face(K_REQ, v);
    return HMAKE(MPI_Request, v);
}
ALIAS(Request_f2c)

MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler h)
{
    MANA_CHECK_INIT();
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Errhandler_c2f(R(h)));
    return f;
}
ALIAS(Errhandler_c2f)
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_ERRH, &mine);
    if (!mine && !(v = fpre_get(K_ERRH, f))) {
        MPI_Errhandler r;
        LOWER(r = real.Errhandler_f2c(f));
        v = fpre_put(K_ERRH, f, HBITS(r));
    }
    if (!v) return MPI_ERRHANDLER_NULL;
    mana_fortran_face(K_ERRH, v);
    return HMAKE(MPI_Errhandler, v);
}
ALIAS(Errhandler_f2c)

MPI_Fint PMPI_Info_c2f(MPI_Info h)
{
    MANA_CHECK_INIT();
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Info_c2f(R(h)));
    return f;
}
ALIAS(Info_c2f)
MPI_Info PMPI_Info_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_INFO, &mine);
    if (!mine && !(v = fpre_get(K_INFO, f))) {
        MPI_Info r;
        LOWER(r = real.Info_f2c(f));
        v = fpre_put(K_INFO, f, HBITS(r));
    }
    if (!v) return MPI_INFO_NULL;
    mana_fortran_face(K_INFO, v);
    return HMAKE(MPI_Info, v);
}
ALIAS(Info_f2c)

MPI_Fint PMPI_Message_c2f(MPI_Message h)
{
    MANA_CHECK_INIT();
    MPI_Fint f = ours_c2f(HBITS(h));
    if (f < 0) LOWER(f = real.Message_c2f(R(h)));
    return f;
}
ALIAS(Message_c2f)
MPI_Message PMPI_Message_f2c(MPI_Fint f)
{
    MANA_CHECK_INIT();
    int mine;
    uint64_t v = ours_f2c(f, K_MSG, &mine);
    if (!mine && !(v = fpre_get(K_MSG, f))) {
        MPI_Message r;
        LOWER(r = real.Message_f2c(f));
        v = fpre_put(K_MSG, f, HBITS(r));
    }
    if (!v) return MPI_MESSAGE_NULL;
    mana_fortran_face(K_MSG, v);
    return HMAKE(MPI_Message, v);
}
ALIAS(Message_f2c)
#endif
