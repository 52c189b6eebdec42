/*
 * loader.c - the kernel loader of the lower half: map the application and its PT_INTERP (ld.so),
 * build a fresh stack (argc, argv, envp, auxv) in a region of its own and jump to ld.so's entry,
 * as the kernel would have done for `execve(APP)`.  The upper half then loads the application's
 * libraries and libmana.so (LD_PRELOAD) with its own ld.so and libc.
 */
#define _GNU_SOURCE
#include "lower_half.h"
#include "mana_util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096UL
#define PAGE_DOWN(x) ((uint64_t)(x) & ~(PAGE - 1))
#define PAGE_UP(x) (((uint64_t)(x) + PAGE - 1) & ~(PAGE - 1))

static int prot_of(uint32_t pf)
{
    return ((pf & PF_R) ? PROT_READ : 0) | ((pf & PF_W) ? PROT_WRITE : 0) | ((pf & PF_X) ? PROT_EXEC : 0);
}

int lh_map_elf(const char *path, struct lh_elf *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { mana_fmt(err, errlen, "cannot open %s: %s", path, strerror(errno)); return -1; }
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        mana_fmt(err, errlen, "%s: not an ELF file", path);
        goto fail;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
        (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phnum == 0 || eh.e_phnum > 256) {
        mana_fmt(err, errlen, "%s: not an x86-64 executable", path);
        goto fail;
    }
    Elf64_Phdr ph[256];
    size_t phsz = (size_t)eh.e_phnum * sizeof(Elf64_Phdr);
    if (pread(fd, ph, phsz, (off_t)eh.e_phoff) != (ssize_t)phsz) {
        mana_fmt(err, errlen, "%s: cannot read program headers", path);
        goto fail;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD) {
            if (PAGE_DOWN(ph[i].p_vaddr) < lo) lo = PAGE_DOWN(ph[i].p_vaddr);
            if (PAGE_UP(ph[i].p_vaddr + ph[i].p_memsz) > hi) hi = PAGE_UP(ph[i].p_vaddr + ph[i].p_memsz);
        } else if (ph[i].p_type == PT_INTERP) {
            size_t n = ph[i].p_filesz < sizeof out->interp ? ph[i].p_filesz : sizeof out->interp - 1;
            if (pread(fd, out->interp, n, (off_t)ph[i].p_offset) != (ssize_t)n) {
                mana_fmt(err, errlen, "%s: cannot read PT_INTERP", path);
                goto fail;
            }
            out->interp[n] = 0;
        }
    }
    if (lo >= hi) { mana_fmt(err, errlen, "%s: no loadable segment", path); goto fail; }

    /* Reserve the whole span first, so the segments keep their relative layout. */
    void *span;
    if (eh.e_type == ET_DYN)
        span = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    else
        span = mmap((void *)lo, hi - lo, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (span == MAP_FAILED || (eh.e_type == ET_EXEC && (uint64_t)span != lo)) {
        mana_fmt(err, errlen, "%s: cannot reserve %#lx-%#lx: %s", path, (unsigned long)lo,
                 (unsigned long)hi, strerror(errno));
        goto fail;
    }
    uint64_t bias = (uint64_t)span - lo;
    out->bias = bias;
    out->map_start = (uint64_t)span;
    out->map_end = (uint64_t)span + (hi - lo);

    for (int i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD) continue;
        const Elf64_Phdr *p = &ph[i];
        int prot = prot_of(p->p_flags);
        uint64_t seg = bias + PAGE_DOWN(p->p_vaddr);
        uint64_t pad = p->p_vaddr & (PAGE - 1);
        uint64_t file_end = bias + p->p_vaddr + p->p_filesz;   /* first byte not from the file */
        uint64_t mem_end = bias + p->p_vaddr + p->p_memsz;
        if ((p->p_offset & (PAGE - 1)) != pad) {
            mana_fmt(err, errlen, "%s: segment %d is not page-congruent", path, i);
            goto fail;
        }
        if (p->p_filesz > 0) {
            void *m = mmap((void *)seg, PAGE_UP(pad + p->p_filesz), prot | (p->p_memsz > p->p_filesz ? PROT_WRITE : 0),
                           MAP_PRIVATE | MAP_FIXED, fd, (off_t)PAGE_DOWN(p->p_offset));
            if (m == MAP_FAILED) {
                mana_fmt(err, errlen, "%s: cannot map segment %d: %s", path, i, strerror(errno));
                goto fail;
            }
            if (p->p_memsz > p->p_filesz && (file_end & (PAGE - 1)))
                memset((void *)file_end, 0, PAGE - (file_end & (PAGE - 1)));   /* start of .bss */
            /* Mapped writable only to zero the start of .bss: back to the segment's protection.  A
             * failure would leave read-only code or data writable: refused, not run. */
            if (p->p_memsz > p->p_filesz && !(prot & PROT_WRITE) &&
                mprotect((void *)seg, PAGE_UP(pad + p->p_filesz), prot) != 0) {
                mana_fmt(err, errlen, "%s: cannot protect segment %d: %s", path, i, strerror(errno));
                goto fail;
            }
        }
        uint64_t anon = p->p_filesz > 0 ? PAGE_UP(file_end) : seg;
        if (PAGE_UP(mem_end) > anon) {
            void *m = mmap((void *)anon, PAGE_UP(mem_end) - anon, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (m == MAP_FAILED) {
                mana_fmt(err, errlen, "%s: cannot map .bss of segment %d: %s", path, i, strerror(errno));
                goto fail;
            }
        }
    }
    out->entry = bias + eh.e_entry;
    out->phnum = eh.e_phnum;
    for (int i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC) {
            out->dynamic = bias + ph[i].p_vaddr;
            for (int k = 0; k < eh.e_phnum; k++)
                if (ph[k].p_type == PT_LOAD && (ph[k].p_flags & PF_W) && ph[i].p_vaddr >= ph[k].p_vaddr &&
                    ph[i].p_vaddr + ph[i].p_memsz <= ph[k].p_vaddr + ph[k].p_memsz)
                    out->dynamic_writable = 1;
        }
    for (int i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_PHDR) out->phdr = bias + ph[i].p_vaddr;
    if (!out->phdr) {
        for (int i = 0; i < eh.e_phnum; i++)
            if (ph[i].p_type == PT_LOAD && eh.e_phoff >= ph[i].p_offset &&
                eh.e_phoff + phsz <= ph[i].p_offset + ph[i].p_filesz)
                out->phdr = bias + ph[i].p_vaddr + (eh.e_phoff - ph[i].p_offset);
    }
    if (!out->phdr) { mana_fmt(err, errlen, "%s: program headers are not loaded", path); goto fail; }
    close(fd);
    return 0;
fail:
    close(fd);
    return -1;
}

