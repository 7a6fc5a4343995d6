// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_pagemap.c - page-level snapshots from /proc/PID/pagemap (root).
 *
 * With the PAGEMAP_SCAN ioctl (Linux 6.7+) the kernel first tells which
 * ranges hold present or swapped pages, and only those ranges are read:
 * untouched address space costs nothing. Older kernels get plain chunked
 * reads of every mapping. Both paths store identical page words.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/kpageflags.h"
#include "core/pagemap.h"
#include "core/procfs.h"
#include "core/source_priv.h"

/* From <linux/fs.h> of Linux 6.7+; Debian 12's headers predate it. */
struct exm_page_region {
	uint64_t start, end, categories;
};

struct exm_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};

#define EXM_PAGEMAP_SCAN _IOWR('f', 16, struct exm_pm_scan_arg)
#define EXM_PAGE_IS_PRESENT (1u << 3)
#define EXM_PAGE_IS_SWAPPED (1u << 4)
/* access_ok() must accept [start, end): one page below TASK_SIZE_MAX. */
#define EXM_SCAN_END UINT64_C(0x7ffffffff000)

#define NREGIONS 1024	  /* regions per PAGEMAP_SCAN call */
#define CHUNK_WORDS 16384 /* 128 KiB per plain read */
/* With PAGEMAP_SCAN (auto mode), a mapping of at most this many pages is
 * read in one go rather than asked about first: reading its words walks
 * its page tables once, asking and then reading walks them twice. Only
 * big mappings (reservations of gigabytes or terabytes, mostly empty) are
 * worth the question. */
#define DIRECT_PAGES 65536 /* 256 MiB of 4 KiB pages: 512 KiB of words */

enum scan_state { SCAN_UNKNOWN = 0, SCAN_YES, SCAN_NO };

/* Shared by all workers. */
struct pm_priv {
	_Atomic int scan; /* enum scan_state */
	_Atomic bool any_scan, any_read;
};

/* One per worker thread. */
struct pm_ctx {
	struct exm_page_region *regions;
	size_t nregions, cap_regions;
	bool *want;	  /* per mapping: read it (plain reads, see smaps) */
	size_t cap_want;
	uint64_t *words;  /* plain-read buffer */
	bool asked, read; /* this process: PAGEMAP_SCAN used, direct reads */
};

static void *pm_ctx_new(struct exm_source *src)
{
	struct pm_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->words = malloc(DIRECT_PAGES * sizeof(*c->words));
	if (!c->words) {
		free(c);
		return NULL;
	}
	return c;
}

static void pm_ctx_free(void *ctx)
{
	struct pm_ctx *c = ctx;

	if (!c)
		return;
	free(c->regions);
	free(c->want);
	free(c->words);
	free(c);
}

bool exm_pagemap_has_pfns(void)
{
	volatile char probe = 1;
	uint64_t w = 0, addr = (uint64_t)(uintptr_t)&probe;
	long ps = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return false;
	probe = 2; /* make sure the page is present */
	r = pread(fd, &w, sizeof(w), (off_t)(addr / (uint64_t)ps * 8));
	close(fd);
	return r == (ssize_t)sizeof(w) && exm_pm_present(w) &&
	       exm_pm_key(w) != 0;
}

/* Whether this kernel has PAGEMAP_SCAN, asked on one page of our own. */
static int probe_scan(void)
{
	volatile char probe = 1;
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = (uint64_t)(uintptr_t)&probe & ~(uint64_t)(ps - 1);
	struct exm_page_region r;
	struct exm_pm_scan_arg arg;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return SCAN_UNKNOWN;
	memset(&arg, 0, sizeof(arg));
	memset(&r, 0, sizeof(r));
	arg.size = sizeof(arg);
	arg.start = page;
	arg.end = page + (uint64_t)ps;
	arg.vec = (uint64_t)(uintptr_t)&r;
	arg.vec_len = 1;
	arg.category_anyof_mask = EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_SWAPPED;
	arg.return_mask = EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_SWAPPED;
	n = ioctl(fd, EXM_PAGEMAP_SCAN, &arg);
	close(fd);
	if (n >= 0)
		return SCAN_YES;
	return errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP
		       ? SCAN_NO
		       : SCAN_UNKNOWN;
}

