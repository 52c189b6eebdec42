/* mana_ctx.S - see mana_ctx.h.  x86-64 System V. */
        .text
        .globl  mana_ctx_save
        .hidden mana_ctx_save
        .type   mana_ctx_save, @function
mana_ctx_save:
        movq    %rbx, 0(%rdi)
        movq    %rbp, 8(%rdi)
        movq    %r12, 16(%rdi)
        movq    %r13, 24(%rdi)
        movq    %r14, 32(%rdi)
        movq    %r15, 40(%rdi)
        leaq    8(%rsp), %rax
        movq    %rax, 48(%rdi)
        movq    (%rsp), %rax
        movq    %rax, 56(%rdi)
        stmxcsr 64(%rdi)
        fnstcw  68(%rdi)
        xorl    %eax, %eax
        ret
        .size   mana_ctx_save, .-mana_ctx_save

        .globl  mana_ctx_resume
        .hidden mana_ctx_resume
        .type   mana_ctx_resume, @function
mana_ctx_resume:
        movq    %rsi, %rax
        movq    0(%rdi), %rbx
        movq    8(%rdi), %rbp
        movq    16(%rdi), %r12
        movq    24(%rdi), %r13
        movq    32(%rdi), %r14
        movq    40(%rdi), %r15
        ldmxcsr 64(%rdi)
        fldcw   68(%rdi)
        movq    48(%rdi), %rsp
        jmpq    *56(%rdi)
        .size   mana_ctx_resume, .-mana_ctx_resume

        .section .note.GNU-stack,"",@progbits
