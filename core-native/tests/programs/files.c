/*
 * files DIR [N=40] [DELAY_MS=100] - reads DIR/input.dat sequentially (one
 * 64-byte record per step, through the descriptor's offset) and appends one
 * line per step to DIR/output.txt (O_APPEND).  Each step prints
 *   "files step I in_off=O out_size=S record=<text>"
 * and checks the record it read is record I (a wrong restored offset shows).
 * Final line: "files done: in_off=O out_size=S out_checksum=X".
 *
 * input.dat is created at start if missing (deterministic content), checked
 * if present.  output.txt starts empty.  Why the output's length is checked
 * before each append: after a checkpoint the original process may go on
 * appending before it is killed; the restarted process finds those lines
 * already there and trims the file back to the length its own state says
 * (its writes are the ones that count).  A file SHORTER than that is real
 * damage and fails the run.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "prog.h"

#define REC 64

static void record(long i, char rec[REC])
{
    memset(rec, ' ', REC);
    int n = snprintf(rec, REC, "record %05ld of the input file", i);
    rec[n] = ' ';
    rec[REC - 1] = '\n';
}

int main(int argc, char **argv)
{
    if (argc < 2)
        fail("usage: files DIR [N] [DELAY_MS]");
    const char *dir = argv[1];
    long n = arg_long(argc, argv, 2, 40);
    long delay = arg_long(argc, argv, 3, 100);
    char in_path[4096], out_path[4096], rec[REC], want[REC];

    snprintf(in_path, sizeof in_path, "%s/input.dat", dir);
    snprintf(out_path, sizeof out_path, "%s/output.txt", dir);

    int fd = open(in_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fd = open(in_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
            fail("create %s: %s", in_path, strerror(errno));
        for (long i = 1; i <= n; i++) {
            record(i, rec);
            if (write(fd, rec, REC) != REC)
                fail("write %s: %s", in_path, strerror(errno));
        }
        if (close(fd) < 0 || (fd = open(in_path, O_RDONLY | O_CLOEXEC)) < 0)
            fail("reopen %s: %s", in_path, strerror(errno));
    }
    int ofd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (ofd < 0)
        fail("open %s: %s", out_path, strerror(errno));

    off_t out_len = 0;        /* what our state says the output holds */
    for (long i = 1; i <= n; i++) {
        /* held before the last step, not after it: a late checkpoint still leaves a step for the
         * restarted run, which must go on from the checkpointed offsets (cr_test.sh checks it) */
        if (i == n) hold_before_done();
        ssize_t r = read(fd, rec, REC);
        if (r != REC)
            fail("step %ld: read %zd bytes of %s: %s", i, r, in_path, r < 0 ? strerror(errno) : "short");
        record(i, want);
        if (memcmp(rec, want, REC))
            fail("step %ld: read the wrong record (offset %lld)", i, (long long)lseek(fd, 0, SEEK_CUR) - REC);

        struct stat st;
        if (fstat(ofd, &st) < 0)
            fail("fstat output: %s", strerror(errno));
        if (st.st_size < out_len)
            fail("step %ld: %s is %lld bytes, expected %lld", i, out_path, (long long)st.st_size,
                 (long long)out_len);
        if (st.st_size > out_len && ftruncate(ofd, out_len) < 0)
            fail("ftruncate output: %s", strerror(errno));

        char line[128];
        int len = snprintf(line, sizeof line, "step %ld: %.*s\n", i, 30, rec);
        if (write(ofd, line, (size_t)len) != len)
            fail("append: %s", strerror(errno));
        out_len += len;
        off_t in_off = lseek(fd, 0, SEEK_CUR);
        off_t out_size = lseek(ofd, 0, SEEK_END);
        out("files step %ld in_off=%lld out_size=%lld record=%.30s\n", i, (long long)in_off,
            (long long)out_size, rec);
        sleep_ms(delay);
    }

    /* Read the whole output back: every line in order, nothing extra. */
    int cfd = open(out_path, O_RDONLY | O_CLOEXEC);
    if (cfd < 0)
        fail("open %s: %s", out_path, strerror(errno));
    static char buf[1 << 16];
    ssize_t got = read(cfd, buf, sizeof buf);
    close(cfd);
    if (got != (ssize_t)out_len)
        fail("%s holds %zd bytes, expected %lld", out_path, got, (long long)out_len);
    char *p = buf;
    for (long i = 1; i <= n; i++) {
        char line[128];
        record(i, want);
        int len = snprintf(line, sizeof line, "step %ld: %.*s\n", i, 30, want);
        if (memcmp(p, line, (size_t)len))
            fail("%s: line %ld is wrong", out_path, i);
        p += len;
    }
    out("files done: in_off=%lld out_size=%lld out_checksum=%016llx\n",
        (long long)lseek(fd, 0, SEEK_CUR), (long long)out_len,
        (unsigned long long)fnv(FNV_INIT, buf, (size_t)got));
    return 0;
}
