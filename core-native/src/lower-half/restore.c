/*
 * restore.c - `lower-half --restore DIR`: bring back the upper half of a checkpoint image.
 *
 * Order (docs/architecture.md, "Restart"):
 *   pick DIR/ckpt_rank_N/ (newest generation, no *.tmp); check the image's metadata against the
 *   format's rules (image_check.c, shared with `lower-half --check`); restore files (placeholders first); pause level 1; reserve every saved
 *   range PROT_NONE with MAP_FIXED_NOREPLACE; read regions back (CRC checked) at their addresses;
 *   check/move [vdso]/[vvar]; pause level 2; signal handlers; threads (raw clone, parked on a futex);
 *   pause level 3; itimers; new lh_info into the upper half; pause level 4; release the threads and
 *   resume the main one by rt_sigreturn on its saved signal frame.
 *
 * This runs on the lower half's libc, which is fine until the last step: the upper half's libc is
 * never called.  The code after the FS switch (lh_thread_boot) uses raw system calls only.
 */
#define _GNU_SOURCE
#include "lower_half.h"
#include "mana_sys.h"
#include "mana_util.h"
#include "mana_ctx.h"
#include "mana/image_format.h"
#include "image_check.h"
#include "restore_zstd.h"
#include "fault_sig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <asm/prctl.h>
#include <limits.h>

#define PAGE 4096UL

/* ---- thread boot ---- */

#define BOOT_STACK    (64 * 1024)
#define BOOT_SIGFRAME 1
#define BOOT_CTX      2

struct lh_boot {
    int      kind;
    int      is_main;
    uint64_t uc;
    uint64_t ctx;
    uint64_t robust, robust_len;
    stack_t  alt;
    int      alt_set;
    uint64_t sigmask;
    uint64_t fs;
    uint64_t ctid;
};

static volatile int boot_go;           /* threads wait while 0 */

long lh_clone(unsigned long flags, void *stack, int *ptid, int *ctid, unsigned long tls, struct lh_boot *b);
long lh_clone3(void *args, unsigned long size, struct lh_boot *b);

/* struct clone_args of clone3(2) (Linux 5.5+ layout, with set_tid). */
struct lh_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size;
};

static int keep_tids = -1;     /* clone3 with set_tid works here (1), does not (0), not tried (-1) */
__attribute__((noreturn)) void lh_sigreturn(uint64_t uc);
__attribute__((noreturn, used)) void lh_thread_boot(struct lh_boot *b);

/* Runs on the upper half's TLS (set by clone, or just below for the main thread): raw system calls
 * only, no libc, no stack protector. */
/* One fixed line to stderr without libc (the thread already runs on the upper TLS). */
static void boot_say(const char *msg)
{
    size_t n = 0;
    while (msg[n]) n++;
    mana_write_all(2, msg, n);
}

__attribute__((noreturn, used)) void lh_thread_boot(struct lh_boot *b)
{
    if (!b->is_main) {
        while (__atomic_load_n(&boot_go, __ATOMIC_SEQ_CST) == 0)
            mana_futex_wait(&boot_go, 0);
    } else {
        if (mana_sys2(SYS_arch_prctl, ARCH_SET_FS, (long)b->fs) != 0) {
            boot_say("lower-half: cannot restart: arch_prctl(ARCH_SET_FS) failed\n");
            mana_sys1(SYS_exit_group, 1);
        }
        if (b->ctid) {
            long tid = mana_sys1(SYS_set_tid_address, (long)b->ctid);
            *(volatile int *)b->ctid = (int)tid;
        }
    }
    if (b->robust && mana_sys2(SYS_set_robust_list, (long)b->robust, (long)b->robust_len) != 0)
        boot_say("lower-half: warning: a restored thread has no robust-mutex list (set_robust_list failed)\n");
    if (b->alt_set && mana_sys2(SYS_sigaltstack, (long)&b->alt, 0) != 0)
        boot_say("lower-half: warning: cannot restore a thread's alternate signal stack\n");
    if (b->kind == BOOT_SIGFRAME) lh_sigreturn(b->uc);
    if (mana_sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&b->sigmask, 0, 8) != 0)
        boot_say("lower-half: warning: cannot restore the checkpoint thread's signal mask\n");
    mana_ctx_resume((const struct mana_ctx *)b->ctx, 1);
}

/* ---- errors ---- */

static const char *img_path_for_errors = "";
static const char *restore_dir_arg = "";

#define FAIL(...) do { mana_err(__VA_ARGS__); return 1; } while (0)

/* ---- image reading (the checks: image_check.c) ---- */

static int read_exact(int fd, void *buf, size_t len, uint64_t off)
{
    char *p = buf;
    while (len) {
        ssize_t r = pread(fd, p, len, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        off += (uint64_t)r;
        len -= (size_t)r;
    }
    return 0;
}

/* The plain lower half read (and so consumed) the coordinator secret the launcher passed it; the lower
 * half of the image's MPI it hands over to needs it too.  It goes on again as the launcher passes it
 * (coord/secret_fd.h), on a memfd instead of a deleted file: never in the environment, read and
 * closed by the next lower half.  Without this, a restarted MPI rank had no secret and its first
 * registration was refused; it only got in later through the status file, and not at all when no
 * status file named the coordinator. */
static int pass_secret_on(void)
{
    const char *s = mana_lh.settings.coord_secret;
    size_t n = strnlen(s, sizeof mana_lh.settings.coord_secret);
    if (!n) return 0;
    int fd = memfd_create("mana-coord-secret", 0);      /* inherited by the exec, closed by the reader */
    if (fd < 0) return -1;
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, s + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { close(fd); return -1; }
        off += (size_t)w;
    }
    char num[16];
    snprintf(num, sizeof num, "%d", fd);
    if (setenv("MANA_COORD_SECRET_FD", num, 1) != 0) { close(fd); return -1; }
    return 0;
}

/* Every check of docs/image-format.md but the payload CRCs (load_regions checks those as it reads),
 * then what this restart needs: the image is the program its name says, under this lower half's MPI. */
static int open_image(struct mana_image *im, const char *path)
{
    if (mana_image_open(im, path) != 0 || mana_image_check_name(im) != 0) FAIL("cannot restart: %s", im->err);
    const struct mana_img_header *h = &im->h;
    char mpi[sizeof h->mpi + 1];
    memcpy(mpi, h->mpi, sizeof h->mpi);
    mpi[sizeof h->mpi] = 0;
    if (!mpi[0]) snprintf(mpi, sizeof mpi, "none");
    if (strcmp(mpi, lh_mpi_name) != 0) {
        if (strcmp(lh_mpi_name, "none") == 0 && (strcmp(mpi, "openmpi") == 0 || strcmp(mpi, "mpich") == 0)) {
            /* The plain lower half hands an MPI image to the lower half built against its MPI. */
            static char self[4096], next[4200];
            ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
            if (n > 0) {
                self[n] = 0;
                snprintf(next, sizeof next, "%s-%s", self, mpi);
                char *args[] = { next, "--restore", (char *)restore_dir_arg, NULL };
                if (pass_secret_on() != 0)
                    FAIL("cannot restart: cannot pass the coordinator secret on to %s: %s", next, strerror(errno));
                execv(next, args);
                FAIL("cannot restart: %s was written under %s and %s cannot be run: %s", path, mpi, next, strerror(errno));
            }
        }
        FAIL("cannot restart: %s was written under MPI '%s'; this lower half runs MPI '%s' (restart with the same MPI)",
             path, mpi, lh_mpi_name);
    }
    return 0;
}

/* ---- choosing the image ---- */

#define MAX_GENS 64
/* Complete generations in one rank directory (up to MAX_GENS, highest kept); stale *.tmp names are
 * added to `stale` when given. */
