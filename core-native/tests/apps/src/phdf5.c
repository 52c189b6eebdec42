/* phdf5.c - parallel HDF5 (libhdf5-openmpi, MPI-IO underneath): every step, each rank writes its
 * hyperslab of a 2-D dataset "step_N" of 2 x 65536 doubles into one shared file with a collective
 * transfer (H5FD_MPIO_COLLECTIVE), then the file is read back by every rank and checksummed.
 * Rank 0 prints "step N sum S" and at the end "done: steps=N sum S". */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#define COLS 65536
int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 30, rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate("phdf5.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    double *row = malloc(COLS * sizeof *row), *all = malloc((size_t)size * COLS * sizeof *all);
    double sum = 0;
    for (int s = 1; s <= steps; s++) {
        for (int i = 0; i < COLS; i++) row[i] = (double)((s * 31 + rank * 7 + i) % 1000) / 7.0 + sum * 1e-9;
        hsize_t dims[2] = {(hsize_t)size, COLS}, start[2] = {(hsize_t)rank, 0}, count[2] = {1, COLS};
        char name[32];
        snprintf(name, sizeof name, "step_%d", s);
        hid_t fspace = H5Screate_simple(2, dims, NULL), mspace = H5Screate_simple(2, count, NULL);
        hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, row);
        H5Sselect_all(fspace);
        H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, xfer, all);
        for (long i = 0; i < (long)size * COLS; i++) sum += all[i] * (double)(i % 13);
        H5Dclose(dset);
        H5Sclose(mspace);
        H5Sclose(fspace);
        H5Fflush(file, H5F_SCOPE_GLOBAL);
        if (rank == 0) { printf("step %d sum %.17g\n", s, sum); fflush(stdout); }
    }
    H5Pclose(xfer);
    H5Fclose(file);
    H5Pclose(fapl);
    if (rank == 0) printf("done: steps=%d sum %.17g\n", steps, sum);
    free(row);
    free(all);
    MPI_Finalize();
    return 0;
}
