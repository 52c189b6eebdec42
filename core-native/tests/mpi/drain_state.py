# drain_state.py - sourced into gdb (mana_gdb ... -ex 'source drain_state.py') by cr_mpi.sh when a
# checkpoint does not complete: the collective drain's state of one rank (src/mpi/core.c): its phase,
# the threads inside or entering a collective, and every communicator's id, count and target.
import gdb


def show():
    n = int(gdb.parse_and_eval("vtab_used"))
    v = gdb.parse_and_eval("vtab")
    lines = ["drain state: coll_phase=%s coll_inside=%s entering=%s objects=%d" % (
        gdb.parse_and_eval("coll_phase"), gdb.parse_and_eval("coll_inside"), gdb.parse_and_eval("entering"), n)]
    for i in range(1, n + 1):
        o = v[i]
        if int(o["kind"]) == 1:            # K_COMM (enum vkind in mpi_int.h)
            lines.append("  comm %d: gid=%d seq=%d target=%d flags=%#x" % (
                i, int(o["gid"]), int(o["seq"]), int(o["target"]), int(o["flags"])))
    gdb.write("\n".join(lines) + "\n")


show()