static int list_generations(const char *rankdir, uint32_t *gens, char (*names)[256], char (*stale)[256], int *nstale)
{
    DIR *d = opendir(rankdir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 9 && strcmp(e->d_name + l - 9, ".mana.tmp") == 0) {
            if (stale && *nstale < 16) snprintf(stale[(*nstale)++], 256, "%s", e->d_name);
            continue;
        }
        uint32_t g = mana_image_generation(e->d_name);
        if (!g) continue;
        int slot = n < MAX_GENS ? n++ : -1;
        if (slot < 0) {                    /* keep the highest MAX_GENS */
            int lo = 0;
            for (int i = 1; i < n; i++) if (gens[i] < gens[lo]) lo = i;
            if (gens[lo] >= g) continue;
            slot = lo;
        }
        gens[slot] = g;
        if (names) snprintf(names[slot], 256, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

/* Stale *.tmp files of this rank, moved aside only once the restart is sure to go ahead. */
static char stale_tmp[16][256];
static int n_stale_tmp;
static char stale_dir[4200];

/*
 * The newest complete generation of this rank that every rank directory beside it also has (a
 * checkpoint killed during its commit leaves generation N complete in some directories and only a
 * *.tmp in others: those restart from N-1, and so must everyone).  A *.tmp is an image whose writer
 * died: it is moved aside later (move_stale_aside), with a warning; only when no complete generation
 * exists is the restart refused.
 */
static int pick_image(const char *dir, int rank, char *path, size_t len)
{
    struct stat st;
    if (stat(dir, &st) != 0) FAIL("cannot restart: restart directory %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) FAIL("cannot restart: %s is not a directory", dir);
    snprintf(stale_dir, sizeof stale_dir, "%s/ckpt_rank_%d", dir, rank);
    static uint32_t gens[MAX_GENS], other[MAX_GENS];
    static char names[MAX_GENS][256];
    int n = list_generations(stale_dir, gens, names, stale_tmp, &n_stale_tmp);
    if (n < 0) FAIL("cannot restart: no checkpoint of rank %d in %s (%s: %s)", rank, dir, stale_dir, strerror(errno));
    if (n == 0 && n_stale_tmp)
        FAIL("cannot restart: %s/%s is an incomplete checkpoint (its writer died) and there is no complete one",
             stale_dir, stale_tmp[0]);
    if (n == 0) FAIL("cannot restart: no checkpoint image (ckpt_*_gen<N>.mana) in %s", stale_dir);
    /* generations every other visible rank directory has too */
    int ok[MAX_GENS];
    for (int i = 0; i < n; i++) ok[i] = 1;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int r;
        char tail;
        if (sscanf(e->d_name, "ckpt_rank_%d%c", &r, &tail) != 1 || r == rank) continue;
        char od[4400];
        snprintf(od, sizeof od, "%s/%s", dir, e->d_name);
        int m = list_generations(od, other, NULL, NULL, NULL);
        if (m < 0) continue;
        for (int i = 0; i < n; i++) {
            int found = 0;
            for (int k = 0; k < m; k++) if (other[k] == gens[i]) found = 1;
            if (!found) ok[i] = 0;
        }
    }
    if (d) closedir(d);
    int best = -1, newest = 0;
    for (int i = 0; i < n; i++) {
        if (gens[i] > gens[newest]) newest = i;
        if (ok[i] && (best < 0 || gens[i] > gens[best])) best = i;
    }
    if (best < 0) {
        mana_warn("no generation is complete in every rank directory of %s; rank %d restarts from its newest, %u",
                  dir, rank, gens[newest]);
        best = newest;
    } else if (best != newest) {
        mana_warn("rank %d restarts from generation %u, the newest that every rank has (it also has %u)", rank,
                  gens[best], gens[newest]);
    }
    snprintf(path, len, "%s/%s", stale_dir, names[best]);
    return 0;
}

static void move_stale_aside(void)
{
    for (int i = 0; i < n_stale_tmp; i++) {
        char from[4500], to[4520];
        if ((size_t)snprintf(from, sizeof from, "%.4200s/%.255s", stale_dir, stale_tmp[i]) >= sizeof from) continue;
        if ((size_t)snprintf(to, sizeof to, "%.4500s.stale", from) >= sizeof to) continue;
        if (rename(from, to) == 0)
            mana_warn("%s is an incomplete checkpoint (its writer died): moved aside to %s; restarting from the "
                      "newest complete one", from, to);
        else
            mana_warn("%s is an incomplete checkpoint (its writer died) and cannot be moved aside: %s", from,
                      strerror(errno));
    }
}

/* ---- files ---- */

/* Descriptor numbers that hold our /dev/null placeholders (not the new launcher's). */
static unsigned char placeholder[65536 / 8];
static int is_placeholder(int fd)
{
    return fd >= 0 && fd < (int)sizeof placeholder * 8 && (placeholder[fd / 8] & (1u << (fd % 8)));
}

/* Saved contents of files (FILEDATA), by descriptor: the records image_check.c read. */
static const struct mana_image_saved *saved;
static uint32_t n_saved;

static const struct mana_image_saved *saved_for(int fd)
{
    for (uint32_t i = 0; i < n_saved; i++) if (saved[i].fd == fd) return &saved[i];
    return NULL;
}

/* Put saved contents back into path (created again if gone), then its size and mtime. */
static int write_back(int imgfd, const struct mana_image_saved *sf, const struct mana_img_file *f, const char *path)
{
    int out = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, f->mode & 07777);
    if (out < 0) FAIL("cannot restart: cannot write %s back (fd %d): %s", path, f->fd, strerror(errno));
    static char buf[1 << 20];
    uint64_t at = sf->data_at, pos = 0;
    for (uint64_t left = (uint64_t)sf->size; left;) {
        size_t c = left < sizeof buf ? left : sizeof buf;
        if (read_exact(imgfd, buf, c, at) != 0 || pwrite(out, buf, c, (off_t)pos) != (ssize_t)c) {
            close(out);
            FAIL("cannot restart: cannot write %s back (fd %d): %s", path, f->fd, strerror(errno));
        }
        at += c;
        pos += c;
        left -= c;
    }
    if (ftruncate(out, sf->size) != 0 || fsync(out) != 0) {
        close(out);
        FAIL("cannot restart: cannot write %s back (fd %d): %s", path, f->fd, strerror(errno));
    }
    /* The contents are back and durable; the mtime only lets a later restart from this image see the
     * file as unchanged.  Without it that restart would refuse (or need --force-files): a warning. */
    struct timespec ts[2] = { { 0, UTIME_OMIT }, { f->mtime_ns / 1000000000LL, f->mtime_ns % 1000000000LL } };
    if (futimens(out, ts) != 0)
        mana_warn("%s (fd %d) is back as at the checkpoint but keeps a new modification time: %s", path, f->fd,
                  strerror(errno));
    if (close(out) != 0)        /* after a successful fsync nothing written can be lost */
        mana_dbg("close of %s after writing it back: %s", path, strerror(errno));
    mana_dbg("fd %d: %s written back from the image (%lld bytes)", f->fd, path, (long long)sf->size);
    return 0;
}

static int is_deleted_path(const char *path)
{
    size_t plen = strlen(path);
    return plen > 10 && strcmp(path + plen - 10, " (deleted)") == 0;
}

/* A database's companion files that the run which died created after the checkpoint (sqlite's hot
 * journal: left by a transaction killed half-way, it would be "rolled back" into the database just
 * written back, replaying that run's state).  Those the image knows (open at the checkpoint) came back
 * with it; any other is renamed *.mana-stale, with a warning. */
static int set_aside_companions(struct mana_image_file *fr, uint32_t n, const char *path)
{
    static const char *suffix[] = { "-journal", "-wal" };
    for (size_t k = 0; k < sizeof suffix / sizeof *suffix; k++) {
        char c[4200], to[4300];
        if ((size_t)snprintf(c, sizeof c, "%s%s", path, suffix[k]) >= sizeof c) continue;
        int known = 0;
        for (uint32_t i = 0; i < n; i++) if (strcmp(fr[i].path, c) == 0) known = 1;
        struct stat st;
        if (known || stat(c, &st) != 0) continue;
        snprintf(to, sizeof to, "%s.mana-stale", c);
        /* Left in place, the journal would be replayed into the database just written back: refused. */
        if (rename(c, to) != 0)
            FAIL("cannot restart: %s was created after the checkpoint by the run that died and cannot be moved aside "
                 "(%s): it would be replayed into %s", c, strerror(errno), path);
        mana_warn("%s was created after the checkpoint by the run that died: moved aside to %s (%s is back as "
                  "it was at the checkpoint)", c, to, path);
    }
    return 0;
}

/* Check every file before anything is changed: a refused restart changes nothing. */
static int check_files(struct mana_image_file *fr, uint32_t n, int force)
{
    for (uint32_t i = 0; i < n; i++) {
        struct mana_img_file *f = &fr[i].f;
        const char *path = fr[i].path;
        if (f->fd <= 2 || (f->fd_flags & MANA_FD_INHERITED) || f->kind != MANA_FILE_REGULAR || is_deleted_path(path))
            continue;
        int acc = f->open_flags & O_ACCMODE;
        int writable = acc == O_WRONLY || acc == O_RDWR;
        const struct mana_image_saved *sf = writable ? saved_for(f->fd) : NULL;
        struct stat st;
        if (stat(path, &st) != 0) {
            if (sf) continue;                             /* written back from the image */
            FAIL("cannot restart: file %s (fd %d) is gone: %s", path, f->fd, strerror(errno));
        }
        int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        int changed = st.st_size != f->size || mtime != f->mtime_ns;
        if (!writable) {
            if (changed)
                FAIL("cannot restart: file %s (fd %d) changed since the checkpoint (size %lld, was %lld%s)", path,
                     f->fd, (long long)st.st_size, (long long)f->size, mtime != f->mtime_ns ? "; modified" : "");
            continue;
        }
        if (sf || !changed) continue;
        if (st.st_size < f->size && !force)
            FAIL("cannot restart: file %s (fd %d) is shorter than at the checkpoint (%lld < %lld bytes)", path, f->fd,
                 (long long)st.st_size, (long long)f->size);
        if (!(f->open_flags & O_APPEND) && !force)
            FAIL("cannot restart: file %s (fd %d) was written after the checkpoint and its contents are not in the "
                 "image (larger than MANA_SAVE_FILES_MAX at launch); mana_restart --force-files uses it as it is now",
                 path, f->fd);
    }
    return 0;
}

/* /dev/null in place of what cannot be restored: one line at the end names them all. */
static char lost_list[1024];
static int n_lost;
static void note_lost(int fd, const char *path)
{
    size_t k = strlen(lost_list);
    if (k < sizeof lost_list - 80)
        snprintf(lost_list + k, sizeof lost_list - k, "%sfd %d (%s)", n_lost ? ", " : "", fd, path);
    n_lost++;
}

/* stdin: the new launcher's, but a regular file that is the checkpoint's own goes on from its offset. */
static void restore_stdin(struct mana_image_file *fr, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct mana_img_file *f = &fr[i].f;
        if (f->fd != 0) continue;
        struct stat st;
        if (fstat(0, &st) != 0) return;
        if (f->kind == MANA_FILE_REGULAR) {
            if (S_ISREG(st.st_mode) && st.st_ino == f->inode && st.st_dev == f->dev) {
                if (lseek(0, f->offset, SEEK_SET) == f->offset)
                    mana_dbg("stdin (%s) goes on from offset %lld", fr[i].path, (long long)f->offset);
                else
                    mana_warn("stdin: cannot seek %s to its checkpoint offset %lld: %s", fr[i].path,
                              (long long)f->offset, strerror(errno));
            } else if (f->offset) {
                mana_warn("stdin was %s at the checkpoint, read up to offset %lld; it is another file now, read "
                          "from where it is", fr[i].path, (long long)f->offset);
            }
        } else if (f->kind == MANA_FILE_PIPE || f->kind == MANA_FILE_SOCKET) {
            mana_warn("stdin was a %s at the checkpoint (%s): what the program had not read of it then is not in "
                      "the image; it reads the new stdin now", f->kind == MANA_FILE_PIPE ? "pipe" : "socket",
                      fr[i].path);
        }
        return;
    }
}

