// SPDX-License-Identifier: GPL-2.0-or-later
/* view_strip.c - the page strip view; see view_strip.h. */
#include "tui/view_strip.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strip.h"
#include "tui/keys.h"

struct strip_priv {
	struct exm_strip strip;
	size_t top; /* first line on screen */
	int page;   /* lines on screen at the last draw */
};

static struct strip_priv *priv_of(struct tui_view *v)
{
	if (!v->priv)
		v->priv = calloc(1, sizeof(struct strip_priv));
	return v->priv;
}

void tui_strip_fini(struct tui_view *v)
{
	struct strip_priv *sp = v->priv;

	if (sp)
		exm_strip_fini(&sp->strip);
	free(sp);
	v->priv = NULL;
}

struct exm_row *tui_strip_build(struct tui_view *v, const struct tui_build *b,
				size_t *n, const char **why)
{
	const struct exm_proc *p = tui_ident_proc(b->snap, &v->ctx);
	const struct exm_mapping *m;
	struct strip_priv *sp = priv_of(v);
	struct exm_row *row;
	int err;

	*n = 0;
	if (!sp)
		return NULL;
	exm_strip_fini(&sp->strip);
	if (!p) {
		snprintf(v->why_buf, sizeof(v->why_buf),
			 "(process %d has exited)", (int)v->ctx.pid);
		*why = v->why_buf;
		return NULL;
	}
	m = exm_proc_mapping_at(p, v->ctx.addr);
	if (!m || m->start != v->ctx.addr) {
		*why = "(the process no longer has this mapping)";
		return NULL;
	}
	err = exm_strip_mapping(b->snap, p, m, &sp->strip);
	if (err == -ENODATA) {
		*why = "(this source has no per-page facts: use pagemap)";
		return NULL;
	}
	row = calloc(1, sizeof(*row));
	if (err || !row) {
		free(row);
		return NULL;
	}
	row->proc = p;
	row->map = m;
	row->file = m->file;
	row->addr = m->start;
	row->sz = m->sz;
	*n = 1;
	return row;
}

void tui_strip_crumb(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "%#" PRIx64 ": pages", v->ctx.addr);
}

static enum tui_role role_of(char c)
{
	switch (c) {
	case '.':
		return TUI_ROLE_DIM;
	case '1':
		return TUI_ROLE_PRIVATE;
	case '#':
		return TUI_ROLE_MANY;
	case 's':
		return TUI_ROLE_WARN;
	default:
		return TUI_ROLE_SHARED;
	}
}

void tui_strip_draw(struct tui_view *v, const struct tui_canvas *c)
{
	struct strip_priv *sp = v->priv;
	const struct exm_strip *s = sp ? &sp->strip : NULL;
	size_t lines, res = 0, swp = 0;
	char head[160];

	if (!s || !s->cells || c->h < 1)
		return;
	for (size_t i = 0; i < s->npages; i++) {
		res += s->cells[i].state == EXM_CELL_PRESENT;
		swp += s->cells[i].state == EXM_CELL_SWAPPED;
	}
	snprintf(head, sizeof(head),
		 "%zu pages: %zu resident, %zu swapped   . none  1-9 "
		 "processes  # ten or more  s swapped",
		 s->npages, res, swp);
	c->put(c, 0, 0, head, TUI_ROLE_TITLE);
	lines = exm_strip_lines(s);
	sp->page = c->h - 1 > 0 ? c->h - 1 : 1;
	if (sp->top + (size_t)sp->page > lines)
		sp->top = lines > (size_t)sp->page ? lines - sp->page : 0;
	for (int y = 1; y < c->h && sp->top + (size_t)(y - 1) < lines; y++) {
		char cells[EXM_STRIP_LINE + 1], addr[24];
		uint64_t a = exm_strip_line(s, sp->top + (size_t)(y - 1), cells,
					    sizeof(cells));
		int x = 17;

		snprintf(addr, sizeof(addr), "%16" PRIx64, a);
		c->put(c, y, 0, addr, TUI_ROLE_NORMAL);
		/* runs of one role at a time */
		for (size_t i = 0; cells[i];) {
			size_t k = i;
			char run[EXM_STRIP_LINE + 1];

			while (cells[k] && role_of(cells[k]) == role_of(cells[i]))
				k++;
			memcpy(run, cells + i, k - i);
			run[k - i] = 0;
			c->put(c, y, x + (int)i, run, role_of(cells[i]));
			i = k;
		}
	}
}

unsigned tui_strip_key(struct tui_view *v, int k)
{
	struct strip_priv *sp = v->priv;
	size_t page;

	if (!sp)
		return 0;
	page = sp->page > 1 ? (size_t)sp->page - 1 : 1;
	switch (k) {
	case TUI_KEY_UP:
	case 'k':
		sp->top = sp->top ? sp->top - 1 : 0;
		break;
	case TUI_KEY_DOWN:
	case 'j':
		sp->top++;
		break;
	case TUI_KEY_PPAGE:
		sp->top = sp->top > page ? sp->top - page : 0;
		break;
	case TUI_KEY_NPAGE:
		sp->top += page;
		break;
	case TUI_KEY_HOME:
		sp->top = 0;
		break;
	case TUI_KEY_END:
		sp->top = exm_strip_lines(&sp->strip);
		break;
	default:
		return 0;
	}
	return TUI_R_HANDLED | TUI_R_REDRAW;
}