static int pm_open(struct exm_source *src)
{
	/* "pagemap:DIR" reads a /proc-like tree at DIR (tests, recorded
	 * trees): no privilege is involved in reading plain files. */
	if (!(src->arg && *src->arg) && !exm_pagemap_has_pfns()) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "pagemap source needs root (CAP_SYS_ADMIN) to read "
			 "page frame numbers; use --source smaps");
		return -EPERM;
	}
	src->priv = calloc(1, sizeof(struct pm_priv));
	if (!src->priv)
		return -ENOMEM;
	if (!(src->arg && *src->arg))
		((struct pm_priv *)src->priv)->scan = probe_scan();
	return 0;
}

static void pm_close(struct exm_source *src)
{
	free(src->priv);
}

/* pread that maps errors to -errno and tolerates short reads at the end. */
static ssize_t read_words(int fd, uint64_t *buf, uint64_t vpn, size_t n)
{
	ssize_t r;

	do {
		r = pread(fd, buf, n * 8, (off_t)(vpn * 8));
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r / 8;
}

/*
 * Read words for virtual pages [v0, v1) and store the used ones in the
 * mappings of p, starting the search at *mi (mappings are sorted). Runs
 * of used words are appended in bulk.
 */
static int read_range(struct pm_ctx *c, struct exm_builder *b, int fd,
		      struct exm_proc *p, size_t *mi, unsigned ps, uint64_t v0,
		      uint64_t v1)
{
	while (v0 < v1) {
		size_t n = v1 - v0 > CHUNK_WORDS ? CHUNK_WORDS : v1 - v0;
		ssize_t got = read_words(fd, c->words, v0, n);
		ssize_t k = 0;

		if (got < 0)
			return (int)got;
		if (got == 0)
			return 0; /* past the end of the address space */
		while (k < got) {
			uint64_t va = (v0 + (uint64_t)k) * ps, mend;
			struct exm_mapping *m;
			ssize_t j;
			int ret;

			if (!exm_pm_used(c->words[k])) {
				k++;
				continue;
			}
			while (*mi < p->nmaps && p->maps[*mi].end <= va)
				(*mi)++;
			if (*mi >= p->nmaps)
				return 0;
			m = &p->maps[*mi];
			if (va < m->start || m->kind == EXM_KIND_VSYSCALL) {
				k++; /* mapping changed since maps was read */
				continue;
			}
			/* The run of used words inside this mapping. */
			mend = m->end / ps - v0;
			for (j = k; j < got && (uint64_t)j < mend &&
				    exm_pm_used(c->words[j]);
			     j++)
				;
			ret = exm_build_pages(b, m, v0 + (uint64_t)k,
						    c->words + k,
						    (uint32_t)(j - k));
			if (ret)
				return ret;
			k = j;
		}
		v0 += (uint64_t)got;
	}
	return 0;
}

/* Ask the kernel which ranges of [start, end) hold present or swapped
 * pages: c->regions. 1 when the kernel has no PAGEMAP_SCAN, 0, -errno. */
static int scan_regions(struct pm_ctx *c, int fd, uint64_t start, uint64_t end)
{
	struct exm_pm_scan_arg arg;

	c->nregions = 0;
	while (start < end) {
		long n;

		if (c->cap_regions - c->nregions < NREGIONS) {
			size_t cap = c->cap_regions * 2 + NREGIONS;
			struct exm_page_region *r =
				realloc(c->regions, cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			/* zeroed once: tools like valgrind cannot know the
			 * ioctl fills it (zeroing each call cost more than
			 * the rest of the scan) */
			memset(r + c->cap_regions, 0,
			       (cap - c->cap_regions) * sizeof(*r));
			c->regions = r;
			c->cap_regions = cap;
		}
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = start;
		arg.end = end;
		arg.vec = (uint64_t)(uintptr_t)(c->regions + c->nregions);
		arg.vec_len = NREGIONS;
		arg.category_anyof_mask =
			EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_SWAPPED;
		arg.return_mask = EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_SWAPPED;
		n = ioctl(fd, EXM_PAGEMAP_SCAN, &arg);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOTTY || errno == EINVAL ||
			    errno == EOPNOTSUPP)
				return 1;
			return -errno;
		}
		c->nregions += (size_t)n;
		if (arg.walk_end <= start)
			break; /* no progress: never loop forever */
		start = arg.walk_end;
	}
	return 0;
}

