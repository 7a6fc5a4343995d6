// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_kmod.c - page-level snapshots from the exmap kernel module.
 *
 * /dev/exmap walks a process's page tables once and returns runs of pages
 * with their frames or swap entries, the PTE's writable and dirty bits and
 * each page's mapcount (kernel/exmap_abi.h). The words stored are those
 * pagemap gives (pagemap.h), plus EXM_PM_WRITABLE from the PTE, so every
 * size is what the pagemap source measures, except writable, which is
 * exact. The kernel's Pss figures are computed from the same walk, the way
 * smaps_rollup adds them up; smaps_rollup is read only for SwapPss of a
 * process that has swap entries. The module also says who the process is
 * (name, parent, start, uid), so /proc/PID/stat is not read either.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/pagemap.h"
#include "core/parallel.h"
#include "core/procfs.h"
#include "core/source_priv.h"
#include "kernel/exmap_abi.h"

#define NRECS 4096 /* records per ioctl */
#define NWORDS 4096 /* page words handed to the snapshot at once */
#define RUN_DIRECT 8 /* pages of a run stored as a run, not word by word */
#define PSS_SHIFT 12 /* smaps' fixed point */

struct km_ctx {
	struct km_src *src; /* whose spares it goes back to */
	int fd;
	struct exmap_rec *recs;
	/* words of pages [vpn, vpn + n) of mapping m, not yet stored */
	uint64_t *words;
	struct exm_builder *b; /* the calling worker's */
	struct exm_mapping *m;
	uint64_t vpn;
	uint32_t n;
};

/*
 * The source's state: contexts of walks gone by, kept for the next. A live
 * screen walks every few seconds; a fresh context costs a device open (the
 * module allocates and clears its record buffer) and fresh pages for ours.
 */
struct km_src {
	uint64_t tick_ns; /* a clock tick (stat's start time unit), ns */
	pthread_mutex_t lock;
	struct km_ctx *spare[EXM_MAX_THREADS];
	unsigned nspare;
};

/* What smaps_rollup would print, in bytes << PSS_SHIFT, and Rss. */
struct km_kpss {
	uint64_t pss, anon, file, shmem, dirty, rss;
	bool swapped;
	uint32_t mapcount; /* of the last record: runs of one page share it */
	uint64_t share;	   /* a page's Pss at that mapcount */
};

static int km_dev_open(void)
{
	int fd = open(EXMAP_DEVICE, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* One call: up to n records of pid from start into recs; a->nrecs says
 * how many, a->next where to go on (0: done), and the rest who it is. */
static int km_scan(int fd, pid_t pid, uint64_t start, struct exmap_rec *recs,
		   uint32_t n, struct exmap_scan *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->abi = EXMAP_ABI_VERSION;
	a->pid = pid;
	a->start = start;
	a->recs = (uint64_t)(uintptr_t)recs;
	a->nrecs = n;
	a->rec_size = sizeof(*recs);
	while (ioctl(fd, EXMAP_IOC_SCAN, a) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

bool exm_kmod_available(void)
{
	int fd = km_dev_open();

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int km_open(struct exm_source *src)
{
	struct exmap_rec rec = { 0 };
	struct exmap_scan a;
	int fd = km_dev_open(), ret;
	struct km_src *ks;
	long hz = sysconf(_SC_CLK_TCK);

	if (fd == -ENOENT || fd == -ENODEV || fd == -ENXIO) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "no %s: load the exmap module (see kernel/README.md) "
			 "or use --source pagemap", EXMAP_DEVICE);
		return fd;
	}
	if (fd == -EACCES || fd == -EPERM) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "kmod source needs root (CAP_SYS_ADMIN) to open %s; "
			 "use --source smaps", EXMAP_DEVICE);
		return fd;
	}
	if (fd < 0)
		return fd;
	/* Does the module speak our ABI? Ask about ourselves. */
	ret = km_scan(fd, getpid(), 0, &rec, 1, &a);
	close(fd);
	if (ret == -EINVAL || ret == -ENOTTY) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "the loaded exmap module does not speak ABI %d: "
			 "rebuild it from this exmtop's kernel/",
			 EXMAP_ABI_VERSION);
		return -EPROTO;
	}
	if (ret)
		return ret;
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return -ENOMEM;
	ks->tick_ns = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	pthread_mutex_init(&ks->lock, NULL);
	src->priv = ks;
	return 0;
}

static void km_ctx_destroy(struct km_ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->recs);
	free(c->words);
	free(c);
}

/* Back to the source's spares (or closed when they are full). */
static void km_ctx_free(void *ctx)
{
	struct km_ctx *c = ctx;
	struct km_src *ks;
	bool kept = false;

	if (!c)
		return;
	ks = c->src;
	pthread_mutex_lock(&ks->lock);
	if (ks->nspare < EXM_MAX_THREADS) {
		ks->spare[ks->nspare++] = c;
		kept = true;
	}
	pthread_mutex_unlock(&ks->lock);
	if (!kept)
		km_ctx_destroy(c);
}

