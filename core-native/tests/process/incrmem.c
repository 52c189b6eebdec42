/*
 * incrmem DIR GENS - memory that changes between checkpoints, checked word by word after a restart.
 *
 * For incremental images (docs/image-format.md).  Four kinds of memory, each changed at random
 * between generations (a fixed seed, so the changes can be replayed):
 *   A  24 MiB from malloc (an anonymous mapping), no page zero: random words of random pages
 *   B   8 MiB anonymous mapping: random words, pages given back with MADV_DONTNEED (zero again),
 *      and a 1 MiB window unmapped and mapped again (MAP_FIXED) with new contents
 *   C   1 MiB of .bss: random words
 *   D  16 pages of a private mapping of DIR/incrmem.data: random words, and pages given back with
 *      MADV_DONTNEED (the file's contents again)
 * Generation g: apply step g, print "ready g", wait for DIR/go_g (the harness takes the checkpoint
 * first).  After the last: wait for DIR/go_final, then replay steps 1..GENS into fresh memory and
 * compare every word: "verify ok WORDS words", or "FAIL: ..." naming the first difference.
 * With a third argument `each`, the memory is also compared with the replay of steps 1..g whenever
 * the wait for go_g ends ("verify g ok"): a process restarted from generation g's image checks, before
 * it changes anything, that the image held exactly the memory of that moment (forked checkpoints, where
 * the program changes the same pages while the image is written).
 */
#include "../programs/prog.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define PAGE 4096UL
#define A_BYTES (24UL << 20)
#define B_BYTES (8UL << 20)
#define C_BYTES (1UL << 20)
#define D_PAGES 16UL
#define WIN (1UL << 20)

static uint64_t C_mem[C_BYTES / 8];

struct mem { uint64_t *a, *b, *c, *d; };

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t file_word(uint64_t i) { return 0x5eed000000000000ULL ^ (i * 0x9e3779b97f4a7c15ULL); }

/* Random words in `pages` random pages of a buffer of `bytes`. */
static void scribble(uint64_t *p, uint64_t bytes, int pages)
{
    for (int k = 0; k < pages; k++) {
        uint64_t pg = next() % (bytes / PAGE);
        int words = 1 + (int)(next() % 8);
        for (int w = 0; w < words; w++) p[pg * (PAGE / 8) + next() % (PAGE / 8)] = next() | 1;
    }
}

/* Step g on m.  `live`: the program's own memory (else the replay's copy, where the same effects are
 * made by hand: zeros for MADV_DONTNEED and a new mapping, the file's words for a file page). */
