// SPDX-License-Identifier: GPL-2.0-or-later
/* batch.c - text, CSV and JSON output of snapshots; see batch.h. */
#include "tui/batch.h"

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
#include "tui/diff.h"
#include "tui/drive.h"
#include "tui/replay.h"
#include "tui/text.h"

void tui_all_fields(enum exm_table t, int *out)
{
	int k = 0;

	for (int i = 0; i < EXM_F__COUNT; i++)
		if (exm_fields[i].tables & EXM_TBIT(t))
			out[k++] = i;
	out[k] = -1;
}

void tui_size_fields(int *out)
{
	int k = 0;

	for (int i = 0; i < EXM_F__COUNT; i++) {
		const struct exm_field *f = &exm_fields[i];

		if ((f->type == EXM_FT_SIZE || f->type == EXM_FT_ESIZE) &&
		    (f->tables & EXM_TBIT(EXM_T_FILES)) &&
		    !(f->needs & EXM_NEED_KPSS) && i != EXM_F_DERSS)
			out[k++] = i;
	}
	out[k] = -1;
}

static bool right_aligned(int f)
{
	return exm_fields[f].type != EXM_FT_STR;
}

/* Print s, cut after max display columns (UTF-8 aware; 0 = no limit). s
 * is already escaped, so it holds no control characters. */
static void put_cut(FILE *f, const char *s, int max)
{
	int cols = 0;
	const char *p = s;

	if (max <= 0) {
		fputs(s, f);
		return;
	}
	while (*p) {
		const char *q = p + 1;

		while ((*q & 0xc0) == 0x80)
			q++;
		if (++cols > max)
			break;
		p = q;
	}
	fwrite(s, 1, (size_t)(p - s), f);
}

static int g_line_max; /* terminal width for the last column, 0: none */
/* The number of the snapshot being printed: of the run, 1 = first; of a
 * replay, its number in the recording. */
static size_t g_number;

void tui_print_text(FILE *f, enum exm_table t, const struct exm_row *rows,
		    size_t n, const int *fields, bool exact)
{
	int used;
	int w[TUI_MAX_FIELDS];
	char buf[4096];
	int nf = 0;

	for (; fields[nf] >= 0; nf++) {
		w[nf] = (int)strlen(exm_fields[fields[nf]].title);
		for (size_t i = 0; i < n; i++) {
			struct exm_value v;
			int len;

			if (!right_aligned(fields[nf]))
				break; /* text columns are not padded */
			exm_field_value(fields[nf], t, &rows[i], &v);
			exm_fmt_value(buf, sizeof(buf), fields[nf], &v, exact);
			len = (int)strlen(buf);
			if (len > w[nf])
				w[nf] = len;
		}
		if (!right_aligned(fields[nf]) && fields[nf + 1] >= 0 &&
		    w[nf] < exm_fields[fields[nf]].width)
			w[nf] = exm_fields[fields[nf]].width;
	}
	for (int j = 0; j < nf; j++) {
		const char *title = exm_fields[fields[j]].title;

		if (j)
			fputc(' ', f);
		if (fields[j + 1] < 0 && !right_aligned(fields[j]))
			fputs(title, f);
		else
			fprintf(f, right_aligned(fields[j]) ? "%*s" : "%-*s",
				w[j], title);
	}
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		used = 0;
		for (int j = 0; j < nf; j++) {
			struct exm_value v;

			exm_field_value(fields[j], t, &rows[i], &v);
			exm_fmt_value(buf, sizeof(buf), fields[j], &v, exact);
			if (j)
				fputc(' ', f);
			used += (j ? 1 : 0) + w[j];
			if (fields[j + 1] < 0 && !right_aligned(fields[j]))
				put_cut(f, buf,
					g_line_max ? g_line_max - used + w[j]
						   : 0);
			else
				fprintf(f,
					right_aligned(fields[j]) ? "%*s"
								 : "%-*s",
					w[j], buf);
		}
		fputc('\n', f);
	}
}

static void json_bytes(FILE *f, double d);

