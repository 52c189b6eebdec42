/* probes - MPI_ANY_SOURCE / MPI_ANY_TAG receives found by probing: every iteration each rank sends
 * three messages of different tags and lengths to every other rank, then takes the 3 (size - 1)
 * messages meant for it in arrival order, a third each way: MPI_Probe + MPI_Get_count + MPI_Recv,
 * MPI_Mprobe + MPI_Mrecv, MPI_Improbe (polled) + MPI_Imrecv + MPI_Wait.  The state mixes the messages
 * in an order-independent way, so the result does not depend on arrival order; a checkpoint finds
 * messages unreceived, probed, or matched and not yet received. */
#include "mpitest.h"

#define MAXLEN 64

static uint64_t msg_mix(int src, int tag, const int32_t *d, int n)
{
    uint64_t x = mt_hash(MT_HASH0, &src, sizeof src);
    x = mt_hash(x, &tag, sizeof tag);
    return mt_hash(x, d, sizeof *d * (size_t)n);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int peers = r.size - 1, nmsg = 3 * peers;
    int32_t (*out)[MAXLEN] = malloc(sizeof *out * (size_t)nmsg);
    MPI_Request *sq = malloc(sizeof *sq * (size_t)nmsg);
    int32_t in[MAXLEN];
    uint64_t state = (uint64_t)r.rank, h = MT_HASH0;
    long it = 0;
    do {
        it++;
        int k = 0;
        for (int p = 0; p < r.size; p++) {
            if (p == r.rank) continue;
            for (int t = 0; t < 3; t++, k++) {
                int len = 8 + (int)((state + (uint64_t)t) % (MAXLEN - 8));
                for (int i = 0; i < len; i++) out[k][i] = (int32_t)(state * 31 + (uint64_t)(p * 7 + t * 3 + i));
                MPI_Isend(out[k], len, MPI_INT32_T, p, 10 + t, MPI_COMM_WORLD, &sq[k]);
            }
        }
        uint64_t mix = 0;
        for (int m = 0; m < nmsg; m++) {
            /* MPI never writes a status's MPI_ERROR outside the multiple completions (MPICH's mprobe
             * test checks it): sentinels that the calls here must leave alone (MPICH's own MPI_Probe
             * writes it, so that one is not checked). */
            MPI_Status st, st2;
            st.MPI_ERROR = MPI_ERR_DIMS;
            st2.MPI_ERROR = MPI_ERR_TOPOLOGY;
            int n = 0;
            if (m % 3 == 0) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT32_T, &n);
                MPI_Recv(in, n, MPI_INT32_T, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2);
                if (st2.MPI_SOURCE != st.MPI_SOURCE || st2.MPI_TAG != st.MPI_TAG) mt_fail("probe/recv disagree");
            } else if (m % 3 == 1) {
                MPI_Message msg;
                MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
                MPI_Get_count(&st, MPI_INT32_T, &n);
                MPI_Mrecv(in, MAXLEN, MPI_INT32_T, &msg, &st2);
                if (msg != MPI_MESSAGE_NULL) mt_fail("Mrecv left the message handle set");
                int n2 = 0;
                MPI_Get_count(&st2, MPI_INT32_T, &n2);
                if (n2 != n || st2.MPI_SOURCE != st.MPI_SOURCE) mt_fail("mprobe/mrecv disagree (%d/%d)", n, n2);
            } else {
                MPI_Message msg;
                int flag = 0;
                while (!flag) MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
                MPI_Get_count(&st, MPI_INT32_T, &n);
                MPI_Request rq;
                MPI_Imrecv(in, MAXLEN, MPI_INT32_T, &msg, &rq);
                MPI_Wait(&rq, &st2);
            }
            if ((m % 3 != 0 && st.MPI_ERROR != MPI_ERR_DIMS) || st2.MPI_ERROR != MPI_ERR_TOPOLOGY)
                mt_fail("a status's MPI_ERROR was overwritten (%d, %d; message %d)", st.MPI_ERROR, st2.MPI_ERROR, m);
            if (st.MPI_TAG < 10 || st.MPI_TAG > 12 || st.MPI_SOURCE == r.rank) mt_fail("status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
            mix += msg_mix(st.MPI_SOURCE, st.MPI_TAG, in, n);
        }
        MPI_Waitall(nmsg, sq, MPI_STATUSES_IGNORE);
        state = state * 6364136223846793005ULL + mix;
        h = mt_hash(h, &state, sizeof state);
    } while (!mt_done(&r, it));
    free(out);
    free(sq);
    mt_finish(&r, "probes", it, h);
    return 0;
}