static void step(int g, struct mem *m, int live)
{
    scribble(m->a, A_BYTES, 40 + (int)(next() % 40));
    scribble(m->b, B_BYTES, 20);
    scribble(m->c, C_BYTES, 10);
    scribble(m->d, D_PAGES * PAGE, 3);
    /* give back a few pages of B */
    uint64_t pg = next() % (B_BYTES / PAGE - 4), n = 1 + next() % 4;
    if (live) {
        if (madvise((char *)m->b + pg * PAGE, n * PAGE, MADV_DONTNEED) != 0) fail("madvise B: %s", strerror(errno));
    } else {
        memset((char *)m->b + pg * PAGE, 0, n * PAGE);
    }
    /* every third generation: a window of B mapped anew, with words in it */
    if (g % 3 == 0) {
        uint64_t at = (next() % (B_BYTES / WIN)) * WIN;
        char *w = (char *)m->b + at;
        if (live) {
            if (mmap(w, WIN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != w)
                fail("mmap B window: %s", strerror(errno));
        } else {
            memset(w, 0, WIN);
        }
        scribble((uint64_t *)w, WIN, 5);
    }
    /* every other generation: a page of D back to the file's contents */
    if (g % 2 == 0) {
        uint64_t dp = next() % D_PAGES;
        uint64_t *d = m->d + dp * (PAGE / 8);
        if (live) {
            if (madvise(d, PAGE, MADV_DONTNEED) != 0) fail("madvise D: %s", strerror(errno));
        } else {
            for (uint64_t i = 0; i < PAGE / 8; i++) d[i] = file_word(dp * (PAGE / 8) + i);
        }
    }
}

static void wait_file(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (int i = 0; access(path, F_OK) != 0; i++) {
        if (i > 60 * 200) fail("waited 60 s for %s", path);
        sleep_ms(5);
    }
}

static void compare(const char *what, const uint64_t *have, const uint64_t *want, uint64_t bytes, uint64_t *words)
{
    for (uint64_t i = 0; i < bytes / 8; i++)
        if (have[i] != want[i])
            fail("%s: word %lu (page %lu) is %#lx, want %#lx", what, (unsigned long)i, (unsigned long)(i * 8 / PAGE),
                 (unsigned long)have[i], (unsigned long)want[i]);
    *words += bytes / 8;
}

static void *anon(uint64_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail("mmap: %s", strerror(errno));
    return p;
}

/* Memory m against the replay of steps 1..g in memory made now (after a restart: memory the image did
 * not hold); the generator's state is kept for the program's own next step.  Returns the words compared. */
static uint64_t verify_upto(const struct mem *m, int g)
{
    uint64_t keep = rng;
    struct mem r = { anon(A_BYTES), anon(B_BYTES), anon(C_BYTES), anon(D_PAGES * PAGE) };
    for (uint64_t i = 0; i < D_PAGES * PAGE / 8; i++) r.d[i] = file_word(i);
    for (uint64_t i = 0; i < A_BYTES / 8; i++) r.a[i] = ~file_word(i / 64);
    rng = 88172645463325252ULL;
    for (int k = 1; k <= g; k++) step(k, &r, 0);
    uint64_t words = 0;
    compare("A (malloc)", m->a, r.a, A_BYTES, &words);
    compare("B (anonymous mapping)", m->b, r.b, B_BYTES, &words);
    compare("C (.bss)", m->c, r.c, C_BYTES, &words);
    compare("D (private file mapping)", m->d, r.d, D_PAGES * PAGE, &words);
    munmap(r.a, A_BYTES);
    munmap(r.b, B_BYTES);
    munmap(r.c, C_BYTES);
    munmap(r.d, D_PAGES * PAGE);
    rng = keep;
    return words;
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "each") == 0)) fail("usage: incrmem DIR GENS [each]");
    int each = argc == 4;
    const char *dir = argv[1];
    int gens = atoi(argv[2]);
    char path[4200];
    snprintf(path, sizeof path, "%s/incrmem.data", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("%s: %s", path, strerror(errno));
    for (uint64_t i = 0; i < D_PAGES * PAGE / 8; i++) {
        uint64_t v = file_word(i);
        if (write(fd, &v, 8) != 8) fail("write %s: %s", path, strerror(errno));
    }
    struct mem m;
    m.a = malloc(A_BYTES);
    if (!m.a) fail("malloc");
    for (uint64_t i = 0; i < A_BYTES / 8; i++) m.a[i] = ~file_word(i / 64);   /* no zero page: all stored by a full image; runs of 64 equal words compress */
    m.b = anon(B_BYTES);
    m.c = C_mem;
    m.d = mmap(NULL, D_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (m.d == MAP_FAILED) fail("mmap %s: %s", path, strerror(errno));
    close(fd);                                /* the mapping keeps the file */
    rng = 88172645463325252ULL;
    for (int g = 1; g <= gens; g++) {
        step(g, &m, 1);
        out("ready %d\n", g);
        char go[32];
        snprintf(go, sizeof go, "go_%d", g);
        wait_file(dir, go);
        if (each) {
            verify_upto(&m, g);
            out("verify %d ok\n", g);
        }
    }
    wait_file(dir, "go_final");
    uint64_t words = verify_upto(&m, gens);
    out("verify ok %lu words\n", (unsigned long)words);
    out("incrmem done\n");
    return 0;
}
