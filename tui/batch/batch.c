// SPDX-License-Identifier: GPL-2.0-or-later
/* batch.c - text, CSV and JSON output of snapshots; see batch.h. */
#include "tui/batch/batch.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cgcharge.h"
#include "core/diff.h"
#include "core/format.h"
#include "core/openmetrics.h"
#include "core/source.h"
#include "tui/batch/diff.h"
#include "tui/batch/drive.h"
#include "tui/replay.h"
#include "tui/text.h"

/* The number of the snapshot being printed: of the run, 1 = first; of a
 * replay, its number in the recording. */
static size_t g_number;

/* The group rows' sizes in prev (the delta columns): prev's groups of the
 * same processes, matched by key, as the live screen's group view. */
static int groups_set_prev(const struct tui_query *q, struct exm_row *rows,
			   size_t n, const struct exm_snapshot *prev,
			   const struct exm_proc_filter *f)
{
	size_t nold;
	struct exm_row *old = exm_table_groups(prev, q->set.group_by, f, &nold);
	int ret;

	if (!old)
		return -ENOMEM;
	ret = exm_rows_set_prev(EXM_T_GROUPS, rows, n, old, nold);
	free(old);
	return ret;
}

/*
 * Rows of table t (processes, groups or files) of snap: the processes -u
 * and -p select, their groups (--group), or the files such a process maps
 * (every file without them), each
 * with its sizes in prev (if any) for the delta columns. Caller frees.
 */
static struct exm_row *table_rows(const struct tui_query *q,
				  const struct exm_snapshot *snap,
				  const struct exm_snapshot *prev,
				  enum exm_table t, size_t *n)
{
	struct exm_proc_filter f = tui_query_filter(q);
	struct exm_row *rows = t == EXM_T_GROUPS
				       ? exm_table_groups(snap, q->set.group_by,
							  &f, n)
			       : t == EXM_T_FILES ? exm_table_files(snap, n)
						  : exm_table_procs(snap, n);
	bool *in = NULL;
	size_t k = 0;

	if (!rows)
		return NULL;
	if (t == EXM_T_GROUPS) /* of the processes f selects */
		k = *n;
	if (t == EXM_T_FILES && (f.user || f.pids) &&
	    !(in = exm_files_mapped_by(snap, &f))) {
		free(rows);
		return NULL;
	}
	for (size_t i = 0; t != EXM_T_GROUPS && i < *n; i++)
		if (t == EXM_T_FILES ? !in || in[rows[i].file->index]
				     : exm_proc_filter_match(&f, rows[i].proc))
			rows[k++] = rows[i];
	free(in);
	*n = k;
	if (prev &&
	    (t == EXM_T_GROUPS ? groups_set_prev(q, rows, k, prev, &f)
			       : exm_rows_set_prev_snap(t, rows, k, prev))) {
		free(rows);
		return NULL;
	}
	return rows;
}

static struct exm_row *listed(const struct tui_query *q,
			      const struct exm_snapshot *snap,
			      const struct exm_snapshot *prev, size_t *n);

