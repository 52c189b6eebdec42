/*
 * dirty.c - which upper-half pages were written since the last checkpoint (incremental images).
 *
 * The kernel's soft-dirty bits (clear_refs 4, pagemap bit 55) are what CRIU uses, but kernels built
 * without CONFIG_MEM_SOFT_DIRTY (this project's CI VMs among them) never set bit 55.  Linux 6.7 added
 * an asynchronous userfaultfd write-protect mode that needs no handler thread: a region registered
 * with UFFDIO_REGISTER_MODE_WP on a descriptor opened with UFFD_FEATURE_WP_ASYNC and then
 * write-protected (UFFDIO_WRITEPROTECT) has the write-protect bit cleared by the kernel itself on the
 * first write to each page, and /proc/self/pagemap shows that bit (bit 57, "uffd-wp", since 5.13) for
 * present pages, swapped pages and the markers of never-touched ones.  So after a checkpoint the
 * plugin write-protects every region it stored, and at the next one a page whose bit 57 is still set
 * is unchanged since that checkpoint; every other page is read again.  What the program sees: a
 * minor fault on its first write to each page after a checkpoint, as with soft-dirty.
 *
 * Where that is missing (older kernels, a seccomp filter, vm.unprivileged_userfaultfd=0 without
 * CAP_SYS_PTRACE), mana_dirty_start fails with the reason and the checkpoints stay full
 * (MANA_IMG_F_UNTRACKED in the image, one warning in the log).
 *
 * Interaction with the split process: only regions the image stores are registered, so the lower
 * half's memory and the plugin's work area are never write-protected; writes into upper-half buffers
 * by the MPI library (receives, also process_vm_writev from a peer) fault like the program's own and
 * count as written.  A program that uses userfaultfd on a region itself keeps it: registering that
 * region fails (EBUSY) and it is stored whole each time.  Children of fork lose the registration
 * (no UFFD_FEATURE_EVENT_FORK); exec closes the descriptor (O_CLOEXEC).
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

/* Linux 6.7 ABI (Debian 12's headers predate it). */
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1ULL << 15)
#endif

static int uffd = -1;

int mana_dirty_fd(void) { return uffd; }

/* The descriptor of the last process is not ours after a restart (the number may be anyone's now). */
void mana_dirty_forget(void) { uffd = -1; }

int mana_dirty_start(char *why, size_t len)
{
    if (uffd >= 0) return 0;
    long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        mana_fmt(why, len, "userfaultfd: %s", strerror(errno));
        return -1;
    }
    struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC };
    if (ioctl((int)fd, UFFDIO_API, &api) != 0 || !(api.features & UFFD_FEATURE_WP_ASYNC)) {
        mana_fmt(why, len, "the kernel has neither soft-dirty bits nor asynchronous userfaultfd write-protect "
                 "(Linux 6.7): %s", strerror(errno));
        close((int)fd);
        return -1;
    }
    uffd = (int)fd;
    return 0;
}

int mana_dirty_register(uint64_t start, uint64_t end)
{
    if (uffd < 0) return -1;
    struct uffdio_register reg = { .range = { start, end - start }, .mode = UFFDIO_REGISTER_MODE_WP };
    if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
        mana_dbg("incremental: cannot track %#lx-%#lx (stored whole next time): register: %s", (unsigned long)start,
                 (unsigned long)end, strerror(errno));
        return -1;
    }
    return 0;
}

int mana_dirty_protect(uint64_t start, uint64_t end)
{
    if (uffd < 0) return -1;
    struct uffdio_writeprotect wp = { .range = { start, end - start }, .mode = UFFDIO_WRITEPROTECT_MODE_WP };
    if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) != 0) {
        mana_dbg("incremental: cannot track %#lx-%#lx (stored whole next time): write-protect: %s",
                 (unsigned long)start, (unsigned long)end, strerror(errno));
        return -1;
    }
    return 0;
}
