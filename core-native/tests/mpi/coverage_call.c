/* coverage_call LIB - for coverage_check.py: each function named on stdin (one per line) is called with
 * ten zero arguments in a child process, outside the runtime, and its exit status and output reported.
 *
 * One fork of this small process per call, where coverage_check.py used to fork itself: about 1,000
 * calls took 12 s on an idle machine and 96 s on two busy cores (a Python process's fork and exit),
 * and take well under a second here.  Output, per name: a line "NAME STATUS LENGTH" (STATUS as
 * os.waitstatus_to_exitcode gives it: the exit code, or minus the signal), then LENGTH bytes of the
 * child's stdout and stderr together.  A name the library does not define is reported with status
 * 127 and no output. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*any_fn)(long, long, long, long, long, long, long, long, long, long);

static int call(any_fn fn, char **out, size_t *len)
{
    int p[2];
    if (pipe(p) != 0) { perror("coverage_call: pipe"); exit(2); }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("coverage_call: fork"); exit(2); }
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 1);
        dup2(p[1], 2);
        fn(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        _exit(100);
    }
    close(p[1]);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) { fputs("coverage_call: out of memory\n", stderr); exit(2); }
        ssize_t r = read(p[0], buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    close(p[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) { perror("coverage_call: waitpid"); exit(2); }
    *out = buf;
    *len = n;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fputs("usage: coverage_call LIB < NAMES\n", stderr); return 2; }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) { fprintf(stderr, "coverage_call: %s\n", dlerror()); return 2; }
    char name[256];
    while (fgets(name, sizeof name, stdin)) {
        name[strcspn(name, "\n")] = 0;
        if (!name[0]) continue;
        any_fn fn = (any_fn)dlsym(lib, name);
        if (!fn) { printf("%s 127 0\n", name); continue; }
        char *out;
        size_t len;
        int rc = call(fn, &out, &len);
        printf("%s %d %zu\n", name, rc, len);
        fwrite(out, 1, len, stdout);
        free(out);
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
