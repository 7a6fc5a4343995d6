// SPDX-License-Identifier: GPL-2.0-or-later
/* The field table, formatting and escaping, sorting. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/source.h"

Test(fields, complete_and_unique)
{
	for (int i = 0; i < EXM_F__COUNT; i++) {
		const struct exm_field *f = &exm_fields[i];

		cr_assert_not_null(f->key, "field %d has no key", i);
		cr_assert_not_null(f->title, "%s: no title", f->key);
		cr_assert_not_null(f->help, "%s: no help", f->key);
		cr_assert_gt(f->width, 0, "%s: no width", f->key);
		cr_assert_neq(f->tables, 0, "%s: in no table", f->key);
		for (const char *c = f->key; *c; c++)
			cr_assert(islower((unsigned char)*c) || *c == '_',
				  "%s: key not lowercase", f->key);
		cr_assert_eq(exm_field_by_key(f->key), i);
		for (int j = i + 1; j < EXM_F__COUNT; j++)
			cr_assert_str_neq(f->key, exm_fields[j].key);
	}
	cr_assert_eq(exm_field_by_key("nope"), -1);
}

Test(fields, issue_keys_exist)
{
	static const char *const proc_keys[] = {
		"pid",	    "ppid",	"user",	     "comm",	  "cmd",
		"vm",	    "rss",	"erss",	     "swap",	  "eswap",
		"mapped",   "emapped",	"sole",	     "writable",  "pss",
		"pss_anon", "pss_file", "pss_shmem", "pss_dirty", "swap_pss",
	};
	static const char *const file_keys[] = { "file", "kind", "nprocs",
						 "erss", "sole" };

	for (size_t i = 0; i < sizeof(proc_keys) / sizeof(*proc_keys); i++) {
		int f = exm_field_by_key(proc_keys[i]);

		cr_assert_geq(f, 0, "%s", proc_keys[i]);
		cr_assert(exm_fields[f].tables & EXM_TBIT(EXM_T_PROCS));
	}
	for (size_t i = 0; i < sizeof(file_keys) / sizeof(*file_keys); i++)
		cr_assert(exm_fields[exm_field_by_key(file_keys[i])].tables &
			  EXM_TBIT(EXM_T_FILES));
}

Test(fields, defaults_valid)
{
	for (int t = 0; t < EXM_T__COUNT; t++) {
		const int *d = exm_table_default_fields(t);

		cr_assert_geq(d[0], 0);
		for (; *d >= 0; d++)
			cr_assert(exm_fields[*d].tables & EXM_TBIT(t),
				  "%s not valid in table %d",
				  exm_fields[*d].key, t);
	}
}

Test(format, human_sizes)
{
	char b[16];

	exm_fmt_human(b, sizeof(b), 0);
	cr_assert_str_eq(b, "0");
	exm_fmt_human(b, sizeof(b), 1023);
	cr_assert_str_eq(b, "1023");
	exm_fmt_human(b, sizeof(b), 1024);
	cr_assert_str_eq(b, "1.0K");
	exm_fmt_human(b, sizeof(b), 1536 * 1024);
	cr_assert_str_eq(b, "1.5M");
	exm_fmt_human(b, sizeof(b), 812 * 1024);
	cr_assert_str_eq(b, "812K");
	exm_fmt_human(b, sizeof(b), 1023.9 * 1024 * 1024);
	cr_assert_str_eq(b, "1.0G");
	exm_fmt_human(b, sizeof(b), 24.0 * (1ull << 30));
	cr_assert_str_eq(b, "24G");
	exm_fmt_human(b, 4, 1e18); /* truncated, still terminated */
	cr_assert_eq(strlen(b), 3);
}