static int restore_files(struct mana_image *im, struct mana_image_file *fr, uint32_t n)
{
    int force = getenv("MANA_RESTART_FORCE_FILES") && strcmp(getenv("MANA_RESTART_FORCE_FILES"), "0") != 0;
    if (check_files(fr, n, force) != 0) return 1;
    /* From here on the restart goes ahead. */
    move_stale_aside();
    restore_stdin(fr, n);
    /* Writable files first: they may truncate a file that another descriptor reads. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            struct mana_img_file *f = &fr[i].f;
            const char *path = fr[i].path;
            int fd = f->fd;
            if (fd <= 2) continue;                     /* the new launcher's stdin/stdout/stderr */
            if (f->fd_flags & MANA_FD_INHERITED) {
                /* The launcher's, not the program's: the new launcher's if it has this number open,
                 * else the same path without any check (never truncated), else /dev/null. */
                if (pass != 0) continue;
                if (fcntl(fd, F_GETFD) >= 0 && !is_placeholder(fd)) continue;
                int nfd = -1;
                if ((f->kind == MANA_FILE_REGULAR || f->kind == MANA_FILE_CHAR || f->kind == MANA_FILE_DIR) && path[0] == '/')
                    nfd = open(path, (f->open_flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC)) | O_NOCTTY);
                if (nfd >= 0 && f->kind == MANA_FILE_REGULAR && f->offset && lseek(nfd, f->offset, SEEK_SET) != f->offset) {
                    /* at offset 0 the program would write over the start of the launcher's file */
                    mana_warn("fd %d (%s): cannot seek to its checkpoint offset %lld: %s", fd, path, (long long)f->offset,
                              strerror(errno));
                    close(nfd);
                    nfd = -1;
                    note_lost(fd, path);
                }
                if (nfd < 0) nfd = open("/dev/null", O_RDWR);
                if (nfd < 0) FAIL("cannot restart: cannot open /dev/null: %s", strerror(errno));
                if (nfd != fd) {
                    if (dup3(nfd, fd, (f->fd_flags & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
                        FAIL("cannot restart: cannot restore fd %d: %s", fd, strerror(errno));
                    close(nfd);
                }
                mana_dbg("fd %d (%s) was inherited from the launcher: reopened leniently", fd, path);
                continue;
            }
            int acc = f->open_flags & O_ACCMODE;
            int writable = acc == O_WRONLY || acc == O_RDWR;
            if ((f->kind == MANA_FILE_REGULAR && writable) != (pass == 0)) continue;
            int nfd = -1;
            int oflags = (f->open_flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC | O_NOCTTY)) | O_NOCTTY;
            if (f->kind == MANA_FILE_REGULAR && is_deleted_path(path)) {
                /* unlinked already at the checkpoint (tmpfile()): its contents are not in the image */
                note_lost(fd, path);
                nfd = open("/dev/null", O_RDWR);
            } else if (f->kind == MANA_FILE_REGULAR) {
                const struct mana_image_saved *sf = writable ? saved_for(fd) : NULL;
                if (sf) {
                    if (write_back(im->fd, sf, f, path) != 0) return 1;
                    if (set_aside_companions(fr, n, path) != 0) return 1;
                } else if (writable) {
                    struct stat st;
                    if (stat(path, &st) != 0)
                        FAIL("cannot restart: file %s (fd %d) is gone: %s", path, fd, strerror(errno));
                    int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
                    if (st.st_size > f->size || mtime != f->mtime_ns) {
                        /* appended to after the checkpoint by the run that died: roll it back */
                        if (st.st_size > f->size && truncate(path, f->size) != 0)
                            FAIL("cannot restart: cannot truncate %s to its checkpoint size: %s", path, strerror(errno));
                        struct timespec ts[2] = { { 0, UTIME_OMIT },
                                                  { f->mtime_ns / 1000000000LL, f->mtime_ns % 1000000000LL } };
                        /* The contents are right; only a later restart from this image would see the
                         * file as changed (and refuse without --force-files): a warning. */
                        if (utimensat(AT_FDCWD, path, ts, 0) != 0)
                            mana_warn("%s (fd %d) is rolled back to its checkpoint size but keeps a new modification "
                                      "time: %s", path, fd, strerror(errno));
                        mana_dbg("fd %d: %s rolled back to %lld bytes", fd, path, (long long)f->size);
                    }
                }
                nfd = open(path, oflags);
                if (nfd < 0) FAIL("cannot restart: cannot open %s (fd %d): %s", path, fd, strerror(errno));
            } else if (f->kind == MANA_FILE_DIR) {
                nfd = open(path, O_RDONLY | O_DIRECTORY);
                if (nfd < 0) FAIL("cannot restart: directory %s (fd %d): %s", path, fd, strerror(errno));
            } else if (f->kind == MANA_FILE_CHAR && path[0] == '/') {
                nfd = open(path, oflags);
                if (nfd < 0) {
                    note_lost(fd, path);
                    nfd = open("/dev/null", O_RDWR);
                }
            } else {
                note_lost(fd, path);
                nfd = open("/dev/null", O_RDWR);
            }
            if (nfd < 0) FAIL("cannot restart: cannot open /dev/null: %s", strerror(errno));
            if (nfd != fd) {
                if (dup3(nfd, fd, (f->fd_flags & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
                    FAIL("cannot restart: cannot restore fd %d: %s", fd, strerror(errno));
                close(nfd);
            } else if ((f->fd_flags & FD_CLOEXEC) && fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
                /* the program keeps running; only a child it execs would inherit the descriptor */
                mana_warn("fd %d (%s): cannot set close-on-exec: %s", fd, path, strerror(errno));
            }
            if ((f->kind == MANA_FILE_REGULAR || f->kind == MANA_FILE_DIR) && f->offset &&
                lseek(fd, f->offset, SEEK_SET) != f->offset)
                FAIL("cannot restart: cannot seek %s (fd %d) to %lld: %s", path, fd, (long long)f->offset,
                     strerror(errno));
        }
    }
    if (n_lost)
        mana_warn("%d descriptor%s cannot be restored (pipes, sockets, unlinked files...) and read%s /dev/null now: %s",
                  n_lost, n_lost == 1 ? "" : "s", n_lost == 1 ? "s" : "", lost_list);
    return 0;
}

/* ---- memory ---- */

static const char *what_is_at(uint64_t start, uint64_t end, char *buf, size_t len)
{
    struct mana_map *m;
    snprintf(buf, len, "another mapping");
    int n = lh_read_maps(&m);
    for (int i = 0; i < n; i++)
        if (m[i].start < end && start < m[i].end) {
            snprintf(buf, len, "%#lx-%#lx %s", (unsigned long)m[i].start, (unsigned long)m[i].end,
                     m[i].name[0] ? m[i].name : "(anonymous)");
            break;
        }
    return buf;
}

static int is_upper(const struct mana_img_region *r)
{
    return !(r->flags & (MANA_REG_LOWER | MANA_REG_VDSO | MANA_REG_VVAR));
}

static int reserve_regions(struct mana_image_region *regs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct mana_img_region *r = &regs[i].r;
        if (!is_upper(r)) continue;
        void *m = mmap((void *)r->start, r->end - r->start, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (m == MAP_FAILED || (uint64_t)m != r->start) {
            char what[512];
            int e = errno;
            if (m != MAP_FAILED) munmap(m, r->end - r->start);
            FAIL("cannot restart: address range %#lx-%#lx of the image (%s) is taken by %s in the new process (%s)",
                 (unsigned long)r->start, (unsigned long)r->end, regs[i].name[0] ? regs[i].name : "anonymous",
                 what_is_at(r->start, r->end, what, sizeof what), strerror(e));
        }
    }
    return 0;
}

/* Runs at least this long are mapped from the image file rather than read (bounds the number of
 * mappings a fragmented region can create). */
#define MAP_RUN_MIN (256UL * 1024)

/* ---- incremental chains (docs/image-format.md, "Incremental images") ---- */

/* chain[0] is the full image, chain[n-1] the one restarted from (the caller's). */
static struct mana_image chain_im[MANA_IMG_MAX_CHAIN];
static struct mana_image *chain[MANA_IMG_MAX_CHAIN];
static int chain_n;

/* Open the parents of `top` (in its folder) down to a full image: each must be the image `top`'s
 * chain names (generation, header CRC, size), of the same program, rank and MPI. */
static int open_chain(struct mana_image *top, const char *path)
{
    static char dir[4400], ppath[4700];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    struct mana_image *tmp[MANA_IMG_MAX_CHAIN];
    int n = 0;
    tmp[n++] = top;
    struct mana_image *child = top;
    while (child->h.flags & MANA_IMG_F_INCREMENTAL) {
        if (n >= (int)MANA_IMG_MAX_CHAIN)
            FAIL("cannot restart: %s: the chain of incremental images is longer than %u", path, MANA_IMG_MAX_CHAIN);
        const struct mana_img_parent *pr = &child->parent;
        snprintf(ppath, sizeof ppath, "%s/%s", dir, child->parent_name);
        struct mana_image *p = &chain_im[n];
        struct stat pst;
        if (stat(ppath, &pst) != 0 && errno == ENOENT)
            FAIL("cannot restart: %s is incremental and needs %s (generation %u), which is gone (an image of the "
                     "chain was deleted by hand?); no image of this chain can be restarted", child->path, ppath,
                 pr->generation);
        if (mana_image_open(p, ppath) != 0 || mana_image_check_name(p) != 0)
            FAIL("cannot restart: %s is incremental and needs %s, which cannot be used: %s", child->path, ppath, p->err);
        if (p->h.generation != pr->generation || p->h.header_crc != pr->header_crc || p->h.file_size != pr->file_size)
            FAIL("cannot restart: %s is not the parent %s was written on (generation %u, header CRC 0x%08x, %llu bytes; "
                 "found generation %u, 0x%08x, %llu bytes): replaced or rewritten", ppath, child->path, pr->generation,
                 pr->header_crc, (unsigned long long)pr->file_size, p->h.generation, p->h.header_crc,
                 (unsigned long long)p->h.file_size);
        uint32_t want_depth = (p->h.flags & MANA_IMG_F_INCREMENTAL) ? p->parent.depth + 1 : 1;
        if (pr->depth != want_depth)
            FAIL("cannot restart: %s is corrupt: its PARENT record says depth %u, its parent's chain has %u", child->path,
                 pr->depth, want_depth);
        if (p->h.rank != top->h.rank || p->h.nranks != top->h.nranks ||
            memcmp(p->h.mpi, top->h.mpi, sizeof p->h.mpi) != 0 || memcmp(p->h.program, top->h.program, sizeof p->h.program) != 0)
            FAIL("cannot restart: %s (parent of %s) is of another program, rank or MPI", ppath, child->path);
        p->path = strdup(ppath);
        if (!p->path) FAIL("cannot restart: out of memory");
        tmp[n++] = p;
        child = p;
    }
    chain_n = n;
    for (int i = 0; i < n; i++) chain[i] = tmp[n - 1 - i];
    if (n > 1) mana_dbg("restoring a chain of %d images: generations %u (full) to %u", n, chain[0]->h.generation,
                        top->h.generation);
    return 0;
}

/* Regions the image's pages are put into: upper half, not guards, and not shared file mappings that
 * were mapped from their file again. */
static unsigned char *loadable;

/* The region of regs[0..n) (sorted, disjoint) that holds addr, or the index of the first one above
 * it with *inside = 0. */
static uint32_t region_at(const struct mana_image_region *regs, uint32_t n, uint64_t addr, int *inside)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (regs[mid].r.end <= addr) lo = mid + 1;
        else hi = mid;
    }
    *inside = lo < n && regs[lo].r.start <= addr;
    return lo;
}

