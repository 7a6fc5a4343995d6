// SPDX-License-Identifier: GPL-2.0-or-later
/* print.c - the batch printers and the JSON document frame; see print.h. */
#include "tui/print.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "core/openmetrics.h"
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

void tui_print_set_width(int cols)
{
	g_line_max = cols;
}

/* Field f of row as a table cell: at buf, or (a long name, escaped whole:
 * exm_escape_all) in memory the caller frees when the result is not buf. */
static char *cell(char *buf, size_t len, int f, enum exm_table t,
		  const struct exm_row *row, bool exact)
{
	struct exm_value v;

	exm_field_value(f, t, row, &v);
	if (v.type == EXM_V_STR)
		return exm_escape_all(buf, len, v.s);
	return exm_fmt_value(buf, len, f, &v, exact);
}

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
			char *c = cell(buf, sizeof(buf), fields[j], t, &rows[i],
				       exact);

			if (j)
				fputc(' ', f);
			used += (j ? 1 : 0) + w[j];
			/* the last text column: cut only by the width */
			if (fields[j + 1] < 0 && !right_aligned(fields[j]))
				put_cut(f, c,
					g_line_max ? g_line_max - used + w[j]
						   : 0);
			else
				fprintf(f,
					right_aligned(fields[j]) ? "%*s"
								 : "%-*s",
					w[j], c);
			if (c != buf)
				free(c);
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

/* The start of a CSV header: the stamp's columns when rows have one. */
static void csv_head(FILE *f, const char *stamp)
{
	if (stamp)
		fputs(TUI_CSV_STAMP_HEAD, f);
}

