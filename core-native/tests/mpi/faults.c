/* faults - the program's own fault signals under the split process (lower-half/lh_sig.c).
 *
 * The MPI library installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL (UCX) or SIGABRT (Open MPI) in
 * MPI_Init; the program installs its own after MPI_Init, as programs do.  Every iteration each rank
 * makes its own code fault, three ways, and its handlers must get each fault with its details:
 *   - SIGSEGV at an address of its own (sigaction, SA_SIGINFO: si_addr and si_code checked), in the
 *     main thread and in a thread started for it;
 *   - SIGFPE by an integer division by zero (signal(): FPE_INTDIV is not visible there, the count is).
 * Each handler leaves by siglongjmp.  What sigaction and signal report back is checked too: the
 * program's own handlers, never the MPI library's.  The result line holds the counts (and "bad", the
 * checks that failed), so a restarted run must print a native run's line.
 *
 *   ... crash FILE   once the run is told to stop, rank 0 reads FILE if it exists: "segv" sets its
 *                    SIGSEGV handler back to SIG_DFL and writes at 0x18; "bus" stores into a page of a
 *                    mapped empty file (SIGBUS, a signal the program never touched); "abort" calls
 *                    abort().  faults.sh checks the rank dies of that signal there, with the runtime's
 *                    line, and that no MPI library handler ran for it.  "mpi" sends 256 bytes from
 *                    address 0x20 with SIGSEGV at SIG_DFL: the fault is inside the MPI library, and so
 *                    is the handler that runs; "mpi_handled" does the same with a handler of the
 *                    program's, which must get it on its own TLS and exits 42.
 *   ... hold FILE    each rank's main thread, in its third SIGSEGV handler (on the alternate stack:
 *                    SA_ONSTACK), says so and waits there for FILE (onstack.sh checkpoints then).
 */
#include "mpitest.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

static __thread sigjmp_buf back;
static volatile long caught_segv, caught_fpe, bad;
static volatile uintptr_t want_addr;

/* Work in the SIGSEGV handler, on its stack (the alternate one in the main thread: SA_ONSTACK), about a
 * millisecond: most checkpoints of the run land while a handler runs, and the restart must give its
 * frames back (they were in the MPI library's alternate stack, memory no image holds, before the
 * plug-in gave the main thread one of its own).  Its sum goes into the result. */
static volatile uint64_t handler_sum;
static pthread_t main_thread;
static const char *hold_file;      /* "hold FILE": the main thread's third SIGSEGV handler waits for FILE */
static volatile long hold_calls;

/* In the handler, on the alternate stack: say so once and wait for the file (outside MPI), so that a
 * checkpoint is taken with every rank's main thread here (onstack.sh). */
static void hold_in_handler(void)
{
    if (!hold_file || !pthread_equal(pthread_self(), main_thread) || ++hold_calls != 3) return;
    if (access(hold_file, F_OK) == 0) return;
    stack_t ss;
    char here;
    sigaltstack(NULL, &ss);
    mt_out("faults: held in the SIGSEGV handler, %s the alternate stack\n",
           (ss.ss_flags & SS_ONSTACK) && (uintptr_t)&here - (uintptr_t)ss.ss_sp < ss.ss_size ? "on" : "not on");
    while (access(hold_file, F_OK) != 0) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
}

static void handler_work(uint64_t seed)
{
    uint64_t a[512];
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int i = 0; i < 512; i++) { x = x * 6364136223846793005ull + 1442695040888963407ull; a[i] = x; }
    for (int r = 0; r < 2000; r++)
        for (int i = 1; i < 512; i++) a[i] ^= (a[i - 1] >> 7) + (uint64_t)r;
    uint64_t sum = 0;
    for (int i = 0; i < 512; i++) sum += a[i];
    handler_sum += sum;
}

static void fail(const char *what)
{
    if (bad++ == 0) mt_out("faults: FAIL %s\n", what);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    /* SA_ONSTACK: on the thread's alternate stack where it has one.  The main thread has one natively under
     * MPICH (UCX's library constructor makes it, before main); it must be memory a restart gives back, and
     * this frame must be where the kernel says. */
    stack_t ss;
    char here;
    if (sigaltstack(NULL, &ss) != 0) fail("sigaltstack in the handler");
    else if ((ss.ss_flags & SS_ONSTACK) && ((uintptr_t)&here < (uintptr_t)ss.ss_sp ||
                                            (uintptr_t)&here >= (uintptr_t)ss.ss_sp + ss.ss_size))
        fail("the SIGSEGV handler is not on the alternate stack the kernel reports");
    handler_work(caught_segv + (uint64_t)(uintptr_t)si->si_addr);
    hold_in_handler();
    if (sig != SIGSEGV) fail("SIGSEGV handler called for another signal");
    else if ((uintptr_t)si->si_addr != want_addr) {
        if (bad++ == 0)     /* what it was, for the one who reads the failure */
            mt_out("faults: FAIL SIGSEGV at the wrong address: %p (code %d, pc %#llx), wanted %#lx\n", si->si_addr,
                   si->si_code, (unsigned long long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP], (unsigned long)want_addr);
    }
    else if (si->si_code != SEGV_MAPERR) fail("SIGSEGV with a code other than SEGV_MAPERR");
    else __atomic_add_fetch(&caught_segv, 1, __ATOMIC_SEQ_CST);
    siglongjmp(back, 1);
}

