/*
 * restore_asm.S - raw thread creation for the restore code.
 *
 * long lh_clone(unsigned long flags, void *stack, int *ptid, int *ctid, unsigned long tls,
 *               struct lh_boot *boot)
 *
 * The parent gets the new tid (or -errno).  The child starts on `stack` with the upper half's TLS
 * (CLONE_SETTLS) and calls lh_thread_boot(boot), which never returns.
 */
        .text
        .globl  lh_clone
        .hidden lh_clone
        .type   lh_clone, @function
lh_clone:
        pushq   %r12
        movq    %r9, %r12               /* boot survives the syscall in a callee-saved register */
        movq    %rcx, %r10              /* kernel order: flags, stack, ptid, ctid, tls */
        movl    $56, %eax               /* SYS_clone */
        syscall
        testq   %rax, %rax
        jz      1f
        popq    %r12
        ret
1:      xorl    %ebp, %ebp              /* child */
        andq    $-16, %rsp
        movq    %r12, %rdi
        call    lh_thread_boot
        hlt
        .size   lh_clone, .-lh_clone

/*
 * long lh_clone3(void *clone_args, unsigned long size, struct lh_boot *boot)
 * Same as lh_clone with clone3 (so that set_tid can ask for the thread's old tid).  The child starts
 * on clone_args.stack + stack_size.
 */
        .globl  lh_clone3
        .hidden lh_clone3
        .type   lh_clone3, @function
lh_clone3:
        pushq   %r12
        movq    %rdx, %r12
        movl    $435, %eax              /* SYS_clone3 */
        syscall
        testq   %rax, %rax
        jz      1f
        popq    %r12
        ret
1:      xorl    %ebp, %ebp
        andq    $-16, %rsp
        movq    %r12, %rdi
        call    lh_thread_boot
        hlt
        .size   lh_clone3, .-lh_clone3

/* void lh_sigreturn(uint64_t ucontext) - rt_sigreturn on a saved signal frame. */
        .globl  lh_sigreturn
        .hidden lh_sigreturn
        .type   lh_sigreturn, @function
lh_sigreturn:
        movq    %rdi, %rsp
        movl    $15, %eax               /* SYS_rt_sigreturn */
        syscall
        /* only reached if the kernel refused the frame (it normally kills with SIGSEGV) */
        movl    $231, %eax              /* SYS_exit_group */
        movl    $1, %edi
        syscall
        hlt
        .size   lh_sigreturn, .-lh_sigreturn

        .section .note.GNU-stack,"",@progbits
