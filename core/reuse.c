// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reuse.c - refreshes that re-read only what changed; see reuse.h.
 */
#include "core/reuse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/builder.h"
#include "core/pagemap.h"
#include "core/procfs.h"
#include "core/source.h"
#include "core/source_priv.h"

/* A kept mapping: its range, what the source said of it, its words. */
struct kmap {
	uint64_t start, end;
	bool hugetlb, counted;
	uint32_t kpage_size;
	uint64_t counted_rss, counted_swap;
	struct exm_run *runs;
	uint32_t nruns, npages;
	uint64_t *words;
};

/* A kept process, by pid. */
struct kent {
	pid_t pid;
	uint64_t start_time, key;
	bool takeable; /* measured whole (state ok, key known) */
	struct exm_kpss kpss;
	struct kmap *maps;
	size_t nmaps;
	double walked_at; /* CLOCK_MONOTONIC seconds */
	unsigned taken;	  /* the generation that last took it */
};

/* Counts by frame or swap entry (open addressing). */
struct delta {
	uint64_t *key; /* key + 1; 0: empty slot */
	int64_t *d;
	bool *cross; /* the count among the scanned went to or from 1 */
	size_t cap, n;
	size_t ncross; /* slots with cross set */
	/* with ncross: a bit per hash of each crossed key (a word whose bit
	 * is clear maps no crossed frame; see kent_moved) */
	uint64_t *filter;
};

#define FILTER_BITS 16

struct exm_reuse {
	double every, last_full;
	/* how many times the kept words map each frame or swap entry */
	struct delta cnt;
	bool check;
	struct kent *ents; /* ascending pid */
	size_t n;
	bool have; /* ents hold a walk */
	bool taking;
	bool last; /* the next snapshot is the last: keep nothing of it */
	unsigned gen;
	pid_t *forced; /* ascending: walk these even when unchanged */
	size_t nforced;
	uint64_t sig;
	bool have_sig;
	/* the counters' values, the last refresh's and this one's */
	uint64_t vals[2][64];
	unsigned sigi;
	struct exm_reuse_stats st;
	/* the source's keys see every change (the module): the system's
	 * counters need no full walk */
	bool exact;
};

/* FNV-1a, 64 bits. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

#define HASH0 EXM_HASH0

uint64_t exm_hash_bytes(uint64_t h, const void *p, size_t n)
{
	return hash_bytes(h, p, n);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct exm_reuse *exm_reuse_new(double full_every, bool check)
{
	struct exm_reuse *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->every = full_every;
	r->check = check;
	return r;
}

static void forget(struct exm_reuse *r);

static void kent_fini(struct kent *e)
{
	for (size_t i = 0; i < e->nmaps; i++) {
		free(e->maps[i].runs);
		free(e->maps[i].words);
	}
	free(e->maps);
	e->maps = NULL;
	e->nmaps = 0;
}

void exm_reuse_free(struct exm_reuse *r)
{
	if (!r)
		return;
	forget(r);
	free(r->ents);
	free(r->forced);
	free(r);
}

void exm_reuse_set_exact(struct exm_reuse *r)
{
	r->exact = true;
}

const struct exm_reuse_stats *exm_reuse_stats(const struct exm_reuse *r)
{
	return r ? &r->st : NULL;
}

static struct kent *find(const struct exm_reuse *r, pid_t pid)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ents[mid].pid == pid)
			return &r->ents[mid];
		if (r->ents[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool forced(const struct exm_reuse *r, pid_t pid)
{
	size_t lo = 0, hi = r->nforced;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->forced[mid] == pid)
			return true;
		if (r->forced[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * The main thread's run time (/proc/PID/schedstat's first field, ns) into
 * the key: it moves whenever the thread ran, also for a call shorter than
 * the clock tick stat's CPU times count in (a madvise(MADV_DONTNEED) by
 * the process itself moves no fault count).
 */
