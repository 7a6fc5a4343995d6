// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_kmod.c - page-level snapshots from the exmap kernel module.
 *
 * /dev/exmap walks a process's page tables once and returns runs of pages
 * with their frames or swap entries, the PTE's writable and dirty bits and
 * each page's mapcount (kernel/exmap_abi.h). The words stored are those
 * pagemap gives (pagemap.h), plus EXM_PM_WRITABLE from the PTE and what
 * the module says the page is (EXM_PM_ZERO, EXM_PM_KSM; a hugetlb
 * mapping's pages one word per base page, the mapping marked hugetlb with
 * its page size), so every size is what the pagemap source measures,
 * except writable, which is exact. The kernel's Pss figures are computed from the same walk, the way
 * smaps_rollup adds them up; smaps_rollup is read only for SwapPss of a
 * process that has swap entries, when asked (want_rollup). The module also says who the process is
 * (name, parent, start, uid) and lists its mappings as maps would, so of
 * /proc/PID only cmdline (and cgroup, when asked) is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/pagemap.h"
#include "core/parallel.h"
#include "core/procfs.h"
#include "core/reuse.h"
#include "core/source_priv.h"
#include "kernel/exmap_abi.h"

#define NRECS 4096   /* records per ioctl */
#define NWORDS 4096  /* page words handed to the snapshot at once */
#define RUN_DIRECT 8 /* pages of a run stored as a run, not word by word */
#define PSS_SHIFT 12 /* smaps' fixed point */
/*
 * Room for mappings at first, doubled while a process needs more (the
 * context keeps it for later walks), and at most (the module's limits).
 * Small at first, so that most processes make it grow: the module test
 * then checks the growing too.
 */
#define NVMAS 8
#define NAMES 512
#define MAX_NVMAS (1u << 20)
#define MAX_NAMES (64u << 20)

struct km_ctx {
	struct km_src *src; /* whose spares it goes back to */
	int fd;
	struct exmap_rec *recs;
	struct exmap_vma *vmas; /* room for nvmas, and names_len bytes */
	char *names;
	uint32_t nvmas, names_len;
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
	/* the ABI the module speaks (4 to ours), whether it watches
	 * processes (ABI 5: the counters that say a process changed) and
	 * counts their zero pages (ABI 6: the one change no counter shows) */
	uint32_t abi;
	bool watch, zeros;
	/* the vsyscall page as our own maps lists it; .name NULL if none */
	struct exm_mapping gate;
	pthread_mutex_t lock;
	struct km_ctx *spare[EXM_MAX_THREADS];
	unsigned nspare;
	int fd; /* km_open's open device, for the first context; or -1 */
};

/* What smaps_rollup would print, in bytes << PSS_SHIFT, and Rss. */
struct km_kpss {
	uint64_t pss, anon, file, shmem, dirty, rss;
	bool swapped;
	uint32_t mapcount; /* of the last record: runs of one page share it */
	uint64_t share;	   /* a page's Pss at that mapcount */
};

/* The device auto's probe opened, for km_open (-1: none): one open of it
 * serves the probe, the ABI's question and the first walk, as the module
 * keeps no state of a walk per open file (only its buffers). */
static _Atomic int probed = -1;

