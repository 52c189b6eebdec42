/*
 * real_fns_ext.h - the real entry points of attr.c, info.c, errh.c, topo.c, dtype.c and convert.c
 * (a list of its own so that real_fns.h and this one can grow apart).  Functions one ABI lacks, or
 * has only as a macro (MPICH's c2f/f2c), are in the per-ABI lists.
 */
#ifdef OPEN_MPI
#define MANA_REAL_FNS_ABI(X) \
    X(Comm_c2f) X(Comm_f2c) X(Group_c2f) X(Group_f2c) X(Type_c2f) X(Type_f2c) X(Op_c2f) X(Op_f2c) \
    X(Request_c2f) X(Request_f2c) X(Errhandler_c2f) X(Errhandler_f2c) X(Info_c2f) X(Info_f2c) \
    X(Message_c2f) X(Message_f2c)
#else
#define MANA_REAL_FNS_ABI(X) X(Info_get_string)
#endif

#define MANA_REAL_FNS_EXT(X) MANA_REAL_FNS_ABI(X) \
    X(Comm_idup) X(Intercomm_create) X(Intercomm_merge) X(Comm_remote_size) X(Comm_remote_group) \
    X(Comm_create_group) X(Comm_get_errhandler) X(Comm_create_errhandler) X(Comm_call_errhandler) \
    X(Errhandler_free) X(Add_error_class) X(Add_error_code) X(Add_error_string) \
    X(Info_create) X(Info_set) X(Info_free) X(Info_get) X(Info_get_nkeys) X(Info_get_nthkey) X(Info_get_valuelen) \
    X(Group_union) X(Group_intersection) X(Group_difference) X(Group_excl) X(Group_range_incl) \
    X(Group_range_excl) \
    X(Graph_create) X(Graphdims_get) X(Graph_get) X(Graph_neighbors_count) X(Graph_neighbors) X(Graph_map) \
    X(Cart_map) X(Dist_graph_create) X(Dist_graph_create_adjacent) X(Dist_graph_neighbors_count) \
    X(Dist_graph_neighbors) \
    X(Type_get_envelope) X(Type_get_contents) X(Type_get_name) X(Type_set_name) X(Get_elements_x) \
    X(Type_size_x) X(Type_get_extent_x) X(Type_get_true_extent_x) X(Status_set_elements_x) \
    X(Pack_external) X(Unpack_external) X(Pack_external_size) X(Type_create_darray) \
    X(Type_create_hindexed_block) X(Type_create_f90_real) X(Type_create_f90_complex) \
    X(Type_create_f90_integer) X(Type_match_size) X(Status_c2f) X(Status_f2c)