static uint64_t sched_key(struct exm_pdir *d, uint64_t key)
{
	char *buf;
	size_t len;
	int fd = exm_pdir_fd(d);

	if (fd < 0 || exm_read_file(fd, "schedstat", &buf, &len))
		return key;
	key = hash_bytes(key, buf, strcspn(buf, " \n"));
	free(buf);
	return key;
}

static int put_kept(struct exm_builder *b, struct exm_proc *p,
		    const struct kent *e)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		struct exm_mapping *m = &p->maps[i];
		const struct kmap *k = &e->maps[i];
		int ret;

		m->hugetlb = k->hugetlb;
		m->kpage_size = k->kpage_size;
		m->counted = k->counted;
		m->counted_rss = k->counted_rss;
		m->counted_swap = k->counted_swap;
		if (!k->npages)
			continue;
		ret = exm_build_reserve(b, m, k->npages);
		for (uint32_t j = 0; !ret && j < k->nruns; j++)
			ret = exm_build_pages(b, m, k->runs[j].vpn,
					      k->words + k->runs[j].idx,
					      k->runs[j].count);
		if (ret)
			return ret;
	}
	return 0;
}

int exm_reuse_take(struct exm_reuse *r, struct exm_builder *b,
		   struct exm_proc *p, struct exm_pdir *d,
		   const struct exm_scan_opts *opts)
{
	bool want_kpss = exm_want_kpss(opts, p->pid);
	bool rollup = want_kpss && opts->want_rollup;
	struct kent *e;
	int ret;

	if (!r)
		return 0;
	p->change_key = (d->exact ? d->key : sched_key(d, d->key)) | 1;
	if (!r->taking || !d->key)
		return 0;
	e = find(r, p->pid);
	if (!e || !e->takeable || e->start_time != p->start_time ||
	    e->key != p->change_key || e->nmaps != p->nmaps ||
	    forced(r, p->pid))
		return 0;
	for (size_t i = 0; i < p->nmaps; i++)
		if (e->maps[i].start != p->maps[i].start ||
		    e->maps[i].end != p->maps[i].end)
			return 0;
	ret = put_kept(b, p, e);
	if (ret) {
		for (size_t i = 0; i < p->nmaps; i++)
			exm_mapping_clear_pages(&p->maps[i]);
		return ret == -ENOMEM ? ret : 0;
	}
	e->taken = r->gen;
	if (rollup && !d->exact) {
		/* Pss_Dirty and SwapPss move with no counter: read again */
		ret = exm_read_kpss(b, d, p);
		if (exm_errno_gone(ret))
			return ret;
	} else if (want_kpss) {
		return 2; /* from the mapping counts, which move */
	}
	return 1;
}

/* ---- the kept words of a walked process ---- */

static int kmap_from(struct kmap *k, const struct exm_mapping *m,
		     uint64_t strip)
{
	*k = (struct kmap){ .start = m->start,
			    .end = m->end,
			    .hugetlb = m->hugetlb,
			    .counted = m->counted,
			    .kpage_size = m->kpage_size,
			    .counted_rss = m->counted_rss,
			    .counted_swap = m->counted_swap };
	if (!m->npages)
		return 0;
	k->runs = malloc(m->nruns * sizeof(*k->runs));
	k->words = malloc((size_t)m->npages * sizeof(*k->words));
	if (!k->runs || !k->words)
		return -ENOMEM;
	memcpy(k->runs, m->runs, m->nruns * sizeof(*k->runs));
	k->nruns = m->nruns;
	k->npages = m->npages;
	/* the KSM mark is set again on every snapshot (exm_ksm_mark), but
	 * by the module, which says it of each page walked (strip 0) */
	for (uint32_t j = 0; j < m->npages; j++)
		k->words[j] = exm_mapping_word(m, j) & ~strip;
	return 0;
}