/* Read the words of pages [vpn, vpn + n) of m into its reserved room. */
static int read_piece(struct pm_ctx *c, struct exm_builder *b,
		      struct exm_mapping *m, uint64_t vpn, uint64_t n, int fd)
{
	while (n) {
		size_t want = n < CHUNK_WORDS ? (size_t)n : CHUNK_WORDS;
		ssize_t got = read_words(fd, c->words, vpn, want);
		int ret;

		if (got <= 0)
			return (int)got;
		/* packed into the room reserved for this mapping */
		ret = exm_build_pages(b, m, vpn, c->words, (uint32_t)got);
		if (ret)
			return ret;
		vpn += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return 0;
}

/* A small mapping: read all its words at once, keep the used ones. */
static int read_direct(struct pm_ctx *c, struct exm_builder *b, int fd,
		       struct exm_mapping *m, unsigned ps)
{
	uint64_t vpn = m->start / ps, n = (m->end - m->start) / ps;
	ssize_t got = read_words(fd, c->words, vpn, (size_t)n);
	uint32_t used = 0;
	int ret;

	if (got <= 0)
		return (int)got;
	for (ssize_t k = 0; k < got; k++)
		used += exm_pm_used(c->words[k]);
	ret = exm_build_reserve(b, m, used);
	if (!ret)
		ret = exm_build_pages(b, m, vpn, c->words, (uint32_t)got);
	return ret;
}

/* A big mapping: ask PAGEMAP_SCAN where its pages are, read only those. */
static int scan_mapping(struct pm_ctx *c, struct exm_builder *b, int fd,
			struct exm_mapping *m, unsigned ps)
{
	uint64_t end = m->end < EXM_SCAN_END ? m->end : EXM_SCAN_END;
	uint64_t count = 0;
	int ret;

