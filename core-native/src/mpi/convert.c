/*
 * convert.c - the C/Fortran handle converters (MPI_X_c2f, MPI_X_f2c) and MPI_Status_c2f/f2c.
 *
 * Open MPI: a Fortran handle is an int.  For an object of ours it is MANA_F_BASE + its table index
 * (stable across a restart, since the object keeps its index); predefined objects keep the real
 * library's Fortran value (small numbers, below MANA_F_BASE), mapped back to the program's predefined
 * handle by f2c.  See mpi_int.h.
 * MPICH: the handle converters are casts in mpi.h (the virtual handle is its own Fortran handle) and
 * the library does not export them; only the status converters are functions.
 */
#include "mpi_int.h"

#define ALIAS(n) extern __typeof__(PMPI_##n) MPI_##n __attribute__((weak, alias("PMPI_" #n)));

int PMPI_Status_c2f(const MPI_Status *c, MPI_Fint *f)
{ MANA_CHECK_INIT(); int rc; LOWER(rc = real.Status_c2f(c, f)); return rc; }
ALIAS(Status_c2f)
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
    if (mine) return v ? HMAKE(MPI_Comm, v) : MPI_COMM_NULL;
    MPI_Comm r;
    LOWER(r = real.Comm_f2c(f));
    v = vfind(K_COMM, HBITS(r));
    return v ? HMAKE(MPI_Comm, v) : MPI_COMM_NULL;
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
    if (mine) return v ? HMAKE(MPI_Group, v) : MPI_GROUP_NULL;
    MPI_Group r;
    LOWER(r = real.Group_f2c(f));
    v = vfind(K_GROUP, HBITS(r));
    return v ? HMAKE(MPI_Group, v) : MPI_GROUP_NULL;
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
    if (mine) return v ? HMAKE(MPI_Datatype, v) : MPI_DATATYPE_NULL;
    MPI_Datatype r;
    LOWER(r = real.Type_f2c(f));
    v = vfind(K_TYPE, HBITS(r));
    return v ? HMAKE(MPI_Datatype, v) : MPI_DATATYPE_NULL;
}
ALIAS(Type_f2c)

MPI_Fint PMPI_Op_c2f(MPI_Op h)
{
    MANA_CHECK_INIT();
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
    if (mine) return v ? HMAKE(MPI_Op, v) : MPI_OP_NULL;
    MPI_Op r;
    LOWER(r = real.Op_f2c(f));
    v = vfind(K_OP, HBITS(r));
    return v ? HMAKE(MPI_Op, v) : MPI_OP_NULL;
}
ALIAS(Op_f2c)

MPI_Fint PMPI_Request_c2f(MPI_Request h)
{
    MANA_CHECK_INIT();
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
    if (mine) return v ? HMAKE(MPI_Request, v) : MPI_REQUEST_NULL;
    MPI_Request r;
    LOWER(r = real.Request_f2c(f));
    v = vfind(K_REQ, HBITS(r));
    return v ? HMAKE(MPI_Request, v) : MPI_REQUEST_NULL;
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
    if (mine) return v ? HMAKE(MPI_Errhandler, v) : MPI_ERRHANDLER_NULL;
    MPI_Errhandler r;
    LOWER(r = real.Errhandler_f2c(f));
    v = vfind(K_ERRH, HBITS(r));
    return v ? HMAKE(MPI_Errhandler, v) : MPI_ERRHANDLER_NULL;
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
    if (mine) return v ? HMAKE(MPI_Info, v) : MPI_INFO_NULL;
    MPI_Info r;
    LOWER(r = real.Info_f2c(f));
    v = vfind(K_INFO, HBITS(r));
    return v ? HMAKE(MPI_Info, v) : MPI_INFO_NULL;
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
    if (mine) return v ? HMAKE(MPI_Message, v) : MPI_MESSAGE_NULL;
    MPI_Message r;
    LOWER(r = real.Message_f2c(f));
    v = vfind(K_MSG, HBITS(r));
    return v ? HMAKE(MPI_Message, v) : MPI_MESSAGE_NULL;
}
ALIAS(Message_f2c)
#endif
