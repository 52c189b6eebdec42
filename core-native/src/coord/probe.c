/*
 * mana_coord_probe - a rank without a program: registers with the
 * coordinator as rank R of N and either runs K collectives (and checks their
 * results), or, with --serve, answers checkpoint requests the way a real
 * rank does (phases 1-4 with a CKPT_WRITTEN) until killed or its time is up.
 * For tests and benchmarks of the coordinator and of this client.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mana/coord_client.h"

static const char usage[] =
    "usage: mana_coord_probe [-h HOST] [-p PORT] [-s SECRET] [-j JOB] [-r RANK] [-n NRANKS]\n"
    "                        [-k COUNT] [--op barrier|sum|max|min|or] [--gen G] [--phase P]\n"
    "                        [--serve] [--serve-for SEC] [--fail-ckpt] [--restarting G]\n"
    "                        [--ckptdir DIR] [--timeout MS] [-q]\n"
    "       mana_coord_probe [-h HOST] [-p PORT] [-s SECRET] [-j JOB] --set-interval SEC\n"
    "       mana_coord_probe [-h HOST] [-p PORT] [-s SECRET] [-j JOB] --checkpoint [--exit] [--forked]\n"
    "       mana_coord_probe [-h HOST] [-p PORT] [-s SECRET] [-j JOB] --await-running N [--timeout MS]\n"
    "       mana_coord_probe [-h HOST] [-p PORT] [-s SECRET] [-j JOB] --list\n"
    "Registers as rank RANK of NRANKS (default 0 of 1) and runs COUNT collectives\n"
    "(default 100 barriers, generation G = 0, phase P = 64: outside the checkpoint\n"
    "phases 1-34), checking every result; prints latency figures.\n"
    "--serve answers checkpoint requests like a rank (phases 1-4) until KILL, or for SEC s.\n"
    "--set-interval connects as a control client and sets the job's checkpoint interval.\n"
    "--checkpoint asks for a checkpoint (--exit: the ranks exit after it; --forked: written by a\n"
    "  writer process while the program runs), waits for it and prints the coordinator's figures:\n"
    "  checkpoint ok generation=G elapsed_s=T bytes=B ranks=N dir=D   (exit 0; else 1)\n"
    "--drop-in-ckpt (with --serve): at a checkpoint, leaves without BYE after phase 1 (a rank that\n"
    "  dies mid-checkpoint).\n"
    "--list prints the job's ranks as the coordinator lists them, one line each:\n"
    "  rank R host H pid P state S generation G client C\n"
    "--await-running waits until the job lists N ranks, all RUNNING (exit 0), or the time-out\n"
    "  passes (exit 1, with the ranks as last listed): a test's wait, one process, no JVM.\n"
    "Exit status: 0 ok, 1 wrong result or protocol failure, 2 usage, 3 cannot connect.\n";

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A whole number in [lo, hi], or exit 2 with the usage. */
static long num(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "mana_coord_probe: bad number '%s'\n", s);
        exit(2);
    }
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct opts {
    int rank, nranks, count, serve_for, fail_ckpt, quiet, timeout_ms, serve;
    int restarting, drop_in_ckpt;
    uint32_t gen;
    uint16_t phase;
    enum mana_coord_op op;
    const char *ckptdir;
};

/* The reduction each rank contributes to round i, and what it must come back as. */
static void contribution(const struct opts *o, int i, int64_t v[2], int64_t want[2])
{
    int64_t n = o->nranks;
    v[0] = o->rank + 1;
    v[1] = i;
    switch (o->op) {
    case MANA_COORD_SUM: want[0] = n * (n + 1) / 2; want[1] = n * i; break;
    case MANA_COORD_MAX: want[0] = n; want[1] = i; break;
    case MANA_COORD_MIN: want[0] = 1; want[1] = i; break;
    case MANA_COORD_OR:
        want[0] = 0;
        for (int64_t r = 1; r <= n; r++)
            want[0] |= r;
        want[1] = i;
        break;
    default: want[0] = want[1] = 0;
    }
}

