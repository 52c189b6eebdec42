/*
 * signals [N=40] [DELAY_MS=100] - signal state that a restart must bring
 * back:
 *   - a SIGUSR1 handler (SA_ONSTACK, on an alternate signal stack) that
 *     counts; step I sends itself SIGUSR1 (kill() on even steps, raise() on
 *     odd ones: raise() uses glibc's cached tid) and checks the count is I
 *     and that the handler ran on the alternate stack;
 *   - an ITIMER_REAL interval timer (10 ms) whose SIGALRM handler counts
 *     ticks: every step checks ticks still advance while it sleeps;
 *   - SIGURG blocked in the signal mask: every step checks it still is;
 *   - the handlers still installed (sigaction reads them back).
 * Prints "signals step I usr1=I timer=ok mask=ok", and at the end
 * "signals done: usr1=N steps=N" (tick counts depend on timing: not printed).
 * SIGUSR2 and signal 40 are left alone (40 is the runtime's default checkpoint signal).
 */
#include <signal.h>
#include <sys/time.h>

#include "prog.h"

static volatile sig_atomic_t usr1, ticks, on_altstack;
static char altstack[64 * 1024];

static void on_usr1(int sig)
{
    char here;
    (void)sig;
    usr1++;
    on_altstack = &here >= altstack && &here < altstack + sizeof altstack;
}

static void on_alrm(int sig)
{
    (void)sig;
    ticks++;
}

int main(int argc, char **argv)
{
    long n = arg_long(argc, argv, 1, 40);
    long delay = arg_long(argc, argv, 2, 100);
    struct sigaction sa;

    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) < 0)
        fail("sigaltstack: %s", strerror(errno));
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) < 0)
        fail("sigaction SIGUSR1: %s", strerror(errno));
    sa.sa_handler = on_alrm;
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGALRM, &sa, NULL) < 0)
        fail("sigaction SIGALRM: %s", strerror(errno));

    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGURG);
    if (sigprocmask(SIG_BLOCK, &block, NULL) < 0)
        fail("sigprocmask: %s", strerror(errno));

    struct itimerval it = {{0, 10000}, {0, 10000}};
    if (setitimer(ITIMER_REAL, &it, NULL) < 0)
        fail("setitimer: %s", strerror(errno));

    for (long i = 1; i <= n; i++) {
        if (i % 2 == 0) {
            if (kill(getpid(), SIGUSR1) < 0)
                fail("kill: %s", strerror(errno));
        } else if (raise(SIGUSR1) != 0) {
            fail("raise: %s", strerror(errno));
        }
        if (usr1 != i)
            fail("step %ld: SIGUSR1 count %d", i, (int)usr1);
        if (!on_altstack)
            fail("step %ld: SIGUSR1 handler did not run on the alternate stack", i);

        struct sigaction cur;
        if (sigaction(SIGUSR1, NULL, &cur) < 0 || cur.sa_handler != on_usr1 ||
            !(cur.sa_flags & SA_ONSTACK))
            fail("step %ld: SIGUSR1 handler lost", i);
        if (sigaction(SIGALRM, NULL, &cur) < 0 || cur.sa_handler != on_alrm)
            fail("step %ld: SIGALRM handler lost", i);
        sigset_t now;
        if (sigprocmask(SIG_BLOCK, NULL, &now) < 0 || !sigismember(&now, SIGURG))
            fail("step %ld: SIGURG no longer blocked", i);

        /* The timer fires every 10 ms: a sleep of DELAY_MS (>= 30 ms) must
         * see ticks.  Sleep in short pieces so the check holds even when the
         * process was stopped for a while (checkpoint) in between. */
        sig_atomic_t t0 = ticks;
        long slept = 0;
        while (slept < (delay < 30 ? 30 : delay)) {
            sleep_ms(10);
            slept += 10;
        }
        if (ticks == t0)
            fail("step %ld: interval timer stopped (no SIGALRM in %ld ms)", i, slept);
        out("signals step %ld usr1=%d timer=ok mask=ok\n", i, (int)usr1);
    }
    hold_before_done();
    out("signals done: usr1=%d steps=%ld\n", (int)usr1, n);
    return 0;
}
