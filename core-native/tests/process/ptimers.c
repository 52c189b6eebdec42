/* ptimers.c - POSIX timers across a checkpoint: a SIGEV_THREAD timer (glibc would run it through a
 * helper thread that blocks every signal) and a SIGEV_SIGNAL timer, both every 5 ms.  Each step
 * checks that both fired since the step before; after a restart they must go on firing.
 *   ptimers STEPS DELAY_MS  ->  "ptimers step I" per step, then "ptimers done: steps=N" (exit 0),
 *   holding before the last step while TEST_HOLD_FILE names a file that does not exist yet,
 *   or "FAIL: ..." (exit 1). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile long thread_ticks, signal_ticks;

static void on_thread(union sigval v) { (void)v; __atomic_add_fetch(&thread_ticks, 1, __ATOMIC_SEQ_CST); }
static void on_signal(int s) { (void)s; signal_ticks++; }

static void out(const char *s) { if (write(1, s, strlen(s)) < 0) _exit(2); }

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 40, delay = argc > 2 ? atoi(argv[2]) : 50;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGRTMIN + 1, &sa, NULL);
    struct sigevent st = { 0 }, ss = { 0 };
    st.sigev_notify = SIGEV_THREAD;
    st.sigev_notify_function = on_thread;
    ss.sigev_notify = SIGEV_SIGNAL;
    ss.sigev_signo = SIGRTMIN + 1;
    timer_t tt, ts;
    if (timer_create(CLOCK_MONOTONIC, &st, &tt) != 0 || timer_create(CLOCK_MONOTONIC, &ss, &ts) != 0) {
        out("FAIL: timer_create\n");
        return 1;
    }
    struct itimerspec it = { { 0, 5000000 }, { 0, 5000000 } };
    timer_settime(tt, 0, &it, NULL);
    timer_settime(ts, 0, &it, NULL);
    long lt = 0, ls = 0;
    char line[128];
    const char *hold = getenv("TEST_HOLD_FILE");
    for (int i = 1; i <= steps; i++) {
        /* before the last step, wait for the harness (tests/programs/prog.h's TEST_HOLD_FILE): a late
         * checkpoint still finds the program running, and the restarted run still has a step to check */
        while (i == steps && hold && *hold && access(hold, F_OK) != 0) {
            struct timespec d = { 0, 10000000 };
            nanosleep(&d, NULL);
        }
        /* at least 3 expiries of each timer before the step counts (waits out a checkpoint) */
        for (int w = 0; w < 20000 && (thread_ticks < lt + 3 || signal_ticks < ls + 3); w++) {
            struct timespec d = { 0, 1000000 };
            nanosleep(&d, NULL);
        }
        if (thread_ticks < lt + 3 || signal_ticks < ls + 3) {
            snprintf(line, sizeof line, "FAIL: step %d: timers stopped (thread %ld->%ld, signal %ld->%ld)\n", i,
                     lt, thread_ticks, ls, signal_ticks);
            out(line);
            return 1;
        }
        lt = thread_ticks;
        ls = signal_ticks;
        snprintf(line, sizeof line, "ptimers step %d\n", i);
        out(line);
        struct timespec d = { delay / 1000, (delay % 1000) * 1000000L };
        nanosleep(&d, NULL);
    }
    struct itimerspec cur;
    if (timer_gettime(tt, &cur) != 0 || cur.it_interval.tv_nsec != 5000000 || timer_delete(tt) != 0 || timer_delete(ts) != 0) {
        out("FAIL: timer_gettime/timer_delete\n");
        return 1;
    }
    snprintf(line, sizeof line, "ptimers done: steps=%d\n", steps);
    out(line);
    return 0;
}