static int kent_from(struct kent *e, const struct exm_proc *p, double now,
		     uint64_t strip)
{
	*e = (struct kent){ .pid = p->pid,
			    .start_time = p->start_time,
			    .key = p->change_key,
			    .kpss = p->kpss,
			    .walked_at = now,
			    .takeable = p->state == EXM_PROC_OK &&
					p->change_key };
	if (!p->nmaps)
		return 0;
	e->maps = calloc(p->nmaps, sizeof(*e->maps));
	if (!e->maps)
		return -ENOMEM;
	e->nmaps = p->nmaps;
	for (size_t i = 0; i < p->nmaps; i++)
		if (kmap_from(&e->maps[i], &p->maps[i], strip))
			return -ENOMEM;
	return 0;
}

/* ---- counts of mappings that moved, by frame or swap entry ---- */

static uint64_t slot_key(uint64_t w)
{
	return ((exm_pm_key(w) << 1) | exm_pm_swapped(w)) + 1;
}

static size_t slot_of(const struct delta *t, uint64_t k)
{
	size_t i = (size_t)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 20) &
		   (t->cap - 1);

	while (t->key[i] && t->key[i] != k)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static void delta_fini(struct delta *t)
{
	free(t->key);
	free(t->d);
	free(t->cross);
	free(t->filter);
	*t = (struct delta){ 0 };
}

static int delta_grow(struct delta *t)
{
	struct delta n = { .cap = t->cap ? t->cap * 2 : 4096 };

	n.key = calloc(n.cap, sizeof(*n.key));
	n.d = calloc(n.cap, sizeof(*n.d));
	n.cross = calloc(n.cap, sizeof(*n.cross));
	if (!n.key || !n.d || !n.cross) {
		delta_fini(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->key[i]) {
			size_t s = slot_of(&n, t->key[i]);

			n.key[s] = t->key[i];
			n.d[s] = t->d[i];
			n.cross[s] = t->cross[i];
		}
	n.n = t->n;
	delta_fini(t);
	*t = n;
	return 0;
}

static size_t filter_bit(uint64_t k)
{
	return (size_t)((k * UINT64_C(0xff51afd7ed558ccd)) >>
			(64 - FILTER_BITS));
}

/* Add t's moves to the counts c, marking in t those that went to or from
 * one mapping (pagemap's exclusive bit may have changed), and setting
 * their bits in t's filter. */
static int counts_apply(struct delta *c, struct delta *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		size_t s;
		int64_t old;

		if (!t->key[i] || !t->d[i])
			continue;
		if ((c->n + 1) * 2 > c->cap && delta_grow(c))
			return -ENOMEM;
		s = slot_of(c, t->key[i]);
		if (!c->key[s]) {
			c->key[s] = t->key[i];
			c->n++;
		}
		old = c->d[s];
		c->d[s] += t->d[i];
		/* a frame no process mapped before or maps now is mapped by
		 * no kept process: only the walked moved it */
		t->cross[i] = (old == 1) != (c->d[s] == 1) && old > 0 &&
			      c->d[s] > 0;
		if (!t->cross[i])
			continue;
		if (!t->filter) {
			t->filter = calloc((1u << FILTER_BITS) / 64,
					   sizeof(*t->filter));
			if (!t->filter)
				return -ENOMEM;
		}
		t->filter[filter_bit(t->key[i]) / 64] |=
			UINT64_C(1) << (filter_bit(t->key[i]) % 64);
		t->ncross++;
	}
	return 0;
}

static bool counts(uint64_t w)
{
	return exm_pm_used(w) && !(w & EXM_PM_ZERO);
}

static int delta_add(struct delta *t, uint64_t w, int64_t by)
{
	size_t s;

	if (!counts(w))
		return 0;
	if ((t->n + 1) * 2 > t->cap && delta_grow(t))
		return -ENOMEM;
	s = slot_of(t, slot_key(w));
	if (!t->key[s]) {
		t->key[s] = slot_key(w);
		t->n++;
	}
	t->d[s] += by;
	return 0;
}

