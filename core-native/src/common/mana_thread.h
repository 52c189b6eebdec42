/*
 * mana_thread.h - raw threads for code that may not use libc's: the checkpoint writer (the program's
 * threads are parked, any of them inside malloc or holding a libc lock) and the restore (thread stacks
 * cached by the lower half's libc would stay behind as memory nobody listed).
 *
 * A raw thread is a clone(CLONE_VM | CLONE_THREAD ...) on a stack the caller provides; it shares the
 * creator's TLS pointer, so what it runs must not touch TLS (no errno, no stack protector, no lazy PLT
 * binding: call each library function once on the creating thread first).  mana_raw_join waits for
 * the kernel to clear the tid word at the thread's exit.
 */
#ifndef MANA_THREAD_H
#define MANA_THREAD_H

#include "mana_sys.h"
#include <sched.h>

#define MANA_RAW_THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
                               CLONE_CHILD_CLEARTID)

/*
 * Start fn(arg) on [.., stack_top) (16-byte aligned); it exits (this thread only) with fn's result.
 * *ctid must be nonzero before: the kernel zeroes it when the thread is gone.  Returns the tid or
 * -errno.  In assembly because the child must not return through the parent's frame.
 */
static inline long mana_raw_thread(char *stack_top, volatile int *ctid, int (*fn)(void *), void *arg)
{
    long ret;
    register long r10 __asm__("r10") = (long)ctid;
    register long r8 __asm__("r8") = 0;
    register long r12 __asm__("r12") = (long)arg;
    register long r13 __asm__("r13") = (long)fn;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "xor %%ebp, %%ebp\n\t"         /* the child: outermost frame */
                     "mov %%r12, %%rdi\n\t"
                     "call *%%r13\n\t"
                     "mov %%eax, %%edi\n\t"
                     "mov $60, %%eax\n\t"           /* SYS_exit */
                     "syscall\n\t"
                     "hlt\n"
                     "1:"
                     : "=a"(ret)
                     : "0"((long)SYS_clone), "D"((long)MANA_RAW_THREAD_FLAGS), "S"((long)stack_top), "d"(0L),
                       "r"(r10), "r"(r8), "r"(r12), "r"(r13)
                     : "rcx", "r11", "memory");
    return ret;
}

/* Until the thread behind *ctid is gone (a shared futex: the kernel's wake at exit is one). */
static inline void mana_raw_join(volatile int *ctid)
{
    for (int t; (t = __atomic_load_n(ctid, __ATOMIC_ACQUIRE)) != 0;)
        mana_sys4(SYS_futex, (long)ctid, 0 /* FUTEX_WAIT */, t, 0);
}

#endif
