/*
 * coord_client.h - blocking client for the coordinator protocol (MNCP v1,
 * docs/coordinator-protocol.md).
 *
 * Used by the upper half's checkpoint thread (libmana.so) and by the
 * mana_coord_probe tool.  It runs on the upper half's libc and TLS, so it may
 * use libc freely; it is still built with -fno-stack-protector like the rest
 * of the runtime.
 *
 * Rules the implementation keeps:
 *   - no global state: everything lives in the handle, so two handles in one
 *     process (tests) do not interfere;
 *   - memory is allocated only in mana_coord_connect() (and, for KV values
 *     over 64 KiB, once in mana_coord_kv_get()); collectives and events use
 *     buffers inside the handle;
 *   - a handle is not thread-safe: one thread at a time (the caller locks);
 *   - every function that can fail takes a caller-provided error buffer
 *     (err, errlen; either may be NULL/0) and writes one clear line into it,
 *     without a trailing newline;
 *   - nothing is printed except behind MANA_DEBUG (to stderr).
 *
 * Return codes: MANA_COORD_OK (0), positive codes for outcomes the caller
 * expects to handle (timeout, checkpoint aborted, killed), negative codes for
 * errors.  After ECONNECT, EIO and EPROTO the connection is finished.  After
 * EREMOTE it depends on what the coordinator refused (protocol §4.7): an
 * ERROR answering a request after HELLO (MISMATCH of a collective, PROTOCOL
 * for a repeated collective, UNKNOWN_JOB, TOO_LARGE for KV records) leaves
 * the connection open and the handle usable; any other ERROR is followed by
 * the coordinator closing it.  EARG leaves the handle usable.  A TIMEOUT
 * while waiting for a reply leaves that request unanswered: treat the
 * connection as lost.
 */
#ifndef MANA_COORD_CLIENT_H
#define MANA_COORD_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "mana/phases.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MANA_COORD_DEFAULT_HOST "localhost"
#define MANA_COORD_DEFAULT_PORT 7779
#define MANA_COORD_STR_MAX      4096      /* protocol limit on a str field */
#define MANA_COORD_MAX_VALUES   4096      /* protocol limit on collective count */
#define MANA_COORD_BLOB_MAX     1000000   /* protocol limit on a blob */

enum mana_coord_rc {
    MANA_COORD_OK       = 0,
    MANA_COORD_TIMEOUT  = 1,   /* nothing arrived within the timeout */
    MANA_COORD_ABORTED  = 2,   /* collective: CKPT_ABORT for its generation */
    MANA_COORD_KILLED   = 3,   /* KILL arrived while waiting: exit now */
    MANA_COORD_EARG     = -1,  /* bad argument or local failure; handle still usable */
    MANA_COORD_ECONNECT = -2,  /* cannot reach / resolve the coordinator */
    MANA_COORD_EIO      = -3,  /* connection lost (EOF, reset, write error) */
    MANA_COORD_EPROTO   = -4,  /* malformed or unexpected frame from the coordinator */
    MANA_COORD_EREMOTE  = -5,  /* coordinator sent ERROR; see mana_coord_remote_code() */
};

/* Collective operations (protocol §4.2). */
enum mana_coord_op {
    MANA_COORD_BARRIER = 0,
    MANA_COORD_SUM     = 1,
    MANA_COORD_MAX     = 2,
    MANA_COORD_OR      = 3,
    MANA_COORD_MIN     = 4,
};

/* Phase numbers of the checkpoint and restart sequence (protocol §6): enum mana_coord_phase in
 * mana/phases.h. */

/* ERROR codes (protocol §4.7), as returned by mana_coord_remote_code(). */
enum mana_coord_remote_error {
    MANA_COORD_RE_BAD_FRAME = 1, MANA_COORD_RE_TOO_LARGE = 2, MANA_COORD_RE_AUTH = 3,
    MANA_COORD_RE_PROTOCOL = 4, MANA_COORD_RE_MISMATCH = 5, MANA_COORD_RE_BUSY = 6,
    MANA_COORD_RE_NOT_READY = 7, MANA_COORD_RE_ABORTED = 8, MANA_COORD_RE_UNKNOWN_JOB = 9,
    MANA_COORD_RE_DUPLICATE_RANK = 10,
};

