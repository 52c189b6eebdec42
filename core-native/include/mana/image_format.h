/*
 * image_format.h - the on-disk layout of a MANA checkpoint image (format version 1).
 *
 * This header is the definition of the format: the writer (src/plugin/writer.c), the C reader
 * (src/lower-half/image_check.c) and the restore use these structs, and the Java side is held to them
 * by a test: image-inspector's ImageLayoutTest compiles a program that prints offsetof/sizeof of every
 * field of every struct mana_img_* below and the value of every MANA_* constant, and wants the same
 * numbers in dev.mana.inspector.ImageLayout, the same offsets in the comments here (so keep the offset
 * comment on each field and the size comment after each struct), and the same offsets in the tables
 * of docs/image-format.md.  Every field is fixed-size, little-endian (x86-64 native), no implicit
 * padding (write it out as a reserved field).
 *
 * Shape of a file:
 *
 *   page 0            struct mana_img_header (256 bytes), rest of the page zero
 *   pages 1..         memory payloads, each region's stored pages contiguous and page-aligned
 *   after payloads    metadata sections (8-byte aligned), in any order
 *   last              the section table: section_count x struct mana_img_section
 *
 * The header is written last, so a file whose writer died has no valid header. A complete image
 * also has file_size equal to the real size: anything shorter is truncated.
 */
#ifndef MANA_IMAGE_FORMAT_H
#define MANA_IMAGE_FORMAT_H

#include <stdint.h>

#define MANA_IMG_MAGIC        "MANAIMG1"    /* 8 bytes, no NUL */
#define MANA_IMG_VERSION      1u
#define MANA_IMG_HEADER_SIZE  256u
#define MANA_IMG_PAGE_SIZE    4096u
#define MANA_IMG_SUFFIX       ".mana"       /* final name: ckpt_<program>_gen<N>.mana */
#define MANA_IMG_TMP_SUFFIX   ".tmp"        /* while being written: <final name>.tmp */

/* Header flags. */
#define MANA_IMG_F_MPI        0x1u          /* the image has an MPI section */
#define MANA_IMG_F_INCREMENTAL 0x2u         /* a generation of a chain: pages in no run of a region are the
                                             * parent image's (PARENT section names it) */
#define MANA_IMG_F_UNTRACKED  0x4u          /* incremental checkpoints were asked for, but the kernel could
                                             * not track written pages: a full image (never with 0x2) */

/* Limits both readers apply (docs/image-format.md, "What a reader checks"). */
#define MANA_IMG_MAX_SECTIONS 64                   /* the format defines 10 types */
#define MANA_IMG_MAX_META     (128ULL << 20)       /* a metadata section (types 1..5) larger is refused */
#define MANA_IMG_MAX_NAME     4095u                /* a region name or file path longer is refused */
#define MANA_IMG_MAX_REGIONS  (1u << 20)
#define MANA_IMG_MAX_SIGACTIONS 64u                /* sigaction records in SIGNALS */
#define MANA_IMG_MAX_TIMERS   3u                   /* interval timers in SIGNALS (ITIMER_REAL/VIRTUAL/PROF) */
#define MANA_IMG_MAX_CHAIN    64u                  /* images in an incremental chain, the full one included */

struct mana_img_header {
    char     magic[8];            /*   0 "MANAIMG1" */
    uint32_t version;             /*   8 MANA_IMG_VERSION */
    uint32_t header_size;         /*  12 MANA_IMG_HEADER_SIZE */
    uint64_t file_size;           /*  16 total bytes of the complete file */
    uint64_t section_table_offset;/*  24 file offset of the section table */
    uint32_t section_count;       /*  32 entries in the section table */
    uint32_t section_entry_size;  /*  36 sizeof(struct mana_img_section) = 32 */
    uint32_t page_size;           /*  40 4096 */
    uint32_t flags;               /*  44 MANA_IMG_F_* */
    uint32_t rank;                /*  48 MPI rank (0 without MPI) */
    uint32_t nranks;              /*  52 world size (1 without MPI) */
    uint32_t generation;          /*  56 checkpoint generation, 1 for the first */
    int32_t  pid;                 /*  60 pid at checkpoint */
    int64_t  time_unix_ns;        /*  64 when the checkpoint was taken (CLOCK_REALTIME) */
    uint64_t mapped_bytes;        /*  72 sum of (end - start) over the regions whose memory the image carries:
                                   *     all but LOWER, VDSO, VVAR, GUARD and shared FILE regions */
    uint64_t stored_bytes;        /*  80 sum of payload bytes over all regions */
    uint32_t header_crc;          /*  88 CRC-32C of these 256 bytes with this field as 0 */
    uint32_t reserved0;           /*  92 0 */
    char     host[64];            /*  96 host name, NUL-padded */
    char     mpi[16];             /* 160 "none", "openmpi" or "mpich", NUL-padded */
    char     program[80];         /* 176 program basename, NUL-padded (full path in PROCESS) */
};                                /* 256 */

