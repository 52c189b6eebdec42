/*
 * audit.c - lib/mana/libmana_audit.so, an rtld-audit(7) module for the upper half of an MPI program.
 *
 * The upper half finds the runtime's MPI library (lib/mana/<mpi>/, same soname as the real one) first
 * through LD_LIBRARY_PATH.  Three ways around that path would load the real library into the upper
 * half: a DT_RPATH naming the real library's folder (searched before LD_LIBRARY_PATH), a dlopen of the
 * real library by absolute path (an interpreter's MPI module built that way), and a DT_NEEDED or
 * dlopen naming the path itself.  The dynamic linker asks this module about every library name before
 * any search (LA_SER_ORIG), so each of them gets the runtime's library instead.
 *
 * The lower half loads the same LD_AUDIT (it is in the environment of the whole process) and must keep
 * the real library: the module is active only in the process whose MANA_LH_INFO_ADDR it was started
 * with (the upper half's environment carries it, the lower half's does not), and only when
 * MANA_MPI_SHADOW names the runtime's folder.  It runs in its own link namespace with its own libc.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char target[4096];        /* the runtime's library */
static const char *soname;        /* the real library's soname it replaces */

unsigned int la_version(unsigned int version)
{
    const char *info = getenv("MANA_LH_INFO_ADDR"), *shadow = getenv("MANA_MPI_SHADOW");
    if (!info || !*info || !shadow || !*shadow) return 0;          /* not an MPI upper half: stay out */
    /* "ADDR" or "ADDR:PID:TOKEN": a child that inherited the variable is another process */
    const char *colon = strchr(info, ':');
    if (colon && atol(colon + 1) != (long)getpid()) return 0;
    size_t n = strlen(shadow);
    if (n >= 7 && strcmp(shadow + n - 7, "openmpi") == 0) soname = "libmpi.so.40";
    else if (n >= 5 && strcmp(shadow + n - 5, "mpich") == 0) soname = "libmpich.so.12";
    else return 0;
    if ((size_t)snprintf(target, sizeof target, "%s/%s", shadow, soname) >= sizeof target) return 0;
    if (access(target, R_OK) != 0) return 0;
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    (void)cookie;
    if (flag != LA_SER_ORIG || !soname) return (char *)name;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    /* the soname, or the development name a dlopen may use ("libmpi.so") */
    size_t sl = strlen(soname), bl = strlen(base);
    if (strcmp(base, soname) == 0 || (bl < sl && strncmp(soname, base, bl) == 0 && soname[bl] == '.'))
        return target;
    return (char *)name;
}