static int km_dev_open(void)
{
	int fd = atomic_exchange(&probed, -1);

	if (fd < 0)
		fd = open(EXMAP_DEVICE, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* One call, of ABI abi with flags: up to n records of pid from start into
 * recs; a->nrecs says how many, a->next where to go on (0: done), and the
 * rest who it is. With c, also the mappings into c's vmas and names
 * (-EOVERFLOW: no room). An ABI 4 call gives no counters, an ABI 5 call
 * no zero pages (the fields past its struct stay 0). */
static int km_scan(int fd, uint32_t abi, uint32_t flags, pid_t pid,
		   uint64_t start, struct exmap_rec *recs, uint32_t n,
		   const struct km_ctx *c, struct exmap_scan *a)
{
	memset(a, 0, sizeof(*a));
	a->size = abi == 4   ? EXMAP_SCAN_SIZE_4
		  : abi == 5 ? EXMAP_SCAN_SIZE_5
			     : sizeof(*a);
	a->abi = abi;
	a->flags = flags;
	a->pid = pid;
	a->start = start;
	a->recs = (uint64_t)(uintptr_t)recs;
	a->nrecs = n;
	a->rec_size = sizeof(*recs);
	if (c) {
		a->vmas = (uint64_t)(uintptr_t)c->vmas;
		a->nvmas = c->nvmas;
		a->vma_size = sizeof(*c->vmas);
		a->names = (uint64_t)(uintptr_t)c->names;
		a->names_len = c->names_len;
	}
	while (ioctl(fd, EXMAP_IOC_SCAN, a) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

bool exm_kmod_available(void)
{
	int fd = km_dev_open(), none = -1;

	if (fd < 0)
		return false;
	if (!atomic_compare_exchange_strong(&probed, &none, fd))
		close(fd);
	return true;
}

/*
 * The vsyscall page as our own maps lists it, into g (name NULL if it has
 * none): the module says which processes have it (get_gate_vma is not
 * exported), and whether the kernel has it at all only maps says.
 */
static int km_gate(struct exm_mapping *g)
{
	char *buf, *line, *nl;
	size_t len;
	int ret = exm_read_file(AT_FDCWD, "/proc/self/maps", &buf, &len);

	memset(g, 0, sizeof(*g));
	if (ret)
		return ret;
	for (line = buf; line < buf + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(buf + len - line));
		if (!nl)
			nl = buf + len;
		if (exm_parse_maps_line(line, (size_t)(nl - line), g) == 0) {
			if (g->kind == EXM_KIND_VSYSCALL)
				break;
			free(g->name);
		}
		memset(g, 0, sizeof(*g));
	}
	free(buf);
	return 0;
}

static int km_open(struct exm_source *src)
{
	struct exmap_rec rec = { 0 };
	struct exmap_scan a;
	int fd = km_dev_open(), ret;
	struct km_src *ks;
	long hz = sysconf(_SC_CLK_TCK);
	uint32_t abi;

	if (fd == -ENOENT || fd == -ENODEV || fd == -ENXIO) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "no %s: load the exmap module (see kernel/README.md) "
			 "or use --source pagemap",
			 EXMAP_DEVICE);
		return fd;
	}
	if (fd == -EACCES || fd == -EPERM) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "kmod source needs root (CAP_SYS_ADMIN) to open %s; "
			 "use --source smaps",
			 EXMAP_DEVICE);
		return fd;
	}
	if (fd < 0)
		return fd;
	/* Does the module speak our ABI, ABI 5 (no zero-page count: a page
	 * another task read in waits for the scheduled walk) or ABI 4 (no
	 * counters: every process is walked on every refresh)? Ask about
	 * ourselves, from ours down. */
	abi = EXMAP_ABI_VERSION + 1;
	do
		ret = km_scan(fd, --abi, 0, getpid(), 0, &rec, 1, NULL, &a);
	while (ret == -EINVAL && abi > EXMAP_ABI_MIN);
	if (ret)
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
	if (!ks) {
		close(fd);
		return -ENOMEM;
	}
	ks->fd = fd;
	ks->tick_ns = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	ks->abi = abi;
	ks->watch = abi >= 5;
	ks->zeros = abi >= 6;
	ret = km_gate(&ks->gate);
	if (ret) {
		close(fd);
		free(ks);
		return ret;
	}
	pthread_mutex_init(&ks->lock, NULL);
	src->priv = ks;
	return 0;
}

static void km_ctx_destroy(struct km_ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->recs);
	free(c->vmas);
	free(c->names);
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
	int fd = -1;

	pthread_mutex_lock(&ks->lock);
	if (ks->nspare) {
		c = ks->spare[--ks->nspare];
	} else {
		fd = ks->fd;
		ks->fd = -1;
	}
	pthread_mutex_unlock(&ks->lock);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	c->src = ks;
	c->fd = fd >= 0 ? fd : km_dev_open();
	/* zeroed once: tools like valgrind cannot know the ioctl fills it */
	c->recs = calloc(NRECS, sizeof(*c->recs));
	c->words = malloc(NWORDS * sizeof(*c->words));
	c->nvmas = NVMAS;
	c->names_len = NAMES;
	c->vmas = calloc(c->nvmas, sizeof(*c->vmas));
	c->names = calloc(c->names_len, 1);
	if (c->fd < 0 || !c->recs || !c->words || !c->vmas || !c->names) {
		km_ctx_destroy(c);
		return NULL;
	}
	return c;
}

bool exm_kmod_watches(const struct exm_source *src)
{
	const struct km_src *ks = src->priv;

	return ks && ks->watch;
}

