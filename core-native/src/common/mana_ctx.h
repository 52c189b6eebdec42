/*
 * mana_ctx.h - a minimal saved execution context (callee-saved registers, stack, resume address,
 * FPU control words), like setjmp/longjmp but without glibc's pointer mangling (which depends on a
 * per-libc secret in the TLS) so that the restore code of a *new* lower half can resume it.
 *
 * Used for the checkpoint thread only; the user threads are saved in their signal frames.
 */
#ifndef MANA_CTX_H
#define MANA_CTX_H

#include <stdint.h>

struct mana_ctx {
    uint64_t rbx, rbp, r12, r13, r14, r15;   /*  0 .. 40 */
    uint64_t rsp;                             /* 48: stack pointer after mana_ctx_save returns */
    uint64_t rip;                             /* 56: return address of mana_ctx_save */
    uint32_t mxcsr;                           /* 64 */
    uint16_t fpucw;                           /* 68 */
    uint16_t pad;
    uint64_t reserved;
};

/* Returns 0 when saving; returns `value` (non-zero) when resumed by mana_ctx_resume. */
long mana_ctx_save(struct mana_ctx *ctx) __attribute__((returns_twice));
__attribute__((noreturn)) void mana_ctx_resume(const struct mana_ctx *ctx, long value);

#endif
