/*
 * check_image_main - `lower-half --check IMAGE...` alone (image_check.c: lh_check_image), built with
 * AddressSanitizer and UndefinedBehaviorSanitizer for sanitize_images.sh. Checks each image in turn (one
 * process: the sanitizers start once) and after each prints "checked IMAGE RC" on stdout, RC 0 passed,
 * 1 refused. Exit 0 when every image passed, 1 when one was refused; a sanitizer report aborts the
 * process with its own exit status, the last "checked" line naming the image before the culprit.
 */
#include <stdio.h>

int lh_check_image(const char *path);

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        int r = lh_check_image(argv[i]);
        printf("checked %s %d\n", argv[i], r);
        fflush(stdout);
        rc |= r;
    }
    return rc;
}