/* Resolve PROGRAM as execvp would: a name without '/' is searched in $PATH. */
static int resolve_program(const char *prog, char *out, size_t len)
{
    if (strchr(prog, '/')) {
        if (access(prog, X_OK) != 0) return -1;
        if (!realpath(prog, out)) snprintf(out, len, "%s", prog);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        char cand[PATH_MAX];
        snprintf(cand, sizeof cand, "%.*s/%s", (int)n, n ? path : ".", prog);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            if (!realpath(cand, out)) snprintf(out, len, "%s", cand);
            return 0;
        }
        path += n + (c ? 1 : 0);
    }
    errno = ENOENT;
    return -1;
}

static __attribute__((noreturn)) void jump_to(uint64_t sp, uint64_t entry)
{
    /* sp and entry in fixed registers: with a free "r" the compiler may hand out rdx or rbp (it does at
     * -O0: entry in rdx), and the xors below would zero the jump target. */
    __asm__ volatile("mov %0, %%rsp\n\t"
                     "xor %%edx, %%edx\n\t"   /* no rtld_fini from a "kernel" */
                     "xor %%ebp, %%ebp\n\t"
                     "jmp *%1\n\t"
                     : : "D"(sp), "S"(entry) : "rdx", "memory");
    __builtin_unreachable();
}

/* Environment for the upper half: the user's, with LD_PRELOAD (libmana.so first), the rseq tunable
 * and MANA_LH_INFO_ADDR. */
