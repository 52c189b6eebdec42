/* heap - a program whose heap keeps growing while it calls MPI, as long-running programs do after a
 * restart.  Each iteration keeps one more 64 KiB block (below glibc's mmap threshold, so from the main
 * arena, which must grow every ~16 iterations), checks every block kept so far, and exchanges a
 * buffer of a size that grows with the iteration through a ring (malloc'd and freed each time: once
 * glibc frees an mmap'd chunk it raises its mmap threshold, and later large buffers come from the
 * main arena too, as in a growing ping-pong benchmark).
 *
 * At restart the new lower half's heap ends past the program's old break; the program's libc still
 * had the old break cached, and its first heap growth after the restart shrank the lower heap under
 * MPI: the next MPI call faulted (Open MPI) or MPI's heap was corrupted (MPICH).  The harness stops
 * the program 50 iterations after the restart (--extra), which is about 3 MiB of growth.
 *
 * A buffer from MPI_Alloc_mem (with an alignment hint) is checked every iteration: the runtime gives
 * upper-half memory, which a restart brings back; the real MPI's would be in the lower half, lost.
 *
 * Iterations are paced (a little local work each) so that the image stays small: ~200 per second. */
#include "mpitest.h"

#define BLOCK (64 * 1024)
#define MAX_BLOCKS 4096                 /* 256 MiB: far more than a test run keeps */

static char *blocks[MAX_BLOCKS];

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    /* A buffer from MPI_Alloc_mem, kept for the whole run: it must come back with the program. */
    enum { AM = 256 * 1024 };
    long *am = NULL;
    MPI_Info hint;
    MPI_Info_create(&hint);
    MPI_Info_set(hint, "mpi_minimum_memory_alignment", "4096");
    if (MPI_Alloc_mem(AM, hint, &am) != MPI_SUCCESS || !am) mt_fail("MPI_Alloc_mem failed");
    MPI_Info_free(&hint);
    for (long i = 0; i < AM / (long)sizeof *am; i++) am[i] = i * 3 + r.rank;
    uint64_t h = MT_HASH0;
    long it = 0, nb = 0;
    do {
        it++;
        for (long i = it % 97; i < AM / (long)sizeof *am; i += 4096)
            if (am[i] != i * 3 + r.rank) mt_fail("MPI_Alloc_mem buffer: word %ld is %ld", i, am[i]);
        if (nb < MAX_BLOCKS) {
            char *b = malloc(BLOCK);
            if (!b) mt_fail("malloc of block %ld failed", nb);
            memset(b, (int)(nb & 0xff), BLOCK);
            blocks[nb++] = b;
        }
        for (long i = 0; i < nb; i++)
            if (blocks[i][0] != (char)(i & 0xff) || blocks[i][BLOCK - 1] != (char)(i & 0xff))
                mt_fail("block %ld was overwritten", i);
        size_t len = 1000 + (size_t)(it % 64) * 8192;          /* 1 KB .. 517 KB */
        char *s = malloc(len), *q = malloc(len);
        if (!s || !q) mt_fail("malloc of %zu failed", len);
        memset(s, (int)((r.rank + it) & 0xff), len);
        MPI_Sendrecv(s, (int)len, MPI_BYTE, right, 3, q, (int)len, MPI_BYTE, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < len; i += 512)
            if (q[i] != (char)((left + it) & 0xff)) mt_fail("ring: byte %zu is %d", i, q[i]);
        h = mt_hash(h, q, len);
        free(s);
        free(q);
        usleep(5000);                                           /* local work */
    } while (!mt_done(&r, it));
    MPI_Free_mem(am);
    long sum = 0;
    MPI_Allreduce(&nb, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    h = mt_hash(h, &sum, sizeof sum);
    mt_finish(&r, "heap", it, h);
    return 0;
}
