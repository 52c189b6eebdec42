// Corpus: C++ (raw strings, digit separators, literal prefixes, #elif)
#include <mpi.h>
#include <string>

namespace demo {
const std::string text = R"x(MPI_Win_create( ")" MPI_Put( )x";
const auto wide = L"MPI_Get(";
const auto u8s = u8"MPI_Get(";
constexpr long big = 1'000'000;
constexpr char apostrophe = 'x';

template <typename T> int send(const T &v, int to)
{
    return MPI_Send(&v, sizeof v, MPI_BYTE, to, 0, MPI_COMM_WORLD);
}

void io()
{
#if 0
    MPI_File_open(MPI_COMM_WORLD, "a", 0, MPI_INFO_NULL, nullptr);
#elif 1
    MPI_File f;
    MPI_File_open(MPI_COMM_WORLD, "b", MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
#else
    MPI_File_close(nullptr);
#endif
#ifdef HAVE_ONE_SIDED
    MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, nullptr, nullptr);
#endif
}
}
