/* check.h - the smallest test harness: CHECK prints the failing line and
 * counts; tests return failures != 0. */
#ifndef MANA_TEST_CHECK_H
#define MANA_TEST_CHECK_H
#include <stdio.h>

static int failures;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            failures++;                                                      \
        }                                                                    \
    } while (0)

#endif
