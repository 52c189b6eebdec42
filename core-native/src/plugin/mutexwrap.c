/*
 * mutexwrap.c - mutexes that record their owner's tid keep working after a restart.
 *
 * glibc's recursive and error-checking mutexes store the owner's kernel tid (`__owner`); a relock
 * by the owner only counts up, an unlock by anyone else fails with EPERM.  A restart gives the
 * threads new tids (the main thread's is the new pid; the others keep theirs only where clone3's
 * set_tid is allowed, i.e. with CAP_CHECKPOINT_RESTORE), so a mutex held across the checkpoint
 * would deadlock its owner on the next lock (sqlite's recursive mutexes: a futex wait forever) or
 * refuse its unlock.
 *
 * The lower half hands over old tid -> new tid of every restored thread (lh_info.tid_map); the
 * plugin keeps the composition over all restarts (`acc`, in the image).  The lock/unlock functions
 * are interposed (preloaded): once the process has been restarted, a recursive or error-checking
 * mutex whose owner is an earlier tid of the calling thread is given the calling thread's tid
 * first.  Before the first restart the cost is one load and one branch per call.  Robust, PI and
 * PP mutexes (their futex word holds the tid) are not rewritten.
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_sys.h"

#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#define KIND_TYPE_MASK 3          /* PTHREAD_MUTEX_KIND_MASK_NP */
#define KIND_SPECIAL   (16 | 32 | 64)   /* robust, priority-inheritance, priority-protect */

static struct mana_tid_pair acc[MANA_MAX_THREADS];      /* earlier restarts, composed */
static volatile uint32_t n_acc;

static int lh_map(const struct lh_info *lh, int old)
{
    for (uint32_t i = 0; i < lh->n_tid_map && i < MANA_MAX_THREADS_LH; i++)
        if (lh->tid_map[i].old_tid == old) return lh->tid_map[i].new_tid;
    return 0;
}

/* Checkpoint thread after a restart: fold this restart's map into `acc`, so that a tid from two
 * restarts ago still finds its thread. */
void mana_mutex_restarted(void)
{
    const struct lh_info *lh = mana_lh_info;
    if (!lh || !lh->n_tid_map) return;
    uint32_t n = n_acc;
    for (uint32_t i = 0; i < n; i++) {
        int now = lh_map(lh, acc[i].new_tid);
        if (now) acc[i].new_tid = now;
    }
    for (uint32_t i = 0; i < lh->n_tid_map && n < MANA_MAX_THREADS; i++) {
        int dup = 0;
        for (uint32_t k = 0; k < n; k++) if (acc[k].old_tid == lh->tid_map[i].old_tid) { acc[k].new_tid = lh->tid_map[i].new_tid; dup = 1; }
        if (!dup) acc[n++] = lh->tid_map[i];
    }
    __atomic_store_n(&n_acc, n, __ATOMIC_SEQ_CST);
}

static void fix_owner(pthread_mutex_t *m)
{
    const struct lh_info *lh = mana_lh_info;
    if (__builtin_expect(!lh || !(lh->flags & MANA_LH_F_RESTART), 1)) return;
    int kind = m->__data.__kind;
    if ((kind & KIND_SPECIAL) || ((kind & KIND_TYPE_MASK) != PTHREAD_MUTEX_RECURSIVE_NP &&
                                  (kind & KIND_TYPE_MASK) != PTHREAD_MUTEX_ERRORCHECK_NP))
        return;
    int owner = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
    if (!owner) return;
    int self = mana_pl.tid_offset ? *(int *)((char *)pthread_self() + mana_pl.tid_offset) : mana_gettid();
    if (owner == self) return;
    int now = lh_map(lh, owner);
    if (!now) {
        uint32_t n = __atomic_load_n(&n_acc, __ATOMIC_SEQ_CST);
        for (uint32_t i = 0; i < n; i++) if (acc[i].old_tid == owner) { now = acc[i].new_tid; break; }
    }
    if (now == self) __atomic_compare_exchange_n(&m->__data.__owner, &owner, self, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

#define REAL(name, fn) \
    static __typeof__(&fn) real; \
    if (__builtin_expect(!real, 0)) real = (__typeof__(&fn))dlsym(RTLD_NEXT, name)

MANA_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    REAL("pthread_mutex_lock", pthread_mutex_lock);
    fix_owner(m);
    return real(m);
}

MANA_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    REAL("pthread_mutex_trylock", pthread_mutex_trylock);
    fix_owner(m);
    return real(m);
}

MANA_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t)
{
    REAL("pthread_mutex_timedlock", pthread_mutex_timedlock);
    fix_owner(m);
    return real(m, t);
}

MANA_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    REAL("pthread_mutex_unlock", pthread_mutex_unlock);
    fix_owner(m);
    return real(m);
}
