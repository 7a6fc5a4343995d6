// SPDX-License-Identifier: GPL-2.0-or-later
/* diff.c - exmtop --diff; see diff.h. */
#include "tui/batch/diff.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "tui/batch/batch.h"
#include "tui/print.h"
#include "tui/replay.h"
#include "tui/text.h"

/* The delta rows of the processes (t EXM_T_PROCS) or files of d, -u
 * applied, sorted as the query says. Caller frees; NULL on ENOMEM. */
static struct exm_row *delta_rows(const struct tui_query *q,
				  const struct exm_diff *d, enum exm_table t,
				  size_t *n)
{
	size_t nd = t == EXM_T_PROCS ? d->nprocs : d->nfiles, k = 0;
	const struct exm_diff_row *drs = t == EXM_T_PROCS ? d->procs : d->files;
	struct exm_row *rows = calloc(nd + 1, sizeof(*rows));
	int f;
	bool desc;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < nd; i++)
		if (t != EXM_T_PROCS ||
		    tui_query_proc_match(q, drs[i].row.proc))
			rows[k++] = drs[i].row;
	*n = k;
	tui_query_sort(q, t, &f, &desc);
	exm_rows_sort(rows, k, f, t, desc);
	return rows;
}

static void fmt_time(char *buf, size_t len, const struct exm_snapshot *s)
{
	struct tm tm;
	time_t t = s->sys.taken_at.tv_sec;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

int tui_diff_text(FILE *out, const struct tui_query *q,
		  const struct tui_diff *df)
{
	const struct exm_diff *d = df->d;
	char ta[32], tb[32], grow[32], buf_a[512], buf_b[512];
	char *name_a = exm_escape_all(buf_a, sizeof(buf_a), df->file_a);
	char *name_b = exm_escape_all(buf_b, sizeof(buf_b), df->file_b);
	struct exm_value v;

	fmt_time(ta, sizeof(ta), d->a);
	fmt_time(tb, sizeof(tb), d->b);
	exm_field_value(EXM_F_ERSS, EXM_T_FILES, &d->total, &v);
	if (v.type == EXM_V_DELTA)
		exm_fmt_value(grow, sizeof(grow), EXM_F_ERSS, &v,
			      q->set.exact_bytes);
	else
		snprintf(grow, sizeof(grow), "-");
	fprintf(out,
		"diff: %s %zu/%zu (%s) -> %s %zu/%zu (%s), %.1fs later: "
		"%zu new, %zu gone processes, effective resident %s\n",
		name_a, df->from + 1, df->count_a, ta, name_b, df->to + 1,
		df->count_b, tb, d->seconds, d->nnew, d->ngone, grow);
	if (name_a != buf_a)
		free(name_a);
	if (name_b != buf_b)
		free(name_b);
	if (df->report) {
		tui_report_text(out, df->report, q->set.exact_bytes);
		return 0;
	}
	if (q->table == EXM_T_PROCS) {
		tui_print_text(out, EXM_T_PROCS, df->procs, df->nprocs,
			       tui_query_fields(q, EXM_T_PROCS),
			       q->set.exact_bytes);
		fputc('\n', out);
	}
	tui_print_text(out, EXM_T_FILES, df->files, df->nfiles,
		       tui_query_fields(q, EXM_T_FILES), q->set.exact_bytes);
	return 0;
}

int tui_diff_csv(FILE *out, const struct tui_query *q,
		 const struct tui_diff *df)
{
	bool procs = q->table == EXM_T_PROCS;

	if (df->report) {
		tui_report_csv(out, df->report, true, NULL);
		return 0;
	}
	tui_print_csv(out, q->table, procs ? df->procs : df->files,
		      procs ? df->nprocs : df->nfiles,
		      tui_query_fields(q, q->table), true, NULL);
	return 0;
}

static void json_side(FILE *out, const char *file, size_t idx,
		      const struct exm_snapshot *s)
{
	char t[64];

	tui_snap_time(t, sizeof(t), s);
	fputs("{\"file\":", out);
	exm_json_str(out, file);
	fprintf(out, ",\"snapshot\":%zu,\"time\":\"%s\"}", idx + 1, t);
}

int tui_diff_json(FILE *out, const struct tui_query *q,
		  const struct tui_diff *df)
{
	const struct exm_diff *d = df->d;
	int pf[TUI_MAX_FIELDS + 1], ff[TUI_MAX_FIELDS + 1];
	int keys[EXM_F__COUNT + 1];

	tui_size_fields(keys);
	tui_all_fields(EXM_T_PROCS, pf);
	tui_all_fields(EXM_T_FILES, ff);
	tui_json_doc_begin(out, NULL, NULL);
	fputs("\"from\":", out);
	json_side(out, df->file_a, df->from, d->a);
	fputs(",\"to\":", out);
	json_side(out, df->file_b, df->to, d->b);
	fprintf(out, ",\"seconds\":%.6f,\"new\":%zu,\"gone\":%zu,", d->seconds,
		d->nnew, d->ngone);
	if (df->report) {
		tui_report_json(out, df->report);
		tui_json_doc_end(out);
		return 0;
	}
	fputs("\"totals\":", out);
	tui_print_json_rows(out, EXM_T_FILES, &d->total, 1, keys);
	if (q->table == EXM_T_PROCS) {
		fputs(",\"processes\":", out);
		tui_print_json_rows(out, EXM_T_PROCS, df->procs, df->nprocs,
				    pf);
	}
	fputs(",\"files\":", out);
	tui_print_json_rows(out, EXM_T_FILES, df->files, df->nfiles, ff);
	tui_json_doc_end(out);
	return 0;
}

/* Snapshot idx of src, accounted; 0 or the exit status. */
static int load(struct exm_source *src, size_t idx,
		const struct exm_scan_opts *scan, struct exm_snapshot **out)
{
	int ret = exm_source_seek(src, idx);

	if (!ret)
		ret = exm_source_snapshot(src, scan, out);
	if (!ret)
		return 0;
	tui_error("%s", src->errmsg[0] ? src->errmsg : strerror(-ret));
	return ret == -EINVAL ? 2 : 1;
}

static char *replay_name(const char *file)
{
	size_t n = strlen(file) + sizeof("replay:");
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "replay:%s", file);
	return s;
}

