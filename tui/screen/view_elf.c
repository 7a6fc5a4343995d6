// SPDX-License-Identifier: GPL-2.0-or-later
/* view_elf.c - ELF sections and symbols views; see view_elf.h. */
#include "tui/screen/view_elf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/elf.h"
#include "core/elf_table.h"
#include "core/elfcache.h"

static struct exm_elfcache *cache;
static bool demangle = true;
static const char *sysroot; /* --sysroot, or NULL */

void tui_elf_set_sysroot(const char *dir)
{
	sysroot = dir;
}

/* Why there are no rows: the cache's detail (a build-id that differs from
 * the recording's) when the file is unusable, else the usual text. */
static const char *no_rows(struct tui_view *v, const struct exm_elf *e,
			   bool symbols, size_t n)
{
	const char *w = cache ? exm_elfcache_why(cache) : "";

	if (e->state != EXM_ELF_OK && w[0]) {
		snprintf(v->why_buf, sizeof(v->why_buf), "(%s)", w);
		return v->why_buf;
	}
	return exm_elf_empty_text(e, symbols, n);
}

bool tui_elf_demangle(void)
{
	return demangle;
}

bool tui_elf_toggle_demangle(void)
{
	demangle = !demangle;
	return demangle;
}

void tui_view_elf_fini(void)
{
	exm_elfcache_free(cache);
	cache = NULL;
}

/* What a view remembers for its breadcrumb. */
struct elf_priv {
	char what[96]; /* "symtab", "all processes", ... */
};

static struct elf_priv *priv_of(struct tui_view *v)
{
	if (!v->priv)
		v->priv = calloc(1, sizeof(struct elf_priv));
	return v->priv;
}

void tui_elf_fini_view(struct tui_view *v)
{
	free(v->priv);
	v->priv = NULL;
}

/*
 * The process (NULL: across processes), file and parsed ELF of view v's
 * context in b->snap; false with *why set when there is none.
 */
static bool context(struct tui_view *v, const struct tui_build *b,
		    const struct exm_proc **p, const struct exm_file **f,
		    const struct exm_elf **e, const char **why)
{
	*p = NULL;
	if (v->ctx.id.has_proc) {
		*p = tui_ident_proc(b->snap, &v->ctx);
		if (!*p) {
			snprintf(v->why_buf, sizeof(v->why_buf),
				 "(process %d has exited)", (int)v->ctx.id.pid);
			*why = v->why_buf;
			return false;
		}
	}
	*f = tui_ident_file(b->snap, &v->ctx);
	if (!*f) {
		*why = "(no process maps this file any more)";
		return false;
	}
	if (*p && !exm_proc_find_pfile(*p, *f)) {
		*why = "(the process no longer maps this file)";
		return false;
	}
	if (!cache) {
		cache = exm_elfcache_new(0);
		if (cache && exm_elfcache_set_sysroot(cache, sysroot)) {
			exm_elfcache_free(cache);
			cache = NULL;
		}
	}
	if (!cache) {
		*why = "(out of memory)";
		return false;
	}
	*e = exm_elfcache_get(cache, b->snap, *p, *f,
			      exm_snapshot_proc_root(b->snap));
	return true;
}

/* No rows: say why instead of showing an empty list. */
static struct exm_row *empty(struct exm_row *rows, size_t *n, const char *text,
			     const char **why)
{
	if (rows && *n)
		return rows;
	free(rows);
	*n = 0;
	*why = text;
	return NULL;
}

struct exm_row *tui_elf_build_sections(struct tui_view *v,
				       const struct tui_build *b, size_t *n,
				       const char **why)
{
	const struct exm_proc *p;
	const struct exm_file *f;
	const struct exm_elf *e;
	struct elf_priv *pv = priv_of(v);
	struct exm_row *rows;

	*n = 0;
	if (!context(v, b, &p, &f, &e, why))
		return NULL;
	if (pv)
		snprintf(pv->what, sizeof(pv->what), "%s",
			 p ? "" : " (all processes)");
	rows = exm_table_sections(b->snap, p, f, e, n);
	if (!rows) {
		*why = "(out of memory)";
		return NULL;
	}
	return empty(rows, n, no_rows(v, e, false, *n), why);
}