Test(format, escape_hostile_text)
{
	char b[128];

	cr_assert_str_eq(exm_escape(b, sizeof(b), "evil\033[2J"), "evil\\e[2J");
	cr_assert_str_eq(exm_escape(b, sizeof(b), "a\nb\tc\a"),
			 "a\\nb\\tc\\x07");
	cr_assert_str_eq(exm_escape(b, sizeof(b), "bad\xff\xfe"),
			 "bad\\xff\\xfe");
	cr_assert_str_eq(exm_escape(b, sizeof(b), "na\xc3\xafve \xe2\x98\x83"),
			 "na\xc3\xafve \xe2\x98\x83");
	/* C1 control (U+009B, CSI) and a bidi override. */
	cr_assert_str_eq(exm_escape(b, sizeof(b),
				    "x\xc2\x9b"
				    "y"),
			 "x\\u009by");
	cr_assert_str_eq(exm_escape(b, sizeof(b),
				    "\xe2\x80\xae"
				    "abc"),
			 "\\u202eabc");
	/* Overlong and surrogate encodings are invalid. */
	cr_assert_str_eq(exm_escape(b, sizeof(b), "\xc0\xaf"), "\\xc0\\xaf");
	cr_assert_str_eq(exm_escape(b, sizeof(b), "\xed\xa0\x80"),
			 "\\xed\\xa0\\x80");
	/* Never a partial escape when out of room. */
	cr_assert_str_eq(exm_escape(b, 5, "ab\033cd"), "ab\\e");
	cr_assert_str_eq(exm_escape(b, 6, "ab\033cd"), "ab\\ec");
	/* A backslash doubled: a backslash and an n is not a newline. */
	cr_assert_str_eq(exm_escape(b, sizeof(b), "a\\nb"), "a\\\\nb");
	cr_assert_str_eq(exm_escape(b, sizeof(b), "a\nb"), "a\\nb");
	cr_assert_str_eq(exm_escape(b, sizeof(b), "\\\\"), "\\\\\\\\");
	cr_assert_str_eq(exm_escape(b, 4, "a\\b"), "a\\\\");
	cr_assert_str_eq(exm_escape(b, 3, "a\\b"), "a");
}

/* A message's escape keeps a backslash: escaping it again changes
 * nothing. */
Test(format, escape_line_idempotent)
{
	char b[128], c[128];

	cr_assert_str_eq(exm_escape_line(b, sizeof(b), "p\\q\033\n\xff"),
			 "p\\q\\e\\n\\xff");
	cr_assert_str_eq(exm_escape_line(c, sizeof(c), b), b);
}

/* exm_escape_all escapes the whole text, however long: in buf when it
 * fits, else in memory of its own. */
Test(format, escape_all_never_cuts)
{
	size_t n = 600 * 1024;
	char *in = malloc(n + 1), *out, b[64];

	cr_assert_not_null(in);
	for (size_t i = 0; i < n; i++)
		in[i] = i % 1000 ? 'a' : '\x01';
	in[n] = '\0';
	out = exm_escape_all(b, sizeof(b), in);
	cr_assert_neq(out, b);
	cr_assert_eq(strlen(out), n + 3 * (n / 1000 + 1));
	cr_assert(!strncmp(out, "\\x01aaa", 7));
	cr_assert(!strcmp(out + strlen(out) - 3, "aaa"));
	free(out);
	cr_assert_eq(exm_escape_all(b, sizeof(b), "sh\\ort"), b);
	cr_assert_str_eq(b, "sh\\\\ort");
	free(in);
}

/* A CSV field holds the whole text, however long (no buffer cuts it). */
Test(format, csv_field_whole)
{
	size_t n = 600 * 1024, len = 0;
	char *in = malloc(n + 1), *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(in);
	cr_assert_not_null(f);
	memset(in, 'x', n);
	in[n] = '\0';
	in[10] = ',';
	exm_csv_str(f, in);
	fclose(f);
	cr_assert_eq(len, n + 2);
	cr_assert_eq(buf[0], '"');
	cr_assert_eq(buf[n + 1], '"');
	free(buf);
	free(in);
}

static char *json_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	exm_json_str(f, s);
	fclose(f);
	return buf;
}

Test(format, json_strings)
{
	char *j = json_of("a\"b\\c\n\033\xff");

	cr_assert_str_eq(j, "\"a\\\"b\\\\c\\n\\u001b\\\\xff\"");
	free(j);
	/* JSON's short escapes where it has them, \u00XX for the others */
	j = json_of("\b\f\n\r\t\a\x7f");
	cr_assert_str_eq(j, "\"\\b\\f\\n\\r\\t\\u0007\\u007f\"");
	free(j);
}

