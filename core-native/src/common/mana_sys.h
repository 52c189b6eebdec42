/*
 * mana_sys.h - raw Linux x86-64 system calls that never touch errno or TLS.
 *
 * Used where the caller may run on the "wrong" TLS (the restore code after FS was switched to the
 * upper half, the upper-half signal handler, thread boot code).  Every function returns the kernel's
 * raw result: >= 0 on success, -errno on failure.
 */
#ifndef MANA_SYS_H
#define MANA_SYS_H

#include <stdint.h>
#include <sys/syscall.h>

static inline long mana_sys0(long n)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n) : "rcx", "r11", "memory");
    return r;
}
static inline long mana_sys1(long n, long a)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a) : "rcx", "r11", "memory");
    return r;
}
static inline long mana_sys2(long n, long a, long b)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b) : "rcx", "r11", "memory");
    return r;
}
static inline long mana_sys3(long n, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}
static inline long mana_sys4(long n, long a, long b, long c, long d)
{
    long r;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return r;
}
static inline long mana_sys6(long n, long a, long b, long c, long d, long e, long f)
{
    long r;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return r;
}

#define MANA_FUTEX_WAIT_PRIVATE 128   /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG */
#define MANA_FUTEX_WAKE_PRIVATE 129   /* FUTEX_WAKE | FUTEX_PRIVATE_FLAG */

static inline long mana_futex_wait(volatile int *addr, int val)
{
    return mana_sys4(SYS_futex, (long)addr, MANA_FUTEX_WAIT_PRIVATE, val, 0);
}
static inline long mana_futex_wake(volatile int *addr, int n)
{
    return mana_sys3(SYS_futex, (long)addr, MANA_FUTEX_WAKE_PRIVATE, n);
}
static inline int mana_gettid(void) { return (int)mana_sys0(SYS_gettid); }
static inline int mana_getpid(void) { return (int)mana_sys0(SYS_getpid); }
static inline long mana_write_all(int fd, const void *buf, unsigned long len)
{
    const char *p = buf;
    while (len > 0) {
        long r = mana_sys3(SYS_write, fd, (long)p, (long)len);
        if (r == -4) continue;      /* EINTR */
        if (r <= 0) return r ? r : -5;
        p += r;
        len -= (unsigned long)r;
    }
    return 0;
}

#endif
