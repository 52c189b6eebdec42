/*
 * lh_track.c - keep the lower half's memory list current after MPI_Init.
 *
 * The upper half saves every mapping that is not in mana_lh.lh_ranges.  The list is taken from
 * /proc/self/maps at launch and at restart, but the MPI library keeps mapping memory afterwards
 * (buffers, shared-memory segments, its threads' stacks, malloc arenas).  Those calls all land in the
 * lower half's own libc, which we own: its mmap, munmap and mremap entry points are overwritten with
 * a jump to the functions below, which make the system call themselves and update the list.  glibc's
 * internal callers (malloc, pthread_create) reach the same code through hidden aliases, so nothing
 * passes around it.  No debug symbols are needed: dlsym finds the public names.
 *
 * The list stays sorted and non-overlapping (mana_range_piece relies on it).  A spin lock guards it:
 * MPI's own threads may map while the application thread does.
 *
 * Descriptors the same way: open, openat and close, and the calls that make sockets, pipes, eventfds,
 * epoll sets and memfds or duplicate descriptors (and their aliases: the patch rewrites the code, so
 * every name of the function goes through it) keep mana_lh.mpi.lower_fds current after MPI_Init, so
 * the files MPI-IO opens (and ROMIO's shared-pointer files, Open MPI's shared-memory segments for
 * windows) are never saved as the program's own.  Each marked descriptor's device and inode are noted
 * (lower_fd_ids): a descriptor closed by a path we do not see (glibc's internal close_nocancel, after
 * an fopen) and then reused by the program no longer matches, and the writer saves it as the program's
 * (plugin.c, mana_plugin_is_internal_fd).
 */
#define _GNU_SOURCE
#include "lower_half.h"
#include "mana_sys.h"
#include "mana_util.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096UL
#define PAGE_UP(x) (((uint64_t)(x) + PAGE - 1) & ~(PAGE - 1))

static volatile int track_lock;
static int tracking;
static int fd_tracking;       /* off while a restart reopens the program's own files (restore.c) */

static void lock(void)
{
    while (__atomic_exchange_n(&track_lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&track_lock, __ATOMIC_RELAXED)) __builtin_ia32_pause();
}
static void unlock(void) { __atomic_store_n(&track_lock, 0, __ATOMIC_RELEASE); }

/* Remove [s,e) from the list (splitting an entry that straddles it).  Rebuilt through a scratch
 * copy: no allocation may happen here (malloc would call mmap). */
static struct mana_range scratch[LH_MAX_RANGES];
static void ranges_remove(uint64_t s, uint64_t e)
{
    struct mana_range *r = mana_lh.lh_ranges;
    uint32_t n = mana_lh.lh_range_count, k = 0, cap = mana_lh.lh_range_cap;
    for (uint32_t i = 0; i < n; i++) {
        if (r[i].end <= s || r[i].start >= e) { if (k < cap) scratch[k++] = r[i]; continue; }
        if (r[i].start < s && k < cap) scratch[k++] = (struct mana_range){ r[i].start, s };
        if (r[i].end > e && k < cap) scratch[k++] = (struct mana_range){ e, r[i].end };
    }
    memcpy(r, scratch, k * sizeof *r);
    mana_lh.lh_range_count = k;
}

/* Add [s,e), merging with neighbours. */
static void ranges_add(uint64_t s, uint64_t e)
{
    ranges_remove(s, e);
    struct mana_range *r = mana_lh.lh_ranges;
    uint32_t n = mana_lh.lh_range_count, i = 0;
    while (i < n && r[i].start < s) i++;
    if (i > 0 && r[i - 1].end == s) {
        r[i - 1].end = e;
        if (i < n && r[i].start == e) { r[i - 1].end = r[i].end; memmove(&r[i], &r[i + 1], (n - i - 1) * sizeof *r); n--; }
    } else if (i < n && r[i].start == e) {
        r[i].start = s;
    } else {
        if (n >= mana_lh.lh_range_cap) return;        /* full: the region will be saved; harmless */
        memmove(&r[i + 1], &r[i], (n - i) * sizeof *r);
        r[i] = (struct mana_range){ s, e };
        n++;
    }
    mana_lh.lh_range_count = n;
}

static void *hook_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    long r = mana_sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, off);
    if (r < 0 && r > -4096) { errno = (int)-r; return MAP_FAILED; }
    if (tracking) { lock(); ranges_add((uint64_t)r, (uint64_t)r + PAGE_UP(len)); unlock(); }
    return (void *)r;
}