static int emit_json(FILE *out, const struct tui_query *q,
		     const struct exm_snapshot *snap,
		     const struct exm_snapshot *prev)
{
	int pf[TUI_MAX_FIELDS + 1], ff[TUI_MAX_FIELDS + 1];
	int pff[TUI_MAX_FIELDS + 1], gf[TUI_MAX_FIELDS + 1], sort_f;
	struct tui_jbuf j = { .f = out };
	struct exm_row *rows;
	bool desc;
	size_t n;

	tui_all_fields(EXM_T_PROCS, pf);
	tui_all_fields(EXM_T_FILES, ff);
	tui_all_fields(EXM_T_PFILES, pff);
	tui_all_fields(EXM_T_GROUPS, gf);
	if (q->fields_given) { /* the rows of the table listed: its columns */
		int *to = q->table == EXM_T_PROCS    ? pf
			  : q->table == EXM_T_GROUPS ? gf
						     : ff;
		const int *from = q->set.fields[q->table];
		size_t k = 0;

		for (; from[k] >= 0 && k < TUI_MAX_FIELDS; k++)
			to[k] = from[k];
		to[k] = -1;
	}
	tui_json_doc_begin(out, snap, NULL);
	if (q->table == EXM_T_PROCS) {
		rows = table_rows(q, snap, prev, EXM_T_PROCS, &n);
		if (!rows)
			return -ENOMEM;
		tui_query_sort(q, EXM_T_PROCS, &sort_f, &desc);
		exm_rows_sort(rows, n, sort_f, EXM_T_PROCS, desc);
		tui_jb_puts(&j, "\"processes\":[");
		for (size_t i = 0; i < n; i++) {
			struct exm_row *fr;
			size_t nf;

			if (i)
				tui_jb_putc(&j, ',');
			tui_jb_row(&j, EXM_T_PROCS, &rows[i], pf);
			if (rows[i].proc->state == EXM_PROC_DENIED) {
				/* its maps could not be read: no files known */
				tui_jb_puts(&j, ",\"state\":\"denied\","
						"\"files\":null}");
				continue;
			}
			tui_jb_puts(&j, ",\"state\":\"ok\"");
			fr = exm_table_pfiles(snap, rows[i].proc, &nf);
			if (!fr) {
				tui_jb_flush(&j);
				free(rows);
				return -ENOMEM;
			}
			exm_rows_sort(fr, nf, EXM_F_ERSS, EXM_T_PFILES, true);
			tui_jb_puts(&j, ",\"files\":");
			tui_jb_rows(&j, EXM_T_PFILES, fr, nf, pff);
			free(fr);
			tui_jb_putc(&j, '}');
		}
		tui_jb_puts(&j, "],");
		tui_jb_flush(&j);
		free(rows);
	} else if (q->table == EXM_T_GROUPS) {
		rows = listed(q, snap, prev, &n);
		if (!rows)
			return -ENOMEM;
		fprintf(out, "\"group_by\":\"%s\",\"groups\":",
			exm_group_name(q->set.group_by));
		tui_print_json_rows(out, EXM_T_GROUPS, rows, n, gf);
		fputc(',', out);
		free(rows);
	}
	rows = table_rows(q, snap, prev, EXM_T_FILES, &n);
	if (!rows)
		return -ENOMEM;
	tui_query_sort(q, EXM_T_FILES, &sort_f, &desc);
	exm_rows_sort(rows, n, sort_f, EXM_T_FILES, desc);
	fputs("\"files\":", out);
	tui_print_json_rows(out, EXM_T_FILES, rows, n, ff);
	free(rows);
	tui_json_doc_end(out);
	return 0;
}

/* The rows of the listed table, sorted, for text and CSV. */
static struct exm_row *listed(const struct tui_query *q,
			      const struct exm_snapshot *snap,
			      const struct exm_snapshot *prev, size_t *n)
{
	struct exm_row *rows = table_rows(q, snap, prev, q->table, n);
	int sort_f;
	bool desc;

	if (rows) {
		tui_query_sort(q, q->table, &sort_f, &desc);
		exm_rows_sort(rows, *n, sort_f, q->table, desc);
	}
	return rows;
}

/* The listed table as text (csv false: the summary line first) or CSV. */
static int emit_table(FILE *out, const struct tui_query *q,
		      const struct exm_snapshot *snap,
		      const struct exm_snapshot *prev, long iter, bool csv)
{
	size_t n;
	struct exm_row *rows = listed(q, snap, prev, &n);
	const int *fields = tui_query_fields(q, q->table);

	if (!rows)
		return -ENOMEM;
	if (csv) {
		char stamp[TUI_CSV_STAMP_LEN];

		tui_print_csv(out, q->table, rows, n, fields, iter == 0,
			      tui_csv_stamp(stamp, snap, g_number));
	} else {
		if (iter)
			fputc('\n', out);
		tui_print_summary(out, snap);
		tui_print_text(out, q->table, rows, n, fields,
			       q->set.exact_bytes);
	}
	free(rows);
	return 0;
}

static int emit_text(FILE *out, const struct tui_query *q,
		     const struct exm_snapshot *snap,
		     const struct exm_snapshot *prev, long iter)
{
	return emit_table(out, q, snap, prev, iter, false);
}

static int emit_csv(FILE *out, const struct tui_query *q,
		    const struct exm_snapshot *snap,
		    const struct exm_snapshot *prev, long iter)
{
	return emit_table(out, q, snap, prev, iter, true);
}

static int emit_json_doc(FILE *out, const struct tui_query *q,
			 const struct exm_snapshot *snap,
			 const struct exm_snapshot *prev, long iter)
{
	return emit_json(out, q, snap, prev);
}

/*
 * OpenMetrics for the node_exporter textfile collector: the top processes,
 * program, user and cgroup aggregates and files (--top N), and the system
 * view when the snapshot has page identity. Only the last snapshot of -n
 * is meant to be read; each one ends in "# EOF".
 */
