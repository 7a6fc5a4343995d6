// SPDX-License-Identifier: GPL-2.0-or-later
/* view_report.c - the live screen's report view; see view_report.h. */
#include "tui/screen/view_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/screen/keys.h"
#include "tui/print.h"
#include "tui/report.h"
#include "tui/text.h"
#include "tui/screen/view_strip.h"

/* Lines above the table's rows that stay when it scrolls: title, header. */
#define PINNED 2

struct report_priv {
	char *text;   /* the report as batch mode prints it (owned) */
	char **lines; /* into text */
	size_t nlines;
	size_t top; /* first scrolled line on screen */
	int page;
	int width; /* display columns of the widest line */
	int left;  /* display columns scrolled off on the left */
	int cols;  /* of the last draw: columns on screen */
};

static struct exm_elfcache *cache;

void tui_view_report_fini(void)
{
	exm_elfcache_free(cache);
	cache = NULL;
}

static void priv_clear(struct report_priv *rp)
{
	free(rp->text);
	free(rp->lines);
	rp->text = NULL;
	rp->lines = NULL;
	rp->nlines = 0;
}

static void report_fini(struct tui_view *v)
{
	struct report_priv *rp = v->priv;

	if (rp)
		priv_clear(rp);
	free(rp);
	v->priv = NULL;
}

static const struct tui_report_ops *ops_of(const struct tui_view *v)
{
	return v->ctx.id.name ? tui_report_find(v->ctx.id.name) : NULL;
}

static bool report_wants_prev(const struct tui_view *v)
{
	const struct tui_report_ops *op = ops_of(v);

	return op && op->wants_prev;
}

/* Split rp->text into lines (in place). */
static int split(struct report_priv *rp)
{
	size_t n = 0, k = 0;

	for (char *p = rp->text; *p; p++)
		n += *p == '\n';
	rp->lines = malloc((n + 1) * sizeof(*rp->lines));
	if (!rp->lines)
		return -1;
	for (char *p = rp->text, *e; *p; p = e + 1) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p) - 1;
		rp->lines[k++] = p;
		if (e[0] == '\n')
			*e = 0;
		else
			break;
	}
	rp->nlines = k;
	rp->width = 0;
	for (size_t i = 0; i < k; i++) {
		int w = tui_text_width(rp->lines[i]);

		if (w > rp->width)
			rp->width = w;
	}
	return 0;
}

static struct exm_row *report_build(struct tui_view *v,
				    const struct tui_build *b, size_t *n,
				    const char **why)
{
	const struct tui_report_ops *op = ops_of(v);
	struct report_priv *rp = v->priv;
	struct exm_proc_filter pf = { .user = b->user,
				      .pids = b->pids,
				      .npids = b->npids };
	struct tui_report_env env = { .snap = b->snap,
				      .prev = b->prev,
				      .filter = &pf };
	struct tui_report r;
	size_t len = 0;
	FILE *f;
	int ret;

	*n = 0;
	if (!op) {
		*why = "(no such report)";
		return NULL;
	}
	if (!rp)
		rp = v->priv = calloc(1, sizeof(*rp));
	if (!cache)
		cache = exm_elfcache_new(0);
	if (!rp || !cache) {
		*why = "(out of memory)";
		return NULL;
	}
	priv_clear(rp);
	env.cache = cache;
	ret = tui_report_build(op, &env, &r);
	f = open_memstream(&rp->text, &len);
	if (f) {
		if (ret != -ENOMEM)
			tui_report_text(f, &r, false);
		fclose(f);
	}
	tui_report_fini(&r);
	if (!f || ret == -ENOMEM || !rp->text || split(rp)) {
		priv_clear(rp);
		*why = "(out of memory)";
	}
	return NULL;
}

static void report_crumb(const struct tui_view *v, char *buf, size_t len)
{
	const struct tui_report_ops *op = ops_of(v);
	const char *t = op ? op->title : "?";
	const char *colon = strchr(t, ':');

	snprintf(buf, len, "%.*s", colon ? (int)(colon - t) : (int)strlen(t),
		 t);
}

