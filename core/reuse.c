// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reuse.c - refreshes that re-read only what changed; see reuse.h.
 */
#include "core/reuse.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/account.h"
#include "core/builder.h"
#include "core/hugemem.h"
#include "core/kconfig.h"
#include "core/pagecount.h"
#include "core/pagemap.h"
#include "core/parallel.h"
#include "core/procfs.h"
#include "core/source.h"
#include "core/source_priv.h"

/*
 * Kept words, one array for every kept mapping with the same words (the
 * walk stored them once: a fork's copy-on-write memory, shared memory):
 * kept once, and put into a snapshot once by each builder, the others
 * taking that copy (exm_mapping_share_words).
 */
struct kwords {
	unsigned refs; /* kmaps holding it (changed by update() only) */
	/* the first put into a snapshot of generation put_gen: its packed
	 * words there (under exm_reuse.put_lock), which the others share
	 * whatever builder puts them (a worker's store joins the snapshot's,
	 * exm_builder_join, before anything reads it) */
	unsigned put_gen;
	uint32_t *put_words;
	/* the words: packed in 32 bits as the snapshot had them (pagemap.h;
	 * half the memory), else 64 */
	uint64_t w[];
};

/* A kept mapping: its range, what the source said of it, its words. */
struct kmap {
	uint64_t start, end;
	bool hugetlb, counted;
	uint32_t kpage_size;
	uint64_t counted_rss, counted_swap;
	struct exm_run *runs;
	uint32_t nruns, npages;
	/* kw->w: packed (w32), or not (w64) */
	const uint64_t *w64;
	const uint32_t *w32;
	struct kwords *kw;
};

/* k's word j. */
static inline uint64_t kword(const struct kmap *k, uint32_t j)
{
	return k->w32 ? exm_pm_unpack(k->w32[j]) : k->w64[j];
}

/* Whether two kept mappings hold the same words (false when one is
 * packed and the other not: they may still, but none is said to). */
static bool kmap_same_words(const struct kmap *x, const struct kmap *y)
{
	if (x->npages != y->npages || !x->w32 != !y->w32)
		return false;
	if (!x->npages || x->kw == y->kw)
		return true;
	return x->w32 ? !memcmp(x->w32, y->w32,
				(size_t)x->npages * sizeof(*x->w32))
		      : !memcmp(x->w64, y->w64,
				(size_t)x->npages * sizeof(*x->w64));
}

/* A process of the snapshot whose share tables are held (struct held). */
struct held_proc {
	pid_t pid;
	uint64_t start_time;
	int state;
};

/*
 * The share tables (pfn, swap, hugetlb) of the last snapshot accounted
 * here, held while no update() found a word moved (its delta touched no
 * frame or swap entry): a snapshot of the same processes, in the same
 * order, then counts the very same words, so it takes them as they are
 * (tables_give) where counting every word again cost a quiet refresh
 * about a sixth of its CPU.
 */
struct held {
	struct exm_pagecount *pc[3];
	struct held_proc *procs;
	size_t n;
	uint64_t caps;
};

/* What moves the mapping counts of pages a denied process maps: its
 * statm's resident and shared sizes (pages; UINT64_MAX: not read). */
struct dstatm {
	uint64_t resident, shared;
};

/* A kept process, by pid. */
struct kent {
	pid_t pid;
	uint64_t start_time, key;
	bool takeable; /* measured whole (state ok, key known) */
	struct exm_kpss kpss;
	struct kmap *maps;
	size_t nmaps;
	double walked_at;  /* CLOCK_MONOTONIC seconds */
	unsigned walk_gen; /* the generation that walked it */
	unsigned taken;	   /* the generation that last took it */
	/* kpss, had from mapping counts, holds while no count of a frame
	 * it maps moves (see kpss_trust) */
	bool kpss_ok;
	unsigned kpss_gen; /* the generation that took kpss as it was */
	unsigned read_gen; /* the generation whose walk read its counts */
	/* with sz_ok, its mappings' sizes as last accounted (by mapping
	 * number): each holds while the process is kept and no count of a
	 * frame or swap entry that mapping maps moved (update makes its has
	 * 0 when one did) */
	struct exm_sizes *sz;
	bool sz_ok;
	/* its command line as last read, or NULL: a kept process of one
	 * thread did not run since, so cannot have changed it (take) */
	char *cmdline;
	/* of one thread: its maps' text, stat's key and run time as its last
	 * walk read them (exm_reuse_maps), or NULL */
	char *maps_text;
	size_t maps_len;
	uint64_t stat_key, sched;
	uid_t uid; /* of /proc/PID when walked */
};

/* A walked process's maps' text, until update() gives it to its entry. */
struct ktext {
	pid_t pid;
	uint64_t start_time, stat_key, sched;
	char *text;
	size_t len;
};

/* Counts by frame or swap entry (open addressing). */
struct delta {
	uint64_t *key; /* key + 1; 0: empty slot */
	int64_t *d;
	bool *cross; /* the count among the scanned went to or from 1 */
	size_t cap, n;
	/* keys whose count moved and that some kept process maps (see
	 * kept_moves), and of those, the crossed ones */
	size_t nmoved, ncross;
	/* with nmoved: a bit per hash of each such key (a word whose bit is
	 * clear maps none of them; see kent_moved) */
	uint64_t *filter;
	bool *kept; /* the slot's key is one of those */
};

#define FILTER_BITS 16
#define BORN_MAX 64 /* pids given during a walk looked at, at most */

struct exm_reuse {
	double every, last_full;
	/*
	 * How many times the kept words map each frame or swap entry: with
	 * cnt_ok, that of base (the share tables, pfn, swap and hugetlb, of
	 * the last snapshot accounted whose words ents hold; NULL: none, 0)
	 * plus that of cnt (the moves since). A full walk counts nothing
	 * here: its snapshot's own tables, once accounted, become the base
	 * (rebase); without them, cnt is counted whole from the kept words
	 * when a refresh next needs it (cnt_rebuild).
	 */
	struct exm_pagecount *base[3];
	struct delta cnt;
	bool cnt_ok;
	bool check;
	struct kent *ents; /* ascending pid */
	size_t n;
	bool have; /* ents hold a walk */
	bool taking;
	bool last; /* the next snapshot is the last: keep nothing of it */
	unsigned gen;
	pid_t *forced; /* ascending: walk these even when unchanged */
	size_t nforced;
	/* ascending: kept processes whose kernel Pss is had again from
	 * their words' mapping counts (a count moved) */
	pid_t *kforced;
	size_t nkforced;
	/* a kept process's kernel Pss may be taken as kept (kpss_trust) */
	bool kpss_keep;
	uint64_t mover; /* mover_key()'s first key after the last walk */
	pid_t *denied;	/* ascending: the last walk's processes denied */
	size_t ndenied;
	/* their statm (struct dstatm), read after the last walk (dpost) and
	 * before this one (dpre) */
	struct dstatm *dpost, *dpre;
	/* processes started during the walk of generation born_gen, after
	 * its listing: the kernel Pss read then is read again unless the
	 * next walk lists them all (born_seen) */
	pid_t born[BORN_MAX];
	size_t nborn;
	unsigned born_gen;
	/* no kernel Pss is kept: the kernel may average the mapcounts of a
	 * large folio's pages (one page mapped moves its neighbours'
	 * counts), or, with the module (exact, no case left to the
	 * scheduled walk), exmtop runs in a pid namespace of its own and
	 * processes it cannot list may map its processes' pages */
	bool blind_known, blind;
	bool have_mover;
	uint64_t sig;
	bool have_sig;
	/* the counters' values, the last refresh's and this one's */
	uint64_t vals[2][64];
	unsigned sigi;
	struct exm_reuse_stats st;
	/* the source's keys see every change (the module): the system's
	 * counters need no full walk */
	bool exact;
	pthread_mutex_t put_lock; /* struct kwords' put_* and texts */
	struct ktext *texts;	  /* this walk's, any order (under put_lock) */
	size_t ntexts, cap_texts;
	struct held held;
	/* the snapshots being taken are accounted here, after update()
	 * (exm_reuse_defers), with the sizes kept; the capabilities of the
	 * snapshot those sizes were accounted in */
	bool defer;
	unsigned sz_caps;
	/* with check: the first kept size that differs from the words' */
	char sz_diff[160];
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
	pthread_mutex_init(&r->put_lock, NULL);
	return r;
}

static void forget(struct exm_reuse *r);

/* Let go of the held share tables. */
static void tables_drop(struct exm_reuse *r)
{
	for (size_t k = 0; k < 3; k++) {
		exm_pagecount_free(r->held.pc[k]);
		r->held.pc[k] = NULL;
	}
	r->held.n = 0;
}

static void kent_fini(struct kent *e)
{
	for (size_t i = 0; i < e->nmaps; i++) {
		struct kwords *kw = e->maps[i].kw;

		free(e->maps[i].runs);
		if (kw && !--kw->refs)
			free(kw);
	}
	free(e->maps);
	free(e->sz);
	free(e->cmdline);
	free(e->maps_text);
	e->maps = NULL;
	e->sz = NULL;
	e->cmdline = NULL;
	e->maps_text = NULL;
	e->nmaps = 0;
	e->sz_ok = false;
}

