// SPDX-License-Identifier: GPL-2.0-or-later
/* report.c - the analyses as tables, and their printers; see report.h. */
#include "tui/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "core/exclusive.h"
#include "core/procset.h"
#include "core/format.h"
#include "core/sysview.h"
#include "core/units.h"
#include "tui/text.h"

/* ---- building ---- */

/* A new row (every cell "not measured"), or NULL. */
static struct tui_rcell *add_row(struct tui_report *r)
{
	size_t nc = r->ops->ncols;

	if (r->nrows == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct tui_rcell *c = realloc(r->cells, cap * nc * sizeof(*c));

		if (!c)
			return NULL;
		r->cells = c;
		r->cap = cap;
	}
	memset(&r->cells[r->nrows * nc], 0, nc * sizeof(*r->cells));
	return &r->cells[r->nrows++ * nc];
}

static void num(struct tui_rcell *c, double v)
{
	c->has = true;
	c->v = v;
}

static int str(struct tui_rcell *c, const char *s)
{
	c->s = strdup(s ? s : "");
	c->has = c->s != NULL;
	return c->s ? 0 : -ENOMEM;
}

static int note(struct tui_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int note(struct tui_report *r, const char *fmt, ...)
{
	char **n = realloc(r->notes, (r->nnotes + 1) * sizeof(*n));
	va_list ap;
	int k;

	if (!n)
		return -ENOMEM;
	r->notes = n;
	va_start(ap, fmt);
	k = vasprintf(&n[r->nnotes], fmt, ap);
	va_end(ap);
	if (k < 0)
		return -ENOMEM;
	r->nnotes++;
	return 0;
}

/* A size of s as one cell: which of its members were measured. */
static void size_cell(struct tui_rcell *c, const struct exm_sizes *s,
		      unsigned has, double v)
{
	if (s->has & has)
		num(c, v);
}

/*
 * Defaults of the alerts, tuned so an ordinary system is not flooded:
 * on a desktop with a few dozen shells, bash's and libc's .data are
 * written after fork by 10 to 17 processes each (a few pages apiece:
 * normal, and nothing a user can change), so copy-on-write of data is
 * reported only from 32 processes and 1 MiB saved: a program run many
 * times whose .data could be const or initialised before fork.
 */
#define CLI_COW_MIN_PROCS 32
#define CLI_COW_MIN_SAVED (UINT64_C(1) << 20)

/* A report's column, described as the field table describes its own
 * (fields.h): key, title and type. LABEL: it names the row (a label of
 * each OpenMetrics sample of the row; LABEL_AS: called m there); VAL: a
 * figure, its OpenMetrics family m (report.h); COL: neither (text, CSV
 * and JSON only); TEXT_COL: text only (explanations). */
#define COL(k, t, ty)                                             \
	{                                                         \
		.f = {.key = k, .title = t, .type = EXM_FT_##ty } \
	}
#define LABEL(k, t, ty)                                             \
	{                                                           \
		.f = { .key = k, .title = t, .type = EXM_FT_##ty }, \
		.label = true                                       \
	}
#define LABEL_AS(k, t, ty, m)                                       \
	{                                                           \
		.f = { .key = k, .title = t, .type = EXM_FT_##ty }, \
		.label = true, .metric = m                          \
	}
#define VAL(k, t, ty, m)                                            \
	{                                                           \
		.f = { .key = k, .title = t, .type = EXM_FT_##ty }, \
		.metric = m                                         \
	}
#define TEXT_COL(k, t)                                             \
	{                                                          \
		.f = { .key = k, .title = t, .type = EXM_FT_STR }, \
		.text_only = true                                  \
	}

enum { A_KIND, A_PID, A_SUBJECT, A_BYTES, A_TEXT, A__N };
static const struct tui_rcol alert_cols[A__N] = {
	[A_KIND] = LABEL("kind", "KIND", STR),
	[A_PID] = LABEL("pid", "PID", INT),
	[A_SUBJECT] = LABEL("subject", "SUBJECT", STR),
	[A_BYTES] = VAL("bytes", "BYTES", SIZE, ""),
	[A_TEXT] = COL("explanation", "EXPLANATION", STR),
};

static int build_alerts(struct tui_report *r, const struct tui_report_env *e)
{
	struct exm_alert_opts ao;
	struct exm_alerts a;
	bool *in = NULL; /* the files of the selected processes */
	int ret;

	exm_alert_opts_init(&ao);
	ao.cow_min_procs = CLI_COW_MIN_PROCS;
	ao.cow_min_saved = CLI_COW_MIN_SAVED;
	ao.partial_scan = (e->snap->sys.caps & EXM_CAP_LIMITED) ||
			  !(e->snap->sys.caps & EXM_CAP_ALLPROCS);
	ao.dyn.get = exm_dyn_lookup_proc;
	ao.dyn.ctx = (void *)exm_snapshot_proc_root(e->snap);
	ret = exm_alerts_find(e->snap, e->prev, &ao, &a);
	if (!ret && e->filter &&
	    !(in = exm_files_mapped_by(e->snap, e->filter)))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < a.n; i++) {
		const struct exm_alert *al = &a.v[i];
		struct tui_rcell *c;
		const char *subj;

		if (al->proc ? !exm_proc_filter_match(e->filter, al->proc)
			     : in && al->file && !in[al->file->index])
			continue;
		c = add_row(r);
		if (!c) {
			ret = -ENOMEM;
			break;
		}
		/* the name whole (a long path too) */
		if (al->proc) {
			num(&c[A_PID], al->proc->pid);
			subj = al->proc->comm ? al->proc->comm : "?";
		} else {
			subj = al->file ? al->file->name : "?";
		}
		num(&c[A_BYTES], (double)al->bytes);
		if (str(&c[A_KIND], exm_alert_kind_name(al->kind)) ||
		    str(&c[A_SUBJECT], subj) || str(&c[A_TEXT], al->text))
			ret = -ENOMEM;
	}
	for (int k = 0; !ret && k < EXM_ALERT__COUNT; k++)
		if (!(a.checked & (1u << k)))
			ret = note(r, "%s not checked: %s%s",
				   exm_alert_kind_name(k),
				   a.why_not[k] ? a.why_not[k] : "?",
				   k == EXM_ALERT_ANON_GROWTH
					   ? " (batch: -n 2 or more; live: "
					     "from the second refresh)"
					   : "");
	if (!ret && (a.checked & (1u << EXM_ALERT_PSS_MISMATCH)))
		ret = note(r,
			   "pss-mismatch compared %zu processes (%zu "
			   "without the kernel's Pss read)%s",
			   a.pss_compared, a.pss_unread,
			   e->snap->sys.caps & EXM_CAP_AVG_MAPCOUNT
				   ? "; this kernel averages mapcounts of "
				     "large folios (CONFIG_NO_PAGE_MAPCOUNT): "
				     "its Pss of them is an average, "
				     "effective resident is exact"
				   : "");
	if (!ret && a.oom_victim)
		ret = note(r,
			   "oom-misleading: the OOM killer would pick pid "
			   "%d first (oom_score %d), which would free %" PRIu64
			   " bytes",
			   (int)a.oom_victim->pid, a.oom_victim->oom_score,
			   a.oom_victim->sz.freed);
	if (!ret)
		ret = note(r, "%zu alert%s", r->nrows,
			   r->nrows == 1 ? "" : "s");
	free(in);
	exm_alerts_fini(&a);
	return ret;
}

enum { S_NAME, S_BYTES, S_HELP, S__N };
static const struct tui_rcol sys_cols[S__N] = {
	[S_NAME] = LABEL_AS("name", "NAME", STR, "row"),
	[S_BYTES] = VAL("bytes", "BYTES", SIZE, ""),
	[S_HELP] = TEXT_COL("help", "WHAT"),
};

/* The system view of snap into sv; else a note saying why not (what:
 * which snapshot, or "") and -errno. */
static int sysview_of(struct tui_report *r, const struct exm_snapshot *snap,
		      const char *what, struct exm_sysview *sv)
{
	char err[256] = "";
	int ret = exm_sysview_build(snap, sv, err, sizeof(err));

	if (ret) {
		int k = note(r, "no system view%s: %s", what,
			     err[0] ? err : strerror(-ret));

		return k ? k : ret;
	}
	return 0;
}

static int build_system(struct tui_report *r, const struct tui_report_env *e)
{
	struct exm_sysview sv;
	int ret = sysview_of(r, e->snap, "", &sv);

	if (ret)
		return ret;
	r->has_mem_total = true;
	r->mem_total = sv.mem_total;
	for (size_t i = 0; i < sv.nrows; i++) {
		struct tui_rcell *c = add_row(r);

		if (!c || str(&c[S_NAME], sv.rows[i].name) ||
		    str(&c[S_HELP], sv.rows[i].help))
			return -ENOMEM;
		if (sv.rows[i].known)
			num(&c[S_BYTES], (double)sv.rows[i].bytes);
	}
	ret = note(r,
		   "rows add up to MemTotal %" PRIu64 " bytes; "
		   "user_space is the sum of effective resident",
		   sv.mem_total);
	/* what KSM saves: its pages as they would cost unmerged less what
	 * they cost (in user_space: their distinct frames) */
	if (!ret && (e->snap->total.has & EXM_HAS_KSM))
		ret = note(r,
			   "ksm: %" PRIu64 " bytes of the scanned processes "
			   "in KSM pages, %.0f bytes saved by merging",
			   e->snap->total.ksm,
			   (double)e->snap->total.ksm - e->snap->total.eksm);
	return ret;
}

/* --diff --system: each row before (e->prev), after (e->snap) and its
 * growth. */
enum { SD_NAME, SD_BEFORE, SD_AFTER, SD_GROWTH, SD_HELP, SD__N };
static const struct tui_rcol sysdiff_cols[SD__N] = {
	[SD_NAME] = LABEL_AS("name", "NAME", STR, "row"),
	[SD_BEFORE] = VAL("before", "BEFORE", SIZE, "before"),
	[SD_AFTER] = VAL("after", "AFTER", SIZE, "after"),
	[SD_GROWTH] = VAL("growth", "GROWTH", SIZE, "growth"),
	[SD_HELP] = TEXT_COL("help", "WHAT"),
};

/* A row of the system view as a value (not measured: none). */
static struct exm_value sysrow_value(const struct exm_sysrow *row)
{
	struct exm_value v = { .type = row->known ? EXM_V_DBL : EXM_V_NONE,
			       .d = (double)row->bytes };

	return v;
}

static int build_system_diff(struct tui_report *r,
			     const struct tui_report_env *e)
{
	struct exm_sysview a, b;
	int ret = sysview_of(r, e->prev, " of the earlier snapshot", &a);

	if (!ret)
		ret = sysview_of(r, e->snap, " of the later snapshot", &b);
	if (ret)
		return ret;
	r->has_mem_total = true;
	r->mem_total = b.mem_total;
	for (size_t i = 0; i < b.nrows; i++) {
		struct tui_rcell *c = add_row(r);
		struct exm_value before = sysrow_value(&a.rows[i]),
				 after = sysrow_value(&b.rows[i]);

		if (!c || str(&c[SD_NAME], b.rows[i].name) ||
		    str(&c[SD_HELP], b.rows[i].help))
			return -ENOMEM;
		if (before.type != EXM_V_NONE)
			num(&c[SD_BEFORE], before.d);
		if (after.type != EXM_V_NONE)
			num(&c[SD_AFTER], after.d);
		exm_value_growth(&after, &before); /* diff.h's growth */
		if (after.type == EXM_V_DELTA)
			num(&c[SD_GROWTH], after.d);
	}
	return note(r,
		    "growth of each row from the earlier snapshot to the "
		    "later; the growths add up to the change of MemTotal "
		    "(%" PRIu64 " to %" PRIu64 " bytes)",
		    a.mem_total, b.mem_total);
}

static const struct exm_elf_lookup *lookup_of(const struct tui_report_env *e,
					      struct exm_elf_lookup *lk,
					      struct exm_elf_lookup_cache *lc)
{
	lc->cache = e->cache;
	lc->proc_root = exm_snapshot_proc_root(e->snap);
	lk->get = exm_elf_lookup_cached;
	lk->ctx = lc;
	return lk;
}

enum {
	U_FILE,
	U_PROCS,
	U_ELF,
	U_TEXT_VM,
	U_TEXT_RSS,
	U_TEXT_ERSS,
	U_DATA_VM,
	U_DATA_RSS,
	U_DATA_ERSS,
	U_BSS_VM,
	U_BSS_RSS,
	U_BSS_ERSS,
	U_ERSS,
	U__N
};
static const struct tui_rcol unit_cols[U__N] = {
	[U_FILE] = LABEL("file", "FILE", STR),
	[U_PROCS] = VAL("procs", "PROCS", INT, "processes"),
	[U_ELF] = LABEL("sections", "ELF", STR),
	[U_TEXT_VM] = VAL("text_vm", "TEXT.VM", SIZE, "text_vm"),
	[U_TEXT_RSS] = VAL("text_rss", "TEXT.RES", SIZE, "text_resident"),
	[U_TEXT_ERSS] = VAL("text_erss", "TEXT.EFF", ESIZE,
			    "text_effective_resident"),
	[U_DATA_VM] = VAL("data_vm", "DATA.VM", SIZE, "data_vm"),
	[U_DATA_RSS] = VAL("data_rss", "DATA.RES", SIZE, "data_resident"),
	[U_DATA_ERSS] = VAL("data_erss", "DATA.EFF", ESIZE,
			    "data_effective_resident"),
	[U_BSS_VM] = VAL("bss_vm", "BSS.VM", SIZE, "bss_vm"),
	[U_BSS_RSS] = VAL("bss_rss", "BSS.RES", SIZE, "bss_resident"),
	[U_BSS_ERSS] = VAL("bss_erss", "BSS.EFF", ESIZE,
			   "bss_effective_resident"),
	[U_ERSS] = VAL("erss", "EFF.RES", ESIZE, "effective_resident"),
};

static int cmp_unit(const void *a, const void *b)
{
	const struct exm_unit *x = a, *y = b;

	if (x->total.erss != y->total.erss)
		return x->total.erss > y->total.erss ? -1 : 1;
	return strcmp(x->file->name, y->file->name);
}

static int build_units(struct tui_report *r, const struct tui_report_env *e)
{
	struct exm_elf_lookup lk;
	struct exm_elf_lookup_cache lc;
	struct exm_unit *u = NULL;
	bool *in = NULL; /* the files of the selected processes */
	size_t n = 0;
	int ret = exm_units_table(e->snap, lookup_of(e, &lk, &lc), &u, &n);

	if (!ret && e->filter &&
	    !(in = exm_files_mapped_by(e->snap, e->filter)))
		ret = -ENOMEM;
	if (ret) {
		free(u);
		return ret;
	}
	qsort(u, n, sizeof(*u), cmp_unit);
	for (size_t i = 0; !ret && i < n; i++) {
		struct tui_rcell *c;

		if (in && !in[u[i].file->index])
			continue;
		c = add_row(r);
		if (!c) {
			ret = -ENOMEM;
			break;
		}
		num(&c[U_PROCS], u[i].nprocs);
		for (int s = 0; s < EXM_SEG__COUNT; s++) {
			const struct exm_sizes *z = &u[i].seg[s];

			size_cell(&c[U_TEXT_VM + 3 * s], z, EXM_HAS_VM,
				  (double)z->vm);
			size_cell(&c[U_TEXT_RSS + 3 * s], z, EXM_HAS_RSS,
				  (double)z->rss);
			size_cell(&c[U_TEXT_ERSS + 3 * s], z, EXM_HAS_ERSS,
				  z->erss);
		}
		size_cell(&c[U_ERSS], &u[i].total, EXM_HAS_ERSS,
			  u[i].total.erss);
		if (str(&c[U_FILE], u[i].file->name) ||
		    str(&c[U_ELF], u[i].elf_state == EXM_ELF_OK
					   ? "sections"
					   : "permissions"))
			ret = -ENOMEM;
	}
	free(u);
	free(in);
	if (!ret)
		ret = note(r, "text: code and read-only sections; data: "
			      ".data .data.rel.ro .got ...; bss: .bss and the "
			      "anonymous mapping after the data segment; ELF "
			      "'permissions': split by mapping permissions");
	return ret;
}

enum {
	B_PID,
	B_COMM,
	B_PART0,
	B_SOLE = B_PART0 + EXM_BD__COUNT,
	B_SHARED,
	B_ERSS,
	B__N
};
static const struct tui_rcol bd_cols[B__N] = {
	[B_PID] = LABEL("pid", "PID", INT),
	[B_COMM] = LABEL("comm", "COMMAND", STR),
	[B_PART0 + EXM_BD_STACK] = VAL("stack", "STACK", ESIZE, "stack"),
	[B_PART0 + EXM_BD_HEAP] = VAL("heap", "HEAP", ESIZE, "heap"),
	[B_PART0 + EXM_BD_PROG_TEXT] = VAL("prog_text", "P.TEXT", ESIZE,
					   "prog_text"),
	[B_PART0 + EXM_BD_PROG_DATA] = VAL("prog_data", "P.DATA", ESIZE,
					   "prog_data"),
	[B_PART0 +
		EXM_BD_PROG_BSS] = VAL("prog_bss", "P.BSS", ESIZE, "prog_bss"),
	[B_PART0 +
		EXM_BD_LIB_TEXT] = VAL("lib_text", "L.TEXT", ESIZE, "lib_text"),
	[B_PART0 +
		EXM_BD_LIB_DATA] = VAL("lib_data", "L.DATA", ESIZE, "lib_data"),
	[B_PART0 + EXM_BD_LIB_BSS] = VAL("lib_bss", "L.BSS", ESIZE, "lib_bss"),
	[B_PART0 + EXM_BD_ANON] = VAL("anon", "ANON", ESIZE, "anon"),
	[B_PART0 + EXM_BD_OTHER] = VAL("other", "OTHER", ESIZE, "other"),
	[B_SOLE] = VAL("sole", "SOLE", SIZE, "sole"),
	[B_SHARED] = VAL("shared", "SHARED", SIZE, "shared"),
	[B_ERSS] = VAL("erss", "EFF.RES", ESIZE, "effective_resident"),
};

static int cmp_bd(const void *a, const void *b)
{
	const struct exm_breakdown *x = a, *y = b;

	if (x->proc->sz.erss != y->proc->sz.erss)
		return x->proc->sz.erss > y->proc->sz.erss ? -1 : 1;
	return x->proc->pid < y->proc->pid ? -1 : x->proc->pid > y->proc->pid;
}

static int build_breakdown(struct tui_report *r, const struct tui_report_env *e)
{
	struct exm_elf_lookup lk;
	struct exm_elf_lookup_cache lc;
	struct exm_breakdown *bd = NULL;
	size_t n = 0;
	int ret = exm_breakdown_table(e->snap, lookup_of(e, &lk, &lc), &bd, &n);

	if (ret)
		return ret;
	qsort(bd, n, sizeof(*bd), cmp_bd);
	for (size_t i = 0; !ret && i < n; i++) {
		const struct exm_proc *p = bd[i].proc;
		struct tui_rcell *c;

		if (p->state == EXM_PROC_DENIED ||
		    !exm_proc_filter_match(e->filter, p))
			continue;
		c = add_row(r);
		if (!c) {
			ret = -ENOMEM;
			break;
		}
		num(&c[B_PID], p->pid);
		for (int k = 0; k < EXM_BD__COUNT; k++)
			size_cell(&c[B_PART0 + k], &bd[i].part[k], EXM_HAS_ERSS,
				  bd[i].part[k].erss);
		if (bd[i].has_sole) {
			num(&c[B_SOLE], (double)bd[i].sole);
			num(&c[B_SHARED], (double)bd[i].shared);
		}
		size_cell(&c[B_ERSS], &p->sz, EXM_HAS_ERSS, p->sz.erss);
		if (str(&c[B_COMM], p->comm))
			ret = -ENOMEM;
	}
	free(bd);
	if (!ret)
		ret = note(r, "effective resident per part (P. the program, "
			      "L. its libraries); SOLE: resident pages mapped "
			      "once, SHARED: the rest of its resident");
	return ret;
}

/* ---- what stopping a set of processes gives back (--freed) ---- */

enum { F_SET, F_NPROCS, F_ERSS, F_SOLE, F_FREED, F_CACHED, F_SHMEM, F__N };
static const struct tui_rcol freed_cols[F__N] = {
	[F_SET] = LABEL("set", "SET", STR),
	[F_NPROCS] = VAL("nprocs", "NPROC", INT, "processes"),
	[F_ERSS] = VAL("erss", "EFF.RES", ESIZE, "effective_resident"),
	[F_SOLE] = VAL("sole", "SOLE", SIZE, "sole"),
	[F_FREED] = VAL("freed", "FREED", SIZE, "freed"),
	[F_CACHED] = VAL("cached", "CACHED", SIZE, "cached"),
	[F_SHMEM] = VAL("shmem_excl", "SHM.EXCL", SIZE, "shmem_exclusive"),
};

/* The set's row: effective resident and sole summed over its members,
 * its exclusive memory as a whole (exclusive.h). */
static int build_freed(struct tui_report *r, const struct tui_report_env *e)
{
	const struct exm_snapshot *snap = e->snap;
	struct exm_procset set;
	struct exm_sizes sum = { 0 };
	struct exm_excl ex;
	struct tui_rcell *c;
	uint32_t *set_of;
	uint32_t n = 0, nread = 0;
	char err[128];
	int ret;

	if (!e->freed_set)
		return note(r, "no set given (--freed SET)") ?: -EINVAL;
	ret = exm_procset_parse(e->freed_set, &set, err, sizeof(err));
	if (ret)
		return ret == -ENOMEM ? ret : note(r, "%s", err) ?: -EINVAL;
	set_of = malloc((snap->nprocs + 1) * sizeof(*set_of));
	c = set_of ? add_row(r) : NULL;
	if (!c) {
		free(set_of);
		exm_procset_fini(&set);
		return -ENOMEM;
	}
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		set_of[i] = EXM_SET_NONE;
		if (!exm_procset_match(&set, p))
			continue;
		set_of[i] = 0;
		n++;
		if (p->state == EXM_PROC_DENIED)
			continue;
		nread++;
		exm_sizes_add(&sum, &p->sz);
	}
	num(&c[F_NPROCS], n);
	if (nread) {
		size_cell(&c[F_ERSS], &sum, EXM_HAS_ERSS, sum.erss);
		size_cell(&c[F_SOLE], &sum, EXM_HAS_SOLE, (double)sum.sole);
	}
	ret = exm_exclusive(snap, set_of, 1, &ex);
	if (!ret) {
		num(&c[F_FREED], (double)ex.bytes[EXM_EXCL_FREED]);
		num(&c[F_CACHED], (double)ex.bytes[EXM_EXCL_CACHED]);
		num(&c[F_SHMEM], (double)ex.bytes[EXM_EXCL_SHMEM]);
	} else if (ret == -EOPNOTSUPP) {
		ret = note(r,
			   "exclusive memory needs page identity (source "
			   "%s has none): shown as -",
			   snap->sys.source);
	}
	free(set_of);
	if (!ret)
		ret = str(&c[F_SET], e->freed_set);
	if (!ret && n > nread)
		ret = note(r,
			   "%u process(es) of the set could not be read: "
			   "left out of every figure",
			   n - nread);
	if (!ret && !n)
		ret = note(r, "no scanned process is in the set");
	if (!ret)
		ret = note(r,
			   "FREED: anonymous pages, private copies and "
			   "swap only the set maps (back to the free pool); "
			   "CACHED: file pages only it maps (stay in the "
			   "page cache); SHM.EXCL: shared memory only it "
			   "maps (freed only if nothing else holds the "
			   "file); SOLE and EFF.RES: summed over the members");
	exm_procset_fini(&set);
	return ret;
}

#define COLS(a) a, sizeof(a) / sizeof((a)[0])

static const struct tui_report_ops system_diff = {
	.name = "system",
	.title = "System: change of all of RAM (MemTotal)",
	.cols = COLS(sysdiff_cols),
	.build = build_system_diff,
};

const struct tui_report_ops tui_reports[TUI_REPORT__COUNT + 1] = {
	[TUI_REPORT_ALERTS] = { .name = "alerts",
				.title = "Alerts: memory wasted or suspicious",
				.cols = COLS(alert_cols),
				.wants_prev = true,
				.needs = EXM_NEED_PAGES | EXM_NEED_KPSS |
					 EXM_NEED_ROLLUP | EXM_NEED_OOM,
				.build = build_alerts },
	[TUI_REPORT_SYSTEM] = { .name = "system",
				.title = "System: all of RAM (MemTotal)",
				.cols = COLS(sys_cols),
				.needs = EXM_NEED_SWAPCACHE,
				.build = build_system,
				.diff = &system_diff },
	[TUI_REPORT_UNITS] = { .name = "units",
			       .title = "Executable units: programs and libraries across "
					"processes",
			       .cols = COLS(unit_cols),
			       .build = build_units },
	[TUI_REPORT_BREAKDOWN] = { .name = "breakdown",
				   .title =
					   "Breakdown: each process's memory by kind",
				   .cols = COLS(bd_cols),
				   .build = build_breakdown },
	[TUI_REPORT_FREED] = { .name = "freed",
			       .title =
				       "Freed: what stopping the set gives back",
			       .cols = COLS(freed_cols),
			       .needs = EXM_NEED_PAGES | EXM_NEED_CGROUP,
			       .build = build_freed },
	[TUI_REPORT__COUNT] = { .name = NULL },
};

const struct tui_report_ops *tui_report_find(const char *name)
{
	for (const struct tui_report_ops *op = tui_reports; op->name; op++)
		if (!strcmp(op->name, name))
			return op;
	return NULL;
}

void tui_report_fini(struct tui_report *r)
{
	size_t nc = r->ops ? r->ops->ncols : 0;

	for (size_t i = 0; i < r->nrows * nc; i++)
		free(r->cells[i].s);
	free(r->cells);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

int tui_report_build(const struct tui_report_ops *ops,
		     const struct tui_report_env *e, struct tui_report *r)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
	return ops->build(r, e);
}