static void km_close(struct exm_source *src)
{
	struct km_src *ks = src->priv;

	if (!ks)
		return;
	while (ks->nspare)
		km_ctx_destroy(ks->spare[--ks->nspare]);
	if (ks->fd >= 0)
		close(ks->fd);
	free(ks->gate.name);
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
	if ((r->flags & (EXMAP_F_PRESENT | EXMAP_F_ZERO)) ==
	    (EXMAP_F_PRESENT | EXMAP_F_ZERO))
		w |= EXM_PM_ZERO;
	if (r->flags & EXMAP_F_KSM)
		w |= EXM_PM_KSM;
	return w;
}

/* Add r to the kernel's figures the way smaps_rollup counts it. */
static void kpss_add(struct km_kpss *k, const struct exmap_rec *r, unsigned ps)
{
	uint64_t pss, bytes = (uint64_t)r->npages * ps;

	if ((r->flags & EXMAP_F_SWAP) && !(r->flags & EXMAP_F_MIGRATION)) {
		k->swapped = true;
		return;
	}
	/* the (huge) zero page and PFN maps: no page smaps would count;
	 * hugetlb pages are in *_Hugetlb, not in Rss or Pss */
	if (r->flags & (EXMAP_F_NOPAGE | EXMAP_F_ZERO | EXMAP_F_HUGETLB))
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
 * (changed since the first call listed them) are dropped.
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

/* Twice the room for mappings: 0, -EOVERFLOW at the limit, -ENOMEM. */
static int km_grow(struct km_ctx *c)
{
	struct exmap_vma *v;
	char *n;

	if (c->nvmas >= MAX_NVMAS || c->names_len >= MAX_NAMES)
		return -EOVERFLOW;
	v = realloc(c->vmas, 2 * (size_t)c->nvmas * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->vmas = v;
	memset(v + c->nvmas, 0, c->nvmas * sizeof(*v));
	c->nvmas *= 2;
	n = realloc(c->names, 2 * (size_t)c->names_len);
	if (!n)
		return -ENOMEM;
	c->names = n;
	memset(n + c->names_len, 0, c->names_len);
	c->names_len *= 2;
	return 0;
}

/* A mapping of p with f's range, perms, offset, device and inode, named
 * from the len bytes maps prints: 0 or -errno (then it is not added). */
static int km_add_mapping(struct exm_builder *b, struct exm_proc *p,
			  const struct exm_mapping *f, const char *name,
			  size_t len)
{
	struct exm_mapping *m = exm_build_mapping(b, p);
	int ret;

	if (!m)
		return -ENOMEM;
	*m = (struct exm_mapping){ .start = f->start,
				   .end = f->end,
				   .offset = f->offset,
				   .perms = f->perms,
				   .dev_major = f->dev_major,
				   .dev_minor = f->dev_minor,
				   .inode = f->inode };
	ret = exm_mapping_name(m, name, len);
	if (ret)
		p->nmaps--;
	else if (f->hugetlb)
		exm_mapping_set_hugetlb(m, f->kpage_size);
	return ret;
}

/* The mappings the module listed (a: the call that did) into p, and the
 * vsyscall page if p has it: 0, 1 if it has none, -errno. */
static int km_maps(const struct km_src *ks, const struct km_ctx *c,
		   const struct exmap_scan *a, struct exm_builder *b,
		   struct exm_proc *p)
{
	static const struct {
		uint32_t vma;
		unsigned perm;
	} perms[] = {
		{ EXMAP_VMA_READ, EXM_PERM_R },
		{ EXMAP_VMA_WRITE, EXM_PERM_W },
		{ EXMAP_VMA_EXEC, EXM_PERM_X },
		{ EXMAP_VMA_SHARED, EXM_PERM_S },
	};
	const struct exm_mapping *g = &ks->gate;
	unsigned ps = b->snap->sys.page_size;
	int ret;

	for (uint32_t i = 0; i < a->nvmas; i++) {
		const struct exmap_vma *v = &c->vmas[i];
		struct exm_mapping f = { .start = v->start,
					 .end = v->end,
					 .offset = v->offset,
					 .inode = v->inode,
					 .dev_major = v->dev_major,
					 .dev_minor = v->dev_minor };

		if (v->name_off > a->names_len ||
		    v->name_len > a->names_len - v->name_off)
			return -EPROTO;
		/* the kernel's page size: said only of a hugetlb mapping */
		if (v->flags & EXMAP_VMA_HUGETLB) {
			if (!v->page_size || v->page_size > UINT32_MAX ||
			    v->page_size % ps)
				return -EPROTO;
			f.hugetlb = true;
			f.kpage_size = (uint32_t)v->page_size;
		}
		for (size_t k = 0; k < sizeof(perms) / sizeof(*perms); k++)
			if (v->flags & perms[k].vma)
				f.perms |= perms[k].perm;
		ret = km_add_mapping(b, p, &f, c->names + v->name_off,
				     v->name_len);
		if (ret)
			return ret;
	}
	if ((a->info & EXMAP_INFO_GATE) && g->name) {
		ret = km_add_mapping(b, p, g, g->name, strlen(g->name));
		if (ret)
			return ret;
	}
	return p->nmaps ? 0 : 1;
}

/*
 * The first call for p, which also says who it is and lists its mappings
 * (growing the room for them as needed; past the module's limits maps is
 * read instead). 0, 1 if it has nothing mapped, -errno.
 */
static int km_first(struct km_ctx *c, const struct km_src *ks,
		    struct exm_builder *b, struct exm_proc *p,
		    struct exm_pdir *d, struct exmap_scan *a, uint32_t flags)
{
	bool lists = true;
	int ret;

	for (;;) {
		ret = km_scan(c->fd, ks->abi, flags, p->pid, 0, c->recs, NRECS,
			      lists ? c : NULL, a);
		if (ret != -EOVERFLOW || !lists)
			break;
		ret = km_grow(c);
		if (ret == -EOVERFLOW)
			lists = false;
		else if (ret)
			return ret;
	}
	if (ret)
		return ret;
	free(p->comm);
	p->comm = strndup(a->comm, sizeof(a->comm));
	if (!p->comm)
		return -ENOMEM;
	p->ppid = a->ppid;
	p->uid = a->uid;
	p->start_time = a->start_ns / ks->tick_ns;
	if (a->info & EXMAP_INFO_NOMM)
		return 1;
	/* the mappings listed into the key (maps' text, if read instead),
	 * and what the process is (not what a walk saw) */
	if (a->info & EXMAP_INFO_WATCHED) {
		uint32_t info = a->info &
				~(EXMAP_INFO_TRANSIENT | EXMAP_INFO_SWAPPED);

		d->key = exm_hash_bytes(EXM_HASH0, &info, sizeof(info));
		if (lists) {
			d->key = exm_hash_bytes(d->key, c->vmas,
						a->nvmas * sizeof(*c->vmas));
			d->key = exm_hash_bytes(d->key, c->names, a->names_len);
		}
		d->key |= 1;
	}
	return lists ? km_maps(ks, c, a, b, p) : exm_read_maps(b, d, p);
}

/* The key of a process: its mappings' (mk) and the counters of a (its
 * zero pages too, from ABI 6; not the sums). */
static uint64_t km_key(uint64_t mk, const struct exmap_scan *a)
{
	size_t n = offsetof(struct exmap_scan, sum_rss) -
		   offsetof(struct exmap_scan, changes);

	return exm_hash_bytes(mk, &a->changes, n) | 1;
}

/*
 * The kernel's figures from k that page words and mapping counts give
 * (what the pagemap source has from them), not Pss_Dirty nor SwapPss: a
 * kept process keeps these while no count of its frames moves (reuse.h),
 * where a dirty bit set with no counter moving moves Pss_Dirty. What the
 * printed fields need unless they ask for smaps_rollup's own.
 */
static struct exm_kpss km_kpss_kept(const struct km_kpss *k)
{
	return (struct exm_kpss){
		.pss = k->pss >> PSS_SHIFT,
		.pss_anon = k->anon >> PSS_SHIFT,
		.pss_file = k->file >> PSS_SHIFT,
		.pss_shmem = k->shmem >> PSS_SHIFT,
		.rss = k->rss,
		.has = EXM_KPSS_PSS | EXM_KPSS_PSS_ANON | EXM_KPSS_PSS_FILE |
		       EXM_KPSS_PSS_SHMEM | EXM_KPSS_RSS,
	};
}

/* The kernel's figures of p from k (what its walk added up); with
 * smaps_rollup's own asked for, Pss_Dirty too and SwapPss, from
 * smaps_rollup when it has swap entries: 0 or -errno (gone). */
static int km_kpss(const struct exm_scan_opts *opts, struct exm_builder *b,
		   struct exm_pdir *d, struct exm_proc *p,
		   const struct km_kpss *k)
{
	struct exm_kpss kp = km_kpss_kept(k);
	int ret;

	if (opts->want_rollup) {
		kp.pss_dirty = k->dirty >> PSS_SHIFT;
		kp.has |= EXM_KPSS_PSS_DIRTY;
		if (!k->swapped) {
			kp.has |= EXM_KPSS_SWAP_PSS;
		} else if (exm_want_kpss(opts, p->pid)) {
			/* SwapPss needs the swap counts the walk does not
			 * see */
			ret = exm_read_kpss(b, d, p);
			if (exm_errno_gone(ret))
				return ret;
			if (!ret && (p->kpss.has & EXM_KPSS_SWAP_PSS)) {
				kp.swap_pss = p->kpss.swap_pss;
				kp.has |= EXM_KPSS_SWAP_PSS;
			}
		}
	}
	exm_build_kpss(b, p, &kp);
	return 0;
}

/* The kernel's figures from the module's sums (a walk that records
 * nothing) of a NOWALK | SUMS call a. */
static struct km_kpss km_sums(const struct exmap_scan *a)
{
	return (struct km_kpss){ .pss = a->sum_pss,
				 .anon = a->sum_anon,
				 .file = a->sum_file,
				 .shmem = a->sum_shmem,
				 .dirty = a->sum_dirty,
				 .rss = a->sum_rss,
				 .swapped = a->info & EXMAP_INFO_SWAPPED };
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
	size_t mi = 0;
	/* watched: who it is, its mappings and counters first, then a walk
	 * unless its words are kept (reuse.h); in a full walk whose words
	 * are kept, the walk's first call gives them; in one that keeps
	 * nothing (a one-shot), no process is watched */
	int phase = ks->watch ? exm_reuse_phase(src->reuse) : EXM_REUSE_NONE;
	uint32_t watch = phase != EXM_REUSE_NONE ? EXMAP_SCAN_WATCH : 0;
	uint32_t info = 0;
	uint64_t mk = 0;
	struct exmap_scan a0; /* the walk's first call: its counters */
	uint64_t zeros = 0;   /* the walk's present zero pages */
	int ret, kept = 0;

	c->n = 0;
	c->b = b;
	if (phase == EXM_REUSE_TAKE) {
		/* ABI 6: the kernel's figures in the same call, from a walk
		 * that records nothing, when a kept process needs them (not
		 * when it keeps those of its last walk) */
		uint32_t sums = ks->zeros && exm_want_kpss(opts, p->pid) &&
						!exm_reuse_kpss_kept(src->reuse,
								     p->pid)
					? EXMAP_SCAN_SUMS
					: 0;

		ret = km_first(c, ks, b, p, d, &a,
			       watch | EXMAP_SCAN_NOWALK | sums);
		if (ret)
			return ret;
		mk = d->key;
		d->key = km_key(mk, &a);
		d->exact = true;
		kept = exm_reuse_take(src->reuse, b, p, d, opts);
		if (kept < 0 || kept == 1)
			return kept < 0 ? kept : 0;
		/* 2: the words are kept, the kernel's figures from the sums
		 * (asked again if the hint was wrong; without sums, walked
		 * again); 0: walked */
		if (kept == 2 && !sums && ks->zeros) {
			sums = EXMAP_SCAN_SUMS;
			ret = km_scan(c->fd, ks->abi,
				      watch | EXMAP_SCAN_NOWALK | sums, p->pid,
				      0, c->recs, NRECS, NULL, &a);
			if (ret)
				return ret == -EINTR ? -ESRCH : ret;
		}
		if (kept == 2 && sums) {
			k = km_sums(&a);
			return km_kpss(opts, b, d, p, &k);
		}
		ret = km_scan(c->fd, ks->abi, watch, p->pid, 0, c->recs, NRECS,
			      NULL, &a);
		a0 = a;
	} else {
		ret = km_first(c, ks, b, p, d, &a, watch);
		mk = d->key;
		a0 = a;
	}
	for (;;) {
		info |= a.info;
		for (uint32_t i = 0; !ret && i < a.nrecs; i++) {
			const struct exmap_rec *r = &c->recs[i];

			if ((r->flags & (EXMAP_F_PRESENT | EXMAP_F_ZERO)) ==
			    (EXMAP_F_PRESENT | EXMAP_F_ZERO))
				zeros += r->npages;
			kpss_add(&k, &c->recs[i], ps);
			if (!kept)
				ret = store_rec(c, p, &mi, &c->recs[i], ps);
		}
		if (ret || !a.next)
			break;
		ret = km_scan(c->fd, ks->abi, watch, p->pid, a.next, c->recs,
			      NRECS, NULL, &a);
	}
	/* the counters read before this walk and the zero pages it saw (a
	 * count with no walk says them: one mapped meanwhile where the walk
	 * had been makes the next count differ); none when it saw an entry
	 * that changes with no counter (it is walked again next time) */
	if (watch && !kept && !ret) {
		a0.zeros = ks->zeros ? zeros : 0;
		p->change_key = (info &
				 (EXMAP_INFO_TRANSIENT | EXMAP_INFO_NOMM))
					? 0
					: km_key(mk, &a0);
	}
	if (!ret)
		ret = flush(c);
	if (ret == -EINVAL || ret == -EPROTO) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "%s refused a scan of pid %d (module ABI mismatch?)",
			 EXMAP_DEVICE, (int)p->pid);
		return ret;
	}
	if (ret)
		return ret == -EINTR ? -ESRCH : ret;
	if (!opts->want_kpss)
		return 0;
	return km_kpss(opts, b, d, p, &k);
}

