#!/usr/bin/env python3
"""A file system that hangs, as a parallel file system whose server is gone does: for the UI tests that
prove the workbench never reads a checkpoint directory on its UI thread.

    hung_fs.py MOUNTPOINT

Mounts a FUSE file system at MOUNTPOINT and never answers the kernel, so every call that reaches it
(stat, open, opendir of anything under MOUNTPOINT) blocks in the kernel, uninterruptibly but for SIGKILL.
Prints "mounted" when it is, then waits for its standard input to close (the test's end, or the test
process dying); then it closes the FUSE device, which fails every blocked call with ENOTCONN and frees
the threads stuck in them, and detaches the mount.

Needs root (mount(2)) and /dev/fuse; prints "unavailable: REASON" and exits 3 otherwise.
"""
import ctypes
import os
import sys

MNT_DETACH = 2


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    target = os.path.abspath(sys.argv[1]).encode()
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        fd = os.open("/dev/fuse", os.O_RDWR)
    except OSError as e:
        print(f"unavailable: /dev/fuse: {e.strerror}", flush=True)
        sys.exit(3)
    opts = f"fd={fd},rootmode=40000,user_id={os.getuid()},group_id={os.getgid()},allow_other".encode()
    if libc.mount(b"mana-hung", target, b"fuse.mana-hung", 0, opts) != 0:
        err = ctypes.get_errno()
        print(f"unavailable: mount: {os.strerror(err)}", flush=True)
        sys.exit(3)
    print("mounted", flush=True)
    try:
        sys.stdin.read()  # never answer the kernel: the INIT request stays unanswered, every call waits
    finally:
        os.close(fd)  # aborts the connection: the blocked calls return ENOTCONN
        libc.umount2(target, MNT_DETACH)


if __name__ == "__main__":
    main()
