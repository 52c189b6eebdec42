// Corpus: C++ (raw strings, digit separators, literal prefixes, #elif)
#include <mpi.h>
#include <string>

namespace demo {
const std::string text = R"x(MPI_Comm_spawn( ")" MPI_Comm_join( )x";
const auto wide = L"MPI_Open_port(";
const auto u8s = u8"MPI_Open_port(";
constexpr long big = 1'000'000;
constexpr char apostrophe = 'x';

template <typename T> int send(const T &v, int to)
{
    return MPI_Send(&v, sizeof v, MPI_BYTE, to, 0, MPI_COMM_WORLD);
}

void io()
{
#if 0
    MPI_Open_port(MPI_INFO_NULL, nullptr);
#elif 1
    char port[MPI_MAX_PORT_NAME];
    MPI_Open_port(MPI_INFO_NULL, port);
#else
    MPI_Close_port(nullptr);
#endif
#ifdef HAVE_ONE_SIDED
    MPI_Comm_connect(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, nullptr, nullptr);
#endif
}
}
