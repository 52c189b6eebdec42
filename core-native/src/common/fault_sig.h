/*
 * fault_sig.h - the fault signals, which both halves want handlers for.
 *
 * The MPI libraries in the lower half install handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL (UCX) and
 * SIGABRT (Open MPI) in MPI_Init.  A disposition is process-wide, so without care such a handler also
 * runs for a fault of the program's own code: on the program's TLS, where the lower libc it calls
 * (UCX's strsignal) faults again, and the core shows that second fault, not the program's.
 *
 * So the kernel holds one dispatcher for these signals (lower-half/lh_sig.c), and each half keeps its
 * own action in a table: the lower half's libraries' in the lower half, the program's in the upper
 * half (plugin/sigwrap.c: the program's sigaction and signal land there).  The dispatcher looks at the
 * FS base at the fault: the program's TLS picks the program's action; a thread of the MPI library
 * (its own lower TLS) the lower action; a program thread inside MPI the program's action when it has a
 * handler (natively it would have replaced the library's), run on the thread's own TLS, else the
 * lower action.  No handler means the default action at the faulting instruction itself (a core
 * there).
 */
#ifndef MANA_FAULT_SIG_H
#define MANA_FAULT_SIG_H

#include <stdint.h>

/* An action as a half asked for it: handler (0 = SIG_DFL, 1 = SIG_IGN), sa_flags, the first 64
 * signals of sa_mask (the kernel's mask). */
struct mana_fault_act {
    uint64_t handler;
    uint64_t flags;
    uint64_t mask;
};

#define MANA_NSIG_TABLE 65                           /* indexed by signal number 1..64 */
#define MANA_SA_RESTORER 0x04000000                  /* the kernel's flag, which glibc's headers do not export */

/* SIGILL 4, SIGABRT 6, SIGBUS 7, SIGFPE 8, SIGSEGV 11: bit s-1 for signal s. */
#define MANA_FAULT_SIGNALS ((1ULL << 3) | (1ULL << 5) | (1ULL << 6) | (1ULL << 7) | (1ULL << 10))

static inline int mana_is_fault_signal(int s)
{
    return s >= 1 && s <= 64 && ((MANA_FAULT_SIGNALS >> (s - 1)) & 1);
}

#endif