static void on_fpe(int sig)
{
    if (sig != SIGFPE) fail("SIGFPE handler called for another signal");
    else __atomic_add_fetch(&caught_fpe, 1, __ATOMIC_SEQ_CST);
    siglongjmp(back, 1);
}

/* mpi_handled: a fault inside MPI_Send.  The handler must run on the program's own TLS (pthread_self
 * reads it), then it leaves the process: the MPI library is mid-call. */
static void on_segv_in_mpi(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    static const char ok[] = "faults: the program's handler got the fault inside MPI at 0x20, on its own TLS\n";
    static const char tls[] = "faults: FAIL the program's handler ran on another TLS\n";
    static const char addr[] = "faults: FAIL the program's handler got another fault\n";
    const char *m = sig != SIGSEGV || (uintptr_t)si->si_addr != 0x20 ? addr
                    : !pthread_equal(pthread_self(), main_thread) ? tls : ok;
    if (write(2, m, strlen(m)) < 0) _exit(3);
    _exit(42);
}

static void segv_at(uintptr_t addr)
{
    want_addr = addr;
    if (sigsetjmp(back, 1) == 0) {
        *(volatile int *)addr = 1;
        fail("a write to an unmapped address went through");
    }
}

static void *segv_thread(void *arg)
{
    segv_at((uintptr_t)arg);
    return NULL;
}

static void fpe_now(void)
{
    volatile int zero = 0, one = 1;
    if (sigsetjmp(back, 1) == 0) {
        volatile int q = one / zero;
        (void)q;
        fail("a division by zero went through");
    }
}

static void install(void)
{
    struct sigaction sa, q;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) fail("sigaction(SIGSEGV)");
    if (sigaction(SIGSEGV, NULL, &q) != 0 || q.sa_sigaction != on_segv || (q.sa_flags & (SA_SIGINFO | SA_ONSTACK)) !=
        (SA_SIGINFO | SA_ONSTACK))
        fail("sigaction(SIGSEGV) reports another handler than the program's");
    signal(SIGFPE, on_fpe);
    if (signal(SIGFPE, on_fpe) != on_fpe) fail("signal(SIGFPE) reports another handler than the program's");
}

/* "segv" or "abort" from FILE, else nothing (rank 0 only). */
static void crash_if_asked(const char *file)
{
    char how[16] = "";
    FILE *f = fopen(file, "r");
    if (!f) return;
    if (fscanf(f, "%15s", how) != 1) how[0] = 0;
    fclose(f);
    if (strcmp(how, "segv") == 0) {
        signal(SIGSEGV, SIG_DFL);
        mt_out("faults: crashing (SIGSEGV at 0x18)\n");
        *(volatile int *)0x18 = 1;
    } else if (strcmp(how, "bus") == 0) {
        char path[] = "/tmp/faults_bus.XXXXXX";
        int fd = mkstemp(path);
        if (fd < 0) { fail("mkstemp"); return; }
        unlink(path);
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);    /* past the file's end */
        if (p == MAP_FAILED) { fail("mmap"); return; }
        mt_out("faults: crashing (SIGBUS at %p)\n", p);
        *(volatile int *)p = 1;
    } else if (strcmp(how, "mpi") == 0) {
        /* a fault inside the MPI library (it reads the message from 0x20), no handler of the program's:
         * the library's own handler takes it */
        signal(SIGSEGV, SIG_DFL);
        mt_out("faults: crashing (MPI_Send from 0x20)\n");
        MPI_Send((void *)0x20, 64, MPI_INT, 1, 7, MPI_COMM_WORLD);      /* eager: read at once */
    } else if (strcmp(how, "mpi_handled") == 0) {
        /* the same with a handler of the program's, which takes it as natively (on its own TLS) */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv_in_mpi;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        main_thread = pthread_self();
        sigaction(SIGSEGV, &sa, NULL);
        mt_out("faults: crashing (MPI_Send from 0x20, handled)\n");
        MPI_Send((void *)0x20, 64, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (strcmp(how, "abort") == 0) {
        mt_out("faults: crashing (abort)\n");
        abort();
    }
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    const char *crash = r.argc >= 2 && strcmp(r.argv[0], "crash") == 0 ? r.argv[1] : NULL;
    hold_file = r.argc >= 2 && strcmp(r.argv[0], "hold") == 0 ? r.argv[1] : NULL;
    main_thread = pthread_self();
    install();
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        segv_at(0x100 + 16 * (uintptr_t)r.rank);
        pthread_t t;
        if (pthread_create(&t, NULL, segv_thread, (void *)(0x800 + 16 * (uintptr_t)r.rank)) != 0) fail("pthread_create");
        else pthread_join(t, NULL);
        fpe_now();
        struct sigaction q;
        if (sigaction(SIGSEGV, NULL, &q) != 0 || q.sa_sigaction != on_segv) fail("the SIGSEGV handler changed");
        long c[4] = { caught_segv, caught_fpe, bad, (long)handler_sum };
        h = mt_hash(h, c, sizeof c);
    } while (!mt_done(&r, it));
    if (crash && r.rank == 0) crash_if_asked(crash);
    long c[3] = { caught_segv, caught_fpe, bad };
    long all[3];
    MPI_Reduce(c, all, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r.rank == 0) mt_out("faults counts: segv=%ld fpe=%ld bad=%ld\n", all[0], all[1], all[2]);
    mt_finish(&r, "faults", it, h);
    return 0;
}