Test(format, decimal_numbers_only)
{
	unsigned long long u;
	double d;

	cr_assert(exm_parse_decimal("0.5", true, &d));
	cr_assert_float_eq(d, 0.5, 1e-12);
	cr_assert(exm_parse_decimal("86400", true, &d));
	cr_assert_float_eq(d, 86400, 1e-12);
	cr_assert_not(exm_parse_decimal("1.5", false, &d));
	static const char *const bad[] = { "",	 "0x10", "1e1", "inf",	"nan",
					   "-1", "+1",	 " 1",	"1 ",	"1.",
					   ".5", "1,5",	 "0x",	"1..2", NULL };
	for (int i = 0; bad[i]; i++) {
		cr_assert_not(exm_parse_decimal(bad[i], true, &d), "%s",
			      bad[i]);
		cr_assert_not(exm_parse_unsigned(bad[i], ~0ull, &u), "%s",
			      bad[i]);
	}
	cr_assert(exm_parse_unsigned("010", 100, &u));
	cr_assert_eq(u, 10);
	cr_assert(exm_parse_unsigned("100", 100, &u));
	cr_assert_not(exm_parse_unsigned("101", 100, &u));
	cr_assert(exm_parse_unsigned("18446744073709551615", ~0ull, &u));
	cr_assert_not(exm_parse_unsigned("18446744073709551616", ~0ull, &u));
}

Test(sort, by_size_then_pid)
{
	struct exm_source *src;
	struct exm_snapshot *snap;
	struct exm_scan_opts o = { 0 };
	struct exm_row *rows;
	char err[128];
	size_t n;

	cr_assert_eq(exm_source_open("fixture:basic", &src, err, sizeof(err)),
		     0);
	cr_assert_eq(exm_source_snapshot(src, &o, &snap), 0);
	rows = exm_table_procs(snap, &n);
	cr_assert_eq(n, 7);
	exm_rows_sort(rows, n, EXM_F_ERSS, EXM_T_PROCS, true);
	/* Three postgres processes tie on erss: broken by pid, reversed
	 * with the direction. */
	cr_assert_eq(rows[0].proc->pid, 302);
	cr_assert_eq(rows[1].proc->pid, 301);
	cr_assert_eq(rows[2].proc->pid, 300);
	for (size_t i = 1; i < n; i++)
		cr_assert_geq(rows[i - 1].sz.erss, rows[i].sz.erss);
	exm_rows_sort(rows, n, EXM_F_COMM, EXM_T_PROCS, false);
	cr_assert_str_eq(rows[0].proc->comm, "bash");
	cr_assert_eq(rows[0].proc->pid, 200);
	free(rows);
	exm_snapshot_free(snap);
	exm_source_close(src);
}

/* The live screen cuts a text column at its width: every kind name must
 * fit the KIND column whole ("vsyscall" was shown as "vsysca"). */
Test(fields, kind_names_fit)
{
	for (int k = 0; k < EXM_KIND__COUNT; k++)
		cr_assert_leq((int)strlen(exm_kind_name(k)),
			      exm_fields[EXM_F_KIND].width, "kind %s cut",
			      exm_kind_name(k));
}

/* A delta row (delta mode, --diff) gives every size as its growth. */
Test(fields, delta_rows)
{
	struct exm_proc p = { .pid = 7, .comm = (char *)"x" };
	struct exm_row r = {
		.proc = &p,
		.flags = EXM_ROW_DELTA,
		.sz = { .vm = 8192,
			.rss = 4096,
			.erss = 1024.5,
			.swap = 0,
			.eswap = 0,
			.sole = 4096,
			.writable = 0,
			.has = EXM_HAS_ALL },
		.prev = { .vm = 12288,
			  .rss = 0,
			  .erss = 0,
			  .swap = 4096,
			  .eswap = 2048,
			  .sole = 0,
			  .writable = 0,
			  .has = EXM_HAS_ALL & ~EXM_HAS_WRITABLE },
		.kpss = { .pss = 3000, .has = EXM_KPSS_PSS },
		.prev_kpss = { .pss = 1000, .has = EXM_KPSS_PSS },
	};
	struct exm_value v;

	exm_field_value(EXM_F_VM, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_DELTA);
	cr_assert_eq(v.d, -4096.0);
	exm_field_value(EXM_F_ERSS, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.d, 1024.5);
	exm_field_value(EXM_F_MAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.d, 0.0); /* 4096 resident for 4096 swapped */
	exm_field_value(EXM_F_EMAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.d, 1024.5 - 2048);
	exm_field_value(EXM_F_PSS, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_DELTA);
	cr_assert_eq(v.d, 2000.0);
	/* not measured before: no growth to show, never 0 */
	exm_field_value(EXM_F_WRITABLE, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_NONE);
	/* not a size: as it is */
	exm_field_value(EXM_F_PID, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_INT);
	cr_assert_eq(v.u, 7);
	exm_field_value(EXM_F_CHANGE, EXM_T_PROCS, &r, &v);
	cr_assert_str_eq(v.s, "same");
	r.flags |= EXM_ROW_NEW;
	exm_field_value(EXM_F_CHANGE, EXM_T_PROCS, &r, &v);
	cr_assert_str_eq(v.s, "new");
	r.flags = EXM_ROW_DELTA | EXM_ROW_GONE;
	exm_field_value(EXM_F_CHANGE, EXM_T_PROCS, &r, &v);
	cr_assert_str_eq(v.s, "gone");
	/* a plain row: the sizes themselves, no change */
	r.flags = 0;
	exm_field_value(EXM_F_CHANGE, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_NONE);
	exm_field_value(EXM_F_VM, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_INT);
	cr_assert_eq(v.u, 8192);
}