void tui_print_csv(FILE *f, enum exm_table t, const struct exm_row *rows,
		   size_t n, const int *fields, bool header, const char *stamp)
{
	char buf[4096];

	if (header) {
		csv_head(f, stamp);
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
				fputs(exm_fmt_value(buf, sizeof(buf), fields[j],
						    &v, true),
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

void tui_jb_flush(struct tui_jbuf *j)
{
	if (j->n)
		fwrite(j->b, 1, j->n, j->f);
	j->n = 0;
}

/* Room for len (at most 256) more bytes: where they go. */
static char *jb_room(struct tui_jbuf *j, size_t len)
{
	if (sizeof(j->b) - j->n < len)
		tui_jb_flush(j);
	return j->b + j->n;
}

void tui_jb_puts(struct tui_jbuf *j, const char *s)
{
	size_t len = strlen(s);

	if (len > 256) {
		tui_jb_flush(j);
		fwrite(s, 1, len, j->f);
		return;
	}
	memcpy(jb_room(j, len), s, len);
	j->n += len;
}

void tui_jb_putc(struct tui_jbuf *j, char c)
{
	*jb_room(j, 1) = c;
	j->n++;
}

static void json_value(struct tui_jbuf *j, int field, const struct exm_value *v)
{
	char *o;

	switch (v->type) {
	case EXM_V_NONE:
		tui_jb_puts(j, "null");
		break;
	case EXM_V_STR:
		tui_jb_flush(j);
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
			j->n += exm_fmt_thou(jb_room(j, EXM_FMT_THOU_LEN),
					     v->d);
		else
			tui_jb_puts(j, "null");
		break;
	}
}

/* {"key":value,... of fields (the closing brace is the caller's). */
void tui_jb_row(struct tui_jbuf *j, enum exm_table t, const struct exm_row *r,
		const int *fields)
{
	tui_jb_putc(j, '{');
	for (int k = 0; fields[k] >= 0; k++) {
		struct exm_value v;

		exm_field_value(fields[k], t, r, &v);
		/* a gap is no section: null, never a name a section may have */
		if (fields[k] == EXM_F_SECTION && (r->flags & EXM_ROW_GAP))
			v.type = EXM_V_NONE;
		if (k)
			tui_jb_putc(j, ',');
		tui_jb_putc(j, '"');
		tui_jb_puts(j, exm_fields[fields[k]].key);
		tui_jb_puts(j, "\":");
		json_value(j, fields[k], &v);
	}
}

void tui_jb_rows(struct tui_jbuf *j, enum exm_table t,
		 const struct exm_row *rows, size_t n, const int *fields)
{
	tui_jb_putc(j, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			tui_jb_putc(j, ',');
		tui_jb_row(j, t, &rows[i], fields);
		tui_jb_putc(j, '}');
	}
	tui_jb_putc(j, ']');
}

void tui_print_json_rows(FILE *f, enum exm_table t, const struct exm_row *rows,
			 size_t n, const int *fields)
{
	struct tui_jbuf j = { .f = f };

	tui_jb_rows(&j, t, rows, n, fields);
	tui_jb_flush(&j);
}

static void json_sizes(FILE *f, const struct exm_sizes *s)
{
	struct exm_row r = { .sz = *s };
	int keys[EXM_F__COUNT + 1];
	struct tui_jbuf j = { .f = f };

	tui_size_fields(keys);
	tui_jb_row(&j, EXM_T_FILES, &r, keys);
	tui_jb_putc(&j, '}');
	tui_jb_flush(&j);
}

/* The snapshot's members after "version", each followed by a comma. */
static void json_snap_members(FILE *f, const struct exm_snapshot *snap)
{
	const struct exm_sysinfo *s = &snap->sys;
	char tbuf[64];

	tui_snap_time(tbuf, sizeof(tbuf), snap);
	fputs("\"source\":", f);
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

void tui_json_doc_begin(FILE *f, const struct exm_snapshot *snap,
			const char *report)
{
	fputs(report ? "{\"snapshot\":{" : "{", f);
	fputs("\"version\":1,", f);
	if (snap)
		json_snap_members(f, snap);
	else
		fputs("\"units\":\"bytes\",", f);
	if (report) {
		fputs("\"report\":", f);
		exm_json_str(f, report);
		fputs("},", f);
	}
}

void tui_json_doc_end(FILE *f)
{
	fputs("}\n", f);
}

void tui_counts_of(const struct exm_snapshot *snap, struct tui_counts *c)
{
	c->scanned = 0;
	for (size_t i = 0; i < snap->nprocs; i++)
		c->scanned += snap->procs[i].state != EXM_PROC_DENIED;
	c->gone = snap->nskipped_gone;
	c->denied = snap->nskipped_denied;
}

void tui_print_summary(FILE *f, const struct exm_snapshot *snap)
{
	const struct exm_sysinfo *s = &snap->sys;
	char tot[16], mem[16];
	/* whole escapes of the whole fields (exm_escape's most) */
	char host[EXM_ESCAPE_MAX(sizeof(s->hostname))];
	char src[EXM_ESCAPE_MAX(sizeof(s->source))];
	char detail[EXM_ESCAPE_MAX(sizeof(s->source_detail))];
	char limits[EXM_ESCAPE_MAX(sizeof(s->limits))];
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

/* ---- reports (report.h) ---- */

/* A report's cell: at buf, or (a long name, escaped whole) in memory the
 * caller frees when the result is not buf. */
static char *cell_text(char *buf, size_t len, const struct tui_rcol *col,
		       const struct tui_rcell *c, bool exact)
{
	if (!c->has)
		snprintf(buf, len, "-");
	else if (col->f.type == EXM_FT_STR)
		return exm_escape_all(buf, len, c->s);
	else if (col->f.type == EXM_FT_INT || exact)
		snprintf(buf, len, "%.0f", c->v);
	else if (c->v < 0) {
		buf[0] = '-';
		exm_fmt_human(buf + 1, len - 1, -c->v);
	} else {
		exm_fmt_human(buf, len, c->v);
	}
	return buf;
}

void tui_report_text(FILE *f, const struct tui_report *r, bool exact)
{
	const struct tui_report_ops *op = r->ops;
	size_t nc = op->ncols;
	int w[32] = { 0 };
	char buf[1024];

	fprintf(f, "%s\n", op->title);
	for (size_t j = 0; j < nc && j < 32; j++) {
		w[j] = (int)strlen(op->cols[j].f.title);
		for (size_t i = 0; i < r->nrows; i++) {
			char *s = cell_text(buf, sizeof(buf), &op->cols[j],
					    &r->cells[i * nc + j], exact);
			int k = tui_text_width(s);

			if (s != buf)
				free(s);
			if (k > w[j])
				w[j] = k;
		}
	}
	for (size_t i = 0; i <= r->nrows; i++) {
		for (size_t j = 0; j < nc && j < 32; j++) {
			const struct tui_rcol *col = &op->cols[j];
			bool left = col->f.type == EXM_FT_STR;
			char *c = i ? cell_text(buf, sizeof(buf), col,
						&r->cells[(i - 1) * nc + j],
						exact)
				    : NULL;
			const char *s = c ? c : col->f.title;

			if (j)
				fputc(' ', f);
			/* padded by display width (names may be wide) */
			if (!left)
				fprintf(f, "%*s", w[j] - tui_text_width(s), "");
			fputs(s, f);
			if (left && j + 1 < nc)
				fprintf(f, "%*s", w[j] - tui_text_width(s), "");
			if (c != buf)
				free(c);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(f, "note: %s\n", r->notes[i]);
}

/* A number as JSON or CSV: integers exact, fractions to 1/1000 byte as
 * the listings print them (exm_fmt_thou). */
static void put_num(FILE *f, const struct tui_rcol *col, double v)
{
	if (col->f.type != EXM_FT_ESIZE)
		fprintf(f, "%.0f", v);
	else
		json_bytes(f, v);
}

void tui_report_csv(FILE *f, const struct tui_report *r, bool header,
		    const char *stamp)
{
	const struct tui_report_ops *op = r->ops;
	size_t nc = op->ncols;
	bool first;

	if (header) {
		csv_head(f, stamp);
		first = true;
		for (size_t j = 0; j < nc; j++)
			if (!op->cols[j].text_only) {
				fprintf(f, "%s%s", first ? "" : ",",
					op->cols[j].f.key);
				first = false;
			}
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->nrows; i++) {
		if (stamp)
			fputs(stamp, f);
		first = true;
		for (size_t j = 0; j < nc; j++) {
			const struct tui_rcell *c = &r->cells[i * nc + j];

			if (op->cols[j].text_only)
				continue;
			if (!first)
				fputc(',', f);
			first = false;
			if (!c->has)
				continue;
			if (op->cols[j].f.type == EXM_FT_STR)
				exm_csv_str(f, c->s);
			else
				put_num(f, &op->cols[j], c->v);
		}
		fputc('\n', f);
	}
}

void tui_report_json(FILE *f, const struct tui_report *r)
{
	const struct tui_report_ops *op = r->ops;
	size_t nc = op->ncols;

	if (r->has_mem_total)
		fprintf(f, "\"mem_total\":%" PRIu64 ",", r->mem_total);
	fprintf(f, "\"%s\":[", op->name);
	for (size_t i = 0; i < r->nrows; i++) {
		bool first = true;

		fputs(i ? ",{" : "{", f);
		for (size_t j = 0; j < nc; j++) {
			const struct tui_rcell *c = &r->cells[i * nc + j];

			if (op->cols[j].text_only)
				continue;
			fprintf(f, "%s\"%s\":", first ? "" : ",",
				op->cols[j].f.key);
			first = false;
			if (!c->has)
				fputs("null", f);
			else if (op->cols[j].f.type == EXM_FT_STR)
				exm_json_str(f, c->s);
			else
				put_num(f, &op->cols[j], c->v);
		}
		fputc('}', f);
	}
	fputs("],\"notes\":[", f);
	for (size_t i = 0; i < r->nnotes; i++) {
		if (i)
			fputc(',', f);
		exm_json_str(f, r->notes[i]);
	}
	fputc(']', f);
}

/* The labels of row i of r: its label columns that have a value. */
static void report_om_labels(FILE *f, const struct tui_report *r, size_t i)
{
	const struct tui_report_ops *op = r->ops;
	bool first = true;

	for (size_t j = 0; j < op->ncols; j++) {
		const struct tui_rcol *col = &op->cols[j];
		const struct tui_rcell *c = &r->cells[i * op->ncols + j];

		if (!col->label || !c->has)
			continue;
		fprintf(f, "%s%s=\"", first ? "{" : ",",
			col->metric ? col->metric : col->f.key);
		if (col->f.type == EXM_FT_STR)
			exm_om_label_value(f, c->s);
		else
			fprintf(f, "%.0f", c->v);
		fputc('"', f);
		first = false;
	}
	fputs(first ? " " : "} ", f);
}

int tui_report_om(FILE *f, const struct exm_snapshot *snap,
		  const struct tui_report *r)
{
	const struct tui_report_ops *op = r->ops;

	exm_om_write_scan(f, snap);
	if (r->has_mem_total)
		exm_om_write_mem_total(f, r->mem_total);
	for (size_t j = 0; j < op->ncols; j++) {
		const struct tui_rcol *col = &op->cols[j];
		bool size = col->f.type == EXM_FT_SIZE ||
			    col->f.type == EXM_FT_ESIZE;
		char raw[128], name[128], help[256];

		if (col->label || !col->metric)
			continue;
		snprintf(raw, sizeof(raw), "exmtop_%s%s%s%s", op->name,
			 col->metric[0] ? "_" : "", col->metric,
			 size ? "_bytes" : "");
		exm_om_sanitize_name(name, sizeof(name), raw);
		snprintf(help, sizeof(help), "%s: %s (%s).", op->title,
			 col->f.title, col->f.key);
		exm_om_family(f, name, "gauge", size ? "bytes" : NULL, help);
		for (size_t i = 0; i < r->nrows; i++) {
			const struct tui_rcell *c = &r->cells[i * op->ncols + j];

			if (!c->has)
				continue; /* not measured: no sample */
			fputs(name, f);
			report_om_labels(f, r, i);
			exm_om_value(f, c->v);
		}
	}
	return exm_om_end(f);
}