/* Whether the count of w's frame went to or from one mapping (t's
 * crossings applied: counts_apply). */
static bool delta_moved(const struct delta *t, uint64_t w)
{
	uint64_t k;
	size_t s, f;

	if (!counts(w) || !t->ncross)
		return false;
	k = slot_key(w);
	f = filter_bit(k);
	if (!(t->filter[f / 64] & (UINT64_C(1) << (f % 64))))
		return false;
	s = slot_of(t, k);
	return t->key[s] && t->d[s] && t->cross[s];
}

static int delta_kmap(struct delta *t, const struct kmap *k, int64_t by)
{
	for (uint32_t j = 0; j < k->npages; j++)
		if (delta_add(t, k->words[j], by))
			return -ENOMEM;
	return 0;
}

static int delta_kent(struct delta *t, const struct kent *e, int64_t by)
{
	for (size_t i = 0; i < e->nmaps; i++)
		if (delta_kmap(t, &e->maps[i], by))
			return -ENOMEM;
	return 0;
}

static bool same_runs(const struct kmap *a, const struct kmap *b)
{
	return a->npages == b->npages && a->nruns == b->nruns &&
	       (!a->nruns ||
		!memcmp(a->runs, b->runs, a->nruns * sizeof(*a->runs)));
}

/*
 * The moves of a walked process from its old words a to its new b: by
 * difference where a mapping's range and runs stayed (a big process that
 * changed a few pages costs a comparison, not a count per page).
 */
static int delta_change(struct delta *t, const struct kent *a,
			const struct kent *b)
{
	size_t i = 0, j = 0;

	while (i < a->nmaps || j < b->nmaps) {
		const struct kmap *x = i < a->nmaps ? &a->maps[i] : NULL;
		const struct kmap *y = j < b->nmaps ? &b->maps[j] : NULL;

		if (x && y && x->start == y->start && x->end == y->end &&
		    same_runs(x, y)) {
			for (uint32_t k = 0; k < x->npages; k++)
				if (x->words[k] != y->words[k] &&
				    (delta_add(t, x->words[k], -1) ||
				     delta_add(t, y->words[k], 1)))
					return -ENOMEM;
			i++;
			j++;
			continue;
		}
		if (x && (!y || x->start <= y->start)) {
			if (delta_kmap(t, x, -1))
				return -ENOMEM;
			i++;
		} else {
			if (delta_kmap(t, y, 1))
				return -ENOMEM;
			j++;
		}
	}
	return 0;
}

static bool kent_moved(const struct delta *t, const struct kent *e)
{
	for (size_t i = 0; i < e->nmaps; i++)
		for (uint32_t j = 0; j < e->maps[i].npages; j++)
			if (delta_moved(t, e->maps[i].words[j]))
				return true;
	return false;
}

/* Forget every kept word: the next snapshot is a full walk. */
static void forget(struct exm_reuse *r)
{
	for (size_t i = 0; i < r->n; i++)
		kent_fini(&r->ents[i]);
	r->n = 0;
	r->have = false;
	delta_fini(&r->cnt);
}

/*
 * Keep snap's words: the processes taken stay, the walked ones replace
 * theirs, the vanished are forgotten. The kept processes mapping a frame
 * or swap entry whose count of mappings moved become r->forced. Counts
 * the walked into st.
 */
