/* blocker.c - a helper thread that blocks every signal with the raw system call (as glibc's AIO and
 * mq_notify helpers do, past any wrapper), next to a main thread that counts: a checkpoint must not
 * wait for the helper (it is left out, with a warning) and the main thread goes on after a restart.
 *   blocker N DELAY_MS  ->  "count I" per step, then "blocker done: last=N"
 * With TEST_HOLD_FILE set it waits for that file before its last count, so a checkpoint taken while
 * it counts always leaves the restart a count to print. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *helper(void *arg)
{
    (void)arg;
    unsigned long all = ~0UL;
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
    for (;;) pause();
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40, delay = argc > 2 ? atoi(argv[2]) : 50;
    pthread_t t;
    pthread_create(&t, NULL, helper, NULL);
    char line[64];
    const char *hold = getenv("TEST_HOLD_FILE");
    for (int i = 1; i <= n; i++) {
        while (i == n && hold && *hold && access(hold, F_OK) != 0) {
            struct timespec d = { 0, 10 * 1000000L };
            nanosleep(&d, NULL);
        }
        int k = snprintf(line, sizeof line, "count %d\n", i);
        if (write(1, line, (size_t)k) != k) return 2;
        struct timespec d = { delay / 1000, (delay % 1000) * 1000000L };
        nanosleep(&d, NULL);
    }
    int k = snprintf(line, sizeof line, "blocker done: last=%d\n", n);
    return write(1, line, (size_t)k) == k ? 0 : 2;
}
