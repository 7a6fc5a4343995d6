// SPDX-License-Identifier: GPL-2.0-or-later
/* kpageflags.c - flags of the frames a snapshot has; see kpageflags.h. */
#include "core/kpageflags.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/pagemap.h"

/* Frames read with one pread at most (64 KiB of flags). */
#define KPF_SPAN 8192
/* Frames not wanted one read may span: the kernel spends about 90 ns on
 * a frame and 250 ns more on a read (6.18), so scattered frames are read
 * apart, not with every frame of the memory between them. */
#define KPF_GAP 2

int exm_kpageflags_read(const char *proc_root, const uint64_t *pfns, size_t n,
			uint64_t *flags)
{
	return exm_kpage_read(proc_root, "kpageflags", pfns, n, flags);
}

int exm_kpage_read(const char *proc_root, const char *name,
		   const uint64_t *pfns, size_t n, uint64_t *flags)
{
	char path[512];
	uint64_t *buf;
	int fd, ret = 0;

	if (!n)
		return 0;
	snprintf(path, sizeof(path), "%s/%s",
		 proc_root && *proc_root ? proc_root : "/proc", name);
	buf = malloc(KPF_SPAN * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (size_t i = 0, j; i < n && !ret; i = j) {
		uint64_t first = pfns[i], span;
		ssize_t got;

		/* the frames that fit in one read from pfns[i], none
		 * further than KPF_GAP frames from the one before */
		for (j = i + 1; j < n && pfns[j] - first < KPF_SPAN &&
				pfns[j] - pfns[j - 1] <= KPF_GAP + 1;
		     j++)
			;
		span = pfns[j - 1] - first + 1;
		got = pread(fd, buf, span * sizeof(*buf),
			    (off_t)(first * sizeof(*buf)));
		if (got < 0)
			ret = -errno;
		else if ((size_t)got < span * sizeof(*buf))
			ret = -EIO; /* a frame past the end of memory */
		for (size_t k = i; k < j && !ret; k++)
			flags[k] = buf[pfns[k] - first];
	}
	close(fd);
	free(buf);
	return ret;
}

void exm_sort_frames(uint64_t *v, uint64_t *tmp, size_t n)
{
	uint64_t any = 0, *src = v, *dst = tmp;

	for (size_t i = 0; i < n; i++)
		any |= v[i] ^ v[0]; /* the bits in which keys differ */
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t at[256] = { 0 }, sum = 0;

		if (!((any >> shift) & 0xff))
			continue; /* one byte value in all: already in order */
		for (size_t i = 0; i < n; i++)
			at[(src[i] >> shift) & 0xff]++;
		for (unsigned d = 0; d < 256; d++) {
			size_t c = at[d];

			at[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[at[(src[i] >> shift) & 0xff]++] = src[i];
		src = dst;
		dst = src == v ? tmp : v;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/*
 * Mappings whose frames exm_kpage_frames took, by their words' key: a mapping
 * with the same words (a fork's, the same shared memory) adds no frame,
 * so it is skipped, not listed again and sorted (100 forks of 32 MiB:
 * 800,000 frames to sort for 8,192). Only a help: without room, every
 * mapping is listed.
 */
#define TAKEN_MIN_PAGES 64 /* smaller ones are listed as they are */
#define TAKEN_TRIES 4	   /* whole comparisons at most, per mapping */

struct taken {
	uint64_t key; /* 0: an empty slot */
	const struct exm_mapping *m;
};

/* Whether m's frames are already taken (a twin in t); else it is added
 * to t when there is a slot. */
static bool taken_twin(struct taken *t, size_t cap, const struct exm_mapping *m)
{
	uint64_t key = exm_mapping_words_key(m) | 1;
	unsigned tries = 0;
	size_t i;

	if (!t || m->npages < TAKEN_MIN_PAGES)
		return false;
	for (i = key & (cap - 1); t[i].key; i = (i + 1) & (cap - 1))
		if (t[i].key == key && tries++ < TAKEN_TRIES &&
		    t[i].m->hugetlb == m->hugetlb &&
		    exm_mapping_same_words(t[i].m, m))
			return true;
	t[i] = (struct taken){ key, m };
	return false;
}

uint64_t *exm_kpage_frames(const struct exm_snapshot *snap,
			   bool (*keep)(const struct exm_proc *p,
					const struct exm_mapping *m, uint64_t w,
					const void *arg),
			   const void *arg, size_t *n)
{
	uint64_t *v = NULL, *tmp;
	size_t k = 0, cap = 0, nbig = 0, tcap = 64;
	struct taken *t;

	for (size_t i = 0; i < snap->nprocs; i++)
		for (size_t j = 0; j < snap->procs[i].nmaps; j++)
			nbig += snap->procs[i].maps[j].npages >=
				TAKEN_MIN_PAGES;
	while (tcap < 2 * nbig)
		tcap *= 2;
	t = calloc(tcap, sizeof(*t));
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; j < p->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j];

			if (taken_twin(t, tcap, m))
				continue;
			for (uint32_t q = 0; q < m->npages; q++) {
				uint64_t w = exm_mapping_word(m, q);

				if (!exm_pm_present(w) || !keep(p, m, w, arg))
					continue;
				if (k == cap) {
					uint64_t *nv;

					cap = cap ? 2 * cap : 4096;
					nv = realloc(v, cap * sizeof(*v));
					if (!nv) {
						free(v);
						free(t);
						return NULL;
					}
					v = nv;
				}
				v[k++] = exm_pm_key(w);
			}
		}
	}
	free(t);
	if (!v)
		v = malloc(sizeof(*v));
	tmp = malloc((k ? k : 1) * sizeof(*tmp));
	if (!v || !tmp) {
		free(v);
		free(tmp);
		return NULL;
	}
	exm_sort_frames(v, tmp, k);
	free(tmp);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!i || v[i] != v[i - 1])
			v[(*n)++] = v[i];
	return v;
}