static void texts_drop(struct exm_reuse *r)
{
	for (size_t i = 0; i < r->ntexts; i++)
		free(r->texts[i].text);
	r->ntexts = 0;
}

void exm_reuse_free(struct exm_reuse *r)
{
	if (!r)
		return;
	forget(r);
	texts_drop(r);
	free(r->texts);
	free(r->held.procs);
	free(r->ents);
	free(r->forced);
	free(r->kforced);
	free(r->denied);
	free(r->dpost);
	free(r->dpre);
	pthread_mutex_destroy(&r->put_lock);
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

static bool in_pids(const pid_t *v, size_t n, pid_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == pid)
			return true;
		if (v[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool forced(const struct exm_reuse *r, pid_t pid)
{
	return in_pids(r->forced, r->nforced, pid);
}

/*
 * The main thread's run time (/proc/PID/schedstat's first field, ns) into
 * the key: it moves whenever the thread ran, also for a call shorter than
 * the clock tick stat's CPU times count in (a madvise(MADV_DONTNEED) by
 * the process itself moves no fault count).
 */
#define SCHED_NONE 1 /* no schedstat (CONFIG_SCHED_INFO off) */

static uint64_t sched_of(struct exm_pdir *d)
{
	char *buf;
	size_t len;

	if (d->sched)
		return d->sched;
	if (exm_pdir_read(d, "schedstat", &buf, &len))
		return d->sched = SCHED_NONE;
	d->sched = hash_bytes(HASH0, buf, strcspn(buf, " \n")) | 1;
	free(buf);
	return d->sched;
}

static uint64_t sched_key(struct exm_pdir *d, uint64_t key)
{
	uint64_t s = sched_of(d);

	return hash_bytes(key, &s, sizeof(s));
}

void exm_reuse_maps(struct exm_reuse *r, pid_t pid, uint64_t start_time,
		    struct exm_pdir *d)
{
	const struct kent *e;

	if (!r || !d->one_thread || d->exact || !d->key ||
	    (r->last && !r->taking))
		return;
	if (sched_of(d) == SCHED_NONE)
		return; /* stat's ticks miss a short run */
	d->keep_maps = true;
	if (!r->taking)
		return;
	e = find(r, pid);
	if (!e || !e->takeable || !e->maps_text ||
	    e->start_time != start_time || e->stat_key != d->key ||
	    e->sched != d->sched || forced(r, pid))
		return;
	d->maps_in = e->maps_text;
	d->maps_in_len = e->maps_len;
	d->uid = e->uid;
	d->keep_maps = false;
}

/* A walked process's maps' text for its entry (update: kent_text). */
static int text_note(struct exm_reuse *r, const struct exm_proc *p,
		     struct exm_pdir *d)
{
	int ret = 0;

	pthread_mutex_lock(&r->put_lock);
	if (r->ntexts == r->cap_texts) {
		size_t n = r->cap_texts ? 2 * r->cap_texts : 64;
		struct ktext *t = realloc(r->texts, n * sizeof(*t));

		if (t) {
			r->texts = t;
			r->cap_texts = n;
		}
	}
	if (r->ntexts < r->cap_texts) {
		r->texts[r->ntexts++] = (struct ktext){
			.pid = p->pid,
			.start_time = p->start_time,
			.stat_key = d->stat_key,
			.sched = d->sched,
			.text = d->maps,
			.len = d->maps_len
		};
		d->maps = NULL;
	} else {
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&r->put_lock);
	return ret;
}

/*
 * The packed words another kept mapping with k's words put in the snapshot
 * in this take (NULL: none yet); with put, m's words are those: the next
 * ones share them.
 */
static uint32_t *put_once(struct exm_reuse *r, const struct kmap *k,
			  const struct exm_mapping *put)
{
	struct kwords *kw = k->kw;
	uint32_t *w = NULL;

	if (kw->refs < 2)
		return NULL; /* no twin */
	pthread_mutex_lock(&r->put_lock);
	if (kw->put_gen == r->gen) {
		w = kw->put_words;
	} else if (put && put->pages32 && put->pages_borrowed && !put->pages &&
		   put->npages == k->npages) {
		kw->put_gen = r->gen;
		kw->put_words = put->pages32;
	}
	pthread_mutex_unlock(&r->put_lock);
	return w;
}

static int put_kept(struct exm_reuse *r, struct exm_builder *b,
		    struct exm_proc *p, const struct kent *e)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		struct exm_mapping *m = &p->maps[i];
		const struct kmap *k = &e->maps[i];
		uint32_t *w;
		int ret;

		if (k->hugetlb)
			exm_mapping_set_hugetlb(m, k->kpage_size);
		m->counted = k->counted;
		m->counted_rss = k->counted_rss;
		m->counted_swap = k->counted_swap;
		if (!k->npages)
			continue;
		w = put_once(r, k, NULL);
		if (w) { /* its twin's copy, not one more */
			ret = exm_mapping_store_runs(b->snap, m, k->runs,
						     k->nruns);
			if (ret)
				return ret;
			m->npages = k->npages;
			exm_mapping_share_words(b->snap, m,
						&(struct exm_mapping){
							.pages32 = w });
			continue;
		}
		ret = exm_build_reserve(b, m, k->npages);
		if (!ret && k->w32) { /* packed as the walk stored them */
			ret = exm_mapping_store_runs(b->snap, m, k->runs,
						     k->nruns);
			if (ret)
				return ret;
			memcpy(m->pages32, k->w32,
			       (size_t)k->npages * sizeof(*k->w32));
			m->npages = k->npages;
		}
		for (uint32_t j = 0; !ret && !k->w32 && j < k->nruns; j++)
			ret = exm_build_pages(b, m, k->runs[j].vpn,
					      k->w64 + k->runs[j].idx,
					      k->runs[j].count);
		if (ret)
			return ret;
		put_once(r, k, m);
	}
	return 0;
}

/* Whether kept process e (pid) keeps its kernel Pss as it was: no count
 * of its frames moved since it was had. */
static bool kpss_holds(const struct exm_reuse *r, const struct kent *e,
		       pid_t pid)
{
	return r->kpss_keep && e->kpss_ok &&
	       !in_pids(r->kforced, r->nkforced, pid);
}

bool exm_reuse_kpss_kept(const struct exm_reuse *r, pid_t pid)
{
	const struct kent *e;

	if (!r || !r->taking)
		return false;
	e = find(r, pid);
	return e && kpss_holds(r, e, pid);
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
	/* a last full walk keeps nothing: no run time needed for its key
	 * (a last incremental one compares its keys with those kept) */
	p->change_key = (d->exact || (r->last && !r->taking)
				 ? d->key
				 : sched_key(d, d->key)) |
			1;
	if (d->maps && !d->exact && text_note(r, p, d))
		return -ENOMEM;
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
	ret = put_kept(r, b, p, e);
	if (ret) {
		for (size_t i = 0; i < p->nmaps; i++)
			exm_mapping_clear_pages(&p->maps[i]);
		return ret == -ENOMEM ? ret : 0;
	}
	for (size_t i = 0; i < p->nmaps; i++)
		p->maps[i].ksm_known = true;
	e->taken = r->gen;
	/* one thread that did not run (exm_reuse_maps said so: its maps
	 * text taken) wrote nothing, its command line (setproctitle)
	 * neither: not read again */
	if (opts->want_cmdline && e->cmdline && d->maps_in && !p->cmdline) {
		p->cmdline = strdup(e->cmdline);
		if (!p->cmdline)
			return -ENOMEM;
	}
	if (rollup && !d->exact) {
		/* Pss_Dirty and SwapPss move with no counter: read again */
		ret = exm_read_kpss(b, d, p);
		if (exm_errno_gone(ret))
			return ret;
	} else if (want_kpss) {
		if (!kpss_holds(r, e, p->pid))
			return 2; /* from the mapping counts, which moved */
		exm_build_kpss(b, p, &e->kpss);
		e->kpss_gen = r->gen;
	}
	return 1;
}

/* ---- the kept words of a walked process ---- */

/*
 * The kept words of update()'s walked mappings, by the address of the
 * walk's array: mappings the walk stored once (exm_mapping_share_words)
 * keep one array. Open addressing; NULL table: nothing shared.
 */
struct kw_seen {
	const void *from;
	struct kwords *kw;
};

struct kw_set {
	struct kw_seen *v;
	size_t cap;
};

static struct kw_seen *kw_slot(const struct kw_set *set, const void *from)
{
	size_t i = (size_t)(((uintptr_t)from >> 4) *
				    UINT64_C(0x9e3779b97f4a7c15) >>
			    20) &
		   (set->cap - 1);

	while (set->v[i].from && set->v[i].from != from)
		i = (i + 1) & (set->cap - 1);
	return &set->v[i];
}

static int kmap_from(struct kmap *k, const struct exm_mapping *m,
		     struct kw_set *set)
{
	struct kw_seen *seen = NULL;

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
	if (!k->runs)
		return -ENOMEM;
	memcpy(k->runs, m->runs, m->nruns * sizeof(*k->runs));
	k->nruns = m->nruns;
	k->npages = m->npages;
	if (set->v && m->pages_borrowed && m->pages32) {
		seen = kw_slot(set, m->pages32);
		if (seen->from && seen->kw->refs < UINT32_MAX) {
			k->kw = seen->kw;
			k->kw->refs++;
			k->w32 = (const uint32_t *)(void *)k->kw->w;
			return 0;
		}
	}
	if (m->pages32) {
		size_t bytes = (size_t)m->npages * sizeof(*m->pages32);
		uint32_t *w;

		k->kw = malloc(sizeof(*k->kw) + bytes);
		if (!k->kw)
			return -ENOMEM;
		*k->kw = (struct kwords){ .refs = 1 };
		w = (uint32_t *)(void *)k->kw->w;
		memcpy(w, m->pages32, bytes);
		k->w32 = w;
		if (seen && !seen->from)
			*seen = (struct kw_seen){ .from = m->pages32,
						  .kw = k->kw };
		return 0;
	}
	k->kw = malloc(sizeof(*k->kw) + (size_t)m->npages * sizeof(uint64_t));
	if (!k->kw)
		return -ENOMEM;
	*k->kw = (struct kwords){ .refs = 1 };
	k->w64 = k->kw->w;
	/* the KSM mark is kept with the words: a frame a kept process still
	 * maps becomes or stops being a KSM page only by a merge or an unmerge,
	 * which move KSM's counters (sys_sig: a full walk), so the mark
	 * exm_ksm_mark read is still right while they keep the words */
	for (uint32_t j = 0; j < m->npages; j++)
		k->kw->w[j] = exm_mapping_word(m, j);
	if (seen && !seen->from)
		*seen = (struct kw_seen){ .from = m->pages32, .kw = k->kw };
	return 0;
}

/* The kernel's Pss as had from mapping counts (pagemap source), which a
 * kept process may keep while no count of its frames moves. */
static bool kpss_keepable(const struct exm_kpss *k)
{
	return k->has == (EXM_KPSS_PSS | EXM_KPSS_PSS_ANON | EXM_KPSS_PSS_FILE |
			  EXM_KPSS_PSS_SHMEM | EXM_KPSS_RSS);
}

static int text_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ktext *)a)->pid;
	pid_t y = ((const struct ktext *)b)->pid;

	return (x > y) - (x < y);
}

