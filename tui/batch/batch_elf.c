// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * batch_elf.c - `exmtop -b --sections FILE` and `--symbols FILE:SECTION`;
 * see batch_elf.h. Rows come from core/elf_table.c and are printed by the
 * generic printers of batch.c.
 */
#include "tui/batch/batch_elf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/account.h"
#include "core/elf.h"
#include "core/elf_table.h"
#include "core/elfcache.h"
#include "core/fields.h"
#include "core/format.h"
#include "core/openmetrics.h"
#include "core/source.h"
#include "tui/batch/batch.h"
#include "tui/batch/drive.h"
#include "tui/query.h"
#include "tui/text.h"

struct req {
	char *file;	  /* FILE argument (owned) */
	char *section;	  /* SECTION for --symbols, else NULL (owned) */
	enum exm_table t; /* EXM_T_SECTIONS or EXM_T_SYMBOLS */
	int fields[TUI_MAX_FIELDS + 1];
	int sort_f;
	bool desc, by_addr; /* by_addr: no -o given, keep address order */
	/* why the file is unusable in detail (a build-id that differs from
	 * the recording's), or "" */
	const char *why;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

const struct exm_file *tui_elf_find_file(const struct exm_snapshot *snap,
					 const char *arg, bool *ambiguous)
{
	const struct exm_file *f = exm_snapshot_find_file(snap, arg), *hit;
	char real[PATH_MAX];

	*ambiguous = false;
	if (f)
		return f;
	if (realpath(arg, real) && (f = exm_snapshot_find_file(snap, real)))
		return f;
	hit = NULL;
	for (size_t i = 0; i < snap->nfiles; i++) {
		f = snap->files[i];
		if (f->kind != EXM_KIND_FILE || strcmp(base_name(f->name), arg))
			continue;
		if (hit) {
			*ambiguous = true;
			return NULL;
		}
		hit = f;
	}
	return hit;
}

static void put_str(FILE *out, const char *key, const char *val)
{
	fprintf(out, "\"%s\":", key);
	if (val)
		exm_json_str(out, val);
	else
		fputs("null", out);
	fputc(',', out);
}

/* The state as JSON and text show it: "ok" or the text without parens. */
static void state_word(const struct exm_elf *e, char *buf, size_t len)
{
	const char *t = exm_elf_state_text(e);
	size_t n;

	if (!*t) {
		snprintf(buf, len, "ok");
		return;
	}
	n = strlen(t);
	snprintf(buf, len, "%.*s", (int)(n > 2 ? n - 2 : n), n > 2 ? t + 1 : t);
}

/* The rows the request asks for, sorted. NULL on ENOMEM. */
static struct exm_row *build(const struct req *q,
			     const struct exm_snapshot *snap,
			     const struct exm_proc *p, const struct exm_file *f,
			     const struct exm_elf *e, long secidx, size_t *n)
{
	struct exm_row *rows;

	if (q->t == EXM_T_SECTIONS)
		rows = exm_table_sections(snap, p, f, e, n);
	else
		rows = exm_table_symbols(snap, p, f, e, secidx,
					 EXM_SYMS_DEMANGLE, n);
	if (rows && !q->by_addr)
		exm_rows_sort(rows, *n, q->sort_f, q->t, q->desc);
	return rows;
}

static int emit(FILE *out, const struct tui_opts *o, const struct req *q,
		const struct exm_snapshot *snap, const struct exm_proc *p,
		const struct exm_file *f, const struct exm_elf *e, long iter,
		const char *stamp)
{
	long secidx = -1;
	struct exm_row *rows;
	char word[64];
	size_t n;

	if (q->section && strcmp(q->section, "*") && e->state == EXM_ELF_OK) {
		secidx = exm_elf_find_section(e, q->section);
		if (secidx < 0) {
			tui_error("%s: no section %s", f->name, q->section);
			return 1;
		}
	}
	rows = build(q, snap, p, f, e, secidx, &n);
	if (!rows)
		return -ENOMEM;
	state_word(e, word, sizeof(word));
	if (o->format == TUI_FMT_OPENMETRICS) {
		int ret = exm_om_write_elf(out, snap, q->t, f->name,
					   p ? p->pid : 0, rows, n);

		free(rows);
		return ret;
	}
	if (o->format == TUI_FMT_JSON) {
		tui_json_doc_begin(out, snap, NULL);
		put_str(out, "file", f->name);
		if (p)
			fprintf(out, "\"pid\":%d,", (int)p->pid);
		else
			fputs("\"pid\":null,", out);
		fprintf(out, "\"nprocs\":%u,", p ? 1u : f->nprocs);
		put_str(out, "state", word);
		if (q->why && q->why[0])
			put_str(out, "why", q->why);
		put_str(out, "symbols_from",
			e->state == EXM_ELF_OK ? exm_elf_symsrc_text(e) : NULL);
		put_str(out, "debug_file", e->debug_path);
		if (q->section)
			put_str(out, "section", q->section);
		fprintf(out, "\"%s\":",
			q->t == EXM_T_SECTIONS ? "sections" : "symbols");
		tui_print_json_rows(out, q->t, rows, n, q->fields);
		free(rows);
		/* Across processes: the same table for each process. */
		if (!p) {
			fputs(",\"processes\":[", out);
			for (size_t i = 0, k = 0; i < snap->nprocs; i++) {
				const struct exm_proc *pp = &snap->procs[i];

				if (!exm_proc_find_pfile(pp, f))
					continue;
				rows = build(q, snap, pp, f, e, secidx, &n);
				if (!rows)
					return -ENOMEM;
				fprintf(out, "%s{\"pid\":%d,\"comm\":",
					k++ ? "," : "", (int)pp->pid);
				exm_json_str(out, pp->comm);
				fprintf(out, ",\"%s\":",
					q->t == EXM_T_SECTIONS ? "sections"
							       : "symbols");
				tui_print_json_rows(out, q->t, rows, n,
						    q->fields);
				fputc('}', out);
				free(rows);
			}
			fputc(']', out);
		}
		tui_json_doc_end(out);
		return 0;
	}
	if (o->format == TUI_FMT_CSV) {
		tui_print_csv(out, q->t, rows, n, q->fields, iter == 0, stamp);
	} else {
		char buf[512], *name;
		const char *why = exm_elf_empty_text(e, q->t == EXM_T_SYMBOLS,
						     n);

		if (iter)
			fputc('\n', out);
		tui_print_summary(out, snap);
		name = exm_escape_all(buf, sizeof(buf), f->name);
		if (p)
			fprintf(out, "%s in process %d", name, (int)p->pid);
		else
			fprintf(out, "%s in %u processes", name, f->nprocs);
		if (name != buf)
			free(name);
		if (q->section)
			fprintf(out, ", section %s", q->section);
		if (e->state == EXM_ELF_OK && q->t == EXM_T_SYMBOLS)
			fprintf(out, ", symbols from %s",
				exm_elf_symsrc_text(e));
		fputc('\n', out);
		if (why && e->state != EXM_ELF_OK && q->why && q->why[0])
			fprintf(out, "(%s)\n", q->why);
		else if (why)
			fprintf(out, "%s\n", why);
		else
			tui_print_text(out, q->t, rows, n, q->fields, o->bytes);
	}
	free(rows);
	return 0;
}

static void elf_end(struct tui_run *r)
{
	struct req *q = r->priv;

	if (q) {
		free(q->file);
		free(q->section);
		free(q);
	}
	r->priv = NULL;
}

static int elf_begin(struct tui_run *r)
{
	const struct tui_opts *o = r->o;
	const char *colon;
	struct req *q = calloc(1, sizeof(*q));

	if (!q)
		return 1;
	r->priv = q;
	if (o->npids > 1) {
		tui_error("--sections/--symbols take one -p PID "
			  "(or none for all processes)");
		return 2;
	}
	if (o->sections) {
		q->t = EXM_T_SECTIONS;
		q->file = strdup(o->sections);
	} else {
		q->t = EXM_T_SYMBOLS;
		colon = strrchr(o->symbols, ':');
		if (!colon || colon == o->symbols || !colon[1]) {
			tui_error("--symbols wants FILE:SECTION "
				  "(SECTION * for all symbols)");
			return 2;
		}
		q->file = strndup(o->symbols, (size_t)(colon - o->symbols));
		q->section = strdup(colon + 1);
		if (!q->section)
			return 1;
	}
	if (!q->file)
		return 1;
	if (!*q->file) {
		tui_error("empty FILE");
		return 2;
	}
	memcpy(q->fields, tui_query_fields(&r->q, q->t), sizeof(q->fields));
	tui_query_sort(&r->q, q->t, &q->sort_f, &q->desc);
	q->by_addr = !r->q.sort_given;
	/* Everything, of every process: sharing with other processes decides
	 * the effective sizes even in the context of one (-p names the
	 * context, not the scan). */
	tui_query_scan(&r->q, ~0u, &r->scan);
	r->scan.pids = NULL;
	r->scan.npids = 0;
	return 0;
}

static int elf_emit(FILE *out, struct tui_run *r,
		    const struct exm_snapshot *snap,
		    const struct exm_snapshot *prev, long iter, size_t number)
{
	const struct tui_opts *o = r->o;
	struct req *q = r->priv;
	const struct exm_proc *p = NULL;
	const struct exm_file *f;
	const struct exm_elf *e;
	char stamp[TUI_CSV_STAMP_LEN];
	bool amb;

	(void)prev;
	if (o->npids == 1) {
		p = exm_snapshot_find_pid(snap, o->pids[0]);
		if (!p) {
			tui_error("process %d not found", (int)o->pids[0]);
			return 1;
		}
	}
	f = tui_elf_find_file(snap, q->file, &amb);
	if (f && p && !exm_proc_find_pfile(p, f))
		f = NULL;
	if (!f) {
		tui_error("%s: %s", q->file,
			  amb ? "several mapped files have this name; "
				"give the full path"
			      : "not mapped by the scanned processes");
		return 1;
	}
	e = exm_elfcache_get(r->cache, snap, p, f,
			     exm_snapshot_proc_root(snap));
	q->why = exm_elfcache_why(r->cache);
	return emit(out, o, q, snap, p, f, e, iter,
		    tui_csv_stamp(stamp, snap, number));
}

const struct tui_batch_ops tui_elf_ops = {
	.begin = elf_begin,
	.emit = elf_emit,
	.end = elf_end,
	.elf = true,
};
