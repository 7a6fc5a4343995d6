// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * batch_elf.c - `exmtop -b --sections FILE` and `--symbols FILE:SECTION`;
 * see batch_elf.h. Rows come from core/elf_table.c and are printed by the
 * generic printers of batch.c.
 */
#include "tui/batch_elf.h"

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
#include "core/source.h"
#include "core/source_replay.h"
#include "tui/batch.h"
#include "tui/query.h"
#include "tui/text.h"
#include "tui/view.h"

struct req {
	char *file;	    /* FILE argument (owned) */
	char *section;	    /* SECTION for --symbols, else NULL (owned) */
	enum exm_table t;   /* EXM_T_SECTIONS or EXM_T_SYMBOLS */
	int fields[TUI_MAX_FIELDS + 1];
	int sort_f;
	bool desc, by_addr; /* by_addr: no -o given, keep address order */
	struct exm_scan_opts scan; /* what each snapshot reads */
	double delay;		   /* between snapshots */
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
	snprintf(buf, len, "%.*s", (int)(n > 2 ? n - 2 : n),
		 n > 2 ? t + 1 : t);
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
			tui_error("%s: no section %s", f->name,
				  q->section);
			return 1;
		}
	}
	rows = build(q, snap, p, f, e, secidx, &n);
	if (!rows)
		return -ENOMEM;
	state_word(e, word, sizeof(word));
	if (o->format == TUI_FMT_JSON) {
		fputc('{', out);
		tui_print_json_header(out, snap);
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
		fputs("}\n", out);
		return 0;
	}
	if (o->format == TUI_FMT_CSV) {
		tui_print_csv(out, q->t, rows, n, q->fields, iter == 0,
			      stamp);
	} else {
		char name[512];
		const char *why = exm_elf_empty_text(e, q->t == EXM_T_SYMBOLS,
						     n);

		if (iter)
			fputc('\n', out);
		tui_print_summary(out, snap);
		exm_escape(name, sizeof(name), f->name);
		if (p)
			fprintf(out, "%s in process %d", name, (int)p->pid);
		else
			fprintf(out, "%s in %u processes", name, f->nprocs);
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

static int parse_req(const struct tui_opts *o, struct req *q)
{
	char err[256];
	const char *colon;

	memset(q, 0, sizeof(*q));
	if (o->sections && o->symbols) {
		tui_error("use --sections or --symbols, not "
			  "both");
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
	{
		struct tui_query qq;
		int ret = tui_query_build(&qq, o, false, err, sizeof(err));

		if (!ret) {
			memcpy(q->fields, tui_query_fields(&qq, q->t),
			       sizeof(q->fields));
			tui_query_sort(&qq, q->t, &q->sort_f, &q->desc);
			q->by_addr = !qq.sort_given;
			/* Everything, of every process: sharing with other
			 * processes decides the effective sizes even in the
			 * context of one (-p names the context, not the
			 * scan). */
			tui_query_scan(&qq, ~0u, &q->scan);
			q->scan.pids = NULL;
			q->scan.npids = 0;
			q->delay = qq.set.delay;
		}
		tui_query_fini(&qq);
		if (ret == -ENOMEM)
			return 1;
		if (ret)
			goto bad;
	}
	return 0;
bad:
	tui_error("%s", err);
	return 2;
}

void tui_pause_secs(double d)
{
	struct timespec ts = { .tv_sec = (time_t)d };

	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int tui_batch_elf(const struct tui_opts *o)
{
	long iters;
	struct exm_elfcache *cache = NULL;
	struct exm_source *src = NULL;
	struct exm_outfile of;
	struct req q;
	FILE *out;
	int ret, end;

	tui_out_init(o, &of);
	ret = parse_req(o, &q);
	if (ret)
		goto out;
	ret = tui_open_source(o, &src);
	if (ret)
		goto out;
	iters = tui_batch_iterations(o, src, false, &ret);
	if (ret)
		goto out;
	cache = exm_elfcache_new(0);
	if (!cache || exm_elfcache_set_sysroot(cache, o->sysroot)) {
		ret = 1;
		goto out;
	}
	if (o->npids > 1) {
		tui_error("--sections/--symbols take one -p PID "
			  "(or none for all processes)");
		ret = 2;
		goto out;
	}
	for (long i = 0; i < iters; i++) {
		const struct exm_proc *p = NULL;
		const struct exm_file *f;
		const struct exm_elf *e;
		char stamp[TUI_CSV_STAMP_LEN];
		struct exm_snapshot *snap;
		size_t number;
		bool amb;

		if (i && !exm_replay_count(src)) /* a replay does not wait */
			tui_pause_secs(q.delay);
		number = exm_replay_count(src) ? exm_replay_tell(src) + 1
					       : (size_t)i + 1;
		ret = exm_source_snapshot(src, &q.scan, &snap);
		if (ret) {
			tui_error("snapshot failed: %s",
				  src->errmsg[0] ? src->errmsg : strerror(-ret));
			/* a damaged recording is a bad value */
			ret = ret == -EINVAL && exm_replay_count(src) ? 2 : 1;
			goto out;
		}
		if (o->npids == 1) {
			p = exm_snapshot_find_pid(snap, o->pids[0]);
			if (!p) {
				tui_error("process %d not "
					  "found", (int)o->pids[0]);
				exm_snapshot_free(snap);
				ret = 1;
				goto out;
			}
		}
		f = tui_elf_find_file(snap, q.file, &amb);
		if (f && p && !exm_proc_find_pfile(p, f))
			f = NULL;
		if (!f) {
			tui_error("%s: %s", q.file,
				  amb ? "several mapped files have this name; "
				  "give the full path"
				  : "not mapped by the scanned processes");
			exm_snapshot_free(snap);
			ret = 1;
			goto out;
		}
		e = exm_elfcache_get(cache, snap, p, f, tui_proc_root(snap));
		q.why = exm_elfcache_why(cache);
		out = tui_out_begin(o, &of, &ret);
		if (!out) {
			exm_snapshot_free(snap);
			goto out;
		}
		ret = emit(out, o, &q, snap, p, f, e, i,
			   tui_csv_stamp(stamp, snap, number));
		exm_snapshot_free(snap);
		if (ret < 0) {
			tui_error("%s", strerror(-ret));
			ret = 1;
		}
		end = tui_out_end(o, &of, !ret);
		if (end && !ret)
			ret = end < 0 ? 0 : end;
		if (ret || end)
			goto out;
	}
out:
	tui_out_fini(&of);
	exm_elfcache_free(cache);
	if (src)
		exm_source_close(src);
	free(q.file);
	free(q.section);
	return ret;
}