/* BYE reasons (protocol §4.5). */
#define MANA_COORD_BYE_EXIT       0   /* program exit */
#define MANA_COORD_BYE_CKPT_KILL  1   /* exit after checkpoint-and-kill */

/* CKPT_REQUEST flags. */
#define MANA_COORD_CKPT_EXIT      0x01   /* exit after commit */
#define MANA_COORD_CKPT_FULL      0x04   /* this image full, even where incremental images are on */
#define MANA_COORD_CKPT_FORKED    0x08   /* this image written forked (a writer process; the program runs on) */
#define MANA_COORD_CKPT_UNFORKED  0x10   /* this image written with the program stopped */
#define MANA_COORD_CKPT_ZSTD_MASK 0x60   /* this image's compression: 0 as launched, then off, fast, strong */
#define MANA_COORD_CKPT_ZSTD_SHIFT 5

/* ---- Where the coordinator is ------------------------------------------ */

struct mana_coord_addr {
    char     host[256];
    uint16_t port;
    char     secret[256];      /* "" = none */
    char     rcfile[4096];     /* status file consulted ("" if none was read) */
};

/*
 * Resolve host, port and secret, each field from the first source that has
 * it: the arguments (host NULL, port <= 0, secret NULL mean "not given");
 * MANA_COORD_HOST / MANA_COORD_PORT / the secret on MANA_COORD_SECRET_FD
 * (what the launchers pass) or MANA_COORD_SECRET (DMTCP_COORD_HOST /
 * DMTCP_COORD_PORT as aliases); the status file ($MANA_RC, else
 * ~/.mana-slurm-$SLURM_JOB_ID.rc when SLURM_JOB_ID is set, else ~/.mana.rc);
 * then localhost:7779 with no secret.  The status file's Secret is only used
 * when the resolved port is the file's Port, so a secret never travels to a
 * coordinator it does not belong to.
 * Errors (MANA_COORD_EARG): a port that is not 1..65535, a $MANA_RC that
 * cannot be read, an over-long value.  A missing default status file is not
 * an error.
 */
int mana_coord_resolve(struct mana_coord_addr *out, const char *host, int port,
                       const char *secret, char *err, size_t errlen);

/*
 * Where the coordinator of one status file is now: Host, Port and Secret
 * from that file only (a rank that lost its coordinator follows the file
 * to the next one).  MANA_COORD_EARG when the file cannot be read or names
 * no Port.
 */
int mana_coord_resolve_file(struct mana_coord_addr *out, const char *path, char *err, size_t errlen);

/* Zero memory that held the secret (a store the compiler cannot drop): a
 * caller wipes its mana_coord_addr once connected, so no checkpoint image
 * holds the secret. */
void mana_coord_wipe(void *p, size_t n);

/* ---- Connection --------------------------------------------------------- */

#define MANA_COORD_ROLE_RANK    1
#define MANA_COORD_ROLE_CONTROL 2

/* HELLO fields (protocol §4.1).  NULL strings and zero pid get defaults. */
struct mana_coord_hello {
    uint8_t     role;          /* 0 or MANA_COORD_ROLE_RANK: rank; ROLE_CONTROL: control */
    const char *job;           /* NULL: "" (the launchers pass $MANA_JOB) */
    int32_t     rank;
    int32_t     nranks;        /* 1 for a program without MPI */
    const char *host;          /* NULL: gethostname() */
    int32_t     pid;           /* 0: getpid() */
    const char *mpi;           /* NULL: "none" */
    uint32_t    generation;    /* 0 at launch; the image's at restart */
    uint8_t     restarting;    /* 1 at restart */
    const char *ckptdir;       /* absolute; NULL: "" */
    const char *program;       /* NULL: "" */
};