static char skip_buf[1 << 20];

/* Put `len` bytes at file offset `off` of image `im` to memory at `addr`, where a loadable region
 * of the restored map (regs) is; bytes anywhere else are read only for the CRC. */
static int put_bytes(struct mana_image *im, const struct mana_image_region *regs, uint32_t nregs, uint64_t addr,
                     uint64_t len, uint64_t off, int map_ok, uint32_t *crc)
{
    while (len) {
        int inside;
        uint32_t k = region_at(regs, nregs, addr, &inside);
        uint64_t piece;
        if (inside && loadable[k]) {
            piece = regs[k].r.end - addr < len ? regs[k].r.end - addr : len;
            void *dst = (void *)addr;
            int shared = (regs[k].r.flags & MANA_REG_SHARED) != 0;
            if (map_ok && !shared && piece >= MAP_RUN_MIN) {
                /* Large runs: map the image's pages (page-aligned payloads) instead of copying
                 * them; private, so the process's writes never reach the file. */
                void *fm = mmap(dst, piece, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, im->fd, (off_t)off);
                if (fm == MAP_FAILED)
                    FAIL("cannot restart: cannot map %s at %p: %s", im->path, dst, strerror(errno));
                if (madvise(dst, piece, MADV_WILLNEED) != 0)
                    mana_dbg("madvise(WILLNEED) at %p: %s (only slower)", dst, strerror(errno));
            } else if (read_exact(im->fd, dst, piece, off) != 0) {
                FAIL("cannot restart: cannot read %s: %s", im->path, strerror(errno));
            }
            *crc = mana_crc32c_update(*crc, dst, piece);
        } else {
            uint64_t stop = inside ? regs[k].r.end : k < nregs ? regs[k].r.start : addr + len;
            piece = stop - addr < len ? stop - addr : len;
            if (piece > sizeof skip_buf) piece = sizeof skip_buf;
            if (read_exact(im->fd, skip_buf, piece, off) != 0)
                FAIL("cannot restart: cannot read %s: %s", im->path, strerror(errno));
            *crc = mana_crc32c_update(*crc, skip_buf, piece);
        }
        addr += piece;
        off += piece;
        len -= piece;
    }
    return 0;
}

/* Where a compressed region's output goes: its runs in order, into the loadable regions of the map. */
struct zsink {
    const char *path;                       /* the image, for errors */
    const struct mana_image_region *g;      /* the image's region */
    const struct mana_image_region *regs;   /* the restored map */
    uint32_t nregs;
    uint32_t run;                           /* current run, and bytes of it done */
    uint64_t done;
};

static int zsink_put(void *ctx, const void *buf, size_t n)
{
    struct zsink *z = ctx;
    const char *p = buf;
    while (n) {
        if (z->run >= z->g->r.run_count) {
            mana_err("cannot restart: %s is corrupt (compressed region %#lx-%#lx holds more than its runs)", z->path,
                     (unsigned long)z->g->r.start, (unsigned long)z->g->r.end);
            return 1;
        }
        const struct mana_img_run *ru = &z->g->runs[z->run];
        uint64_t left = ru->page_count * PAGE - z->done, piece = n < left ? n : left;
        uint64_t addr = z->g->r.start + ru->first_page * PAGE + z->done;
        /* into the loadable regions only (a region of an older image may lie outside today's map) */
        for (uint64_t a = addr; a < addr + piece;) {
            int inside;
            uint32_t k = region_at(z->regs, z->nregs, a, &inside);
            uint64_t stop = inside ? z->regs[k].r.end : k < z->nregs ? z->regs[k].r.start : addr + piece;
            if (stop > addr + piece) stop = addr + piece;
            if (inside && loadable[k]) {
                mana_prefault_write((void *)a, stop - a);
                memcpy((void *)a, p + (a - addr), stop - a);
            }
            a = stop;
        }
        p += piece;
        n -= piece;
        z->done += piece;
        if (z->done == ru->page_count * PAGE) { z->run++; z->done = 0; }
    }
    return 0;
}

