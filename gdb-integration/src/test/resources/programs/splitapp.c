/*
 * Test program of gdb-integration: linked against libsplitstep.so (a shared library of the test),
 * with a second thread. It prints the addresses of five symbols (compared with what gdb says after a
 * restart), "started", then runs N steps of 10 ms and prints the result. The main loop's
 * after_step() runs right after the point where a checkpoint interrupts the sleep.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long split_step(long acc, long i);

volatile long iteration;             /* the step being run: read from the image and through gdb */
static volatile int done;
static const char *motto = "tab\there \"quoted\" back\\slash caf\xc3\xa9\n";

static long after_step(long acc, long i)
{
    long mixed = acc ^ (i << 3);      /* after_step body */
    return mixed;
}

static void *ticker(void *arg)
{
    (void)arg;
    while (!done)
        usleep(5000);
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    long sleep_us = argc > 2 ? atol(argv[2]) : 10000;
    pthread_t t;
    pthread_create(&t, NULL, ticker, NULL);
    printf("symbols main=%p after_step=%p split_step=%p usleep=%p iteration=%p\n", (void *)main,
           (void *)after_step, (void *)split_step, (void *)usleep, (void *)&iteration);
    printf("started %s", motto);
    fflush(stdout);
    long acc = 1;
    for (long i = 0; i < n; i++) {
        iteration = i;
        acc = split_step(acc, i);
        acc = after_step(acc, i);
        usleep(sleep_us);
    }
    done = 1;
    pthread_join(t, NULL);
    printf("result %ld\n", acc);
    return 0;
}