/* WELCOME fields. */
struct mana_coord_welcome {
    uint32_t client_id;
    uint32_t generation;       /* job's latest committed generation */
    uint32_t interval;         /* seconds, 0 = none */
    char     job[MANA_COORD_STR_MAX + 1];
};

typedef struct mana_coord mana_coord_t;

/*
 * Connect, send HELLO, wait for WELCOME.  timeout_ms bounds the whole
 * exchange (connect included); -1 waits forever.  Returns the handle, or NULL
 * with *rc (if rc != NULL) set to the negative code and err filled:
 * ECONNECT (unreachable, refused, timeout), EREMOTE (e.g. AUTH,
 * DUPLICATE_RANK, MISMATCH: the coordinator's message is in err), EPROTO.
 */
mana_coord_t *mana_coord_connect(const struct mana_coord_addr *addr,
                                 const struct mana_coord_hello *hello,
                                 struct mana_coord_welcome *welcome,
                                 int timeout_ms, int *rc, char *err, size_t errlen);

/* The socket, for callers that poll() it with other descriptors.  Readable
 * means mana_coord_wait_event(c, 0, ...) has something to look at.  Events
 * that arrived while another call waited for its reply are already queued in
 * the handle and do NOT make the socket readable: check
 * mana_coord_pending() before sleeping in poll(). */
int mana_coord_fd(const mana_coord_t *c);

/* Number of queued events mana_coord_wait_event() will return without
 * reading the socket. */
int mana_coord_pending(const mana_coord_t *c);

/* Code of the last ERROR frame received (0 if none). */
int mana_coord_remote_code(const mana_coord_t *c);

/* ---- Unsolicited events ------------------------------------------------- */

enum mana_coord_event_type {
    MANA_COORD_EV_CKPT_REQUEST = 0x40,
    MANA_COORD_EV_CKPT_ABORT   = 0x41,
    MANA_COORD_EV_KILL         = 0x42,
};

struct mana_coord_event {
    uint16_t type;             /* enum mana_coord_event_type */
    uint32_t generation;       /* CKPT_REQUEST, CKPT_ABORT */
    uint8_t  flags;            /* CKPT_REQUEST: MANA_COORD_CKPT_EXIT */
    char     text[MANA_COORD_STR_MAX + 1];  /* REQUEST: ckptdir ("" = own); ABORT: reason */
};

/*
 * Return the next unsolicited event: one queued while another call waited
 * for its reply, else the next one read from the socket.  timeout_ms 0 only
 * looks, -1 waits forever.  MANA_COORD_OK with *ev filled, MANA_COORD_TIMEOUT,
 * or a negative code (EIO: "coordinator connection lost").
 */
int mana_coord_wait_event(mana_coord_t *c, int timeout_ms, struct mana_coord_event *ev,
                          char *err, size_t errlen);

/* ---- Requests ----------------------------------------------------------- */

/*
 * COLLECTIVE(generation, phase, op, in[0..count)) and wait for
 * COLLECTIVE_DONE; the element-wise result goes to out[0..count) (out may
 * alias in; both may be NULL when count is 0, i.e. a barrier).
 * Returns OK; ABORTED if CKPT_ABORT(generation) arrives first (or was already
 * queued: then nothing is sent), reason in err; KILLED if KILL arrives;
 * TIMEOUT (the connection then has an unanswered request: treat it as lost);
 * EREMOTE (e.g. MISMATCH); EIO; EPROTO.  Other events that arrive meanwhile
 * are queued for mana_coord_wait_event().
 */
int mana_coord_collective(mana_coord_t *c, uint32_t generation, uint16_t phase,
                          enum mana_coord_op op, const int64_t *in, int64_t *out,
                          uint32_t count, int timeout_ms, char *err, size_t errlen);

/* Shorthand for a barrier. */
int mana_coord_barrier(mana_coord_t *c, uint32_t generation, uint16_t phase,
                       int timeout_ms, char *err, size_t errlen);