static char **upper_env(char **envp, const char *plugin, char *preload_buf, size_t preload_len,
                        char *info_buf, size_t info_len)
{
    size_t n = 0;
    while (envp[n]) n++;
    char **env = calloc(n + 6, sizeof(char *));
    if (!env) return NULL;
    size_t k = 0;
    const char *old_preload = NULL;
    int have_tunables = 0;
    /* An MPI program's upper half finds our MPI library of the same soname first (src/mpi/). */
    const char *shadow = getenv("MANA_MPI_SHADOW");
    const char *old_llp = NULL;
    /* ... also where a DT_RPATH or an absolute-path dlopen names the real one (src/mpi/audit.c) */
    const char *audit = shadow && *shadow ? getenv("MANA_MPI_AUDIT") : NULL;
    const char *old_audit = NULL;
    for (size_t i = 0; i < n; i++) {
        if (shadow && *shadow && strncmp(envp[i], "LD_LIBRARY_PATH=", 16) == 0) { old_llp = envp[i] + 16; continue; }
        if (audit && *audit && strncmp(envp[i], "LD_AUDIT=", 9) == 0) { old_audit = envp[i] + 9; continue; }
        if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0) { old_preload = envp[i] + 11; continue; }
        if (strncmp(envp[i], "MANA_LH_INFO_ADDR=", 18) == 0) continue;
        if (strncmp(envp[i], "MANA_LH_REEXEC=", 15) == 0) continue;
        if (strncmp(envp[i], "MANA_LH_ORIG_TUNABLES=", 22) == 0) continue;
        if (strncmp(envp[i], "GLIBC_TUNABLES=", 15) == 0) have_tunables = 1;   /* set by main() */
        env[k++] = envp[i];
    }
    if (!have_tunables) env[k++] = "GLIBC_TUNABLES=glibc.pthread.rseq=0";
    if (shadow && *shadow) {
        static char llp[8192];
        if (old_llp && *old_llp) snprintf(llp, sizeof llp, "LD_LIBRARY_PATH=%s:%s", shadow, old_llp);
        else snprintf(llp, sizeof llp, "LD_LIBRARY_PATH=%s", shadow);
        env[k++] = llp;
    }
    if (audit && *audit) {
        static char la[8192];
        if (old_audit && *old_audit) snprintf(la, sizeof la, "LD_AUDIT=%s:%s", audit, old_audit);
        else snprintf(la, sizeof la, "LD_AUDIT=%s", audit);
        env[k++] = la;
    }
    if (old_preload && *old_preload)
        snprintf(preload_buf, preload_len, "LD_PRELOAD=%s:%s", plugin, old_preload);
    else
        snprintf(preload_buf, preload_len, "LD_PRELOAD=%s", plugin);
    mana_lh.had_ld_preload = old_preload != NULL;
    snprintf(mana_lh.orig_ld_preload, sizeof mana_lh.orig_ld_preload, "%s", old_preload ? old_preload : "");
    env[k++] = preload_buf;
    /* address, owner pid and token: see lh_info.h (a child or an exec'd program never trusts it) */
    snprintf(info_buf, info_len, "MANA_LH_INFO_ADDR=%p:%d:%016llx", (void *)&mana_lh, (int)mana_lh.owner_pid,
             (unsigned long long)mana_lh.token);
    env[k++] = info_buf;
    env[k] = NULL;
    return env;
}

const char *lh_exec_path;

/* "#!" scripts, as the kernel runs them: INTERP [ARG] SCRIPT ARGS... (up to 4 levels); *argc, *argv
 * and app (the file to load) become the interpreter's.  0, or the exit status to fail with. */
