/*
 * timers.c - POSIX timers (timer_create) that survive a checkpoint and a restart.
 *
 * The kernel's timers are not in the image and their ids change; glibc runs SIGEV_THREAD timers
 * through a helper thread that blocks every signal (so the checkpoint could never stop it).  So the
 * plugin keeps the program's timers itself (it is preloaded: these definitions come first):
 *
 *  - every timer_t the program gets is a handle into the table below (upper-half memory, so it is
 *    in the image); each entry holds the kernel timer id, the clock, the notification and, from the
 *    last checkpoint, the time left and the interval;
 *  - SIGEV_THREAD timers notify a helper thread of the plugin (SIGEV_THREAD_ID, signal TIMER_SIG,
 *    blocked there and taken with sigwaitinfo); it starts the program's function in a new detached
 *    thread per expiry, as glibc does.  The helper is an ordinary thread: the checkpoint stops it,
 *    saves it and the restart brings it back;
 *  - at a checkpoint (threads stopped) the table records what each timer has left; in a restarted
 *    process (another pid) the first use of the table, or the checkpoint thread right after the
 *    restart, creates the kernel timers again with the same notification and arms them with what
 *    they had left (a timer that was about to fire fires at once) and their interval.
 *
 * Not kept: SIGEV_THREAD_ID timers aimed at a thread of the program (its tid changes at restart;
 * they are re-created aimed at the process instead), and overrun counts.
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_sys.h"
#include "mana_util.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#define MAX_TIMERS 256
#define HANDLE_BASE 0x4d414e0000000000ULL     /* "MAN": never a kernel id nor a glibc handle */
#define TIMER_SIG (SIGRTMAX)                  /* only ever sent to the helper, which blocks it */

struct vtimer {
    int      used;
    int      kid;                     /* kernel timer id in this process */
    clockid_t clock;
    int      notify;                  /* SIGEV_* as the program asked */
    int      signo;
    union sigval value;
    void   (*fn)(union sigval);
    pthread_attr_t attr;
    int      has_attr;
    struct itimerspec saved;          /* at the last checkpoint: time left (relative), interval */
};

static struct vtimer vt[MAX_TIMERS];
static pthread_mutex_t vt_lock = PTHREAD_MUTEX_INITIALIZER;
static int vt_pid;                    /* the process the kernel timers belong to */
static pthread_t helper;
static volatile int helper_tid;
static int helper_started;

/* The kernel's struct sigevent (glibc's has the same layout for what we use). */
static long k_timer_create(clockid_t clock, struct sigevent *sev, int *kid)
{
    return mana_sys3(SYS_timer_create, clock, (long)sev, (long)kid);
}

static struct vtimer *lookup(timer_t h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if ((v & ~0xffffULL) != HANDLE_BASE || (v & 0xffff) >= MAX_TIMERS || !vt[v & 0xffff].used) return NULL;
    return &vt[v & 0xffff];
}

static void *run_fn(void *arg)
{
    struct vtimer *t = arg;
    t->fn(t->value);
    return NULL;
}

static void *helper_main(void *arg)
{
    (void)arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, TIMER_SIG);
    for (;;) {
        helper_tid = mana_gettid();
        siginfo_t si;
        int s = sigwaitinfo(&set, &si);
        if (s != TIMER_SIG || si.si_code != SI_TIMER) continue;    /* EINTR: a checkpoint stopped us */
        int idx = si.si_value.sival_int;
        if (idx < 0 || idx >= MAX_TIMERS || !vt[idx].used || vt[idx].notify != SIGEV_THREAD) continue;
        pthread_t th;
        pthread_attr_t a;
        pthread_attr_t *ap = vt[idx].has_attr ? &vt[idx].attr : &a;
        if (!vt[idx].has_attr) pthread_attr_init(&a);
        pthread_attr_setdetachstate(ap, PTHREAD_CREATE_DETACHED);
        pthread_create(&th, ap, run_fn, &vt[idx]);
        if (!vt[idx].has_attr) pthread_attr_destroy(&a);
    }
    return NULL;
}

static int start_helper(void)
{
    if (helper_started) return 0;
    sigset_t all, old;
    sigemptyset(&all);
    sigaddset(&all, TIMER_SIG);
    /* the helper inherits TIMER_SIG blocked (and nothing else: the checkpoint can stop it) */
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&helper, NULL, helper_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) { errno = EAGAIN; return -1; }
    while (!__atomic_load_n(&helper_tid, __ATOMIC_SEQ_CST)) sched_yield();
    helper_started = 1;
    return 0;
}

/* The kernel's notification for entry i (this process). */
static void kernel_event(int i, struct sigevent *k)
{
    memset(k, 0, sizeof *k);
    struct vtimer *t = &vt[i];
    if (t->notify == SIGEV_THREAD) {
        k->sigev_notify = SIGEV_THREAD_ID;
        k->sigev_signo = TIMER_SIG;
        k->sigev_value.sival_int = i;
        k->_sigev_un._tid = helper_tid;
    } else {
        k->sigev_notify = t->notify == SIGEV_THREAD_ID ? SIGEV_SIGNAL : t->notify;
        k->sigev_signo = t->signo;
        k->sigev_value = t->value;
    }
}