/* e, p's entry, takes the maps' text p's walk read (texts sorted) */
static void kent_text(struct exm_reuse *r, struct kent *e,
		      const struct exm_proc *p)
{
	struct ktext key = { .pid = p->pid };
	struct ktext *t = r->ntexts ? bsearch(&key, r->texts, r->ntexts,
					      sizeof(key), text_cmp)
				    : NULL;

	if (!t || t->start_time != p->start_time || !t->text)
		return;
	free(e->maps_text);
	e->maps_text = t->text;
	e->maps_len = t->len;
	e->stat_key = t->stat_key;
	e->sched = t->sched;
	e->uid = p->uid;
	t->text = NULL;
}

/* A kept process's command line, read again (more than one thread) */
static int kent_cmdline(struct kent *e, const struct exm_proc *p)
{
	if (!p->cmdline || !*p->cmdline ||
	    (e->cmdline && !strcmp(e->cmdline, p->cmdline)))
		return 0;
	free(e->cmdline);
	e->cmdline = strdup(p->cmdline);
	return e->cmdline ? 0 : -ENOMEM;
}

static int kent_from(struct exm_reuse *r, struct kent *e,
		     const struct exm_proc *p, double now, struct kw_set *set)
{
	*e = (struct kent){ .pid = p->pid,
			    .start_time = p->start_time,
			    .key = p->change_key,
			    .kpss = p->kpss,
			    .kpss_ok = kpss_keepable(&p->kpss),
			    .walked_at = now,
			    .takeable = p->state == EXM_PROC_OK &&
					p->change_key,
			    .uid = p->uid };
	kent_text(r, e, p);
	if (p->cmdline && *p->cmdline) {
		e->cmdline = strdup(p->cmdline);
		if (!e->cmdline)
			return -ENOMEM;
	}
	if (!p->nmaps)
		return 0;
	e->maps = calloc(p->nmaps, sizeof(*e->maps));
	if (!e->maps)
		return -ENOMEM;
	e->nmaps = p->nmaps;
	for (size_t i = 0; i < p->nmaps; i++)
		if (kmap_from(&e->maps[i], &p->maps[i], set))
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
	free(t->kept);
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

/* Let go of the base of the counts (r->cnt is then all of them, or
 * stale: see cnt_ok). */
static void base_drop(struct exm_reuse *r)
{
	for (size_t k = 0; k < 3; k++) {
		exm_pagecount_free(r->base[k]);
		r->base[k] = NULL;
	}
}

/*
 * How many times the base's words map slot key k (slot_key). The share
 * tables count exactly the words counts() selects: a present page that is
 * not the zero page by frame (in the hugetlb table for a hugetlb
 * mapping's: its frames are no other mapping's, so a frame's count is the
 * sum of both), a swapped one by swap entry, KSM pages by frame as any;
 * a denied process has no words in either.
 */
static int64_t base_count(const struct exm_reuse *r, uint64_t k)
{
	uint64_t key = (k - 1) >> 1;

	if (!r->base[0])
		return 0;
	if ((k - 1) & 1)
		return exm_pagecount_get(r->base[1], key, NULL);
	return (int64_t)exm_pagecount_get(r->base[0], key, NULL) +
	       exm_pagecount_get(r->base[2], key, NULL);
}

/* Add t's moves to r's counts, marking in t those that went to or from
 * one mapping (pagemap's exclusive bit may have changed). */
static int counts_apply(struct exm_reuse *r, struct delta *t)
{
	struct delta *c = &r->cnt;

	for (size_t i = 0; i < t->cap; i++) {
		size_t s;
		int64_t old, now;

		if (!t->key[i] || !t->d[i])
			continue;
		if ((c->n + 1) * 2 > c->cap && delta_grow(c))
			return -ENOMEM;
		s = slot_of(c, t->key[i]);
		if (!c->key[s]) {
			c->key[s] = t->key[i];
			c->n++;
		}
		old = base_count(r, t->key[i]) + c->d[s];
		c->d[s] += t->d[i];
		now = old + t->d[i];
		/* a frame no process mapped before or maps now is mapped by
		 * no kept process: only the walked moved it */
		t->cross[i] = (old == 1) != (now == 1) && old > 0 && now > 0;
	}
	return 0;
}

static bool counts(uint64_t w)
{
	return exm_pm_used(w) && !(w & EXM_PM_ZERO);
}

/* How many times t counts w's frame or swap entry (0: not at all). */
static int64_t count_of(const struct delta *t, uint64_t w)
{
	size_t s;

	if (!t->cap)
		return 0;
	s = slot_of(t, slot_key(w));
	return t->key[s] ? t->d[s] : 0;
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

/* Whether w's frame is one of t's moved keys that kept processes map
 * (kept_moves): 2 when its count went to or from one mapping, 1 when it
 * moved otherwise, else 0. */
static int delta_moved(const struct delta *t, uint64_t w)
{
	uint64_t k;
	size_t s, f;

	if (!counts(w) || !t->nmoved)
		return 0;
	k = slot_key(w);
	f = filter_bit(k);
	if (!(t->filter[f / 64] & (UINT64_C(1) << (f % 64))))
		return 0;
	s = slot_of(t, k);
	if (!t->key[s] || !t->kept[s])
		return 0;
	return t->cross[s] ? 2 : 1;
}

static int delta_kmap(struct delta *t, const struct kmap *k, int64_t by)
{
	for (uint32_t j = 0; j < k->npages; j++)
		if (delta_add(t, kword(k, j), by))
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
			for (uint32_t k = 0; k < x->npages; k++) {
				uint64_t xw = kword(x, k), yw = kword(y, k);

				if (xw != yw && (delta_add(t, xw, -1) ||
						 delta_add(t, yw, 1)))
					return -ENOMEM;
			}
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

/*
 * What kept mappings' words said of t's moves, by a key of sampled words:
 * a fork's copy-on-write memory, shared memory and libraries are the same
 * words in many processes, looked at once (equal words, compared whole,
 * say the same).
 */
#define MEMO_SLOTS 1024

struct memo {
	uint64_t key;
	const struct kmap *k; /* NULL: an empty slot */
	int m;
};

static uint64_t kmap_key(const struct kmap *k)
{
	uint64_t h = k->npages;

	for (uint32_t i = 0; i < 16 && k->npages; i++) {
		h = (h ^ kword(k, (uint32_t)((uint64_t)k->npages * i / 16))) *
		    UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	return h;
}

/* The most k's words say of t's moves (delta_moved): 2 as soon as one
 * crossed, else 1 when one moved, else 0. */
static int kmap_moved(const struct delta *t, const struct kmap *k,
		      struct memo *memo)
{
	uint64_t key = kmap_key(k);
	struct memo *s = &memo[key % MEMO_SLOTS];
	int most = 0;

	if (s->k && s->key == key && kmap_same_words(s->k, k))
		return s->m;
	for (uint32_t j = 0; j < k->npages && most < 2; j++) {
		int m = delta_moved(t, kword(k, j));

		if (m > most)
			most = m;
	}
	*s = (struct memo){ .key = key, .k = k, .m = most };
	return most;
}

/* The most e's mappings say (kmap_moved); a mapping whose words say one
 * moved has its kept sizes summed again (has 0). */
static int kent_moved(const struct delta *t, struct kent *e, struct memo *memo)
{
	int most = 0;

	for (size_t i = 0; i < e->nmaps && most < 2; i++) {
		int m = e->maps[i].npages ? kmap_moved(t, &e->maps[i], memo)
					  : 0;

		if (m && e->sz_ok)
			e->sz[i].has = 0;
		if (m > most)
			most = m;
	}
	return most;
}

static bool is_kept(const struct exm_reuse *r, const struct kent *e)
{
	return r->taking && e->taken == r->gen;
}

/*
 * Of t's moves (applied to r->cnt), the keys some kept process maps: their
 * count among all scanned now is more than the walked processes' new words
 * map them. Only those can move a kept process's words (crossed) or its
 * kernel Pss; the others are the walked processes' own. Sets t->kept,
 * nmoved, ncross (crossed ones only among those) and the filter.
 */
static int kept_moves(const struct exm_reuse *r, struct delta *t,
		      const struct kent *ents, size_t n)
{
	uint32_t *w;

	t->ncross = t->nmoved = 0;
	if (!t->n || !r->taking)
		return 0; /* nothing moved, or nothing kept */
	w = calloc(t->cap, sizeof(*w));
	t->kept = calloc(t->cap, sizeof(*t->kept));
	t->filter = calloc((1u << FILTER_BITS) / 64, sizeof(*t->filter));
	if (!w || !t->kept || !t->filter) {
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (is_kept(r, &ents[i]))
			continue;
		for (size_t j = 0; j < ents[i].nmaps; j++) {
			const struct kmap *k = &ents[i].maps[j];

			for (uint32_t x = 0; x < k->npages; x++) {
				size_t s;

				uint64_t kw = kword(k, x);

				if (!counts(kw))
					continue;
				s = slot_of(t, slot_key(kw));
				if (t->key[s] && t->d[s])
					w[s]++;
			}
		}
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t s, f;

		if (!t->key[i] || !t->d[i])
			continue;
		s = slot_of(&r->cnt, t->key[i]);
		if (!r->cnt.key[s] ||
		    base_count(r, t->key[i]) + r->cnt.d[s] <= (int64_t)w[i])
			continue; /* the walked map it alone, or none */
		t->kept[i] = true;
		t->nmoved++;
		t->ncross += t->cross[i];
		f = filter_bit(t->key[i]);
		t->filter[f / 64] |= UINT64_C(1) << (f % 64);
	}
	free(w);
	return 0;
}

/* Whether e keeps a mapping whose pages were counted rather than
 * stored (exm_mapping.counted): each mapped once when it was walked. */
static bool kent_counted(const struct kent *e)
{
	for (size_t i = 0; i < e->nmaps; i++)
		if (e->maps[i].counted && e->maps[i].counted_rss)
			return true;
	return false;
}

/*
 * Whether a walked process maps an anonymous page the kernel said is
 * mapped more than once (pagemap's exclusive bit clear) that no other
 * word kept or walked maps: its other mapper is a process not scanned, or
 * a kept one whose pages were counted, each mapped once when it was
 * walked. A fork shares those with no counter of the parent moving when a
 * thread other than its first forks, and the child is a new process:
 * its words are the first sign. Looked for only while a kept process has
 * counted pages (update walks those again).
 */
static bool counted_exposed(const struct exm_reuse *r, const struct kent *ents,
			    size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n && !any; i++)
		any = is_kept(r, &ents[i]) && kent_counted(&ents[i]);
	for (size_t i = 0; any && i < n; i++) {
		if (is_kept(r, &ents[i]))
			continue;
		for (size_t j = 0; j < ents[i].nmaps; j++) {
			const struct kmap *k = &ents[i].maps[j];

			for (uint32_t x = 0; !k->hugetlb && x < k->npages;
			     x++) {
				uint64_t w = kword(k, x);
				int64_t now; /* its count among all scanned */

				if (!exm_pm_present(w) ||
				    (w & (EXM_PM_FILE | EXM_PM_EXCLUSIVE |
					  EXM_PM_ZERO)))
					continue;
				now = base_count(r, slot_key(w)) +
				      count_of(&r->cnt, w);
				if (now == 1)
					return true;
			}
		}
	}
	return false;
}

/* Forget every kept word: the next snapshot is a full walk. */
static void forget(struct exm_reuse *r)
{
	tables_drop(r);
	base_drop(r);
	r->cnt_ok = false;
	for (size_t i = 0; i < r->n; i++)
		kent_fini(&r->ents[i]);
	r->n = 0;
	r->have = false;
	delta_fini(&r->cnt);
}

/* Count r's kept words whole into r->cnt, with no base (the last
 * accounted snapshot's tables were not had). */
static int cnt_rebuild(struct exm_reuse *r)
{
	base_drop(r);
	delta_fini(&r->cnt);
	for (size_t i = 0; i < r->n; i++)
		if (delta_kent(&r->cnt, &r->ents[i], 1))
			return -ENOMEM;
	r->cnt_ok = true;
	return 0;
}

/* Whether e holds words (that a count may have). */
static bool kent_words(const struct kent *e)
{
	for (size_t i = 0; i < e->nmaps; i++)
		if (e->maps[i].npages)
			return true;
	return false;
}

/* Whether a and b hold the same words, mapping for mapping. */
static bool kent_same(const struct kent *a, const struct kent *b)
{
	if (a->nmaps != b->nmaps)
		return false;
	for (size_t i = 0; i < a->nmaps; i++) {
		const struct kmap *x = &a->maps[i], *y = &b->maps[i];

		if (x->start != y->start || x->end != y->end ||
		    !same_runs(x, y))
			return false;
		if (!kmap_same_words(x, y))
			return false;
	}
	return true;
}

/*
 * The moves of the walked process b (a: its old words, or NULL when it
 * is new; b NULL: a is gone) into t when counting; else (a full walk,
 * which counts nothing: see struct exm_reuse's base) whether a word
 * moved, into *moved.
 */
static int kent_moves(struct delta *t, bool counting, const struct kent *a,
		      const struct kent *b, bool *moved)
{
	if (!counting) {
		if (a && b)
			*moved |= !kent_same(a, b);
		else
			*moved |= kent_words(a ? a : b);
		return 0;
	}
	if (a && b)
		return delta_change(t, a, b);
	return a ? delta_kent(t, a, -1) : delta_kent(t, b, 1);
}

/*
 * Keep snap's words: the processes taken stay, the walked ones replace
 * theirs, the vanished are forgotten. The kept processes mapping a frame
 * or swap entry whose count of mappings moved become r->forced, and
 * those holding counted pages when a walked process shares a page with
 * an unseen mapper (counted_exposed). The walked are marked with this
 * pass's generation (walk_gen).
 */
static int update(struct exm_reuse *r, const struct exm_snapshot *snap,
		  double now)
{
	struct kent *ents = calloc(snap->nprocs + 1, sizeof(*ents));
	struct delta t = { 0 };
	size_t o = 0, n = 0, nforced = 0;
	/* the KSM mark kept only where the source gives it of every page */
	struct kw_set set = { 0 };
	size_t nshared = 0;
	/* only a refresh that takes kept processes needs the counts (its
	 * moves, kept_moves): a full walk's become its own tables' */
	bool counting = r->taking, moved = false, exposed;
	int ret = 0;

	if (!ents)
		return -ENOMEM;
	if (counting && !r->cnt_ok && cnt_rebuild(r)) {
		free(ents);
		forget(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < snap->nprocs; i++)
		for (size_t j = 0; j < snap->procs[i].nmaps; j++)
			nshared += snap->procs[i].maps[j].pages_borrowed;
	if (nshared) { /* else (or no memory) nothing shared: merely more */
		for (set.cap = 16; set.cap < 2 * nshared; set.cap *= 2)
			;
		set.v = calloc(set.cap, sizeof(*set.v));
	}
	if (r->ntexts)
		qsort(r->texts, r->ntexts, sizeof(*r->texts), text_cmp);
	for (size_t i = 0; i < snap->nprocs && !ret; i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (; o < r->n && r->ents[o].pid < p->pid; o++) {
			if (!ret) /* gone */
				ret = kent_moves(&t, counting, &r->ents[o],
						 NULL, &moved);
			kent_fini(&r->ents[o]);
		}
		if (ret)
			break;
		if (o < r->n && r->ents[o].pid == p->pid) {
			struct kent *e = &r->ents[o++];

			if (is_kept(r, e)) {
				ret = kent_cmdline(e, p);
				kent_text(r, e, p);
				ents[n] = *e; /* kept: moved over */
				ents[n].kpss = p->kpss;
				ents[n++].kpss_ok = kpss_keepable(&p->kpss);
				continue;
			}
			if (e->start_time == p->start_time) {
				ret = kent_from(r, &ents[n], p, now, &set);
				ents[n++].walk_gen = r->gen;
				if (!ret)
					ret = kent_moves(&t, counting, e,
							 &ents[n - 1], &moved);
				kent_fini(e);
				continue;
			}
			ret = kent_moves(&t, counting, e, NULL, &moved);
			kent_fini(e);
			if (ret)
				break;
		}
		ret = kent_from(r, &ents[n], p, now, &set);
		ents[n++].walk_gen = r->gen;
		if (!ret)
			ret = kent_moves(&t, counting, NULL, &ents[n - 1],
					 &moved);
	}
	for (; o < r->n; o++) {
		if (!ret)
			ret = kent_moves(&t, counting, &r->ents[o], NULL,
					 &moved);
		kent_fini(&r->ents[o]);
	}
	free(set.v);
	texts_drop(r);
	free(r->ents);
	r->ents = ents;
	r->n = n;
	if (ret || t.n ||
	    moved) /* a word moved: the held tables count the old */
		tables_drop(r);
	r->nforced = r->nkforced = 0;
	if (!counting) { /* rebased once snap is accounted */
		base_drop(r);
		delta_fini(&r->cnt);
		r->cnt_ok = false;
	}
	if (!ret && counting)
		ret = counts_apply(r, &t);
	if (!ret)
		ret = kept_moves(r, &t, ents, n);
	if (ret) {
		delta_fini(&t);
		forget(r);
		return ret;
	}
	r->have = true;
	exposed = !ret && counting && counted_exposed(r, ents, n);
	/* else no kept process maps a frame that moved, nor may have counted
	 * a page a walked process shares */
	if (t.nmoved || exposed) {
		pid_t *f = realloc(r->forced, (n + 1) * sizeof(*f));
		pid_t *kf = f ? realloc(r->kforced, (n + 1) * sizeof(*kf))
			      : NULL;
		struct memo *memo = kf ? calloc(MEMO_SLOTS, sizeof(*memo))
				       : NULL;
		size_t nk = 0;

		if (f)
			r->forced = f;
		if (kf)
			r->kforced = kf;
		if (!memo) {
			ret = -ENOMEM;
		} else {
			for (size_t i = 0; i < n; i++) {
				/* its kernel Pss kept as it was */
				bool kpss = ents[i].kpss_gen == r->gen;
				int m;

				if (!is_kept(r, &ents[i]))
					continue;
				if (exposed && kent_counted(&ents[i])) {
					f[nforced++] = ents[i].pid;
					continue;
				}
				if (!kpss && !t.ncross && !ents[i].sz_ok)
					continue;
				m = kent_moved(&t, &ents[i], memo);
				if (m == 2)
					f[nforced++] = ents[i].pid;
				else if (m == 1 && kpss)
					kf[nk++] = ents[i].pid;
			}
			r->nforced = nforced;
			r->nkforced = nk;
		}
		free(memo);
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
 * (when have_old). KSM's are this machine's: read only when root is its
 * /proc, not for another root (a test's made-up /proc, whose processes
 * KSM never saw: this machine's ksmd would move them at random).
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
	if (strcmp(root, "/proc"))
		return h;
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

/*
 * What moves a frame's mapping count with no scanned process's words
 * moving, read around each walk (kpss_trust), into key:
 *   [0] exmtop itself (never scanned): its file and shared memory pages
 *       resident (self/status RssFile, RssShmem) and its file
 *       mappings; with with_denied, the processes we may not look into
 *       (the last walk's), their statm (the check's; the kernel Pss
 *       kept reads them apart: denied_read);
 *   [1] the last pid given (loadavg's last field): a process started
 *       during a walk may map pages while counts are read and be gone
 *       before the next listing (between walks, one still there is
 *       walked as new, and its words move the counts).
 */
static void mover_key(const struct exm_reuse *r, const char *root,
		      bool with_denied, uint64_t key[2])
{
	static const char *const rss[] = { "RssFile:", "RssShmem:", NULL };
	char path[320], *buf;
	size_t len;
	uint64_t h = HASH0;

	snprintf(path, sizeof(path), "%s/self/status", root);
	if (!exm_read_file(AT_FDCWD, path, &buf, &len)) {
		for (size_t i = 0; rss[i]; i++) {
			const char *l = strstr(buf, rss[i]);

			if (l)
				h = hash_bytes(h, l, strcspn(l, "\n"));
		}
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/self/maps", root);
	if (!exm_read_file(AT_FDCWD, path, &buf, &len)) {
		/* the file mappings: anonymous ones come and go with malloc,
		 * and their pages are exmtop's alone */
		for (char *l = buf; l < buf + len;) {
			char *nl = memchr(l, '\n', (size_t)(buf + len - l));
			size_t n = nl ? (size_t)(nl - l)
				      : (size_t)(buf + len - l);

			if (memchr(l, '/', n))
				h = hash_bytes(h, l, n);
			l += n + 1;
		}
		free(buf);
	}
	/* the processes we may not look into: what anyone may read of
	 * them, their resident and shared sizes (statm) */
	for (size_t i = 0; with_denied && i < r->ndenied; i++) {
		snprintf(path, sizeof(path), "%s/%d/statm", root,
			 (int)r->denied[i]);
		if (!exm_read_file(AT_FDCWD, path, &buf, &len)) {
			h = hash_bytes(h, buf, len);
			free(buf);
		}
		h = hash_bytes(h, &r->denied[i], sizeof(r->denied[i]));
	}
	key[0] = h;
	key[1] = 0;
	snprintf(path, sizeof(path), "%s/loadavg", root);
	if (!exm_read_file(AT_FDCWD, path, &buf, &len)) {
		const char *l = strrchr(buf, ' ');

		if (l)
			key[1] = strtoull(l + 1, NULL, 10);
		free(buf);
	}
}

/*
 * Before the first walk of a session that will refresh: map every page of
 * exmtop's own files now (its program and libraries; its own copies of
 * their writable private pages). Code run for the first time during that
 * walk would map more of them, and exmtop is not scanned: the mapping
 * counts of frames the scanned processes share with it would move unseen,
 * and the next refresh would read every kernel Pss again (mover_key's
 * first key: seen as exmtop's RssFile growing by 112 kB in its first
 * walk). A few MiB of file pages, most of them in the page cache already.
 * Best effort (MADV_POPULATE_*: Linux 5.14). Device files and shared
 * mappings are left alone.
 */
static void self_populate(void)
{
	char *buf;
	size_t len;

	if (exm_read_file(AT_FDCWD, "/proc/self/maps", &buf, &len))
		return;
	for (char *l = buf; l < buf + len;) {
		char *nl = memchr(l, '\n', (size_t)(buf + len - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(buf + len - l);
		struct exm_mapping m = { 0 };

		if (!exm_parse_maps_line(l, n, &m) && m.kind == EXM_KIND_FILE &&
		    m.inode && (m.perms & EXM_PERM_R) &&
		    !(m.perms & EXM_PERM_S))
			exm_populate_as((void *)(uintptr_t)m.start,
					(size_t)(m.end - m.start),
					m.perms & EXM_PERM_W);
		free(m.name);
		l += n + 1;
	}
	free(buf);
}

/* Room for nd denied processes in r->denied, dpre and dpost. */
static bool denied_room(struct exm_reuse *r, size_t nd)
{
	pid_t *d = realloc(r->denied, (nd + 1) * sizeof(*d));
	struct dstatm *a, *b;

	if (d)
		r->denied = d;
	a = realloc(r->dpost, (nd + 1) * sizeof(*a));
	if (a)
		r->dpost = a;
	b = realloc(r->dpre, (nd + 1) * sizeof(*b));
	if (b)
		r->dpre = b;
	return d && a && b;
}

/*
 * Before the first walk of a session that will refresh: the processes
 * whose pages we may not look into (their pagemap refused: what the walk
 * finds denied), ascending, so that their statm before that walk is
 * known (dpre). Else kpss_trust, finding them new after the walk, could
 * not tell whether they mapped or dropped pages during it, and the next
 * refresh would read every kernel Pss again. One open of each pagemap.
 */
static void denied_probe(struct exm_reuse *r, const char *root)
{
	char path[320];
	pid_t self = getpid(), *pids;
	size_t n, cap = 0;

	r->ndenied = 0;
	if (exm_list_pids(root, &pids, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		int fd;

		if (pids[i] == self)
			continue;
		snprintf(path, sizeof(path), "%s/%d/pagemap", root,
			 (int)pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno != EACCES && errno != EPERM)
			continue;
		if (r->ndenied == cap) {
			cap = cap ? cap * 2 : 8;
			if (!denied_room(r, cap)) {
				r->ndenied = 0;
				break;
			}
		}
		r->denied[r->ndenied++] = pids[i]; /* ascending, as listed */
	}
	free(pids);
}

/* The statm of each of r->denied into out (r->ndenied of them). */
static void denied_read(const struct exm_reuse *r, const char *root,
			struct dstatm *out)
{
	char path[320];

	for (size_t i = 0; i < r->ndenied; i++) {
		struct exm_statm st;

		out[i].resident = out[i].shared = UINT64_MAX;
		snprintf(path, sizeof(path), "%s/%d/statm", root,
			 (int)r->denied[i]);
		if (!exm_read_statm(AT_FDCWD, path, &st)) {
			out[i].resident = st.resident;
			out[i].shared = st.shared;
		}
	}
}

/* What of the pages denied processes map may have moved between two
 * readings of their statm (DMOVE_*). Their virtual size (a reservation
 * made or dropped) maps no page: nothing. */
enum { DMOVE_ANON = 1, DMOVE_FILE = 2 };

static unsigned denied_moved(const struct exm_reuse *r, const struct dstatm *a,
			     const struct dstatm *b)
{
	unsigned m = 0;

	for (size_t i = 0; i < r->ndenied; i++) {
		if (a[i].resident == UINT64_MAX ||
		    b[i].resident == UINT64_MAX) {
			/* gone, or unreadable: anything */
			if (a[i].resident != b[i].resident)
				m |= DMOVE_ANON | DMOVE_FILE;
			continue;
		}
		/* statm's shared is RssFile + RssShmem, the rest RssAnon */
		if (a[i].shared != b[i].shared)
			m |= DMOVE_FILE;
		if (a[i].resident - a[i].shared != b[i].resident - b[i].shared)
			m |= DMOVE_ANON;
	}
	return m;
}

/*
 * Whether the kernel Pss of kept process e may have moved with a move of
 * a denied process's pages (DMOVE_*). The pages it maps whose mapping
 * count a process we may not look into can move: with a file page or a
 * shared memory page mapped or dropped there (its shared size moved), any
 * file page (anyone may map it); with an anonymous page mapped or dropped
 * there (the rest of its resident size), an anonymous page the kernel
 * says more than one process maps (a page of a fork, copy on write): one
 * mapped once (pagemap's exclusive bit) only a fork could share, and a
 * process started is walked as new. Hugetlb and zero pages are in no Pss.
 */
static bool kent_exposed(const struct kent *e, unsigned moved)
{
	for (size_t i = 0; i < e->nmaps; i++) {
		const struct kmap *k = &e->maps[i];

		if (k->hugetlb)
			continue;
		for (uint32_t j = 0; j < k->npages; j++) {
			uint64_t w = kword(k, j);

			if (!exm_pm_present(w) || (w & EXM_PM_ZERO))
				continue;
			if (w & EXM_PM_FILE) {
				if (moved & DMOVE_FILE)
					return true;
			} else if ((moved & DMOVE_ANON) &&
				   !(w & EXM_PM_EXCLUSIVE)) {
				return true;
			}
		}
	}
	return false;
}

/* The kept kernel Pss that a move of denied processes' pages may have
 * moved: read again (from the counts, without a walk). */
static void denied_unkeep(struct exm_reuse *r, unsigned moved)
{
	if (!moved)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->ents[i].kpss_ok && kent_exposed(&r->ents[i], moved))
			r->ents[i].kpss_ok = false;
}

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
			     const struct cmp *c, char *buf, size_t len,
			     bool *kernel)
{
	*kernel = false;
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
	if (!same_kpss(&p->kpss, &q->kpss)) {
		*kernel = true;
		snprintf(buf, len,
			 "kernel figures: has %x %x, pss %llu %llu, anon "
			 "%llu %llu, file %llu %llu, shmem %llu %llu, rss "
			 "%llu %llu",
			 p->kpss.has, q->kpss.has,
			 (unsigned long long)p->kpss.pss,
			 (unsigned long long)q->kpss.pss,
			 (unsigned long long)p->kpss.pss_anon,
			 (unsigned long long)q->kpss.pss_anon,
			 (unsigned long long)p->kpss.pss_file,
			 (unsigned long long)q->kpss.pss_file,
			 (unsigned long long)p->kpss.pss_shmem,
			 (unsigned long long)q->kpss.pss_shmem,
			 (unsigned long long)p->kpss.rss,
			 (unsigned long long)q->kpss.rss);
		return buf;
	}
	return NULL;
}

/*
 * Whether a page p maps in a shared (not exclusive) was mapped a different
 * number of times among the processes each snapshot scanned: a scanned
 * process that is not quiescent (exmtop's caller, a shell, a daemon)
 * mapped or dropped it between the two walks' reads of its mapping
 * count. p's words are those of both snapshots (they compared equal).
 */
static bool sharer_moved(const struct exm_proc *p, const struct cmp *c)
{
	for (size_t j = 0; j < p->nmaps; j++) {
		const struct exm_mapping *m = &p->maps[j];

		for (uint32_t k = 0; k < m->npages; k++) {
			uint64_t w = exm_mapping_word(m, k);

			if (counts(w) && exm_pm_resident(w) &&
			    !(w & EXM_PM_EXCLUSIVE) &&
			    count_of(&c->ca, w) != count_of(&c->cb, w))
				return true;
		}
	}
	return false;
}

/* Append "pid N (why what)" to s (n used of len); the new n. */
static size_t say_pid(char *s, size_t n, size_t len, pid_t pid, const char *why,
		      const char *what)
{
	if (n < len)
		n += (size_t)snprintf(s + n, len - n, "%spid %d (%s%s)",
				      n ? "; " : "", (int)pid, why, what);
	return n;
}

/*
 * Compare the processes both snapshots list: their page words and the
 * kernel's figures (every other figure is accounted from those). Those
 * one lists alone (started or ended between the two walks) are not
 * compared. diff: "pid N (what); ..." of those that differ, "" if none.
 *
 * The kernel's Pss and its split come from the mapping counts of the
 * frames a process maps, which every process of the machine moves, not
 * only the quiescent ones a test compares. A kernel figure that differs
 * while the words are equal is said as "kernel figures moved" (the
 * comparison says nothing of that process: a test takes the next one)
 * when one of the process's shared pages had a different count of
 * mappings among the scanned in the two snapshots (sharer_moved: "with a
 * sharer"), or else when processes the snapshots do not both scan came
 * or went while they were taken (churn: a pid given, a process gone, a
 * process one lists alone, exmtop's own file pages moved: "with
 * processes"); else as "kernel figures", a difference.
 */
static void compare(const struct exm_snapshot *a, const struct exm_snapshot *b,
		    bool churn, char *diff, size_t len)
{
	struct cmp c = { 0 };
	size_t i = 0, j = 0, n = 0, nk = 0;
	/* where in a and b those said once churn is known are */
	struct at {
		size_t i, j;
	} *kpss = calloc(a->nprocs + 1, sizeof(*kpss));

	diff[0] = '\0';
	if (!kpss || count_snap(&c.ca, a) || count_snap(&c.cb, b)) {
		snprintf(diff, len, "out of memory");
		goto out;
	}
	churn |= a->nskipped_gone || b->nskipped_gone;
	while (i < a->nprocs && j < b->nprocs) {
		const struct exm_proc *p = &a->procs[i], *q = &b->procs[j];
		char buf[320];
		const char *what;
		bool kernel;

		if (p->pid != q->pid) { /* one lists it alone */
			churn = true;
			i += p->pid < q->pid;
			j += q->pid < p->pid;
			continue;
		}
		what = proc_diff(p, q, &c, buf, sizeof(buf), &kernel);
		if (what && kernel && !sharer_moved(p, &c))
			kpss[nk++] = (struct at){ i, j }; /* said below */
		else if (what)
			n = say_pid(diff, n, len, p->pid,
				    kernel ? "kernel figures moved with a "
					     "sharer: "
					   : "",
				    what);
		i++;
		j++;
	}
	churn |= i < a->nprocs || j < b->nprocs;
	for (size_t k = 0; k < nk; k++) {
		const struct exm_proc *p = &a->procs[kpss[k].i],
				      *q = &b->procs[kpss[k].j];
		char buf[320];
		bool kernel;

		n = say_pid(diff, n, len, p->pid,
			    churn ? "kernel figures moved with processes: "
				  : "",
			    proc_diff(p, q, &c, buf, sizeof(buf), &kernel));
	}
out:
	free(kpss);
	delta_fini(&c.ca);
	delta_fini(&c.cb);
}

/* ---- a refresh ---- */

/* The kept processes of r->kforced get their kernel Pss again in snap
 * from the source, when it can (else the next pass reads it). */
static void kpss_again(struct exm_reuse *r, struct exm_source *src,
		       struct exm_snapshot *snap)
{
	struct exm_proc **procs;
	size_t n = 0, j = 0;

	if (!src || !src->ops->kpss_again)
		return;
	procs = malloc((r->nkforced ? r->nkforced : 1) * sizeof(*procs));
	if (!procs)
		return;
	/* both ascending by pid */
	for (size_t i = 0; i < snap->nprocs && j < r->nkforced; i++) {
		while (j < r->nkforced && r->kforced[j] < snap->procs[i].pid)
			j++;
		if (j < r->nkforced && r->kforced[j] == snap->procs[i].pid)
			procs[n++] = &snap->procs[i];
	}
	if (src->ops->kpss_again(src, snap, procs, n)) {
		free(procs);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		struct kent *e = find(r, procs[k]->pid);

		r->st.nkpss_again++;
		if (e) {
			e->kpss = procs[k]->kpss;
			e->kpss_ok = kpss_keepable(&e->kpss);
			e->kpss_gen = r->gen - 1; /* read now, not kept */
		}
	}
	free(procs);
	r->nkforced = 0;
}

/* Whether the processes started during the last walk that it did not
 * list are all listed by this one (then walked as new: their words moved
 * the counts), or with snap NULL, all still there (before a walk: the
 * figures read then are not taken as kept when one is gone); forgets them
 * when not. */
static bool born_seen(struct exm_reuse *r, const struct exm_snapshot *snap,
		      const char *root)
{
	bool all = true;

	for (size_t i = 0; i < r->nborn && all; i++) {
		char path[320];

		snprintf(path, sizeof(path), "%s/%d", root, (int)r->born[i]);
		all = snap ? exm_snapshot_find_pid(snap, r->born[i]) != NULL
			   : !access(path, F_OK);
	}
	if (snap || !all)
		r->nborn = 0;
	return all;
}

/* The kernel Pss read in the walk of generation gen is read again. */
static void kpss_unkeep(struct exm_reuse *r, unsigned gen)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ents[i].read_gen == gen)
			r->ents[i].kpss_ok = false;
}

/*
 * The pids given during a walk (after from, up to to): false when one may
 * be a process that mapped pages while counts were read and is gone (its
 * pid not there now, or more than BORN_MAX given); a thread (its Tgid
 * another's) maps nothing of its own; a process the walk did not list is
 * kept in r->born for the next walk to list (born_seen).
 */
static bool born_during(struct exm_reuse *r, const struct exm_snapshot *snap,
			const char *root, uint64_t from, uint64_t to)
{
	r->born_gen = r->gen;
	if (to == from)
		return true;
	if (to < from || to - from > BORN_MAX)
		return false;
	for (uint64_t pid = from + 1; pid <= to; pid++) {
		char path[320], *buf;
		const char *t;
		size_t len;
		bool thread;

		/* listed, or one of exmtop's own threads (of the walk): a
		 * thread maps nothing of its own */
		if (exm_snapshot_find_pid(snap, (pid_t)pid) ||
		    exm_own_thread((pid_t)pid))
			continue;
		snprintf(path, sizeof(path), "%s/%llu/status", root,
			 (unsigned long long)pid);
		if (exm_read_file(AT_FDCWD, path, &buf, &len))
			return false; /* gone (or never seen): it may have */
		t = strstr(buf, "\nTgid:");
		thread = t && strtoull(t + 6, NULL, 10) != pid;
		free(buf);
		if (!thread)
			r->born[r->nborn++] = (pid_t)pid;
	}
	return true;
}

/* The inode number of the first pid namespace (PROC_PID_INIT_INO in the
 * kernel's proc_ns.h, fixed since Linux 3.8). */
#define INIT_PID_NS_INO 0xeffffffcu

/* Whether exmtop runs in a pid namespace other than the first: processes
 * it cannot list may exist. Its status's NSpid does not say so where the
 * namespace has a /proc of its own (a container's): it lists pids from
 * the namespace of that /proc down. */
static bool pid_nested(const char *root)
{
	char path[320];
	struct stat st;

	snprintf(path, sizeof(path), "%s/self/ns/pid", root);
	return stat(path, &st) || st.st_ino != INIT_PID_NS_INO;
}

/*
 * After a walk: the kernel Pss had from mapping counts read during it is
 * kept only when nothing unscanned can have mapped or dropped a page
 * meanwhile: a process started (mover_key's second key moved) or one
 * vanished before its walk makes those read during it read again next
 * time (not those kept as they were: they read no count); exmtop's own
 * pages moving (the first key), others denied, a kernel that may
 * average mapcounts, or with the module a pid namespace of exmtop's own
 * (blind), every one; the pages of a process we may not look
 * into moving (its statm), those of the processes it may share pages
 * with (denied_unkeep). mover: the keys before the walk, then after.
 */
static void kpss_trust(struct exm_reuse *r, const struct exm_snapshot *snap,
		       const char *root, uint64_t mover[2])
{
	uint64_t now[2];
	size_t nd = 0;
	unsigned moved = 0;
	bool same, all;

	for (size_t i = 0; i < snap->nprocs; i++)
		nd += snap->procs[i].state == EXM_PROC_DENIED;
	same = nd == r->ndenied;
	if (!same && !denied_room(r, nd))
		nd = 0;
	r->ndenied = 0;
	for (size_t i = 0; i < snap->nprocs && r->ndenied < nd; i++)
		if (snap->procs[i].state == EXM_PROC_DENIED) {
			same = same &&
			       r->denied[r->ndenied] == snap->procs[i].pid;
			r->denied[r->ndenied++] = snap->procs[i].pid;
		}
	if (!r->blind_known) {
		r->blind = exm_running_mapcount(snap->sys.kernel, root) !=
				   EXM_MAPCOUNT_EXACT ||
			   (r->exact && pid_nested(root));
		r->blind_known = true;
	}
	mover_key(r, root, false, now);
	/* the denied processes' pages during the walk */
	denied_read(r, root, r->dpost);
	if (same)
		moved = denied_moved(r, r->dpre, r->dpost);
	all = !same || now[0] != mover[0] || r->blind;
	if (!born_seen(r, snap, root))
		kpss_unkeep(r, r->born_gen);
	for (size_t i = 0; i < r->n; i++)
		if (r->ents[i].kpss_gen != r->gen)
			r->ents[i].read_gen = r->gen; /* read in this walk */
	if (all || !born_during(r, snap, root, mover[1], now[1]) ||
	    snap->nskipped_gone)
		for (size_t i = 0; i < r->n; i++)
			if (all || r->ents[i].kpss_gen != r->gen)
				r->ents[i].kpss_ok = false;
	if (!all)
		denied_unkeep(r, moved);
	mover[0] = now[0];
	mover[1] = now[1];
}

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

/* ---- sizes kept ---- */

bool exm_reuse_defers(const struct exm_reuse *r)
{
	return r && r->defer;
}

/* Whether e's kept sizes are those of p in snap, whose words e kept. */
static bool sizes_hold(const struct exm_reuse *r, const struct kent *e,
		       const struct exm_snapshot *snap,
		       const struct exm_proc *p)
{
	return e && is_kept(r, e) && e->sz_ok && r->sz_caps == snap->sys.caps &&
	       e->start_time == p->start_time && e->nmaps == p->nmaps;
}

/* Whether two sizes are the same, byte for byte. */
static bool same_sizes(const struct exm_sizes *a, const struct exm_sizes *b)
{
	return a->vm == b->vm && a->rss == b->rss && a->swap == b->swap &&
	       a->sole == b->sole && a->writable == b->writable &&
	       a->zero == b->zero && a->hugetlb == b->hugetlb &&
	       !memcmp(&a->erss, &b->erss, sizeof(a->erss)) &&
	       !memcmp(&a->eswap, &b->eswap, sizeof(a->eswap)) &&
	       !memcmp(&a->ehugetlb, &b->ehugetlb, sizeof(a->ehugetlb)) &&
	       a->ksm == b->ksm &&
	       !memcmp(&a->eksm, &b->eksm, sizeof(a->eksm)) &&
	       a->freed == b->freed && a->cached == b->cached &&
	       a->shmem_excl == b->shmem_excl && a->has == b->has;
}

/* With check: the kept sizes of p against those its words make now. */
static void check_sizes(struct exm_reuse *r, const struct exm_snapshot *snap,
			const struct exm_proc *p)
{
	for (size_t j = 0; j < p->nmaps && !r->sz_diff[0]; j++) {
		const struct exm_mapping *m = &p->maps[j];
		struct exm_sizes now;

		exm_range_sizes(snap, p, m, m->start, m->end, &now);
		if (!same_sizes(&now, &m->sz))
			snprintf(r->sz_diff, sizeof(r->sz_diff),
				 "pid %d (kept sizes of %llx-%llx: erss %.17g, "
				 "%.17g)",
				 (int)p->pid, (unsigned long long)m->start,
				 (unsigned long long)m->end, m->sz.erss,
				 now.erss);
	}
}

/* Whether the held tables were counted for snap's processes, in its
 * order (no word of theirs moved since: update() drops them then). */
static bool tables_match(const struct exm_reuse *r,
			 const struct exm_snapshot *snap)
{
	if (!r->held.pc[0] || r->held.n != snap->nprocs ||
	    r->held.caps != snap->sys.caps)
		return false;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		const struct held_proc *h = &r->held.procs[i];

		if (h->pid != p->pid || h->start_time != p->start_time ||
		    h->state != (int)p->state)
			return false;
	}
	return true;
}

/* Give snap (not accounted yet) the held tables when they are its own;
 * else let them go (before snap's are counted: no two at once). */
static bool tables_give(struct exm_reuse *r, struct exm_snapshot *snap)
{
	if (snap->pfn_counts || snap->swap_counts || snap->huge_counts ||
	    !tables_match(r, snap)) {
		tables_drop(r);
		return false;
	}
	snap->pfn_counts = exm_pagecount_ref(r->held.pc[0]);
	snap->swap_counts = exm_pagecount_ref(r->held.pc[1]);
	snap->huge_counts = exm_pagecount_ref(r->held.pc[2]);
	return true;
}

/* Hold snap's tables (just accounted), with its processes. */
static void tables_hold(struct exm_reuse *r, const struct exm_snapshot *snap)
{
	struct held_proc *h;

	if (!snap->pfn_counts || !snap->swap_counts || !snap->huge_counts)
		return;
	h = realloc(r->held.procs, (snap->nprocs + 1) * sizeof(*h));
	if (!h)
		return; /* counted again next time */
	r->held.procs = h;
	for (size_t i = 0; i < snap->nprocs; i++)
		h[i] = (struct held_proc){ snap->procs[i].pid,
					   snap->procs[i].start_time,
					   (int)snap->procs[i].state };
	r->held.n = snap->nprocs;
	r->held.caps = snap->sys.caps;
	r->held.pc[0] = exm_pagecount_ref(snap->pfn_counts);
	r->held.pc[1] = exm_pagecount_ref(snap->swap_counts);
	r->held.pc[2] = exm_pagecount_ref(snap->huge_counts);
}

/*
 * Account snap (taken deferred, after update): a kept process's mapping
 * none of whose frames or swap entries changed its count of mappings
 * since it was last accounted keeps its sizes, which its words and those
 * counts alone make (account.h); the others are sized again. Then with
 * kept, every process's sizes are kept with its words.
 */
static int account_kept(struct exm_reuse *r, struct exm_snapshot *snap,
			bool kept)
{
	const struct exm_sizes **sz = calloc(snap->nprocs + 1, sizeof(*sz));
	bool given;
	int ret;

	if (!sz)
		return -ENOMEM;
	given = tables_give(r, snap);
	r->st.tables_kept = given;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		const struct kent *e = find(r, p->pid);

		if (!p->nmaps || !sizes_hold(r, e, snap, p))
			continue;
		sz[i] = e->sz;
		for (size_t j = 0; j < p->nmaps; j++)
			r->st.nsz_kept += e->sz[j].has && p->maps[j].npages;
	}
	ret = exm_snapshot_account_kept(snap, sz);
	if (!ret && !given && kept)
		tables_hold(r, snap);
	r->sz_diff[0] = '\0';
	for (size_t i = 0; !ret && r->check && i < snap->nprocs; i++)
		if (sz[i])
			check_sizes(r, snap, &snap->procs[i]);
	for (size_t i = 0; !ret && kept && i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		struct kent *e = find(r, p->pid);

		if (!e || e->start_time != p->start_time ||
		    e->nmaps != p->nmaps || !p->nmaps ||
		    p->state == EXM_PROC_DENIED)
			continue;
		if (!e->sz)
			e->sz = malloc(p->nmaps * sizeof(*e->sz));
		e->sz_ok = e->sz != NULL; /* else sized again next time */
		for (size_t j = 0; e->sz_ok && j < p->nmaps; j++)
			e->sz[j] = p->maps[j].sz;
	}
	if (!ret && kept)
		r->sz_caps = snap->sys.caps;
	free(sz);
	return ret;
}

/*
 * The counts of the kept words (now snap's, accounted) from snap's own
 * share tables, which count the very same words: none moved since. Else
 * (snap has none) as they were, or counted whole when next needed.
 */
static void rebase(struct exm_reuse *r, const struct exm_snapshot *snap)
{
	if (!snap->pfn_counts || !snap->swap_counts || !snap->huge_counts)
		return;
	base_drop(r);
	delta_fini(&r->cnt);
	r->base[0] = exm_pagecount_ref(snap->pfn_counts);
	r->base[1] = exm_pagecount_ref(snap->swap_counts);
	r->base[2] = exm_pagecount_ref(snap->huge_counts);
	r->cnt_ok = true;
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
	uint64_t sig, mover[2] = { 0, 0 }, churn[2] = { 0, 0 };
	bool full, keep, updated = false;
	int ret;

	memset(&r->st, 0, sizeof(r->st));
	r->sz_diff[0] = '\0';
	if (r->check) /* processes started or exmtop's pages moved since */
		mover_key(r, root, true, churn);
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
	r->nforced = r->nkforced = 0;
	/* kept processes keep their kernel Pss (from mapping counts) unless
	 * a count of their frames moved (update's kforced), or exmtop's own
	 * mappings, which no walk sees, moved since the last walk */
	keep = opts->want_kpss && !opts->want_rollup;
	if (keep && !r->have && !r->last && !opts->pids) {
		self_populate();
		/* the module walks every process: none is denied */
		if (!r->exact)
			denied_probe(r, root);
	}
	if (keep)
		mover_key(r, root, false, mover);
	if (keep && !born_seen(r, NULL, root))
		kpss_unkeep(r, r->born_gen);
	r->kpss_keep = keep && r->have_mover && mover[0] == r->mover;
	/* the pages of processes we may not look into since the last walk:
	 * the kernel Pss of those that may share them read again */
	if (keep && r->ndenied) {
		denied_read(r, root, r->dpre);
		if (r->kpss_keep)
			denied_unkeep(r, denied_moved(r, r->dpost, r->dpre));
	}
	/* a last full walk keeps nothing for a refresh that will not come:
	 * no copy of its words, no counts by frame (most of a one-shot's
	 * memory, and a pass over every page) */
	if (full && r->last)
		forget(r);
	/* accounted below, once update() knows whose sizes hold (the
	 * cgroups' charge wants an accounted snapshot in take) */
	r->defer = !opts->want_cgcharge;
	for (unsigned pass = 0;; pass++) {
		r->taking = !full;
		r->gen++;
		r->st.passes++;
		updated = false;
		texts_drop(r); /* an earlier pass's */
		ret = take(src, opts, &snap);
		if (ret || (full && r->last))
			break;
		ret = update(r, snap, now);
		updated = !ret;
		if (!ret && r->nkforced)
			kpss_again(r, src, snap);
		if (!ret && keep)
			kpss_trust(r, snap, root, mover);
		if (ret || (!r->nforced && !r->nkforced))
			break;
		exm_snapshot_free(snap);
		snap = NULL;
		/* it keeps moving, or most would be walked again: all */
		if (r->nforced && !full &&
		    (pass >= 1 || r->nforced * 2 > r->n)) {
			full = true;
			snprintf(r->st.why, sizeof(r->st.why), "sharers moved");
		} else if (pass >= 1) {
			r->kpss_keep = false; /* every count read again */
		}
	}
	if (!ret && r->defer) {
		double t0 = now_s();

		/* snap's tables become the base (rebase): not two at once */
		if (updated) {
			base_drop(r);
			delta_fini(&r->cnt);
			r->cnt_ok = false;
		}
		ret = account_kept(r, snap, updated);
		snap->sys.time_taken += now_s() - t0;
	}
	if (!ret && updated && !r->last)
		rebase(r, snap);
	r->defer = false;
	r->mover = mover[0];
	r->have_mover = keep;
	r->taking = false;
	if (ret) {
		exm_snapshot_free(snap);
		forget(r);
		return ret;
	}
	if (full)
		r->last_full = now;
	for (size_t i = 0; i < r->n; i++) {
		if (r->ents[i].walked_at < oldest)
			oldest = r->ents[i].walked_at;
		r->st.nkpss_kept += r->ents[i].kpss_gen == r->gen;
		/* walked in a pass of this refresh: a process walked in two
		 * passes counts once */
		r->st.nwalked += r->gen - r->ents[i].walk_gen < r->st.passes;
	}
	r->st.full = full;
	r->st.nprocs = snap->nprocs;
	r->st.oldest = now - oldest;
	if (r->check) {
		struct exm_snapshot *f = NULL;
		uint64_t after[2];

		r->gen++;
		ret = take(src, opts, &f);
		if (ret) {
			exm_snapshot_free(snap);
			return ret;
		}
		sys_sig(root, r->vals[r->sigi], true, r->st.unsettled,
			sizeof(r->st.unsettled), r->vals[r->sigi ^ 1],
			NSIG_VALS);
		mover_key(r, root, true, after);
		compare(snap, f, after[0] != churn[0] || after[1] != churn[1],
			r->st.diff, sizeof(r->st.diff));
		if (r->sz_diff[0]) {
			size_t n = strlen(r->st.diff);

			snprintf(r->st.diff + n, sizeof(r->st.diff) - n, "%s%s",
				 n ? "; " : "", r->sz_diff);
		}
		r->st.checked = true;
		exm_snapshot_free(f);
	}
	detail(snap, &r->st);
	*out = snap;
	return 0;
}