/* A compressed region decompressed frame by frame on several threads (restore_zstd.c): its stored
 * bytes' offsets, run by run, and where they go. */
struct zdest {
    struct zsink z;                         /* run and done unused: each piece positions its own copy */
    uint64_t *prefix;                       /* prefix[k]: stored bytes before run k; [run_count]: all */
};

static uint32_t run_of(const struct zdest *d, uint64_t off)
{
    uint32_t lo = 0, hi = d->z.g->r.run_count;      /* the last k with prefix[k] <= off */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->prefix[mid] <= off) lo = mid;
        else hi = mid;
    }
    return lo;
}

static void *zd_direct(void *ctx, uint64_t off, uint64_t len)
{
    const struct zdest *d = ctx;
    if (!len) return NULL;
    uint32_t k = run_of(d, off);
    if (k >= d->z.g->r.run_count || off + len > d->prefix[k + 1]) return NULL;     /* spans runs */
    uint64_t addr = d->z.g->r.start + d->z.g->runs[k].first_page * PAGE + (off - d->prefix[k]);
    int inside;
    uint32_t i = region_at(d->z.regs, d->z.nregs, addr, &inside);
    if (!inside || !loadable[i] || d->z.regs[i].r.end < addr + len) return NULL;
    return (void *)addr;
}

static int zd_scatter(void *ctx, uint64_t off, const void *buf, uint64_t len)
{
    const struct zdest *d = ctx;
    struct zsink z = d->z;
    z.run = run_of(d, off);
    z.done = off - d->prefix[z.run];
    return zsink_put(&z, buf, (size_t)len);
}

/* 0: region g decompressed into place on threads, *crc its CRC; 1: not done (stream it); -1 failed (said). */
static int apply_zstd_par(struct mana_image *im, const struct mana_image_region *g,
                          const struct mana_image_region *regs, uint32_t nregs, uint32_t *crc)
{
    static int threads;
    if (!threads) threads = mana_zstd_par_threads();
    uint64_t at = g->r.payload_offset, len = g->payload_len;
    /* one thread (MANA_COMPRESS_THREADS=1, or one CPU): the streaming decoder, which reads the file
     * instead of mapping it */
    if (threads < 2 || !len || at + len > im->size || at + len < at) return 1;
    uint64_t base = at & ~(PAGE - 1), skew = at - base;
    /* the payload read through the page cache, not copied (unmapped before the restore goes on) */
    long m = mana_sys6(SYS_mmap, 0, (long)(len + skew), PROT_READ, MAP_PRIVATE, im->fd, (long)base);
    if (m < 0 && m > -4096) return 1;
    mana_sys3(SYS_madvise, m, (long)(len + skew), MADV_WILLNEED);
    struct zdest d = { { im->path, g, regs, nregs, 0, 0 }, malloc(((size_t)g->r.run_count + 1) * sizeof(uint64_t)) };
    int rc = 1;
    if (d.prefix) {
        d.prefix[0] = 0;
        for (uint32_t k = 0; k < g->r.run_count; k++) d.prefix[k + 1] = d.prefix[k] + g->runs[k].page_count * PAGE;
        struct zpar_ops ops = { zd_direct, zd_scatter, &d, 0, 0 };
        char why[512];
        rc = mana_zstd_par((const char *)m + skew, (size_t)len, g->r.stored_bytes, threads, &ops, crc, why, sizeof why);
        if (rc < 0)
            mana_err("cannot restart: %s is corrupt (%s, in region %#lx-%#lx %s)", im->path, why,
                     (unsigned long)g->r.start, (unsigned long)g->r.end, g->name[0] ? g->name : "(anonymous)");
        else if (rc == 0)
            mana_dbg("region %#lx-%#lx: %u zstd frames on %d threads", (unsigned long)g->r.start,
                     (unsigned long)g->r.end, ops.frames, ops.threads);
        free(d.prefix);
    }
    mana_sys2(SYS_munmap, m, (long)(len + skew));
    return rc;
}

/* Pages [addr, addr+len) are zero now (an incremental image's zero run), where they are loadable. */
static int zero_bytes(const struct mana_image_region *regs, uint32_t nregs, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len;
    while (addr < end) {
        int inside;
        uint32_t k = region_at(regs, nregs, addr, &inside);
        if (!inside) {
            if (k >= nregs) break;
            addr = regs[k].r.start;
            continue;
        }
        uint64_t stop = regs[k].r.end < end ? regs[k].r.end : end;
        if (loadable[k]) {
            if (regs[k].r.flags & MANA_REG_SHARED) {
                memset((void *)addr, 0, stop - addr);
            } else if (mmap((void *)addr, stop - addr, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                            -1, 0) == MAP_FAILED) {
                FAIL("cannot restart: cannot map %#lx-%#lx: %s", (unsigned long)addr, (unsigned long)stop, strerror(errno));
            }
        }
        addr = stop;
    }
    return 0;
}

/* One image of the chain, applied over what the older ones put there: its stored pages, each
 * region's CRC checked, and its zero runs. */
static int apply_image(struct mana_image *im, const struct mana_image_region *regs, uint32_t nregs, int map_ok)
{
    int adv = posix_fadvise(im->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (adv) mana_dbg("posix_fadvise(SEQUENTIAL): %s (only slower)", strerror(adv));
    for (uint32_t i = 0; i < im->nregs; i++) {
        const struct mana_image_region *g = &im->regs[i];
        const struct mana_img_region *r = &g->r;
        if (r->stored_bytes && (r->flags & MANA_REG_ZSTD)) {
            uint32_t crc;
            uint64_t out = r->stored_bytes;
            int rc = apply_zstd_par(im, g, regs, nregs, &crc);
            if (rc < 0) return 1;
            if (rc > 0) {                     /* one frame of unstated size (a writer on one thread): streamed */
                struct zsink z = { im->path, g, regs, nregs, 0, 0 };
                rc = mana_zstd_crc(im, r->payload_offset, g->payload_len, &crc, &out, zsink_put, &z);
                if (rc < 0) FAIL("cannot restart: %s", im->err);
                if (rc > 0) return 1;
            }
            if (out != r->stored_bytes || crc != r->payload_crc)
                FAIL("cannot restart: %s is corrupt (checksum mismatch in compressed region %#lx-%#lx %s)", im->path,
                     (unsigned long)r->start, (unsigned long)r->end, g->name[0] ? g->name : "(anonymous)");
        } else if (r->stored_bytes) {
            uint64_t off = r->payload_offset;
            uint32_t crc = 0;
            for (uint32_t k = 0; k < r->run_count; k++) {
                uint64_t bytes = g->runs[k].page_count * PAGE;
                if (put_bytes(im, regs, nregs, r->start + g->runs[k].first_page * PAGE, bytes, off, map_ok, &crc) != 0)
                    return 1;
                off += bytes;
            }
            if (crc != r->payload_crc)
                FAIL("cannot restart: %s is corrupt (checksum mismatch in region %#lx-%#lx %s)", im->path,
                     (unsigned long)r->start, (unsigned long)r->end, g->name[0] ? g->name : "(anonymous)");
        }
        for (uint32_t k = 0; k < r->zero_run_count; k++)
            if (zero_bytes(regs, nregs, r->start + g->zero_runs[k].first_page * PAGE, g->zero_runs[k].page_count * PAGE) != 0)
                return 1;
    }
    return 0;
}

static int load_regions(struct mana_image *im, struct mana_image_region *regs, uint32_t n)
{
    (void)im;
    loadable = calloc(n ? n : 1, 1);
    if (!loadable) FAIL("cannot restart: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        struct mana_img_region *r = &regs[i].r;
        if (!is_upper(r) || (r->flags & MANA_REG_GUARD)) continue;
        uint64_t len = r->end - r->start;
        int shared = (r->flags & MANA_REG_SHARED) != 0;
        if ((r->flags & MANA_REG_FILE) && shared) {
            int ffd = open(regs[i].name, (r->prot & PROT_WRITE) ? O_RDWR : O_RDONLY);
            if (ffd < 0 && errno == ENOENT && r->stored_bytes) {
                /* The file is gone (a JVM deletes a dead JVM's hsperfdata file): the image has a copy of
                 * the data; the mapping comes back as shared memory of this process with it. */
                mana_warn("the file of a shared mapping, %s, is gone: rebuilt from the image's copy", regs[i].name);
            } else {
                if (ffd < 0) FAIL("cannot restart: shared mapping of %s: %s", regs[i].name, strerror(errno));
                void *m = mmap((void *)r->start, len, (int)r->prot, MAP_SHARED | MAP_FIXED, ffd, (off_t)r->file_offset);
                close(ffd);
                if (m == MAP_FAILED) FAIL("cannot restart: cannot map %s: %s", regs[i].name, strerror(errno));
                continue;
            }
        }
        int flags = (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_FIXED;
        void *m = mmap((void *)r->start, len, PROT_READ | PROT_WRITE, flags, -1, 0);
        if (m == MAP_FAILED)
            FAIL("cannot restart: cannot map %#lx-%#lx: %s", (unsigned long)r->start, (unsigned long)r->end,
                 strerror(errno));
        loadable[i] = 1;
    }
    /* oldest first: each image's pages replace its parent's.  Large runs of every image are mapped from
     * their file (a read into pages mapped from the parent would copy each page on write first) */
    for (int c = 0; c < chain_n; c++)
        if (apply_image(chain[c], regs, n, 1) != 0) return 1;
    for (uint32_t i = 0; i < n; i++) {
        struct mana_img_region *r = &regs[i].r;
        if (!loadable[i] || r->prot == (PROT_READ | PROT_WRITE)) continue;
        if (mprotect((void *)r->start, r->end - r->start, (int)r->prot) != 0)
            FAIL("cannot restart: mprotect %#lx-%#lx: %s", (unsigned long)r->start, (unsigned long)r->end,
                 strerror(errno));
    }
    return 0;
}

/* [vdso] and [vvar*] must be where the upper half's libc saw them. */
static int check_vdso(const struct mana_img_process *p)
{
    struct mana_map *m;
    int n = lh_read_maps(&m);
    if (n < 0) FAIL("cannot restart: cannot read the memory map");
    uint64_t vdso_s = 0, vdso_e = 0, vvar_s = 0, vvar_e = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(m[i].name, "[vdso]") == 0) { vdso_s = m[i].start; vdso_e = m[i].end; }
        if (strncmp(m[i].name, "[vvar", 5) == 0) {
            if (!vvar_s || m[i].start < vvar_s) vvar_s = m[i].start;
            if (m[i].end > vvar_e) vvar_e = m[i].end;
        }
    }
    if (!p->vdso_start || (vdso_s == p->vdso_start && vvar_s == p->vvar_start)) return 0;
    if (vdso_e - vdso_s != p->vdso_end - p->vdso_start || vvar_e - vvar_s != p->vvar_end - p->vvar_start)
        FAIL("cannot restart: the kernel's [vdso]/[vvar] differ in size from the checkpoint's (another kernel?)");
    /* Move them, block by block, by the same distance.  The lower half's libc must not use its vdso
     * after this (the restore code uses raw system calls from here on). */
    int64_t delta = (int64_t)p->vdso_start - (int64_t)vdso_s;
    if (p->vvar_start && (int64_t)p->vvar_start - (int64_t)vvar_s != delta)
        FAIL("cannot restart: [vdso]/[vvar] layout differs from the checkpoint's (another kernel?)");
    for (int i = 0; i < n; i++) {
        if (strcmp(m[i].name, "[vdso]") != 0 && strncmp(m[i].name, "[vvar", 5) != 0) continue;
        uint64_t to = m[i].start + (uint64_t)delta;
        void *r = mremap((void *)m[i].start, m[i].end - m[i].start, m[i].end - m[i].start,
                         MREMAP_MAYMOVE | MREMAP_FIXED, (void *)to);
        if (r == MAP_FAILED)
            FAIL("cannot restart: cannot move %s from %#lx to %#lx: %s (restart on the kernel of the checkpoint)",
                 m[i].name, (unsigned long)m[i].start, (unsigned long)to, strerror(errno));
    }
    mana_dbg("moved [vdso]/[vvar] by %+ld bytes", (long)delta);
    return 0;
}