/* Which frames frames_with lists. */
struct frames_of {
	const struct exm_snapshot *snap;
	/* only the frames not exclusively mapped (the zero page left out),
	 * but every frame of a process merging (by process index, or NULL) */
	bool shared;
	const bool *merging;
	bool ksm; /* none of a mapping whose KSM marks are known (kept) */
};

/* An anonymous frame frames_with lists (arg: its struct frames_of). */
static bool anon_frame(const struct exm_proc *p, const struct exm_mapping *m,
		       uint64_t w, const void *arg)
{
	const struct frames_of *f = arg;

	if ((w & EXM_PM_FILE) || (f->ksm && m->ksm_known))
		return false;
	if (!f->shared)
		return true;
	if (w & EXM_PM_ZERO)
		return false;
	return !(w & EXM_PM_EXCLUSIVE) ||
	       (f->merging && f->merging[p - f->snap->procs]);
}

/*
 * The anonymous frames of snap that f lists (see struct frames_of) with
 * bit of their flags set, ascending, into *out (caller frees; *n of them).
 * 0, -ENOMEM, or the -errno of reading kpageflags (*out NULL then).
 */
static int frames_with(const char *proc_root, const struct frames_of *f,
		       unsigned bit, uint64_t **out, size_t *n)
{
	uint64_t *pfns, *flags;
	size_t all = 0;
	int ret;

	*out = NULL;
	*n = 0;
	pfns = exm_kpage_frames(f->snap, anon_frame, f, &all);
	if (!pfns)
		return -ENOMEM;
	flags = malloc((all ? all : 1) * sizeof(*flags));
	ret = flags ? exm_kpageflags_read(proc_root, pfns, all, flags)
		    : -ENOMEM;
	/* in place: still ascending */
	for (size_t i = 0; !ret && i < all; i++)
		if ((flags[i] >> bit) & 1)
			pfns[(*n)++] = pfns[i];
	free(flags);
	if (ret) {
		free(pfns);
		*n = 0;
		return ret;
	}
	*out = pfns;
	return 0;
}