static int hook_munmap(void *addr, size_t len)
{
    long r = mana_sys2(SYS_munmap, (long)addr, (long)len);
    if (r < 0) { errno = (int)-r; return -1; }
    if (tracking) { lock(); ranges_remove((uint64_t)addr, (uint64_t)addr + PAGE_UP(len)); unlock(); }
    return 0;
}

static void *hook_mremap(void *old, size_t oldlen, size_t newlen, int flags, ...)
{
    void *want = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        want = va_arg(ap, void *);
        va_end(ap);
    }
    long r = mana_sys6(SYS_mremap, (long)old, (long)oldlen, (long)newlen, flags, (long)want, 0);
    if (r < 0 && r > -4096) { errno = (int)-r; return MAP_FAILED; }
    if (tracking) {
        lock();
        ranges_remove((uint64_t)old, (uint64_t)old + PAGE_UP(oldlen));
        ranges_add((uint64_t)r, (uint64_t)r + PAGE_UP(newlen));
        unlock();
    }
    return (void *)r;
}

/* ---- descriptors ---- */
static struct mana_fd_id fd_ids[MANA_LOWER_FDS];

void lh_fd_mark(int fd)
{
    if (fd < 0 || fd >= MANA_LOWER_FDS) return;
    struct stat st;
    if (mana_sys2(SYS_fstat, fd, (long)&st) != 0) return;
    fd_ids[fd].dev = st.st_dev;
    fd_ids[fd].ino = st.st_ino;
    __atomic_or_fetch(&mana_lh.mpi.lower_fds[fd / 64], 1ULL << (fd % 64), __ATOMIC_SEQ_CST);
}

static void fd_unmark(int fd)
{
    if (fd < 0 || fd >= MANA_LOWER_FDS) return;
    __atomic_and_fetch(&mana_lh.mpi.lower_fds[fd / 64], ~(1ULL << (fd % 64)), __ATOMIC_SEQ_CST);
}

/* The mode argument exists only with O_CREAT or O_TMPFILE (open(2)). */
static int wants_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

