/* tid_offset.c: find glibc's tid field in the thread descriptor (see tid_offset.h).
 *
 * Why not "the first int equal to the tid": pid_max is often 32768, and tid 32767 is 0x7fff, the
 * upper half of every pointer into 0x7fff........, such as the descriptor's own first word.  A rank
 * that used that offset read every thread's tid as 32767 and held its checkpoint thread at the
 * restart gate for good (about once per pid wrap); a plain process had its restart tids written
 * over that pointer.  Both ways below name the field itself. */
#define _GNU_SOURCE
#include "tid_offset.h"

#include <pthread.h>
#include <stddef.h>
#include <sys/prctl.h>

#include "mana_sys.h"

int mana_tid_offset_from_kernel(uint32_t *off)
{
    const char *pd = (const char *)pthread_self();
    int *at = NULL;
    if (prctl(PR_GET_TID_ADDRESS, &at, 0, 0, 0) != 0) return -1;
    if ((const char *)at <= pd || (const char *)at >= pd + MANA_TID_OFFSET_LIMIT) return -1;
    if (*at != mana_gettid()) return -1;
    *off = (uint32_t)((const char *)at - pd);
    return 0;
}

struct tid_probe { const char *first_pd; int first_tid; uint32_t off; };

/* On the second thread: the tids differ, so only the tid field matches in both descriptors. */
static void *tid_probe_thread(void *arg)
{
    struct tid_probe *p = arg;
    const char *pd = (const char *)pthread_self();
    int tid = mana_gettid();
    for (uint32_t o = 4; o < MANA_TID_OFFSET_LIMIT; o += 4)
        if (*(const int *)(p->first_pd + o) == p->first_tid && *(const int *)(pd + o) == tid) {
            p->off = o;
            break;
        }
    return NULL;
}

int mana_tid_offset_by_probe(uint32_t *off)
{
    struct tid_probe p = { (const char *)pthread_self(), mana_gettid(), 0 };
    pthread_t th;
    if (pthread_create(&th, NULL, tid_probe_thread, &p) != 0) return -1;
    if (pthread_join(th, NULL) != 0 || p.off == 0) return -1;
    *off = p.off;
    return 0;
}
