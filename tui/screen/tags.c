// SPDX-License-Identifier: GPL-2.0-or-later
/* tags.c - tagged processes and their summary; see tags.h. */
#include "tui/screen/tags.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exclusive.h"
#include "core/format.h"

static long find(const struct tui_tags *t, const struct exm_proc *p)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].pid == p->pid &&
		    t->v[i].start_time == p->start_time)
			return (long)i;
	return -1;
}

bool tui_tags_has(const struct tui_tags *t, const struct exm_proc *p)
{
	return p && find(t, p) >= 0;
}

int tui_tags_set(struct tui_tags *t, const struct exm_proc *p, int on)
{
	long i = find(t, p);

	if (on < 0)
		on = i < 0;
	if (!on && i >= 0) {
		t->v[i] = t->v[--t->n];
		t->gen++;
	} else if (on && i < 0) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 16;
			struct tui_tag *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			t->v = v;
			t->cap = cap;
		}
		t->v[t->n++] = (struct tui_tag){ p->pid, p->start_time };
		t->gen++;
	}
	return 0;
}

void tui_tags_clear(struct tui_tags *t)
{
	t->n = 0;
	t->gen++;
}

void tui_tags_fini(struct tui_tags *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* has: 1, 0 (not measured: "-"), -1 (not known yet: the snapshot on screen
 * kept only its sizes while the next is taken, live.c) */
static void size_text(char *buf, size_t len, int has, double v, bool exact)
{
	if (has < 0)
		snprintf(buf, len, "...");
	else if (!has)
		snprintf(buf, len, "-");
	else if (exact)
		snprintf(buf, len, "%.0f", v);
	else
		exm_fmt_human(buf, len, v);
}

const char *tui_tags_summary(struct tui_tags *t,
			     const struct exm_snapshot *snap,
			     unsigned long snap_gen, bool exact)
{
	struct exm_excl ex = { 0 };
	double erss = 0;
	bool has_erss = false;
	int has_ex;
	uint32_t *set_of;
	size_t n = 0;
	char e[32], f[32], c[32], s[32];

	if (!t->n || !snap)
		return NULL;
	if (t->sum_ok && t->sum_snap == snap_gen && t->sum_gen == t->gen &&
	    t->sum_exact == exact)
		return t->sum;
	set_of = calloc(snap->nprocs + 1, sizeof(*set_of));
	if (!set_of)
		return NULL;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		set_of[i] = EXM_SET_NONE;
		if (!tui_tags_has(t, p))
			continue;
		set_of[i] = 0;
		n++;
		if (p->state != EXM_PROC_DENIED && (p->sz.has & EXM_HAS_ERSS)) {
			erss += p->sz.erss;
			has_erss = true;
		}
	}
	has_ex = snap->sizes_only ? -1 : !exm_exclusive(snap, set_of, 1, &ex);
	free(set_of);
	size_text(e, sizeof(e), has_erss, erss, exact);
	size_text(f, sizeof(f), has_ex, (double)ex.bytes[EXM_EXCL_FREED],
		  exact);
	size_text(c, sizeof(c), has_ex, (double)ex.bytes[EXM_EXCL_CACHED],
		  exact);
	size_text(s, sizeof(s), has_ex, (double)ex.bytes[EXM_EXCL_SHMEM],
		  exact);
	snprintf(t->sum, sizeof(t->sum),
		 "tagged %zu: eff.res %s  freed %s  cached %s  shmem %s", n, e,
		 f, c, s);
	t->sum_ok = true;
	t->sum_snap = snap_gen;
	t->sum_gen = t->gen;
	t->sum_exact = exact;
	return t->sum;
}
