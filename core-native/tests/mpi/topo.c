/* topo - graph and distributed-graph communicators (one with MPI_WEIGHTS_EMPTY at its ends), group
 * set operations, MPI_Comm_create_group, info objects and communicator hints, a user error handler
 * (with added error classes, codes and strings) beside MPI_ERRORS_RETURN, and C/Fortran handle round
 * trips; everything made before the checkpoint and used every iteration after it.  Exchanges go along
 * the topologies' neighbour lists. */
#include "mpitest.h"

/* MPI_UNWEIGHTED is a small constant pointer in Open MPI, which GCC takes for an array of size 0 */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static long handler_calls, handler_rank_errors;
static MPI_Comm ecomm;
static int my_class, my_code;

static void on_error(MPI_Comm *c, int *code, ...)
{
    if (*c != ecomm) mt_fail("error handler: not the communicator it was set on");
    int cls = 0;
    MPI_Error_class(*code, &cls);
    if (*code == my_code) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(*code, s, &len);
        if (cls != my_class || strcmp(s, "topo: my own error") != 0) mt_fail("added error code: class %d '%s'", cls, s);
    } else if (cls == MPI_ERR_RANK) {
        handler_rank_errors++;
    } else {
        mt_fail("error handler: unexpected class %d", cls);
    }
    handler_calls++;
}

/* The hints a communicator reports: an MPI may add its own and drop ours (the runtime keeps the
 * program's), so only their consistency is checked, not their number. */
