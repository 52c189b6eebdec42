/*
 * resolve.c - where the coordinator is: arguments > environment > status
 * file > localhost:7779 (docs/coordinator-protocol.md §2), field by field.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord_internal.h"
#include "secret_fd.h"

static int parse_port(const char *s, uint16_t *port)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 65535)
        return -1;
    *port = (uint16_t)v;
    return 0;
}

static int copy_field(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* First non-empty of two environment variables (name, then its alias). */
static const char *env2(const char *a, const char *b)
{
    const char *v = getenv(a);
    if ((!v || !*v) && b)
        v = getenv(b);
    return v && *v ? v : NULL;
}

/* The status file's path; explicit says whether MANA_RC named it (then a
 * missing file is an error, not a reason to fall back). */
static int rc_path(char *out, size_t cap, int *explicit)
{
    const char *rc = getenv("MANA_RC");
    if (rc && *rc) {
        *explicit = 1;
        return snprintf(out, cap, "%s", rc) < (int)cap ? 0 : -1;
    }
    *explicit = 0;
    const char *home = getenv("HOME");
    if (!home || !*home) {
        struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    if (!home)
        return -1;
    const char *job = getenv("SLURM_JOB_ID");
    int n = job && *job ? snprintf(out, cap, "%s/.mana-slurm-%s.rc", home, job)
                        : snprintf(out, cap, "%s/.mana.rc", home);
    return n > 0 && n < (int)cap ? 0 : -1;
}

struct rc_fields {
    char     host[256];
    char     secret[256];
    uint16_t port;
};

/* Parse "Key: value" lines; unknown keys and comments are skipped. */
static int read_rc(const char *path, struct rc_fields *f, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "re");
    if (!fp) {
        coord_err(err, errlen, "cannot read status file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024], iobuf[4096];
    int rc = 0;
    /* stdio's buffer on our stack, wiped below: the file holds the secret */
    setvbuf(fp, iobuf, _IOFBF, sizeof iobuf);
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = 0;
        char *colon = strchr(line, ':');
        if (line[0] == '#' || !colon)
            continue;
        *colon = 0;
        char *val = colon + 1;
        val += strspn(val, " \t");
        size_t vl = strlen(val);
        while (vl && (val[vl - 1] == ' ' || val[vl - 1] == '\t'))
            val[--vl] = 0;
        if (!strcmp(line, "Host")) {
            if (copy_field(f->host, sizeof f->host, val) < 0)
                rc = -1;
        } else if (!strcmp(line, "Port")) {
            if (parse_port(val, &f->port) < 0)
                rc = -1;
        } else if (!strcmp(line, "Secret")) {
            if (copy_field(f->secret, sizeof f->secret, val) < 0)
                rc = -1;
        }
        if (rc < 0) {
            coord_err(err, errlen, "status file %s: bad %s line", path, line);
            break;
        }
    }
    if (rc == 0 && ferror(fp)) {
        coord_err(err, errlen, "cannot read status file %s: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(fp);
    mncp_wipe(iobuf, sizeof iobuf);
    mncp_wipe(line, sizeof line);
    return rc;
}

int mana_coord_resolve(struct mana_coord_addr *out, const char *host, int port,
                       const char *secret, char *err, size_t errlen)
{
    struct rc_fields f = {{0}, {0}, 0};
    uint16_t p = 0;
    int explicit;

    memset(out, 0, sizeof *out);

    /* The status file is read first (it is the lowest layer); it only
     * fills fields the higher layers leave empty. */
    char path[sizeof out->rcfile];
    if (rc_path(path, sizeof path, &explicit) == 0) {
        if (explicit || access(path, F_OK) == 0) {
            if (read_rc(path, &f, err, errlen) < 0)
                return MANA_COORD_EARG;
            snprintf(out->rcfile, sizeof out->rcfile, "%s", path);
        }
    }

    const char *eh = env2("MANA_COORD_HOST", "DMTCP_COORD_HOST");
    const char *h = host && *host ? host : eh ? eh : f.host[0] ? f.host : MANA_COORD_DEFAULT_HOST;
    if (copy_field(out->host, sizeof out->host, h) < 0) {
        coord_err(err, errlen, "coordinator host name too long");
        return MANA_COORD_EARG;
    }

    const char *ep = env2("MANA_COORD_PORT", "DMTCP_COORD_PORT");
    if (port > 0) {
        if (port > 65535) {
            coord_err(err, errlen, "coordinator port %d out of range 1..65535", port);
            return MANA_COORD_EARG;
        }
        p = (uint16_t)port;
    } else if (ep) {
        if (parse_port(ep, &p) < 0) {
            coord_err(err, errlen, "bad coordinator port '%s' in the environment", ep);
            return MANA_COORD_EARG;
        }
    } else {
        p = f.port ? f.port : MANA_COORD_DEFAULT_PORT;
    }
    out->port = p;

    /* The launchers pass the secret on a descriptor (secret_fd.h); the
     * plain variable is still honoured for tools run by hand. */
    char given[sizeof out->secret];
    int rc = MANA_COORD_OK;
    if (mana_secret_from_launcher(given, sizeof given, 0) < 0) {
        coord_err(err, errlen, "cannot read the coordinator secret from MANA_COORD_SECRET_FD (or it is too long)");
        rc = MANA_COORD_EARG;
    } else {
        const char *s = secret ? secret : given[0] || getenv("MANA_COORD_SECRET") ? given
                        : (f.port == p ? f.secret : "");
        if (copy_field(out->secret, sizeof out->secret, s) < 0) {
            coord_err(err, errlen, "coordinator secret too long");
            rc = MANA_COORD_EARG;
        }
    }
    mncp_wipe(given, sizeof given);
    mncp_wipe(&f, sizeof f);
    return rc;
}

int mana_coord_resolve_file(struct mana_coord_addr *out, const char *path, char *err, size_t errlen)
{
    struct rc_fields f = {{0}, {0}, 0};
    memset(out, 0, sizeof *out);
    if (read_rc(path, &f, err, errlen) < 0)
        return MANA_COORD_EARG;
    int rc = MANA_COORD_OK;
    if (!f.port) {
        coord_err(err, errlen, "status file %s names no Port", path);
        rc = MANA_COORD_EARG;
    } else if (copy_field(out->host, sizeof out->host, f.host[0] ? f.host : MANA_COORD_DEFAULT_HOST) < 0 ||
               copy_field(out->secret, sizeof out->secret, f.secret) < 0 ||
               copy_field(out->rcfile, sizeof out->rcfile, path) < 0) {
        coord_err(err, errlen, "status file %s: a value is too long", path);
        rc = MANA_COORD_EARG;
    }
    out->port = f.port;
    mncp_wipe(&f, sizeof f);
    return rc;
}