/* context() plus the section the view is about (index into e->secs). */
static bool section_context(struct tui_view *v, const struct tui_build *b,
			    const struct exm_proc **p,
			    const struct exm_file **f, const struct exm_elf **e,
			    long *si, const char **why)
{
	if (!context(v, b, p, f, e, why))
		return false;
	if ((*e)->state != EXM_ELF_OK) {
		*why = no_rows(v, *e, false, 0);
		return false;
	}
	*si = -1;
	if (v->ctx.id.has_name && v->ctx.id.name)
		*si = exm_elf_section_lookup(*e, v->ctx.id.name,
					     v->ctx.id.has_addr ? v->ctx.id.addr
								: 0);
	if (*si < 0) {
		*why = "(no such section in the file)";
		return false;
	}
	return true;
}

struct exm_row *tui_elf_build_symbols(struct tui_view *v,
				      const struct tui_build *b, size_t *n,
				      const char **why)
{
	const struct exm_proc *p;
	const struct exm_file *f;
	const struct exm_elf *e;
	struct elf_priv *pv = priv_of(v);
	struct exm_row *rows;
	long si;

	*n = 0;
	if (!section_context(v, b, &p, &f, &e, &si, why))
		return NULL;
	if (pv)
		snprintf(pv->what, sizeof(pv->what), " (%s%s)",
			 exm_elf_symsrc_text(e), p ? "" : ", all processes");
	rows = exm_table_symbols(b->snap, p, f, e, si,
				 demangle ? EXM_SYMS_DEMANGLE : 0, n);
	if (!rows) {
		*why = "(out of memory)";
		return NULL;
	}
	return empty(rows, n, no_rows(v, e, true, *n), why);
}

struct exm_row *tui_elf_build_section_procs(struct tui_view *v,
					    const struct tui_build *b,
					    size_t *n, const char **why)
{
	const struct exm_proc *p;
	const struct exm_file *f;
	const struct exm_elf *e;
	struct exm_row *rows;
	long si;

	*n = 0;
	if (!section_context(v, b, &p, &f, &e, &si, why))
		return NULL;
	rows = exm_table_section_procs(b->snap, f, e, si, n);
	if (!rows) {
		*why = "(out of memory)";
		return NULL;
	}
	/* In the context of one process, only that process. */
	if (p) {
		size_t k = 0;

		for (size_t i = 0; i < *n; i++)
			if (rows[i].proc == p)
				rows[k++] = rows[i];
		*n = k;
	}
	return empty(rows, n, "(no process maps this section)", why);
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

void tui_elf_crumb_sections(const struct tui_view *v, char *buf, size_t len)
{
	const struct elf_priv *pv = v->priv;

	snprintf(buf, len, "%s: sections%s", base_name(v->ctx.id.fname),
		 pv ? pv->what : "");
}

void tui_elf_crumb_symbols(const struct tui_view *v, char *buf, size_t len)
{
	const struct elf_priv *pv = v->priv;

	snprintf(buf, len, "%s: symbols%s",
		 v->ctx.id.name ? v->ctx.id.name : "?", pv ? pv->what : "");
}

void tui_elf_crumb_section_procs(const struct tui_view *v, char *buf,
				 size_t len)
{
	snprintf(buf, len, "%s: processes",
		 v->ctx.id.name ? v->ctx.id.name : "?");
}

/* A gap row is not a section: nothing below it. */
const struct tui_view_ops *tui_elf_section_child(const struct tui_view *v,
						 const struct exm_row *r)
{
	return r->flags & EXM_ROW_GAP ? &tui_view_none : NULL;
}