int exm_swapcache_mapped(struct exm_snapshot *snap, const char *proc_root)
{
	static const char key[] = EXM_MI_SWAPCACHE_MAPPED;
	uint64_t cached = 0, *pfns;
	size_t in = 0;
	int ret;

	if (!(snap->sys.caps & EXM_CAP_PFN) ||
	    !exm_meminfo_get(&snap->sys.meminfo, "SwapCached", &cached) ||
	    !cached)
		return 0;
	/* pages counted without their frames (exm_mapping.counted) may be
	 * in the swap cache: the row stays unknown */
	for (size_t i = 0; i < snap->nprocs; i++)
		for (size_t j = 0; j < snap->procs[i].nmaps; j++)
			if (snap->procs[i].maps[j].counted &&
			    snap->procs[i].maps[j].counted_rss)
				return 0;
	ret = frames_with(proc_root, &(struct frames_of){ .snap = snap },
			  EXM_KPF_SWAPCACHE, &pfns, &in);
	free(pfns);
	if (ret == -ENOMEM)
		return ret;
	if (ret) /* not readable here: the row stays unknown */
		return 0;
	/* a full table or a row already there: nothing to add */
	exm_meminfo_add(&snap->sys.meminfo, key, sizeof(key) - 1,
			(uint64_t)in * snap->sys.page_size / 1024, true);
	return 0;
}

/* Whether /sys says KSM shares pages now: 1, 0 (none, or no KSM), -1. */
int exm_ksm_sharing(void)
{
	FILE *f = fopen("/sys/kernel/mm/ksm/pages_shared", "re");
	unsigned long long n = 0;
	int r;

	if (!f)
		return errno == ENOENT ? 0 : -1;
	r = fscanf(f, "%llu", &n) == 1 ? n > 0 : -1;
	fclose(f);
	return r;
}

bool exm_ksm_merging(const char *proc_root, pid_t pid)
{
	char path[320];
	FILE *f;
	unsigned long long n = 0;
	bool r;

	snprintf(path, sizeof(path), "%s/%d/ksm_merging_pages",
		 proc_root && *proc_root ? proc_root : "/proc", (int)pid);
	f = fopen(path, "re");
	if (!f) /* gone (nothing of it is shown), else not known */
		return errno != ENOENT && errno != ESRCH;
	r = fscanf(f, "%llu", &n) != 1 || n > 0;
	fclose(f);
	return r;
}

/*
 * Whether this kernel's /proc/kpageflags tells KSM pages apart: some
 * (Debian's 6.12.95) test the folio's mapping against the KSM bits with
 * `&`, and the anonymous bit is one of them, so every anonymous page reads
 * as KSM. Asked of a page of our own that is written and never merged:
 * 1 it says no (the flag can be trusted), 0 it says KSM, -1 unknown. The
 * kernel's answer does not change while it runs: asked once a process
 * (an unknown answer is asked again).
 */
static int ksm_flag_probe(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	volatile unsigned char *page;
	uint64_t w = 0, flags = 0;
	int ret = -1, fd;

	page = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -1;
	page[0] = 1; /* an anonymous page of its own */
	if (!exm_self_pagemap_word(page, &w) || !exm_pm_present(w) ||
	    !exm_pm_key(w))
		w = 0;
	fd = w ? open("/proc/kpageflags", O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		if (pread(fd, &flags, sizeof(flags),
			  (off_t)(exm_pm_key(w) * 8)) == (ssize_t)sizeof(flags))
			ret = (flags & ((uint64_t)1 << EXM_KPF_KSM)) ? 0 : 1;
		close(fd);
	}
	munmap((void *)page, (size_t)ps);
	return ret;
}