static int follow_interpreters(int *argcp, char ***argvp, char *app, size_t appcap)
{
    int argc = *argcp;
    char **argv = *argvp;
    for (int level = 0;; level++) {
        char head[256];
        int fd = open(app, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, head, sizeof head - 1) : -1;
        if (fd >= 0) close(fd);
        if (n < 2 || head[0] != '#' || head[1] != '!') break;
        if (level == 4) { mana_err("%s: too many levels of #! interpreters", argv[0]); return 127; }
        head[n] = 0;
        char *nl = strchr(head, '\n');
        if (!nl) { mana_err("%s: #! line too long", app); return 127; }
        *nl = 0;
        char *p = head + 2;
        while (*p == ' ' || *p == '\t') p++;
        char *interp = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        char *iarg = NULL;
        if (*p) {
            *p++ = 0;
            while (*p == ' ' || *p == '\t') p++;
            if (*p) {
                iarg = p;
                char *e = p + strlen(p);
                while (e > p && (e[-1] == ' ' || e[-1] == '\t')) *--e = 0;
            }
        }
        if (!*interp) { mana_err("%s: empty #! line", app); return 127; }
        char **nargv = calloc((size_t)argc + 3, sizeof(char *));
        if (!nargv) { mana_err("out of memory"); return 1; }
        int k = 0;
        nargv[k++] = strdup(interp);
        if (iarg) nargv[k++] = strdup(iarg);
        nargv[k++] = strdup(app);                    /* the script, by its resolved path */
        for (int i = 1; i < argc; i++) nargv[k++] = argv[i];
        argv = nargv;
        argc = k;
        const char *script = nargv[iarg ? 2 : 1];
        if (resolve_program(nargv[0], app, appcap) != 0) {
            mana_err("cannot run %s (interpreter of %s): %s", nargv[0], script, strerror(errno));
            return 127;
        }
    }
    *argcp = argc;
    *argvp = argv;
    return 0;
}

/* libmana.so next to us: $MANA_ROOT/lib, else <dir of /proc/self/exe>/../lib.  0, or 127 (said). */
static int find_plugin(char *plugin, size_t cap)
{
    const char *root = getenv("MANA_ROOT");
    if (root && *root) {
        snprintf(plugin, cap, "%s/lib/libmana.so", root);
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n < 0) n = 0;
        self[n] = 0;
        char *s = strrchr(self, '/');
        if (s) *s = 0;
        snprintf(plugin, cap, "%s/../lib/libmana.so", self);
    }
    if (access(plugin, R_OK) != 0) {
        mana_err("cannot find the upper-half plugin %s: %s", plugin, strerror(errno));
        return 127;
    }
    return 0;
}

/* The upper half's stack: RLIMIT_STACK (8 MiB if unlimited or tiny, at most 1 GiB), with a
 * PROT_NONE guard page below it; [*lo, *hi) with the guard. */
static int map_upper_stack(uint64_t *lo, uint64_t *hi)
{
    struct rlimit rl;
    uint64_t stack_size = 8UL << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= (1UL << 20))
        stack_size = rl.rlim_cur > (1UL << 30) ? (1UL << 30) : PAGE_UP(rl.rlim_cur);
    char *region = mmap(NULL, stack_size + PAGE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (region == MAP_FAILED) { mana_err("cannot map the upper-half stack: %s", strerror(errno)); return 1; }
    /* Without the guard an overflow of the program's stack would write into whatever lies below
     * instead of faulting: refused. */
    if (mprotect(region, PAGE, PROT_NONE) != 0) {
        mana_err("cannot make the guard page of the upper-half stack: %s", strerror(errno));
        return 1;
    }
    *lo = (uint64_t)region;
    *hi = (uint64_t)region + stack_size + PAGE;
    return 0;
}

/* A string pushed below *sp on the new stack; its address there. */
static char *push_str(char **sp, const char *s)
{
    size_t l = strlen(s) + 1;
    *sp -= l;
    memcpy(*sp, s, l);
    return *sp;
}

/* $ORIGIN in the application's DT_RPATH/DT_RUNPATH: ld.so would take it from /proc/self/exe,
 * which names bin/lower-half.  Expand it here against the application's own directory and point
 * the (still writable) .dynamic entry at the expanded copy, pushed on the upper stack at *sp. */
