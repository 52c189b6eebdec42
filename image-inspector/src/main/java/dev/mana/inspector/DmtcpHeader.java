package dev.mana.inspector;

/**
 * The 4096-byte file header of a DMTCP v4.0 image (the fields MANA's readers use). Addresses unsigned.
 */
public record DmtcpHeader(
        String signature,
        UniquePid upid, UniquePid uppid, UniquePid compGroup,
        int pid, int ppid, int sid, int gid, int fgid,
        long isRootOfProcessTree, long numPeers, long elfType,
        long clockGettimeOffset, long getcpuOffset, long gettimeofdayOffset, long timeOffset,
        long restoreBufStart, long restoreBufEnd,
        long vdsoStart, long vdsoEnd,
        long vvarStart, long vvarEnd,
        long vvarVClockStart, long vvarVClockEnd,
        long savedBrk, long endOfStack, long postRestartAddr,
        String procname, String procSelfExe) {

    /** DMTCP's unique process id: host id, time, pid, generation. */
    public record UniquePid(long hostid, long time, int pid, long generation) {
        /** "hostid-pid-time" in DMTCP's hex/decimal spelling. */
        @Override
        public String toString() {
            return Long.toHexString(hostid) + "-" + pid + "-" + Long.toHexString(time);
        }
    }
}