/* Test hook (MANA_DEBUG_MOVE_VDSO): move [vvar*]/[vdso] away first, as another kernel layout would
 * have them, so that check_vdso has to move them back. */
static void debug_move_vdso(void)
{
    struct mana_map *m;
    int n = lh_read_maps(&m);
    uint64_t lo = 0, hi = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(m[i].name, "[vdso]") == 0 || strncmp(m[i].name, "[vvar", 5) == 0) {
            if (!lo || m[i].start < lo) lo = m[i].start;
            if (m[i].end > hi) hi = m[i].end;
        }
    if (!lo) return;
    void *hole = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (hole == MAP_FAILED) return;
    int64_t delta = (int64_t)(uint64_t)hole - (int64_t)lo;
    for (int i = 0; i < n; i++)
        if (strcmp(m[i].name, "[vdso]") == 0 || strncmp(m[i].name, "[vvar", 5) == 0) {
            void *r = mremap((void *)m[i].start, m[i].end - m[i].start, m[i].end - m[i].start,
                             MREMAP_MAYMOVE | MREMAP_FIXED, (void *)(m[i].start + (uint64_t)delta));
            mana_dbg("debug: moved %s to %p (%s)", m[i].name, r, r == MAP_FAILED ? strerror(errno) : "ok");
        }
}

/*
 * The upper libc's sbrk trusts the break it cached (`__curbrk`), and this process's break is the new
 * lower heap's end, which may lie past the old one.  Left as it was, the program's next heap growth
 * would ask the kernel for a break below the current one: the kernel shrinks the lower heap under MPI
 * and sbrk hands those pages to the program's malloc too.  Point the cache at the real break, where the
 * guard page stops any growth exactly as it did at launch (glibc's malloc then takes mmap), so the
 * program's heap behaves as it did before the checkpoint.  Images without the slot (0) keep theirs.
 */
static int point_upper_brk(const struct mana_img_process *proc, const struct mana_image_region *regs, uint32_t nregs)
{
    uint64_t slot = proc->upper_brk_slot;
    if (!slot) return 0;
    int in_upper = 0;
    for (uint32_t i = 0; i < nregs && !in_upper; i++)
        in_upper = is_upper(&regs[i].r) && (regs[i].r.prot & PROT_WRITE) && slot >= regs[i].r.start &&
                   slot + 8 <= regs[i].r.end && !(slot & 7);
    if (!in_upper) FAIL("cannot restart: %s is corrupt (upper_brk_slot %#lx is in no writable upper region)",
                        img_path_for_errors, (unsigned long)slot);
    long cur = mana_sys1(SYS_brk, 0);
    if (cur < 0 && cur > -4096) FAIL("cannot restart: cannot read the program break: %s", strerror((int)-cur));
    if (!mana_lh.brk_guard.start || (uint64_t)cur > mana_lh.brk_guard.start)
        FAIL("cannot restart: the break %#lx is not below its guard page", (unsigned long)cur);
    *(volatile uint64_t *)slot = (uint64_t)cur;
    mana_dbg("upper break: %#lx at the checkpoint, now %#lx (guard at %#lx)", (unsigned long)proc->upper_brk,
             (unsigned long)cur, (unsigned long)mana_lh.brk_guard.start);
    return 0;
}

/* The program's fault-signal actions (its table, restored with its memory): the dispatcher's from now
 * on, before any upper code runs (lh_sig.c; the plugin publishes the same address again later).  An
 * address outside the program's writable memory is a corrupt image: the dispatcher would read there. */
static int point_fault_table(const struct mana_img_process *proc, const struct mana_image_region *regs, uint32_t nregs)
{
    uint64_t t = proc->upper_fault_acts, len = MANA_NSIG_TABLE * sizeof(struct mana_fault_act);
    if (!t) return 0;
    int in_upper = 0;
    for (uint32_t i = 0; i < nregs && !in_upper; i++)
        in_upper = is_upper(&regs[i].r) && (regs[i].r.prot & PROT_WRITE) && t >= regs[i].r.start &&
                   t + len <= regs[i].r.end && !(t & 7);
    if (!in_upper) FAIL("cannot restart: %s is corrupt (upper_fault_acts %#lx is in no writable upper region)",
                        img_path_for_errors, (unsigned long)t);
    mana_lh.upper_fault_acts = t;
    return 0;
}

struct kernel_sigaction_raw {
    uint64_t handler, flags, restorer, mask;
};

/* ---- the whole restore ---- */

/* Before MPI_Init (which would wait for ranks that never come): the launcher's MPI and rank count
 * must be the checkpoint's; without MPI, the rank the launch scripts gave must be the image's. */
static int check_job_matches(const struct mana_image *im, const char *path, int is_mpi)
{
    if (is_mpi) {
        const char *ompi = getenv("OMPI_COMM_WORLD_SIZE"), *pmi = getenv("PMI_SIZE");
        const char *launcher = ompi ? "openmpi" : pmi ? "mpich" : NULL;
        if (launcher && strcmp(launcher, lh_mpi_name) != 0)
            FAIL("cannot restart: %s was written under MPI '%s'; this job was started by the launcher of '%s' "
                 "(restart with the same MPI's mpirun)", path, lh_mpi_name, launcher);
        const char *sz = ompi ? ompi : pmi;
        if (sz && atoi(sz) != (int)im->h.nranks)
            FAIL("cannot restart: %s is rank %u of %u; this job has %d ranks (restart with the rank count of the "
                 "checkpoint)", path, im->h.rank, im->h.nranks, atoi(sz));
    }
    if (!is_mpi && (im->h.rank != (uint32_t)mana_lh.settings.rank || im->h.nranks != (uint32_t)mana_lh.settings.nranks))
        FAIL("cannot restart: %s is rank %u of %u; this process is rank %d of %d", path, im->h.rank, im->h.nranks,
             mana_lh.settings.rank, mana_lh.settings.nranks);
    return 0;
}

