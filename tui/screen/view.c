// SPDX-License-Identifier: GPL-2.0-or-later
/* view.c - lists, drill-down stack and selection keeping (no curses). */
#include "tui/screen/view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/diff.h"
#include "core/format.h"

/* ---- identities ---- */

void tui_ident_fini(struct tui_ident *id)
{
	free((char *)id->id.fname);
	free((char *)id->id.name);
	free(id->label);
	memset(id, 0, sizeof(*id));
}

static int dup_str(char **dst, const char *src)
{
	char *s = NULL;

	if (src) {
		s = strdup(src);
		if (!s)
			return -ENOMEM;
	}
	free(*dst);
	*dst = s;
	return 0;
}

/* The same for a string of an owned identity. */
static int dup_id_str(const char **dst, const char *src)
{
	char *s = NULL;

	if (dup_str(&s, src))
		return -ENOMEM;
	free((char *)*dst);
	*dst = s;
	return 0;
}

int tui_ident_copy(struct tui_ident *dst, const struct tui_ident *src)
{
	memset(dst, 0, sizeof(*dst));
	return tui_ident_merge(dst, src);
}

int tui_ident_merge(struct tui_ident *dst, const struct tui_ident *src)
{
	const struct exm_ident *s = &src->id;
	struct exm_ident *d = &dst->id;

	if (s->has_proc) {
		d->has_proc = true;
		d->pid = s->pid;
		d->start_time = s->start_time;
	}
	if (s->has_file) {
		d->has_file = true;
		d->kind = s->kind;
		d->dev_major = s->dev_major;
		d->dev_minor = s->dev_minor;
		d->inode = s->inode;
		if (dup_id_str(&d->fname, s->fname))
			return -ENOMEM;
	}
	if (s->has_name) {
		d->has_name = true;
		if (dup_id_str(&d->name, s->name))
			return -ENOMEM;
	}
	if (s->has_addr) {
		d->has_addr = true;
		d->addr = s->addr;
	}
	if (src->label && dup_str(&dst->label, src->label))
		return -ENOMEM;
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

bool tui_ident_eq(const struct tui_ident *a, const struct tui_ident *b)
{
	return !exm_ident_cmp(&a->id, &b->id);
}

/* The identity of row r of table t, its strings borrowed from the row and
 * no label: for comparing without allocating. */
static void ident_peek(enum exm_table t, const struct exm_row *r,
		       struct tui_ident *out)
{
	out->label = NULL;
	exm_ident_of_row(t, r, &out->id);
}

int tui_ident_of_row(enum exm_table t, const struct exm_row *r,
		     struct tui_ident *out)
{
	struct tui_ident peek;
	char buf[64];
	int err;

	ident_peek(t, r, &peek);
	memset(out, 0, sizeof(*out));
	err = tui_ident_merge(out, &peek);
	if (!err && peek.id.has_proc) {
		if (asprintf(&out->label, "%s (%d)",
			     r->proc->comm ? r->proc->comm : "?",
			     (int)r->proc->pid) < 0) {
			out->label = NULL;
			err = -ENOMEM;
		}
	} else if (!err && t == EXM_T_MAPPINGS) {
		snprintf(buf, sizeof(buf), "%#llx",
			 (unsigned long long)peek.id.addr);
		err = dup_str(&out->label, buf);
	} else if (!err && (peek.id.fname || peek.id.name)) {
		err = dup_str(&out->label,
			      peek.id.fname ? peek.id.fname : peek.id.name);
	}
	if (err)
		tui_ident_fini(out);
	return err;
}

const struct exm_proc *tui_ident_proc(const struct exm_snapshot *snap,
				      const struct tui_ident *id)
{
	if (!id->id.has_proc)
		return NULL;
	return exm_snapshot_find_proc(snap, id->id.pid, id->id.start_time);
}

const struct exm_file *tui_ident_file(const struct exm_snapshot *snap,
				      const struct tui_ident *id)
{
	return exm_snapshot_same_file(snap, &id->id);
}

/* A drilled-down view: the label of the row that was entered. */
void tui_view_crumb_label(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s", v->ctx.label ? v->ctx.label : "?");
}

const struct tui_view_ops tui_view_none = {
	.name = "none",
	.table = EXM_T__COUNT,
};

const struct tui_view_ops *tui_view_child(const struct tui_view *v,
					  const struct exm_row *r, bool alt)
{
	const struct tui_view_ops *ops = NULL;

	if (!r)
		return NULL;
	if (!alt && v->ops->child)
		ops = v->ops->child(v, r);
	if (!ops)
		ops = alt ? v->ops->alt : v->ops->enter;
	if (ops == &tui_view_none)
		return NULL;
	return ops;
}

/* ---- a view's list ---- */

struct tui_view *tui_view_new(const struct tui_view_ops *ops,
			      const struct tui_ident *ctx)
{
	struct tui_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->ops = ops;
	if (ctx && tui_ident_copy(&v->ctx, ctx)) {
		tui_ident_fini(&v->ctx);
		free(v);
		return NULL;
	}
	exm_table_natural_sort(ops->table, &v->sort_field, &v->sort_desc);
	v->page = 1;
	return v;
}

void tui_view_clear_rows(struct tui_view *v)
{
	free(v->rows);
	free(v->vis);
	v->rows = NULL;
	v->vis = NULL;
	v->nrows = v->nvis = 0;
}

void tui_view_free(struct tui_view *v)
{
	if (!v)
		return;
	if (v->ops->fini)
		v->ops->fini(v);
	tui_view_clear_rows(v);
	tui_ident_fini(&v->ctx);
	tui_ident_fini(&v->sel);
	free(v->filter);
	free(v->user);
	free(v);
}

const struct exm_row *tui_view_selected(const struct tui_view *v)
{
	if (!v->nvis)
		return NULL;
	return &v->rows[v->vis[v->cursor]];
}

void tui_view_fix_scroll(struct tui_view *v)
{
	size_t page = v->page > 0 ? (size_t)v->page : 1;

	if (!v->nvis) {
		v->cursor = v->top = 0;
		return;
	}
	if (v->cursor >= v->nvis)
		v->cursor = v->nvis - 1;
	if (v->top > v->cursor)
		v->top = v->cursor;
	if (v->cursor >= v->top + page)
		v->top = v->cursor - page + 1;
	/* no empty space below the last row when the list could fill it */
	if (v->nvis >= page && v->top > v->nvis - page)
		v->top = v->nvis - page;
	if (v->nvis < page)
		v->top = 0;
}

void tui_view_set_cursor(struct tui_view *v, long i)
{
	if (i < 0)
		i = 0;
	if (v->nvis && (size_t)i >= v->nvis)
		i = (long)v->nvis - 1;
	v->cursor = v->nvis ? (size_t)i : 0;
	tui_view_fix_scroll(v);
	tui_ident_fini(&v->sel);
	if (v->nvis)
		tui_ident_of_row(v->ops->table, tui_view_selected(v), &v->sel);
}

static bool has_ci(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle);
}