/* Kept processes whose frames' mapping counts moved: their kernel Pss
 * again from the module's sums, in place (exm_source_ops.kpss_again; only
 * asked when the printed fields need no smaps_rollup). A process gone
 * meanwhile is left unmeasured. */
static int km_kpss_again(struct exm_source *src, struct exm_snapshot *snap,
			 struct exm_proc *const *procs, size_t n)
{
	struct km_src *ks = src->priv;
	struct exm_builder b;
	struct km_ctx *c;
	int ret = 0;

	if (!ks->zeros) /* no sums before ABI 6 */
		return -EOPNOTSUPP;
	c = km_ctx_new(src);
	if (!c)
		return -ENOMEM;
	exm_builder_init(&b, snap);
	for (size_t i = 0; i < n && !ret; i++) {
		struct exm_proc *p = procs[i];
		struct exmap_scan a;
		struct exm_kpss kp;
		struct km_kpss k;

		ret = km_scan(c->fd, ks->abi,
			      EXMAP_SCAN_WATCH | EXMAP_SCAN_NOWALK |
				      EXMAP_SCAN_SUMS,
			      p->pid, 0, c->recs, NRECS, NULL, &a);
		if (exm_errno_gone(ret) ||
		    (!ret && (a.info & EXMAP_INFO_NOMM))) {
			p->kpss = (struct exm_kpss){ 0 };
			ret = 0;
			continue;
		}
		if (ret)
			break;
		k = km_sums(&a);
		kp = km_kpss_kept(&k);
		exm_build_kpss(&b, p, &kp);
	}
	km_ctx_free(c);
	return ret;
}

