// SPDX-License-Identifier: GPL-2.0-or-later
/* view_strip.c - the page strip view; see view_strip.h. */
#include "tui/screen/view_strip.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/strip.h"
#include "tui/screen/keys.h"

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

unsigned tui_strip_needs_all(const struct tui_view *v)
{
	(void)v;
	return EXM_NEED_PLACES;
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
			 "(process %d has exited)", (int)v->ctx.id.pid);
		*why = v->why_buf;
		return NULL;
	}
	m = exm_proc_mapping_at(p, v->ctx.id.addr);
	if (!m || m->start != v->ctx.id.addr) {
		*why = "(the process no longer has this mapping)";
		return NULL;
	}
	if (m->counted) {
		*why = "(read mode counted this mapping's pages, each mapped "
		       "once, without their places: the next refresh reads "
		       "them)";
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
	snprintf(buf, len, "%#" PRIx64 ": pages", v->ctx.id.addr);
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

			while (cells[k] &&
			       role_of(cells[k]) == role_of(cells[i]))
				k++;
			memcpy(run, cells + i, k - i);
			run[k - i] = 0;
			c->put(c, y, x + (int)i, run, role_of(cells[i]));
			i = k;
		}
	}
}

unsigned tui_scroll_key(size_t *top, int page_lines, size_t nlines, int k)
{
	size_t page = page_lines > 1 ? (size_t)page_lines - 1 : 1;

	switch (k) {
	case TUI_KEY_UP:
	case 'k':
		*top = *top ? *top - 1 : 0;
		break;
	case TUI_KEY_DOWN:
	case 'j':
		*top += 1;
		break;
	case TUI_KEY_PPAGE:
		*top = *top > page ? *top - page : 0;
		break;
	case TUI_KEY_NPAGE:
		*top += page;
		break;
	case TUI_KEY_HOME:
		*top = 0;
		break;
	case TUI_KEY_END:
		*top = nlines;
		break;
	default:
		return 0;
	}
	return TUI_R_HANDLED | TUI_R_REDRAW;
}

unsigned tui_strip_key(struct tui_view *v, int k)
{
	struct strip_priv *sp = v->priv;

	if (!sp)
		return 0;
	return tui_scroll_key(&sp->top, sp->page, exm_strip_lines(&sp->strip),
			      k);
}

/* ---- the strip of a file across processes ---- */

struct fstrip_priv {
	struct exm_file_strip strip;
	unsigned ps; /* page size */
	size_t top;
	int page;
};

void tui_fstrip_fini(struct tui_view *v)
{
	struct fstrip_priv *fp = v->priv;

	if (fp)
		exm_file_strip_fini(&fp->strip);
	free(fp);
	v->priv = NULL;
}

struct exm_row *tui_fstrip_build(struct tui_view *v, const struct tui_build *b,
				 size_t *n, const char **why)
{
	const struct exm_file *f = tui_ident_file(b->snap, &v->ctx);
	struct fstrip_priv *fp = v->priv;
	struct exm_row *row;
	int err;

	*n = 0;
	if (!fp)
		fp = v->priv = calloc(1, sizeof(*fp));
	if (!fp)
		return NULL;
	exm_file_strip_fini(&fp->strip);
	if (!f) {
		*why = "(no process maps this file any more)";
		return NULL;
	}
	fp->ps = b->snap->sys.page_size;
	err = exm_strip_file(b->snap, f, &fp->strip);
	if (err == -EINVAL) {
		*why = "(not a file: no page strip)";
		return NULL;
	}
	if (err == -EFBIG) {
		*why = "(mapped too far into the file for a page strip)";
		return NULL;
	}
	row = calloc(1, sizeof(*row));
	if (err || !row) {
		free(row);
		return NULL;
	}
	row->file = f;
	row->sz = f->sz;
	row->nprocs = f->nprocs;
	*n = 1;
	return row;
}

void tui_fstrip_crumb(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s: pages", v->ctx.label ? v->ctx.label : "?");
}

void tui_fstrip_draw(struct tui_view *v, const struct tui_canvas *c)
{
	struct fstrip_priv *fp = v->priv;
	const struct exm_file_strip *s = fp ? &fp->strip : NULL;
	char line[512];
	size_t lines;
	int y = 0, x = 10;

	if (!s || c->h < 1)
		return;
	if (!s->has_pages) {
		c->put(c, 0, 0,
		       "(this source has no per-page facts: use "
		       "pagemap)",
		       TUI_ROLE_NORMAL);
		return;
	}
	exm_file_strip_head(s, line, sizeof(line));
	c->put(c, y++, 0, line, TUI_ROLE_TITLE);
	if (y < c->h)
		c->put(c, y, 0, "segments:", TUI_ROLE_NORMAL);
	for (size_t i = 0; i < s->nsegs && y < c->h; i++) {
		int k = snprintf(line, sizeof(line),
				 "%" PRIx64 "-%" PRIx64 " %s  ",
				 s->segs[i].first * (uint64_t)fp->ps,
				 s->segs[i].end * (uint64_t)fp->ps,
				 exm_perms_str(s->segs[i].perms));

		if (x + k > c->w && x > 10) {
			y++;
			x = 10;
		}
		if (y < c->h)
			c->put(c, y, x, line, TUI_ROLE_NORMAL);
		x += k;
	}
	y++;
	lines = exm_file_strip_lines(s);
	fp->page = c->h - y > 0 ? c->h - y : 1;
	if (fp->top + (size_t)fp->page > lines)
		fp->top = lines > (size_t)fp->page ? lines - fp->page : 0;
	for (size_t k = fp->top; y < c->h && k < lines; k++, y++) {
		char cells[EXM_STRIP_LINE + 1], addr[24];
		uint64_t first = exm_file_strip_line(s, k, cells);

		snprintf(addr, sizeof(addr), "%16" PRIx64,
			 first * (uint64_t)fp->ps);
		c->put(c, y, 0, addr, TUI_ROLE_NORMAL);
		for (size_t i = 0; cells[i];) {
			size_t e = i;
			char run[EXM_STRIP_LINE + 1];

			while (cells[e] &&
			       role_of(cells[e]) == role_of(cells[i]))
				e++;
			memcpy(run, cells + i, e - i);
			run[e - i] = 0;
			c->put(c, y, 17 + (int)i, run, role_of(cells[i]));
			i = e;
		}
	}
}

unsigned tui_fstrip_key(struct tui_view *v, int k)
{
	struct fstrip_priv *fp = v->priv;

	if (!fp)
		return 0;
	return tui_scroll_key(&fp->top, fp->page,
			      exm_file_strip_lines(&fp->strip), k);
}
