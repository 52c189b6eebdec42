/*
 * execwrap.c - follow an exec: the new program runs under the runtime, as the same rank.
 *
 * A program that execs another (a wrapper script, a pyenv shim, `bash -c 'exec prog'`) would leave
 * the split process: the kernel replaces the whole address space, lower half included.  As DMTCP
 * does, the exec family is interposed (libmana.so is preloaded, so these come first): the launched
 * process says BYE to the coordinator and execs its own lower half with `--exec PATH ARGV...`, which
 * loads PATH as the new upper half exactly as a launch would.  The settings (coordinator, rank,
 * checkpoint directory, signal...) travel in an inherited memfd, not the environment, whatever
 * environment the program passes; the lower half reads and closes it (main.c).
 *
 * Not followed, with one line on stderr (the new program runs without checkpointing):
 *  - an MPI rank (its MPI library cannot be started a second time in one rank);
 *  - a file the lower half cannot load (statically linked, not x86-64 ELF, not readable).
 * An exec that fails for the usual reasons (ENOENT, EACCES...) fails as it would natively: the file
 * is checked before anything is handed over.  Children (fork, vfork, posix_spawn) never come here
 * with the runtime: they run natively (env.c).
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_sys.h"
#include "mana_util.h"

#include <alloca.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;
uint32_t mana_plugin_exec_begin(void);
void mana_plugin_exec_failed(void);

typedef int (*execve_fn)(const char *, char *const[], char *const[]);

static int real_execve(const char *path, char *const argv[], char *const envp[])
{
    static execve_fn real;
    if (!real) real = (execve_fn)dlsym(RTLD_NEXT, "execve");
    return real(path, argv, envp);
}

/* 1: the lower half can load it (a #! script, or a dynamically linked x86-64 ELF); 0: it cannot
 * (reason in why); -1: the native exec will fail anyway (errno set), let it. */
static int loadable(const char *path, char *why, size_t whylen)
{
    if (access(path, X_OK) != 0) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { mana_fmt(why, whylen, "cannot read it: %s", strerror(errno)); return 0; }
    Elf64_Ehdr eh;
    ssize_t n = pread(fd, &eh, sizeof eh, 0);
    int ok = 0;
    if (n >= 2 && ((char *)&eh)[0] == '#' && ((char *)&eh)[1] == '!') {
        ok = 1;
    } else if (n != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        close(fd);
        errno = ENOEXEC;
        return -1;                 /* the kernel refuses it too (execvp then tries /bin/sh) */
    } else if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 || eh.e_phnum == 0 ||
               eh.e_phnum > 256 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
        mana_fmt(why, whylen, "not an x86-64 executable");
    } else {
        Elf64_Phdr ph[256];
        size_t sz = (size_t)eh.e_phnum * sizeof *ph;
        if (pread(fd, ph, sz, (off_t)eh.e_phoff) == (ssize_t)sz)
            for (int i = 0; i < eh.e_phnum; i++) if (ph[i].p_type == PT_INTERP) ok = 1;
        if (!ok) mana_fmt(why, whylen, "statically linked");
    }
    close(fd);
    return ok;
}

/* The settings for the lower half that follows (main.c reads them). */
static int settings_fd(uint32_t generation)
{
    struct mana_exec_settings es;
    memset(&es, 0, sizeof es);
    es.magic = MANA_EXEC_SETTINGS_MAGIC;
    es.size = sizeof es;
    es.generation = generation;
    es.settings = mana_pl.cfg;
    int fd = memfd_create("mana-exec-settings", 0);     /* inherited by the exec, closed by the reader */
    if (fd < 0) return -1;
    if (write(fd, &es, sizeof es) != (ssize_t)sizeof es || lseek(fd, 0, SEEK_SET) != 0) { close(fd); return -1; }
    return fd;
}

