/*
 * counter [N=50] [DELAY_MS=100] - prints "count I" for I = 1..N, one every
 * DELAY_MS, then "counter done: last=N sum=S".  Single-threaded; all state
 * is two integers, so after a restart the sequence must go on from where the
 * checkpoint caught it.
 */
#include "prog.h"

int main(int argc, char **argv)
{
    long n = arg_long(argc, argv, 1, 50);
    long delay = arg_long(argc, argv, 2, 100);
    long sum = 0, i = 1;

    while (i <= n) {
        /* held before the last count, not after it: a checkpoint that comes late (a loaded machine, a
         * slow mana_status) still leaves a count for the restarted run to print */
        if (i == n) hold_before_done();
        sum += i;
        out("count %ld\n", i);
        i++;                  /* after the write: a restart never repeats a line */
        sleep_ms(delay);
    }
    out("counter done: last=%ld sum=%ld\n", i - 1, sum);
    return sum == n * (n + 1) / 2 ? 0 : 1;
}
