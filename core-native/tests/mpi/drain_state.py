# drain_state.py - sourced into gdb (mana_gdb ... -ex 'source drain_state.py') by cr_mpi.sh when a
# checkpoint does not complete: the collective drain's state of one rank (src/mpi/core.c): its phase,
# the threads inside or entering a collective, and every communicator's id, count and target; the
# lower half's gate and owner (mpi_int.h: the restart gate, the owner's tid, a deferred signal, the
# checkpoint thread's tid) and, for every thread, its FS base and the tid the wrappers read there.
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


def value(expr):
    try:
        return str(gdb.parse_and_eval(expr))
    except gdb.error as e:
        return "? (%s)" % e


def show_lower():
    off = int(gdb.parse_and_eval("lower.tid_offset"))
    gdb.write("lower half: gate=%s owner=%s deferred=%s ckpt_tid=%s tid_offset=%d fs=%s up_fs=%s\n" % (
        value("mana_gate"), value("*lower.owner"), value("*lower.deferred"), value("*lower.ckpt_tid"), off,
        value("(void *)lower.fs"), value("(void *)mana_up_fs")))
    before = gdb.selected_thread()
    for t in gdb.selected_inferior().threads():
        t.switch()
        fs = int(gdb.parse_and_eval("$fs_base"))
        tid = value("*(int *)%d" % (fs + off)) if fs else "-"
        gdb.write("  thread LWP %d: fs_base=%#x tid there=%s\n" % (t.ptid[1], fs, tid))
    if before:
        before.switch()


show()
show_lower()