/* What json_bytes printed before exm_fmt_thou: snprintf, trimmed. */
static void thou_ref(char *buf, double d)
{
	char *point, *last;

	snprintf(buf, 64, "%.3f", d);
	point = strchr(buf, '.');
	if (point) {
		for (last = point + strlen(point) - 1;
		     last > point && *last == '0'; last--)
			*last = 0;
		if (last == point)
			*point = 0;
	}
	if (strcmp(buf, "-0") == 0)
		memmove(buf, buf + 1, 2);
}

static void thou_same(double d)
{
	char got[EXM_FMT_THOU_LEN], want[64];
	size_t n = exm_fmt_thou(got, d);

	thou_ref(want, d);
	cr_assert_str_eq(got, want, "%.17g: %s, not %s", d, got, want);
	cr_assert_eq(n, strlen(want));
}

/* exm_fmt_thou prints what snprintf "%.3f" (trimmed) does, byte for byte:
 * ties to even, shares b/c of page sizes, negatives, big and odd values. */
Test(fields, thousandths_as_printf)
{
	unsigned seed = 99;
	static const double odd[] = {
		0,
		-0.0,
		0.0625,
		0.1875,
		0.0005,
		0.0015,
		-0.0004,
		-0.0005,
		0.9995,
		0.99951,
		999.9995,
		1e15 + 0.5,
		0x1p50 - 0.125,
		0x1p50,
		0x1p50 + 1,
		1e30,
		-1e30,
		28.000000000000004,
		4096.0 / 3,
		INFINITY,
		-INFINITY,
		NAN,
		5e-324,
		-5e-324,
	};

	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		thou_same(odd[i]);
	for (int i = 0; i < 200000; i++) {
		unsigned r = (unsigned)rand_r(&seed);
		double b = (double)((uint64_t)rand_r(&seed) << (r % 24));
		double d;

		switch (r % 4) {
		case 0: /* a page's share, summed */
			d = b / (r % 97 + 1) + 4096.0 * (r % 13) / (r % 7 + 1);
			break;
		case 1: /* eighths and sixteenths: exact ties */
			d = (double)(r >> 4) / 16;
			break;
		case 2: /* any bits */
			d = ldexp((double)rand_r(&seed) / RAND_MAX,
				  (int)(r % 60) - 10);
			break;
		default:
			d = -b / (r % 1000 + 1);
			break;
		}
		thou_same(r & 1 << 20 ? -d : d);
	}
}

Test(fields, u64_digits)
{
	char b[24];
	static const uint64_t v[] = { 0,	 7, 10, 4096, 1234567890123ull,
				      UINT64_MAX };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char want[24];
		size_t n = exm_fmt_u64(b, v[i]);

		b[n] = 0;
		snprintf(want, sizeof(want), "%" PRIu64, v[i]);
		cr_assert_str_eq(b, want);
	}
}

/* Unknown is not zero: mapped needs both resident and swap measured, its
 * effective form both effective sizes; one of them alone shows nothing
 * (a process whose swap could not be read). */