/* The listed table's columns for a diff: the change after the first. */
static void diff_fields(struct tui_query *q, enum exm_table t)
{
	int *f = q->set.fields[t];
	size_t n = 0;

	while (f[n] >= 0)
		n++;
	for (size_t i = 0; i < n; i++)
		if (f[i] == EXM_F_CHANGE)
			return;
	if (!n || n >= TUI_MAX_COLS)
		return;
	memmove(f + 2, f + 1, n * sizeof(*f)); /* with the -1 */
	f[1] = EXM_F_CHANGE;
}

int tui_batch_diff(const struct tui_opts *o)
{
	struct exm_source *sa = NULL, *sb = NULL;
	struct exm_snapshot *a = NULL, *b = NULL;
	struct exm_diff *d = NULL;
	const struct tui_report_ops *rop = NULL;
	struct exm_scan_opts scan;
	struct tui_report r = { 0 };
	struct exm_outfile of;
	struct tui_diff df;
	struct tui_query q;
	char *na = NULL, *nb = NULL;
	FILE *out;
	int ret, status;

	memset(&df, 0, sizeof(df));
	ret = tui_query_from_opts(&q, o, false);
	if (ret)
		return ret;
	if (!tui_formats[o->format].diff) {
		tui_error("--diff cannot be printed as %s",
			  tui_formats[o->format].name);
		tui_query_fini(&q);
		return 2;
	}
	if (o->report && !(rop = tui_report_find(o->report)->diff)) {
		tui_error("--diff compares processes and files, "
			  "or with --system all of RAM; not --%s",
			  o->report);
		tui_query_fini(&q);
		return 2;
	}
	if (!o->fields)
		diff_fields(&q, q.table);
	diff_fields(&q, EXM_T_FILES);
	status = 1;
	na = replay_name(o->diff_a);
	nb = o->diff_b ? replay_name(o->diff_b) : NULL;
	if (!na || (o->diff_b && !nb))
		goto out;
	status = tui_open_source_named(na, &sa);
	if (!status && nb)
		status = tui_open_source_named(nb, &sb);
	if (status)
		goto out;
	df.file_a = o->diff_a;
	df.file_b = o->diff_b ? o->diff_b : o->diff_a;
	df.count_a = exm_source_count(sa);
	df.count_b = exm_source_count(sb ? sb : sa);
	df.to = df.count_b - 1;
	if (o->from)
		status = tui_replay_pick(sa, "--from", o->from, &df.from);
	if (!status && o->to)
		status = tui_replay_pick(sb ? sb : sa, "--to", o->to, &df.to);
	if (status)
		goto out;
	tui_query_scan(&q, ~0u, &scan);
	status = load(sa, df.from, &scan, &a);
	if (!status)
		status = load(sb ? sb : sa, df.to, &scan, &b);
	if (status)
		goto out;
	status = 1;
	ret = exm_diff_new(a, b, &d);
	if (ret) {
		tui_error("--diff: %s", strerror(-ret));
		goto out;
	}
	df.d = d;
	df.procs = delta_rows(&q, d, EXM_T_PROCS, &df.nprocs);
	df.files = delta_rows(&q, d, EXM_T_FILES, &df.nfiles);
	if (!df.procs || !df.files) {
		tui_error("out of memory");
		goto out;
	}
	if (rop) {
		struct tui_report_env env = { .snap = b, .prev = a };

		ret = tui_report_build(rop, &env, &r);
		if (ret == -ENOMEM) {
			tui_error("out of memory");
			goto out;
		}
		df.report = &r;
	}
	signal(SIGPIPE, SIG_IGN);
	tui_out_init(o, &of);
	out = tui_out_begin(o, &of, &status);
	if (out) {
		tui_formats[o->format].diff(out, &q, &df);
		status = tui_out_end(o, &of, true);
		status = status < 0 ? 0 : status;
	}
	tui_out_fini(&of);
	if (!status && df.report && ret) {
		/* said in a note; 2: a recording without what it needs */
		tui_error("%s", r.nnotes ? r.notes[0] : strerror(-ret));
		status = ret == -ENODATA ? 2 : 1;
	}
out:
	tui_report_fini(&r);
	free(df.procs);
	free(df.files);
	exm_diff_free(d);
	if (a)
		exm_snapshot_free(a);
	if (b)
		exm_snapshot_free(b);
	if (sa)
		exm_source_close(sa);
	if (sb)
		exm_source_close(sb);
	free(na);
	free(nb);
	tui_query_fini(&q);
	return status;
}
