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

#include <stddef.h>
#include <stdint.h>
#include "mana/image_format.h"

/* The limits (MANA_IMG_MAX_*) are the format's, in image_format.h. */

struct mana_image_region {
    struct mana_img_region r;
    const char *name;                   /* NUL-terminated copy */
    const struct mana_img_run *runs;    /* into the MEMORY section */
    const struct mana_img_run *zero_runs;   /* incremental images: r.zero_run_count of them, after runs */
    uint64_t payload_len;               /* bytes of the payload in the file: stored_bytes, or compressed */
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
    const struct mana_img_section *sec_ent[11];  /* table entry by type 1..7, 9, 10; NULL when absent */
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
    struct mana_img_parent parent;      /* incremental images (MANA_IMG_F_INCREMENTAL): the parent */
    char parent_name[256];              /* its file name, in this image's folder */
    uint64_t zframes;                   /* zstd frames mana_zstd_crc has decoded (the writer's threads make several a region) */

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

/* Decompress the zstd frames of `len` bytes at `off` of the image: CRC-32C and length of the output,
 * which also goes to `sink` (when given) piece by piece.  0, or -1 with im->err (or sink's value). */
int mana_zstd_crc(struct mana_image *im, uint64_t off, uint64_t len, uint32_t *crc_out, uint64_t *out_len,
                  int (*sink)(void *ctx, const void *buf, size_t n), void *ctx);

/* Frees what open allocated and closes the descriptor (safe after a failed open). */
void mana_image_close(struct mana_image *im);

/* `lower-half --check IMAGE`: 0 and one summary line on stdout, or 1 and one error line on stderr. */
int lh_check_image(const char *path);

#endif