static void *km_ctx_new(struct exm_source *src)
{
	struct km_src *ks = src->priv;
	struct km_ctx *c = NULL;

	pthread_mutex_lock(&ks->lock);
	if (ks->nspare)
		c = ks->spare[--ks->nspare];
	pthread_mutex_unlock(&ks->lock);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->src = ks;
	c->fd = km_dev_open();
	/* zeroed once: tools like valgrind cannot know the ioctl fills it */
	c->recs = calloc(NRECS, sizeof(*c->recs));
	c->words = malloc(NWORDS * sizeof(*c->words));
	if (c->fd < 0 || !c->recs || !c->words) {
		km_ctx_destroy(c);
		return NULL;
	}
	return c;
}

static void km_close(struct exm_source *src)
{
	struct km_src *ks = src->priv;

	if (!ks)
		return;
	while (ks->nspare)
		km_ctx_destroy(ks->spare[--ks->nspare]);
	pthread_mutex_destroy(&ks->lock);
	free(ks);
	src->priv = NULL;
}

/* The pagemap word of the first page of r (see pagemap.h). */
static uint64_t rec_word(const struct exmap_rec *r)
{
	uint64_t w = r->frame & EXM_PM_PFN_MASK;

	if (r->flags & EXMAP_F_PRESENT) {
		w |= EXM_PM_PRESENT;
		if (r->flags & EXMAP_F_WRITE)
			w |= EXM_PM_WRITABLE;
	} else {
		w |= EXM_PM_SWAPPED;
	}
	if (r->flags & EXMAP_F_FILE)
		w |= EXM_PM_FILE;
	if (r->flags & EXMAP_F_EXCL)
		w |= EXM_PM_EXCLUSIVE;
	return w;
}

/* Add r to the kernel's figures the way smaps_rollup counts it. */
static void kpss_add(struct km_kpss *k, const struct exmap_rec *r,
		     unsigned ps)
{
	uint64_t pss, bytes = (uint64_t)r->npages * ps;

	if ((r->flags & EXMAP_F_SWAP) && !(r->flags & EXMAP_F_MIGRATION)) {
		k->swapped = true;
		return;
	}
	/* the (huge) zero page and PFN maps: no page smaps would count */
	if (r->flags & (EXMAP_F_NOPAGE | EXMAP_F_ZERO))
		return;
	if (!(r->flags & (EXMAP_F_ANON | EXMAP_F_FILE)))
		return;
	/* smaps: a present page's share is PAGE_SIZE << 12 divided by its
	 * mapcount (when 2 or more); a migrating page counts in full */
	if (r->mapcount != k->mapcount || !k->share) {
		k->mapcount = r->mapcount;
		k->share = ((uint64_t)ps << PSS_SHIFT) /
			   (r->mapcount >= 2 ? r->mapcount : 1);
	}
	pss = k->share * r->npages;
	k->rss += bytes;
	k->pss += pss;
	if (r->flags & EXMAP_F_ANON)
		k->anon += pss;
	else if (r->flags & EXMAP_F_SHMEM)
		k->shmem += pss;
	else
		k->file += pss;
	if (r->flags & EXMAP_F_DIRTY)
		k->dirty += pss;
}

/* Hand the batched words (consecutive pages of one mapping) over. */
static int flush(struct km_ctx *c)
{
	int ret = 0;

	if (c->n)
		ret = exm_build_pages(c->b, c->m, c->vpn, c->words, c->n);
	c->n = 0;
	return ret;
}

/*
 * Store the pages of r in the mappings of p (sorted, searched from *mi),
 * batching consecutive pages of a mapping. A run may cross from one
 * mapping into the next (adjacent VMAs); pages outside every mapping
 * (changed since maps was read) are dropped.
 */
static int store_rec(struct km_ctx *c, struct exm_proc *p, size_t *mi,
		     const struct exmap_rec *r, unsigned ps)
{
	uint64_t va = r->start, w = rec_word(r);
	uint64_t step = (r->flags & EXMAP_F_PRESENT) ? 1 : 1u << 5;
	uint64_t left = r->npages;

	while (left) {
		struct exm_mapping *m;
		uint64_t n, vpn = va / ps;
		int ret;

		while (*mi < p->nmaps && p->maps[*mi].end <= va)
			(*mi)++;
		if (*mi >= p->nmaps)
			return 0;
		m = &p->maps[*mi];
		n = va < m->start ? (m->start - va) / ps : 0;
		if (n || m->kind == EXM_KIND_VSYSCALL) {
			/* not in this mapping: skip to it, or past it */
			if (!n)
				n = (m->end - va) / ps;
			if (n >= left)
				return 0;
			left -= n;
			va += n * ps;
			w += n * step;
			continue;
		}
		n = (m->end - va) / ps;
		if (n > left)
			n = left;
		if (c->n && (c->m != m || c->vpn + c->n != vpn ||
			     c->n == NWORDS || n >= RUN_DIRECT)) {
			ret = flush(c);
			if (ret)
				return ret;
		}
		if (n >= RUN_DIRECT) { /* a long run: stored as one */
			n = n > UINT32_MAX ? UINT32_MAX : n;
			ret = exm_build_run(c->b, m, vpn, w, step, (uint32_t)n);
			if (ret)
				return ret;
			left -= n;
			va += n * ps;
			w += n * step;
			continue;
		}
		if (!c->n) {
			c->m = m;
			c->vpn = vpn;
		}
		if (n > NWORDS - c->n)
			n = NWORDS - c->n;
		for (uint64_t k = 0; k < n; k++)
			c->words[c->n + k] = w + k * step;
		c->n += (uint32_t)n;
		left -= n;
		va += n * ps;
		w += n * step;
	}
	return 0;
}