	if (m->start >= end)
		return 0;
	ret = scan_regions(c, fd, m->start, end);
	if (ret)
		return ret;
	for (size_t r = 0; r < c->nregions; r++) {
		uint64_t s = c->regions[r].start > m->start ? c->regions[r].start
							    : m->start;
		uint64_t e = c->regions[r].end < end ? c->regions[r].end : end;

		if (s < e)
			count += (e - s) / ps;
	}
	ret = exm_build_reserve(b, m,
					count > UINT32_MAX ? UINT32_MAX
							   : (uint32_t)count);
	for (size_t r = 0; !ret && r < c->nregions; r++) {
		uint64_t s = c->regions[r].start > m->start ? c->regions[r].start
							    : m->start;
		uint64_t e = c->regions[r].end < end ? c->regions[r].end : end;

		if (s < e)
			ret = read_piece(c, b, m, s / ps, (e - s) / ps, fd);
	}
	return ret;
}

/*
 * The PAGEMAP_SCAN path (direct: small mappings read at once, see
 * DIRECT_PAGES; else every mapping asked about): 1 when the kernel has no
 * PAGEMAP_SCAN, 0, -errno.
 */
static int scan_process(struct pm_ctx *c, struct exm_builder *b, int fd,
			struct exm_proc *p, unsigned ps, bool direct)
{
	for (size_t k = 0; k < p->nmaps; k++) {
		struct exm_mapping *m = &p->maps[k];
		int ret;

		if (m->kind == EXM_KIND_VSYSCALL)
			continue;
		if (direct && (m->end - m->start) / ps <= DIRECT_PAGES) {
			ret = read_direct(c, b, fd, m, ps);
			c->read = true;
		} else {
			ret = scan_mapping(c, b, fd, m, ps);
			c->asked = ret != 1;
		}
		if (ret)
			return ret;
	}
	return 0;
}

struct populated {
	const struct exm_proc *p;
	bool *want;	/* per mapping: read it */
	size_t cur;	/* the mapping of the VMA being parsed, or SIZE_MAX */
};

static void pop_vma(void *ctx, size_t first, bool exact, uint64_t start,
		    uint64_t end)
{
	struct populated *pp = ctx;

	pp->cur = exact ? first : SIZE_MAX;
	if (!exact) /* changed since maps was read: read what overlaps */
		for (size_t k = first;
		     k < pp->p->nmaps && pp->p->maps[k].start < end; k++)
			pp->want[k] = true;
}

static void pop_kv(void *ctx, const char *key, size_t klen, uint64_t v)
{
	struct populated *pp = ctx;

	if (pp->cur != SIZE_MAX && v &&
	    ((klen == 3 && !memcmp(key, "Rss", 3)) ||
	     (klen == 4 && !memcmp(key, "Swap", 4))))
		pp->want[pp->cur] = true;
}

/*
 * Without PAGEMAP_SCAN, reading a mapping's words costs 8 bytes for every
 * virtual page, present or not: a mostly empty 64 GiB reservation is 128
 * MiB of reads. For a process with a mapping bigger than DIRECT_PAGES,
 * smaps says first which mappings hold any page at all (Rss or Swap), and
 * the empty ones are not read. Sets c->want[k] for a mapping to read. 0,
 * or -errno when smaps cannot be read (then read everything).
 */
static int populated_from_smaps(struct pm_ctx *c, int dirfd,
				const struct exm_proc *p)
{
	struct populated pp = { .p = p, .want = c->want, .cur = SIZE_MAX };
	char *buf;
	size_t len;
	int ret = exm_read_file(dirfd, "smaps", &buf, &len);

	if (ret)
		return ret;
	memset(c->want, 0, p->nmaps * sizeof(*c->want));
	exm_smaps_walk(buf, len, p, pop_vma, pop_kv, &pp);
	free(buf);
	return 0;
}

static int read_process(struct pm_ctx *c, struct exm_builder *b, int fd,
			int dirfd,
			struct exm_proc *p, unsigned ps)
{
	bool big = false, sel = false;

	for (size_t i = 0; i < p->nmaps && !big; i++)
		big = (p->maps[i].end - p->maps[i].start) / ps > DIRECT_PAGES;
	if (big && c->cap_want < p->nmaps) {
		bool *n = realloc(c->want, p->nmaps * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->want = n;
		c->cap_want = p->nmaps;
	}
	if (big)
		sel = !populated_from_smaps(c, dirfd, p);
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];
		size_t mi = i;
		int ret;

		if (m->kind == EXM_KIND_VSYSCALL || (sel && !c->want[i]))
			continue;
		ret = read_range(c, b, fd, p, &mi, ps, m->start / ps,
				 m->end / ps);
		if (ret)
			return ret;
	}
	return 0;
}

static void reset_pages(struct exm_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		exm_mapping_clear_pages(&p->maps[i]);
}

