// SPDX-License-Identifier: GPL-2.0-or-later
/* view.c - lists, drill-down stack and selection keeping (no curses). */
#include "tui/view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/format.h"

/* ---- identities ---- */

void tui_ident_fini(struct tui_ident *id)
{
	free(id->fname);
	free(id->name);
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

int tui_ident_copy(struct tui_ident *dst, const struct tui_ident *src)
{
	memset(dst, 0, sizeof(*dst));
	return tui_ident_merge(dst, src);
}

int tui_ident_merge(struct tui_ident *dst, const struct tui_ident *src)
{
	if (src->has_proc) {
		dst->has_proc = true;
		dst->pid = src->pid;
		dst->start_time = src->start_time;
	}
	if (src->has_file) {
		dst->has_file = true;
		dst->kind = src->kind;
		dst->dev_major = src->dev_major;
		dst->dev_minor = src->dev_minor;
		dst->inode = src->inode;
		if (dup_str(&dst->fname, src->fname))
			return -ENOMEM;
	}
	if (src->has_name) {
		dst->has_name = true;
		if (dup_str(&dst->name, src->name))
			return -ENOMEM;
	}
	if (src->has_addr) {
		dst->has_addr = true;
		dst->addr = src->addr;
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
	if (a->has_proc != b->has_proc || a->has_file != b->has_file ||
	    a->has_name != b->has_name || a->has_addr != b->has_addr)
		return false;
	if (a->has_proc &&
	    (a->pid != b->pid || a->start_time != b->start_time))
		return false;
	if (a->has_file &&
	    (a->kind != b->kind || a->dev_major != b->dev_major ||
	     a->dev_minor != b->dev_minor || a->inode != b->inode ||
	     !str_eq(a->fname, b->fname)))
		return false;
	if (a->has_name && !str_eq(a->name, b->name))
		return false;
	if (a->has_addr && a->addr != b->addr)
		return false;
	return true;
}

/* The identity of row r of table t, its strings borrowed from the row and
 * no label: for comparing without allocating. */
static void ident_peek(enum exm_table t, const struct exm_row *r,
		       struct tui_ident *out)
{
	memset(out, 0, sizeof(*out));
	switch (t) {
	case EXM_T_PROCS:
	case EXM_T_FPROCS:
		if (r->proc) {
			out->has_proc = true;
			out->pid = r->proc->pid;
			out->start_time = r->proc->start_time;
		}
		break;
	case EXM_T_FILES:
	case EXM_T_PFILES:
		if (r->file) {
			out->has_file = true;
			out->kind = r->file->kind;
			out->dev_major = r->file->dev_major;
			out->dev_minor = r->file->dev_minor;
			out->inode = r->file->inode;
			out->fname = r->file->name;
		}
		break;
	case EXM_T_MAPPINGS:
		out->has_addr = true;
		out->addr = r->map ? r->map->start : r->addr;
		break;
	case EXM_T_GROUPS:
		out->has_name = true;
		out->name = (char *)(r->name ? r->name : "");
		break;
	default:
		/* sections, symbols and anything later: name and address */
		out->has_name = true;
		out->name = (char *)(r->name ? r->name : "");
		out->has_addr = true;
		out->addr = r->addr;
		break;
	}
}

struct prev_key;
static void tui_rows_match(enum exm_table t, struct exm_row *rows, size_t n,
			   struct prev_key *keys, size_t nkeys);

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* A total order of identities (equal exactly when tui_ident_eq). */
static int ident_cmp(const struct tui_ident *a, const struct tui_ident *b)
{
	int c;

	if ((c = a->has_proc - b->has_proc) || (c = a->has_file - b->has_file) ||
	    (c = a->has_name - b->has_name) || (c = a->has_addr - b->has_addr))
		return c;
	if (a->has_proc && ((c = cmp_u64((uint64_t)a->pid, (uint64_t)b->pid)) ||
			    (c = cmp_u64(a->start_time, b->start_time))))
		return c;
	if (a->has_file &&
	    ((c = cmp_u64(a->kind, b->kind)) ||
	     (c = cmp_u64(a->dev_major, b->dev_major)) ||
	     (c = cmp_u64(a->dev_minor, b->dev_minor)) ||
	     (c = cmp_u64(a->inode, b->inode)) ||
	     (c = cmp_str(a->fname, b->fname))))
		return c;
	if (a->has_name && (c = cmp_str(a->name, b->name)))
		return c;
	return a->has_addr ? cmp_u64(a->addr, b->addr) : 0;
}

struct prev_key {
	struct tui_ident id;
	const struct exm_sizes *sz;
	const struct exm_kpss *kpss;
};

static int cmp_prev_key(const void *a, const void *b)
{
	return ident_cmp(&((const struct prev_key *)a)->id,
			 &((const struct prev_key *)b)->id);
}

/* rows[i].prev = the sizes of the key with the same identity. */
static void tui_rows_match(enum exm_table t, struct exm_row *rows, size_t n,
			   struct prev_key *keys, size_t nkeys)
{
	if (nkeys)
		qsort(keys, nkeys, sizeof(*keys), cmp_prev_key);
	for (size_t i = 0; i < n; i++) {
		struct prev_key k, *hit = NULL;

		ident_peek(t, &rows[i], &k.id);
		if (nkeys)
			hit = bsearch(&k, keys, nkeys, sizeof(*keys),
				      cmp_prev_key);
		memset(&rows[i].prev, 0, sizeof(rows[i].prev));
		memset(&rows[i].prev_kpss, 0, sizeof(rows[i].prev_kpss));
		if (hit) {
			rows[i].prev = *hit->sz;
			rows[i].prev_kpss = *hit->kpss;
		} else if (rows[i].flags & EXM_ROW_DELTA) {
			/* new since the baseline: it grew by all it has */
			rows[i].flags |= EXM_ROW_NEW;
			rows[i].prev.has = rows[i].sz.has;
			rows[i].prev_kpss.has = rows[i].kpss.has;
		}
	}
}

int tui_rows_set_prev(enum exm_table t, struct exm_row *rows, size_t n,
		      const struct exm_snapshot *prev)
{
	struct exm_row *old;
	struct prev_key *keys;
	size_t nold;

	if (t != EXM_T_PROCS && t != EXM_T_FILES)
		return 0; /* other tables: from their view's own rows */
	old = t == EXM_T_FILES ? exm_table_files(prev, &nold)
			       : exm_table_procs(prev, &nold);
	if (!old)
		return -ENOMEM;
	keys = malloc((nold + 1) * sizeof(*keys));
	if (!keys) {
		free(old);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nold; i++) {
		ident_peek(t, &old[i], &keys[i].id);
		keys[i].sz = &old[i].sz;
		keys[i].kpss = &old[i].kpss;
	}
	tui_rows_match(t, rows, n, keys, nold);
	free(keys);
	free(old);
	return 0;
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
	if (!err && peek.has_proc) {
		if (asprintf(&out->label, "%s (%d)",
			     r->proc->comm ? r->proc->comm : "?",
			     (int)r->proc->pid) < 0) {
			out->label = NULL;
			err = -ENOMEM;
		}
	} else if (!err && t == EXM_T_MAPPINGS) {
		snprintf(buf, sizeof(buf), "%#llx",
			 (unsigned long long)peek.addr);
		err = dup_str(&out->label, buf);
	} else if (!err && (peek.fname || peek.name)) {
		err = dup_str(&out->label, peek.fname ? peek.fname : peek.name);
	}
	if (err)
		tui_ident_fini(out);
	return err;
}

const struct exm_proc *tui_ident_proc(const struct exm_snapshot *snap,
				      const struct tui_ident *id)
{
	const struct exm_proc *p;

	if (!snap || !id->has_proc)
		return NULL;
	p = exm_snapshot_find_pid(snap, id->pid);
	if (!p || p->start_time != id->start_time)
		return NULL;
	return p;
}

const struct exm_file *tui_ident_file(const struct exm_snapshot *snap,
				      const struct tui_ident *id)
{
	if (!snap || !id->has_file)
		return NULL;
	for (size_t i = 0; i < snap->nfiles; i++) {
		const struct exm_file *f = snap->files[i];

		if (f->kind == id->kind && f->inode == id->inode &&
		    f->dev_major == id->dev_major &&
		    f->dev_minor == id->dev_minor && str_eq(f->name, id->fname))
			return f;
	}
	return NULL;
}

/* A drilled-down view: the label of the row that was entered. */
void tui_view_crumb_label(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s", v->ctx.label ? v->ctx.label : "?");
}

const struct tui_view_ops tui_view_none = {
	.name = "none", .table = EXM_T__COUNT,
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
	return id->has_proc || id->has_file || id->has_name || id->has_addr;
}

/* Rows of the current list in display order; sort + filter + selection. */
static void relist(struct tui_view *v)
{
	struct exm_proc_filter pf = { .user = v->user, .pids = v->pids,
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

/*
 * The rows of v in b->prev, their identities in keys (what tui_rows_match
 * reads): built before the current rows, so the view's own state (why,
 * crumbs) is the current snapshot's. *old: the rows (caller frees).
 */
static struct prev_key *prev_keys(struct tui_view *v, const struct tui_build *b,
				  struct exm_row **old, size_t *nold)
{
	struct tui_build pb = *b;
	const char *why = NULL;
	struct prev_key *keys;

	pb.snap = b->prev;
	pb.prev = NULL;
	*nold = 0;
	*old = v->ops->build ? v->ops->build(v, &pb, nold, &why) : NULL;
	if (!*old)
		return NULL;
	keys = malloc((*nold + 1) * sizeof(*keys));
	if (!keys) {
		free(*old);
		*old = NULL;
		return NULL;
	}
	for (size_t i = 0; i < *nold; i++) {
		ident_peek(v->ops->table, &(*old)[i], &keys[i].id);
		keys[i].sz = &(*old)[i].sz;
		keys[i].kpss = &(*old)[i].kpss;
	}
	return keys;
}

int tui_view_refresh(struct tui_view *v, const struct tui_build *b)
{
	const char *why = NULL;
	size_t n = 0, nold = 0;
	struct exm_row *rows, *old = NULL;
	struct prev_key *keys = NULL;

	if (b->prev && !v->ops->no_row &&
	    (unsigned)v->ops->table < EXM_T__COUNT)
		keys = prev_keys(v, b, &old, &nold);
	rows = v->ops->build ? v->ops->build(v, b, &n, &why) : NULL;
	for (size_t i = 0; rows && b->delta && b->prev && i < n; i++)
		rows[i].flags |= EXM_ROW_DELTA;
	if (rows && (keys || (b->delta && b->prev)))
		tui_rows_match(v->ops->table, rows, n, keys, keys ? nold : 0);
	free(keys);
	free(old);
	tui_view_clear_rows(v);
	v->why = why;
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