bool tui_row_matches(enum exm_table t, const struct exm_row *r,
		     const char *text)
{
	if (!text || !*text)
		return true;
	if (r->proc && (t == EXM_T_PROCS || t == EXM_T_FPROCS)) {
		if (has_ci(r->proc->comm, text) ||
		    has_ci(r->proc->cmdline, text) ||
		    has_ci(r->proc->user, text))
			return true;
	}
	if (r->file && t != EXM_T_FPROCS && has_ci(r->file->name, text))
		return true;
	if (r->name && has_ci(r->name, text))
		return true;
	if (t == EXM_T_GROUPS && r->proc && has_ci(r->proc->user, text))
		return true;
	return false;
}

static bool ident_any(const struct tui_ident *id)
{
	return id->id.has_proc || id->id.has_file || id->id.has_name ||
	       id->id.has_addr;
}

/* Rows of the current list in display order; sort + filter + selection. */
static void relist(struct tui_view *v)
{
	struct exm_proc_filter pf = { .user = v->user,
				      .pids = v->pids,
				      .npids = v->npids };
	size_t j = 0, off;
	bool found = false;
	enum exm_table t = v->ops->table;
	long i;

	off = v->cursor >= v->top ? v->cursor - v->top : 0;
	if ((unsigned)t < EXM_T__COUNT && v->nrows)
		exm_rows_sort(v->rows, v->nrows, v->sort_field, t,
			      v->sort_desc);
	for (size_t k = 0; k < v->nrows; k++) {
		const struct exm_row *r = &v->rows[k];

		if (r->proc && (t == EXM_T_PROCS || t == EXM_T_FPROCS) &&
		    !exm_proc_filter_match(&pf, r->proc))
			continue;
		if (!tui_row_matches(t, r, v->filter))
			continue;
		v->vis[j++] = k;
	}
	v->nvis = j;

	for (size_t k = 0; k < v->nvis && ident_any(&v->sel); k++) {
		struct tui_ident id;

		ident_peek(t, &v->rows[v->vis[k]], &id);
		found = tui_ident_eq(&id, &v->sel);
		if (found) {
			v->cursor = k;
			break;
		}
	}
	/* vanished: stay at the same place, on the row that took its place */
	i = (long)v->cursor;
	if (found) {
		v->top = v->cursor >= off ? v->cursor - off : 0;
		tui_view_fix_scroll(v);
	} else {
		tui_view_set_cursor(v, i);
	}
}

/* The rows of v in b->prev (caller frees; NULL when none): built before
 * the current rows, so the view's own state (why, crumbs) is the current
 * snapshot's. */
static struct exm_row *prev_rows(struct tui_view *v, const struct tui_build *b,
				 size_t *nold)
{
	struct tui_build pb = *b;
	const char *why = NULL;

	pb.snap = b->prev;
	pb.prev = NULL;
	*nold = 0;
	return v->ops->build ? v->ops->build(v, &pb, nold, &why) : NULL;
}

