/* Where glibc keeps a thread's kernel tid inside its thread descriptor (struct pthread).
 *
 * The plugin rewrites that field at restart, when every thread has a new tid, and the MPI wrappers
 * read it to know which thread they run on without a system call.  glibc does not export the
 * offset, so it is found at start-up, by two independent means that must agree where both work. */
#ifndef MANA_TID_OFFSET_H
#define MANA_TID_OFFSET_H

#include <stdint.h>

/* Ask the kernel: glibc registers &pd->tid with set_tid_address() when a thread starts, and
 * prctl(PR_GET_TID_ADDRESS) returns it (kernels built with CONFIG_CHECKPOINT_RESTORE).  Returns 0
 * and sets *off, or -1 when the kernel cannot say or the address is not in this thread's descriptor. */
int mana_tid_offset_from_kernel(uint32_t *off);

/* Without the kernel: start a second thread and take the one offset that holds the tid in both
 * descriptors.  Returns 0 and sets *off, or -1 (no thread could be started, or no such offset). */
int mana_tid_offset_by_probe(uint32_t *off);

/* Bytes of the descriptor searched by the probe, and accepted from the kernel. */
#define MANA_TID_OFFSET_LIMIT 2048u

#endif