static int update(struct exm_reuse *r, const struct exm_snapshot *snap,
		  double now)
{
	struct kent *ents = calloc(snap->nprocs + 1, sizeof(*ents));
	struct delta t = { 0 };
	size_t o = 0, n = 0, nforced = 0;
	/* the KSM mark kept only where the source gives it of every page */
	uint64_t strip = r->exact ? 0 : EXM_PM_KSM;
	int ret = 0;

	if (!ents)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nprocs && !ret; i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (; o < r->n && r->ents[o].pid < p->pid; o++) {
			ret = delta_kent(&t, &r->ents[o], -1); /* gone */
			kent_fini(&r->ents[o]);
		}
		if (ret)
			break;
		if (o < r->n && r->ents[o].pid == p->pid) {
			struct kent *e = &r->ents[o++];

			if (e->taken == r->gen && r->taking) {
				ents[n++] = *e; /* kept: moved over */
				continue;
			}
			if (e->start_time == p->start_time) {
				ret = kent_from(&ents[n], p, now, strip);
				n++;
				if (!ret)
					ret = delta_change(&t, e, &ents[n - 1]);
				kent_fini(e);
				r->st.nwalked++;
				continue;
			}
			ret = delta_kent(&t, e, -1);
			kent_fini(e);
			if (ret)
				break;
		}
		ret = kent_from(&ents[n], p, now, strip);
		n++;
		if (!ret)
			ret = delta_kent(&t, &ents[n - 1], 1);
		r->st.nwalked++;
	}
	for (; o < r->n; o++) {
		if (!ret)
			ret = delta_kent(&t, &r->ents[o], -1);
		kent_fini(&r->ents[o]);
	}
	free(r->ents);
	r->ents = ents;
	r->n = n;
	r->nforced = 0;
	if (!ret)
		ret = counts_apply(&r->cnt, &t);
	if (ret) {
		delta_fini(&t);
		forget(r);
		return ret;
	}
	r->have = true;
	if (t.ncross) { /* else no kept process has a frame that crossed */
		pid_t *f = realloc(r->forced, (n + 1) * sizeof(*f));

		if (!f) {
			ret = -ENOMEM;
		} else {
			r->forced = f;
			for (size_t i = 0; i < n; i++)
				if (ents[i].taken == r->gen && r->taking &&
				    kent_moved(&t, &ents[i]))
					f[nforced++] = ents[i].pid;
			r->nforced = nforced;
		}
	}
	delta_fini(&t);
	return ret;
}

/* ---- the system's counters ---- */

/*
 * /proc/vmstat's events that move a page of a process whose own counters
 * do not move (README, "Live refreshes", says why each):
 */
static const char *const vm_events[] = {
	"pswpin",
	"pswpout", /* swap in and out */
	"pgsteal_kswapd",
	"pgsteal_direct", /* reclaim unmaps */
	"pgsteal_khugepaged",
	"pgsteal_proactive",
	"pgdemote_kswapd",
	"pgdemote_direct", /* tiering: migration */
	"pgdemote_khugepaged",
	"pgdemote_proactive",
	"pgmigrate_success",
	"numa_pages_migrated", /* migration */
	"thp_migration_success",
	"thp_collapse_alloc",
	"thp_split_page", /* THP collapse, split */
	"thp_split_pmd",
	"thp_deferred_split_page",
	"zswpin",
	"zswpout",	     /* swap to zswap */
	"pgpromote_success", /* tiering: migration */
	NULL,
};

/* KSM's counters, under /sys/kernel/mm/ksm: merging and unmerging. */
static const char *const ksm_files[] = {
	"pages_shared",	  "pages_sharing", "pages_unshared",
	"ksm_zero_pages", "full_scans",	   NULL,
};

static bool listed(const char *const *list, const char *s, size_t n)
{
	for (size_t i = 0; list[i]; i++)
		if (strlen(list[i]) == n && !memcmp(list[i], s, n))
			return true;
	return false;
}

/*
 * A hash of those counters; why names the first that moved against old
 * (when have_old).
 */
