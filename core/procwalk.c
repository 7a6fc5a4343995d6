// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procwalk.c - the /proc walk the /proc sources (pagemap, smaps) share:
 * which processes, their identity and maps, read by worker threads each
 * building its own part of the snapshot; see source_priv.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/builder.h"
#include "core/parallel.h"
#include "core/procfs.h"
#include "core/reuse.h"
#include "core/source_priv.h"

#define PF_KTHREAD 0x00200000u

int exm_pdir_fd(struct exm_pdir *d)
{
	if (d->fd < 0 && d->kept && d->kept[EXM_KFD_DIR] >= 0)
		d->fd = d->kept[EXM_KFD_DIR];
	if (d->fd < 0) {
		d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d->fd < 0)
			return -errno;
		if (d->kept)
			d->kept[EXM_KFD_DIR] = d->fd;
	}
	return d->fd;
}

/*
 * Descriptors of /proc/PID kept from one walk to the next, for a source
 * that refreshes (reuse.h): the directory, stat, schedstat and cmdline,
 * read again with pread (an open and a close of each, a third of what
 * reading them cost a quiet refresh). A descriptor holds its process, not
 * its pid: once that process is gone its stat says so (ESRCH), and all
 * are opened again by path (the pid given to another). maps is opened
 * each walk: its descriptor would hold the memory of the process as it
 * was when opened, not after an exec. Kept for pids in ascending order;
 * at most so many that a quarter of the descriptors a process may open
 * stay free (more processes: theirs are opened each walk).
 */
struct exm_kept_fds {
	pid_t *pid;
	int (*fd)[EXM_KFD_N];
	size_t n;
};

static void kept_close(int *fd)
{
	for (int k = 0; k < EXM_KFD_N; k++) {
		if (fd[k] >= 0)
			close(fd[k]);
		fd[k] = -1;
	}
}

void exm_kept_fds_free(struct exm_source *src)
{
	struct exm_kept_fds *t = src->kept_fds;

	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		kept_close(t->fd[i]);
	free(t->pid);
	free(t->fd);
	free(t);
	src->kept_fds = NULL;
}

size_t exm_kept_max_of(uint64_t soft, bool unlimited)
{
	if (unlimited)
		return 4096;
	if (soft < 256)
		return 0;
	return (size_t)(soft * 3 / 4 / EXM_KFD_N);
}

/* How many processes may keep descriptors: the program raised its soft
 * limit to the hard one at start (exm_raise_nofile). */
static size_t kept_max(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return exm_kept_max_of(0, true);
	return exm_kept_max_of(rl.rlim_cur, rl.rlim_cur == RLIM_INFINITY);
}

void exm_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	/* a hard limit of infinity is refused above fs.nr_open: the soft
	 * one stays then */
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

/* The kept descriptors for pids[0..n) (ascending), those of the last walk
 * moved over for the first max (kept_max), the others -1, the rest
 * closed; NULL on ENOMEM (none kept then). */
static int (*kept_for(struct exm_source *src, const pid_t *pids, size_t n,
		      size_t max))[EXM_KFD_N]
{
	struct exm_kept_fds *t = src->kept_fds;
	size_t j = 0;
	int(*fd)[EXM_KFD_N] = malloc((n ? n : 1) * sizeof(*fd));

	if (fd)
		memset(fd, 0xff, (n ? n : 1) * sizeof(*fd)); /* all -1 */
	for (size_t i = 0; t && i < t->n; i++) {
		while (j < n && pids[j] < t->pid[i])
			j++;
		if (fd && j < n && pids[j] == t->pid[i] && j < max)
			memcpy(fd[j], t->fd[i], sizeof(fd[j]));
		else
			kept_close(t->fd[i]);
	}
	if (t)
		t->n = 0;
	return fd;
}

/* After the walk: what it kept, for the next. */
static void kept_store(struct exm_source *src, pid_t *pids, size_t n,
		       int (*fd)[EXM_KFD_N])
{
	struct exm_kept_fds *t = src->kept_fds;

	if (!t)
		t = src->kept_fds = calloc(1, sizeof(*t));
	if (!t) {
		for (size_t i = 0; i < n; i++)
			kept_close(fd[i]);
		free(pids);
		free(fd);
		return;
	}
	free(t->pid);
	free(t->fd);
	t->pid = pids;
	t->fd = fd;
	t->n = n;
}