/* In a restarted process: make the kernel timers again and arm them as they were.  vt_lock held. */
static void refresh_locked(void)
{
    int pid = mana_getpid();
    if (vt_pid == pid) return;
    vt_pid = pid;
    if (helper_started) {
        /* the helper came back with the other threads; its new tid is in glibc's descriptor */
        int tid = mana_pl.tid_offset ? *(volatile int *)((char *)helper + mana_pl.tid_offset) : 0;
        if (tid > 0) helper_tid = tid;
    }
    for (int i = 0; i < MAX_TIMERS; i++) {
        if (!vt[i].used) continue;
        struct sigevent k;
        kernel_event(i, &k);
        int kid = -1;
        long r = k_timer_create(vt[i].clock, &k, &kid);
        if (r != 0) {
            mana_warn("cannot re-create a POSIX timer after restart: %s", strerror((int)-r));
            continue;
        }
        vt[i].kid = kid;
        struct itimerspec its = vt[i].saved;
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0 &&
            (its.it_interval.tv_sec || its.it_interval.tv_nsec))
            its.it_value.tv_nsec = 1;          /* was about to fire */
        if (its.it_value.tv_sec || its.it_value.tv_nsec)
            mana_sys4(SYS_timer_settime, kid, 0, (long)&its, 0);
    }
}

static void refresh(void)
{
    if (vt_pid == mana_getpid()) return;
    pthread_mutex_lock(&vt_lock);
    refresh_locked();
    pthread_mutex_unlock(&vt_lock);
}

/* Checkpoint thread, every other thread stopped: what each timer has left. */
void mana_timers_snapshot(void)
{
    for (int i = 0; i < MAX_TIMERS; i++) {
        if (!vt[i].used) continue;
        struct itimerspec cur;
        if (mana_sys2(SYS_timer_gettime, vt[i].kid, (long)&cur) == 0) vt[i].saved = cur;
    }
}

/* Checkpoint thread after a restart. */
void mana_timers_restarted(void)
{
    refresh();
}

MANA_EXPORT int timer_create(clockid_t clock, struct sigevent *sev, timer_t *out)
{
    static int (*real)(clockid_t, struct sigevent *, timer_t *);
    if (!mana_plugin_active()) {
        if (!real) real = (int (*)(clockid_t, struct sigevent *, timer_t *))dlsym(RTLD_NEXT, "timer_create");
        return real(clock, sev, out);
    }
    pthread_mutex_lock(&vt_lock);
    refresh_locked();
    int i = 0;
    while (i < MAX_TIMERS && vt[i].used) i++;
    if (i == MAX_TIMERS) { pthread_mutex_unlock(&vt_lock); errno = EAGAIN; return -1; }
    struct vtimer *t = &vt[i];
    memset(t, 0, sizeof *t);
    t->clock = clock;
    t->notify = sev ? sev->sigev_notify : SIGEV_SIGNAL;
    t->signo = sev ? sev->sigev_signo : SIGALRM;
    t->value.sival_int = i;                       /* POSIX: NULL sevp means sival = the timer id */
    if (sev) t->value = sev->sigev_value;
    if (t->notify == SIGEV_THREAD) {
        t->fn = sev->sigev_notify_function;
        if (sev->sigev_notify_attributes) {
            t->attr = *sev->sigev_notify_attributes;    /* as glibc: the attributes are copied */
            t->has_attr = 1;
        }
        if (start_helper() != 0) { pthread_mutex_unlock(&vt_lock); return -1; }
    }
    struct sigevent k;
    if (t->notify == SIGEV_THREAD_ID) {
        k = *sev;
    } else {
        kernel_event(i, &k);
    }
    int kid = -1;
    long r = k_timer_create(clock, &k, &kid);
    if (r != 0) { pthread_mutex_unlock(&vt_lock); errno = (int)-r; return -1; }
    t->kid = kid;
    t->used = 1;
    vt_pid = mana_getpid();
    pthread_mutex_unlock(&vt_lock);
    *out = (timer_t)(uintptr_t)(HANDLE_BASE | (uint64_t)i);
    return 0;
}

/* A handle that is not ours (made before the plugin started, or in a child): glibc's. */
static void *real_fn(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static int ret(long r)
{
    if (r < 0) { errno = (int)-r; return -1; }
    return (int)r;
}

MANA_EXPORT int timer_settime(timer_t h, int flags, const struct itimerspec *v, struct itimerspec *old)
{
    struct vtimer *t = lookup(h);
    if (!t) return ((int (*)(timer_t, int, const struct itimerspec *, struct itimerspec *))real_fn("timer_settime"))(h, flags, v, old);
    refresh();
    return ret(mana_sys4(SYS_timer_settime, t->kid, flags, (long)v, (long)old));
}

MANA_EXPORT int timer_gettime(timer_t h, struct itimerspec *cur)
{
    struct vtimer *t = lookup(h);
    if (!t) return ((int (*)(timer_t, struct itimerspec *))real_fn("timer_gettime"))(h, cur);
    refresh();
    return ret(mana_sys2(SYS_timer_gettime, t->kid, (long)cur));
}

MANA_EXPORT int timer_getoverrun(timer_t h)
{
    struct vtimer *t = lookup(h);
    if (!t) return ((int (*)(timer_t))real_fn("timer_getoverrun"))(h);
    refresh();
    return ret(mana_sys1(SYS_timer_getoverrun, t->kid));
}

MANA_EXPORT int timer_delete(timer_t h)
{
    struct vtimer *t = lookup(h);
    if (!t) {
        static int (*real)(timer_t);
        if (!real) real = (int (*)(timer_t))dlsym(RTLD_NEXT, "timer_delete");
        return real(h);
    }
    pthread_mutex_lock(&vt_lock);
    refresh_locked();
    long r = mana_sys1(SYS_timer_delete, t->kid);
    t->used = 0;
    pthread_mutex_unlock(&vt_lock);
    if (r < 0) { errno = (int)-r; return -1; }
    return 0;
}
