/*
 * agent_main.c - mana_node_agent's command line: find or start this node's agent for a job.
 *
 *   printf %s "$secret" | mana_node_agent --ensure --dir DIR --coord-host H --coord-port P
 *       The launchers (mana_launch, mana_restart with MANA_NODE_AGENT=1) run this in every rank.
 *       The first on the node wins the election (flock on DIR/lock) and forks the agent, which holds
 *       the lock for its life; every caller then prints the agent's port (from DIR/endpoint) on
 *       stdout and exits 0.  Exit 1 with a message when no agent can be found or started in time.
 *   ... | mana_node_agent --foreground --dir DIR --coord-host H --coord-port P
 *       The same agent in the foreground (tests): prints its port once it listens.
 *
 * The job secret comes on stdin (never on the command line, which ps shows).  The endpoint is a TCP
 * port on 127.0.0.1 (port 0: the kernel picks), so that a rank reaches its agent with the very client
 * it uses for a coordinator; the job secret's handshake (protocol §2) keeps other local users out, as
 * it does at the coordinator.  DIR must be this user's and writable by no one else.
 *
 * Environment: MANA_AGENT_RANKS (local ranks; else the launcher's OMPI_COMM_WORLD_LOCAL_SIZE,
 * MPI_LOCALNRANKS, SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE with SLURM_NODEID),
 * MANA_AGENT_GATHER_MS (bound on gathering them, default 8000), MANA_AGENT_WAIT_MS (bound on finding
 * the agent's endpoint, default 10000), MANA_DEBUG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "coord_internal.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: mana_node_agent (--ensure | --foreground) --dir DIR --coord-host HOST --coord-port PORT\n"
            "                       [--ranks N]   (the job secret on stdin)\n");
}

/* A positive integer from the environment, or -1. */
static int env_int(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end || v <= 0 || v > 1000000 ? -1 : (int)v;
}

/* Slurm's per-node task list ("2(x3),1": 2 on nodes 0-2, 1 on node 3): the count of node `node`. */
static int slurm_tasks_on(const char *list, int node)
{
    const char *p = list;
    while (*p) {
        char *end;
        long n = strtol(p, &end, 10), rep = 1;
        if (end == p || n <= 0)
            return -1;
        p = end;
        if (strncmp(p, "(x", 2) == 0) {
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep <= 0)
                return -1;
            p = end + 1;
        }
        if (node < rep)
            return (int)n;
        node -= (int)rep;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return -1;
}

/* How many ranks of this job run on this node, from the variables launchers give their ranks; *from
 * names the source.  -1 when none says. */
static int local_ranks(int given, const char **from)
{
    int n;
    if ((*from = "--ranks", n = given) > 0) return n;
    if ((*from = "MANA_AGENT_RANKS", n = env_int(*from)) > 0) return n;
    if ((*from = "OMPI_COMM_WORLD_LOCAL_SIZE", n = env_int(*from)) > 0) return n;
    if ((*from = "MPI_LOCALNRANKS", n = env_int(*from)) > 0) return n;
    const char *node = getenv("SLURM_NODEID");
    const char *list = getenv("SLURM_STEP_TASKS_PER_NODE");
    *from = "SLURM_STEP_TASKS_PER_NODE";
    if (!list) {
        list = getenv("SLURM_TASKS_PER_NODE");
        *from = "SLURM_TASKS_PER_NODE";
    }
    if (node && list && (n = slurm_tasks_on(list, atoi(node))) > 0)
        return n;
    *from = "nothing";
    return -1;
}

