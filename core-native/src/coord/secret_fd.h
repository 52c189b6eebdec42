/*
 * secret_fd.h - how the coordinator secret reaches a rank without entering
 * the program's environment (docs/coordinator-protocol.md §2).
 *
 * mana_launch / mana_restart write the secret to a 0600 temporary file,
 * open it on a descriptor, delete it, and export only the descriptor's
 * number as MANA_COORD_SECRET_FD (when no descriptor of 3..9 is free, as
 * under MPICH's launcher, the file stays and MANA_COORD_SECRET_FILE names
 * it; the lower half deletes it).  The lower half reads it with this
 * function before it starts the program, closes the descriptor and removes
 * the variable, so neither the program, its children nor its checkpoint
 * images see the secret: it lives in lower-half memory (lh_info), which is
 * never saved.  MANA_COORD_SECRET is still read (and removed) when no
 * descriptor is given, for hand-run lower halves.
 *
 * Header-only so the lower half, which does not link the coordinator
 * client, uses the same code as mana_coord_resolve.
 */
#ifndef MANA_COORD_SECRET_FD_H
#define MANA_COORD_SECRET_FD_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

/*
 * Copy the secret into dst (cap bytes with the NUL; "" when none was
 * given).  consume: close the descriptor and remove both variables (the
 * lower half); otherwise leave them for the next reader (pread from offset
 * 0, so readers do not disturb each other).  Returns 0, or -1 when the
 * descriptor was named but unreadable or the secret does not fit.
 */
static inline int mana_secret_from_launcher(char *dst, size_t cap, int consume)
{
    const char *v = getenv("MANA_COORD_SECRET_FD");
    const char *file = getenv("MANA_COORD_SECRET_FILE");
    int rc = 0;
    dst[0] = 0;
    if ((!v || !*v) && file && *file) {
        /* No descriptor was free (MPICH's launcher hands ranks 3..9): a 0600 file of ours, which
         * the consumer deletes.  Anything else is refused rather than read. */
        int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        ssize_t n = -1;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() &&
            (st.st_mode & 077) == 0) {
            do
                n = pread(fd, dst, cap, 0);
            while (n < 0 && errno == EINTR);
        }
        if (fd >= 0)
            close(fd);
        if (n < 0 || (size_t)n >= cap) {
            memset(dst, 0, cap);
            rc = -1;
        } else {
            dst[n] = 0;
            dst[strcspn(dst, "\r\n")] = 0;
        }
        if (consume) {
            unlink(file);
            unsetenv("MANA_COORD_SECRET_FILE");
        }
    } else if (v && *v) {
        char *end;
        long fd = strtol(v, &end, 10);
        ssize_t n = -1;
        if (*end == 0 && fd >= 0 && fd < 1 << 20) {
            do
                n = pread((int)fd, dst, cap, 0);
            while (n < 0 && errno == EINTR);
        }
        if (n < 0 || (size_t)n >= cap) {
            memset(dst, 0, cap);
            rc = -1;
        } else {
            dst[n] = 0;
            dst[strcspn(dst, "\r\n")] = 0;
        }
        if (consume && *end == 0 && fd > 2)
            close((int)fd);
    } else {
        const char *e = getenv("MANA_COORD_SECRET");
        if (e) {
            size_t n = strlen(e);
            if (n >= cap)
                rc = -1;
            else
                memcpy(dst, e, n + 1);
        }
    }
    if (consume) {
        unsetenv("MANA_COORD_SECRET_FD");
        unsetenv("MANA_COORD_SECRET_FILE");
        unsetenv("MANA_COORD_SECRET");
    }
    return rc;
}

#endif /* MANA_COORD_SECRET_FD_H */