static int kept_slot(const char *name)
{
	if (!strcmp(name, "stat"))
		return EXM_KFD_STAT;
	if (!strcmp(name, "schedstat"))
		return EXM_KFD_SCHED;
	if (!strcmp(name, "cmdline"))
		return EXM_KFD_CMDLINE;
	return -1;
}

/* Read d/name: through its kept descriptor (source_priv.h), through the
 * directory when it is open, else by its path (one open, not two). */
int exm_pdir_read(struct exm_pdir *d, const char *name, char **buf, size_t *len)
{
	char path[sizeof(d->path) + 32];
	int k = d->kept ? kept_slot(name) : -1;

	if (k >= 0) {
		int dfd = exm_pdir_fd(d);

		if (dfd < 0)
			return dfd;
		if (d->kept[k] < 0)
			d->kept[k] = openat(dfd, name, O_RDONLY | O_CLOEXEC);
		if (d->kept[k] < 0)
			return -errno;
		return exm_pread_file(d->kept[k], buf, len);
	}
	if (d->fd >= 0)
		return exm_read_file(d->fd, name, buf, len);
	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	return exm_read_file(AT_FDCWD, path, buf, len);
}

int exm_read_kpss(struct exm_builder *b, struct exm_pdir *d, struct exm_proc *p)
{
	struct exm_kpss k = { 0 };
	char *buf;
	size_t len;
	int ret = exm_pdir_read(d, "smaps_rollup", &buf, &len);

	if (ret)
		return ret;
	exm_parse_rollup(buf, len, &k);
	free(buf);
	exm_build_kpss(b, p, &k);
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

/*
 * User names, one cache for the run, shared by every walk and worker:
 * each getpwuid_r reads /etc/passwd again (after asking nscd), and a
 * cache per worker and per walk read it again in every worker of every
 * snapshot. A name found is kept for the run (a user renamed while
 * exmtop runs keeps the name it had, as top's); a uid without one is
 * shown as its number for the rest of that walk only, and looked up
 * again by the next, so that a user added meanwhile gets its name.
 */
static struct {
	pthread_mutex_t lock;
	unsigned n;
	struct user_entry {
		uid_t uid;
		bool found;
		uint64_t walk; /* of a uid not found: the walk that looked */
		char name[64]; /* longer names are not kept */
	} e[64];
} users = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t walks; /* walks begun (__atomic): each its own number */

/* User name of uid (or the number) for walk number walk, malloc'd; NULL
 * on ENOMEM. Thread-safe. */
static char *user_name(uint64_t walk, uid_t uid)
{
	struct passwd pwd, *res = NULL;
	char buf[1024], num[16];
	struct user_entry *e = NULL;
	const char *name;
	char *ret;

	pthread_mutex_lock(&users.lock);
	for (unsigned i = 0; i < users.n && !e; i++)
		if (users.e[i].uid == uid)
			e = &users.e[i];
	if (e && (e->found || e->walk == walk)) {
		ret = strdup(e->name);
		pthread_mutex_unlock(&users.lock);
		return ret;
	}
	if (!getpwuid_r(uid, &pwd, buf, sizeof(buf), &res) && res) {
		name = res->pw_name;
	} else {
		snprintf(num, sizeof(num), "%u", (unsigned)uid);
		name = num;
		res = NULL;
	}
	if (!e && users.n < 64 && strlen(name) < sizeof(e->name))
		e = &users.e[users.n++];
	if (e && strlen(name) < sizeof(e->name)) {
		*e = (struct user_entry){ .uid = uid,
					  .found = res != NULL,
					  .walk = walk };
		snprintf(e->name, sizeof(e->name), "%s", name);
	}
	ret = strdup(name);
	pthread_mutex_unlock(&users.lock);
	return ret;
}

/* cmdline with NULs as spaces and trailing NULs dropped. */
static char *read_cmdline(struct exm_pdir *d)
{
	char *buf;
	size_t len;

	if (exm_pdir_read(d, "cmdline", &buf, &len))
		return strdup("");
	while (len && buf[len - 1] == '\0')
		len--;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return buf;
}

/* /proc/PID/oom_score and oom_score_adj into p (has_oom when both
 * read). */
static void read_oom(struct exm_pdir *d, struct exm_proc *p)
{
	char *a, *b, *end_a, *end_b;
	size_t la, lb;
	long sa, sb;

	if (exm_pdir_read(d, "oom_score", &a, &la))
		return;
	if (exm_pdir_read(d, "oom_score_adj", &b, &lb)) {
		free(a);
		return;
	}
	sa = strtol(a, &end_a, 10);
	sb = strtol(b, &end_b, 10);
	p->has_oom = end_a != a && end_b != b && sa >= 0 && sa <= 100000 &&
		     sb >= -1000 && sb <= 1000;
	if (p->has_oom) {
		p->oom_score = (int)sa;
		p->oom_adj = (int)sb;
	}
	free(a);
	free(b);
}

/* The unified (v2) cgroup path, or the first listed one. */
static char *read_cgroup(struct exm_pdir *d)
{
	char *buf, *res = NULL;
	size_t len;

	if (exm_pdir_read(d, "cgroup", &buf, &len))
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

/*
 * text into the key h: FNV-1a's step 8 bytes at a time, then its length
 * (a byte at a time cost a quiet refresh a quarter of a millisecond on
 * the bench workload's 250 KiB of maps). Each step is a bijection of h
 * (an xor, then a product by an odd number modulo 2^64): two texts of one
 * length that differ in one 8-byte word never give one key.
 */
static uint64_t key_text(uint64_t h, const char *text, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, text + i, 8);
		h = (h ^ w) * UINT64_C(0x100000001b3);
	}
	for (; i < n; i++)
		h = (h ^ (unsigned char)text[i]) * UINT64_C(0x100000001b3);
	return (h ^ n) * UINT64_C(0x100000001b3);
}

