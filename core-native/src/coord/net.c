/*
 * net.c - TCP connect, send and receive with deadlines.  The socket is
 * non-blocking so that every wait goes through poll() with the time left;
 * EINTR (the checkpoint thread may take signals) just retries.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coord_internal.h"

void coord_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void coord_log(const struct mana_coord *c, const char *fmt, ...)
{
    if (!c || !c->debug)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[mana coord %d] %s\n", (int)getpid(), line);
}

int64_t coord_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);   /* cannot fail for this clock */
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t coord_deadline(int timeout_ms)
{
    return timeout_ms < 0 ? -1 : coord_now_ms() + timeout_ms;
}

/* poll() one descriptor until the deadline.  1 = ready, 0 = timed out. */
static int wait_fd(int fd, short events, int64_t deadline, char *err, size_t errlen)
{
    for (;;) {
        int ms = -1;
        if (deadline >= 0) {
            int64_t left = deadline - coord_now_ms();
            ms = left <= 0 ? 0 : left > 0x7fffffff ? 0x7fffffff : (int)left;
        }
        struct pollfd pfd = {fd, events, 0};
        int n = poll(&pfd, 1, ms);
        if (n > 0)
            return 1;          /* POLLERR/POLLHUP surface in the next read/write */
        if (n == 0)
            return 0;
        if (errno != EINTR) {
            coord_err(err, errlen, "poll: %s", strerror(errno));
            return -1;
        }
    }
}

/* Move fd to COORD_FD_MIN or above when the limit allows; keep it otherwise. */
static int move_high(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur <= COORD_FD_MIN + 16)
        return fd;
    int nfd = fcntl(fd, F_DUPFD_CLOEXEC, COORD_FD_MIN);
    if (nfd < 0)
        return fd;
    close(fd);
    return nfd;
}

static int try_addr(const struct addrinfo *ai, int64_t deadline, int *fdp, char *err, size_t errlen)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
        coord_err(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS && errno != EINTR) {
            coord_err(err, errlen, "%s", strerror(errno));
            close(fd);
            return -1;
        }
        int r = wait_fd(fd, POLLOUT, deadline, err, errlen);
        if (r <= 0) {
            if (r == 0)
                coord_err(err, errlen, "connect timed out");
            close(fd);
            return -1;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
            soerr = errno;
        if (soerr) {
            coord_err(err, errlen, "%s", strerror(soerr));
            close(fd);
            return -1;
        }
    }
    /* Collectives are tiny request/reply exchanges: never let Nagle hold one. */
    int one = 1;
    if (ai->ai_family != AF_UNIX && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
        coord_err(err, errlen, "setsockopt TCP_NODELAY: %s", strerror(errno));
        close(fd);
        return -1;
    }
    *fdp = move_high(fd);
    return 0;
}

int coord_tcp_connect(const char *host, uint16_t port, int64_t deadline, int *fdp,
                      char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    char ports[8], why[256] = "no address";

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(ports, sizeof ports, "%u", (unsigned)port);
    int gai = getaddrinfo(host, ports, &hints, &res);
    if (gai) {
        coord_err(err, errlen, "cannot reach coordinator at %s:%u: %s", host, (unsigned)port,
                  gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
        return MANA_COORD_ECONNECT;
    }
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next)
        if (try_addr(ai, deadline, fdp, why, sizeof why) == 0) {
            freeaddrinfo(res);
            return MANA_COORD_OK;
        }
    freeaddrinfo(res);
    coord_err(err, errlen, "cannot reach coordinator at %s:%u: %s", host, (unsigned)port, why);
    return MANA_COORD_ECONNECT;
}

int coord_send_all(int fd, const uint8_t *p, size_t n, int64_t deadline, char *err, size_t errlen)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int r = wait_fd(fd, POLLOUT, deadline, err, errlen);
            if (r < 0)
                return MANA_COORD_EIO;
            if (r == 0) {
                coord_err(err, errlen, "timed out sending to the coordinator");
                return MANA_COORD_TIMEOUT;
            }
            continue;
        }
        coord_err(err, errlen, "coordinator connection lost: %s", w < 0 ? strerror(errno) : "short write");
        return MANA_COORD_EIO;
    }
    return MANA_COORD_OK;
}

int coord_recv_upto(int fd, uint8_t *p, size_t want, size_t *have, int64_t deadline,
                    char *err, size_t errlen)
{
    /* Try the read first: a reply is often already there, and this saves
     * the poll() system call. */
    while (*have < want) {
        ssize_t r = recv(fd, p + *have, want - *have, 0);
        if (r > 0) {
            *have += (size_t)r;
            continue;
        }
        if (r == 0) {
            coord_err(err, errlen, "coordinator connection lost (closed by the coordinator)");
            return MANA_COORD_EIO;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            coord_err(err, errlen, "coordinator connection lost: %s", strerror(errno));
            return MANA_COORD_EIO;
        }
        int w = wait_fd(fd, POLLIN, deadline, err, errlen);
        if (w < 0)
            return MANA_COORD_EIO;
        if (w == 0) {
            coord_err(err, errlen, "timed out waiting for the coordinator");
            return MANA_COORD_TIMEOUT;
        }
    }
    return MANA_COORD_OK;
}