static int hook_openat(int dirfd, const char *path, int flags, ...)
{
    long mode = 0;
    if (wants_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    long r = mana_sys4(SYS_openat, dirfd, (long)path, flags, mode);
    if (r < 0) { errno = (int)-r; return -1; }
    if (__atomic_load_n(&fd_tracking, __ATOMIC_RELAXED)) lh_fd_mark((int)r);
    return (int)r;
}

static int hook_open(const char *path, int flags, ...)
{
    long mode = 0;
    if (wants_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    return hook_openat(AT_FDCWD, path, flags, (int)mode);
}

static int hook_close(int fd)
{
    /* unmarked first: once the kernel has it back, the number may be handed to anyone */
    if (__atomic_load_n(&fd_tracking, __ATOMIC_RELAXED)) fd_unmark(fd);
    long r = mana_sys1(SYS_close, fd);
    if (r < 0) { errno = (int)-r; return -1; }
    return 0;
}

/* The other calls that make descriptors: MPI opens sockets after MPI_Init (Open MPI's TCP transport
 * connects to a peer at its first message and accepts the peer's connection in its progress thread),
 * and pipes, eventfds and epoll sets for its progress engine.  Unmarked, the writer saved them as the
 * program's, and a restart put /dev/null at their numbers in the new process, over the new library's
 * own sockets there (a rank's TCP connections cut: SIGSEGV or refused connects after the restart). */
static long marked(long r)
{
    if (r < 0) { errno = (int)-r; return -1; }
    if (__atomic_load_n(&fd_tracking, __ATOMIC_RELAXED)) lh_fd_mark((int)r);
    return r;
}

static int marked_pair(long r, int fds[2])
{
    if (r < 0) { errno = (int)-r; return -1; }
    if (__atomic_load_n(&fd_tracking, __ATOMIC_RELAXED)) { lh_fd_mark(fds[0]); lh_fd_mark(fds[1]); }
    return 0;
}

static int hook_socket(int domain, int type, int proto) { return (int)marked(mana_sys3(SYS_socket, domain, type, proto)); }
static int hook_accept4(int fd, void *addr, void *len, int flags)
{
    return (int)marked(mana_sys4(SYS_accept4, fd, (long)addr, (long)len, flags));
}
static int hook_accept(int fd, void *addr, void *len) { return hook_accept4(fd, addr, len, 0); }
static int hook_socketpair(int domain, int type, int proto, int fds[2])
{
    return marked_pair(mana_sys4(SYS_socketpair, domain, type, proto, (long)fds), fds);
}
static int hook_pipe2(int fds[2], int flags) { return marked_pair(mana_sys2(SYS_pipe2, (long)fds, flags), fds); }
static int hook_pipe(int fds[2]) { return hook_pipe2(fds, 0); }
static int hook_dup(int fd) { return (int)marked(mana_sys1(SYS_dup, fd)); }
/* dup2/dup3 close newfd first: its old mark goes, and the new file is the library's */
static int hook_dup3(int fd, int newfd, int flags) { return (int)marked(mana_sys3(SYS_dup3, fd, newfd, flags)); }
static int hook_dup2(int fd, int newfd)
{
    if (fd == newfd) {                      /* dup3 refuses this; dup2 checks fd and returns it */
        long r = mana_sys2(SYS_fcntl, fd, F_GETFD);
        if (r < 0) { errno = (int)-r; return -1; }
        return fd;
    }
    return hook_dup3(fd, newfd, 0);
}
static int hook_eventfd(unsigned int count, int flags) { return (int)marked(mana_sys2(SYS_eventfd2, count, flags)); }
static int hook_epoll_create1(int flags) { return (int)marked(mana_sys1(SYS_epoll_create1, flags)); }
static int hook_epoll_create(int size)
{
    if (size <= 0) { errno = EINVAL; return -1; }
    return hook_epoll_create1(0);
}
static int hook_memfd_create(const char *name, unsigned int flags)
{
    return (int)marked(mana_sys2(SYS_memfd_create, (long)name, flags));
}

/* Overwrite the first 12 bytes of fn with `movabs $to, %rax; jmp *%rax` (lh_sig.c patches sigaction too). */
int lh_patch(const char *name, void *to)
{
    unsigned char *fn = dlsym(RTLD_NEXT, name);
    if (!fn) fn = dlsym(RTLD_DEFAULT, name);
    if (!fn) { mana_err("cannot find %s in the lower half's libc", name); return -1; }
    uint64_t pg = (uint64_t)fn & ~(PAGE - 1);
    size_t span = ((uint64_t)fn + 12 > pg + PAGE) ? 2 * PAGE : PAGE;
    if (mprotect((void *)pg, span, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        mana_err("cannot patch %s: mprotect: %s", name, strerror(errno));
        return -1;
    }
    unsigned char code[12] = { 0x48, 0xb8 };
    uint64_t a = (uint64_t)to;
    memcpy(code + 2, &a, 8);
    code[10] = 0xff;
    code[11] = 0xe0;
    memcpy(fn, code, sizeof code);
    __builtin___clear_cache((char *)fn, (char *)fn + sizeof code);
    if (mprotect((void *)pg, span, PROT_READ | PROT_EXEC) != 0) {
        mana_err("cannot patch %s: mprotect: %s", name, strerror(errno));
        return -1;
    }
    return 0;
}

int lh_track_install(void)
{
    if (lh_patch("mmap", (void *)hook_mmap) != 0 || lh_patch("munmap", (void *)hook_munmap) != 0 ||
        lh_patch("mremap", (void *)hook_mremap) != 0)
        return -1;
    if (lh_patch("open", (void *)hook_open) != 0 || lh_patch("open64", (void *)hook_open) != 0 ||
        lh_patch("openat", (void *)hook_openat) != 0 || lh_patch("openat64", (void *)hook_openat) != 0 ||
        lh_patch("close", (void *)hook_close) != 0)
        return -1;
    if (lh_patch("socket", (void *)hook_socket) != 0 || lh_patch("accept", (void *)hook_accept) != 0 ||
        lh_patch("accept4", (void *)hook_accept4) != 0 || lh_patch("socketpair", (void *)hook_socketpair) != 0 ||
        lh_patch("pipe", (void *)hook_pipe) != 0 || lh_patch("pipe2", (void *)hook_pipe2) != 0 ||
        lh_patch("dup", (void *)hook_dup) != 0 || lh_patch("dup2", (void *)hook_dup2) != 0 ||
        lh_patch("dup3", (void *)hook_dup3) != 0 || lh_patch("eventfd", (void *)hook_eventfd) != 0 ||
        lh_patch("epoll_create", (void *)hook_epoll_create) != 0 ||
        lh_patch("epoll_create1", (void *)hook_epoll_create1) != 0 ||
        lh_patch("memfd_create", (void *)hook_memfd_create) != 0)
        return -1;
    mana_lh.lower_fd_ids = (uint64_t)(uintptr_t)fd_ids;
    return 0;
}

void lh_track_lock(void) { lock(); }
void lh_track_unlock(void) { unlock(); }

void lh_track_start(void) { __atomic_store_n(&tracking, 1, __ATOMIC_SEQ_CST); }

void lh_track_fds(int on) { __atomic_store_n(&fd_tracking, on, __ATOMIC_SEQ_CST); }