static int km_fill(struct exm_source *src, const struct exm_scan_opts *opts,
		   struct exm_builder *b)
{
	static const struct exm_walk walk = {
		.fn = km_proc,
		.ident = true,
		.ctx_new = km_ctx_new,
		.ctx_free = km_ctx_free,
	};

	struct exm_sysinfo sys;
	int ret;

	exm_sysfacts_local(&sys, opts->proc_root);
	snprintf(sys.source, sizeof(sys.source), "kmod");
	snprintf(sys.source_detail, sizeof(sys.source_detail), "exmap ABI %d",
		 EXMAP_ABI_VERSION);
	/* the module says which pages are KSM pages (EXMAP_F_KSM) */
	sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE |
		   EXM_CAP_PTE_WRITABLE | EXM_CAP_ALLPROCS | EXM_CAP_KSM |
		   (opts->want_kpss ? EXM_CAP_KPSS : 0);
	sys.limits[0] = '\0';
	ret = exm_build_begin(b, &sys);
	if (ret)
		return ret;
	return exm_proc_walk(src, opts, b, &walk);
}

const struct exm_source_ops exm_source_kmod = {
	.name = "kmod",
	.help = "the exmap module",
	.probe = exm_kmod_available,
	.open = km_open,
	.fill = km_fill,
	.close = km_close,
	.kpss_again = km_kpss_again,
};