Test(fields, mapped_needs_both_parts)
{
	struct exm_proc p = { .pid = 7, .comm = (char *)"x" };
	struct exm_row r = {
		.proc = &p,
		.sz = { .vm = 8192,
			.rss = 4096,
			.erss = 1024.5,
			.swap = 4096,
			.eswap = 2048,
			.has = EXM_HAS_VM | EXM_HAS_RSS | EXM_HAS_ERSS },
	};
	struct exm_value v;

	exm_field_value(EXM_F_RSS, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_INT);
	exm_field_value(EXM_F_MAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_NONE, "mapped without swap");
	exm_field_value(EXM_F_EMAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_NONE, "emapped without eswap");
	r.sz.has = EXM_HAS_VM | EXM_HAS_SWAP | EXM_HAS_ESWAP;
	exm_field_value(EXM_F_MAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_NONE, "mapped without resident");
	exm_field_value(EXM_F_EMAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_NONE, "emapped without erss");
	r.sz.has |= EXM_HAS_RSS | EXM_HAS_ERSS;
	exm_field_value(EXM_F_MAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_INT);
	cr_assert_eq(v.u, 8192);
	exm_field_value(EXM_F_EMAPPED, EXM_T_PROCS, &r, &v);
	cr_assert_eq(v.type, EXM_V_DBL);
	cr_assert_eq(v.d, 1024.5 + 2048);
}

/* oom_adj is signed (-1000 to 1000): printed and sorted as such; a process
 * whose OOM figures were not read has none ("-"), not 0. */
Test(fields, oom_adj_signed)
{
	struct exm_proc p[3] = {
		{ .pid = 1, .has_oom = true, .oom_score = 0, .oom_adj = -1000 },
		{ .pid = 2, .has_oom = true, .oom_score = 700, .oom_adj = 300 },
		{ .pid = 3 }
	};
	struct exm_row r[3] = { { .proc = &p[1] },
				{ .proc = &p[0] },
				{ .proc = &p[2] } };
	struct exm_value v;
	char buf[32];

	exm_field_value(EXM_F_OOM_ADJ, EXM_T_PROCS, &r[1], &v);
	cr_assert_str_eq(exm_fmt_value(buf, sizeof(buf), EXM_F_OOM_ADJ, &v,
				       false),
			 "-1000");
	exm_field_value(EXM_F_OOM, EXM_T_PROCS, &r[0], &v);
	cr_assert_str_eq(exm_fmt_value(buf, sizeof(buf), EXM_F_OOM, &v, false),
			 "700");
	exm_field_value(EXM_F_OOM_ADJ, EXM_T_PROCS, &r[2], &v);
	cr_assert_eq(v.type, EXM_V_NONE);
	exm_rows_sort(r, 3, EXM_F_OOM_ADJ, EXM_T_PROCS, false);
	/* unmeasured lowest, then -1000 before 300 */
	cr_assert_eq(r[0].proc->pid, 3);
	cr_assert_eq(r[1].proc->pid, 1);
	cr_assert_eq(r[2].proc->pid, 2);
	exm_field_value(EXM_F_OOM, EXM_T_GROUPS, &r[1], &v);
	cr_assert_eq(v.type, EXM_V_NONE); /* not a group's */
}

/* The one rule of growth (exm_value_growth): after minus before, signed,
 * counts and fractions alike; nothing when either side is unmeasured. */
Test(fields, value_growth)
{
	struct exm_value a = { .type = EXM_V_INT, .u = 4096 };
	struct exm_value b = { .type = EXM_V_INT, .u = 12288 };
	struct exm_value none = { .type = EXM_V_NONE };
	struct exm_value d = { .type = EXM_V_DBL, .d = 1.5 };

	exm_value_growth(&a, &b); /* shrank by 8192 */
	cr_assert_eq(a.type, EXM_V_DELTA);
	cr_assert_float_eq(a.d, -8192.0, 1e-9);
	exm_value_growth(&d, &(struct exm_value){ .type = EXM_V_INT, .u = 1 });
	cr_assert_eq(d.type, EXM_V_DELTA);
	cr_assert_float_eq(d.d, 0.5, 1e-12);
	b = (struct exm_value){ .type = EXM_V_INT, .u = 1 };
	exm_value_growth(&b, &none);
	cr_assert_eq(b.type, EXM_V_NONE);
	exm_value_growth(&none, &d);
	cr_assert_eq(none.type, EXM_V_NONE);
}
