"""mpi4py_loop.py - the mpitest.h protocol in Python: an interpreter that reaches MPI through dlopen
(mpi4py's extension module needs libmpi.so.40), checkpointed and restarted like the C programs.

  python3 mpi4py_loop.py --stop-file F | --iters K
Every iteration: an allreduce, a ring sendrecv of a pickled object and a buffer-based Sendrecv; rank 0
prints "ready" after the first, and "mpi4py done: iters=K ranks=N checksum=X" at the end."""
import os
import sys
import zlib

from mpi4py import MPI


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    mode, arg = sys.argv[1], sys.argv[2]
    stop_at = -1
    iters = int(arg) if mode == "--iters" else 0
    right, left = (rank + 1) % size, (rank - 1) % size
    state = rank + 1
    buf_out = bytearray(64)
    buf_in = bytearray(64)
    it = 0
    while True:
        it += 1
        total = comm.allreduce(state % 1000003, op=MPI.SUM)
        got = comm.sendrecv({"from": rank, "it": it, "s": state % 97}, dest=right, source=left)
        buf_out[:] = (state % (1 << 64)).to_bytes(8, "little") * 8
        comm.Sendrecv(buf_out, dest=right, recvbuf=buf_in, source=left)
        state = (state * 6364136223846793005 + total + got["s"] + zlib.crc32(buf_in)) % (1 << 64)
        stop = 0
        if rank == 0:
            if mode == "--stop-file":
                if it == 1:
                    print("ready", flush=True)
                if stop_at < 0 and os.path.exists(arg):
                    with open(arg) as f:
                        extra = f.read().strip()
                    stop_at = it + (int(extra) if extra else 0)
                stop = 1 if 0 <= stop_at <= it else 0
            else:
                stop = 1 if it >= iters else 0
        if comm.allreduce(stop, op=MPI.MAX):
            break
    states = comm.gather(state, root=0)
    if rank == 0:
        crc = zlib.crc32(",".join(str(s) for s in states).encode())
        print(f"mpi4py done: iters={it} ranks={size} checksum={crc:08x}", flush=True)


main()