/* Section table entry. */
struct mana_img_section {
    uint32_t type;                /*  0 MANA_SEC_* */
    uint32_t version;             /*  4 layout version of this section, 1 */
    uint64_t offset;              /*  8 file offset */
    uint64_t length;              /* 16 bytes */
    uint32_t crc;                 /* 24 CRC-32C of the section's bytes */
    uint32_t count;               /* 28 records in it (meaning per type, below) */
};                                /* 32 */

enum mana_section_type {
    MANA_SEC_PROCESS = 1,         /* count = 1 */
    MANA_SEC_MEMORY  = 2,         /* count = regions */
    MANA_SEC_THREADS = 3,         /* count = threads */
    MANA_SEC_FILES   = 4,         /* count = file descriptors */
    MANA_SEC_SIGNALS = 5,         /* count = sigaction records */
    MANA_SEC_MPI     = 6,         /* count = 1: struct mana_img_mpi (MPI programs only) */
    MANA_SEC_FILEDATA = 7,        /* count = files whose contents are saved (optional; readers that do
                                   * not know it skip it) */
    MANA_SEC_MPI_OBJECTS = 8,     /* count = MPI objects listed: open MPI-IO files (optional, MPI programs
                                   * with such objects; for readers: the restore does not use it) */
    MANA_SEC_PARENT  = 9,         /* count = 1: struct mana_img_parent (incremental images only) */
    MANA_SEC_ZSTD    = 10,        /* count = compressed regions: struct mana_img_zstd each (only when a region
                                   * has MANA_REG_ZSTD) */
};

/*
 * PROCESS: one fixed record, then strings. Each string is u32 length + bytes, padded with zeros to
 * a multiple of 8: exe path, cwd, then argc (u32, padded to 8) and argc argument strings.
 */
struct mana_img_process {
    int32_t  pid;                 /*   0 */
    int32_t  ppid;                /*   4 */
    int32_t  sid;                 /*   8 */
    int32_t  pgid;                /*  12 */
    uint32_t umask;               /*  16 */
    uint32_t pthread_tid_offset;  /*  20 offset of the tid field inside glibc's struct pthread */
    uint64_t lh_info_slot;        /*  24 upper-half address where restart stores the new lh_info pointer */
    uint64_t vdso_start;          /*  32 [vdso] at checkpoint */
    uint64_t vdso_end;            /*  40 */
    uint64_t vvar_start;          /*  48 [vvar] at checkpoint (0 if none) */
    uint64_t vvar_end;            /*  56 */
    uint64_t upper_stack_start;   /*  64 stack the lower half gave the upper half */
    uint64_t upper_stack_end;     /*  72 */
    uint64_t upper_entry;         /*  80 entry point of the upper ld.so at launch (informational) */
    uint64_t upper_brk_slot;      /*  88 address of the upper libc's cached break (`__curbrk`); 0: unknown */
    uint64_t upper_brk;           /*  96 its value at the checkpoint (informational) */
    uint64_t upper_fault_acts;    /* 104 the program's fault-signal actions (libmana's mana_fault_acts, 65 x 24
                                           bytes): the restart's dispatcher reads them there; 0: none */
    uint64_t reserved[2];         /* 112 0 */
};                                /* 128 */

/* Region flags. */
#define MANA_REG_SHARED     0x001u   /* MAP_SHARED (else private) */
#define MANA_REG_ANON       0x002u   /* no backing file */
#define MANA_REG_FILE       0x004u   /* backed by the file in name */
#define MANA_REG_STACK      0x008u   /* a thread stack or [stack] */
#define MANA_REG_HEAP       0x010u   /* [heap] */
#define MANA_REG_VDSO       0x020u   /* [vdso]; never stored */
#define MANA_REG_VVAR       0x040u   /* [vvar]; never stored */
#define MANA_REG_LOWER      0x080u   /* lower half: listed for information, never stored or restored */
#define MANA_REG_GUARD      0x100u   /* PROT_NONE reservation (no payload; restored as PROT_NONE) */
#define MANA_REG_ZSTD       0x200u   /* the stored pages are zstd-compressed (ZSTD section: their length) */

