/*
 * threads [ROUNDS=200] [DELAY_MS=10] - 4 pthreads take turns in a fixed
 * order (mutex + condition variable): on its turn, thread T adds to a shared
 * counter and a checksum, prints a line every 10 rounds, and hands the turn
 * to T+1.  Each thread also counts its turns in a __thread variable (TLS
 * must survive a restart) and returns it through pthread_join (the join
 * must still work after a restart).  Final line:
 *   "threads done: counter=C checksum=X turns=R,R,R,R"
 * The interleaving is forced, so the result does not depend on scheduling
 * or on where a checkpoint lands.
 */
#include <pthread.h>

#include "prog.h"

#define NT 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;
static long counter, rounds, delay;
static uint64_t checksum = FNV_INIT;
static __thread long my_turns;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (long r = 0; r < rounds; r++) {
        if (pthread_mutex_lock(&mu))
            fail("mutex lock");
        while (turn != t)
            if (pthread_cond_wait(&cv, &mu))
                fail("cond wait");
        counter++;
        my_turns++;
        checksum = fnv(checksum, &counter, sizeof counter);
        checksum = fnv(checksum, &t, sizeof t);
        if (counter % 10 == 0)
            out("threads counter %ld thread %d round %ld\n", counter, t, r);
        turn = (t + 1) % NT;
        if (pthread_cond_broadcast(&cv) || pthread_mutex_unlock(&mu))
            fail("cond broadcast / unlock");
        sleep_ms(delay);            /* outside the lock: checkpoints land anywhere */
    }
    return (void *)(intptr_t)my_turns;
}

int main(int argc, char **argv)
{
    pthread_t th[NT];
    long turns[NT];

    rounds = arg_long(argc, argv, 1, 200);
    delay = arg_long(argc, argv, 2, 10);
    for (int t = 0; t < NT; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t))
            fail("pthread_create");
    for (int t = 0; t < NT; t++) {
        void *ret;
        if (pthread_join(th[t], &ret))
            fail("pthread_join");
        turns[t] = (long)(intptr_t)ret;
    }
    hold_before_done();
    out("threads done: counter=%ld checksum=%016llx turns=%ld,%ld,%ld,%ld\n", counter,
        (unsigned long long)checksum, turns[0], turns[1], turns[2], turns[3]);
    for (int t = 0; t < NT; t++)
        if (turns[t] != rounds)
            return 1;
    return counter == NT * rounds ? 0 : 1;
}