static int follow(const char *path, char *const argv[], char *const envp[])
{
    if (!mana_plugin_active()) return real_execve(path, argv, envp);
    struct lh_info *lh = mana_lh_info;
    const char *prog = argv && argv[0] ? argv[0] : path;
    if (lh->mpi.kind != MANA_MPI_NONE) {
        mana_err("rank %d execs %s: an MPI rank cannot follow an exec; the new program runs WITHOUT "
                 "checkpointing", mana_pl.cfg.rank, path);
        return real_execve(path, argv, envp);
    }
    char why[256] = "";
    int ok = loadable(path, why, sizeof why);
    if (ok < 0) return real_execve(path, argv, envp);       /* fails natively, with its errno */
    if (ok == 0) {
        mana_err("rank %d execs %s (%s): the runtime cannot load it; the new program runs WITHOUT "
                 "checkpointing", mana_pl.cfg.rank, path, why);
        return real_execve(path, argv, envp);
    }
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);   /* bin/lower-half */
    if (sl <= 0) return real_execve(path, argv, envp);
    self[sl] = 0;
    size_t argc = 0;
    while (argv && argv[argc]) argc++;
    size_t envc = 0;
    while (envp && envp[envc]) envc++;
    char **nargv = alloca((argc + 4) * sizeof *nargv);
    char **nenv = alloca((envc + 2) * sizeof *nenv);
    size_t k = 0;
    nargv[k++] = self;
    nargv[k++] = "--exec";
    nargv[k++] = (char *)path;
    if (argc == 0) nargv[k++] = (char *)prog;
    for (size_t i = 0; i < argc; i++) nargv[k++] = argv[i];
    nargv[k] = NULL;
    uint32_t g = mana_plugin_exec_begin();
    int fd = settings_fd(g);
    if (fd < 0) {
        int e = errno;
        mana_err("rank %d execs %s: cannot pass the settings on (%s); the new program runs WITHOUT "
                 "checkpointing", mana_pl.cfg.rank, path, strerror(e));
        mana_plugin_exec_failed();
        return real_execve(path, argv, envp);
    }
    char fdvar[64];
    snprintf(fdvar, sizeof fdvar, "MANA_LH_EXEC_FD=%d", fd);
    k = 0;
    for (size_t i = 0; i < envc; i++)
        if (strncmp(envp[i], "MANA_LH_EXEC_FD=", 16) != 0) nenv[k++] = envp[i];
    nenv[k++] = fdvar;
    nenv[k] = NULL;
    mana_dbg("rank %d execs %s: following it (%s --exec)", mana_pl.cfg.rank, path, self);
    real_execve(self, nargv, nenv);
    int e = errno;
    close(fd);
    mana_plugin_exec_failed();
    mana_err("rank %d execs %s: cannot start the runtime for it (%s): running it WITHOUT checkpointing",
             mana_pl.cfg.rank, path, strerror(e));
    return real_execve(path, argv, envp);
}

MANA_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    return follow(path, argv, envp);
}

MANA_EXPORT int execv(const char *path, char *const argv[])
{
    return follow(path, argv, environ);
}

/* execvp's search (as glibc's): PATH of the caller's environment, default "/bin:/usr/bin"; a file
 * that is no executable format runs with /bin/sh. */
MANA_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    if (!*file) { errno = ENOENT; return -1; }
    if (strchr(file, '/')) {
        follow(file, argv, envp);
        if (errno == ENOEXEC) goto script_direct;
        return -1;
    }
    const char *path = mana_env_get("PATH");
    if (!path) path = "/bin:/usr/bin";
    int got_eacces = 0;
    size_t fl = strlen(file);
    for (const char *p = path;; ) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        char *cand = alloca(n + fl + 2);
        if (n) { memcpy(cand, p, n); cand[n] = '/'; memcpy(cand + n + 1, file, fl + 1); }
        else memcpy(cand, file, fl + 1);
        follow(cand, argv, envp);
        if (errno == ENOEXEC) {
            size_t argc = 0;
            while (argv[argc]) argc++;
            char **sargv = alloca((argc + 2) * sizeof *sargv);
            sargv[0] = "/bin/sh";
            sargv[1] = cand;
            for (size_t i = 1; i <= argc; i++) sargv[i + 1] = argv[i];
            return follow("/bin/sh", sargv, envp);
        }
        if (errno == EACCES) got_eacces = 1;
        else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV && errno != ETIMEDOUT)
            return -1;
        if (!c) break;
        p = c + 1;
    }
    if (got_eacces) errno = EACCES;
    return -1;
script_direct:;
    size_t argc = 0;
    while (argv[argc]) argc++;
    char **sargv = alloca((argc + 2) * sizeof *sargv);
    sargv[0] = "/bin/sh";
    sargv[1] = (char *)file;
    for (size_t i = 1; i <= argc; i++) sargv[i + 1] = argv[i];
    return follow("/bin/sh", sargv, envp);
}

MANA_EXPORT int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

/* The list forms: collect the arguments, then as above. */
#define COLLECT_ARGS(first, ap, out)                                   \
    do {                                                               \
        size_t n_ = 1;                                                 \
        va_list c_;                                                    \
        va_copy(c_, ap);                                               \
        while (va_arg(c_, char *)) n_++;                               \
        va_end(c_);                                                    \
        out = alloca((n_ + 1) * sizeof(char *));                       \
        out[0] = (char *)(first);                                      \
        for (size_t i_ = 1; i_ <= n_; i_++) out[i_] = va_arg(ap, char *); \
    } while (0)

MANA_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    char **argv;
    va_start(ap, arg);
    COLLECT_ARGS(arg, ap, argv);
    va_end(ap);
    return execv(path, argv);
}

MANA_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    char **argv;
    va_start(ap, arg);
    COLLECT_ARGS(arg, ap, argv);
    va_end(ap);
    return execvp(file, argv);
}

MANA_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char **argv;
    va_start(ap, arg);
    COLLECT_ARGS(arg, ap, argv);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return follow(path, argv, envp);
}