/* The lines of [s, end), the last one with or without its newline. */
static size_t count_lines(const char *s, const char *end)
{
	size_t n = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		n++;
		s = nl ? nl + 1 : end;
	}
	return n;
}

int exm_read_maps(struct exm_builder *b, struct exm_pdir *d, struct exm_proc *p)
{
	char *buf = NULL;
	size_t len = d->maps_in_len;
	int ret = d->maps_in ? 0 : exm_pdir_read(d, "maps", &buf, &len);
	const char *s, *end;

	if (ret)
		return ret;
	s = d->maps_in ? d->maps_in : buf;
	end = s + len;
	/* maps' text into the key stat began (reuse.h) */
	d->stat_key = d->key;
	if (d->key)
		d->key = key_text(d->key, s, len) | 1;
	if (buf && d->keep_maps) { /* for exm_reuse_take */
		d->maps = buf;
		d->maps_len = len;
		buf = NULL;
	}
	/* room for a mapping a line, exactly */
	ret = exm_proc_reserve_mappings(p, count_lines(s, end)) ? -ENOMEM : 0;
	while (!ret && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		struct exm_mapping *m = exm_build_mapping(b, p);

		if (!m) {
			ret = -ENOMEM;
			break;
		}
		ret = exm_parse_maps_line(s, (size_t)(le - s), m);
		if (ret) {
			p->nmaps--; /* skip a line we cannot parse */
			ret = ret == -ENOMEM ? ret : 0;
		}
		s = nl ? nl + 1 : end;
	}
	free(buf);
	if (ret)
		return ret;
	return p->nmaps ? 0 : 1; /* none: a zombie or exiting process */
}

static const char *dfd_path(const char *root, pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%d/statm", root, (int)pid);
	return buf;
}

/*
 * A process we may not look into: keep it, listed with what anyone may
 * read (statm: VM and resident), every other size unmeasured.
 */