static int emit_openmetrics(FILE *out, const struct tui_query *q,
			    const struct exm_snapshot *snap,
			    const struct exm_snapshot *prev, long iter)
{
	struct exm_proc_filter f = tui_query_filter(q);
	struct exm_om_opts oo = {
		.top = q->top, .groups = true, .files = true, .filter = &f
	};
	struct exm_sysview sv;
	char err[256];

	if (!exm_sysview_build(snap, &sv, err, sizeof(err)))
		oo.sys = &sv;
	/* the exposition has no place for the snapshot's notes */
	if (!iter && (snap->sys.caps & EXM_CAP_CGROUP_V1))
		fprintf(stderr, "exmtop: note: %s\n", EXM_CGCHARGE_V1_NOTE);
	return exm_om_write(out, snap, &oo);
}

static void report_text(FILE *out, const struct tui_query *q,
			const struct exm_snapshot *snap,
			const struct tui_report *r, long iter)
{
	if (iter)
		fputc('\n', out);
	tui_print_summary(out, snap);
	tui_report_text(out, r, q->set.exact_bytes);
}

static void report_csv(FILE *out, const struct tui_query *q,
		       const struct exm_snapshot *snap,
		       const struct tui_report *r, long iter)
{
	char stamp[TUI_CSV_STAMP_LEN];

	tui_report_csv(out, r, iter == 0, tui_csv_stamp(stamp, snap, g_number));
}

/* The snapshot's facts under "snapshot", the report's rows at the top. */
static void report_json(FILE *out, const struct tui_query *q,
			const struct exm_snapshot *snap,
			const struct tui_report *r, long iter)
{
	tui_json_doc_begin(out, snap, r->ops->name);
	tui_report_json(out, r);
	tui_json_doc_end(out);
}

static void report_om(FILE *out, const struct tui_query *q,
		      const struct exm_snapshot *snap,
		      const struct tui_report *r, long iter)
{
	tui_report_om(out, snap, r); /* a write error: the writer's to say */
}

const struct tui_format_ops tui_formats[TUI_FMT__COUNT] = {
	[TUI_FMT_TEXT] = { .name = "text",
			   .emit = emit_text,
			   .diff = tui_diff_text,
			   .report = report_text },
	[TUI_FMT_CSV] = { .name = "csv",
			  .emit = emit_csv,
			  .diff = tui_diff_csv,
			  .report = report_csv },
	[TUI_FMT_JSON] = { .name = "json",
			   .all = true,
			   .help = "JSON sizes are bytes, null when not "
				   "measured; several snapshots are JSON "
				   "Lines, one object a line",
			   .emit = emit_json_doc,
			   .diff = tui_diff_json,
			   .report = report_json },
	/* its columns (openmetrics.c) and groups per program, user and
	 * cgroup; the system view with its swap-cache row */
	[TUI_FMT_OPENMETRICS] = { .name = "openmetrics",
				  .help = "Prometheus: one snapshot",
				  .needs = exm_om_needs,
				  .emit = emit_openmetrics,
				  .report = report_om },
};

/* What the columns printed need: the table's, and with JSON every column
 * of the other tables it prints (files, each process's files). */
static unsigned batch_needs(const struct tui_query *q, enum tui_format fmt)
{
	unsigned needs = tui_query_needs(q, q->table);
	int f[TUI_MAX_FIELDS + 1];

	if (q->table == EXM_T_GROUPS && q->set.group_by == EXM_GROUP_CGROUP)
		needs |= EXM_NEED_CGROUP; /* the rows' keys */

	if (!tui_formats[fmt].all)
		return needs;
	for (int t = 0; t < EXM_T__COUNT; t++) {
		if (t == (int)q->table ||
		    (t != EXM_T_FILES && t != EXM_T_PFILES))
			continue;
		tui_all_fields((enum exm_table)t, f);
		for (int k = 0; f[k] >= 0; k++)
			needs |= exm_fields[f[k]].needs;
	}
	return needs;
}

void tui_format_help(char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "batch output: ");

	for (int f = 0; f < TUI_FMT__COUNT && n < len; f++) {
		const struct tui_format_ops *fo = &tui_formats[f];

		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s%s",
				      !f		       ? ""
				      : f + 1 < TUI_FMT__COUNT ? ", "
							       : " or ",
				      fo->name, fo->help ? " (" : "",
				      fo->help ? fo->help : "",
				      fo->help ? ")" : "");
	}
}

