// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * analysis.c - alerts; see analysis.h.
 */
#include "core/analysis.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diff.h"
#include "core/elf.h"

static const char *const kind_names[EXM_ALERT__COUNT] = {
	[EXM_ALERT_TEXT_COPIES] = "text-copies",
	[EXM_ALERT_DATA_COW] = "data-cow",
	[EXM_ALERT_ANON_GROWTH] = "anon-growth",
	[EXM_ALERT_PSS_MISMATCH] = "pss-mismatch",
	[EXM_ALERT_OOM_MISLEADING] = "oom-misleading",
};

const char *exm_alert_kind_name(enum exm_alert_kind k)
{
	return (unsigned)k < EXM_ALERT__COUNT ? kind_names[k] : "?";
}

void exm_alert_opts_init(struct exm_alert_opts *o)
{
	*o = (struct exm_alert_opts){
		.text_min_procs = 2,
		.cow_min_procs = 3,
		.min_saved = 64 << 10,
		.cow_min_saved = 64 << 10,
		.min_growth = 1 << 20,
		.pss_abs = 256 << 10,
		.oom_min = 64 << 20,
		.pss_frac = 0.05,
	};
}

#define MAX_OPEN_TRIES 4 /* processes whose map_files are tried */

int exm_dyn_lookup_proc(void *ctx, const struct exm_snapshot *snap,
			const struct exm_file *f, struct exm_elfdyn *out)
{
	const char *root = ctx ? ctx : "/proc";
	size_t tries = 0;
	struct stat st;
	int fd = -1, r;

	memset(out, 0, sizeof(*out));
	if (f->kind != EXM_KIND_FILE)
		return -EINVAL;
	for (size_t i = 0; i < snap->nprocs && fd < 0 && tries < MAX_OPEN_TRIES;
	     i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (size_t k = 0; k < p->nmaps; k++) {
			const struct exm_mapping *m = &p->maps[k];
			char path[256];

			if (m->file != f)
				continue;
			tries++;
			snprintf(path, sizeof(path),
				 "%s/%d/map_files/%llx-%llx", root, (int)p->pid,
				 (unsigned long long)m->start,
				 (unsigned long long)m->end);
			fd = exm_open_regular(path, &st);
			if (fd >= 0 && (uint64_t)st.st_ino != f->inode) {
				close(fd); /* pid reused */
				fd = -1;
			}
			break;
		}
	}
	if (fd < 0 && f->name[0] == '/') {
		fd = exm_open_regular(f->name, &st);
		if (fd >= 0 && (uint64_t)st.st_ino != f->inode) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0)
		return -ENOENT;
	r = exm_elfdyn_parse_fd(fd, out);
	close(fd);
	return r;
}

