/*
 * lh_sig.c - the kernel's handler for the fault signals: it hands each fault to the half it happened in.
 *
 * fault_sig.h says why.  lh_sig_adopt runs after the lower half's MPI_Init (launch) and before the
 * image's handlers are put back (restart): whatever the MPI library installed for SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL and SIGABRT becomes the lower half's action, and the kernel gets fault_dispatch for
 * all five.  The program's actions live in the upper half's table (plugin/sigwrap.c), whose address
 * the plugin publishes in mana_lh.upper_fault_acts (the restore sets it from the image first).
 *
 * Who gets a fault, by the FS base at it: the program's TLS, the program's action; the TLS of a thread
 * the MPI library started, the lower action; the lower TLS a program thread switches to inside MPI,
 * the program's handler when it has one (as natively, where the program's handler installed after
 * MPI_Init replaces the library's), run with FS back on the thread's own TLS (src/mpi's mana_up_fs,
 * at mana_lh.upper_fs_slot), else the lower action.
 *
 * fault_dispatch runs on whatever TLS the thread had at the fault, often the program's: it calls no
 * libc function, touches no TLS (this file is built without the stack protector, as all of the lower
 * half is) and uses raw system calls only.
 */
#define _GNU_SOURCE
#include "lower_half.h"
#include "fault_sig.h"
#include "mana_sys.h"
#include "mana_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define ARCH_SET_FS_ 0x1002
#define ARCH_GET_FS_ 0x1003

struct ksa { uint64_t handler, flags, restorer, mask; };    /* the kernel's struct sigaction */

/* What the MPI library (and anything else of the lower half) asked for. */
static struct mana_fault_act lower_acts[MANA_NSIG_TABLE];

/* The thread's TLS is the lower half's: the one upper threads switch to inside MPI, or one of a
 * thread the MPI library started (its TLS lies in its stack, lower-half memory). */
static int fs_is_lower(uint64_t fs)
{
    return (fs && fs == mana_lh.mpi.lh_fs_base) ||
           mana_range_overlaps(mana_lh.lh_ranges, mana_lh.lh_range_count, fs, fs + 1);
}

/* ---- the one line said when a fault has no handler (no libc: a small formatter) ---- */
struct line { char b[320]; size_t n; };

static void put_str(struct line *l, const char *s)
{
    while (*s && l->n < sizeof l->b - 1) l->b[l->n++] = *s++;
}

static void put_num(struct line *l, uint64_t v, int hex)
{
    char t[24];
    int k = 0;
    unsigned base = hex ? 16 : 10;
    if (hex) put_str(l, "0x");
    do { t[k++] = "0123456789abcdef"[v % base]; v /= base; } while (v && k < (int)sizeof t);
    while (k > 0 && l->n < sizeof l->b - 1) l->b[l->n++] = t[--k];
}

static const char *sig_name(int s)
{
    switch (s) {
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGSEGV: return "SIGSEGV";
    default: return "?";
    }
}

static void say_default(int sig, const siginfo_t *si, const ucontext_t *uc, int lower)
{
    struct line l = { .n = 0 };
    put_str(&l, "mana: rank ");
    put_num(&l, (uint64_t)(int64_t)(mana_lh.settings.rank < 0 ? 0 : mana_lh.settings.rank), 0);
    put_str(&l, " (pid ");
    put_num(&l, (uint64_t)mana_sys0(SYS_getpid), 0);
    put_str(&l, "): ");
    put_str(&l, sig_name(sig));
    if (si->si_code > 0) {
        put_str(&l, " at address ");
        put_num(&l, (uint64_t)(uintptr_t)si->si_addr, 1);
        put_str(&l, ", pc ");
        put_num(&l, (uint64_t)uc->uc_mcontext.gregs[REG_RIP], 1);
    } else {
        put_str(&l, " sent by pid ");
        put_num(&l, (uint64_t)(int64_t)si->si_pid, 0);
    }
    put_str(&l, lower ? ", in the MPI library (lower half), which has no handler for it: default action\n"
                      : ", in the program, which has no handler for it: default action\n");
    mana_sys3(SYS_write, 2, (long)l.b, (long)l.n);
}

