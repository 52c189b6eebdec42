/* test_tid_offset: the two ways the plugin finds glibc's tid field (src/plugin/tid_offset.c) agree,
 * and the offset they give holds the tid in every thread.
 *
 *   test_tid_offset               in this process, whatever its pid
 *   test_tid_offset --tid7fff     in a thread whose tid is 32767 (0x7fff, steered through ns_last_pid;
 *                                 exit 77 where that cannot be written) and whose descriptor lies at
 *                                 0x7fff........ (its stack is mapped there), as a thread of the upper
 *                                 half can: the case the old scan got wrong.  The descriptor's first word
 *                                 points at itself, so its upper half is an int equal to the tid before
 *                                 the tid field; the test checks that trap is there before it checks the
 *                                 offset found is not the trap. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mana_sys.h"
#include "tid_offset.h"

#define SKIP 77
#define TRAP_TID 0x7fff
#define MISSED_TID 75 /* the thread did not get the tid asked for: try again */

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
                                              fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static int tid_at(uint32_t off) { return *(const int *)((const char *)pthread_self() + off); }

/* The old way: the first int of the descriptor equal to the tid. */
static uint32_t first_equal(void)
{
    int tid = mana_gettid();
    for (uint32_t o = 0; o < MANA_TID_OFFSET_LIMIT; o += 4)
        if (tid_at(o) == tid) return o;
    return UINT32_MAX;
}

static void *other_thread(void *arg)
{
    uint32_t off = *(uint32_t *)arg;
    *(int *)arg = tid_at(off) == mana_gettid();
    return NULL;
}

static int check(void)
{
    uint32_t probe = 0, kernel = 0;
    int tid = mana_gettid();
    int probe_rc = mana_tid_offset_by_probe(&probe), kernel_rc = mana_tid_offset_from_kernel(&kernel);
    CHECK(probe_rc == 0, "the probe found no offset holding the tid in two threads");
    if (probe_rc != 0) return 1;
    if (kernel_rc == 0)
        CHECK(kernel == probe, "the kernel says offset %u, the probe %u", kernel, probe);
    else
        printf("the kernel cannot say (PR_GET_TID_ADDRESS: %s): the probe alone is checked\n", strerror(errno));
    CHECK(tid_at(probe) == tid, "offset %u holds %d in the main thread, tid %d", probe, tid_at(probe), tid);

    uint32_t arg = probe;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread, &arg) == 0 && pthread_join(th, NULL) == 0, "a thread");
    CHECK(arg == 1, "offset %u does not hold a second thread's tid", probe);

    uint32_t naive = first_equal();
    printf("tid %d at %p: tid field at offset %u (kernel: %s), first int equal to the tid at %u\n", tid, (void *)pthread_self(),
           probe, kernel_rc == 0 ? "agrees" : "cannot say", naive);
    if (tid == TRAP_TID) {
        CHECK(naive != probe, "tid 0x7fff but the first int equal to it is the field: the trap is missing");
        CHECK((uintptr_t)pthread_self() >> 32 == TRAP_TID, "the descriptor is at %p", (void *)pthread_self());
    }
    return failures ? 1 : 0;
}

#define TRAP_STACK_SIZE (1u << 20)

static void *trap_thread(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)(mana_gettid() == TRAP_TID ? check() : MISSED_TID);
}

/* A stack in [0x7fff00000000, 0x7fffffffffff], clear of what is mapped there (the main stack, vdso). */
static void *trap_stack(void)
{
    for (uintptr_t a = 0x7fff00000000u; a < 0x7ffff0000000u; a += 0x1000000u) {
        void *p = mmap((void *)a, TRAP_STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == (void *)a) return p;
        if (p != MAP_FAILED && munmap(p, TRAP_STACK_SIZE) != 0) break; /* a kernel that took it as a hint */
    }
    return NULL;
}

/* Run check() on a thread with tid 0x7fff and its descriptor at 0x7fff........ */
/* Why this machine could not run the case: a skip where MANA_TEST_CANNOT names pid7fff, else a
 * failure (the case may not skip by itself: tests/lib/cannot.sh, docs/testing.md). */
static int cannot_pid7fff(const char *why)
{
    const char *v = getenv("MANA_TEST_CANNOT");
    for (const char *p = v ? strstr(v, "pid7fff") : NULL; p; p = strstr(p + 1, "pid7fff")) {
        char after = p[7];
        if ((p == v || p[-1] == ' ' || p[-1] == ',') && (after == 0 || after == ' ' || after == ',')) {
            printf("SKIP (pid7fff, MANA_TEST_CANNOT): %s\n", why);
            return SKIP;
        }
    }
    fprintf(stderr, "FAIL: %s (set MANA_TEST_CANNOT=pid7fff where this machine cannot do it)\n", why);
    return 1;
}

static int in_trap_thread(void)
{
    void *stack = trap_stack();
    if (!stack) { fprintf(stderr, "FAIL: no free 1 MiB at 0x7fff........ for the thread's stack\n"); return 1; }
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstack(&attr, stack, TRAP_STACK_SIZE) != 0) {
        fprintf(stderr, "FAIL: pthread_attr_setstack\n");
        return 1;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%d", TRAP_TID - 1);
    for (int attempt = 0; attempt < 200; attempt++) {
        int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, buf, (size_t)n) != n) {
            char why[160];
            snprintf(why, sizeof why, "cannot steer the next tid through /proc/sys/kernel/ns_last_pid: %s",
                     strerror(errno));
            if (fd >= 0) close(fd);
            return cannot_pid7fff(why);
        }
        if (close(fd) != 0) { perror("close ns_last_pid"); return 1; }
        pthread_t th;
        void *rc;
        if (pthread_create(&th, &attr, trap_thread, NULL) != 0 || pthread_join(th, &rc) != 0) {
            fprintf(stderr, "FAIL: the thread\n");
            return 1;
        }
        if ((intptr_t)rc != MISSED_TID) return (int)(intptr_t)rc;
    }
    char why[96];
    snprintf(why, sizeof why, "tid %d was taken by another process 200 times", TRAP_TID);
    return cannot_pid7fff(why);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "--tid7fff") == 0) return in_trap_thread();
    if (argc != 1) { fprintf(stderr, "usage: %s [--tid7fff]\n", argv[0]); return 2; }
    return check();
}