static uint64_t sys_sig(const char *root, const uint64_t *old, bool have_old,
			char *why, size_t whylen, uint64_t *vals, size_t nvals)
{
	char path[320], *buf;
	uint64_t h = HASH0;
	size_t len, k = 0;

	snprintf(path, sizeof(path), "%s/vmstat", root);
	if (!exm_read_file(AT_FDCWD, path, &buf, &len)) {
		for (char *s = buf; s < buf + len;) {
			char *nl = memchr(s, '\n', (size_t)(buf + len - s));
			char *sp = memchr(s, ' ', nl ? (size_t)(nl - s) : 0);

			if (sp && listed(vm_events, s, (size_t)(sp - s)) &&
			    k < nvals) {
				vals[k] = strtoull(sp + 1, NULL, 10);
				if (have_old && vals[k] != old[k] && !why[0])
					snprintf(why, whylen, "vmstat %.*s",
						 (int)(sp - s), s);
				h = hash_bytes(h, &vals[k], sizeof(vals[k]));
				k++;
			}
			if (!nl)
				break;
			s = nl + 1;
		}
		free(buf);
	}
	for (size_t i = 0; ksm_files[i] && k < nvals; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/ksm/%s",
			 ksm_files[i]);
		if (exm_read_file(AT_FDCWD, path, &buf, &len))
			continue;
		vals[k] = strtoull(buf, NULL, 10);
		free(buf);
		if (have_old && vals[k] != old[k] && !why[0])
			snprintf(why, whylen, "ksm %s", ksm_files[i]);
		h = hash_bytes(h, &vals[k], sizeof(vals[k]));
		k++;
	}
	return h;
}

#define NSIG_VALS (sizeof(((struct exm_reuse *)0)->vals[0]) / sizeof(uint64_t))

/* ---- the check: a full walk of the same moment ---- */

static bool same_kpss(const struct exm_kpss *a, const struct exm_kpss *b)
{
	return a->has == b->has && a->pss == b->pss &&
	       a->pss_anon == b->pss_anon && a->pss_file == b->pss_file &&
	       a->pss_shmem == b->pss_shmem && a->pss_dirty == b->pss_dirty &&
	       a->swap_pss == b->swap_pss && a->rss == b->rss;
}

/*
 * How many times each frame or swap entry is mapped in the two snapshots
 * compared: a word that differs only in pagemap's exclusive bit, on a
 * frame whose count moved between the two walks, was changed by another
 * process that was not quiescent (it mapped or dropped the page
 * meanwhile), not by a kept word gone stale.
 */
struct cmp {
	struct delta ca, cb;
};

static int count_snap(struct delta *t, const struct exm_snapshot *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		for (size_t j = 0; j < s->procs[i].nmaps; j++) {
			const struct exm_mapping *m = &s->procs[i].maps[j];

			for (uint32_t k = 0; k < m->npages; k++)
				if (delta_add(t, exm_mapping_word(m, k), 1))
					return -ENOMEM;
		}
	return 0;
}

static int64_t count_of(const struct delta *t, uint64_t w)
{
	size_t s;

	if (!t->cap)
		return 0;
	s = slot_of(t, slot_key(w));
	return t->key[s] ? t->d[s] : 0;
}

static bool same_word(const struct cmp *c, uint64_t x, uint64_t y)
{
	uint64_t d = (x ^ y) & ~EXM_PM_SOFT_DIRTY;

	if (!d)
		return true;
	if (d != EXM_PM_EXCLUSIVE)
		return false;
	/* the count moved between the walks, or the word not exclusive is
	 * the one mapping of its frame among the scanned: another process,
	 * not scanned (exmtop itself, one that came and went between the
	 * listing and the walk), mapped it then */
	return count_of(&c->ca, x) != count_of(&c->cb, y) ||
	       (!(x & EXM_PM_EXCLUSIVE) && count_of(&c->ca, x) == 1) ||
	       (!(y & EXM_PM_EXCLUSIVE) && count_of(&c->cb, y) == 1);
}

