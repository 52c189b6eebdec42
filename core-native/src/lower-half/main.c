/*
 * main.c - bin/lower-half: the lower half of a MANA split process.
 *
 *   lower-half PROGRAM [ARGS...]     launch PROGRAM as the upper half (kernel loader, loader.c)
 *   lower-half --restore DIR         restore the newest image of this rank from DIR (restore.c)
 *   lower-half --check IMAGE         check one image against the format's rules (image_check.c)
 *   lower-half --exec PATH ARGV...   follow an exec of the program (plugin/execwrap.c): PATH is loaded
 *                                    as execve would, with the program's own argv
 *
 * Both first re-execute themselves with address-space randomization off and glibc's rseq
 * registration off (GLIBC_TUNABLES=glibc.pthread.rseq=0), so that the layout is the same at
 * launch and at restart.  The launchers (mana_launch, mana_restart) set the environment; see
 * docs/architecture.md.
 */
#define _GNU_SOURCE
#include "lower_half.h"
#include "mana_util.h"
#include "../coord/secret_fd.h"
#include "image_check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

struct lh_info mana_lh;

static struct mana_range lh_range_store[LH_MAX_RANGES];

/* Tests only: MANA_TEST_RESTORE_SLOW_MS=N makes a released restart pause sleep N ms before the restore goes
 * on, so that a test can act on the rank while the restore still runs (dap-server's RestartedRankDapTest:
 * a debugger's pause right after the release must stop the program, never the restore). */
static int restore_slow_ms;

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    long x = strtol(v, &end, 10);
    return *end ? dflt : (int)x;
}

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static void env_str(char *dst, size_t len, const char *name, const char *dflt)
{
    const char *v = getenv(name);
    snprintf(dst, len, "%s", v && *v ? v : dflt);
}

void lh_read_settings(void)
{
    struct mana_settings *s = &mana_lh.settings;
    env_str(s->coord_host, sizeof s->coord_host, "MANA_COORD_HOST", "");
    s->coord_port = env_int("MANA_COORD_PORT", 0);
    /* on a descriptor from the launcher, never in the program's environment (coord/secret_fd.h) */
    if (mana_secret_from_launcher(s->coord_secret, sizeof s->coord_secret, 1) < 0)
        mana_warn("cannot read the coordinator secret from MANA_COORD_SECRET_FD");
    env_str(s->job, sizeof s->job, "MANA_JOB", "");
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
    env_str(s->ckpt_dir, sizeof s->ckpt_dir, "MANA_CKPT_DIR", cwd);
    s->ckpt_interval = (uint32_t)env_int("MANA_CKPT_INTERVAL", 0);
    /* SIGRTMIN+6 (40): JVMs take SIGUSR2, MPI launchers forward SIGUSR1/2; the plugin moves on when
     * the program claims it anyway (sigwrap.c) */
    s->ckpt_signal = env_int("MANA_CKPT_SIGNAL", MANA_DEFAULT_CKPT_SIGNAL);
    if (s->ckpt_signal <= 0 || s->ckpt_signal >= 65 || s->ckpt_signal == SIGKILL || s->ckpt_signal == SIGSTOP)
        s->ckpt_signal = MANA_DEFAULT_CKPT_SIGNAL;
    s->debug = env_flag("MANA_DEBUG");
    s->timing = env_flag("MANA_TIMING");
    s->quiet = env_flag("MANA_QUIET");
    s->no_coord = env_flag("MANA_NO_COORD");
    /* The launcher's rank and world size, read as mana_launch's launcher_env reads them (keep the two
     * in step).  An MPI lower half replaces both with MPI's own (lh_mpi.c).  Without MPI the size
     * makes the ranks of `mpirun -n N mana_launch --mpi none` ranks 0..N-1 of one job of N at the
     * coordinator, where as ranks R of 1 all but rank 0 would be refused; with no size (no launcher, a
     * batch script, a launcher that does not say) a process is rank R of 1 as before. */
    int rank = -1, size = -1;
    if ((rank = env_int("OMPI_COMM_WORLD_RANK", -1)) >= 0) {
        size = env_int("OMPI_COMM_WORLD_SIZE", -1);
    } else if ((rank = env_int("PMI_RANK", -1)) >= 0) {
        size = env_int("PMI_SIZE", -1);
    } else if ((rank = env_int("PMIX_RANK", -1)) >= 0) {
        /* srun's PMIx gives the step's size; SLURM_* of a launcher srun started count its daemons */
        if (env_int("SLURM_PROCID", -1) == rank) size = env_int("SLURM_STEP_NUM_TASKS", -1);
    } else if ((rank = env_int("SLURM_PROCID", -1)) >= 0) {
        size = env_int("SLURM_STEP_NUM_TASKS", -1);
    }
    s->rank = rank >= 0 ? rank : 0;
    s->nranks = size > s->rank ? size : 1;
    s->restart_pause = env_int("MANA_RESTART_PAUSE", env_int("DMTCP_RESTART_PAUSE", 0));
    restore_slow_ms = env_int("MANA_TEST_RESTORE_SLOW_MS", 0);
}

