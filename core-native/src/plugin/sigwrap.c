/*
 * sigwrap.c - keep the checkpoint signal usable by the runtime.
 *
 * The checkpoint thread stops every other thread with the checkpoint signal (MANA_CKPT_SIGNAL,
 * SIGUSR2 by default).  A thread that blocks it could never be stopped, and a program that installs
 * its own handler for it would take it away from the runtime.  libmana.so is preloaded, so these
 * definitions come first: masks never block the checkpoint signal, and a handler for it is not
 * installed (a warning says so once; use --ckpt-signal to pick a signal the program leaves alone).
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_util.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

int mana_plugin_active(void);

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

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    static int (*real)(int, const sigset_t *, sigset_t *);
    if (!real) real = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "pthread_sigmask");
    sigset_t copy;
    return real(how, filtered(how, set, &copy), old);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
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
    mana_warn("the program sets a handler for signal %d, the checkpoint signal: ignored "
              "(choose another with mana_launch --ckpt-signal)", signo);
}

int sigaction(int signo, const struct sigaction *act, struct sigaction *old)
{
    static int (*real)(int, const struct sigaction *, struct sigaction *);
    if (!real) real = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
    int s = ckpt_sig();
    if (s && signo == s && act) {
        warn_once(signo);
        return real(signo, NULL, old);
    }
    return real(signo, act, old);
}

sighandler_t signal(int signo, sighandler_t handler)
{
    static sighandler_t (*real)(int, sighandler_t);
    if (!real) real = (sighandler_t (*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
    int s = ckpt_sig();
    if (s && signo == s) {
        warn_once(signo);
        return SIG_DFL;
    }
    return real(signo, handler);
}
