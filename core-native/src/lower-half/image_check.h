/*
 * image_check.h - one reader of a MANA checkpoint image, for the restore (restore.c) and for
 * `lower-half --check IMAGE` (main.c).
 *
 * mana_image_open() reads the header, the section table and every metadata section, and checks them
 * against the rules of docs/image-format.md ("What a reader checks"); the Java reader
 * (image-inspector, ManaImageReader) applies the same rules, and a test feeds both the same mutated
 * images.  Payload bytes are not read by open: the restore checks each region's CRC as it loads it,
 * and mana_image_check_bytes() (--check) reads every byte of the file once.
 *
 * Every function returns 0, or -1 with one line in im->err ("PATH: corrupt: where: what").
 */
#ifndef MANA_IMAGE_CHECK_H
#define MANA_IMAGE_CHECK_H

#include <stdint.h>
#include "mana/image_format.h"

#define MANA_IMG_MAX_SECTIONS 64                   /* the format defines 7 types */
#define MANA_IMG_MAX_META     (128ULL << 20)       /* a metadata section (types 1..5) larger is refused */
#define MANA_IMG_MAX_NAME     4095u                /* a region name or file path longer is refused */
#define MANA_IMG_MAX_REGIONS  (1u << 20)

struct mana_image_region {
    struct mana_img_region r;
    const char *name;                   /* NUL-terminated copy */
    const struct mana_img_run *runs;    /* into the MEMORY section */
};

struct mana_image_file {
    struct mana_img_file f;
    const char *path;                   /* NUL-terminated copy */
};

/* One FILEDATA record: the saved contents of descriptor fd, `size` bytes at `data_at` in the image. */
struct mana_image_saved {
    int32_t  fd;
    int64_t  size;
    uint64_t data_at;
};

struct mana_image {
    int fd;                             /* O_RDONLY | O_CLOEXEC; -1 once closed */
    const char *path;
    uint64_t size;                      /* real size of the file */
    struct mana_img_header h;
    struct mana_img_section tab[MANA_IMG_MAX_SECTIONS];
    uint32_t nsec;
    const struct mana_img_section *sec_ent[8];   /* table entry by type 1..7; NULL when absent */
    char *sec[7];                       /* bytes of the sections of types 1..5 (checked: CRC) */
    uint64_t sec_len[7];

    struct mana_img_process proc;
    const char *exe, *cwd;
    uint32_t argc;
    struct mana_image_region *regs;
    uint32_t nregs;
    const struct mana_img_thread *thr;
    uint32_t nthr;
    struct mana_image_file *files;
    uint32_t nfiles;
    struct mana_img_signals sig;
    const struct mana_img_sigaction *sigs;
    const struct mana_img_itimer *timers;
    struct mana_image_saved *saved;
    uint32_t nsaved;

    char err[1024];
};

/* Open and check everything but the payload bytes. */
int mana_image_open(struct mana_image *im, const char *path);

/* The file's name, when it has the form of an image's (ckpt_*.mana), names the program and the
 * generation its header says: an image renamed into place is refused. */
int mana_image_check_name(struct mana_image *im);

/* Every byte once: each region's payload CRC, the CRC of the sections open did not load (MPI,
 * unknown types), and zeros wherever nothing is stored. */
int mana_image_check_bytes(struct mana_image *im);

/* Frees what open allocated and closes the descriptor (safe after a failed open). */
void mana_image_close(struct mana_image *im);

/* `lower-half --check IMAGE`: 0 and one summary line on stdout, or 1 and one error line on stderr. */
int lh_check_image(const char *path);

#endif