static int km_proc(struct exm_source *src, void *ctx,
		   const struct exm_scan_opts *opts, struct exm_builder *b,
		   struct exm_proc *p, struct exm_pdir *d)
{
	struct km_ctx *c = ctx;
	struct km_src *ks = src->priv;
	struct exmap_scan a;
	unsigned ps = b->snap->sys.page_size;
	struct km_kpss k = { 0 };
	struct exm_kpss kp = { 0 };
	uint64_t next = 0;
	size_t mi = 0;
	int ret;

	c->n = 0;
	c->b = b;
	do {
		ret = km_scan(c->fd, p->pid, next, c->recs, NRECS, &a);
		if (!ret && !next) { /* the first call: who it is */
			free(p->comm);
			p->comm = strndup(a.comm, sizeof(a.comm));
			if (!p->comm)
				return -ENOMEM;
			p->ppid = a.ppid;
			p->uid = a.uid;
			p->start_time = a.start_ns / ks->tick_ns;
		}
		next = ret ? 0 : a.next;
		for (uint32_t i = 0; !ret && i < a.nrecs; i++) {
			kpss_add(&k, &c->recs[i], ps);
			ret = store_rec(c, p, &mi, &c->recs[i], ps);
		}
	} while (!ret && next);
	if (!ret)
		ret = flush(c);
	if (ret == -EINVAL) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "%s refused a scan of pid %d (module ABI mismatch?)",
			 EXMAP_DEVICE, (int)p->pid);
		return ret;
	}
	if (ret)
		return ret == -EINTR ? -ESRCH : ret;
	if (!opts->want_kpss)
		return 0;
	if (k.swapped) {
		/* SwapPss needs the swap counts the walk does not see */
		if (exm_want_kpss(opts, p->pid)) {
			ret = exm_read_kpss(b, d, p);
			if (exm_errno_gone(ret))
				return ret;
			if (!ret && (p->kpss.has & EXM_KPSS_SWAP_PSS)) {
				kp.swap_pss = p->kpss.swap_pss;
				kp.has = EXM_KPSS_SWAP_PSS;
			}
		}
	} else {
		kp.has = EXM_KPSS_SWAP_PSS;
	}
	kp.pss = k.pss >> PSS_SHIFT;
	kp.pss_anon = k.anon >> PSS_SHIFT;
	kp.pss_file = k.file >> PSS_SHIFT;
	kp.pss_shmem = k.shmem >> PSS_SHIFT;
	kp.pss_dirty = k.dirty >> PSS_SHIFT;
	kp.rss = k.rss;
	kp.has |= EXM_KPSS_PSS | EXM_KPSS_PSS_ANON | EXM_KPSS_PSS_FILE |
		  EXM_KPSS_PSS_SHMEM | EXM_KPSS_PSS_DIRTY | EXM_KPSS_RSS;
	exm_build_kpss(b, p, &kp);
	return 0;
}

static int km_fill(struct exm_source *src, const struct exm_scan_opts *opts,
		   struct exm_builder *b)
{
	static const struct exm_walk walk = {
		.fn = km_proc,
		.read_maps = true,
		.ident = true,
		.ctx_new = km_ctx_new,
		.ctx_free = km_ctx_free,
	};

	struct exm_sysinfo sys;
	int ret;

	exm_sysfacts_local(&sys, opts->proc_root);
	snprintf(sys.source, sizeof(sys.source), "kmod");
	snprintf(sys.source_detail, sizeof(sys.source_detail),
		 "exmap ABI %d", EXMAP_ABI_VERSION);
	sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE |
		   EXM_CAP_PTE_WRITABLE | EXM_CAP_ALLPROCS |
		   (opts->want_kpss ? EXM_CAP_KPSS : 0);
	sys.limits[0] = '\0';
	ret = exm_build_begin(b, &sys);
	if (ret)
		return ret;
	return exm_proc_walk(src, opts, b, &walk);
}

const struct exm_source_ops exm_source_kmod = {
	.name = "kmod",
	.probe = exm_kmod_available,
	.open = km_open,
	.fill = km_fill,
	.close = km_close,
};