/* The first difference of two mappings' words, or -1. */
static int64_t map_diff(const struct exm_mapping *a,
			const struct exm_mapping *b, const struct cmp *c)
{
	uint32_t i = 0, j = 0;

	if (a->counted != b->counted || a->counted_rss != b->counted_rss ||
	    a->counted_swap != b->counted_swap || a->hugetlb != b->hugetlb ||
	    a->kpage_size != b->kpage_size || a->npages != b->npages)
		return (int64_t)(a->start / 4096);
	for (uint32_t ra = 0, rb = 0; ra < a->nruns && rb < b->nruns;
	     ra++, rb++) {
		if (a->runs[ra].vpn != b->runs[rb].vpn ||
		    a->runs[ra].count != b->runs[rb].count)
			return (int64_t)a->runs[ra].vpn;
		for (uint32_t k = 0; k < a->runs[ra].count; k++, i++, j++)
			if (!same_word(c, exm_mapping_word(a, i),
				       exm_mapping_word(b, j)))
				return (int64_t)(a->runs[ra].vpn + k);
	}
	return a->nruns == b->nruns ? -1 : (int64_t)(a->start / 4096);
}

/* m's word of virtual page vpn, or 0. */
static uint64_t word_at(const struct exm_mapping *m, int64_t vpn)
{
	for (uint32_t r = 0; r < m->nruns; r++)
		if ((uint64_t)vpn >= m->runs[r].vpn &&
		    (uint64_t)vpn < m->runs[r].vpn + m->runs[r].count)
			return exm_mapping_word(
				m, m->runs[r].idx +
					   (uint32_t)(vpn - m->runs[r].vpn));
	return 0;
}

/* What differs of two processes of the same pid into buf, or NULL. */
static const char *proc_diff(const struct exm_proc *p, const struct exm_proc *q,
			     const struct cmp *c, char *buf, size_t len)
{
	if (p->start_time != q->start_time || p->nmaps != q->nmaps ||
	    p->state != q->state)
		return "identity, mappings or state";
	for (size_t j = 0; j < p->nmaps; j++) {
		int64_t v = p->maps[j].start != q->maps[j].start ||
					    p->maps[j].end != q->maps[j].end
				    ? (int64_t)(p->maps[j].start / 4096)
				    : map_diff(&p->maps[j], &q->maps[j], c);

		if (v >= 0) {
			snprintf(buf, len,
				 "words of %llx-%llx at page %llx: "
				 "%llx, %llx",
				 (unsigned long long)p->maps[j].start,
				 (unsigned long long)p->maps[j].end,
				 (unsigned long long)v,
				 (unsigned long long)word_at(&p->maps[j], v),
				 (unsigned long long)word_at(&q->maps[j], v));
			return buf;
		}
	}
	if (!same_kpss(&p->kpss, &q->kpss))
		return "kernel figures";
	return NULL;
}

/*
 * Compare the processes both snapshots list: their page words and the
 * kernel's figures (every other figure is accounted from those). Those
 * one lists alone (started or ended between the two walks) are not
 * compared. diff: "pid N (what); ..." of those that differ, "" if none.
 */
static void compare(const struct exm_snapshot *a, const struct exm_snapshot *b,
		    char *diff, size_t len)
{
	struct cmp c = { 0 };
	size_t i = 0, j = 0, n = 0;

	diff[0] = '\0';
	if (count_snap(&c.ca, a) || count_snap(&c.cb, b)) {
		snprintf(diff, len, "out of memory");
		goto out;
	}
	while (i < a->nprocs && j < b->nprocs) {
		const struct exm_proc *p = &a->procs[i], *q = &b->procs[j];
		char buf[160];
		const char *what;

		if (p->pid < q->pid) {
			i++;
			continue;
		}
		if (q->pid < p->pid) {
			j++;
			continue;
		}
		what = proc_diff(p, q, &c, buf, sizeof(buf));
		if (what && n < len)
			n += (size_t)snprintf(diff + n, len - n,
					      "%spid %d (%s)", n ? "; " : "",
					      (int)p->pid, what);
		i++;
		j++;
	}
out:
	delta_fini(&c.ca);
	delta_fini(&c.cb);
}

/* ---- a refresh ---- */

void exm_reuse_last(struct exm_reuse *r)
{
	r->last = true;
}