static int pm_proc(struct exm_source *src, void *ctx,
		   const struct exm_scan_opts *opts, struct exm_builder *b,
		   struct exm_proc *p, struct exm_pdir *d)
{
	struct pm_priv *pp = src->priv;
	struct pm_ctx *c = ctx;
	unsigned ps = b->snap->sys.page_size;
	int fd, ret = 1, dirfd = exm_pdir_fd(d);

	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, "pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (opts->pagemap_mode != 2 && pp->scan != SCAN_NO) {
		c->asked = c->read = false;
		ret = scan_process(c, b, fd, p, ps,
				   opts->pagemap_mode == 0);
		if (ret == 1) {
			pp->scan = SCAN_NO;
			if (opts->pagemap_mode == 1) {
				snprintf(src->errmsg, sizeof(src->errmsg),
					 "this kernel has no PAGEMAP_SCAN "
					 "ioctl (Linux 6.7+)");
				close(fd);
				return -EOPNOTSUPP;
			}
			reset_pages(p);
		} else if (!ret) {
			if (c->asked) {
				pp->scan = SCAN_YES;
				pp->any_scan = true;
			}
			if (c->read)
				pp->any_read = true;
		}
	}
	if (ret == 1) {
		ret = read_process(c, b, fd, dirfd, p, ps);
		pp->any_read = true;
	}
	close(fd);
	if (ret)
		return ret == -EIO ? -ESRCH : ret;
	if (exm_want_kpss(opts, p->pid)) {
		ret = exm_read_kpss(b, d, p);
		if (ret && !exm_errno_gone(ret))
			ret = 0; /* figures stay unmeasured */
	}
	return ret;
}

static int pm_fill(struct exm_source *src, const struct exm_scan_opts *opts,
		   struct exm_builder *b)
{
	static const struct exm_walk walk = {
		.fn = pm_proc,
		.read_maps = true,
		.ctx_new = pm_ctx_new,
		.ctx_free = pm_ctx_free,
	};
	struct pm_priv *pp = src->priv;
	struct exm_scan_opts o = *opts;
	struct exm_sysinfo sys;
	int ret;

	if (src->arg && *src->arg) {
		o.proc_root = src->arg;
		o.include_self = true; /* our pid means nothing there */
	}
	exm_sysfacts_local(&sys, o.proc_root);
	snprintf(sys.source, sizeof(sys.source), "pagemap");
	sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE |
		   EXM_CAP_ALLPROCS | (opts->want_kpss ? EXM_CAP_KPSS : 0);
	snprintf(sys.limits, sizeof(sys.limits),
		 "writable is approximate: exclusive anonymous pages in "
		 "writable private mappings");
	ret = exm_build_begin(b, &sys);
	if (ret)
		return ret;
	pp->any_scan = pp->any_read = false;
	if (opts->pagemap_mode == 1 && pp->scan == SCAN_NO) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "this kernel has no PAGEMAP_SCAN ioctl (Linux 6.7+)");
		return -EOPNOTSUPP;
	}
	ret = exm_proc_walk(src, &o, b, &walk);
	if (!ret)
		ret = exm_swapcache_mapped(b->snap, o.proc_root);
	if (!ret)
		ret = exm_ksm_mark(b->snap, o.proc_root);
	/* auto on a kernel with the ioctl: big mappings asked about, small
	 * ones read at once (see DIRECT_PAGES). How the pages were read is
	 * known only now: the one fact set after begin. */
	if (opts->pagemap_mode == 0 && pp->scan == SCAN_YES)
		pp->any_scan = true;
	snprintf(b->snap->sys.source_detail,
		 sizeof(b->snap->sys.source_detail), "%s",
		 pp->any_scan && !pp->any_read ? "PAGEMAP_SCAN"
		 : pp->any_scan		       ? "PAGEMAP_SCAN+reads"
					       : "chunked reads");
	return ret;
}

const struct exm_source_ops exm_source_pagemap = {
	.name = "pagemap",
	.probe = exm_pagemap_has_pfns,
	.open = pm_open,
	.fill = pm_fill,
	.close = pm_close,
};