static int deny(const char *statm, struct exm_proc *p, unsigned ps)
{
	struct exm_statm st;
	int r;

	for (size_t j = 0; j < p->nmaps; j++) {
		free(p->maps[j].name);
		free(p->maps[j].build_id);
		exm_mapping_clear_pages(&p->maps[j]);
	}
	p->nmaps = 0;
	p->state = EXM_PROC_DENIED;
	memset(&p->sz, 0, sizeof(p->sz));
	memset(&p->kpss, 0, sizeof(p->kpss));
	r = exm_read_statm(AT_FDCWD, statm, &st);
	if (r == -EINVAL)
		return 0;
	if (r)
		return r;
	p->sz.vm = st.size * ps;
	p->sz.rss = st.resident * ps;
	p->sz.has = EXM_HAS_VM | EXM_HAS_RSS;
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

/*
 * How many threads: a walk starts on the caller's thread alone (with
 * EXMTOP_THREADS set, or when the source's last walk cost SPAWN_CPU_NS of
 * CPU or more, with all it may use), and takes the others only if it
 * turns out long: after SPAWN_PROBE_NS, when at its pace so far it would
 * take SPAWN_CPU_NS or more. A first walk too (the module's walk of a few
 * dozen processes is over in some 20 ms). A shorter walk is over before
 * anyone could tell it went faster, and a second thread costs CPU of its
 * own: its start, its own allocations, another CPU's caches (and under
 * emulation, much more).
 */
#define SPAWN_PROBE_NS (20 * 1000000LL)
#define SPAWN_CPU_NS (200 * 1000000LL)

/* The walk, shared by its workers: each takes the next pid in turn (so one
 * slow process does not hold up a fixed share) into its own snapshot. */
struct walk {
	struct exm_source *src;
	const struct exm_scan_opts *opts;
	const struct exm_walk *w;
	const char *root;
	unsigned page_size;
	const pid_t *pids;
	/* with reuse: the descriptors kept of each pid (exm_kept_fds);
	 * only the first nkept pids keep any (kept_max) */
	int (*kept)[EXM_KFD_N];
	size_t nkept;
	size_t npids, next; /* next: taken with __atomic_fetch_add */
	unsigned nw;	    /* threads it may use */
	bool spawned;	    /* those beyond the caller's started */
	int64_t t0;	    /* when it began, ns (coarse: no clock read) */
	int64_t cpu_ns;	    /* the workers' CPU, added when each is done */
	uint64_t num;	    /* its number, for user_name */
	struct exm_team team;
	struct worker {
		struct exm_builder b; /* its own; worker 0: the caller's */
		struct exm_build_end skipped;
		int ret;
	} wk[EXM_MAX_THREADS];
};

/*
 * A hash of stat's fields that move when the process's memory may have:
 * minflt (10), majflt (12), utime (14), stime (15), num_threads (20),
 * starttime (22), vsize (23) and rss (24); never 0. Its state, CPU and
 * the other fields move on their own and say nothing of its pages.
 */
static uint64_t stat_key(const char *buf, size_t len)
{
	static const unsigned char want[64] = {
		[10] = 1, [12] = 1, [14] = 1, [15] = 1,
		[20] = 1, [22] = 1, [23] = 1, [24] = 1,
	};
	const char *p = buf + len, *end = buf + len;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	unsigned field = 2;

	while (p > buf && p[-1] != ')')
		p--;
	for (; p < end && field < 25; p++) {
		if (*p == ' ') {
			field++;
			h = (h ^ 0xff) * UINT64_C(0x100000001b3);
		} else if (want[field]) {
			h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
		}
	}
	return h | 1;
}

/* Identity from /proc/PID/stat (the owner: read_owner). 0; 1 for a
 * kernel thread; -errno (-ENOENT/-ESRCH: gone). */
static int read_ident(struct exm_pdir *d, struct exm_proc *p)
{
	struct exm_stat sf;
	char *buf;
	size_t len;
	/* kept from the last walk: its process may be gone */
	bool old = d->kept && d->kept[EXM_KFD_STAT] >= 0;
	int r = exm_pdir_fd(d);

	if (r < 0)
		return r;
	r = exm_pdir_read(d, "stat", &buf, &len);
	if (old && (r || !len)) { /* gone: the pid's process now, if any */
		if (!r)
			free(buf);
		kept_close(d->kept);
		d->fd = -1;
		r = exm_pdir_fd(d);
		if (r < 0)
			return r;
		r = exm_pdir_read(d, "stat", &buf, &len);
	}
	if (r)
		return r;
	r = exm_parse_stat(buf, len, &p->comm, &sf);
	if (!r) {
		p->ppid = sf.ppid;
		p->start_time = sf.start_time;
		d->key = stat_key(buf, len);
		d->one_thread = sf.threads == 1;
	}
	free(buf);
	if (r)
		return r == -ENOMEM ? r : -ESRCH;
	return (sf.flags & PF_KTHREAD) ? 1 : 0;
}

/* Its user: the directory's owner (the process's, or root's while it is
 * not dumpable), or its last walk's when it did not run since
 * (exm_reuse_maps: changing either takes a system call). 0 or -ESRCH. */
static int read_owner(struct exm_pdir *d, struct exm_proc *p)
{
	struct stat st;

	if (d->maps_in) {
		p->uid = d->uid;
		return 0;
	}
	if (fstat(d->fd, &st))
		return -ESRCH;
	p->uid = st.st_uid;
	return 0;
}

static int walk_one(const struct walk *wl, struct worker *wk, void *ctx,
		    size_t i)
{
	struct exm_builder *b = &wk->b;
	const struct exm_walk *w = wl->w;
	pid_t pid = wl->pids[i];
	struct exm_pdir d = { .fd = -1,
			      .kept = wl->kept && i < wl->nkept ? wl->kept[i]
								: NULL };
	char path[PATH_MAX];
	struct exm_proc *p;
	int r;

	snprintf(d.path, sizeof(d.path), "%s/%d", wl->root, (int)pid);
	p = exm_build_proc(b);
	if (!p)
		return -ENOMEM;
	p->pid = pid;
	r = w->ident ? 0 : read_ident(&d, p);
	/* maps as the last walk read them, if it did not run */
	if (r == 0 && !w->ident && w->read_maps)
		exm_reuse_maps(wl->src->reuse, p->pid, p->start_time, &d);
	if (r == 0 && !w->ident)
		r = read_owner(&d, p);
	if (r == 0 && w->read_maps)
		r = exm_read_maps(b, &d, p);
	if (r == 0)
		r = w->fn(wl->src, ctx, wl->opts, b, p, &d);
	/* the rest of who it is, also for a process we may not look into */
	if ((r == 0 || r == -EACCES || r == -EPERM) && p->comm) {
		if (!p->cmdline) /* or the kept one (exm_reuse_take) */
			p->cmdline = wl->opts->want_cmdline ? read_cmdline(&d)
							    : strdup("");
		p->cgroup = wl->opts->want_cgroup ? read_cgroup(&d)
						  : strdup("");
		p->user = user_name(wl->num, p->uid);
		if (wl->opts->want_oom)
			read_oom(&d, p);
		if (!p->cmdline || !p->cgroup || !p->user)
			r = -ENOMEM;
	}
	free(d.maps); /* read, not taken by exm_reuse_take */
	if (d.fd >= 0 && !d.kept)
		close(d.fd);
	if (d.kept && r && r != 1 && r != -EACCES && r != -EPERM)
		kept_close(d.kept); /* gone, or failed */
	if (r == -ENOMEM)
		return r;
	if (r == 1) { /* a kernel thread, or nothing mapped */
		exm_build_drop(b);
	} else if (exm_errno_gone(r) || (r && !p->comm)) {
		/* gone, or failed before we knew who it is */
		exm_build_drop(b);
		wk->skipped.nskipped_gone++;
	} else if (r == -EACCES || r == -EPERM) {
		r = deny(dfd_path(wl->root, p->pid, path, sizeof(path)), p,
			 wl->page_size);
		if (r) {
			/* gone before its statm was read: not listed, so
			 * counted as gone, not as denied */
			exm_build_drop(b);
			if (r == -ENOMEM)
				return r;
			wk->skipped.nskipped_gone++;
		} else {
			wk->skipped.nskipped_denied++;
		}
	} else if (r) {
		return r;
	}
	return 0;
}

int64_t exm_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void worker_main(void *arg, unsigned t, unsigned n);

/* Start the other workers: now, or when done of the pids took so long
 * that the whole walk looks worth them (see SPAWN_CPU_NS). */
static void maybe_spawn(struct walk *walk, size_t done, bool now)
{
	if (walk->spawned || walk->nw < 2)
		return;
	if (!now) {
		int64_t el = exm_clock_ns(CLOCK_MONOTONIC_COARSE) - walk->t0;

		if (el < SPAWN_PROBE_NS || done >= walk->npids ||
		    (double)el * (double)walk->npids / (double)done <
			    (double)SPAWN_CPU_NS)
			return;
	}
	for (unsigned i = 1; i < walk->nw; i++)
		walk->wk[i].ret = exm_builder_fork(&walk->wk[0].b,
						   &walk->wk[i].b);
	walk->spawned = true;
	exm_team_start(&walk->team, walk->nw, worker_main, walk);
}

static void worker_main(void *arg, unsigned t, unsigned n)
{
	struct walk *walk = arg;
	struct worker *wk = &walk->wk[t];
	const struct exm_walk *w = walk->w;
	int64_t cpu0 = exm_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	void *ctx;

	if (wk->ret || !wk->b.snap)
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
		wk->ret = walk_one(walk, wk, ctx, i);
		if (!t)
			maybe_spawn(walk, i + 1, false);
	}
	if (w->ctx_free)
		w->ctx_free(ctx);
	__atomic_fetch_add(&walk->cpu_ns,
			   exm_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0,
			   __ATOMIC_RELAXED);
	(void)n;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct exm_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int exm_proc_walk(struct exm_source *src, const struct exm_scan_opts *opts,
		  struct exm_builder *b, const struct exm_walk *w)
{
	struct exm_snapshot *snap = b->snap;
	const char *root = snap->sys.proc_root[0] ? snap->sys.proc_root
						  : "/proc";
	struct walk *walk;
	pid_t self = getpid(), *pids;
	size_t npids = 0, n, nkept = kept_max();
	unsigned nw;
	int ret;

	if (opts->want_cgroup)
		snap->sys.caps |= EXM_CAP_CGROUP;
	ret = exm_list_pids(root, &pids, &n);
	if (ret) {
		if (ret != -ENOMEM)
			snprintf(src->errmsg, sizeof(src->errmsg),
				 "cannot open %.200s: %s", root,
				 strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < n; i++)
		if (pid_selected(opts, pids[i]) &&
		    (pids[i] != self || opts->include_self))
			pids[npids++] = pids[i];

	nw = exm_thread_count(npids, 16);
	walk = calloc(1, sizeof(*walk));
	if (!walk) {
		free(pids);
		return -ENOMEM;
	}
	/* stat validates what is kept (not read where the source says who
	 * each is) */
	*walk = (struct walk){
		.src = src,
		.opts = opts,
		.w = w,
		.root = root,
		.page_size = snap->sys.page_size,
		.pids = pids,
		.kept = src->reuse && !w->ident
				? kept_for(src, pids, npids, nkept)
				: NULL,
		.nkept = nkept,
		.npids = npids,
		.nw = nw,
		.t0 = exm_clock_ns(CLOCK_MONOTONIC_COARSE),
		.num = __atomic_add_fetch(&walks, 1, __ATOMIC_RELAXED)
	};
	walk->wk[0].b = *b;
	maybe_spawn(walk, 0,
		    exm_threads_fixed() || src->walk_cpu_ns >= SPAWN_CPU_NS);
	worker_main(walk, 0, nw);
	if (walk->spawned)
		exm_team_join(&walk->team);
	else
		nw = 1;
	src->walk_cpu_ns = walk->cpu_ns > 0 ? walk->cpu_ns : 1;
	for (unsigned i = 0; i < nw; i++) {
		struct worker *wk = &walk->wk[i];

		if (!ret)
			ret = wk->ret;
		exm_build_end(b, &wk->skipped);
		if (i)
			exm_builder_join(b, &wk->b);
	}
	if (walk->kept)
		kept_store(src, pids, npids, walk->kept);
	else
		free(pids);
	pids = NULL;
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