/*
 * MEMORY: count records, each struct mana_img_region, then name_len bytes of name (no NUL) padded with
 * zeros to a multiple of 8, then run_count x struct mana_img_run, then zero_run_count x struct
 * mana_img_run. The runs list the stored pages of the region in increasing order; in a full image pages
 * in no run are zero. The stored pages of a region lie contiguously at payload_offset (page-aligned) in
 * run order, stored_bytes in all.  An incremental image (MANA_IMG_F_INCREMENTAL) also lists zero runs
 * (pages that are zero now), disjoint from the stored runs; a page in neither is the parent's.
 */
struct mana_img_region {
    uint64_t start;               /*  0 first byte (page-aligned) */
    uint64_t end;                 /*  8 one past the last byte (page-aligned) */
    uint32_t prot;                /* 16 PROT_READ 1 | PROT_WRITE 2 | PROT_EXEC 4 */
    uint32_t flags;               /* 20 MANA_REG_* */
    uint64_t file_offset;         /* 24 offset in the backing file (MANA_REG_FILE) */
    uint64_t inode;               /* 32 of the backing file, 0 if none */
    uint32_t dev_major;           /* 40 */
    uint32_t dev_minor;           /* 44 */
    uint64_t payload_offset;      /* 48 file offset of the stored pages (0 when none) */
    uint64_t stored_bytes;        /* 56 multiple of the page size */
    uint32_t run_count;           /* 64 */
    uint32_t payload_crc;         /* 68 CRC-32C over the stored bytes in order (0 when none) */
    uint32_t name_len;            /* 72 bytes of name that follow ("" for anonymous, "[heap]", a path) */
    uint32_t zero_run_count;      /* 76 zero runs after the stored runs (incremental images; else 0) */
};                                /* 80 */

struct mana_img_run {
    uint64_t first_page;          /* 0 page index from region start */
    uint64_t page_count;          /* 8 */
};                                /* 16 */

/* Thread flags. */
#define MANA_THR_MAIN       0x1u     /* the process's main thread (tid == pid) */
#define MANA_THR_CKPT       0x2u     /* the checkpoint thread (resumes through ctx_addr) */

#define MANA_IMG_NGREG 23            /* general registers, in the order of the kernel's mcontext gregs */

/* THREADS: count x struct mana_img_thread. */
struct mana_img_thread {
    int32_t  tid;                 /*   0 kernel tid at checkpoint */
    uint32_t flags;               /*   4 MANA_THR_* */
    uint64_t fs_base;             /*   8 TLS pointer (struct pthread) */
    uint64_t gs_base;             /*  16 */
    uint64_t ctid_addr;           /*  24 glibc's tid field: CLONE_CHILD_CLEARTID / SETTID target */
    uint64_t stack_start;         /*  32 the mapping holding the thread's stack */
    uint64_t stack_end;           /*  40 */
    uint64_t ucontext_addr;       /*  48 saved signal frame's ucontext (resume by rt_sigreturn), 0 for CKPT */
    uint64_t ctx_addr;            /*  56 saved asm context of the checkpoint thread, 0 otherwise */
    uint64_t sigmask;             /*  64 blocked signals when interrupted */
    uint64_t robust_list;         /*  72 set_robust_list head, 0 if none */
    uint64_t robust_list_len;     /*  80 */
    uint64_t altstack_sp;         /*  88 sigaltstack, 0 if none */
    uint64_t altstack_size;       /*  96 */
    int32_t  altstack_flags;      /* 104 */
    uint32_t reserved;            /* 108 0 */
    uint64_t gregs[MANA_IMG_NGREG]; /* 112 copy for inspection: R8..R15, RDI, RSI, RBP, RBX, RDX, RAX,
                                   *     RCX, RSP, RIP, EFL, CSGSFS, ERR, TRAPNO, OLDMASK, CR2 */
};                                /* 296 */

/* File kinds. */
enum mana_file_kind {
    MANA_FILE_REGULAR = 1,
    MANA_FILE_DIR     = 2,
    MANA_FILE_CHAR    = 3,        /* tty, /dev/null, ... */
    MANA_FILE_PIPE    = 4,        /* pipe or FIFO */
    MANA_FILE_SOCKET  = 5,
    MANA_FILE_OTHER   = 6,        /* anon inode (eventfd, epoll, ...), not restored */
};

