/*
 * test_resolve.c - the coordinator is found field by field: arguments >
 * MANA_COORD_* (DMTCP_COORD_* aliases) > status file > localhost:7779.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <errno.h>
#include "check.h"
#include "secret_fd.h"
#include "mana/coord_client.h"

static char err[512];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

static void clear_env(void)
{
    static const char *vars[] = {"MANA_COORD_HOST", "MANA_COORD_PORT", "MANA_COORD_SECRET",
                                 "DMTCP_COORD_HOST", "DMTCP_COORD_PORT", "MANA_RC",
                                 "SLURM_JOB_ID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
}


/* secret_fd.h: the lower half's reader of what the launchers pass. */
static void test_secret_from_launcher(void)
{
    char buf[256], path[] = "/tmp/mana_test_secret.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "s3cr3t\n", 7) == 7);

    /* on a descriptor: read from offset 0 by every reader, closed and unset by the consumer */
    char num[16];
    snprintf(num, sizeof num, "%d", fd);
    setenv("MANA_COORD_SECRET_FD", num, 1);
    setenv("MANA_COORD_SECRET", "not-this-one", 1);
    CHECK(mana_secret_from_launcher(buf, sizeof buf, 0) == 0 && !strcmp(buf, "s3cr3t"));
    CHECK(mana_secret_from_launcher(buf, sizeof buf, 1) == 0 && !strcmp(buf, "s3cr3t"));
    CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
    CHECK(!getenv("MANA_COORD_SECRET_FD") && !getenv("MANA_COORD_SECRET"));

    /* in a file (no descriptor was free): 0600 and ours only, deleted by the consumer */
    setenv("MANA_COORD_SECRET_FILE", path, 1);
    chmod(path, 0644);
    CHECK(mana_secret_from_launcher(buf, sizeof buf, 0) < 0 && buf[0] == 0);
    chmod(path, 0600);
    CHECK(mana_secret_from_launcher(buf, sizeof buf, 1) == 0 && !strcmp(buf, "s3cr3t"));
    CHECK(access(path, F_OK) < 0 && !getenv("MANA_COORD_SECRET_FILE"));

    /* the plain variable when nothing else is given; nothing at all is "" */
    setenv("MANA_COORD_SECRET", "plain", 1);
    CHECK(mana_secret_from_launcher(buf, sizeof buf, 1) == 0 && !strcmp(buf, "plain"));
    CHECK(!getenv("MANA_COORD_SECRET"));
    CHECK(mana_secret_from_launcher(buf, sizeof buf, 1) == 0 && buf[0] == 0);
    /* a descriptor that is not open is an error, not an empty secret */
    setenv("MANA_COORD_SECRET_FD", "999", 1);
    CHECK(mana_secret_from_launcher(buf, sizeof buf, 1) < 0);
}

int main(void)
{
    test_secret_from_launcher();
    char dir[] = "/tmp/mana_resolve_XXXXXX", path[256], path2[256];
    struct mana_coord_addr a;

    if (!mkdtemp(dir))
        return 2;
    clear_env();
    setenv("HOME", dir, 1);

    /* Nothing anywhere: the default, no secret, no file. */
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0);
    CHECK(!strcmp(a.host, "localhost") && a.port == 7779 && !a.secret[0] && !a.rcfile[0]);

    /* ~/.mana.rc */
    snprintf(path, sizeof path, "%s/.mana.rc", dir);
    write_file(path, "Host: node17\nPort: 4567\nSecret: abcdef\nPid: 1\n"
                     "# This is a temporary file\n");
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0);
    CHECK(!strcmp(a.host, "node17") && a.port == 4567 && !strcmp(a.secret, "abcdef") &&
          !strcmp(a.rcfile, path));

    /* SLURM_JOB_ID selects ~/.mana-slurm-ID.rc (here missing: default). */
    setenv("SLURM_JOB_ID", "99", 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0);
    CHECK(a.port == 7779);
    snprintf(path2, sizeof path2, "%s/.mana-slurm-99.rc", dir);
    write_file(path2, "Host: slurmhost\nPort: 1234\nSecret: s99\nSLURM_JOB_ID: 99\n");
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0);
    CHECK(!strcmp(a.host, "slurmhost") && a.port == 1234 && !strcmp(a.secret, "s99"));
    unsetenv("SLURM_JOB_ID");

    /* DMTCP aliases over the file; MANA_* over the aliases. */
    setenv("DMTCP_COORD_HOST", "dhost", 1);
    setenv("DMTCP_COORD_PORT", "4567", 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0);
    CHECK(!strcmp(a.host, "dhost") && a.port == 4567 && !strcmp(a.secret, "abcdef"));
    setenv("MANA_COORD_HOST", "mhost", 1);
    setenv("MANA_COORD_PORT", "5000", 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0);
    /* Port 5000 is not the file's: its secret is not sent there. */
    CHECK(!strcmp(a.host, "mhost") && a.port == 5000 && !a.secret[0]);
    setenv("MANA_COORD_SECRET", "envsecret", 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0);
    CHECK(!strcmp(a.secret, "envsecret"));

    /* Arguments over everything. */
    CHECK(mana_coord_resolve(&a, "arghost", 6000, "argsecret", err, sizeof err) == 0);
    CHECK(!strcmp(a.host, "arghost") && a.port == 6000 && !strcmp(a.secret, "argsecret"));

    /* Bad ports. */
    setenv("MANA_COORD_PORT", "70000", 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == MANA_COORD_EARG);
    CHECK(strstr(err, "70000") != NULL);
    setenv("MANA_COORD_PORT", "12x", 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == MANA_COORD_EARG);
    CHECK(mana_coord_resolve(&a, NULL, 65536, NULL, err, sizeof err) == MANA_COORD_EARG);
    clear_env();

    /* MANA_RC names the file; a missing one is an error, a bad Port too. */
    setenv("MANA_RC", path2, 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == 0 && a.port == 1234);
    setenv("MANA_RC", "/nonexistent/x.rc", 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == MANA_COORD_EARG);
    CHECK(strstr(err, "/nonexistent/x.rc") != NULL);
    write_file(path2, "Host: h\nPort: nope\n");
    setenv("MANA_RC", path2, 1);
    CHECK(mana_coord_resolve(&a, NULL, 0, NULL, err, sizeof err) == MANA_COORD_EARG);
    CHECK(strstr(err, "Port") != NULL);

    unlink(path);
    unlink(path2);
    rmdir(dir);
    if (failures)
        fprintf(stderr, "test_resolve: %d failure(s)\n", failures);
    else
        printf("test_resolve: ok\n");
    return failures != 0;
}
