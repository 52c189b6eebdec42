/*
 * heldlock.c - a worker thread holds a recursive mutex (glibc records the owner's tid in it) across
 * a checkpoint, then unlocks it.  After a restart the unlock only succeeds if the thread got its old
 * tid back (clone3 set_tid; needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN) or the plugin gives
 * the mutex the thread's new tid (mutexwrap.c).  With "main", the main thread holds it (its tid is
 * the pid, which always changes), and locks it once more after the hold, as sqlite would.
 *   heldlock [HOLD_MS=3000] [main]     (and, with TEST_HOLD_FILE set, until that file exists)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m;
static long hold_ms = 3000;

static void say(const char *s)
{
    if (write(1, s, strlen(s)) < 0) _exit(3);
}

static void *worker(void *arg)
{
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&m);
    say("heldlock: worker holds the lock\n");
    struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) { }
    /* TEST_HOLD_FILE (tests/programs/prog.h): the harness lets go once its checkpoint is taken, so the
     * lock is held across it however slow the machine is */
    const char *hold = getenv("TEST_HOLD_FILE");
    while (hold && *hold && access(hold, F_OK) != 0) {
        struct timespec tick = { 0, 10000000L };
        nanosleep(&tick, NULL);
    }
    pthread_mutex_lock(&m);                  /* the owner again: counts up (never waits for itself) */
    pthread_mutex_unlock(&m);
    int r1 = pthread_mutex_unlock(&m), r2 = pthread_mutex_unlock(&m);
    char line[128];
    snprintf(line, sizeof line, "heldlock done: unlock %s/%s\n", strerror(r1), strerror(r2));
    say(line);
    return arg;
}

int main(int argc, char **argv)
{
    if (argc > 1) hold_ms = atol(argv[1]);
    pthread_mutexattr_t at;
    pthread_mutexattr_init(&at);
    pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&m, &at);
    if (argc > 2 && strcmp(argv[2], "main") == 0) {
        worker(NULL);
        return 0;
    }
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return 0;
}