static int push(struct exm_alerts *a, size_t *cap, const struct exm_alert *x)
{
	if (a->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct exm_alert *v = realloc(a->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		*cap = nc;
	}
	a->v[a->n++] = *x;
	return 0;
}

/* ---- private copies of file pages ---- */

struct copy {
	uint32_t file;
	uint32_t proc;
	uint64_t off; /* file offset of the page */
	uint64_t key; /* frame, or the process without page identity */
	bool cow;     /* in a writable mapping (data), else read-only */
};

static int cmp_copy(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->cow != y->cow)
		return x->cow ? 1 : -1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

enum { DYN_UNKNOWN = 0, DYN_OK, DYN_FAIL };

struct copies {
	const struct exm_snapshot *snap;
	const struct exm_dyn_lookup *lk;
	struct copy *v;
	size_t n, cap;
	unsigned char *dstate;	/* per file: DYN_* */
	struct exm_elfdyn *dyn; /* per file */
};

static const struct exm_elfdyn *dyn_of(struct copies *c,
				       const struct exm_file *f)
{
	unsigned char *st = &c->dstate[f->index];

	if (*st == DYN_UNKNOWN)
		*st = c->lk->get(c->lk->ctx, c->snap, f, &c->dyn[f->index]) ||
				      !c->dyn[f->index].ok
			      ? DYN_FAIL
			      : DYN_OK;
	return *st == DYN_OK ? &c->dyn[f->index] : NULL;
}

/* Whether a copy at file offset off of read-only mapping m may count. */
static bool text_counts(struct copies *c, const struct exm_mapping *m,
			uint64_t off)
{
	const struct exm_elfdyn *d = dyn_of(c, m->file);

	if (!d)
		return m->perms & EXM_PERM_X;
	return !exm_elfdyn_in_relro(d, off, c->snap->sys.page_size);
}

static int collect_map(struct copies *c, uint32_t pi,
		       const struct exm_mapping *m)
{
	uint64_t ps = c->snap->sys.page_size;
	bool pfn = c->snap->sys.caps & EXM_CAP_PFN;
	bool cow = m->perms & EXM_PERM_W;

	for (uint32_t r = 0; r < m->nruns; r++) {
		const struct exm_run *run = &m->runs[r];

		for (uint32_t k = 0; k < run->count; k++) {
			uint64_t w = exm_mapping_word(m, run->idx + k);
			uint64_t off;

			if (!exm_pm_resident(w) || (w & EXM_PM_FILE))
				continue;
			off = m->offset + (run->vpn + k) * ps - m->start;
			if (!cow && !text_counts(c, m, off))
				continue;
			if (c->n == c->cap) {
				size_t nc = c->cap ? 2 * c->cap : 256;
				struct copy *v = realloc(c->v, nc * sizeof(*v));

				if (!v)
					return -ENOMEM;
				c->v = v;
				c->cap = nc;
			}
			c->v[c->n++] = (struct copy){
				.file = m->file->index,
				.proc = pi,
				.off = off,
				.key = pfn ? exm_pm_key(w) : pi,
				.cow = cow,
			};
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One (file, cow) group of sorted copies [i, j). */
static int judge_group(struct copies *c, size_t i, size_t j,
		       const struct exm_alert_opts *o, struct exm_alerts *out,
		       size_t *cap)
{
	const struct exm_file *f = c->snap->files[c->v[i].file];
	bool cow = c->v[i].cow;
	uint64_t ps = c->snap->sys.page_size, pages = 0, copies = 0;
	uint32_t *procs, np = 0, minp;
	struct exm_alert a = { 0 };
	const struct exm_elfdyn *d;
	int r = 0;

	procs = malloc((j - i) * sizeof(*procs));
	if (!procs)
		return -ENOMEM;
	for (size_t k = i; k < j; k++) {
		procs[k - i] = c->v[k].proc;
		if (k == i || c->v[k].off != c->v[k - 1].off)
			pages++;
		if (k == i || c->v[k].off != c->v[k - 1].off ||
		    c->v[k].key != c->v[k - 1].key)
			copies++;
	}
	qsort(procs, j - i, sizeof(*procs), cmp_u32);
	for (size_t k = 0; k < j - i; k++)
		if (!k || procs[k] != procs[k - 1])
			np++;
	free(procs);
	minp = cow ? o->cow_min_procs : o->text_min_procs;
	if (np < minp || copies <= pages ||
	    (copies - pages) * ps < (cow ? o->cow_min_saved : o->min_saved))
		return 0;
	a.kind = cow ? EXM_ALERT_DATA_COW : EXM_ALERT_TEXT_COPIES;
	a.file = f;
	a.bytes = (int64_t)((copies - pages) * ps);
	a.nprocs = np;
	a.npages = pages;
	a.copies = copies;
	if (cow) {
		snprintf(a.text, sizeof(a.text),
			 "%" PRIu32
			 " processes hold private copies of the same "
			 "%" PRIu64 " pages of its writable data (%" PRIu64
			 " copies): copy-on-write of data that could be "
			 "read-only",
			 np, pages, copies);
	} else {
		d = dyn_of(c, f);
		a.textrel = d && d->textrel;
		snprintf(a.text, sizeof(a.text),
			 "%" PRIu32 " processes hold private copies of %" PRIu64
			 " of its read-only pages (%" PRIu64 " copies): %s",
			 np, pages, copies,
			 a.textrel
				 ? "text relocations (DT_TEXTREL): build it "
				   "position independent (-fPIC)"
				 : "not from DT_TEXTREL (written at run time, "
				   "e.g. by a debugger)");
	}
	r = push(out, cap, &a);
	return r;
}

static int find_copies(const struct exm_snapshot *snap,
		       const struct exm_alert_opts *o, struct exm_alerts *out,
		       size_t *cap)
{
	struct exm_dyn_lookup def = { .get = exm_dyn_lookup_proc };
	struct copies c = {
		.snap = snap,
		.lk = o->dyn.get ? &o->dyn : &def,
	};
	int r = -ENOMEM;

	c.dstate = calloc(snap->nfiles + 1, 1);
	c.dyn = calloc(snap->nfiles + 1, sizeof(*c.dyn));
	if (!c.dstate || !c.dyn)
		goto out;
	for (size_t pi = 0; pi < snap->nprocs; pi++) {
		const struct exm_proc *p = &snap->procs[pi];

		for (size_t k = 0; k < p->nmaps; k++) {
			const struct exm_mapping *m = &p->maps[k];

			if (m->kind != EXM_KIND_FILE || !m->file ||
			    (m->perms & EXM_PERM_S))
				continue;
			if (collect_map(&c, (uint32_t)pi, m))
				goto out;
		}
	}
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_copy);
	r = 0;
	for (size_t i = 0, j; i < c.n && !r; i = j) {
		for (j = i + 1; j < c.n && c.v[j].file == c.v[i].file &&
				c.v[j].cow == c.v[i].cow;
		     j++)
			;
		r = judge_group(&c, i, j, o, out, cap);
	}
out:
	free(c.v);
	free(c.dstate);
	free(c.dyn);
	return r;
}

/* ---- growth of anonymous memory ---- */

/* What the anon-growth alert counts: heap, stack and anonymous kinds. */
static bool anon_kind(enum exm_kind k)
{
	return k == EXM_KIND_HEAP || k == EXM_KIND_STACK || k == EXM_KIND_ANON;
}

bool exm_proc_anon_bytes(const struct exm_proc *p, uint64_t *out)
{
	bool swap = p->sz.has & EXM_HAS_SWAP;
	uint64_t n = 0;

	if (!(p->sz.has & EXM_HAS_RSS) || p->state == EXM_PROC_DENIED)
		return false;
	for (size_t i = 0; i < p->npfiles; i++) {
		const struct exm_pfile *pf = &p->pfiles[i];
		enum exm_kind k = pf->file->kind;

		if (!anon_kind(k))
			continue;
		n += pf->sz.rss + (swap ? pf->sz.swap : 0);
	}
	*out = n;
	return true;
}

/*
 * The growth of p's anonymous memory since q, the same process in the
 * snapshot before, by the growth engine (diff.h): its heap, stack and
 * anonymous kinds matched across the two, and the growth of each one's
 * resident and (when both sides measured it) swapped bytes summed. *ok
 * false: a resident size not measured. 0 or -ENOMEM.
 */
static int anon_growth(const struct exm_proc *q, const struct exm_proc *p,
		       bool *ok, double *growth)
{
	struct exm_diff_row d = { .proc_a = q, .proc_b = p };
	bool swap = (p->sz.has & EXM_HAS_SWAP) && (q->sz.has & EXM_HAS_SWAP);
	struct exm_diff_row *rows;
	size_t n;
	double g = 0, x;
	int ret = exm_diff_proc_files(&d, &rows, &n);

	if (ret)
		return ret;
	*ok = true;
	for (size_t i = 0; i < n && *ok; i++) {
		const struct exm_row *r = &rows[i].row;

		if (!anon_kind(r->file->kind))
			continue;
		*ok = exm_row_growth(EXM_F_RSS, EXM_T_PFILES, r, &x);
		g += *ok ? x : 0;
		if (swap && exm_row_growth(EXM_F_SWAP, EXM_T_PFILES, r, &x))
			g += x;
	}
	free(rows);
	*growth = g;
	return 0;
}

static double seconds_between(const struct timespec *a,
			      const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static int find_growth(const struct exm_snapshot *cur,
		       const struct exm_snapshot *prev,
		       const struct exm_alert_opts *o, struct exm_alerts *out,
		       size_t *cap)
{
	double secs = seconds_between(&prev->sys.taken_at, &cur->sys.taken_at);

	for (size_t i = 0; i < cur->nprocs; i++) {
		const struct exm_proc *p = &cur->procs[i];
		/* the same process (pid and start time: diff.h) */
		const struct exm_proc *q =
			exm_snapshot_find_proc(prev, p->pid, p->start_time);
		struct exm_alert a = { 0 };
		uint64_t before, after;
		double growth;
		bool ok;

		if (!q || !exm_proc_anon_bytes(p, &after) ||
		    !exm_proc_anon_bytes(q, &before))
			continue;
		if (anon_growth(q, p, &ok, &growth))
			return -ENOMEM;
		if (!ok || growth < (double)o->min_growth)
			continue;
		a.kind = EXM_ALERT_ANON_GROWTH;
		a.proc = p;
		a.bytes = (int64_t)growth;
		a.before = before;
		a.after = after;
		a.seconds = secs;
		snprintf(a.text, sizeof(a.text),
			 "anonymous memory grew by %" PRId64 " bytes in %.1f s"
			 " (from %" PRIu64 " to %" PRIu64 "): a leak suspect",
			 a.bytes, secs, before, after);
		if (push(out, cap, &a))
			return -ENOMEM;
	}
	return 0;
}

/* ---- kernel Pss against effective resident ---- */

static int find_pss(const struct exm_snapshot *snap,
		    const struct exm_alert_opts *o, struct exm_alerts *out,
		    size_t *cap)
{
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		struct exm_alert a = { 0 };
		double tol, diff;
		int64_t erss;

		if (!(p->sz.has & EXM_HAS_ERSS) || p->state != EXM_PROC_OK)
			continue;
		if (!(p->kpss.has & EXM_KPSS_PSS)) {
			out->pss_unread++;
			continue;
		}
		out->pss_compared++;
		erss = (int64_t)llround(p->sz.erss);
		diff = (double)erss - (double)p->kpss.pss;
		tol = o->pss_frac * (double)p->kpss.pss;
		if (tol < (double)o->pss_abs)
			tol = (double)o->pss_abs;
		if (fabs(diff) <= tol)
			continue;
		a.kind = EXM_ALERT_PSS_MISMATCH;
		a.proc = p;
		a.bytes = erss - (int64_t)p->kpss.pss;
		a.before = p->kpss.pss;
		a.after = (uint64_t)erss;
		snprintf(a.text, sizeof(a.text),
			 "effective resident %" PRId64
			 " bytes vs kernel Pss %" PRIu64
			 ": %s than the documented causes explain; %s",
			 erss, p->kpss.pss, diff > 0 ? "more" : "less",
			 snap->sys.caps & EXM_CAP_AVG_MAPCOUNT
				 ? "this kernel's Pss of large folios is an "
				   "average (CONFIG_NO_PAGE_MAPCOUNT), "
				   "exmtop's count is exact"
				 : "pages shared with processes not scanned?");
		if (push(out, cap, &a))
			return -ENOMEM;
	}
	return 0;
}

/* ---- the OOM killer's choice against what it frees ---- */

/* Whether the OOM killer may pick p, and exmtop knows what p frees. */
static bool oom_candidate(const struct exm_proc *p)
{
	return p->has_oom && p->oom_adj > -1000 && !p->kthread &&
	       p->state == EXM_PROC_OK && (p->sz.has & EXM_HAS_EXCL);
}

/* 1 when some process had its OOM score read, else 0 (not checked). */
static int find_oom(const struct exm_snapshot *snap,
		    const struct exm_alert_opts *o, struct exm_alerts *out,
		    size_t *cap)
{
	const struct exm_proc *victim = NULL, *best = NULL;
	bool read = false;
	struct exm_alert a = { 0 };

	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		read |= p->has_oom;
		if (!oom_candidate(p))
			continue;
		/* the kernel's pick: the highest score (ties: the first) */
		if (!victim || p->oom_score > victim->oom_score)
			victim = p;
	}
	if (!read)
		return 0;
	out->oom_victim = victim;
	for (size_t i = 0; victim && i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		if (p != victim && oom_candidate(p) &&
		    (!best || p->sz.freed > best->sz.freed))
			best = p;
	}
	if (!best || best->sz.freed < 2 * victim->sz.freed ||
	    best->sz.freed - victim->sz.freed < o->oom_min)
		return 1;
	a.kind = EXM_ALERT_OOM_MISLEADING;
	a.proc = victim;
	a.other = best;
	a.before = victim->sz.freed;
	a.after = best->sz.freed;
	a.bytes = (int64_t)(best->sz.freed - victim->sz.freed);
	snprintf(a.text, sizeof(a.text),
		 "killed first (oom_score %d) it would free %" PRIu64
		 " bytes; pid %d (oom_score %d) would free %" PRIu64,
		 victim->oom_score, victim->sz.freed, (int)best->pid,
		 best->oom_score, best->sz.freed);
	return push(out, cap, &a) ? -ENOMEM : 1;
}

static int cmp_alert(const void *a, const void *b)
{
	const struct exm_alert *x = a, *y = b;
	int64_t bx = x->bytes < 0 ? -x->bytes : x->bytes;
	int64_t by = y->bytes < 0 ? -y->bytes : y->bytes;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return bx > by ? -1 : bx < by;
}

int exm_alerts_find(const struct exm_snapshot *cur,
		    const struct exm_snapshot *prev,
		    const struct exm_alert_opts *o, struct exm_alerts *out)
{
	unsigned caps = cur->sys.caps;
	size_t cap = 0;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (caps & EXM_CAP_PAGES) {
		r = find_copies(cur, o, out, &cap);
		out->checked |= 1u << EXM_ALERT_TEXT_COPIES |
				1u << EXM_ALERT_DATA_COW;
	} else {
		out->why_not[EXM_ALERT_TEXT_COPIES] =
			out->why_not[EXM_ALERT_DATA_COW] =
				"needs page-level facts (pagemap source)";
	}
	if (!r && prev) {
		r = find_growth(cur, prev, o, out, &cap);
		out->checked |= 1u << EXM_ALERT_ANON_GROWTH;
	} else if (!prev) {
		out->why_not[EXM_ALERT_ANON_GROWTH] =
			"needs a previous snapshot";
	}
	if (!(caps & EXM_CAP_PFN) || !(caps & EXM_CAP_KPSS)) {
		out->why_not[EXM_ALERT_PSS_MISMATCH] =
			"needs page identity and the kernel's Pss";
	} else if (o->partial_scan) {
		out->why_not[EXM_ALERT_PSS_MISMATCH] =
			"needs a scan of every process";
	} else if (!r) {
		r = find_pss(cur, o, out, &cap);
		out->checked |= 1u << EXM_ALERT_PSS_MISMATCH;
	}
	if (!(caps & EXM_CAP_PFN)) {
		out->why_not[EXM_ALERT_OOM_MISLEADING] =
			"needs page identity (what a process frees)";
	} else if (o->partial_scan) {
		out->why_not[EXM_ALERT_OOM_MISLEADING] =
			"needs a scan of every process";
	} else if (!r) {
		r = find_oom(cur, o, out, &cap);
		if (r == 1)
			out->checked |= 1u << EXM_ALERT_OOM_MISLEADING;
		else if (!r)
			out->why_not[EXM_ALERT_OOM_MISLEADING] =
				"needs the OOM scores (/proc/PID/oom_score; "
				"not in recordings)";
		r = r < 0 ? r : 0;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_alert);
	return r;
}

void exm_alerts_fini(struct exm_alerts *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}
