/* rma_dyn - a dynamic window and an allocated one side by side.  MPI_Win_create_dynamic with a buffer
 * of the program's attached (its address sent to the others once); every iteration each rank takes an
 * exclusive lock on its right neighbour (nobody else locks that one), puts a block into the
 * neighbour's attached buffer and unlocks; a second buffer is attached and detached again inside every
 * iteration, so a checkpoint may find it attached.  MPI_Win_allocate'd memory is read from the left
 * neighbour with MPI_Get in a fence epoch.  Each rank checks what arrived. */
#include "mpitest.h"

#define B 32

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int left = (r.rank + r.size - 1) % r.size, right = (r.rank + 1) % r.size;
    int *buf = calloc(B, sizeof *buf), *extra = calloc(B, sizeof *extra);
    MPI_Win dyn, al;
    if (MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn) != MPI_SUCCESS) mt_fail("MPI_Win_create_dynamic");
    if (MPI_Win_attach(dyn, buf, B * sizeof *buf) != MPI_SUCCESS) mt_fail("MPI_Win_attach");
    MPI_Aint mine, *addr = malloc(sizeof *addr * (size_t)r.size);
    MPI_Get_address(buf, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    int *am = NULL;
    if (MPI_Win_allocate(B * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &am, &al) != MPI_SUCCESS)
        mt_fail("MPI_Win_allocate");
    MPI_Win_fence(0, al);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        int out[B], in[B];
        for (int k = 0; k < B; k++) { out[k] = (int)(it * 1000 + r.rank * 10 + k); am[k] = (int)(it * 7 + r.rank + k); }
        if (MPI_Win_attach(dyn, extra, B * sizeof *extra) != MPI_SUCCESS) mt_fail("MPI_Win_attach extra");
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, dyn);  /* mana-lint: ignore MPI_Win_lock (no rank waits for an exclusive lock another holds) */
        MPI_Put(out, B, MPI_INT, right, addr[right], B, MPI_INT, dyn);
        MPI_Win_unlock(right, dyn);
        MPI_Win_fence(0, al);           /* the allocated window's new contents are exposed */
        MPI_Get(in, B, MPI_INT, left, 0, B, MPI_INT, al);
        MPI_Win_fence(0, al);
        MPI_Barrier(MPI_COMM_WORLD);    /* every put into the dynamic window is done */
        if (MPI_Win_detach(dyn, extra) != MPI_SUCCESS) mt_fail("MPI_Win_detach extra");
        for (int k = 0; k < B; k++) {
            if (buf[k] != (int)(it * 1000 + left * 10 + k)) mt_fail("iteration %ld: dynamic word %d is %d", it, k, buf[k]);
            if (in[k] != (int)(it * 7 + left + k)) mt_fail("iteration %ld: allocated word %d is %d", it, k, in[k]);
        }
        MPI_Win_fence(0, al);           /* everyone read am before anyone rewrites it */
        h = mt_hash(h, buf, B * sizeof *buf);
        h = mt_hash(h, in, sizeof in);
    } while (!mt_done(&r, it));
    MPI_Win_detach(dyn, buf);
    MPI_Win_free(&dyn);
    MPI_Win_free(&al);
    free(addr);
    free(extra);
    free(buf);
    mt_finish(&r, "rma_dyn", it, h);
    return 0;
}
