/*
 * env.c - who gets the runtime: the launched program, never its children.
 *
 * The lower half starts the upper half with LD_PRELOAD=libmana.so, GLIBC_TUNABLES (rseq off) and
 * MANA_LH_INFO_ADDR="0xADDR:PID:TOKEN".  Children inherit whatever the program passes on, so:
 *
 *  - the plugin trusts ADDR only in process PID, and only if the block it reads there with
 *    process_vm_readv (which cannot fault) has the lh_info magic and TOKEN; a child (other pid), a
 *    program exec'd natively (same pid, other memory) or a forged value stays out, silently;
 *  - it edits `environ` itself, in place: a program may define its own getenv/setenv/unsetenv (bash
 *    does, and they do nothing to the real environment before bash's main), so the libc functions
 *    could leave the runtime's variables to every child.  The user's LD_PRELOAD and GLIBC_TUNABLES
 *    come back, the runtime's variables go.
 *
 * The lower half also gives the process its original personality back (ASLR), so children of a
 * program under the runtime run as if it had been launched natively.
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_util.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

extern char **environ;

const char *mana_env_get(const char *name)
{
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

void mana_env_unset(const char *name)
{
    size_t n = strlen(name);
    if (!environ) return;
    for (char **e = environ; *e;) {
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') {
            char **d = e;
            do d[0] = d[1]; while (*d++);
        } else {
            e++;
        }
    }
}

/* Replace NAME's value with `entry` ("NAME=value", static storage); only where NAME is present. */
static void env_replace(const char *name, char *entry)
{
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') { *e = entry; return; }
}

