/*
 * sigwrap.c - keep the checkpoint signal usable by the runtime.
 *
 * The checkpoint thread stops every other thread with the checkpoint signal (MANA_CKPT_SIGNAL,
 * 40 = SIGRTMIN+6 by default: JVMs (SIGUSR2), Python and the MPI launchers (SIGUSR1/2) leave it
 * alone).  A thread that blocks it could never be stopped.  libmana.so is preloaded, so these
 * definitions come first: masks never block the checkpoint signal, and when the program installs a
 * handler for it, the runtime moves to a free real-time signal first (one line with MANA_DEBUG) and
 * the program gets the signal it asked for.  Only when no signal is free is the handler refused (a
 * warning says so once).
 *
 * The fault signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) are the lower half's dispatcher's in
 * the kernel (fault_sig.h): the program's sigaction and signal for them set and read its own action in
 * mana_fault_acts, which the dispatcher calls for a fault in the program's code.
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_util.h"

#include "mana_sys.h"
#include "fault_sig.h"
#include "lh_info.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>


static int ckpt_sig(void)
{
    return mana_plugin_active() ? mana_pl.cfg.ckpt_signal : 0;
}

static const sigset_t *filtered(int how, const sigset_t *set, sigset_t *copy)
{
    int s = ckpt_sig();
    if (!set || !s || how == SIG_UNBLOCK || !sigismember(set, s)) return set;
    *copy = *set;
    sigdelset(copy, s);
    return copy;
}

MANA_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    static int (*real)(int, const sigset_t *, sigset_t *);
    if (!real) real = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "pthread_sigmask");
    sigset_t copy;
    return real(how, filtered(how, set, &copy), old);
}

MANA_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    static int (*real)(int, const sigset_t *, sigset_t *);
    if (!real) real = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "sigprocmask");
    sigset_t copy;
    return real(how, filtered(how, set, &copy), old);
}

static void warn_once(int signo)
{
    static int warned;
    if (warned) return;
    warned = 1;
    mana_warn("the program sets a handler for signal %d, the checkpoint signal, and no other signal is free: "
              "ignored (choose another with mana_launch --ckpt-signal)", signo);
}

struct ksa { uint64_t handler, flags, restorer, mask; };

/* Signals the program has claimed (bit s-1): a restart keeps the runtime off them. */
uint64_t mana_claimed_signals;

/* The program wants signal s, the checkpoint signal: move the runtime's handler to a free real-time
 * signal (default disposition, not the timer helper's SIGRTMAX, not one the program claimed) and
 * switch to it.  0, or -1 when none is free. */
static int move_ckpt_signal(int s)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    int moved = -1;
    if (mana_pl.cfg.ckpt_signal != s) { pthread_mutex_unlock(&lock); return 0; }   /* moved meanwhile */
    struct ksa ours;
    if (mana_sys4(SYS_rt_sigaction, s, 0, (long)&ours, 8) == 0) {
        for (int c = SIGRTMIN + 6; c < SIGRTMAX - 1 && moved < 0; c++) {
            struct ksa cur;
            if ((mana_claimed_signals >> (c - 1)) & 1) continue;
            if (mana_sys4(SYS_rt_sigaction, c, 0, (long)&cur, 8) != 0 || cur.handler != 0) continue;
            if (mana_sys4(SYS_rt_sigaction, c, (long)&ours, 0, 8) != 0) continue;
            __atomic_store_n(&mana_pl.cfg.ckpt_signal, c, __ATOMIC_SEQ_CST);
            moved = c;
        }
    }
    pthread_mutex_unlock(&lock);
    if (moved < 0) return -1;
    mana_dbg("the program claims signal %d: the checkpoint signal is now %d", s, moved);
    return 0;
}

/* ---- fault signals ---- */

/* The program's actions (upper memory: in the image, back with it at a restart). */
struct mana_fault_act mana_fault_acts[MANA_NSIG_TABLE];

uint64_t mana_fault_routed(void)
{
    const struct lh_info *lh = mana_lh_info;
    return lh && lh->upper_fault_acts == (uint64_t)(uintptr_t)mana_fault_acts ? lh->fault_routed : 0;
}

static int fault_routed(int s)
{
    return mana_is_fault_signal(s) && ((mana_fault_routed() >> (s - 1)) & 1);
}

/* The dispatcher in the kernel for signal s, on the alternate stack only where the program's action asks
 * for it (a stack-overflow handler), never on one the program did not ask for (lh_sig.c says why). */
static void fault_install(const struct lh_info *lh, int s)
{
    uint64_t onstack = mana_fault_acts[s].flags & SA_ONSTACK;
    struct ksa d = { lh->fault_dispatch, SA_SIGINFO | SA_RESTART | MANA_SA_RESTORER | onstack, lh->fault_restorer, 0 };
    if (mana_sys4(SYS_rt_sigaction, s, (long)&d, 0, 8) != 0) mana_warn("cannot route signal %d by half", s);
}