static int run_collectives(mana_coord_t *c, const struct opts *o)
{
    char err[512];
    double *lat = malloc(sizeof(double) * (size_t)(o->count ? o->count : 1));
    if (!lat) {
        fprintf(stderr, "mana_coord_probe: out of memory\n");
        return 1;
    }
    uint32_t cnt = o->op == MANA_COORD_BARRIER ? 0 : 2;
    double t0 = now_us();
    for (int i = 0; i < o->count; i++) {
        int64_t v[2], want[2], out[2] = {0, 0};
        contribution(o, i, v, want);
        double s = now_us();
        int rc = mana_coord_collective(c, o->gen, o->phase, o->op, cnt ? v : NULL,
                                       cnt ? out : NULL, cnt, o->timeout_ms, err, sizeof err);
        lat[i] = now_us() - s;
        if (rc != MANA_COORD_OK) {
            fprintf(stderr, "mana_coord_probe: rank %d: collective %d: %s\n", o->rank, i, err);
            free(lat);
            return 1;
        }
        if (cnt && (out[0] != want[0] || out[1] != want[1])) {
            fprintf(stderr, "mana_coord_probe: rank %d: collective %d: got {%" PRId64 ",%" PRId64
                    "}, want {%" PRId64 ",%" PRId64 "}\n", o->rank, i, out[0], out[1], want[0], want[1]);
            free(lat);
            return 1;
        }
    }
    double total = now_us() - t0;
    if (!o->quiet && o->count) {
        qsort(lat, (size_t)o->count, sizeof *lat, cmp_double);
        printf("probe rank %d: %d collectives (op %d) in %.1f ms: mean %.1f us, p50 %.1f us, "
               "p99 %.1f us, results ok\n", o->rank, o->count, (int)o->op, total / 1e3,
               total / o->count, lat[o->count / 2], lat[(o->count * 99) / 100]);
    }
    free(lat);
    return 0;
}

/*
 * --await-running: LIST every 20 ms on one control connection until the job has exactly n ranks,
 * all RUNNING. Test harnesses poll this way instead of starting a JVM (mana_status --list) per look.
 */
static int await_running(mana_coord_t *c, uint32_t n, int timeout_ms)
{
    static struct mana_coord_rank_info ranks[256];
    struct timespec tick = {0, 20 * 1000 * 1000};
    double end = now_us() + timeout_ms * 1e3;
    char err[512];
    uint32_t count = 0, running = 0;

    for (;;) {
        int rc = mana_coord_list(c, ranks, 256, &count, 15000, err, sizeof err);
        if (rc != MANA_COORD_OK) {
            fprintf(stderr, "mana_coord_probe: list: %s\n", err);
            return 1;
        }
        running = 0;
        for (uint32_t i = 0; i < count && i < 256; i++)
            running += ranks[i].state == MANA_COORD_STATE_RUNNING;
        if (count == n && running == n) {
            printf("running %u\n", (unsigned)n);
            return 0;
        }
        if (now_us() >= end)
            break;
        while (nanosleep(&tick, &tick) < 0 && errno == EINTR) {
        }
        tick.tv_nsec = 20 * 1000 * 1000;
    }
    fprintf(stderr, "mana_coord_probe: %u of %u ranks running after %d ms; listed:", (unsigned)running,
            (unsigned)n, timeout_ms);
    for (uint32_t i = 0; i < count && i < 256; i++)
        fprintf(stderr, " rank %d pid %d state %u;", ranks[i].rank, ranks[i].pid, ranks[i].state);
    fputc('\n', stderr);
    return 1;
}