/* mkdir -p with mode 0700, then check the directory is ours and closed to others. */
static int prepare_dir(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(path, 0700) < 0 && errno != EEXIST) {
            agent_err("cannot create %s: %s", path, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        agent_err("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(path, &st) < 0) {
        agent_err("cannot stat %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022)) {
        agent_err("%s is not a directory of yours closed to others (uid %u, mode %o): refusing it", path,
                  (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* The job secret from stdin (up to 255 bytes; EOF ends it). */
static int read_secret(char *out, size_t cap)
{
    size_t n = 0;
    for (;;) {
        ssize_t r = read(0, out + n, cap - 1 - n);
        if (r > 0) {
            n += (size_t)r;
            if (n == cap - 1)
                break;
            continue;
        }
        if (r == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EBADF)     /* no stdin: no secret */
            break;
        agent_err("reading the secret from stdin: %s", strerror(errno));
        return -1;
    }
    out[n] = 0;
    return 0;
}

/* Listen on 127.0.0.1, a port the kernel picks.  Returns the socket, *port its number. */
static int listen_local(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        agent_err("socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 4096) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
        agent_err("listen on 127.0.0.1: %s", strerror(errno));
        agent_close(fd, "the listening socket");
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

/* DIR/endpoint, written whole (temporary file, rename). */
static int write_endpoint(const char *dir, uint16_t port, pid_t pid)
{
    char tmp[4200], final[4200];
    snprintf(tmp, sizeof tmp, "%s/endpoint.tmp", dir);
    snprintf(final, sizeof final, "%s/endpoint", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        agent_err("cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    int bad = fprintf(f, "Port: %u\nPid: %d\n", (unsigned)port, (int)pid) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, final) < 0) {
        agent_err("cannot write %s: %s", final, strerror(errno));
        if (unlink(tmp) < 0)
            agent_dbg("unlink %s: %s", tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* The port DIR/endpoint names, or 0 when there is none (yet). */
static unsigned read_endpoint(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/endpoint", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned port = 0;
    if (fscanf(f, "Port: %u", &port) != 1 || port > 65535)
        port = 0;
    if (fclose(f) != 0)
        agent_dbg("close %s: %s", path, strerror(errno));
    return port;
}

static void remove_endpoint(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/endpoint", dir);
    if (unlink(path) < 0 && errno != ENOENT)
        agent_err("cannot remove %s: %s", path, strerror(errno));
}

/* The agent holds no descriptor of the launcher's but its own: an MPI launcher's (MPICH's PMI_FD,
 * Hydra's control socket, the rank's output pipes) kept open in a process that outlives the rank could
 * keep the launcher waiting for its end. */
static void close_inherited(int keep1, int keep2)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        agent_err("cannot list /proc/self/fd: %s", strerror(errno));
        return;
    }
    int dfd = dirfd(d), fds[1024], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 1024) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd > 2 && fd != dfd && fd != keep1 && fd != keep2)
            fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        agent_close(fds[i], "an inherited descriptor");
}

/* The elected process: listen, publish the endpoint, and run the agent (forked off with --ensure, in
 * this process with --foreground).  Returns the exit status for this process. */
static int become_agent(struct agent_cfg *cfg, int ensure)
{
    uint16_t port;
    int lfd = listen_local(&port);
    if (lfd < 0)
        return 1;
    if (!ensure) {
        if (write_endpoint(cfg->dir, port, getpid()) < 0)
            return 1;
        printf("%u\n", (unsigned)port);
        fflush(stdout);
        int rc = agent_run(cfg, lfd);
        remove_endpoint(cfg->dir);
        return rc;
    }
    pid_t pid = fork();
    if (pid < 0) {
        agent_err("fork: %s", strerror(errno));
        return 1;
    }
    if (pid > 0) {               /* the launcher's side: publish the endpoint, print the port */
        agent_close(lfd, "the listening socket (the agent has it)");
        agent_close(cfg->lock_fd, "the lock (the agent holds it)");
        if (write_endpoint(cfg->dir, port, pid) < 0)
            return 1;
        printf("%u\n", (unsigned)port);
        return 0;
    }
    /* the agent: its own session, away from the launcher's pipes (stderr to DIR/agent.log) */
    char log[4200];
    snprintf(log, sizeof log, "%s/agent.log", cfg->dir);
    int nul = open("/dev/null", O_RDWR);
    int lg = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (nul < 0 || lg < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(lg, 2) < 0)
        _exit(1);
    agent_close(nul, "/dev/null");
    agent_close(lg, "the log");
    close_inherited(lfd, cfg->lock_fd);
    if (setsid() < 0)
        agent_err("setsid: %s", strerror(errno));
    /* wait until the parent has published the endpoint: only then may we remove it at the end */
    int64_t dl = coord_deadline(5000);
    while (read_endpoint(cfg->dir) != port && coord_now_ms() < dl) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    int rc = agent_run(cfg, lfd);
    remove_endpoint(cfg->dir);
    _exit(rc);
}

int main(int argc, char **argv)
{
    static struct agent_cfg cfg;
    int ensure = -1, given = -1;
    snprintf(cfg.coord_host, sizeof cfg.coord_host, "localhost");
    cfg.coord_port = MANA_COORD_DEFAULT_PORT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--ensure")) ensure = 1;
        else if (!strcmp(a, "--foreground")) ensure = 0;
        else if (!strcmp(a, "--dir") && v) { snprintf(cfg.dir, sizeof cfg.dir, "%s", v); i++; }
        else if (!strcmp(a, "--coord-host") && v) { snprintf(cfg.coord_host, sizeof cfg.coord_host, "%s", v); i++; }
        else if (!strcmp(a, "--coord-port") && v) { cfg.coord_port = (uint16_t)atoi(v); i++; }
        else if (!strcmp(a, "--ranks") && v) { given = atoi(v); i++; }
        else { usage(); return 2; }
    }
    if (ensure < 0 || !cfg.dir[0] || cfg.dir[0] != '/' || cfg.coord_port == 0) {
        usage();
        return 2;
    }
    const char *dbg = getenv("MANA_DEBUG");
    cfg.debug = agent_debug = dbg && *dbg && strcmp(dbg, "0") != 0;
    cfg.gather_ms = env_int("MANA_AGENT_GATHER_MS") > 0 ? env_int("MANA_AGENT_GATHER_MS") : 8000;
    int wait_ms = env_int("MANA_AGENT_WAIT_MS") > 0 ? env_int("MANA_AGENT_WAIT_MS") : 10000;
    if (read_secret(cfg.secret, sizeof cfg.secret) < 0 || prepare_dir(cfg.dir) < 0)
        return 1;
    char lock[4200];
    snprintf(lock, sizeof lock, "%s/lock", cfg.dir);
    cfg.lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (cfg.lock_fd < 0) {
        agent_err("cannot open %s: %s", lock, strerror(errno));
        return 1;
    }
    /* Elect: the lock's holder is the node's agent.  The others wait for its endpoint; a lock that
     * comes free meanwhile (an agent that ended) is taken over. */
    int64_t dl = coord_deadline(wait_ms);
    for (;;) {
        if (flock(cfg.lock_fd, LOCK_EX | LOCK_NB) == 0) {
            const char *from;
            cfg.expect = local_ranks(given, &from);
            if (cfg.expect <= 0) {
                agent_err("cannot tell how many ranks of this job run on this node: neither "
                          "MANA_AGENT_RANKS nor the launcher's OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS "
                          "or SLURM_STEP_TASKS_PER_NODE with SLURM_NODEID says");
                return 1;
            }
            agent_dbg("elected in %s: %d local ranks (from %s)", cfg.dir, cfg.expect, from);
            remove_endpoint(cfg.dir);      /* a crashed agent's */
            return become_agent(&cfg, ensure);
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            agent_err("flock %s: %s", lock, strerror(errno));
            return 1;
        }
        unsigned port = ensure ? read_endpoint(cfg.dir) : 0;
        if (port) {
            printf("%u\n", port);
            return 0;
        }
        if (coord_now_ms() >= dl) {
            agent_err("no node agent endpoint in %s within %d ms (another process holds %s but "
                      "published no endpoint; MANA_AGENT_WAIT_MS)", cfg.dir, wait_ms, lock);
            return 1;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
}