int tui_view_refresh(struct tui_view *v, const struct tui_build *b)
{
	const char *why = NULL;
	size_t n = 0, nold = 0;
	struct exm_row *rows, *old = NULL;
	int err = 0;

	if (b->prev && !v->ops->no_row &&
	    (unsigned)v->ops->table < EXM_T__COUNT)
		old = prev_rows(v, b, &nold);
	rows = v->ops->build ? v->ops->build(v, b, &n, &why) : NULL;
	for (size_t i = 0; rows && b->delta && b->prev && i < n; i++)
		rows[i].flags |= EXM_ROW_DELTA;
	if (rows && (old || (b->delta && b->prev)))
		err = exm_rows_set_prev(v->ops->table, rows, n, old,
					old ? nold : 0);
	free(old);
	tui_view_clear_rows(v);
	v->why = why;
	if (err) {
		free(rows);
		rows = NULL;
		why = NULL;
	}
	if (!rows) {
		if (!why && !v->ops->no_row)
			v->why = "(out of memory)";
		v->cursor = v->top = 0;
		return why || v->ops->no_row ? 0 : -ENOMEM;
	}
	v->vis = malloc((n + 1) * sizeof(*v->vis));
	if (!v->vis) {
		free(rows);
		v->why = "(out of memory)";
		return -ENOMEM;
	}
	v->rows = rows;
	v->nrows = n;
	if (!str_eq(v->user, b->user) && dup_str(&v->user, b->user))
		return -ENOMEM;
	v->pids = b->pids;
	v->npids = b->npids;
	relist(v);
	return 0;
}

void tui_view_relist(struct tui_view *v)
{
	if (v->vis)
		relist(v);
}

int tui_view_set_filter(struct tui_view *v, const char *text)
{
	if (dup_str(&v->filter, text && *text ? text : NULL))
		return -ENOMEM;
	tui_view_relist(v);
	return 0;
}

void tui_view_set_sort(struct tui_view *v, int f, bool desc)
{
	if (f < 0 || f >= EXM_F__COUNT)
		return;
	v->sort_field = f;
	v->sort_desc = desc;
	tui_view_relist(v);
}

bool tui_view_search(struct tui_view *v, const char *text, int dir)
{
	size_t n = v->nvis;
	enum exm_table t = v->ops->table;

	if (!n || !text || !*text)
		return false;
	for (size_t k = 0; k < n; k++) {
		size_t i;

		if (dir < 0)
			i = (v->cursor + n - 1 - k) % n;
		else
			i = (v->cursor + k + (dir > 0)) % n;
		if (tui_row_matches(t, &v->rows[v->vis[i]], text)) {
			tui_view_set_cursor(v, (long)i);
			return true;
		}
	}
	return false;
}

size_t tui_table_fields(enum exm_table t, int *out, size_t max)
{
	size_t n = 0;

	for (int f = 0; f < EXM_F__COUNT && n < max; f++)
		if (exm_fields[f].tables & EXM_TBIT(t))
			out[n++] = f;
	return n;
}

/* ---- the stack ---- */

struct tui_view *tui_stack_enter(struct tui_stack *s, bool alt)
{
	struct tui_view *top = tui_stack_top(s), *child;
	const struct exm_row *r;
	const struct tui_view_ops *ops;
	struct tui_ident id, ctx;

	if (!top || s->depth >= TUI_STACK_MAX)
		return NULL;
	r = tui_view_selected(top);
	ops = tui_view_child(top, r, alt);
	if (!ops)
		return NULL;
	if (tui_ident_copy(&ctx, &top->ctx) ||
	    tui_ident_of_row(top->ops->table, r, &id)) {
		tui_ident_fini(&ctx);
		return NULL;
	}
	child = tui_ident_merge(&ctx, &id) ? NULL : tui_view_new(ops, &ctx);
	tui_ident_fini(&id);
	tui_ident_fini(&ctx);
	if (!child)
		return NULL;
	s->v[s->depth++] = child;
	return child;
}

bool tui_stack_back(struct tui_stack *s)
{
	if (s->depth <= 1)
		return false;
	tui_view_free(s->v[--s->depth]);
	s->v[s->depth] = NULL;
	return true;
}

void tui_stack_fini(struct tui_stack *s)
{
	while (s->depth > 0) {
		tui_view_free(s->v[--s->depth]);
		s->v[s->depth] = NULL;
	}
}

int tui_stack_reset(struct tui_stack *s, const struct tui_view_ops *ops)
{
	struct tui_view *v = tui_view_new(ops, NULL);

	if (!v)
		return -ENOMEM;
	tui_stack_fini(s);
	s->v[0] = v;
	s->depth = 1;
	return 0;
}

void tui_stack_crumbs(const struct tui_stack *s, char *buf, size_t len)
{
	size_t used = 0;
	char one[512];

	if (!len)
		return;
	buf[0] = 0;
	for (int i = 0; i < s->depth && used + 1 < len; i++) {
		int k;

		s->v[i]->ops->crumb(s->v[i], one, sizeof(one));
		k = snprintf(buf + used, len - used, "%s%s", i ? " > " : "",
			     one);
		if (k < 0)
			break;
		used += (size_t)k;
	}
}