#define LH_MAX_MAPS 65536

int lh_read_maps(struct mana_map **out)
{
    /* .bss: untouched pages cost nothing */
    static char buf[LH_MAX_MAPS * 128];
    static struct mana_map maps[LH_MAX_MAPS];
    long n = mana_read_file("/proc/self/maps", buf, sizeof buf);
    if (n < 0) { mana_err("cannot read /proc/self/maps: %s", strerror((int)-n)); return -1; }
    int nm = mana_parse_maps(buf, maps, LH_MAX_MAPS);
    if (nm < 0) { mana_err("more than %d mappings", LH_MAX_MAPS); return -1; }
    *out = maps;
    return nm;
}

int lh_guard_brk(void)
{
    uint64_t cur = (uint64_t)sbrk(0);
    uint64_t g = (cur + 4095) & ~4095UL;
    void *m = mmap((void *)g, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED || (uint64_t)m != g) {
        mana_err("cannot place the guard page after the break at %#lx: %s", (unsigned long)g, strerror(errno));
        return -1;
    }
    mana_lh.brk_guard.start = g;
    mana_lh.brk_guard.end = g + 4096;
    return 0;
}

static int is_kernel_special(const char *name)
{
    return strcmp(name, "[vdso]") == 0 || strncmp(name, "[vvar", 5) == 0 || strcmp(name, "[vsyscall]") == 0;
}

int lh_record_ranges(const struct mana_range *exclude, int nexclude)
{
    struct mana_map *maps;
    int nm = lh_read_maps(&maps);
    if (nm < 0) return -1;
    lh_track_lock();
    mana_lh.lh_ranges = lh_range_store;
    mana_lh.lh_range_cap = sizeof lh_range_store / sizeof *lh_range_store;
    uint32_t k = 0;
    for (int i = 0; i < nm; i++) {
        if (is_kernel_special(maps[i].name)) continue;
        /* A mapping may be the kernel's merge of a lower and an upper piece: keep only the parts
         * outside the upper ranges. */
        for (uint64_t s = maps[i].start; s < maps[i].end;) {
            int in_upper;
            uint64_t e = mana_range_piece(exclude, (uint32_t)nexclude, s, maps[i].end, &in_upper);
            if (!in_upper) {
                if (k > 0 && lh_range_store[k - 1].end == s) {
                    lh_range_store[k - 1].end = e;
                } else {
                    if (k >= mana_lh.lh_range_cap) {
                        lh_track_unlock();
                        mana_err("too many lower-half mappings");
                        return -1;
                    }
                    lh_range_store[k].start = s;
                    lh_range_store[k].end = e;
                    k++;
                }
            }
            s = e;
        }
    }
    mana_lh.lh_range_count = k;
    lh_track_unlock();
    for (uint32_t i = 0; i < k; i++)
        mana_dbg("lower-half range %#lx-%#lx", (unsigned long)lh_range_store[i].start,
                 (unsigned long)lh_range_store[i].end);
    return 0;
}

/* Set by a debugger (gdb: `set var mana_restart_pause_wait = 0`) to leave a restart pause. */
volatile int mana_restart_pause_wait = 1;

void lh_restart_pause(int level, const char *where)
{
    int want = mana_lh.settings.restart_pause;
    if (want != level) return;
    char buf[512];
    int n = snprintf(buf, sizeof buf,
                     "lower-half: restart pause level %d (%s): pid %d waits; attach with\n"
                     "  gdb -p %d -ex 'set var mana_restart_pause_wait = 0' -ex continue\n",
                     level, where, getpid(), getpid());
    if (n > 0) write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    while (mana_restart_pause_wait) {
        struct timespec ts = { 0, 1000000 };
        /* raw nanosleep: this may run after the vdso moved */
        long r;
        __asm__ volatile("syscall" : "=a"(r) : "a"(35L), "D"(&ts), "S"(0) : "rcx", "r11", "memory");
        (void)r;    /* rax is the result: without it as an output the next round would call -ENOSYS */
    }
    mana_restart_pause_wait = 1;
    if (restore_slow_ms > 0) {
        struct timespec ts = { restore_slow_ms / 1000, (long)(restore_slow_ms % 1000) * 1000000L };
        long r;
        __asm__ volatile("syscall" : "=a"(r) : "a"(35L), "D"(&ts), "S"(0) : "rcx", "r11", "memory");
        (void)r;
    }
}