/* CKPT_WRITTEN / CKPT_FAILED: one-way reports, no reply. */
int mana_coord_ckpt_written(mana_coord_t *c, uint32_t generation, uint64_t image_bytes,
                            uint64_t write_ns, const char *path, char *err, size_t errlen);
int mana_coord_ckpt_failed(mana_coord_t *c, uint32_t generation, const char *reason,
                           char *err, size_t errlen);

/* KV_PUT → OK.  len <= MANA_COORD_BLOB_MAX. */
int mana_coord_kv_put(mana_coord_t *c, const char *key, const void *value, size_t len,
                      int timeout_ms, char *err, size_t errlen);

/*
 * KV_GET → KV_VALUE.  With wait != 0 the coordinator answers once the key
 * exists.  *found is 0 or 1; *len is the value's full length (copied up to
 * cap bytes; a value longer than cap is an EARG error, *len tells the size
 * needed).  KILLED if KILL arrives while waiting.
 */
int mana_coord_kv_get(mana_coord_t *c, const char *key, int wait, void *buf, size_t cap,
                      size_t *len, int *found, int timeout_ms, char *err, size_t errlen);

/* BYE(reason, status): one-way; the caller then closes. */
int mana_coord_bye(mana_coord_t *c, uint8_t reason, int32_t status, char *err, size_t errlen);

/* SET_INTERVAL → OK, on a control connection (hello.role = ROLE_CONTROL):
 * periodic checkpoints every `seconds` (0 = off) for the job.  mana_launch
 * -i uses this through mana_coord_probe --set-interval. */
int mana_coord_set_interval(mana_coord_t *c, uint32_t seconds, int timeout_ms,
                            char *err, size_t errlen);

/* CHECKPOINT → CKPT_RESULT, on a control connection.  With
 * MANA_COORD_CKPT_WAIT the reply comes when the checkpoint is committed or
 * has failed (CKPT_PROGRESS frames in between are skipped); without it, at
 * once, ok = 1 meaning "started". */
#define MANA_COORD_CKPT_WAIT 0x02           /* with MANA_COORD_CKPT_EXIT = 0x01 */
struct mana_coord_ckpt_result {
    uint8_t  ok;
    uint32_t generation;
    uint64_t elapsed_ns;                    /* request to last commit */
    uint64_t total_bytes;                   /* sum of the ranks' image_bytes */
    uint32_t ranks;
    char     dir[MANA_COORD_STR_MAX + 1];
    char     message[MANA_COORD_STR_MAX + 1];   /* the reason when ok = 0 */
};
int mana_coord_checkpoint(mana_coord_t *c, uint8_t flags, struct mana_coord_ckpt_result *res,
                          int timeout_ms, char *err, size_t errlen);

/* LIST → LIST_REPLY, on a control connection: the ranks of the client's job as the coordinator
 * sees them (protocol §4.6); the first cap into out, their number into *count. */
#define MANA_COORD_STATE_RUNNING 1          /* rank states: protocol §3 */
struct mana_coord_rank_info {
    int32_t  rank;
    char     host[256];
    int32_t  pid;
    uint8_t  state;
    uint32_t generation;
    char     mpi[64];
    uint32_t client_id;
};
int mana_coord_list(mana_coord_t *c, struct mana_coord_rank_info *out, uint32_t cap, uint32_t *count,
                    int timeout_ms, char *err, size_t errlen);

/* Close the socket and free the handle (NULL is fine). */
void mana_coord_close(mana_coord_t *c);

/*
 * Free the handle WITHOUT closing its descriptor.  For a handle restored from
 * a checkpoint image: its socket did not survive, and the descriptor number
 * may now belong to something else.
 */
void mana_coord_discard(mana_coord_t *c);

/* Short static name of a return code ("ok", "timeout", "connection lost"...). */
const char *mana_coord_rc_name(int rc);

#ifdef __cplusplus
}
#endif
#endif /* MANA_COORD_CLIENT_H */
