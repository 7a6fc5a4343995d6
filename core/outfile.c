// SPDX-License-Identifier: GPL-2.0-or-later
/* outfile.c - writing a file safely, whatever is there; see outfile.h. */
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/format.h"
#include "core/ownfiles.h"

void exm_outfile_init(struct exm_outfile *o, const char *path, mode_t mode)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->mode = mode;
}

/* -err, after saying why in o->errmsg (the path escaped: it is the user's
 * text and goes to a terminal). */
static int fail(struct exm_outfile *o, int err, const char *why)
{
	char esc[160];

	snprintf(o->errmsg, sizeof(o->errmsg), "cannot write %s: %s",
		 exm_escape_line(esc, sizeof(esc), o->path),
		 why ? why : strerror(err));
	o->err = err;
	return -err;
}

/*
 * The file that path names after following symbolic links (a link to a link
 * to nothing names that nothing: a new file there), in *target (caller
 * frees) with its lstat in *st, st_mode 0 when nothing is there. 0 or -errno.
 */
static int resolve(const char *path, char **target, struct stat *st)
{
	char *cur = strdup(path);
	int err;

	for (int hops = 0; cur; hops++) {
		char link[PATH_MAX], *next, *slash;
		ssize_t n;

		if (lstat(cur, st)) {
			if (errno != ENOENT)
				break;
			st->st_mode = 0;
			*target = cur;
			return 0;
		}
		if (!S_ISLNK(st->st_mode)) {
			*target = cur;
			return 0;
		}
		if (hops >= 40) {
			errno = ELOOP;
			break;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			break;
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash) {
			next = strdup(link);
		} else if ((next = malloc((size_t)(slash - cur) + 2 +
					  (size_t)n))) {
			memcpy(next, cur, (size_t)(slash - cur) + 1);
			strcpy(next + (slash - cur) + 1, link);
		}
		free(cur);
		cur = next;
	}
	err = cur ? errno : ENOMEM;
	free(cur);
	return -err;
}

/* A device or FIFO, opened once: checked again once open, so that nothing
 * put there meanwhile (a regular file) is written over. */
static FILE *begin_direct(struct exm_outfile *o)
{
	struct stat st;
	int fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		fail(o, errno, NULL);
		return NULL;
	}
	if (fstat(fd, &st) || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		close(fd);
		fail(o, EAGAIN, "it was replaced while opened");
		return NULL;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		fail(o, errno, NULL);
		close(fd);
		return NULL;
	}
	return o->f;
}

/* A new document in a temporary file beside the target, with the mode (and
 * as root the owner) of the file it will replace. */
static FILE *begin_tmp(struct exm_outfile *o, const struct stat *st)
{
	size_t len = strlen(o->target) + sizeof(".tmp.XXXXXX");
	int fd;

	o->tmp = malloc(len);
	if (!o->tmp) {
		fail(o, ENOMEM, NULL);
		return NULL;
	}
	snprintf(o->tmp, len, "%s.tmp.XXXXXX", o->target);
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		fail(o, errno, NULL);
		free(o->tmp);
		o->tmp = NULL;
		return NULL;
	}
	/* as root, also the owner of the file it replaces */
	if ((st->st_mode && !geteuid() && (st->st_uid || st->st_gid) &&
	     fchown(fd, st->st_uid, st->st_gid)) ||
	    fchmod(fd, st->st_mode ? st->st_mode & 07777 : o->mode) ||
	    !(o->f = fdopen(fd, "w"))) {
		fail(o, errno, NULL);
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return NULL;
	}
	return o->f;
}

/* What is at the path decides how the document is written. */
static FILE *begin(struct exm_outfile *o)
{
	struct stat st;
	int err;

	free(o->target);
	o->target = NULL;
	err = resolve(o->path, &o->target, &st);
	if (err) {
		fail(o, -err, NULL);
		return NULL;
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		o->direct = true;
		return begin_direct(o);
	}
	o->direct = false;
	if (st.st_mode && exm_ownfiles_has(&st)) {
		/* a rename over it would replace a recording in use */
		fail(o, EBUSY,
		     "it is a recording (or its -wal, -shm or "
		     "-journal) this run has open");
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		fail(o, EISDIR, NULL);
		return NULL;
	}
	if (st.st_mode && !S_ISREG(st.st_mode)) {
		fail(o, EINVAL, "not a regular file, character device or FIFO");
		return NULL;
	}
	return begin_tmp(o, &st);
}

/* path's file as an absolute name: its links followed, its directory's
 * real path and its own name (it need not exist). NULL: cannot tell. */
static char *absolute(const char *path)
{
	struct stat st;
	char *target = NULL, *dir, *slash, *out = NULL, real[PATH_MAX];

	if (resolve(path, &target, &st))
		return NULL;
	slash = strrchr(target, '/');
	dir = slash ? (slash == target ? "/" : target) : ".";
	if (slash && slash != target)
		*slash = '\0';
	if (realpath(dir, real)) {
		const char *name = slash ? slash + 1 : target;
		size_t len = strlen(real) + strlen(name) + 2;

		out = malloc(len);
		if (out)
			snprintf(out, len, "%s/%s",
				 strcmp(real, "/") ? real : "", name);
	}
	free(target);
	return out;
}

bool exm_outfile_names_recording(const char *path, const char *recording)
{
	static const char *const tails[] = { "", "-wal", "-shm", "-journal" };
	char *a = absolute(path), *b = absolute(recording);
	bool same = false;

	for (size_t i = 0; a && b && i < sizeof(tails) / sizeof(*tails); i++) {
		size_t n = strlen(b);

		same |= !strncmp(a, b, n) && !strcmp(a + n, tails[i]);
	}
	free(a);
	free(b);
	return same;
}

bool exm_outfile_is_own(const char *path)
{
	struct stat st;
	char *target = NULL;

	if (resolve(path, &target, &st))
		return false;
	free(target);
	return st.st_mode && exm_ownfiles_has(&st);
}

FILE *exm_outfile_begin(struct exm_outfile *o)
{
	FILE *f;

	o->err = 0;
	o->errmsg[0] = '\0';
	if (o->direct && o->f)
		return o->f;
	f = begin(o);
	if (!f) { /* nothing held after a failed begin */
		free(o->target);
		o->target = NULL;
		o->direct = false;
	}
	return f;
}

int exm_outfile_end(struct exm_outfile *o, bool ok)
{
	int err = 0;

	if (!o->f)
		return 0;
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		err = errno ? errno : EIO;
	if (o->direct) {
		if (err && exm_out_reader_gone(o->f))
			err = EPIPE; /* also when an earlier flush failed */
		clearerr(o->f);
		return err ? fail(o, err, NULL) : 0;
	}
	if (!err && ok && fsync(fileno(o->f)))
		err = errno;
	if (fclose(o->f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err && ok && rename(o->tmp, o->target))
		err = errno;
	if (err || !ok)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return err ? fail(o, err, NULL) : 0;
}

bool exm_out_reader_gone(FILE *f)
{
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };
	struct stat st;

	/* the write end of a pipe with no reader polls POLLERR */
	return p.fd >= 0 && !fstat(p.fd, &st) && S_ISFIFO(st.st_mode) &&
	       poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

void exm_outfile_fini(struct exm_outfile *o)
{
	if (o->f && !o->direct)
		exm_outfile_end(o, false);
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	o->direct = false;
	free(o->target);
	o->target = NULL;
}
