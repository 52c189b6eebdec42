// cxx - a C++ program (std::vector, a class owning its communicator) doing a reduction and a
// neighbour exchange; built with the MPI's C++ compiler wrapper.
#include "mpitest.h"
#include <vector>

class Field {
  public:
    explicit Field(int n) : v_(n) { MPI_Comm_dup(MPI_COMM_WORLD, &comm_); }
    ~Field() { MPI_Comm_free(&comm_); }
    void step(long it, int rank, int size) {
        for (size_t i = 0; i < v_.size(); i++) v_[i] = v_[i] * 0.5 + double(rank + i) + double(it % 7);
        double s = 0;
        MPI_Allreduce(v_.data(), &s, 1, MPI_DOUBLE, MPI_SUM, comm_);
        double halo = 0;
        MPI_Sendrecv(&v_.back(), 1, MPI_DOUBLE, (rank + 1) % size, 0, &halo, 1, MPI_DOUBLE,
                     (rank + size - 1) % size, 0, comm_, MPI_STATUS_IGNORE);
        v_[0] += halo * 1e-3 + s * 1e-6;
    }
    const std::vector<double> &data() const { return v_; }
  private:
    std::vector<double> v_;
    MPI_Comm comm_;
};

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    uint64_t h = MT_HASH0;
    long it = 0;
    {
        Field f(32);
        do {
            it++;
            f.step(it, r.rank, r.size);
            h = mt_hash(h, f.data().data(), f.data().size() * sizeof(double));
        } while (!mt_done(&r, it));
    }
    mt_finish(&r, "cxx", it, h);
    return 0;
}