static void check_hints(MPI_Comm c)
{
    MPI_Info got;
    MPI_Comm_get_info(c, &got);
    int n = 0, flag = 0, vlen = 0;
    MPI_Info_get_nkeys(got, &n);
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(got, i, key);
        MPI_Info_get_valuelen(got, key, &vlen, &flag);
        MPI_Info_get(got, key, MPI_MAX_INFO_VAL, val, &flag);
        if (!flag || (int)strlen(val) != vlen) mt_fail("hint %s", key);
        if (strcmp(key, "mana_hint_b") == 0 && strcmp(val, "bravo") != 0) mt_fail("hint %s=%s", key, val);
    }
    MPI_Info_free(&got);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int n = r.size, me = r.rank;

    /* graph: a ring */
    int *index = (int *)malloc(sizeof(int) * (size_t)n), *edges = (int *)malloc(sizeof(int) * 3 * (size_t)n), ne = 0;
    for (int i = 0; i < n; i++) {
        edges[ne++] = (i + 1) % n;
        edges[ne++] = (i + n - 1) % n;
        index[i] = ne;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph);
    MPI_Comm_set_name(graph, "ring graph");

    /* dist graph, adjacent and weighted: from the left, to the right */
    int src = (me + n - 1) % n, dst = (me + 1) % n, sw = 10 + src, dw = 10 + me;
    MPI_Comm dadj;
    /* mana-lint: ignore MPI_Dist_graph_create_adjacent (no hints given) */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &sw, 1, &dst, &dw, MPI_INFO_NULL, 0, &dadj);
    /* dist graph, general and unweighted: every rank names the edge me -> me+2 */
    int two = (me + 2) % n, one = 1;
    MPI_Comm dgen;
    /* mana-lint: ignore MPI_Dist_graph_create (no hints given) */
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &one, &two, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dgen);

    /* dist graph, adjacent and weighted, a chain i -> i+1 of weight 10+i: its ends have no edge on one
     * side and say so with MPI_WEIGHTS_EMPTY, which must stay apart from MPI_UNWEIGHTED (taken for it,
     * the graph would be unweighted) */
    if (MPI_UNWEIGHTED == MPI_WEIGHTS_EMPTY) mt_fail("MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are the same");
    int cin = me > 0, cout = me < n - 1, csrc = me - 1, cdst = me + 1, cwin = 9 + me, cwout = 10 + me;
    MPI_Comm chain;
    /* mana-lint: ignore MPI_Dist_graph_create_adjacent (no hints given) */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, cin, &csrc, cin ? &cwin : MPI_WEIGHTS_EMPTY, cout, &cdst,
                                   cout ? &cwout : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &chain);

    /* groups: evens, odds = world - evens, union, intersection, exclusion */
    MPI_Group world, evens, odds, both, none, noteven0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = { { 0, n - 1, 2 } };
    MPI_Group_range_incl(world, 1, range, &evens);
    MPI_Group_difference(world, evens, &odds);
    MPI_Group_union(odds, evens, &both);
    MPI_Group_intersection(odds, evens, &none);
    int zero = 0;
    MPI_Group_excl(evens, 1, &zero, &noteven0);
    int cmp_both, cmp_none, sz_odds, sz_ne0;
    MPI_Group_compare(both, world, &cmp_both);
    MPI_Group_compare(none, MPI_GROUP_EMPTY, &cmp_none);
    MPI_Group_size(odds, &sz_odds);
    MPI_Group_size(noteven0, &sz_ne0);
    MPI_Group rex;
    MPI_Group_range_excl(world, 1, range, &rex);
    int cmp_rex;
    MPI_Group_compare(rex, odds, &cmp_rex);
    if ((n > 1 && cmp_both != MPI_SIMILAR) || cmp_none != MPI_IDENT || sz_odds != n / 2 || sz_ne0 != (n + 1) / 2 - 1 ||
        cmp_rex != MPI_IDENT)
        mt_fail("group operations: %d %d %d %d %d", cmp_both, cmp_none, sz_odds, sz_ne0, cmp_rex);
    /* a communicator of the odd ranks only, made by them alone */
    MPI_Comm oddc = MPI_COMM_NULL;
    if (me % 2) MPI_Comm_create_group(MPI_COMM_WORLD, odds, 7, &oddc);

    /* info and hints */
    MPI_Info info, info2;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mana_hint_a", "alpha");
    MPI_Info_set(info, "mana_hint_b", "beta");
    MPI_Info_set(info, "mana_hint_c", "gamma");
    MPI_Info_delete(info, "mana_hint_c");
    MPI_Info_dup(info, &info2);
    MPI_Info_set(info2, "mana_hint_b", "bravo");
    MPI_Comm hinted;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info2, &hinted); /* mana-lint: ignore MPI_Comm_dup_with_info (the hints are only read back) */
    MPI_Info_free(&info2);

    /* error handling: an added class, code and string; a user handler; MPI_ERRORS_RETURN */
    MPI_Add_error_class(&my_class);
    MPI_Add_error_code(my_class, &my_code);
    MPI_Add_error_string(my_code, "topo: my own error");
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_dup(MPI_COMM_WORLD, &ecomm);
    MPI_Comm_set_errhandler(ecomm, eh);
    MPI_Errhandler_free(&eh);
    MPI_Comm rcomm;
    MPI_Comm_dup(MPI_COMM_WORLD, &rcomm);
    MPI_Comm_set_errhandler(rcomm, MPI_ERRORS_RETURN);

    /* Fortran handles taken before the checkpoint */
    MPI_Fint f_graph = MPI_Comm_c2f(graph), f_odds = MPI_Group_c2f(odds), f_info = MPI_Info_c2f(info);
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Fint f_vec = MPI_Type_c2f(vec), f_int = MPI_Type_c2f(MPI_INT), f_world = MPI_Comm_c2f(MPI_COMM_WORLD);

    uint64_t h = MT_HASH0;
    long it = 0;
    long val = me + 1;
    do {
        it++;
        /* graph: exchange with every neighbour */
        int nn = 0, nnodes = 0, nedges = 0;
        MPI_Graph_neighbors_count(graph, me, &nn);
        MPI_Graphdims_get(graph, &nnodes, &nedges);
        int nb[4];
        MPI_Graph_neighbors(graph, me, 4, nb);
        long acc = 0;
        for (int k = 0; k < nn; k++) {
            long got = 0;
            MPI_Sendrecv(&val, 1, MPI_LONG, nb[k], 1, &got, 1, MPI_LONG, nb[n > 1 ? nn - 1 - k : k], 1, graph,
                         MPI_STATUS_IGNORE);
            acc += got * (k + 1);
        }
        int topo = 0;
        MPI_Topo_test(graph, &topo);
        if (topo != MPI_GRAPH || nnodes != n || nedges != 2 * n) mt_fail("graph topology");
        char cname[MPI_MAX_OBJECT_NAME];
        int clen = 0;
        MPI_Comm_get_name(graph, cname, &clen);
        if (strcmp(cname, "ring graph") != 0 || clen != 10) mt_fail("communicator name lost: '%s'", cname);
        val = (val * 31 + acc + it) % 1000003;

        /* dist graphs: their neighbours and weights */
        int indeg, outdeg, weighted, s1, w1, d1, w2;
        MPI_Dist_graph_neighbors_count(dadj, &indeg, &outdeg, &weighted);
        MPI_Dist_graph_neighbors(dadj, 1, &s1, &w1, 1, &d1, &w2);
        if (indeg != 1 || outdeg != 1 || !weighted || s1 != src || d1 != dst || w1 != sw || w2 != dw)
            mt_fail("adjacent dist graph: %d %d %d %d %d %d %d", indeg, outdeg, weighted, s1, d1, w1, w2);
        long got = 0;
        MPI_Sendrecv(&val, 1, MPI_LONG, d1, 2, &got, 1, MPI_LONG, s1, 2, dadj, MPI_STATUS_IGNORE);
        val = (val + got * w1) % 1000003;
        MPI_Dist_graph_neighbors_count(dgen, &indeg, &outdeg, &weighted);
        if (indeg != 1 || outdeg != 1 || weighted) mt_fail("general dist graph: %d %d %d", indeg, outdeg, weighted);
        int gs, gd;
        MPI_Dist_graph_neighbors(dgen, 1, &gs, MPI_UNWEIGHTED, 1, &gd, MPI_UNWEIGHTED);
        MPI_Sendrecv(&val, 1, MPI_LONG, gd, 3, &got, 1, MPI_LONG, gs, 3, dgen, MPI_STATUS_IGNORE);
        val = (val + 3 * got) % 1000003;

        int cs = -1, cd = -1, cw1 = -1, cw2 = -1;
        MPI_Dist_graph_neighbors_count(chain, &indeg, &outdeg, &weighted);
        MPI_Dist_graph_neighbors(chain, cin, &cs, &cw1, cout, &cd, &cw2); /* MPICH 4.0 faults on a max above a 0 degree */
        if (indeg != cin || outdeg != cout || !weighted || (cin && (cs != csrc || cw1 != cwin)) ||
            (cout && (cd != cdst || cw2 != cwout)))
            mt_fail("chain dist graph: %d %d %d %d %d %d %d", indeg, outdeg, weighted, cs, cd, cw1, cw2);
        got = 0;
        MPI_Sendrecv(&val, cout, MPI_LONG, cout ? cdst : MPI_PROC_NULL, 4, &got, cin, MPI_LONG,
                     cin ? csrc : MPI_PROC_NULL, 4, chain, MPI_STATUS_IGNORE);
        val = (val + got * cwin) % 1000003;

        /* the odd ranks' communicator: a collective only some ranks make between two of the world's
         * (the collective drain may need more than one round for it) */
        if (oddc != MPI_COMM_NULL) {
            long s = 0;
            MPI_Allreduce(&val, &s, 1, MPI_LONG, MPI_SUM, oddc);
            val = (val + s) % 1000003;
        }

        /* hints, and the info the program keeps */
        check_hints(hinted);
        char v[16];
        int flag = 0;
        MPI_Info_get(MPI_Info_f2c(f_info), "mana_hint_b", sizeof v - 1, v, &flag);
        if (!flag || strcmp(v, "beta") != 0) mt_fail("info lost: %d '%s'", flag, v);

        /* errors: the user handler (called, and by the real library for a bad rank), ERRORS_RETURN */
        MPI_Comm_call_errhandler(ecomm, my_code);
        int rc = MPI_Send(&val, 1, MPI_LONG, n + 3, 0, ecomm);
        int rc2 = MPI_Send(&val, 1, MPI_LONG, n + 3, 0, rcomm), cls = 0;
        MPI_Error_class(rc2, &cls);
        if (rc == MPI_SUCCESS || cls != MPI_ERR_RANK) mt_fail("MPI_ERRORS_RETURN: rc %d class %d", rc, cls);
        MPI_Errhandler cur;
        MPI_Comm_get_errhandler(rcomm, &cur);
        if (cur != MPI_ERRORS_RETURN) mt_fail("MPI_Comm_get_errhandler");
        MPI_Errhandler_free(&cur);

        /* Fortran handles */
        if (MPI_Comm_f2c(f_graph) != graph || MPI_Group_f2c(f_odds) != odds || MPI_Type_f2c(f_vec) != vec ||
            MPI_Type_f2c(f_int) != MPI_INT || MPI_Comm_f2c(f_world) != MPI_COMM_WORLD)
            mt_fail("a Fortran handle changed meaning");
        if (MPI_Comm_f2c(MPI_Comm_c2f(dadj)) != dadj || MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) != MPI_SUM ||
            MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) != MPI_ERRORS_RETURN ||
            MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) != MPI_INFO_NULL)
            mt_fail("c2f/f2c round trip");
        MPI_Request q;
        long qv = 0;
        MPI_Irecv(&qv, 1, MPI_LONG, me, 9, MPI_COMM_WORLD, &q);
        MPI_Request q2 = MPI_Request_f2c(MPI_Request_c2f(q));
        if (q2 != q) mt_fail("request c2f/f2c");
        MPI_Send(&val, 1, MPI_LONG, me, 9, MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Wait(&q2, &st);
        MPI_Fint fst[sizeof(MPI_Status) / sizeof(MPI_Fint) + 4];
        MPI_Status back;
        MPI_Status_c2f(&st, fst);
        MPI_Status_f2c(fst, &back);
        if (back.MPI_SOURCE != me || back.MPI_TAG != 9 || qv != val) mt_fail("status c2f/f2c");

        h = mt_hash(h, &val, sizeof val);
        h = mt_hash(h, &handler_calls, sizeof handler_calls);
        h = mt_hash(h, &handler_rank_errors, sizeof handler_rank_errors);
    } while (!mt_done(&r, it));

    if (handler_calls != 2 * it || handler_rank_errors != it)
        mt_fail("error handler calls %ld (bad rank %ld) after %ld iterations", handler_calls, handler_rank_errors, it);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&dadj);
    MPI_Comm_free(&dgen);
    MPI_Comm_free(&chain);
    MPI_Comm_free(&hinted);
    MPI_Comm_free(&ecomm);
    MPI_Comm_free(&rcomm);
    if (oddc != MPI_COMM_NULL) MPI_Comm_free(&oddc);
    MPI_Group_free(&world); MPI_Group_free(&evens); MPI_Group_free(&odds); MPI_Group_free(&both);
    if (none != MPI_GROUP_EMPTY) MPI_Group_free(&none);
    if (noteven0 != MPI_GROUP_EMPTY) MPI_Group_free(&noteven0); MPI_Group_free(&rex);
    MPI_Info_free(&info);
    MPI_Type_free(&vec);
    free(index);
    free(edges);
    mt_finish(&r, "topo", it, h);
    return 0;
}
