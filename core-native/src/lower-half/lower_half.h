/* lower_half.h - internal interfaces of bin/lower-half. */
#ifndef MANA_LOWER_HALF_H
#define MANA_LOWER_HALF_H

#include <stddef.h>
#include <stdint.h>
#include "lh_info.h"

/* The one info block of this process (lower-half .bss). */
extern struct lh_info mana_lh;

/* Fill mana_lh.settings from the environment. */
void lh_read_settings(void);

/* Record the lower half's own mappings: every mapping in /proc/self/maps that does not overlap
 * one of the `exclude` ranges (the upper half) and is not [vdso]/[vvar*]/[vsyscall]. */
int lh_record_ranges(const struct mana_range *exclude, int nexclude);

/* Read and parse /proc/self/maps into one static table (room for vm.max_map_count entries).
 * Returns the number of entries and sets *maps, or -1 after printing an error. */
struct mana_map;
int lh_read_maps(struct mana_map **maps);

/* ---- the lower half's memory after launch (lh_track.c) ---- */
#define LH_MAX_RANGES 16384
/* Patch the lower libc's mmap/munmap/mremap so later mappings update mana_lh.lh_ranges. */
int lh_track_install(void);
int lh_patch(const char *name, void *to);   /* lh_track.c: the lower libc's function `name` jumps to `to` */
void lh_track_start(void);
void lh_track_fds(int on);            /* descriptors opened and closed from now on: marked, unmarked */
void lh_fd_mark(int fd);              /* a descriptor of the MPI library: never saved */
void lh_track_lock(void);
void lh_track_unlock(void);

/* ---- MPI (lh_mpi.c; only in the lower halves built against an MPI) ---- */
/* The MPI this binary was built against ("openmpi", "mpich"), or "none". */
extern const char lh_mpi_name[];
/* MPI_Init_thread in the lower half, then publish the MPI part of lh_info.  0, or -1 (message printed). */
int lh_mpi_init(void);

/* The fault signals (lh_sig.c): the lower half's handlers taken into its table, the dispatcher into
 * the kernel; mana_lh.fault_* published.  0, or -1 (message printed). */
int lh_sig_adopt(void);

/* Put a PROT_NONE page just past the kernel break (records it in mana_lh.brk_guard). */
int lh_guard_brk(void);

/* ---- kernel loader (loader.c) ---- */
struct lh_elf {
    uint64_t bias;          /* load bias */
    uint64_t entry;         /* bias + e_entry */
    uint64_t phdr;          /* address of the program headers in memory */
    uint32_t phnum;
    uint64_t map_start, map_end;   /* reserved span */
    uint64_t dynamic;       /* address of PT_DYNAMIC in memory (0 if none) */
    int      dynamic_writable;  /* it lies in a writable PT_LOAD */
    char     interp[4096];  /* PT_INTERP ("" if none) */
};

/* Map an ELF file's PT_LOAD segments.  Returns 0, or -1 with a message in err. */
int lh_map_elf(const char *path, struct lh_elf *out, char *err, size_t errlen);

/* Set by `--exec PATH`: load PATH (as execve: no search) instead of resolving argv[0]. */
extern const char *lh_exec_path;

/* Launch: run PROGRAM argv through its own ld.so.  Does not return on success. */
int lh_launch(int argc, char **argv, char **envp);

/* Restore (restore.c): does not return on success; returns the exit status on failure. */
int lh_restore(const char *dir);

/* Restart pause levels (MANA_RESTART_PAUSE / DMTCP_RESTART_PAUSE). */
extern volatile int mana_restart_pause_wait;
void lh_restart_pause(int level, const char *where);

#endif