/* One checkpoint as a rank does it, minus the image. */
static int serve_ckpt(mana_coord_t *c, const struct opts *o, const struct mana_coord_event *ev)
{
    char err[512], path[4200];
    uint32_t g = ev->generation;
    int rc = mana_coord_barrier(c, g, MANA_PHASE_SUSPENDED, o->timeout_ms, err, sizeof err);
    if (rc == MANA_COORD_OK && o->drop_in_ckpt) {
        printf("probe rank %d: dropping out of checkpoint %u\n", o->rank, (unsigned)g);
        fflush(stdout);
        _exit(0);                  /* the socket closes without BYE, as when a rank dies */
    }
    if (rc == MANA_COORD_OK)
        rc = mana_coord_barrier(c, g, MANA_PHASE_DRAINED, o->timeout_ms, err, sizeof err);
    if (rc == MANA_COORD_OK && o->fail_ckpt) {
        rc = mana_coord_ckpt_failed(c, g, "probe told to fail", err, sizeof err);
        if (rc == MANA_COORD_OK) {
            /* The coordinator answers with CKPT_ABORT to everyone. */
            rc = mana_coord_barrier(c, g, MANA_PHASE_CHECKPOINTED, o->timeout_ms, err, sizeof err);
        }
    } else if (rc == MANA_COORD_OK) {
        snprintf(path, sizeof path, "%s/ckpt_rank_%d/probe_%u.img",
                 ev->text[0] ? ev->text : o->ckptdir, o->rank, (unsigned)g);
        rc = mana_coord_ckpt_written(c, g, 4096, 1000, path, err, sizeof err);
        if (rc == MANA_COORD_OK)
            rc = mana_coord_barrier(c, g, MANA_PHASE_CHECKPOINTED, o->timeout_ms, err, sizeof err);
        if (rc == MANA_COORD_OK)
            rc = mana_coord_barrier(c, g, MANA_PHASE_COMMITTED, o->timeout_ms, err, sizeof err);
    }
    if (rc == MANA_COORD_ABORTED) {
        if (!o->quiet)
            printf("probe rank %d: %s\n", o->rank, err);
        return 0;
    }
    if (rc != MANA_COORD_OK) {
        if (rc != MANA_COORD_KILLED)
            fprintf(stderr, "mana_coord_probe: rank %d: checkpoint %u: %s\n", o->rank, (unsigned)g, err);
        return rc;
    }
    if (!o->quiet)
        printf("probe rank %d: checkpoint %u committed\n", o->rank, (unsigned)g);
    if (ev->flags & MANA_COORD_CKPT_EXIT) {
        mana_coord_bye(c, MANA_COORD_BYE_CKPT_KILL, 0, err, sizeof err);
        return MANA_COORD_KILLED;
    }
    return 0;
}