int mana_safe_read(uint64_t addr, void *buf, size_t len)
{
    struct iovec local = { buf, len }, remote = { (void *)addr, len };
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* This library's own path (to recognise it in an LD_PRELOAD list). */
static const char *self_path(void)
{
    Dl_info di;
    if (dladdr((void *)self_path, &di) && di.dli_fname) return di.dli_fname;
    return "libmana.so";
}

/* A stale copy of the runtime's variables in a process that is not the launched one: take out what
 * the runtime added (its library from LD_PRELOAD, its rseq tunable, its MPI folder). */
static void strip_stale(void)
{
    static char preload[8192], tunables[4096];
    mana_env_unset("MANA_LH_INFO_ADDR");
    const char *pl = mana_env_get("LD_PRELOAD");
    if (pl) {
        const char *me = self_path(), *base = strrchr(me, '/');
        base = base ? base + 1 : me;
        size_t k = (size_t)snprintf(preload, sizeof preload, "LD_PRELOAD=");
        int changed = 0;
        for (const char *p = pl; *p;) {
            size_t n = strcspn(p, ": ");
            const char *slash = memrchr(p, '/', n);
            const char *b = slash ? slash + 1 : p;
            int ours = (n == strlen(me) && strncmp(p, me, n) == 0) ||
                       ((size_t)(p + n - b) == strlen(base) && strncmp(b, base, strlen(base)) == 0 &&
                        strcmp(base, "libmana.so") == 0);
            if (ours) changed = 1;
            else if (n && k + n + 2 < sizeof preload) {
                if (k > 11) preload[k++] = ':';
                memcpy(preload + k, p, n);
                k += n;
                preload[k] = 0;
            }
            p += n;
            while (*p == ':' || *p == ' ') p++;
        }
        if (changed) {
            if (k > 11) env_replace("LD_PRELOAD", preload);
            else mana_env_unset("LD_PRELOAD");
        }
    }
    const char *tu = mana_env_get("GLIBC_TUNABLES");
    if (tu) {
        const char *add = "glibc.pthread.rseq=0";
        size_t tl = strlen(tu), al = strlen(add);
        if (strcmp(tu, add) == 0) mana_env_unset("GLIBC_TUNABLES");
        else if (tl > al && tu[tl - al - 1] == ':' && strcmp(tu + tl - al, add) == 0) {
            snprintf(tunables, sizeof tunables, "GLIBC_TUNABLES=%.*s", (int)(tl - al - 1), tu);
            env_replace("GLIBC_TUNABLES", tunables);
        }
    }
}

/* Our MPI library's folder first on LD_LIBRARY_PATH (the lower half put it there): out again. */
static void strip_shadow(void)
{
    static char llp_buf[8192];
    const char *shadow = mana_env_get("MANA_MPI_SHADOW"), *llp = mana_env_get("LD_LIBRARY_PATH");
    if (!shadow || !*shadow || !llp) return;
    size_t sl = strlen(shadow);
    if (strncmp(llp, shadow, sl) == 0 && llp[sl] == ':') {
        snprintf(llp_buf, sizeof llp_buf, "LD_LIBRARY_PATH=%s", llp + sl + 1);
        env_replace("LD_LIBRARY_PATH", llp_buf);
    } else if (strcmp(llp, shadow) == 0) {
        mana_env_unset("LD_LIBRARY_PATH");
    }
}

/* ... and our audit module first on LD_AUDIT (src/mpi/audit.c): out again, so children do not load it. */
static void strip_audit(void)
{
    static char la_buf[8192];
    const char *audit = mana_env_get("MANA_MPI_AUDIT"), *la = mana_env_get("LD_AUDIT");
    if (!audit || !*audit || !la) return;
    size_t al = strlen(audit);
    if (strncmp(la, audit, al) == 0 && la[al] == ':') {
        snprintf(la_buf, sizeof la_buf, "LD_AUDIT=%s", la + al + 1);
        env_replace("LD_AUDIT", la_buf);
    } else if (strcmp(la, audit) == 0) {
        mana_env_unset("LD_AUDIT");
    }
}

struct lh_info *mana_env_claim_lh_info(void)
{
    const char *s = mana_env_get("MANA_LH_INFO_ADDR");
    if (!s || !*s) return NULL;          /* not started by bin/lower-half, nor a child of such */
    unsigned long long addr = 0, token = 0;
    int pid = 0, used = 0;
    struct lh_info *lh = NULL;
    if (sscanf(s, "0x%llx:%d:%llx%n", &addr, &pid, &token, &used) == 3 && s[used] == 0 && pid == getpid() &&
        addr && token) {
        struct { uint64_t magic; uint32_t version, size; } head;
        uint64_t tok = 0;
        int32_t owner = 0;
        if (mana_safe_read(addr, &head, sizeof head) == 0 && head.magic == MANA_LH_MAGIC &&
            head.size >= sizeof(struct lh_info) &&
            mana_safe_read(addr + offsetof(struct lh_info, token), &tok, sizeof tok) == 0 && tok == token &&
            mana_safe_read(addr + offsetof(struct lh_info, owner_pid), &owner, sizeof owner) == 0 && owner == pid)
            lh = (struct lh_info *)(uintptr_t)addr;
    }
    if (!lh) {
        /* A child, or a program exec'd without the runtime: it runs as if launched natively. */
        strip_stale();
        strip_shadow();
        strip_audit();
        return NULL;
    }
    /* The launched program: its children get the user's environment back. */
    static char preload[4096 + 16], tunables[4096 + 20];
    mana_env_unset("MANA_LH_INFO_ADDR");
    if (lh->had_ld_preload) {
        snprintf(preload, sizeof preload, "LD_PRELOAD=%s", lh->orig_ld_preload);
        env_replace("LD_PRELOAD", preload);
    } else {
        mana_env_unset("LD_PRELOAD");
    }
    if (lh->had_glibc_tunables) {
        snprintf(tunables, sizeof tunables, "GLIBC_TUNABLES=%s", lh->orig_glibc_tunables);
        env_replace("GLIBC_TUNABLES", tunables);
    } else {
        mana_env_unset("GLIBC_TUNABLES");
    }
    strip_shadow();
    strip_audit();
    return lh;
}