/* fd_flags bit: the descriptor was inherited from the launcher (open before the program started, like
 * 0/1/2).  Restart leaves such a number to the new launcher when it has it open, else reopens the
 * path without checks (never truncating it), else puts /dev/null there. */
#define MANA_FD_INHERITED   0x100u

/* FILES: count records, each struct mana_img_file then path_len bytes padded to a multiple of 8. */
struct mana_img_file {
    int32_t  fd;                  /*  0 */
    uint32_t kind;                /*  4 enum mana_file_kind */
    int32_t  open_flags;          /*  8 O_* as from /proc/self/fdinfo */
    uint32_t fd_flags;            /* 12 FD_CLOEXEC (1), MANA_FD_INHERITED */
    int64_t  offset;              /* 16 file position */
    int64_t  size;                /* 24 st_size at checkpoint */
    int64_t  mtime_ns;            /* 32 st_mtim */
    uint64_t inode;               /* 40 */
    uint64_t dev;                 /* 48 */
    uint32_t mode;                /* 56 st_mode */
    uint32_t path_len;            /* 60 bytes of path that follow (readlink of /proc/self/fd/N) */
};                                /* 64 */

/*
 * SIGNALS: a struct mana_img_signals, then nsig x struct mana_img_sigaction (only signals whose
 * disposition is not SIG_DFL), then ntimers x struct mana_img_itimer. count = nsig.
 */
struct mana_img_signals {
    uint32_t nsig;                /* 0 */
    uint32_t ntimers;             /* 4 */
    uint64_t pending;             /* 8 process-wide pending set (informational) */
};                                /* 16 */

struct mana_img_sigaction {
    int32_t  signo;               /*  0 */
    uint32_t reserved;            /*  4 */
    uint64_t handler;             /*  8 sa_handler / sa_sigaction, or SIG_IGN (1) */
    uint64_t flags;               /* 16 SA_* */
    uint64_t restorer;            /* 24 sa_restorer */
    uint64_t mask;                /* 32 sa_mask */
};                                /* 40 */

struct mana_img_itimer {
    int32_t  which;               /*  0 ITIMER_REAL 0, ITIMER_VIRTUAL 1, ITIMER_PROF 2 */
    uint32_t reserved;            /*  4 */
    int64_t  interval_ns;         /*  8 */
    int64_t  value_ns;            /* 16 time left when checkpointed */
};                                /* 24 */

/*
 * FILEDATA (optional): the contents of the regular files the program had open for writing other
 * than by appending (a database written in place), so that a restart can put them back exactly.
 * count records, each a struct mana_img_filedata followed by `size` bytes of contents, padded with
 * zeros to a multiple of 8.  fd names the FILES record it belongs to.
 */
struct mana_img_filedata {
    int32_t  fd;                  /*  0 */
    uint32_t reserved;            /*  4 0 */
    int64_t  size;                /*  8 bytes of contents that follow */
    uint64_t inode;               /* 16 as in the FILES record */
    uint64_t dev;                 /* 24 */
};                                /* 32 */

/*
 * MPI (type 6, count 1, present when the header has MANA_IMG_F_MPI): the summary a reader needs.  The
 * MPI state itself (virtual handles, object recipes, buffered messages) lives in upper-half memory and
 * comes back with it; the MPI library fills this in (mana_mpi_iface.h: hooks.describe).
 */
struct mana_img_mpi {
    uint32_t kind;                /*  0 MANA_MPI_OPENMPI 1 / MANA_MPI_MPICH 2 (lh_info.h) */
    int32_t  thread_level;        /*  4 the level granted to the program (MPI_THREAD_*) */
    uint32_t comms;               /*  8 live communicators, predefined included */
    uint32_t groups;              /* 12 */
    uint32_t datatypes;           /* 16 derived ones */
    uint32_t ops;                 /* 20 user-defined */
    uint32_t requests;            /* 24 pending (re-posted or completed at restart) */
    uint32_t buffered_msgs;       /* 28 drained messages waiting for a receive */
    uint64_t buffered_bytes;      /* 32 */
    uint64_t sent;                /* 40 point-to-point messages sent by this rank, whole run */
    uint64_t received;            /* 48 */
    uint32_t replay_entries;      /* 56 object recipes replayed at restart */
    uint32_t finalized;           /* 60 MPI_Finalize was called */
};                                /* 64 */

