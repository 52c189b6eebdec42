/*
 * agent.h - mana_node_agent: one process per node and job that carries the node's ranks to the
 * coordinator over ONE rank-group connection (docs/coordinator-protocol.md §4.8).
 *
 * Ranks connect to the agent exactly as to the coordinator (MNCP v2, CHALLENGE/AUTH with the job
 * secret, a role 1 HELLO); the agent gathers the node's HELLOs, registers them upstream as one group
 * (HELLO role 3), answers each rank with the group's WELCOME and then relays (agent_relay.c):
 * collectives are reduced locally and sent as one GROUP_COLLECTIVE, the per-rank reports become their
 * GROUP_ variants, and the coordinator's events are fanned out to every member.
 *
 * The agent runs as an ordinary program (its own libc, not inside a rank), so it may allocate and
 * print; its messages still go to stderr only on failures, or behind MANA_DEBUG.
 */
#ifndef MANA_AGENT_H
#define MANA_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "mncp.h"

#define AGENT_MAX_MEMBERS  4096     /* local ranks one agent carries */
#define AGENT_SEND_MS      10000    /* bound on writing one frame to a peer */

/* Settings of one agent (agent_main.c fills them from the command line and the environment). */
struct agent_cfg {
    char     dir[4096];             /* the per-user, per-job directory of the endpoint */
    char     coord_host[256];
    uint16_t coord_port;
    char     secret[256];           /* the job secret (wiped after use where possible) */
    int      expect;                /* local ranks to gather */
    int      gather_ms;             /* bound on gathering them */
    int      debug;                 /* MANA_DEBUG */
    int      lock_fd;               /* the election lock, held for the agent's life */
};

/* Frames reassembled from a non-blocking socket.  Once the peer has authenticated, a read takes what
 * the socket has (several frames at once); before, no byte past the frame in progress (as the
 * coordinator reads a stranger, protocol §2). */
struct agent_rx {
    uint8_t        *buf;
    size_t          cap, have;      /* bytes in buf */
    size_t          start;          /* where the frame handed out begins */
    int             drained;        /* the last read took less than asked: the socket has no more */
    struct mncp_hdr hdr;            /* valid when agent_rx_next() returned 1 */
    uint32_t        max_body;       /* 256 until the peer authenticated (§2) */
};

/* The body of the frame agent_rx_next() handed out. */
#define AGENT_RX_BODY(rx) ((rx)->buf + (rx)->start + MNCP_HDR_LEN)

/* The next whole frame: 1 = its header in hdr, its body at AGENT_RX_BODY(rx); 0 = need more (the
 * socket has nothing now), -1 = EOF or error (why says which).  agent_rx_consume() drops the frame
 * handed out. */
int  agent_rx_next(struct agent_rx *rx, int fd, const char **why);
void agent_rx_consume(struct agent_rx *rx);
void agent_rx_free(struct agent_rx *rx);

/* Send one frame (header + body) within AGENT_SEND_MS; 0 or -1. */
int agent_send(int fd, uint16_t type, uint32_t reqid, const void *body, size_t len);
/* ERROR(code, message). */
int agent_send_error(int fd, uint32_t reqid, uint16_t code, const char *msg);

/* close() with its failure said (behind MANA_DEBUG: nothing is left to do about it). */
void agent_close(int fd, const char *what);

/* Logging: agent_dbg only under MANA_DEBUG; agent_err always (stderr). */
void agent_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void agent_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int agent_debug;

/* Run the agent on an already listening socket: gather, register upstream, relay until the group has
 * left or the coordinator has gone.  Returns the process exit status. */
int agent_run(struct agent_cfg *cfg, int listen_fd);

#endif /* MANA_AGENT_H */