/* sigaction on the table (old and act may be the same struct). */
static int fault_sigaction(int signo, const struct sigaction *act, struct sigaction *old)
{
    struct mana_fault_act *t = &mana_fault_acts[signo], was = *t;
    if (act) {
        uint64_t mask = 0;
        memcpy(&mask, &act->sa_mask, sizeof mask);
        t->flags = (uint64_t)(unsigned)act->sa_flags & ~(uint64_t)MANA_SA_RESTORER;
        t->mask = mask;
        __atomic_store_n(&t->handler, (uint64_t)(uintptr_t)act->sa_handler, __ATOMIC_RELEASE);
        if ((was.flags ^ t->flags) & SA_ONSTACK) fault_install(mana_lh_info, signo);
    }
    if (old) {
        memset(old, 0, sizeof *old);
        old->sa_handler = (sighandler_t)(uintptr_t)was.handler;
        old->sa_flags = (int)was.flags;
        memcpy(&old->sa_mask, &was.mask, sizeof was.mask);
    }
    return 0;
}

/* Make the program's table the dispatcher's (plugin init, and after a restart, where the block is new).
 * A fault handler already in the kernel that is not the dispatcher was put there by the program before
 * the plugin was ready (an earlier constructor): it becomes the program's action. */
void mana_fault_publish(struct lh_info *lh)
{
    if (!lh || !lh->fault_routed || !lh->fault_dispatch) return;
    lh->upper_fault_acts = (uint64_t)(uintptr_t)mana_fault_acts;
    for (int s = 1; s <= 64; s++) {
        if (!((lh->fault_routed >> (s - 1)) & 1)) continue;
        struct ksa cur;
        if (mana_sys4(SYS_rt_sigaction, s, 0, (long)&cur, 8) == 0 && cur.handler != lh->fault_dispatch)
            mana_fault_acts[s] = (struct mana_fault_act){ cur.handler, cur.flags & ~(uint64_t)MANA_SA_RESTORER, cur.mask };
        fault_install(lh, s);
    }
}

/* The main thread's alternate signal stack, when the upper half starts, is the MPI library's: UCX's library
 * constructor (MPICH, Open MPI's UCX parts) makes one in the lower half before the program exists.  A
 * handler of the program's with SA_ONSTACK would put its frames there, in memory no image holds: a
 * checkpoint taken while it runs (a long handler, or one that waits) loses them, and a restart on another
 * lower-half layout leaves the thread an alternate stack over someone else's memory.  Natively the thread
 * has an alternate stack of that size, so it gets one of the same size in upper memory (saved and restored
 * with the program).  Called on the main thread by the plug-in's constructor. */
void mana_altstack_adopt(struct lh_info *lh)
{
    stack_t ss;
    if (!lh || !lh->lh_range_count || mana_sys2(SYS_sigaltstack, 0, (long)&ss) != 0) return;
    uint64_t sp = (uint64_t)(uintptr_t)ss.ss_sp;
    if ((ss.ss_flags & (SS_DISABLE | SS_ONSTACK)) ||
        !mana_range_overlaps(lh->lh_ranges, lh->lh_range_count, sp, sp + ss.ss_size)) return;
    size_t n = (ss.ss_size + 4095) & ~(size_t)4095;
    if (n < 65536) n = 65536;
    long p = mana_sys6(SYS_mmap, 0, (long)n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (p < 0 && p > -4096) {
        mana_warn("cannot give the main thread an alternate signal stack of its own (mmap: error %ld); it keeps the "
                  "MPI library's", -p);
        return;
    }
    stack_t up = { .ss_sp = (void *)p, .ss_flags = 0, .ss_size = n };
    long r = mana_sys2(SYS_sigaltstack, (long)&up, 0);
    if (r != 0) {
        mana_warn("cannot give the main thread an alternate signal stack of its own (sigaltstack: error %ld)", -r);
        mana_sys2(SYS_munmap, p, (long)n);
        return;
    }
    mana_dbg("main thread: alternate signal stack %#lx+%zu (the MPI library's at %#lx, in the lower half)",
             (unsigned long)p, n, (unsigned long)sp);
}

MANA_EXPORT int sigaction(int signo, const struct sigaction *act, struct sigaction *old)
{
    if (fault_routed(signo)) return fault_sigaction(signo, act, old);
    static int (*real)(int, const struct sigaction *, struct sigaction *);
    if (!real) real = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
    int s = ckpt_sig();
    if (s && signo == s && act) {
        if (move_ckpt_signal(s) != 0) {
            warn_once(signo);
            return real(signo, NULL, old);
        }
        if (old) { memset(old, 0, sizeof *old); old->sa_handler = SIG_DFL; }   /* as the program left it */
        old = NULL;
    }
    if (s && act && signo >= 1 && signo <= 64) mana_claimed_signals |= 1ULL << (signo - 1);
    return real(signo, act, old);
}

MANA_EXPORT sighandler_t signal(int signo, sighandler_t handler)
{
    static sighandler_t (*real)(int, sighandler_t);
    if (!real) real = (sighandler_t (*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
    if (fault_routed(signo)) {
        /* as glibc's signal: BSD semantics, the signal blocked in its handler */
        struct sigaction sa, was;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = handler;
        sigemptyset(&sa.sa_mask);
        sigaddset(&sa.sa_mask, signo);
        sa.sa_flags = SA_RESTART;
        fault_sigaction(signo, &sa, &was);
        return was.sa_handler;
    }
    int s = ckpt_sig();
    if (s && signo == s) {
        if (move_ckpt_signal(s) != 0) {
            warn_once(signo);
            return SIG_DFL;
        }
        real(signo, handler);
        if (signo >= 1 && signo <= 64) mana_claimed_signals |= 1ULL << (signo - 1);
        return SIG_DFL;
    }
    if (s && signo >= 1 && signo <= 64) mana_claimed_signals |= 1ULL << (signo - 1);
    return real(signo, handler);
}