/* The chain's image descriptors moved above every number the image's files use, and those numbers
 * held with placeholders until the files are restored, so that nothing the lower half opens
 * meanwhile (MPI_Init's sockets, later) takes one of them. */
static int hold_file_numbers(const struct mana_image_file *files, uint32_t nfiles)
{
    int maxfd = 2;
    for (uint32_t i = 0; i < nfiles; i++) if (files[i].f.fd > maxfd) maxfd = files[i].f.fd;
    for (int c = 0; c < chain_n; c++) {
        int hi = fcntl(chain[c]->fd, F_DUPFD_CLOEXEC, maxfd + 1);
        if (hi < 0) FAIL("cannot restart: cannot move the image descriptor above %d: %s", maxfd, strerror(errno));
        close(chain[c]->fd);
        chain[c]->fd = hi;
    }
    for (uint32_t i = 0; i < nfiles; i++) {
        int fd = files[i].f.fd;
        if (fd <= 2 || fcntl(fd, F_GETFD) >= 0) continue;
        if (fd < (int)sizeof placeholder * 8) placeholder[fd / 8] |= (unsigned char)(1u << (fd % 8));
        int ph = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (ph < 0) FAIL("cannot restart: cannot open /dev/null: %s", strerror(errno));
        if (ph != fd) {
            if (dup3(ph, fd, O_CLOEXEC) < 0) FAIL("cannot restart: cannot hold fd %d: %s", fd, strerror(errno));
            close(ph);
        }
    }
    return 0;
}

/* Every signal blocked (no handler may run until the threads are back), then the image's handlers. */
static int restore_handlers(const struct mana_img_signals *sh, const struct mana_img_sigaction *sigs, int has_fault_table)
{
    uint64_t all = ~0ULL;
    long blk = mana_sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, 0, 8);
    if (blk != 0) FAIL("cannot restart: cannot block signals while the threads come back: %s", strerror((int)-blk));
    for (uint32_t i = 0; i < sh->nsig; i++) {
        /* A fault signal keeps the dispatcher: the image's entry is the program's action, which is
         * back in the upper half's table with its memory (fault_sig.h).  An image from before the
         * table has the kernel's handler there: the program's is installed (the plugin takes it into
         * the table), an MPI library's (lower-half code) is not. */
        uint64_t h = sigs[i].handler;
        if (sigs[i].signo >= 1 && sigs[i].signo <= 64 && ((mana_lh.fault_routed >> (sigs[i].signo - 1)) & 1) &&
            (has_fault_table || mana_range_overlaps(mana_lh.lh_ranges, mana_lh.lh_range_count, h, h + 1)))
            continue;
        struct kernel_sigaction_raw ks = { sigs[i].handler, sigs[i].flags, sigs[i].restorer, sigs[i].mask };
        long r = mana_sys4(SYS_rt_sigaction, sigs[i].signo, (long)&ks, 0, 8);
        if (r != 0) FAIL("cannot restart: cannot restore the handler of signal %d: %s", sigs[i].signo, strerror((int)-r));
    }
    return 0;
}

/* Whether [sp, sp + size) lies in one writable upper region of the restored map: an alternate signal stack
 * the image gives back.  One elsewhere was the old lower half's (UCX's library constructor makes one for
 * the main thread, in the lower half, before the program exists; images written before the plug-in gave the
 * main thread an upper one, plugin.c): its memory is gone, or another mapping's now. */
static int altstack_restored(const struct mana_image_region *regs, uint32_t nregs, uint64_t sp, uint64_t size)
{
    int inside = 0;
    uint32_t i = region_at(regs, nregs, sp, &inside);
    return inside && is_upper(&regs[i].r) && (regs[i].r.prot & PROT_WRITE) && sp + size <= regs[i].r.end;
}

/* What each thread boots from (lh_thread_boot): its saved context, stacks, masks and TLS. */
static int plan_boots(const struct mana_img_thread *thr, uint32_t nthr, int main_idx, struct lh_boot *boots,
                      const struct mana_image_region *regs, uint32_t nregs, const char *path)
{
    for (uint32_t i = 0; i < nthr; i++) {
        const struct mana_img_thread *tr = &thr[i];
        struct lh_boot *b = &boots[i];
        b->is_main = (int)i == main_idx;
        b->kind = tr->ctx_addr ? BOOT_CTX : BOOT_SIGFRAME;
        b->uc = tr->ucontext_addr;
        b->ctx = tr->ctx_addr;
        b->robust = tr->robust_list;
        b->robust_len = tr->robust_list_len;
        b->alt_set = 1;
        if (tr->altstack_flags & SS_DISABLE) {
            b->alt.ss_flags = SS_DISABLE;
        } else if (!altstack_restored(regs, nregs, tr->altstack_sp, tr->altstack_size)) {
            /* none, rather than one over memory that is not this thread's: a handler that asks for the
             * alternate stack then runs on the thread's own stack */
            mana_dbg("thread %d: its alternate signal stack %#lx+%lu is not in the image: none now", tr->tid,
                     (unsigned long)tr->altstack_sp, (unsigned long)tr->altstack_size);
            b->alt.ss_flags = SS_DISABLE;
        } else {
            b->alt.ss_sp = (void *)tr->altstack_sp;
            b->alt.ss_size = tr->altstack_size;
            b->alt.ss_flags = 0;
        }
        b->sigmask = tr->sigmask;
        b->fs = tr->fs_base;
        b->ctid = tr->ctid_addr;
        if (b->kind == BOOT_SIGFRAME && !b->uc) FAIL("cannot restart: %s is corrupt (thread %d has no context)", path, tr->tid);
    }
    return 0;
}

/* The new lh_info for the upper half: restart flag, generation, the upper half's stack, entry and
 * ranges (after the lower heap's guard), its break, and the image's slot pointed at it. */
static int publish_lh_info(const struct mana_image *im, const struct mana_image_region *regs, uint32_t nregs,
                           const char *path)
{
    const struct mana_img_process *proc = &im->proc;
    mana_lh.flags |= MANA_LH_F_RESTART;
    mana_lh.generation = im->h.generation;
    mana_lh.uh_stack.start = proc->upper_stack_start;
    mana_lh.uh_stack.end = proc->upper_stack_end;
    mana_lh.uh_entry = proc->upper_entry;
    struct mana_range *up = malloc((nregs + 1) * sizeof *up);
    int nu = 0;
    if (!up) FAIL("cannot restart: out of memory");
    for (uint32_t i = 0; i < nregs; i++)
        if (is_upper(&regs[i].r)) { up[nu].start = regs[i].r.start; up[nu].end = regs[i].r.end; nu++; }
    /* the guard after the last allocation of the lower heap, then the ranges */
    if (lh_guard_brk() != 0) return 1;
    if (lh_record_ranges(up, nu) != 0) return 1;
    if (point_upper_brk(proc, regs, nregs) != 0) return 1;
    if (!proc->lh_info_slot) FAIL("cannot restart: %s has no lh_info slot", path);
    *(struct lh_info *volatile *)proc->lh_info_slot = &mana_lh;
    return 0;
}

/* Every thread but the main one cloned onto its boot stack, with its old tid where the kernel lets
 * us choose it; tid_map says old -> new (the main thread becomes this process). */
static int clone_threads(const struct mana_img_thread *thr, uint32_t nthr, int main_idx, struct lh_boot *boots,
                         char **boot_stacks)
{
    mana_lh.n_tid_map = 0;
    mana_lh.tid_map[mana_lh.n_tid_map++] = (struct mana_tid_pair){ thr[main_idx].tid, getpid() };
    /* test hook: restart as without the privilege to choose tids */
    if (getenv("MANA_DEBUG_NO_SET_TID")) keep_tids = 0;
    for (uint32_t i = 0; i < nthr; i++) {
        if ((int)i == main_idx) continue;
        const struct mana_img_thread *tr = &thr[i];
        size_t ssz = BOOT_STACK;
        char *stk = boot_stacks[i];
        unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                              CLONE_SETTLS;
        int *ctid = (int *)tr->ctid_addr;
        if (ctid) flags |= CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
        long r = -1;
        if (keep_tids != 0 && tr->tid > 0) {
            /* Ask for the thread's old tid (needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN, and the
             * tid free): mutexes that record an owner tid (error-checking, recursive, robust, PI)
             * held across the checkpoint stay valid. */
            pid_t want = tr->tid;
            struct lh_clone_args ca = { flags, 0, (uint64_t)ctid, (uint64_t)ctid, 0, (uint64_t)stk, ssz,
                                        tr->fs_base, (uint64_t)&want, 1 };
            r = lh_clone3(&ca, sizeof ca, &boots[i]);
            if (r > 0) keep_tids = 1;
            else if (keep_tids < 0 && (r == -EPERM || r == -ENOSYS || r == -EINVAL)) keep_tids = 0;
        }
        if (r <= 0) r = lh_clone(flags, stk + ssz, ctid, ctid, tr->fs_base, &boots[i]);
        if (r < 0) FAIL("cannot restart: cannot create thread %d: %s", tr->tid, strerror((int)-r));
        if (mana_lh.n_tid_map < MANA_MAX_THREADS_LH)
            mana_lh.tid_map[mana_lh.n_tid_map++] = (struct mana_tid_pair){ tr->tid, (int32_t)r };
        mana_dbg("thread %d is now %ld", tr->tid, r);
    }
    return 0;
}

