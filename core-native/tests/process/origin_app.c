/* origin_app.c - needs liborigin.so from $ORIGIN/lib: checks that the lower half's loader gives the
 * application its own $ORIGIN (ld.so alone would use /proc/self/exe, i.e. bin/lower-half). */
#include <stdio.h>
int origin_value(void);
int main(void)
{
    printf("origin done: %d\n", origin_value());
    return 0;
}