static void expand_origin(const struct lh_elf *appelf, const char *app, char **sp)
{
    if (!appelf->dynamic || !appelf->dynamic_writable) return;
    Elf64_Dyn *dyn = (Elf64_Dyn *)appelf->dynamic;
    uint64_t strtab = 0;
    for (Elf64_Dyn *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB) strtab = d->d_un.d_ptr + (appelf->bias && d->d_un.d_ptr < appelf->bias ? appelf->bias : 0);
    char origin[PATH_MAX];
    snprintf(origin, sizeof origin, "%s", app);
    char *slash = strrchr(origin, '/');
    if (slash) *slash = 0;
    for (Elf64_Dyn *d = dyn; strtab && d->d_tag != DT_NULL; d++) {
        if (d->d_tag != DT_RPATH && d->d_tag != DT_RUNPATH) continue;
        const char *old = (const char *)(strtab + d->d_un.d_val);
        if (!strstr(old, "$ORIGIN") && !strstr(old, "${ORIGIN}")) continue;
        char exp[8192];
        size_t k = 0;
        for (const char *q = old; *q && k < sizeof exp - 1;) {
            size_t tl = strncmp(q, "$ORIGIN", 7) == 0 ? 7 : strncmp(q, "${ORIGIN}", 9) == 0 ? 9 : 0;
            if (tl) {
                k += (size_t)snprintf(exp + k, sizeof exp - k, "%s", origin);
                if (k >= sizeof exp) k = sizeof exp - 1;
                q += tl;
            } else {
                exp[k++] = *q++;
            }
        }
        exp[k] = 0;
        char *copy = push_str(sp, exp);
        d->d_un.d_val = (uint64_t)copy - strtab;
        mana_dbg("%s: %s -> %s", d->d_tag == DT_RPATH ? "DT_RPATH" : "DT_RUNPATH", old, exp);
    }
}

/* auxv: the kernel's, with the application's program headers and entry, ld.so's base, and
 * pointers into the new stack.  Returns the entries in aux (at most 64, AT_NULL last). */
static int build_auxv(Elf64_auxv_t aux[64], const struct lh_elf *appelf, const struct lh_elf *ldso, const char *random,
                      const char *platform, const char *execfn)
{
    int na = 0;
    Elf64_auxv_t kaux[64];
    long n = mana_read_file("/proc/self/auxv", (char *)kaux, sizeof kaux);
    int nk = n > 0 ? (int)((size_t)n / sizeof(Elf64_auxv_t)) : 0;
    for (int i = 0; i < nk && na < 56; i++) {
        uint64_t t = kaux[i].a_type;
        if (t == AT_NULL) break;
        if (t == AT_PHDR || t == AT_PHNUM || t == AT_PHENT || t == AT_ENTRY || t == AT_BASE ||
            t == AT_RANDOM || t == AT_EXECFN || t == AT_PLATFORM || t == AT_SECURE || t == AT_EXECFD)
            continue;
        aux[na++] = kaux[i];
    }
#define AUX(t, v) do { aux[na].a_type = (t); aux[na].a_un.a_val = (uint64_t)(v); na++; } while (0)
    AUX(AT_PHDR, appelf->phdr);
    AUX(AT_PHENT, sizeof(Elf64_Phdr));
    AUX(AT_PHNUM, appelf->phnum);
    AUX(AT_ENTRY, appelf->entry);
    AUX(AT_BASE, ldso->bias);
    AUX(AT_SECURE, 0);
    AUX(AT_RANDOM, random);
    AUX(AT_PLATFORM, platform);
    AUX(AT_EXECFN, execfn);
    AUX(AT_NULL, 0);
#undef AUX
    return na;
}