/* Line ln at row y, its first rp->left columns scrolled off. */
static void put_line(const struct tui_canvas *c, int y,
		     const struct report_priv *rp, const char *ln,
		     enum tui_role role)
{
	int pad;
	const char *s = tui_text_skip(ln, rp->left, &pad);

	c->put(c, y, pad, s, role);
}

static void report_draw(struct tui_view *v, const struct tui_canvas *c)
{
	struct report_priv *rp = v->priv;
	size_t body;
	int y = 0;

	if (!rp || !rp->lines) {
		c->put(c, 0, 0, v->why ? v->why : "(no report yet)",
		       TUI_ROLE_NORMAL);
		return;
	}
	rp->cols = c->w;
	if (rp->left > rp->width - c->w)
		rp->left = rp->width > c->w ? rp->width - c->w : 0;
	for (size_t i = 0; i < PINNED && i < rp->nlines && y < c->h; i++)
		put_line(c, y++, rp, rp->lines[i], TUI_ROLE_TITLE);
	body = rp->nlines > PINNED ? rp->nlines - PINNED : 0;
	rp->page = c->h - y > 0 ? c->h - y : 1;
	if (rp->top + (size_t)rp->page > body)
		rp->top = body > (size_t)rp->page ? body - rp->page : 0;
	for (size_t i = rp->top; i < body && y < c->h; i++) {
		const char *ln = rp->lines[PINNED + i];

		put_line(c, y++, rp, ln,
			 strncmp(ln, "note: ", 6) ? TUI_ROLE_NORMAL
						  : TUI_ROLE_DIM);
	}
}

/*
 * Keys of the key table (keys.h) as a report takes them: up, down, pages,
 * Home, End scroll its lines; a report wider than the screen scrolls by
 * half a screen right with TUI_A_SCROLL_RIGHT, and with Right (Enter:
 * there is no row to open), left with TUI_A_SCROLL_LEFT and with Left
 * (Back) until its first column is back on screen, then Back leaves.
 */
static unsigned report_key(struct tui_view *v, int k)
{
	struct report_priv *rp = v->priv;
	int step, max;

	if (!rp)
		return 0;
	step = rp->cols > 3 ? rp->cols / 2 : 1;
	max = rp->width > rp->cols ? rp->width - rp->cols : 0;
	switch (tui_key_action(k)) {
	case TUI_A_ENTER:
	case TUI_A_SCROLL_RIGHT:
		rp->left = rp->left + step < max ? rp->left + step : max;
		return TUI_R_HANDLED | TUI_R_REDRAW;
	case TUI_A_BACK:
		if (!rp->left)
			return 0; /* the key table's: leave */
				  /* fall through */
	case TUI_A_SCROLL_LEFT:
		rp->left = rp->left > step ? rp->left - step : 0;
		return TUI_R_HANDLED | TUI_R_REDRAW;
	default:
		break;
	}
	return tui_scroll_key(&rp->top, rp->page,
			      rp->nlines > PINNED ? rp->nlines - PINNED : 0, k);
}

static unsigned report_needs_all(const struct tui_view *v)
{
	const struct tui_report_ops *op = ops_of(v);

	return op ? op->needs : 0;
}

const struct tui_view_ops tui_view_report = {
	.name = "report",
	.table = EXM_T_PROCS,
	.build = report_build,
	.crumb = report_crumb,
	.draw = report_draw,
	.key = report_key,
	.fini = report_fini,
	.no_row = true,
	.wants_prev = report_wants_prev,
	.needs_all = report_needs_all,
};

struct tui_view *tui_report_push(struct tui_stack *s, const char *name)
{
	struct tui_ident ctx = { .id.has_name = true };
	struct tui_view *v, *top = tui_stack_top(s);

	if (!tui_report_find(name))
		return NULL;
	if (top && top->ops == &tui_view_report)
		tui_stack_back(s);
	if (s->depth >= TUI_STACK_MAX)
		return NULL;
	ctx.id.name = name;
	ctx.label = (char *)name;
	v = tui_view_new(&tui_view_report, &ctx);
	if (v)
		s->v[s->depth++] = v;
	return v;
}
