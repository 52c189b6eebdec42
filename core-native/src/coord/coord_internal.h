/*
 * coord_internal.h - the client handle and helpers shared by the client's
 * source files.  Not installed.
 */
#ifndef MANA_COORD_INTERNAL_H
#define MANA_COORD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mncp.h"

/* Inline buffers: 64 KiB holds the largest collective (4,096 values =
 * 32 KiB) and every other message except big KV values, so the checkpoint
 * path never allocates. */
#define COORD_BUF   65536
#define COORD_QLEN  8          /* queued unsolicited events */

/* The coordinator socket is moved to the first free descriptor from here,
 * so it does not take the low numbers a program expects open() to return. */
#define COORD_FD_MIN 820

struct mana_coord {
    int       fd;
    int       debug;           /* MANA_DEBUG was set at connect */
    int       remote_code;     /* last ERROR code */
    uint32_t  next_reqid;
    uint32_t  max_body;        /* largest body accepted: 256 until AUTH_OK proved the peer */

    /* Unsolicited events that arrived while a call waited for its reply. */
    struct mana_coord_event q[COORD_QLEN];
    unsigned  qhead, qlen;

    /* Frame being received.  A timeout may leave it half read; the next
     * call goes on from rx_have, so the stream never loses sync. */
    struct mncp_hdr hdr;
    size_t    rx_have;         /* bytes of header + body received so far */
    uint8_t  *body;            /* rx + MNCP_HDR_LEN, or big */
    uint8_t  *big;             /* only for bodies over COORD_BUF (KV values) */
    size_t    bigcap;
    uint8_t   rx[MNCP_HDR_LEN + COORD_BUF];
    uint8_t   tx[MNCP_HDR_LEN + COORD_BUF];
};

/* Format one line into the caller's buffer (NULL/0 allowed). */
void coord_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Behind MANA_DEBUG only. */
void coord_log(const struct mana_coord *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Monotonic milliseconds, and a deadline from a timeout (-1 = none). */
int64_t coord_now_ms(void);
int64_t coord_deadline(int timeout_ms);

/* net.c: descriptor-level I/O with deadlines.  Return MANA_COORD_* codes. */
int coord_tcp_connect(const char *host, uint16_t port, int64_t deadline, int *fdp,
                      char *err, size_t errlen);
int coord_send_all(int fd, const uint8_t *p, size_t n, int64_t deadline, char *err, size_t errlen);
/* Read up to want bytes into p (appending at *have); TIMEOUT leaves *have
 * where it got to. */
int coord_recv_upto(int fd, uint8_t *p, size_t want, size_t *have, int64_t deadline,
                    char *err, size_t errlen);

#endif /* MANA_COORD_INTERNAL_H */