static int serve(mana_coord_t *c, const struct opts *o)
{
    char err[512];
    struct mana_coord_event ev;
    time_t end = o->serve_for > 0 ? time(NULL) + o->serve_for : 0;
    for (;;) {
        int left = end ? (int)(end - time(NULL)) * 1000 : -1;
        if (end && left <= 0)
            break;
        int rc = mana_coord_wait_event(c, left, &ev, err, sizeof err);
        if (rc == MANA_COORD_TIMEOUT)
            break;
        if (rc != MANA_COORD_OK) {
            fprintf(stderr, "mana_coord_probe: rank %d: %s\n", o->rank, err);
            return 1;
        }
        if (ev.type == MANA_COORD_EV_KILL) {
            if (!o->quiet)
                printf("probe rank %d: killed\n", o->rank);
            return 0;
        }
        if (ev.type == MANA_COORD_EV_CKPT_ABORT)
            continue;              /* an abort outside a collective: nothing to undo */
        rc = serve_ckpt(c, o, &ev);
        if (rc == MANA_COORD_KILLED)
            return 0;
        if (rc)
            return 1;
    }
    mana_coord_bye(c, MANA_COORD_BYE_EXIT, 0, err, sizeof err);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"op", required_argument, 0, 'o'},      {"gen", required_argument, 0, 'g'},
        {"phase", required_argument, 0, 'P'},   {"serve", no_argument, 0, 'S'},
        {"serve-for", required_argument, 0, 'F'}, {"fail-ckpt", no_argument, 0, 'f'},
        {"restarting", required_argument, 0, 'R'}, {"ckptdir", required_argument, 0, 'd'},
        {"timeout", required_argument, 0, 't'}, {"help", no_argument, 0, 'H'},
        {"set-interval", required_argument, 0, 'I'}, {"checkpoint", no_argument, 0, 'C'},
        {"exit", no_argument, 0, 'E'},          {"list", no_argument, 0, 'L'},
        {"drop-in-ckpt", no_argument, 0, 'D'},          {"forked", no_argument, 0, 'K'}, {"await-running", required_argument, 0, 'A'},
        {0, 0, 0, 0}};
    struct opts o = {.rank = 0, .nranks = 1, .count = 100, .timeout_ms = 60000,
                     .phase = 64, .op = MANA_COORD_BARRIER, .ckptdir = "."};
    const char *host = NULL, *secret = NULL, *job = NULL;
    int port = 0, ch;
    uint32_t restart_gen = 0;
    long set_interval = -1;
    int checkpoint = 0, ckpt_exit = 0, ckpt_forked = 0;
    long await_n = -1;
    int list = 0;

    /* Line-buffered even into a file: tests read our progress while we run. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    while ((ch = getopt_long(argc, argv, "h:p:s:j:r:n:k:q", lo, NULL)) != -1) {
        switch (ch) {
        case 'h': host = optarg; break;
        case 'p': port = (int)num(optarg, 1, 65535); break;
        case 's': secret = optarg; break;
        case 'j': job = optarg; break;
        case 'r': o.rank = (int)num(optarg, 0, INT32_MAX); break;
        case 'n': o.nranks = (int)num(optarg, 1, INT32_MAX); break;
        case 'k': o.count = (int)num(optarg, 0, 100000000); break;
        case 'q': o.quiet = 1; break;
        case 'g': o.gen = (uint32_t)num(optarg, 0, UINT32_MAX); break;
        case 'P': o.phase = (uint16_t)num(optarg, 0, UINT16_MAX); break;
        case 'S': o.serve = 1; break;
        case 'F': o.serve = 1; o.serve_for = (int)num(optarg, 1, INT32_MAX); break;
        case 'f': o.fail_ckpt = 1; break;
        case 'R': o.restarting = 1; restart_gen = (uint32_t)num(optarg, 0, UINT32_MAX); break;
        case 'd': o.ckptdir = optarg; break;
        case 't': o.timeout_ms = (int)num(optarg, -1, INT32_MAX); break;
        case 'o':
            if (!strcmp(optarg, "barrier")) o.op = MANA_COORD_BARRIER;
            else if (!strcmp(optarg, "sum")) o.op = MANA_COORD_SUM;
            else if (!strcmp(optarg, "max")) o.op = MANA_COORD_MAX;
            else if (!strcmp(optarg, "min")) o.op = MANA_COORD_MIN;
            else if (!strcmp(optarg, "or")) o.op = MANA_COORD_OR;
            else { fputs(usage, stderr); return 2; }
            break;
        case 'C': checkpoint = 1; break;
        case 'L': list = 1; break;
        case 'D': o.drop_in_ckpt = 1; break;
        case 'E': ckpt_exit = 1; break;
        case 'K': ckpt_forked = 1; break;
        case 'A': await_n = num(optarg, 1, 256); break;
        case 'I': set_interval = num(optarg, 0, UINT32_MAX); break;
        case 'H': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind != argc || o.nranks < 1 || o.rank < 0 || o.rank >= o.nranks || o.count < 0) {
        fputs(usage, stderr);
        return 2;
    }

    char err[512];
    struct mana_coord_addr addr;
    if (mana_coord_resolve(&addr, host, port, secret, err, sizeof err) != MANA_COORD_OK) {
        fprintf(stderr, "mana_coord_probe: %s\n", err);
        return 3;
    }
    if (set_interval >= 0 || checkpoint || await_n > 0 || list) {
        struct mana_coord_hello hc = {.role = MANA_COORD_ROLE_CONTROL,
                                      .job = job ? job : getenv("MANA_JOB")};
        int rc;
        mana_coord_t *c = mana_coord_connect(&addr, &hc, NULL, 15000, &rc, err, sizeof err);
        if (!c) {
            fprintf(stderr, "mana_coord_probe: %s\n", err);
            return 3;
        }
        if (list) {
            static struct mana_coord_rank_info ranks[256];
            uint32_t count = 0;
            rc = mana_coord_list(c, ranks, 256, &count, 15000, err, sizeof err);
            mana_coord_close(c);
            if (rc != MANA_COORD_OK) {
                fprintf(stderr, "mana_coord_probe: list: %s\n", err);
                return 1;
            }
            for (uint32_t i = 0; i < count && i < 256; i++)
                printf("rank %d host %s pid %d state %u generation %u client %u\n", ranks[i].rank,
                       ranks[i].host[0] ? ranks[i].host : "-", ranks[i].pid, (unsigned)ranks[i].state,
                       (unsigned)ranks[i].generation, (unsigned)ranks[i].client_id);
            return 0;
        }
        if (await_n > 0) {
            rc = await_running(c, (uint32_t)await_n, o.timeout_ms);
            mana_coord_close(c);
            return rc;
        }
        if (checkpoint) {
            struct mana_coord_ckpt_result res;
            uint8_t fl = MANA_COORD_CKPT_WAIT | (ckpt_exit ? MANA_COORD_CKPT_EXIT : 0) |
                         (ckpt_forked ? MANA_COORD_CKPT_FORKED : 0);
            rc = mana_coord_checkpoint(c, fl, &res, o.timeout_ms, err, sizeof err);
            mana_coord_close(c);
            if (rc != MANA_COORD_OK || !res.ok) {
                fprintf(stderr, "mana_coord_probe: %s\n", err);
                return 1;
            }
            printf("checkpoint ok generation=%u elapsed_s=%.6f bytes=%llu ranks=%u dir=%s\n",
                   (unsigned)res.generation, res.elapsed_ns / 1e9,
                   (unsigned long long)res.total_bytes, (unsigned)res.ranks, res.dir);
            return 0;
        }
        rc = mana_coord_set_interval(c, (uint32_t)set_interval, 15000, err, sizeof err);
        mana_coord_close(c);
        if (rc != MANA_COORD_OK) {
            fprintf(stderr, "mana_coord_probe: set interval: %s\n", err);
            return 1;
        }
        if (!o.quiet)
            printf("checkpoint interval set to %ld s\n", set_interval);
        return 0;
    }

    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, "/");
    struct mana_coord_hello h = {
        .role = MANA_COORD_ROLE_RANK, .job = job ? job : getenv("MANA_JOB"), .rank = o.rank,
        .nranks = o.nranks, .mpi = "none", .generation = restart_gen,
        .restarting = (uint8_t)o.restarting, .ckptdir = o.ckptdir[0] == '/' ? o.ckptdir : cwd,
        .program = "mana_coord_probe"};
    struct mana_coord_welcome wl;
    int rc;
    mana_coord_t *c = mana_coord_connect(&addr, &h, &wl, 15000, &rc, err, sizeof err);
    if (!c) {
        fprintf(stderr, "mana_coord_probe: %s\n", err);
        return 3;
    }
    if (!o.quiet)
        printf("probe rank %d: connected to %s:%u, client %u, generation %u, interval %u\n",
               o.rank, addr.host, (unsigned)addr.port, (unsigned)wl.client_id,
               (unsigned)wl.generation, (unsigned)wl.interval);
    fflush(stdout);

    int status = 0;
    if (o.restarting) {
        for (uint16_t ph = MANA_PHASE_RESTARTED; ph <= MANA_PHASE_RESUMED && !status; ph++)
            if (mana_coord_barrier(c, restart_gen, ph, o.timeout_ms, err, sizeof err) != MANA_COORD_OK) {
                fprintf(stderr, "mana_coord_probe: rank %d: restart phase %u: %s\n", o.rank, ph, err);
                status = 1;
            }
    }
    if (!status)
        status = o.serve ? serve(c, &o) : run_collectives(c, &o);
    if (!o.serve && !status)
        mana_coord_bye(c, MANA_COORD_BYE_EXIT, 0, err, sizeof err);
    mana_coord_close(c);
    fflush(stdout);
    return status;
}
