/* readin.c - reads stdin line by line (stdio, so its buffer reads ahead), one line per DELAY_MS:
 * "got N: LINE" for each, then "readin done: lines=N sum=S" (S: sum of the line lengths).
 * A restart must go on where the checkpoint left stdin: no line twice, none lost.
 * With TEST_HOLD_FILE set it waits after its 10th line until that file exists (as prog.h's
 * programs do before their last), so a harness's checkpoint lands mid-input on any machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void hold_after(long n)
{
    const char *f = getenv("TEST_HOLD_FILE");
    if (n != 10 || !f || !*f) return;
    struct timespec d = { 0, 10 * 1000000L };
    while (access(f, F_OK) != 0) nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
    int delay = argc > 1 ? atoi(argv[1]) : 40;
    char line[4096], out[4200];
    long n = 0, sum = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        n++;
        sum += (long)strlen(line);
        int k = snprintf(out, sizeof out, "got %ld: %s\n", n, line);
        if (write(1, out, (size_t)k) != k) return 2;
        hold_after(n);
        struct timespec d = { delay / 1000, (delay % 1000) * 1000000L };
        nanosleep(&d, NULL);
    }
    int k = snprintf(out, sizeof out, "readin done: lines=%ld sum=%ld\n", n, sum);
    return write(1, out, (size_t)k) == k ? 0 : 2;
}