/* The kernel's handler of the five fault signals. */
static void fault_dispatch(int sig, siginfo_t *si, void *ucv)
{
    uint64_t fs = 0;
    mana_sys2(SYS_arch_prctl, ARCH_GET_FS_, (long)&fs);
    int lower = fs_is_lower(fs);
    struct mana_fault_act *prog = mana_lh.upper_fault_acts ? (struct mana_fault_act *)(uintptr_t)mana_lh.upper_fault_acts + sig : NULL;
    uint64_t up = 0;
    /* A program thread inside MPI (the lower TLS it switched to): natively the program's handler, installed
     * after MPI_Init, replaces the library's, so it takes this fault too, on the thread's own TLS. */
    if (lower && fs == mana_lh.mpi.lh_fs_base && prog && __atomic_load_n(&prog->handler, __ATOMIC_RELAXED) > 1 &&
        mana_lh.upper_fs_slot)
        up = *(volatile uint64_t *)(uintptr_t)mana_lh.upper_fs_slot;
    struct mana_fault_act *a = up ? prog : lower ? &lower_acts[sig] : prog;
    uint64_t h = a ? __atomic_load_n(&a->handler, __ATOMIC_RELAXED) : 0;
    int sent = si->si_code <= 0;                /* kill, tgkill, raise (abort): no instruction faulted */
    if (h == (uint64_t)(uintptr_t)SIG_IGN) {
        if (sent) return;
        h = 0;                                  /* a real fault cannot be ignored (the kernel kills) */
    }
    if (h > 1) {
        uint64_t flags = a->flags, mask = a->mask;
        if (flags & SA_RESETHAND) __atomic_store_n(&a->handler, 0, __ATOMIC_RELAXED);
        if (mask) mana_sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&mask, 0, 8);
        if (flags & SA_NODEFER) {
            uint64_t me = 1ULL << (sig - 1);
            mana_sys4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&me, 0, 8);
        }
        if (up) mana_sys2(SYS_arch_prctl, ARCH_SET_FS_, (long)up);
        if (flags & SA_SIGINFO) ((void (*)(int, siginfo_t *, void *))(uintptr_t)h)(sig, si, ucv);
        else ((void (*)(int))(uintptr_t)h)(sig);
        if (up) mana_sys2(SYS_arch_prctl, ARCH_SET_FS_, (long)fs);
        return;                                 /* rt_sigreturn puts the mask back */
    }
    /* The default action, where it belongs: back to SIG_DFL, then a fault re-executes its instruction
     * and faults there again (the core shows the program's own state); a sent signal is sent again
     * and stays pending until this handler returns. */
    say_default(sig, si, (const ucontext_t *)ucv, lower);
    struct ksa dfl = { 0, 0, 0, 0 };
    mana_sys4(SYS_rt_sigaction, sig, (long)&dfl, 0, 8);
    if (sent) mana_sys3(SYS_tgkill, mana_sys0(SYS_getpid), mana_sys0(SYS_gettid), sig);
}

/* ---- sigaction of the lower half's libc, once the dispatcher is in the kernel ----
 * A library of the lower half that sets a fault signal's action after MPI_Init (a transport loaded on
 * first use, a library's error handler installed late) would otherwise take the kernel's disposition back
 * from the dispatcher, and its handler would run for the program's own faults again.  So lh_sig_adopt
 * points the lower libc's sigaction (and with it signal, bsd_signal, __sigaction: one function) here:
 * for a routed signal the action goes to lower_acts, where the dispatcher finds it; any other signal goes
 * to the kernel as glibc would send it (its restorer, read back from the kernel when the dispatcher was
 * installed). */
static volatile int hooked;

