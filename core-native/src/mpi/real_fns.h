/*
 * real_fns.h - the real MPI entry points the upper half's MPI library calls in the lower half.
 * Resolved by name ("PMPI_" + name) through lh_info's resolver at MPI_Init and again after a restart.
 * One X-macro list, so the table and its resolution cannot drift apart.
 */
#include "real_fns_ext.h"
#define MANA_REAL_FNS(X) MANA_REAL_FNS_EXT(X) \
    X(Init_thread) X(Finalize) X(Abort) X(Comm_rank) X(Comm_size) X(Wtime) X(Wtick) \
    X(Get_processor_name) X(Get_library_version) X(Error_string) X(Error_class) \
    X(Send) X(Isend) X(Issend) X(Irsend) X(Ibsend) X(Irecv) X(Test) X(Wait) X(Cancel) X(Request_free) \
    X(Iprobe) X(Recv) X(Get_count) X(Get_elements) X(Status_set_elements) X(Status_set_cancelled) \
    X(Test_cancelled) X(Unpack) X(Pack) X(Pack_size) \
    X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Allgather) X(Allgatherv) X(Gather) X(Gatherv) \
    X(Scatter) X(Scatterv) X(Alltoall) X(Alltoallv) X(Alltoallw) X(Reduce_scatter) X(Reduce_scatter_block) \
    X(Scan) X(Exscan) X(Reduce_local) \
    X(Ibarrier) X(Ibcast) X(Ireduce) X(Iallreduce) X(Iallgather) X(Igather) X(Iscatter) X(Ialltoall) \
    X(Iallgatherv) X(Igatherv) X(Iscatterv) X(Ialltoallv) X(Ialltoallw) X(Ireduce_scatter) \
    X(Ireduce_scatter_block) X(Iscan) X(Iexscan) \
    X(Neighbor_allgather) X(Neighbor_allgatherv) X(Neighbor_alltoall) X(Neighbor_alltoallv) X(Neighbor_alltoallw) \
    X(Ineighbor_allgather) X(Ineighbor_allgatherv) X(Ineighbor_alltoall) X(Ineighbor_alltoallv) \
    X(Ineighbor_alltoallw) \
    X(Improbe) X(Imrecv) X(Mrecv) \
    X(Comm_dup) X(Comm_split) X(Comm_create) X(Comm_split_type) X(Comm_free) X(Comm_group) X(Comm_compare) \
    X(Comm_test_inter) X(Comm_set_errhandler) X(Comm_get_attr) X(Comm_set_name) X(Comm_get_name) \
    X(Group_size) X(Group_rank) X(Group_incl) X(Group_free) X(Group_translate_ranks) X(Group_compare) \
    X(Type_contiguous) X(Type_vector) X(Type_create_hvector) X(Type_indexed) X(Type_create_indexed_block) \
    X(Type_create_hindexed) X(Type_create_struct) X(Type_create_subarray) X(Type_create_resized) X(Type_dup) \
    X(Type_commit) X(Type_free) X(Type_size) X(Type_get_extent) X(Type_get_true_extent) \
    X(Op_create) X(Op_free) X(Op_commutative) \
    X(Cart_create) X(Cart_coords) X(Cart_rank) X(Cart_shift) X(Cart_get) X(Cartdim_get) X(Dims_create) \
    X(Cart_sub) X(Topo_test)