/*
 * MPI_OBJECTS (type 8, optional): what a person looking at a rank's image wants to see of its MPI state
 * beyond the counts above; the state itself is in upper-half memory.  count records, each a struct
 * mana_img_mpi_object followed by `name_len` bytes of its name (no NUL), padded with zeros to a
 * multiple of 8.
 */
#define MANA_MPI_OBJ_FILE       1u        /* an open MPI-IO file; name: its path as the program gave it */
#define MANA_MPI_OBJF_SHARED_FP 0x1u      /* file: the program used the shared file pointer */
#define MANA_MPI_OBJF_ATOMIC    0x2u      /* file: atomic mode */
#define MANA_MPI_OBJF_VIEW      0x4u      /* file: a view was set (else the default: bytes from 0) */
#define MANA_MPI_OBJ_WIN        2u        /* a live window; name: its MPI_Win_set_name name ("" if none) */
#define MANA_MPI_OBJF_FENCE     0x8u      /* window: a fence epoch is open */
#define MANA_MPI_OBJF_LOCK_ALL  0x10u     /* window: this rank holds MPI_Win_lock_all */
#define MANA_MPI_OBJF_LOCKS     0x20u     /* window: this rank holds MPI_Win_lock on some targets */
struct mana_img_mpi_object {
    uint32_t kind;                /*  0 MANA_MPI_OBJ_* */
    uint32_t flags;               /*  4 MANA_MPI_OBJF_* */
    int32_t  amode;               /*  8 file: MPI_MODE_* bits as opened; window: MPI_WIN_FLAVOR_* */
    int32_t  comm_size;           /* 12 members of the communicator it was made on */
    int64_t  position;            /* 16 file: individual file pointer, in etypes of the view; window: size */
    int64_t  shared_position;     /* 24 file: shared file pointer (0 unless MANA_MPI_OBJF_SHARED_FP); window:
                                   *    disp_unit */
    int64_t  disp;                /* 32 file: the view's displacement in bytes; window: base address */
    uint64_t dev;                 /* 40 file: device of the file when opened (the restart checks it) */
    uint64_t ino;                 /* 48 file: inode */
    uint32_t name_len;            /* 56 bytes of name that follow */
    uint32_t reserved;            /* 60 0 */
};                                /* 64 */

/*
 * PARENT (type 9, count 1, exactly when the header has MANA_IMG_F_INCREMENTAL): the image this one
 * completes, in the same folder, followed by name_len bytes of its file name (no NUL, no '/'), padded
 * with zeros to a multiple of 8.  A restart refuses a parent whose header is not this one's record of
 * it (a replaced or rewritten file).
 */
struct mana_img_parent {
    uint32_t generation;          /*  0 the parent's generation (< this image's) */
    uint32_t header_crc;          /*  4 the parent's header_crc */
    uint64_t file_size;           /*  8 the parent's file_size */
    uint32_t depth;               /* 16 images in the chain below this one (1: the parent is a full image) */
    uint32_t name_len;            /* 20 bytes of the parent's file name that follow */
};                                /* 24 */

/*
 * ZSTD (type 10): one record per region with MANA_REG_ZSTD, in region order.  Such a region's payload
 * is compressed_bytes at payload_offset: zstd frames whose content is the region's stored pages in run
 * order (stored_bytes in all); payload_crc is the CRC-32C of that content.
 */
struct mana_img_zstd {
    uint32_t region;              /*  0 index of the region in MEMORY */
    uint32_t level;               /*  4 zstd level it was written with (informational) */
    uint64_t compressed_bytes;    /*  8 bytes of the payload in the file */
};                                /* 16 */

#ifdef __cplusplus
#define MANA_STATIC_ASSERT static_assert
#else
#define MANA_STATIC_ASSERT _Static_assert
#endif
MANA_STATIC_ASSERT(sizeof(struct mana_img_header) == 256, "header layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_section) == 32, "section layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_process) == 128, "process layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_region) == 80, "region layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_run) == 16, "run layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_thread) == 296, "thread layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_file) == 64, "file layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_signals) == 16, "signals layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_sigaction) == 40, "sigaction layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_itimer) == 24, "itimer layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_filedata) == 32, "filedata layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_mpi) == 64, "mpi layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_mpi_object) == 64, "mpi object layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_parent) == 24, "parent layout");
MANA_STATIC_ASSERT(sizeof(struct mana_img_zstd) == 16, "zstd layout");

#endif