/* Set by a debugger (gdb: `set var mana_launch_pause_wait = 0`) to leave the launch pause. */
volatile int mana_launch_pause_wait = 1;

/* MANA_LAUNCH_PAUSE=1 (alias DMTCP_LAUNCH_PAUSE): a launched rank waits here, before anything of the
 * upper half is loaded, until a debugger clears mana_launch_pause_wait (gdb-integration then runs it to
 * the program's main).  The loop is the restart pause's. */
static __attribute__((noinline)) void lh_launch_pause(void)
{
    if (!env_flag("MANA_LAUNCH_PAUSE") && !env_flag("DMTCP_LAUNCH_PAUSE")) return;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "lower-half: launch pause: pid %d waits; attach with\n"
                     "  gdb -p %d -ex 'set var mana_launch_pause_wait = 0' -ex continue\n", getpid(), getpid());
    if (n > 0) write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    while (mana_launch_pause_wait) {
        struct timespec ts = { 0, 1000000 };
        long r;
        __asm__ volatile("syscall" : "=a"(r) : "a"(35L), "D"(&ts), "S"(0) : "rcx", "r11", "memory");
        (void)r;
    }
}

/* What the user had before the re-exec below: restored for the program's children (the personality
 * at once, GLIBC_TUNABLES by the plugin), so that they run as if launched natively. */
static int orig_pers = -1;
static int orig_had_tunables;
static char orig_tunables[4096];

/* Re-exec with ASLR off and rseq off, once.  MANA_LH_REEXEC carries the original personality and
 * MANA_LH_ORIG_TUNABLES the original GLIBC_TUNABLES across it. */
static void reexec_if_needed(char **argv)
{
    int pers = personality(0xffffffff);
    const char *tun = getenv("GLIBC_TUNABLES");
    int tun_ok = tun && strstr(tun, "glibc.pthread.rseq=0");
    const char *marker = getenv("MANA_LH_REEXEC");
    if (pers != -1 && (pers & ADDR_NO_RANDOMIZE) && tun_ok) {
        if (marker) {
            orig_pers = atoi(marker);
            const char *ot = getenv("MANA_LH_ORIG_TUNABLES");
            if (ot) { orig_had_tunables = 1; snprintf(orig_tunables, sizeof orig_tunables, "%s", ot); }
        } else {
            orig_pers = pers;
            orig_had_tunables = tun != NULL;
            snprintf(orig_tunables, sizeof orig_tunables, "%s", tun ? tun : "");
        }
        unsetenv("MANA_LH_REEXEC");
        unsetenv("MANA_LH_ORIG_TUNABLES");
        /* The layout is fixed at exec time: the flag has done its work; children get ASLR back. */
        if (orig_pers != -1 && !(orig_pers & ADDR_NO_RANDOMIZE)) personality((unsigned long)orig_pers);
        return;
    }
    if (marker) {
        /* Tried once already: go on with what we have, but say so. */
        mana_warn("could not turn off address-space randomization; restart may fail");
        unsetenv("MANA_LH_REEXEC");
        unsetenv("MANA_LH_ORIG_TUNABLES");
        return;
    }
    char pbuf[32];
    snprintf(pbuf, sizeof pbuf, "%d", pers);
    if (tun) setenv("MANA_LH_ORIG_TUNABLES", tun, 1);
    if (pers != -1) personality((unsigned long)pers | ADDR_NO_RANDOMIZE);
    if (!tun_ok) {
        char v[4096];
        if (tun && *tun) snprintf(v, sizeof v, "%s:glibc.pthread.rseq=0", tun);
        else snprintf(v, sizeof v, "glibc.pthread.rseq=0");
        setenv("GLIBC_TUNABLES", v, 1);
    }
    setenv("MANA_LH_REEXEC", pbuf, 1);
    execv("/proc/self/exe", argv);
    mana_warn("cannot re-execute /proc/self/exe: %s", strerror(errno));
    unsetenv("MANA_LH_REEXEC");
    unsetenv("MANA_LH_ORIG_TUNABLES");
}