int lh_launch(int argc, char **argv, char **envp)
{
    int64_t t0 = mana_now_ns();
    if (argc < 1) { mana_err("usage: lower-half PROGRAM [ARGS...] | lower-half --restore DIR"); return 2; }
    char app[PATH_MAX];
    if (lh_exec_path) {
        /* as execve: a name without '/' is relative to the working directory */
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s%s", strchr(lh_exec_path, '/') ? "" : "./", lh_exec_path);
        if (resolve_program(rel, app, sizeof app) != 0) {
            mana_err("cannot run %s: %s", lh_exec_path, strerror(errno));
            return 127;
        }
    } else if (resolve_program(argv[0], app, sizeof app) != 0) {
        mana_err("cannot run %s: %s", argv[0], strerror(errno));
        return 127;
    }
    int rc = follow_interpreters(&argc, &argv, app, sizeof app);
    if (rc) return rc;
    snprintf(mana_lh.app_path, sizeof mana_lh.app_path, "%s", app);

    char plugin[PATH_MAX + 32];
    if (find_plugin(plugin, sizeof plugin) != 0) return 127;

    /* MPI first: its memory is the lower half's, recorded with the rest below. */
    if (lh_mpi_init() != 0) return 1;
    /* Its fault handlers are the lower half's own from now on, not the program's too. */
    if (lh_sig_adopt() != 0) return 1;

    char err[512];
    struct lh_elf appelf, ldso;
    if (lh_map_elf(app, &appelf, err, sizeof err) != 0) { mana_err("%s", err); return 127; }
    if (!appelf.interp[0]) {
        mana_err("%s is statically linked: MANA needs a dynamically linked program (its ld.so loads libmana.so)", app);
        return 127;
    }
    if (lh_map_elf(appelf.interp, &ldso, err, sizeof err) != 0) { mana_err("%s", err); return 127; }

    uint64_t stack_lo, stack_hi;
    if (map_upper_stack(&stack_lo, &stack_hi) != 0) return 1;
    mana_lh.uh_stack.start = stack_lo;
    mana_lh.uh_stack.end = stack_hi;
    mana_lh.uh_entry = ldso.entry;
    mana_lh.uh_ldso_base = ldso.bias;
    mana_lh.uh_app_base = appelf.bias;

    static char preload_buf[8192], info_buf[96];
    char **env = upper_env(envp, plugin, preload_buf, sizeof preload_buf, info_buf, sizeof info_buf);
    if (!env) { mana_err("out of memory"); return 1; }

    /* Strings at the top of the new stack. */
    char *sp = (char *)stack_hi;
    int envc = 0;
    while (env[envc]) envc++;
    char **uargv = alloca((size_t)(argc + 1) * sizeof(char *));
    char **uenv = alloca((size_t)(envc + 1) * sizeof(char *));
    sp -= 8;                                     /* a zero word at the very top */
    memset(sp, 0, 8);
    char *execfn = push_str(&sp, app);
    for (int i = envc - 1; i >= 0; i--) uenv[i] = push_str(&sp, env[i]);
    for (int i = argc - 1; i >= 0; i--) uargv[i] = push_str(&sp, argv[i]);
    uenv[envc] = NULL;
    uargv[argc] = NULL;
    char *platform = push_str(&sp, "x86_64");
    expand_origin(&appelf, app, &sp);
    sp -= 16;
    char *random = sp;
    if (getrandom(random, 16, 0) != 16) {
        uint64_t t = (uint64_t)mana_now_ns();
        memcpy(random, &t, 8);
        t ^= (uint64_t)getpid() * 0x9E3779B97F4A7C15ULL;
        memcpy(random + 8, &t, 8);
    }

    Elf64_auxv_t aux[64];
    int na = build_auxv(aux, &appelf, &ldso, random, platform, execfn);

    size_t words = 1 + (size_t)argc + 1 + (size_t)envc + 1 + 2 * (size_t)na;
    uint64_t *top = (uint64_t *)(((uint64_t)sp & ~15UL) - words * 8);
    top = (uint64_t *)((uint64_t)top & ~15UL);
    uint64_t *w = top;
    *w++ = (uint64_t)argc;
    for (int i = 0; i < argc; i++) *w++ = (uint64_t)uargv[i];
    *w++ = 0;
    for (int i = 0; i < envc; i++) *w++ = (uint64_t)uenv[i];
    *w++ = 0;
    memcpy(w, aux, (size_t)na * sizeof(Elf64_auxv_t));
    mana_lh.uh_argc = argc;
    mana_lh.uh_argv = (uint64_t)(top + 1);

    /* The kernel break stays the lower half's. */
    if (lh_guard_brk() != 0) return 1;

    struct mana_range upper[3] = {
        { appelf.map_start, appelf.map_end },
        { ldso.map_start, ldso.map_end },
        { stack_lo, stack_hi },
    };
    if (lh_record_ranges(upper, 3) != 0) return 1;

    mana_dbg("launch: app %s at bias %#lx, ld.so %s at %#lx (entry %#lx), stack %#lx-%#lx, info %p",
             app, (unsigned long)appelf.bias, appelf.interp, (unsigned long)ldso.bias,
             (unsigned long)ldso.entry, (unsigned long)stack_lo, (unsigned long)stack_hi, (void *)&mana_lh);
    mana_timing("lower-half launch (load ld.so and application)", mana_now_ns() - t0);
    fflush(NULL);
    jump_to((uint64_t)top, ldso.entry);
}
