// SPDX-License-Identifier: GPL-2.0-or-later
/* source.c - source registry, /proc walking shared by the /proc sources. */
#include "core/source.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/account.h"
#include "core/parallel.h"
#include "core/procfs.h"
#include "core/source_priv.h"

#define PF_KTHREAD 0x00200000u

static const struct exm_source_ops *const sources[] = {
	&exm_source_kmod,
	&exm_source_pagemap,
	&exm_source_smaps,
	&exm_source_fixture,
};

int exm_source_open(const char *name, struct exm_source **out, char *err,
		    size_t errlen)
{
	const struct exm_source_ops *ops = NULL;
	struct exm_source *src;
	const char *arg = NULL;
	size_t nlen;
	int ret;

	if (!name || !strcmp(name, "auto"))
		name = exm_kmod_available()    ? "kmod"
		       : exm_pagemap_has_pfns() ? "pagemap"
						: "smaps";
	nlen = strcspn(name, ":");
	if (name[nlen] == ':')
		arg = name + nlen + 1;
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (strlen(sources[i]->name) == nlen &&
		    !strncmp(sources[i]->name, name, nlen))
			ops = sources[i];
	if (!ops) {
		snprintf(err, errlen,
			 "unknown source '%.*s' (try auto, kmod, pagemap, smaps)",
			 (int)(nlen > 64 ? 64 : nlen), name);
		return -EINVAL;
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	src->ops = ops;
	src->arg = arg;
	ret = ops->open(src);
	if (ret) {
		snprintf(err, errlen, "%s", src->errmsg[0] ? src->errmsg :
					    strerror(-ret));
		free(src);
		return ret;
	}
	*out = src;
	return 0;
}

void exm_source_close(struct exm_source *src)
{
	if (!src)
		return;
	if (src->ops->close)
		src->ops->close(src);
	free(src);
}

static double elapsed(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
	       (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

int exm_source_snapshot(struct exm_source *src,
			const struct exm_scan_opts *opts,
			struct exm_snapshot **out)
{
	struct exm_snapshot *snap = exm_snapshot_new();
	struct timespec t0;
	int ret;

	if (!snap)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME, &snap->sys.taken_at);
	src->errmsg[0] = '\0';
	ret = src->ops->fill(src, opts, snap);
	if (!ret)
		ret = exm_snapshot_account(snap);
	if (ret) {
		exm_snapshot_free(snap);
		return ret;
	}
	snap->sys.time_taken = elapsed(&t0);
	*out = snap;
	return 0;
}

void exm_sysinfo_fill(struct exm_sysinfo *sys)
{
	struct utsname u;
	char *buf;
	size_t len;
	long ps = sysconf(_SC_PAGESIZE);

	sys->page_size = ps > 0 ? (unsigned)ps : 4096;
	if (!uname(&u)) {
		snprintf(sys->kernel, sizeof(sys->kernel), "%s", u.release);
		snprintf(sys->hostname, sizeof(sys->hostname), "%s",
			 u.nodename);
	}
	if (!exm_read_file(AT_FDCWD, "/proc/meminfo", &buf, &len)) {
		const char *p = buf, *end = buf + len;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end, *key;
			size_t klen;
			uint64_t v;

			if (!exm_parse_kv(p, (size_t)(le - p), &key, &klen,
					  &v)) {
				if (klen == 8 && !memcmp(key, "MemTotal", 8))
					sys->mem_total = v;
				else if (klen == 12 &&
					 !memcmp(key, "MemAvailable", 12))
					sys->mem_available = v;
			}
			p = nl ? nl + 1 : end;
		}
		free(buf);
	}
}

int exm_read_kpss(int dirfd, struct exm_proc *p)
{
	char *buf;
	size_t len;
	int ret = exm_read_file(dirfd, "smaps_rollup", &buf, &len);

	if (ret)
		return ret;
	exm_parse_rollup(buf, len, &p->kpss);
	free(buf);
	return 0;
}

bool exm_want_kpss(const struct exm_scan_opts *opts, pid_t pid)
{
	size_t lo = 0, hi = opts->nkpss_pids;

	if (!opts->want_kpss)
		return false;
	if (!opts->kpss_pids)
		return true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (opts->kpss_pids[mid] == pid)
			return true;
		if (opts->kpss_pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* ---- process identity ---- */

struct user_cache {
	uid_t uid[64];
	char *name[64];
	unsigned n;
};

/* User name of uid (or the number), malloc'd; NULL on ENOMEM. Thread-safe
 * (getpwuid_r); each worker has its own cache. */
static char *user_name(struct user_cache *c, uid_t uid)
{
	struct passwd pwd, *res = NULL;
	char buf[1024], num[16];
	const char *name;

	for (unsigned i = 0; i < c->n; i++)
		if (c->uid[i] == uid)
			return strdup(c->name[i]);
	if (!getpwuid_r(uid, &pwd, buf, sizeof(buf), &res) && res) {
		name = res->pw_name;
	} else {
		snprintf(num, sizeof(num), "%u", (unsigned)uid);
		name = num;
	}
	if (c->n < 64) {
		c->uid[c->n] = uid;
		c->name[c->n] = strdup(name);
		if (!c->name[c->n])
			return NULL;
		c->n++;
	}
	return strdup(name);
}

static void user_cache_fini(struct user_cache *c)
{
	for (unsigned i = 0; i < c->n; i++)
		free(c->name[i]);
}

/* cmdline with NULs as spaces and trailing NULs dropped. */
static char *read_cmdline(int dirfd)
{
	char *buf;
	size_t len;

	if (exm_read_file(dirfd, "cmdline", &buf, &len))
		return strdup("");
	while (len && buf[len - 1] == '\0')
		len--;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return buf;
}

/* The unified (v2) cgroup path, or the first listed one. */
static char *read_cgroup(int dirfd)
{
	char *buf, *res = NULL;
	size_t len;

	if (exm_read_file(dirfd, "cgroup", &buf, &len))
		return strdup("");
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		char *c2 = strchr(line, ':');
		char *path = c2 ? strchr(c2 + 1, ':') : NULL;

		if (nl)
			*nl = '\0';
		if (path && (!res || !strncmp(line, "0::", 3))) {
			free(res);
			res = strdup(path + 1);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
	return res ? res : strdup("");
}

static int read_maps(int dirfd, struct exm_proc *p)
{
	char *buf;
	size_t len;
	int ret = exm_read_file(dirfd, "maps", &buf, &len);
	const char *s, *end;

	if (ret)
		return ret;
	s = buf;
	end = buf + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		struct exm_mapping *m = exm_proc_add_mapping(p);

		if (!m) {
			free(buf);
			return -ENOMEM;
		}
		ret = exm_parse_maps_line(s, (size_t)(le - s), m);
		if (ret) {
			p->nmaps--; /* skip a line we cannot parse */
			if (ret == -ENOMEM) {
				free(buf);
				return ret;
			}
		}
		s = nl ? nl + 1 : end;
	}
	free(buf);
	return 0;
}

static const char *dfd_path(const char *root, pid_t pid, char *buf,
			    size_t len)
{
	snprintf(buf, len, "%s/%d/statm", root, (int)pid);
	return buf;
}

/*
 * A process we may not look into: keep it, listed with what anyone may
 * read (statm: VM and resident), every other size unmeasured.
 */
static int deny(const char *statm, struct exm_proc *p)
{
	unsigned long long size, res;
	long ps = sysconf(_SC_PAGESIZE);
	char *buf;
	size_t len;
	int r;

	for (size_t j = 0; j < p->nmaps; j++) {
		free(p->maps[j].name);
		exm_mapping_clear_pages(&p->maps[j]);
	}
	p->nmaps = 0;
	p->state = EXM_PROC_DENIED;
	memset(&p->sz, 0, sizeof(p->sz));
	memset(&p->kpss, 0, sizeof(p->kpss));
	r = exm_read_file(AT_FDCWD, statm, &buf, &len);
	if (r)
		return r;
	if (sscanf(buf, "%llu %llu", &size, &res) == 2) {
		p->sz.vm = size * (unsigned long long)ps;
		p->sz.rss = res * (unsigned long long)ps;
		p->sz.has = EXM_HAS_VM | EXM_HAS_RSS;
	}
	free(buf);
	return 0;
}

static bool pid_selected(const struct exm_scan_opts *opts, pid_t pid)
{
	if (!opts->pids)
		return true;
	for (size_t i = 0; i < opts->npids; i++)
		if (opts->pids[i] == pid)
			return true;
	return false;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The walk, shared by its workers: each takes the next pid in turn (so one
 * slow process does not hold up a fixed share) into its own snapshot. */
struct walk {
	struct exm_source *src;
	const struct exm_scan_opts *opts;
	const struct exm_walk *w;
	const char *root;
	const pid_t *pids;
	size_t npids, next; /* next: taken with __atomic_fetch_add */
	struct worker {
		struct exm_snapshot *snap; /* its own; worker 0: the result */
		int ret;
	} wk[EXM_MAX_THREADS];
};

static int walk_one(const struct walk *wl, struct exm_snapshot *snap,
		    struct user_cache *users, void *ctx, pid_t pid)
{
	char path[PATH_MAX], *buf;
	size_t len;
	struct exm_proc *p;
	struct stat st;
	unsigned flags;
	int dfd, r;

	snprintf(path, sizeof(path), "%s/%d", wl->root, (int)pid);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snap->nskipped_gone++;
		return 0;
	}
	p = exm_snapshot_add_proc(snap);
	if (!p) {
		close(dfd);
		return -ENOMEM;
	}
	p->pid = pid;
	r = exm_read_file(dfd, "stat", &buf, &len);
	if (!r) {
		r = exm_parse_stat(buf, len, &p->comm, &p->ppid,
				   &p->start_time, &flags);
		free(buf);
	}
	if (r || fstat(dfd, &st)) {
		exm_snapshot_drop_last(snap);
		snap->nskipped_gone++;
		close(dfd);
		return r == -ENOMEM ? r : 0;
	}
	if (flags & PF_KTHREAD) {
		exm_snapshot_drop_last(snap);
		close(dfd);
		return 0;
	}
	p->uid = st.st_uid;
	p->user = user_name(users, st.st_uid);
	p->cmdline = wl->opts->want_cmdline ? read_cmdline(dfd) : strdup("");
	p->cgroup = read_cgroup(dfd);
	if (!p->user || !p->cmdline || !p->cgroup) {
		close(dfd);
		return -ENOMEM;
	}
	r = wl->w->read_maps ? read_maps(dfd, p) : 0;
	if (!r && !p->nmaps && wl->w->read_maps) {
		/* No mappings: a zombie or exiting process. */
		exm_snapshot_drop_last(snap);
		close(dfd);
		return 0;
	}
	if (!r)
		r = wl->w->fn(wl->src, ctx, wl->opts, snap, p, dfd);
	close(dfd);
	if (r == -ENOMEM)
		return r;
	if (exm_errno_gone(r)) {
		exm_snapshot_drop_last(snap);
		snap->nskipped_gone++;
	} else if (r == -EACCES || r == -EPERM) {
		r = deny(dfd_path(wl->root, p->pid, path, sizeof(path)), p);
		snap->nskipped_denied++;
		if (r) {
			exm_snapshot_drop_last(snap);
			if (r == -ENOMEM)
				return r;
		}
	} else if (r) {
		return r;
	}
	return 0;
}

static void worker_main(void *arg, unsigned t, unsigned n)
{
	struct walk *walk = arg;
	struct worker *wk = &walk->wk[t];
	const struct exm_walk *w = walk->w;
	struct user_cache users = { .n = 0 };
	void *ctx;

	if (wk->ret || !wk->snap)
		return;
	ctx = w->ctx_new ? w->ctx_new(walk->src) : NULL;
	if (w->ctx_new && !ctx) {
		wk->ret = -ENOMEM;
		return;
	}
	while (!wk->ret) {
		size_t i = __atomic_fetch_add(&walk->next, 1, __ATOMIC_RELAXED);

		if (i >= walk->npids)
			break;
		wk->ret = walk_one(walk, wk->snap, &users, ctx, walk->pids[i]);
	}
	if (w->ctx_free)
		w->ctx_free(ctx);
	user_cache_fini(&users);
}

static int cmp_proc(const void *a, const void *b)
{
	const struct exm_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int exm_proc_walk(struct exm_source *src, const struct exm_scan_opts *opts,
		  struct exm_snapshot *snap, const struct exm_walk *w)
{
	const char *root = opts->proc_root ? opts->proc_root : "/proc";
	struct walk *walk;
	DIR *d = opendir(root);
	struct dirent *de;
	pid_t self = getpid(), *pids = NULL;
	size_t npids = 0, cap = 0;
	unsigned nw;
	int ret = 0;

	if (!d) {
		ret = -errno;
		snprintf(src->errmsg, sizeof(src->errmsg), "cannot open %s: %s",
			 root, strerror(errno));
		return ret;
	}
	while ((de = readdir(d))) {
		char *e;
		long v = strtol(de->d_name, &e, 10);

		if (*e || v <= 0 || !isdigit((unsigned char)de->d_name[0]))
			continue;
		if (!pid_selected(opts, (pid_t)v))
			continue;
		if ((pid_t)v == self && !opts->include_self)
			continue;
		if (npids == cap) {
			pid_t *np;

			cap = cap ? cap * 2 : 256;
			np = realloc(pids, cap * sizeof(*np));
			if (!np) {
				closedir(d);
				free(pids);
				return -ENOMEM;
			}
			pids = np;
		}
		pids[npids++] = (pid_t)v;
	}
	closedir(d);
	qsort(pids, npids, sizeof(*pids), cmp_pid);

	nw = exm_thread_count(npids, 16);
	walk = calloc(1, sizeof(*walk));
	if (!walk) {
		free(pids);
		return -ENOMEM;
	}
	*walk = (struct walk){ .src = src, .opts = opts, .w = w, .root = root,
			       .pids = pids, .npids = npids };
	for (unsigned i = 0; i < nw; i++) {
		struct worker *wk = &walk->wk[i];

		wk->snap = i ? exm_snapshot_new() : snap;
		if (!wk->snap)
			wk->ret = -ENOMEM;
		else if (i)
			wk->snap->sys = snap->sys;
	}
	exm_parallel(nw, worker_main, walk);
	for (unsigned i = 0; i < nw; i++) {
		struct worker *wk = &walk->wk[i];

		if (!ret)
			ret = wk->ret;
		if (i && wk->snap) {
			exm_snapshot_append(snap, wk->snap);
			exm_snapshot_free(wk->snap);
		}
	}
	free(walk);
	/* Workers took pids in turn: put processes back in pid order. */
	if (nw > 1 && snap->nprocs > 1) {
		qsort(snap->procs, snap->nprocs, sizeof(*snap->procs),
		      cmp_proc);
		for (size_t i = 0; i < snap->nprocs; i++)
			snap->procs[i].index = (uint32_t)i;
	}
	free(pids);
	return ret;
}