extern char **environ;

/* `--exec`: the program before exec'd (plugin/execwrap.c) and handed its settings on in a memfd. */
static void read_exec_settings(int wanted)
{
    const char *v = getenv("MANA_LH_EXEC_FD");
    if (!v) return;
    int fd = atoi(v);
    unsetenv("MANA_LH_EXEC_FD");
    struct stat st;
    if (fd <= 2 || fstat(fd, &st) != 0) return;
    struct mana_exec_settings es;
    ssize_t n = pread(fd, &es, sizeof es, 0);
    close(fd);
    if (!wanted) return;
    if (n != (ssize_t)sizeof es || es.magic != MANA_EXEC_SETTINGS_MAGIC || es.size != sizeof es) {
        mana_warn("the settings of the program before the exec are unreadable; using the environment's");
        return;
    }
    mana_lh.settings = es.settings;
    mana_lh.exec_followed = 1;
    mana_lh.exec_generation = es.generation;
}

/* Descriptors the launcher left open (above 2): the program did not open them. */
static void record_inherited_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return;
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && mana_lh.inherited_count < MANA_MAX_INHERITED) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        int fd = atoi(e->d_name);
        struct stat st;
        if (fd <= 2 || fd == self || fstat(fd, &st) != 0) continue;
        struct mana_inherited_fd *r = &mana_lh.inherited[mana_lh.inherited_count++];
        r->fd = fd;
        r->dev = st.st_dev;
        r->ino = st.st_ino;
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    int64_t t0 = mana_now_ns();
    if (argc >= 2 && strcmp(argv[1], "--check") == 0) {
        /* Reads one image and restores nothing: no re-exec, no settings (image_check.c). */
        mana_log_setup("lower-half", getenv("MANA_DEBUG") != NULL, 0, 0);
        if (argc != 3) { mana_err("usage: lower-half --check IMAGE"); return 2; }
        return lh_check_image(argv[2]);
    }
    reexec_if_needed(argv);
    memset(&mana_lh, 0, sizeof mana_lh);
    mana_lh.magic = MANA_LH_MAGIC;
    mana_lh.version = MANA_LH_VERSION;
    mana_lh.size = sizeof mana_lh;
    mana_lh.start_ns = t0;
    mana_lh.owner_pid = getpid();
    env_str(mana_lh.coord_rc, sizeof mana_lh.coord_rc, "MANA_COORD_RC", "");
    if (getrandom(&mana_lh.token, sizeof mana_lh.token, 0) != (ssize_t)sizeof mana_lh.token || !mana_lh.token)
        mana_lh.token = ((uint64_t)t0 * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)getpid() ^ 1;
    mana_lh.had_glibc_tunables = orig_had_tunables;
    snprintf(mana_lh.orig_glibc_tunables, sizeof mana_lh.orig_glibc_tunables, "%s", orig_tunables);
    lh_read_settings();
    read_exec_settings(argc >= 2 && strcmp(argv[1], "--exec") == 0);
    record_inherited_fds();
    mana_log_setup("lower-half", mana_lh.settings.debug, mana_lh.settings.timing, mana_lh.settings.quiet);

    if (argc >= 2 && strcmp(argv[1], "--restore") == 0) {
        if (argc != 3) { mana_err("usage: lower-half --restore DIR"); return 2; }
        return lh_restore(argv[2]);
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: lower-half PROGRAM [ARGS...]\n       lower-half --restore DIR\n"
               "       lower-half --check IMAGE   check an image against the format's rules, restore nothing\n"
               "Normally run by mana_launch / mana_restart; see docs/architecture.md.\n");
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--exec") == 0) {
        /* lower-half --exec PATH ARGV0 ARGS...: PATH as execve takes it, the program's own argv */
        if (argc < 4) { mana_err("usage: lower-half --exec PATH ARGV0 [ARGS...]"); return 2; }
        lh_exec_path = argv[2];
        return lh_launch(argc - 3, argv + 3, environ);
    }
    if (argc >= 2 && strcmp(argv[1], "--") == 0) { argv++; argc--; }
    if (argc < 2) { mana_err("usage: lower-half PROGRAM [ARGS...] | lower-half --restore DIR"); return 2; }
    lh_launch_pause();
    return lh_launch(argc - 1, argv + 1, environ);
}