static int hook_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig < 1 || sig > 64 || ((sig == SIGKILL || sig == SIGSTOP) && act)) { errno = EINVAL; return -1; }
    if (mana_is_fault_signal(sig) && ((mana_lh.fault_routed >> (sig - 1)) & 1)) {
        struct mana_fault_act was = lower_acts[sig];
        if (act) {
            uint64_t m;
            memcpy(&m, &act->sa_mask, sizeof m);
            lower_acts[sig] = (struct mana_fault_act){ (uint64_t)(uintptr_t)act->sa_handler,
                                                       (uint64_t)(unsigned)act->sa_flags, m };
        }
        if (old) {
            memset(old, 0, sizeof *old);
            old->sa_handler = (void (*)(int))(uintptr_t)was.handler;
            old->sa_flags = (int)(was.flags & ~(uint64_t)MANA_SA_RESTORER);
            memcpy(&old->sa_mask, &was.mask, sizeof was.mask);
        }
        return 0;
    }
    struct ksa k, ko;
    if (act) {
        k.handler = (uint64_t)(uintptr_t)act->sa_handler;
        k.flags = (uint64_t)(unsigned)act->sa_flags | MANA_SA_RESTORER;
        k.restorer = mana_lh.fault_restorer;
        memcpy(&k.mask, &act->sa_mask, sizeof k.mask);
    }
    long r = mana_sys4(SYS_rt_sigaction, sig, act ? (long)&k : 0, old ? (long)&ko : 0, 8);
    if (r != 0) { errno = (int)-r; return -1; }
    if (old) {
        memset(old, 0, sizeof *old);
        old->sa_handler = (void (*)(int))(uintptr_t)ko.handler;
        old->sa_flags = (int)ko.flags;
        memcpy(&old->sa_mask, &ko.mask, sizeof ko.mask);
    }
    return 0;
}

/* Test hook (MANA_TEST_LATE_LOWER_HANDLER=1, late_handler.sh): a library of the lower half sets a SIGSEGV
 * handler after MPI_Init.  It must become the lower action: it runs only for a fault of the lower half. */
static void late_lower_handler(int sig)
{
    static const char m[] = "lower-half: test: the late lower-half SIGSEGV handler ran\n";
    mana_sys3(SYS_write, 2, (long)m, sizeof m - 1);
    mana_sys1(SYS_exit_group, 128 + sig);
}

int lh_sig_adopt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fault_dispatch;
    /* No SA_ONSTACK here: a handler goes to an alternate stack only where its action asks (the plugin
     * installs the dispatcher with it where the program's own action does: sigwrap.c, fault_install).
     * The main thread's alternate stack is the program's own by then (mana_altstack_adopt), not the one
     * UCX's constructor made in the lower half. */
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    char held[64] = "";
    for (int s = 1; s <= 64; s++) {
        if (!mana_is_fault_signal(s)) continue;
        struct ksa cur;
        long r = mana_sys4(SYS_rt_sigaction, s, 0, (long)&cur, 8);
        if (r != 0) { mana_err("cannot read the handler of signal %d: %s", s, strerror((int)-r)); return -1; }
        if (cur.handler == (uint64_t)(uintptr_t)fault_dispatch) continue;
        lower_acts[s] = (struct mana_fault_act){ cur.handler, cur.flags, cur.mask };
        if (cur.handler > 1) {
            size_t n = strlen(held);
            snprintf(held + n, sizeof held - n, "%s%s", n ? " " : "", sig_name(s));
        }
        if (sigaction(s, &sa, NULL) != 0) {
            mana_err("cannot install the fault handler of signal %d: %s", s, strerror(errno));
            return -1;
        }
    }
    struct ksa d;
    long r = mana_sys4(SYS_rt_sigaction, SIGSEGV, 0, (long)&d, 8);
    if (r != 0) { mana_err("cannot read the handler of SIGSEGV: %s", strerror((int)-r)); return -1; }
    mana_lh.fault_dispatch = d.handler;
    mana_lh.fault_restorer = d.restorer;
    mana_lh.fault_routed = MANA_FAULT_SIGNALS;
    mana_dbg("fault signals dispatched by half; the lower half's own handlers: %s", held[0] ? held : "none");
    if (!hooked) {
        if (lh_patch("sigaction", (void *)hook_sigaction) != 0) return -1;
        hooked = 1;
    }
    const char *late = getenv("MANA_TEST_LATE_LOWER_HANDLER");
    if (late && strcmp(late, "1") == 0) {
        struct sigaction la;
        memset(&la, 0, sizeof la);
        la.sa_handler = late_lower_handler;
        sigemptyset(&la.sa_mask);
        if (sigaction(SIGSEGV, &la, NULL) != 0) mana_warn("test: cannot set the late lower-half SIGSEGV handler");
        else mana_warn("test: a late SIGSEGV handler set in the lower half (MANA_TEST_LATE_LOWER_HANDLER)");
    }
    return 0;
}