void tui_format_names(unsigned bits, char *buf, size_t len)
{
	const char *names[TUI_FMT__COUNT];
	size_t n = 0;

	for (int f = 0; f < TUI_FMT__COUNT; f++)
		if (bits & TUI_FMT_BIT(f))
			names[n++] = tui_formats[f].name;
	tui_text_or(buf, len, names, n);
}

void tui_out_init(const struct tui_opts *o, struct exm_outfile *of)
{
	exm_outfile_init(of, o->output, 0644);
}

FILE *tui_out_begin(const struct tui_opts *o, struct exm_outfile *of,
		    int *status)
{
	FILE *f;

	if (!o->output)
		return stdout;
	f = exm_outfile_begin(of);
	if (!f) {
		tui_error("%s", of->errmsg);
		/* nothing a file can be written to: bad input */
		*status = of->err == EISDIR || of->err == EINVAL ||
					  of->err == ELOOP || of->err == EBUSY
				  ? 2
				  : 1;
	}
	return f;
}

int tui_out_end(const struct tui_opts *o, struct exm_outfile *of, bool ok)
{
	if (!o->output) {
		if (!fflush(stdout) && !ferror(stdout))
			return 0;
		return errno == EPIPE || exm_out_reader_gone(stdout) ? -1 : 1;
	}
	if (!exm_outfile_end(of, ok))
		return 0;
	if (of->err == EPIPE) /* a FIFO's reader left, as stdout's may */
		return -1;
	tui_error("%s", of->errmsg);
	return 1;
}

void tui_out_fini(struct exm_outfile *of)
{
	exm_outfile_fini(of);
}

static int listing_begin(struct tui_run *r)
{
	const struct tui_opts *o = r->o;
	const struct tui_format_ops *fmt = &tui_formats[o->format];

	if (o->format == TUI_FMT_TEXT && !o->full_cmd && isatty(1)) {
		/* Like ps: on a terminal, long command lines are cut at its
		 * width (-c shows them whole). */
		struct winsize ws;

		if (!ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col >= 20)
			tui_print_set_width(ws.ws_col);
	}
	/* Read only what the printed columns need (JSON without --fields:
	 * every column's). */
	tui_query_scan(&r->q,
		       (fmt->all && !r->q.fields_given
				? exm_fields_needs()
				: batch_needs(&r->q, o->format)) |
			       (fmt->needs ? fmt->needs() : 0),
		       &r->scan);
	return 0;
}

static int listing_emit(FILE *out, struct tui_run *r,
			const struct exm_snapshot *snap,
			const struct exm_snapshot *prev, long iter,
			size_t number)
{
	g_number = number;
	return tui_formats[r->o->format].emit(out, &r->q, snap, prev, iter);
}

const struct tui_batch_ops tui_listing_ops = {
	.begin = listing_begin,
	.emit = listing_emit,
	.prev_rows = true,
};

static int report_begin(struct tui_run *r)
{
	tui_query_scan(&r->q, ~0u, &r->scan);
	return 0;
}

/* The report of the options. Why it could not be made is said once
 * (r->said), not for every snapshot. */
static int report_emit(FILE *out, struct tui_run *run,
		       const struct exm_snapshot *snap,
		       const struct exm_snapshot *prev, long iter,
		       size_t number)
{
	const struct tui_query *q = &run->q;
	const struct tui_report_ops *rop = tui_report_find(run->o->report);
	struct tui_report r;
	struct exm_proc_filter f = tui_query_filter(q);
	struct tui_report_env env = {
		.snap = snap,
		.prev = prev,
		.cache = run->cache,
		.filter = &f,
		.freed_set = run->o->freed_set,
	};
	int ret;

	g_number = number;
	ret = tui_report_build(rop, &env, &r);
	/* a replayed snapshot older than the report: said once, with the
	 * first of them; the others print nothing */
	if (ret != -ENOMEM && !(ret == -ENODATA && run->said))
		tui_formats[run->o->format].report(out, q, snap, &r, iter);
	if (ret && ret != -ENOMEM && r.nnotes && !run->said)
		tui_error("%s", r.notes[0]);
	if (ret)
		run->said = true;
	tui_report_fini(&r);
	/* could not be made (said): exit status 2 when the input lacks what
	 * it needs (a recording older than the report), else 1 */
	if (ret == -ENODATA)
		return 2;
	return ret == -ENOMEM ? ret : ret ? 1 : 0;
}

const struct tui_batch_ops tui_report_ops = {
	.begin = report_begin,
	.emit = report_emit,
	.elf = true,
};