/* Interval timers as they were, and the signals that were pending at the checkpoint (every thread had
 * them blocked) raised again: delivered as soon as a thread unblocks them. */
static int restore_timers_and_pending(const struct mana_img_signals *sh, const struct mana_img_itimer *timers)
{
    for (uint32_t i = 0; i < sh->ntimers; i++) {
        struct itimerval it;
        it.it_interval.tv_sec = timers[i].interval_ns / 1000000000LL;
        it.it_interval.tv_usec = (timers[i].interval_ns % 1000000000LL) / 1000;
        it.it_value.tv_sec = timers[i].value_ns / 1000000000LL;
        it.it_value.tv_usec = (timers[i].value_ns % 1000000000LL) / 1000;
        if (!it.it_value.tv_sec && !it.it_value.tv_usec) it.it_value.tv_usec = 1;   /* was about to fire */
        if (mana_sys3(SYS_setitimer, timers[i].which, (long)&it, 0) != 0)
            FAIL("cannot restart: cannot restore interval timer %d", timers[i].which);
    }
    for (int sig = 1; sig <= 64; sig++) {
        if (!(sh->pending & (1ULL << (sig - 1))) || sig == mana_lh.settings.ckpt_signal) continue;
        long k = mana_sys2(SYS_kill, mana_getpid(), sig);
        if (k != 0) mana_warn("signal %d was pending at the checkpoint and cannot be raised again: %s", sig, strerror((int)-k));
        else mana_dbg("re-raised pending signal %d", sig);
    }
    return 0;
}

int lh_restore(const char *dir)
{
    int64_t t0 = mana_lh.start_ns, t;
    /* Nothing below may take an address the image needs: the lower heap grows with brk only. */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);

    char absdir[4096];
    if (!realpath(dir, absdir)) snprintf(absdir, sizeof absdir, "%s", dir);
    if (!getenv("MANA_CKPT_DIR") || !*getenv("MANA_CKPT_DIR"))
        snprintf(mana_lh.settings.ckpt_dir, sizeof mana_lh.settings.ckpt_dir, "%s", absdir);

    restore_dir_arg = dir;
    static char path[4400];
    if (pick_image(dir, mana_lh.settings.rank, path, sizeof path) != 0) return 1;
    img_path_for_errors = path;
    static struct mana_image im;
    if (open_image(&im, path) != 0) return 1;
    int is_mpi = strcmp(lh_mpi_name, "none") != 0;
    if (check_job_matches(&im, path, is_mpi) != 0) return 1;
    const struct mana_img_process proc = im.proc;
    struct mana_image_region *regs = im.regs;
    uint32_t nregs = im.nregs;
    struct mana_image_file *files = im.files;
    uint32_t nfiles = im.nfiles;
    saved = im.saved;
    n_saved = im.nsaved;
    uint32_t nthr = im.nthr;
    const struct mana_img_thread *thr = im.thr;
    char self[PATH_MAX] = "";
    ssize_t sl = mana_lh.settings.debug ? readlink("/proc/self/exe", self, sizeof self - 1) : -1;   /* for the line below */
    if (sl > 0) self[sl] = 0;
    mana_dbg("restoring %s: generation %u, %u regions, %u threads, %u files, %u signal handlers (lower half %s)",
             path, im.h.generation, nregs, nthr, nfiles, im.sig.nsig, self);

    if (open_chain(&im, path) != 0) return 1;
    if (hold_file_numbers(files, nfiles) != 0) return 1;
    t = mana_now_ns();
    mana_timing("restart: read and check image metadata", t - t0);

    lh_restart_pause(1, "before memory restore");
    int64_t t_mem0 = mana_now_ns();
    if (reserve_regions(regs, nregs) != 0) return 1;
    if (is_mpi) {
        /* The new MPI comes up around the reserved ranges; its descriptors avoid the placeholders. */
        if (lh_mpi_init() != 0) return 1;
        lh_track_fds(0);    /* the program's files reopened below are not the MPI library's */
        const char *rep = getenv("MANA_IO_REPLACED");
        if (rep && strcmp(rep, "1") == 0) mana_lh.restart_flags |= MANA_RESTART_F_IO_REPLACED;
        if (im.h.rank != (uint32_t)mana_lh.mpi.world_rank || im.h.nranks != (uint32_t)mana_lh.mpi.world_size)
            FAIL("cannot restart: %s is rank %u of %u; this process is rank %d of %d under %s (restart with "
                 "the rank count of the checkpoint)", path, im.h.rank, im.h.nranks, mana_lh.mpi.world_rank,
                 mana_lh.mpi.world_size, lh_mpi_name);
    }
    if (load_regions(&im, regs, nregs) != 0) return 1;
    if (getenv("MANA_DEBUG_MOVE_VDSO")) debug_move_vdso();
    if (check_vdso(&proc) != 0) return 1;
    int64_t t_files = mana_now_ns();
    mana_timing("restart: memory (reserve, read, verify)", t_files - t_mem0);
    /* Files after memory: every check of the image is done before anything is said about them. */
    if (restore_files(&im, files, nfiles) != 0) return 1;
    close(im.fd);
    for (int c = 0; c + 1 < chain_n; c++) mana_image_close(chain[c]);
    if (is_mpi) lh_track_fds(1);   /* MPI-IO files the replay reopens are the library's again */
    int64_t t_mem = mana_now_ns();
    mana_timing("restart: files", t_mem - t_files);
    mana_dbg("memory restored: %llu bytes stored of %llu mapped", (unsigned long long)im.h.stored_bytes,
             (unsigned long long)im.h.mapped_bytes);

    /* Process attributes. */
    if (im.cwd[0] && chdir(im.cwd) != 0) mana_warn("cannot return to the working directory %s: %s", im.cwd, strerror(errno));
    umask(proc.umask);

    lh_restart_pause(2, "after memory restore, single thread");

    /* The new MPI's fault handlers are the lower half's; the program's are in its table (restored). */
    if (point_fault_table(&proc, regs, nregs) != 0 || lh_sig_adopt() != 0) return 1;
    /* From here no signal may run a handler until the threads are back. */
    if (restore_handlers(&im.sig, im.sigs, proc.upper_fault_acts != 0) != 0) return 1;

    /* Threads: the main one becomes this thread; the others are cloned and wait on boot_go. */
    int main_idx = 0;
    for (uint32_t i = 0; i < nthr; i++) if (thr[i].flags & MANA_THR_MAIN) { main_idx = (int)i; break; }
    struct lh_boot *boots = calloc(nthr, sizeof *boots);
    if (!boots) FAIL("cannot restart: out of memory");
    if (plan_boots(thr, nthr, main_idx, boots, regs, nregs, path) != 0) return 1;
    /* Boot stacks now: the lower heap must not grow after its range is recorded below. */
    char **boot_stacks = calloc(nthr, sizeof *boot_stacks);
    if (!boot_stacks) FAIL("cannot restart: out of memory");
    for (uint32_t i = 0; i < nthr; i++)
        if ((int)i != main_idx && !(boot_stacks[i] = malloc(BOOT_STACK)))
            FAIL("cannot restart: out of memory");

    if (publish_lh_info(&im, regs, nregs, path) != 0) return 1;
    if (clone_threads(thr, nthr, main_idx, boots, boot_stacks) != 0) return 1;
    int64_t t_thr = mana_now_ns();
    mana_timing("restart: signals and threads", t_thr - t_mem);
    lh_restart_pause(3, "threads are back, parked");

    if (restore_timers_and_pending(&im.sig, im.timers) != 0) return 1;
    lh_restart_pause(4, "just before user code resumes");
    mana_timing("restart: lower half total (start to resume)", mana_now_ns() - t0);
    mana_dbg("resuming generation %u", im.h.generation);
    __atomic_store_n(&boot_go, 1, __ATOMIC_SEQ_CST);
    mana_futex_wake(&boot_go, 0x7fffffff);
    lh_thread_boot(&boots[main_idx]);
}