int exm_reuse_phase(const struct exm_reuse *r)
{
	if (!r)
		return EXM_REUSE_NONE;
	if (r->taking)
		return EXM_REUSE_TAKE;
	return r->last ? EXM_REUSE_NONE : EXM_REUSE_FULL;
}

static void detail(struct exm_snapshot *snap, const struct exm_reuse_stats *st)
{
	char *d = snap->sys.source_detail;
	size_t n = strlen(d), len = sizeof(snap->sys.source_detail);

	if (n >= len)
		return;
	if (st->full)
		snprintf(d + n, len - n, "%sfull walk (%s)", n ? ", " : "",
			 st->why);
	else
		snprintf(d + n, len - n, "%swalked %zu of %zu, oldest %.0f s",
			 n ? ", " : "", st->nwalked, st->nprocs, st->oldest);
}

int exm_reuse_snapshot(struct exm_reuse *r, struct exm_source *src,
		       const struct exm_scan_opts *opts, exm_take_fn take,
		       struct exm_snapshot **out)
{
	const char *root = opts->proc_root ? opts->proc_root : "/proc";
	struct exm_snapshot *snap = NULL;
	double now = now_s(), oldest = now;
	uint64_t sig;
	bool full;
	int ret;

	memset(&r->st, 0, sizeof(r->st));
	r->sigi ^= 1;
	sig = sys_sig(root, r->vals[r->sigi ^ 1], r->have_sig, r->st.why,
		      sizeof(r->st.why), r->vals[r->sigi], NSIG_VALS);
	full = true;
	if (!r->have)
		snprintf(r->st.why, sizeof(r->st.why), "first");
	else if (opts->pids)
		snprintf(r->st.why, sizeof(r->st.why), "listed processes");
	else if (now - r->last_full >= r->every)
		snprintf(r->st.why, sizeof(r->st.why), "scheduled");
	else if (!r->exact && r->have_sig && sig != r->sig)
		; /* why says which */
	else
		full = false;
	if (!full)
		r->st.why[0] = '\0';
	r->sig = sig;
	r->have_sig = true;
	r->nforced = 0;
	/* a last full walk keeps nothing for a refresh that will not come:
	 * no copy of its words, no counts by frame (most of a one-shot's
	 * memory, and a pass over every page) */
	if (full && r->last)
		forget(r);
	for (unsigned pass = 0;; pass++) {
		r->taking = !full;
		r->gen++;
		r->st.passes++;
		ret = take(src, opts, &snap);
		if (ret || (full && r->last))
			break;
		ret = update(r, snap, now);
		if (ret || !r->nforced)
			break;
		exm_snapshot_free(snap);
		snap = NULL;
		/* it keeps moving, or most would be walked again: all */
		if (!full && (pass >= 1 || r->nforced * 2 > r->n)) {
			full = true;
			snprintf(r->st.why, sizeof(r->st.why), "sharers moved");
		}
	}
	r->taking = false;
	if (ret) {
		exm_snapshot_free(snap);
		forget(r);
		return ret;
	}
	if (full)
		r->last_full = now;
	for (size_t i = 0; i < r->n; i++)
		if (r->ents[i].walked_at < oldest)
			oldest = r->ents[i].walked_at;
	r->st.full = full;
	r->st.nprocs = snap->nprocs;
	r->st.oldest = now - oldest;
	if (r->check) {
		struct exm_snapshot *f = NULL;

		r->gen++;
		ret = take(src, opts, &f);
		if (ret) {
			exm_snapshot_free(snap);
			return ret;
		}
		compare(snap, f, r->st.diff, sizeof(r->st.diff));
		r->st.checked = true;
		sys_sig(root, r->vals[r->sigi], true, r->st.unsettled,
			sizeof(r->st.unsettled), r->vals[r->sigi ^ 1],
			NSIG_VALS);
		exm_snapshot_free(f);
	}
	detail(snap, &r->st);
	*out = snap;
	return 0;
}