static int ksm_flag_trusted(void)
{
	static _Atomic int known = -1;
	int r = known;

	if (r < 0) {
		r = ksm_flag_probe();
		known = r;
	}
	return r;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Rewrite m's words with EXM_PM_KSM on the frames of ksm (sorted). */
static int mark_mapping(struct exm_mapping *m, const uint64_t *ksm, size_t nksm)
{
	struct exm_run *runs;
	uint64_t *w;
	uint32_t nruns = m->nruns;
	bool any = false;
	int ret = 0;

	for (uint32_t k = 0; k < m->npages && !any; k++) {
		uint64_t x = exm_mapping_word(m, k);

		any = exm_pm_present(x) && !(x & EXM_PM_FILE) &&
		      in_sorted(ksm, nksm, exm_pm_key(x));
	}
	if (!any)
		return 0;
	runs = malloc(nruns * sizeof(*runs));
	w = malloc(m->npages * sizeof(*w));
	if (!runs || !w) {
		free(runs);
		free(w);
		return -ENOMEM;
	}
	memcpy(runs, m->runs, nruns * sizeof(*runs));
	for (uint32_t k = 0; k < m->npages; k++) {
		w[k] = exm_mapping_word(m, k);
		if (exm_pm_present(w[k]) && !(w[k] & EXM_PM_FILE) &&
		    in_sorted(ksm, nksm, exm_pm_key(w[k])))
			w[k] |= EXM_PM_KSM;
	}
	exm_mapping_clear_pages(m);
	for (uint32_t r = 0; r < nruns && !ret; r++)
		ret = exm_mapping_add_pages(m, runs[r].vpn, w + runs[r].idx,
					    runs[r].count);
	free(runs);
	free(w);
	return ret;
}

/*
 * The word arrays of the page store found holding no KSM frame: mappings
 * with the same words share one (exm_mapping_share_words), looked at once.
 * Open addressing by address, room for every such array of snap; NULL
 * when there are none or no memory (then every mapping is looked at).
 */
static const void **clean_new(const struct exm_snapshot *snap, size_t *cap)
{
	size_t n = 0;

	for (size_t i = 0; i < snap->nprocs; i++)
		for (size_t j = 0; j < snap->procs[i].nmaps; j++)
			n += snap->procs[i].maps[j].pages_borrowed;
	for (*cap = 16; *cap < 2 * n; *cap *= 2)
		;
	return n ? calloc(*cap, sizeof(const void *)) : NULL;
}

/* Whether a is in the set; put it there when add. */
static bool clean_has(const void **set, size_t cap, const void *a, bool add)
{
	size_t i = (size_t)(((uintptr_t)a >> 4) *
				    UINT64_C(0x9e3779b97f4a7c15) >>
			    20) &
		   (cap - 1);

	for (; set[i]; i = (i + 1) & (cap - 1))
		if (set[i] == a)
			return true;
	if (add)
		set[i] = a;
	return false;
}

/* Whether a mapping of p has words whose KSM marks are not known. */
static bool proc_unmarked(const struct exm_proc *p)
{
	for (size_t j = 0; j < p->nmaps; j++)
		if (p->maps[j].npages && !p->maps[j].ksm_known)
			return true;
	return false;
}

int exm_ksm_mark(struct exm_snapshot *snap, const char *proc_root, int sharing)
{
	uint64_t *pfns;
	const void **clean;
	size_t nksm = 0, cap = 0;
	int ret;
	struct frames_of f = { .snap = snap, .shared = true, .ksm = true };
	bool *merging = NULL;

	if (proc_root && *proc_root && strcmp(proc_root, "/proc"))
		return 0; /* not this machine's pages */
	if (sharing < 0)
		return 0;
	if (sharing && ksm_flag_trusted() != 1)
		return 0; /* this kernel cannot tell: KSM stays unmeasured */
	if (!sharing) {
		snap->sys.caps |= EXM_CAP_KSM;
		return 0;
	}
	/* a KSM page a process maps alone (its other sharers gone) says
	 * mapped once: every frame of a process KSM merged pages of is
	 * looked at, those of the others only when mapped more than once */
	merging = calloc(snap->nprocs ? snap->nprocs : 1, sizeof(*merging));
	if (!merging)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nprocs; i++)
		merging[i] = proc_unmarked(&snap->procs[i]) &&
			     exm_ksm_merging(proc_root, snap->procs[i].pid);
	f.merging = merging;
	ret = frames_with(proc_root, &f, EXM_KPF_KSM, &pfns, &nksm);
	free(merging);
	if (ret)
		return ret == -ENOMEM ? ret : 0; /* unreadable: not known */
	clean = nksm ? clean_new(snap, &cap) : NULL;
	for (size_t i = 0; i < snap->nprocs && !ret && nksm; i++) {
		struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; j < p->nmaps && !ret; j++) {
			struct exm_mapping *m = &p->maps[j];
			const void *was = m->pages32;
			bool store = clean && m->pages_borrowed && was;

			if (m->ksm_known ||
			    (store && clean_has(clean, cap, was, false)))
				continue;
			ret = mark_mapping(m, pfns, nksm);
			/* unchanged: none of its frames is a KSM page */
			if (store && !ret && m->pages32 == was)
				clean_has(clean, cap, was, true);
		}
	}
	free(clean);
	free(pfns);
	if (!ret)
		snap->sys.caps |= EXM_CAP_KSM;
	return ret;
}