char *tui_snap_time(char *buf, size_t len, const struct exm_snapshot *snap)
{
	time_t t = (time_t)snap->sys.taken_at.tv_sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

char *tui_csv_stamp(char *buf, const struct exm_snapshot *snap, size_t number)
{
	char t[32];

	snprintf(buf, TUI_CSV_STAMP_LEN, "%zu,%s,", number,
		 tui_snap_time(t, sizeof(t), snap));
	return buf;
}

void tui_print_csv(FILE *f, enum exm_table t, const struct exm_row *rows,
		   size_t n, const int *fields, bool header, const char *stamp)
{
	char buf[4096];

	if (header) {
		if (stamp)
			fputs(TUI_CSV_STAMP_HEAD, f);
		for (int j = 0; fields[j] >= 0; j++)
			fprintf(f, "%s%s", j ? "," : "",
				exm_fields[fields[j]].key);
		fputc('\n', f);
	}
	for (size_t i = 0; i < n; i++) {
		if (stamp)
			fputs(stamp, f);
		for (int j = 0; fields[j] >= 0; j++) {
			struct exm_value v;

			exm_field_value(fields[j], t, &rows[i], &v);
			if (j)
				fputc(',', f);
			if (v.type == EXM_V_STR)
				exm_csv_str(f, v.s);
			else if (v.type == EXM_V_DELTA)
				json_bytes(f, v.d); /* a plain signed number */
			else if (v.type != EXM_V_NONE)
				fputs(exm_fmt_value(buf, sizeof(buf),
						    fields[j], &v, true),
				      f);
		}
		fputc('\n', f);
	}
}

/*
 * An effective size: to a thousandth of a byte, trailing zeros dropped, so
 * a section of 28 bytes shared 11 ways prints 28, not the double sum's
 * 28.000000000000004. Sums of up to 1000 rows stay within half a byte.
 */
static void json_bytes(FILE *f, double d)
{
	char buf[EXM_FMT_THOU_LEN];

	fwrite(buf, 1, exm_fmt_thou(buf, d), f);
}

/* JSON is built in a buffer and written in big pieces (a snapshot has
 * thousands of rows of dozens of values: no printf per value). */
struct jbuf {
	FILE *f;
	size_t n;
	char b[8192];
};

static void jb_flush(struct jbuf *j)
{
	if (j->n)
		fwrite(j->b, 1, j->n, j->f);
	j->n = 0;
}

/* Room for len (at most 256) more bytes: where they go. */
static char *jb_room(struct jbuf *j, size_t len)
{
	if (sizeof(j->b) - j->n < len)
		jb_flush(j);
	return j->b + j->n;
}

static void jb_puts(struct jbuf *j, const char *s)
{
	size_t len = strlen(s);

	if (len > 256) {
		jb_flush(j);
		fwrite(s, 1, len, j->f);
		return;
	}
	memcpy(jb_room(j, len), s, len);
	j->n += len;
}

static void jb_putc(struct jbuf *j, char c)
{
	*jb_room(j, 1) = c;
	j->n++;
}

static void json_value(struct jbuf *j, int field, const struct exm_value *v)
{
	char *o;

	switch (v->type) {
	case EXM_V_NONE:
		jb_puts(j, "null");
		break;
	case EXM_V_STR:
		jb_flush(j);
		exm_json_str(j->f, v->s);
		break;
	case EXM_V_INT:
		o = jb_room(j, 24);
		if (exm_fields[field].type == EXM_FT_ADDR) {
			static const char hex[] = "0123456789abcdef";
			char tmp[16];
			size_t k = 0;
			uint64_t u = v->u;

			do {
				tmp[k++] = hex[u & 15];
				u >>= 4;
			} while (u);
			memcpy(o, "\"0x", 3);
			o += 3;
			while (k)
				*o++ = tmp[--k];
			*o++ = '"';
			j->n = (size_t)(o - j->b);
		} else if (exm_fields[field].type == EXM_FT_SINT) {
			j->n += (size_t)snprintf(o, 24, "%" PRId64,
						 (int64_t)v->u);
		} else {
			j->n += exm_fmt_u64(o, v->u);
		}
		break;
	case EXM_V_DBL:
	case EXM_V_DELTA:
		if (isfinite(v->d))
			j->n += exm_fmt_thou(jb_room(j, EXM_FMT_THOU_LEN), v->d);
		else
			jb_puts(j, "null");
		break;
	}
}

/* {"key":value,... of fields (the closing brace is the caller's). */
static void json_row(struct jbuf *j, enum exm_table t,
		     const struct exm_row *r, const int *fields)
{
	jb_putc(j, '{');
	for (int k = 0; fields[k] >= 0; k++) {
		struct exm_value v;

		exm_field_value(fields[k], t, r, &v);
		/* a gap is no section: null, never a name a section may have */
		if (fields[k] == EXM_F_SECTION && (r->flags & EXM_ROW_GAP))
			v.type = EXM_V_NONE;
		if (k)
			jb_putc(j, ',');
		jb_putc(j, '"');
		jb_puts(j, exm_fields[fields[k]].key);
		jb_puts(j, "\":");
		json_value(j, fields[k], &v);
	}
}

static void json_rows(struct jbuf *j, enum exm_table t,
		      const struct exm_row *rows, size_t n, const int *fields)
{
	jb_putc(j, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			jb_putc(j, ',');
		json_row(j, t, &rows[i], fields);
		jb_putc(j, '}');
	}
	jb_putc(j, ']');
}

void tui_print_json_rows(FILE *f, enum exm_table t, const struct exm_row *rows,
			 size_t n, const int *fields)
{
	struct jbuf j = { .f = f };

	json_rows(&j, t, rows, n, fields);
	jb_flush(&j);
}

static void json_sizes(FILE *f, const struct exm_sizes *s)
{
	struct exm_row r = { .sz = *s };
	int keys[EXM_F__COUNT + 1];
	struct jbuf j = { .f = f };

	tui_size_fields(keys);
	json_row(&j, EXM_T_FILES, &r, keys);
	jb_putc(&j, '}');
	jb_flush(&j);
}

void tui_print_json_header(FILE *f, const struct exm_snapshot *snap)
{
	const struct exm_sysinfo *s = &snap->sys;
	char tbuf[64];
	struct tui_counts c;

	tui_counts_of(snap, &c);
	tui_snap_time(tbuf, sizeof(tbuf), snap);
	fputs("\"version\":1,\"source\":", f);
	exm_json_str(f, s->source);
	fputs(",\"source_detail\":", f);
	exm_json_str(f, s->source_detail);
	fputs(",\"limits\":", f);
	exm_json_str(f, s->limits);
	fputs(",\"hostname\":", f);
	exm_json_str(f, s->hostname);
	fputs(",\"kernel\":", f);
	exm_json_str(f, s->kernel);
	fprintf(f,
		",\"time\":\"%s\",\"time_taken\":%.6f,\"units\":\"bytes\","
		"\"page_size\":%u,\"mem_total\":%" PRIu64
		",\"mem_available\":%" PRIu64 ",\"scanned\":%zu,"
		"\"skipped_gone\":%zu,\"skipped_denied\":%zu,"
		"\"distinct_pages\":",
		tbuf, s->time_taken, s->page_size, s->mem_total,
		s->mem_available, snap->nprocs - snap->nskipped_denied,
		snap->nskipped_gone, snap->nskipped_denied);
	/* page identity (PFNs, swap entries) is what distinct counts need */
	if (s->caps & EXM_CAP_PFN)
		fprintf(f, "%" PRIu64 ",\"distinct_swap\":%" PRIu64,
			snap->distinct_pages, snap->distinct_swap);
	else
		fputs("null,\"distinct_swap\":null", f);
	fputs(",\"totals\":", f);
	json_sizes(f, &snap->total);
	fputc(',', f);
}

void tui_json_doc_begin(FILE *f, const struct exm_snapshot *snap)
{
	fputc('{', f);
	tui_print_json_header(f, snap);
}

void tui_json_doc_end(FILE *f)
{
	fputs("}\n", f);
}

void tui_print_summary(FILE *f, const struct exm_snapshot *snap)
{
	const struct exm_sysinfo *s = &snap->sys;
	char tot[16], mem[16];
	char host[256], src[256], detail[1024], limits[1024];
	struct tui_counts c;

	tui_counts_of(snap, &c);
	exm_fmt_human(tot, sizeof(tot), snap->total.erss);
	exm_fmt_human(mem, sizeof(mem), (double)s->mem_total);
	/* all escaped: a replay's detail holds its file's name */
	fprintf(f,
		"%s: %zu processes (%zu gone, %zu unreadable), effective "
		"resident %s of %s RAM; %s (%s) %.3fs\n",
		exm_escape(host, sizeof(host), s->hostname), c.scanned, c.gone,
		c.denied, tot, mem, exm_escape(src, sizeof(src), s->source),
		exm_escape(detail, sizeof(detail), s->source_detail),
		s->time_taken);
	if (s->limits[0])
		fprintf(f, "note: %s\n",
			exm_escape(limits, sizeof(limits), s->limits));
}

/*
 * Rows of table t (processes or files) of snap: the processes -u and -p
 * select, or the files such a process maps (every file without them), each
 * with its sizes in prev (if any) for the delta columns. Caller frees.
 */
static struct exm_row *table_rows(const struct tui_query *q,
				  const struct exm_snapshot *snap,
				  const struct exm_snapshot *prev,
				  enum exm_table t, size_t *n)
{
	struct exm_row *rows = t == EXM_T_FILES ? exm_table_files(snap, n)
						: exm_table_procs(snap, n);
	struct exm_proc_filter f = tui_query_filter(q);
	bool *in = NULL;
	size_t k = 0;

	if (!rows)
		return NULL;
	if (t == EXM_T_FILES && (f.user || f.pids) &&
	    !(in = exm_files_mapped_by(snap, &f))) {
		free(rows);
		return NULL;
	}
	for (size_t i = 0; i < *n; i++)
		if (t == EXM_T_FILES ? !in || in[rows[i].file->index]
				     : exm_proc_filter_match(&f, rows[i].proc))
			rows[k++] = rows[i];
	free(in);
	*n = k;
	if (prev && exm_rows_set_prev_snap(t, rows, k, prev)) {
		free(rows);
		return NULL;
	}
	return rows;
}

static int emit_json(FILE *out, const struct tui_query *q,
		     const struct exm_snapshot *snap,
		     const struct exm_snapshot *prev)
{
	int pf[TUI_MAX_FIELDS + 1], ff[TUI_MAX_FIELDS + 1];
	int pff[TUI_MAX_FIELDS + 1], sort_f;
	struct jbuf j = { .f = out };
	struct exm_row *rows;
	bool desc;
	size_t n;

	tui_all_fields(EXM_T_PROCS, pf);
	tui_all_fields(EXM_T_FILES, ff);
	tui_all_fields(EXM_T_PFILES, pff);
	if (q->fields_given) { /* the rows of the table listed: its columns */
		int *to = q->table == EXM_T_PROCS ? pf : ff;
		const int *from = q->set.fields[q->table];
		size_t k = 0;

		for (; from[k] >= 0 && k < TUI_MAX_FIELDS; k++)
			to[k] = from[k];
		to[k] = -1;
	}
	tui_json_doc_begin(out, snap);
	if (q->table == EXM_T_PROCS) {
		rows = table_rows(q, snap, prev, EXM_T_PROCS, &n);
		if (!rows)
			return -ENOMEM;
		tui_query_sort(q, EXM_T_PROCS, &sort_f, &desc);
		exm_rows_sort(rows, n, sort_f, EXM_T_PROCS, desc);
		jb_puts(&j, "\"processes\":[");
		for (size_t i = 0; i < n; i++) {
			struct exm_row *fr;
			size_t nf;

			if (i)
				jb_putc(&j, ',');
			json_row(&j, EXM_T_PROCS, &rows[i], pf);
			if (rows[i].proc->state == EXM_PROC_DENIED) {
				/* its maps could not be read: no files known */
				jb_puts(&j, ",\"state\":\"denied\","
					    "\"files\":null}");
				continue;
			}
			jb_puts(&j, ",\"state\":\"ok\"");
			fr = exm_table_pfiles(snap, rows[i].proc, &nf);
			if (!fr) {
				jb_flush(&j);
				free(rows);
				return -ENOMEM;
			}
			exm_rows_sort(fr, nf, EXM_F_ERSS, EXM_T_PFILES, true);
			jb_puts(&j, ",\"files\":");
			json_rows(&j, EXM_T_PFILES, fr, nf, pff);
			free(fr);
			jb_putc(&j, '}');
		}
		jb_puts(&j, "],");
		jb_flush(&j);
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
	struct exm_om_opts oo = { .top = q->top, .groups = true,
				  .files = true, .filter = &f };
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
	fputs("{\"snapshot\":{", out);
	tui_print_json_header(out, snap);
	fputs("\"report\":", out);
	exm_json_str(out, r->ops->name);
	fputs("},", out);
	tui_report_json(out, r);
	tui_json_doc_end(out);
}

const struct tui_format_ops tui_formats[TUI_FMT__COUNT] = {
	[TUI_FMT_TEXT] = { .name = "text", .emit = emit_text,
			   .diff = tui_diff_text, .report = report_text },
	[TUI_FMT_CSV] = { .name = "csv", .emit = emit_csv,
			  .diff = tui_diff_csv, .report = report_csv },
	[TUI_FMT_JSON] = { .name = "json", .all = true,
			   .emit = emit_json_doc, .diff = tui_diff_json,
			   .report = report_json },
	/* its columns (openmetrics.c) and groups per program, user and
	 * cgroup; the system view with its swap-cache row */
	[TUI_FMT_OPENMETRICS] = { .name = "openmetrics",
				  .needs = exm_om_needs,
				  .emit = emit_openmetrics },
};

/* What the columns printed need: the table's, and with JSON every column
 * of the other tables it prints (files, each process's files). */
static unsigned batch_needs(const struct tui_query *q, enum tui_format fmt)
{
	unsigned needs = tui_query_needs(q, q->table);
	int f[TUI_MAX_FIELDS + 1];

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
			g_line_max = ws.ws_col;
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
		.snap = snap, .prev = prev, .cache = run->cache, .filter = &f,
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
