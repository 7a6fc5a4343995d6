// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The builder protocol, recording and replay: fixture snapshots played
 * through the protocol, recorded and replayed give the very same figures;
 * damaged, foreign and future files give one clear error.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/account.h"
#include "core/builder.h"
#include "core/elf.h"
#include "core/cgcharge.h"
#include "core/fields.h"
#include "core/group.h"
#include "core/record.h"
#include "core/record_schema.h"
#include "core/source.h"
#include "core/source_replay.h"
#include "tests/unit/snapcmp.h"
#include "tests/unit/snapgen.h"

static struct exm_snapshot *take(const char *name)
{
	struct exm_scan_opts o = { .want_kpss = true };
	struct exm_snapshot *s = NULL;
	struct exm_source *src;
	char err[256];

	cr_assert_eq(exm_source_open(name, &src, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(exm_source_snapshot(src, &o, &s), 0);
	exm_source_close(src);
	return s;
}

/* A fresh path for a recording in a temporary directory. */
static void tmp_path(char *buf, size_t len, const char *name)
{
	char dir[] = "/tmp/exm_rec.XXXXXX";

	cr_assert_not_null(mkdtemp(dir));
	snprintf(buf, len, "%s/%s", dir, name);
}

static void rm_recording(const char *path)
{
	char p[512];

	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s", path);
	*strrchr(p, '/') = '\0';
	rmdir(p);
}

static void assert_same(const struct exm_snapshot *a,
			const struct exm_snapshot *b)
{
	char why[512];

	cr_assert_eq(snapcmp(a, b, why, sizeof(why)), 0, "%s", why);
}

Test(builder, emit_into_builder_gives_same_figures)
{
	static const char *const fx[] = { "fixture:basic", "fixture:hostile",
					  "fixture:many" };

	for (size_t i = 0; i < 3; i++) {
		struct exm_snapshot *a = take(fx[i]);
		struct exm_snapshot *b = exm_snapshot_new();
		struct exm_builder bl;

		exm_builder_init(&bl, b);
		cr_assert_eq(exm_snapshot_emit(a, &exm_builder_sink, &bl), 0);
		cr_assert_eq(exm_snapshot_account(b), 0);
		assert_same(a, b);
		cr_assert_str_eq(b->sys.source, "fixture");
		exm_snapshot_free(a);
		exm_snapshot_free(b);
	}
}

Test(builder, begin_rejects_a_bad_page_size)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_sysinfo sys = { .page_size = 3000 };
	struct exm_builder b;

	exm_builder_init(&b, s);
	cr_assert_eq(exm_build_begin(&b, &sys), -EINVAL);
	sys.page_size = 0;
	cr_assert_eq(exm_build_begin(&b, &sys), -EINVAL);
	sys.page_size = 16384;
	cr_assert_eq(exm_build_begin(&b, &sys), 0);
	cr_assert_eq(s->sys.page_size, 16384);
	exm_snapshot_free(s);
}

Test(builder, sink_out_of_order_is_an_error)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_mapping m = { .start = 0, .end = 4096, .name = "" };
	uint64_t w = EXM_PM_PRESENT | 5;
	struct exm_builder b;

	exm_builder_init(&b, s);
	/* a mapping or pages before any process */
	cr_assert_eq(exm_builder_sink.mapping(&b, &m), -EINVAL);
	cr_assert_eq(exm_builder_sink.pages(&b, 0, &w, 1), -EINVAL);
	exm_snapshot_free(s);
}

/* Record every fixture twice, replay each snapshot and compare. */
Test(record, round_trip_fixtures)
{
	static const char *const fx[] = { "fixture:basic", "fixture:hostile",
					  "fixture:many" };
	char path[256], err[512], name[300];
	struct exm_recorder *r;

	struct exm_snapshot *taken[3];

	tmp_path(path, sizeof(path), "fx.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < 3; i++) {
		taken[i] = take(fx[i]);
		cr_assert_eq(exm_record_snapshot(r, taken[i]), 0, "%s",
			     exm_record_errmsg(r));
	}
	exm_record_close(r);

	snprintf(name, sizeof(name), "replay:%s", path);
	for (size_t i = 0; i < 3; i++) {
		struct exm_scan_opts o = { 0 };
		struct exm_snapshot *a = taken[i], *b;
		struct exm_source *src;

		cr_assert_eq(exm_source_open(name, &src, err, sizeof(err)), 0,
			     "%s", err);
		cr_assert_eq(exm_source_count(src), 3);
		cr_assert_eq(exm_source_seek(src, i), 0);
		cr_assert_eq(exm_source_snapshot(src, &o, &b), 0, "%s",
			     src->errmsg);
		assert_same(a, b);
		cr_assert_str_eq(b->sys.source, "fixture");
		cr_assert_str_eq(b->sys.proc_root, "");
		cr_assert_eq(b->sys.taken_at.tv_sec, a->sys.taken_at.tv_sec);
		cr_assert_eq(b->sys.taken_at.tv_nsec, a->sys.taken_at.tv_nsec);
		cr_assert_eq(exm_source_seek(src, 3), -ERANGE);
		exm_snapshot_free(a);
		exm_snapshot_free(b);
		exm_source_close(src);
	}
	rm_recording(path);
}

Test(record, replay_steps_through_then_stays_on_the_last)
{
	char path[256], err[512], name[300];
	struct exm_scan_opts o = { 0 };
	struct exm_recorder *r;
	struct exm_source *src;
	struct exm_snapshot *s;
	struct timespec t;

	tmp_path(path, sizeof(path), "steps.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	for (int i = 0; i < 2; i++) {
		s = take(i ? "fixture:hostile" : "fixture:basic");
		cr_assert_eq(exm_record_snapshot(r, s), 0);
		exm_snapshot_free(s);
	}
	exm_record_close(r);
	/* appending to an existing recording */
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	s = take("fixture:many");
	cr_assert_eq(exm_record_snapshot(r, s), 0);
	t = s->sys.taken_at;
	exm_snapshot_free(s);
	exm_record_close(r);

	snprintf(name, sizeof(name), "replay:%s", path);
	cr_assert_eq(exm_source_open(name, &src, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(exm_source_count(src), 3);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(exm_source_tell(src), i < 3 ? (size_t)i : 2);
		cr_assert_eq(exm_source_snapshot(src, &o, &s), 0);
		cr_assert_eq(s->nprocs, i == 0 ? 7u : i == 1 ? 9u : 2000u);
		exm_snapshot_free(s);
	}
	cr_assert_eq(exm_source_seek_time(src, &t), 0);
	cr_assert_eq(exm_source_tell(src), 2);
	t.tv_sec = 1;
	cr_assert_eq(exm_source_seek_time(src, &t), 0);
	cr_assert_eq(exm_source_tell(src), 0);
	exm_source_close(src);
	rm_recording(path);
}

Test(record, pids_option_honoured_on_replay)
{
	char path[256], err[512], name[300];
	pid_t pids[] = { 200, 400 };
	struct exm_scan_opts o = { .pids = pids, .npids = 2 };
	struct exm_recorder *r;
	struct exm_source *src;
	struct exm_snapshot *s = take("fixture:basic");

	tmp_path(path, sizeof(path), "pids.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, s), 0);
	exm_record_close(r);
	exm_snapshot_free(s);
	snprintf(name, sizeof(name), "replay:%s", path);
	cr_assert_eq(exm_source_open(name, &src, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(exm_source_snapshot(src, &o, &s), 0);
	cr_assert_eq(s->nprocs, 2);
	cr_assert_eq(s->procs[0].pid, 200);
	cr_assert_eq(s->procs[1].pid, 400);
	exm_snapshot_free(s);
	exm_source_close(src);
	rm_recording(path);
}

/* Open path as a replay source and take its first snapshot: 0, or the
 * error, which must be one line. */
static int try_replay(const char *path, char *err, size_t len)
{
	char name[600];
	struct exm_source *src = NULL;
	int ret;

	snprintf(name, sizeof(name), "replay:%s", path);
	ret = exm_source_open(name, &src, err, len);
	if (!ret) { /* opens: the snapshot must then fail */
		struct exm_scan_opts o = { 0 };
		struct exm_snapshot *s = NULL;

		ret = exm_source_snapshot(src, &o, &s);
		snprintf(err, len, "%s", src->errmsg);
		exm_snapshot_free(s);
		exm_source_close(src);
	}
	if (ret) {
		cr_assert_null(strchr(err, '\n'), "two lines: %s", err);
		cr_assert_neq(err[0], '\0');
	}
	return ret;
}

#define open_fails try_replay

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void sql(const char *path, const char *q)
{
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK, "%s: %s",
		     q, sqlite3_errmsg(db));
	sqlite3_close(db);
}

static void record_basic(const char *path)
{
	struct exm_recorder *r;
	struct exm_snapshot *s = take("fixture:basic");
	char err[512];

	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, s), 0);
	exm_record_close(r);
	exm_snapshot_free(s);
}

Test(record, foreign_and_damaged_files)
{
	char path[256], err[512];

	tmp_path(path, sizeof(path), "bad.exmrec");
	cr_assert_eq(open_fails(path, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "No such file"), "%s", err);

	write_file(path, "hello, world\n", 13);
	cr_assert_eq(open_fails(path, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not an exmtop recording"), "%s", err);

	write_file(path, "", 0);
	cr_assert_eq(open_fails(path, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not an exmtop recording"), "%s", err);
	unlink(path);

	/* another program's database */
	sql(path, "CREATE TABLE t(x); INSERT INTO t VALUES(1)");
	cr_assert_eq(open_fails(path, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not an exmtop recording"), "%s", err);
	unlink(path);

	/* a newer exmtop's */
	record_basic(path);
	sql(path, "PRAGMA user_version=99");
	cr_assert_eq(open_fails(path, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "newer"), "%s", err);
	rm_recording(path);
}

Test(record, corrupt_rows_are_rejected)
{
	static const char *const damage[] = {
		"UPDATE run SET count = 1 << 40",
		"UPDATE run SET offset = offset + 100000",
		"UPDATE mapping SET pageset = 99999 WHERE pageset IS NOT NULL",
		"DELETE FROM run WHERE count > 1",
		"UPDATE run SET first = -1",
		"UPDATE run SET flags = 4096",
		"UPDATE run SET swap_type = 77 WHERE present = 0",
		"UPDATE mapping SET start = end",
		"UPDATE mapping SET end = end + 1",
		"UPDATE mapping SET kind = 99",
		"UPDATE mapping SET idx = idx + 5 WHERE idx = 1",
		"UPDATE process SET pid = -4",
		"UPDATE process SET state = 9",
		"UPDATE snapshot SET page_size = 1000",
		"UPDATE file SET build_id = 'xyz'",
		"DROP TABLE run",
		/* the /proc/meminfo rows (schema 2) */
		"UPDATE meminfo SET unit = 'MB' WHERE idx = 2",
		"UPDATE meminfo SET value = -1 WHERE idx = 2",
		"UPDATE meminfo SET value = 'many' WHERE idx = 2",
		"UPDATE meminfo SET value = 2.5 WHERE idx = 2",
		"UPDATE meminfo SET value = 1 << 62 WHERE idx = 2",
		"UPDATE meminfo SET key = 'Mem\nFree' WHERE idx = 1",
		"UPDATE meminfo SET key = x'4d656d' WHERE idx = 1",
		"UPDATE meminfo SET key = NULL WHERE idx = 1",
		"UPDATE meminfo SET key = 'MemTotal' WHERE idx = 1",
		"UPDATE meminfo SET idx = 50 WHERE idx = 1",
		"DELETE FROM meminfo WHERE key = 'MemTotal'",
		"UPDATE meminfo SET value = value - 1 WHERE key = 'MemTotal'",
		"UPDATE meminfo SET value = 7 WHERE key = 'MemAvailable'",
		"UPDATE snapshot SET meminfo = meminfo + 1",
		"UPDATE snapshot SET meminfo = 1000",
		"UPDATE snapshot SET meminfo = 'all'",
		"DROP TABLE meminfo",
	};

	for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		char path[256], err[512];

		tmp_path(path, sizeof(path), "corrupt.exmrec");
		record_basic(path);
		if (strstr(damage[i], "build_id"))
			sql(path,
			    "UPDATE file SET build_id = 'ab' WHERE id = 1");
		sql(path, damage[i]);
		cr_assert_eq(open_fails(path, err, sizeof(err)), -EINVAL, "%s",
			     damage[i]);
		cr_assert(strstr(err, "corrupt") ||
				  strstr(err, "not an exmtop"),
			  "%s: %s", damage[i], err);
		if (strstr(damage[i], "meminfo") && !strstr(damage[i], "DROP"))
			cr_assert(strstr(err, "meminfo"), "%s: %s", damage[i],
				  err);
		rm_recording(path);
	}
}

Test(record, truncated_files_never_crash)
{
	char path[256], cut[300], err[512];
	char *buf;
	long len;
	FILE *f;

	tmp_path(path, sizeof(path), "full.exmrec");
	record_basic(path);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len);
	cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	snprintf(cut, sizeof(cut), "%s.cut", path);
	/* cut anywhere: fails with one line (a cut after the last used page
	 * may still read) */
	for (long n = 0; n < len; n += 512) {
		write_file(cut, buf, (size_t)n);
		if (n < len / 2)
			cr_assert_neq(try_replay(cut, err, sizeof(err)), 0,
				      "%ld", n);
		else
			try_replay(cut, err, sizeof(err));
	}
	/* and from memory, byte flips */
	for (long n = 100; n < len; n += 997) {
		struct exm_recording *rec;
		char e2[512];

		buf[n] ^= 0x5a;
		if (!exm_recording_open_mem(buf, (size_t)len, &rec, e2,
					    sizeof(e2))) {
			struct exm_snapshot *s = exm_snapshot_new();
			struct exm_builder b;

			exm_builder_init(&b, s);
			for (size_t k = 0; k < exm_recording_count(rec); k++)
				if (!exm_recording_load(rec, k,
							&exm_builder_sink, &b))
					exm_snapshot_account(s);
			exm_snapshot_free(s);
			exm_recording_close(rec);
		}
		buf[n] ^= 0x5a;
	}
	free(buf);
	unlink(cut);
	rm_recording(path);
}

/* tests/golden/basic-v1.sql (fixture:basic, -n 2, as the exmtop of schema
 * 1 wrote it) loaded into a new file at path. */
static void make_v1(const char *path)
{
	char *text;
	long len;
	FILE *f = fopen(EXM_SRCDIR "/tests/golden/basic-v1.sql", "r");

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	cr_assert_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	sql(path, text);
	free(text);
}

static int64_t sql_int(const char *path, const char *q)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK,
		     "%s: %s", q, sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", q);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* Snapshot idx of the recording at path, accounted. */
static struct exm_snapshot *load_at(const char *path, size_t idx)
{
	struct exm_recording *rec;
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_builder b;
	char err[512];

	cr_assert_eq(exm_recording_open(path, &rec, err, sizeof(err)), 0, "%s",
		     err);
	exm_builder_init(&b, s);
	cr_assert_eq(exm_recording_load(rec, idx, &exm_builder_sink, &b), 0,
		     "%s", exm_recording_errmsg(rec));
	cr_assert_eq(exm_snapshot_account(s), 0);
	exm_recording_close(rec);
	return s;
}

/* The meminfo rows of a live snapshot, recorded, read back the same. */
Test(record, meminfo_round_trip)
{
	struct exm_snapshot *a = take("fixture:basic"), *b;
	struct exm_recorder *r;
	char path[256], err[512];

	cr_assert_eq(a->sys.meminfo.n, 21);
	tmp_path(path, sizeof(path), "mi.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, a), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	cr_assert_eq(sql_int(path, "PRAGMA user_version"), EXM_RECORD_SCHEMA);
	cr_assert_eq(sql_int(path, "SELECT meminfo FROM snapshot"), 21);
	cr_assert_eq(sql_int(path, "SELECT value FROM meminfo WHERE "
				   "key = 'MemTotal' AND unit = 'kB'"),
		     8388608);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM meminfo WHERE "
				   "key = 'HugePages_Total' AND unit IS NULL"),
		     1);
	b = load_at(path, 0);
	assert_same(a, b); /* every row, in order */
	cr_assert(!b->sys.meminfo.predates);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
	rm_recording(path);
}

/*
 * What a page and a mapping are survives a recording: zero-page words
 * (one frame repeated, and the huge zero page's consecutive frames), a KSM
 * page mapped at consecutive addresses, a hugetlb mapping with its page
 * size; the words come back as they went, and repeated frames take one
 * run row each.
 */
Test(record, page_kinds_round_trip)
{
	const uint64_t pz = EXM_PM_PRESENT | EXM_PM_ZERO, zpfn = 0x2a00;
	struct exm_snapshot *a = exm_snapshot_new(), *b = exm_snapshot_new();
	struct exm_recording *rec;
	struct exm_recorder *r;
	struct exm_builder bld;
	struct exm_mapping *m;
	struct exm_proc *p;
	char path[256], err[512];
	uint64_t w[40];
	uint32_t n = 0;

	cr_assert_not_null(a);
	cr_assert_not_null(b);
	a->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
	snprintf(a->sys.source, sizeof(a->sys.source), "pagemap");
	p = snapgen_proc(a, 42, "kinds");
	cr_assert_not_null(p);
	m = exm_proc_add_mapping(p);
	m->start = 0x10000000;
	m->end = m->start + 40 * 4096;
	m->kind = EXM_KIND_ANON;
	m->perms = EXM_PERM_R | EXM_PERM_W;
	m->name = strdup("");
	for (uint32_t k = 0; k < 10; k++) /* the zero page, ten times */
		w[n++] = pz | zpfn;
	for (uint32_t k = 0; k < 10; k++) /* a huge zero page's frames */
		w[n++] = pz | (0x40000 + k);
	for (uint32_t k = 0; k < 10; k++) /* one KSM page, ten times */
		w[n++] = EXM_PM_PRESENT | EXM_PM_KSM | 0x777;
	for (uint32_t k = 0; k < 10; k++) /* ordinary frames */
		w[n++] = EXM_PM_PRESENT | EXM_PM_EXCLUSIVE | (0x900 + k);
	cr_assert_eq(exm_mapping_add_pages(m, m->start / 4096, w, n), 0);
	cr_assert_null(m->pages32, "zero-page and KSM words stay 64-bit");
	m = exm_proc_add_mapping(p);
	m->start = 0x40000000;
	m->end = m->start + (4u << 20);
	m->kind = EXM_KIND_SHMEM;
	m->perms = EXM_PERM_R | EXM_PERM_W | EXM_PERM_S;
	m->name = strdup("/memfd:huge (deleted)");
	m->deleted = true;
	m->inode = 77;
	m->hugetlb = true;
	m->kpage_size = 2u << 20;
	cr_assert_eq(exm_mapping_add_run(m, m->start / 4096,
					 EXM_PM_PRESENT | EXM_PM_FILE | 0x80000,
					 1, 512),
		     0);

	tmp_path(path, sizeof(path), "kinds.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, a), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	/* zero page, huge zero page, KSM, ordinary; one hugetlb run */
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM run"), 5);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM run WHERE step = 0"),
		     2);

	cr_assert_eq(exm_recording_open(path, &rec, err, sizeof(err)), 0, "%s",
		     err);
	exm_builder_init(&bld, b);
	cr_assert_eq(exm_recording_load(rec, 0, &exm_builder_sink, &bld), 0,
		     "%s", exm_recording_errmsg(rec));
	exm_recording_close(rec);
	cr_assert_eq(b->nprocs, 1);
	cr_assert_eq(b->procs[0].nmaps, 2);
	for (size_t j = 0; j < 2; j++) {
		const struct exm_mapping *x = &a->procs[0].maps[j],
					 *y = &b->procs[0].maps[j];

		cr_assert_eq(y->hugetlb, x->hugetlb);
		cr_assert_eq(y->kpage_size, x->kpage_size);
		cr_assert_eq(y->npages, x->npages);
		for (uint32_t k = 0; k < x->npages; k++)
			cr_assert_eq(exm_mapping_word(y, k),
				     exm_mapping_word(x, k),
				     "mapping %zu page %u", j, k);
	}
	cr_assert_eq(exm_snapshot_account(a), 0);
	cr_assert_eq(exm_snapshot_account(b), 0);
	assert_same(a, b);
	exm_snapshot_free(a);
	exm_snapshot_free(b);

	/* a repeated step on a swap entry, or a step other than 0: refused */
	sql(path, "UPDATE run SET step = 1 WHERE step = 0");
	cr_assert_eq(exm_recording_open(path, &rec, err, sizeof(err)), 0, "%s",
		     err);
	b = exm_snapshot_new();
	exm_builder_init(&bld, b);
	cr_assert_eq(exm_recording_load(rec, 0, &exm_builder_sink, &bld),
		     -EINVAL);
	cr_assert(strstr(exm_recording_errmsg(rec), "bad page run"), "%s",
		  exm_recording_errmsg(rec));
	exm_recording_close(rec);
	exm_snapshot_free(b);
	rm_recording(path);
}

/* A file of schema 1 replays as it is, with no meminfo (said, not
 * invented); appending to it upgrades it in place, and its old snapshots
 * still say they predate meminfo while the new one has it. */
Test(record, schema1_replays_and_upgrades)
{
	struct exm_snapshot *fx = take("fixture:basic"), *s;
	struct exm_recorder *r;
	char path[256], err[512];

	tmp_path(path, sizeof(path), "v1.exmrec");
	make_v1(path);
	cr_assert_eq(sql_int(path, "PRAGMA user_version"), 1);
	for (size_t i = 0; i < 2; i++) {
		s = load_at(path, i);
		cr_assert(s->sys.meminfo.predates);
		cr_assert_eq(s->sys.meminfo.n, 0);
		cr_assert_eq(s->sys.mem_total, fx->sys.mem_total);
		/* every figure as the fixture's (meminfo aside) */
		s->sys.meminfo = fx->sys.meminfo;
		assert_same(fx, s);
		exm_snapshot_free(s);
	}
	cr_assert_eq(sql_int(path, "PRAGMA user_version"), 1,
		     "reading changes nothing");

	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, fx), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	cr_assert_eq(sql_int(path, "PRAGMA user_version"), EXM_RECORD_SCHEMA);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM snapshot WHERE "
				   "meminfo IS NULL"),
		     2);
	s = load_at(path, 1);
	cr_assert(s->sys.meminfo.predates);
	exm_snapshot_free(s);
	s = load_at(path, 2);
	assert_same(fx, s);
	cr_assert(!s->sys.meminfo.predates);
	exm_snapshot_free(s);

	/* a second recorder finds it upgraded: nothing to do */
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	exm_record_close(r);
	cr_assert_eq(sql_int(path, "PRAGMA user_version"), EXM_RECORD_SCHEMA);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM snapshot"), 3);
	exm_snapshot_free(fx);
	rm_recording(path);
}

/* A file of schema 2 (meminfo, but no hugetlb flags, zero sizes or run
 * steps: as the exmtop of schema 2 upgraded a file of schema 1) replays
 * as it is, and appending to it upgrades it to the tables of a new file. */
Test(record, schema2_replays_and_upgrades)
{
	struct exm_snapshot *fx = take("fixture:basic"), *s;
	struct exm_recorder *r;
	char path[256], err[512];

	tmp_path(path, sizeof(path), "v2.exmrec");
	make_v1(path);
	sql(path,
	    "ALTER TABLE snapshot ADD COLUMN meminfo INTEGER;"
	    "CREATE TABLE meminfo(snapshot INTEGER, idx INTEGER, key TEXT,"
	    " value INTEGER, unit TEXT, PRIMARY KEY(snapshot, idx))"
	    " WITHOUT ROWID; PRAGMA user_version=2");
	for (size_t i = 0; i < 2; i++) {
		s = load_at(path, i);
		cr_assert(s->sys.meminfo.predates);
		s->sys.meminfo = fx->sys.meminfo;
		assert_same(fx, s);
		exm_snapshot_free(s);
	}
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, fx), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	cr_assert_eq(sql_int(path, "PRAGMA user_version"), EXM_RECORD_SCHEMA);
	/* the columns of schema 3, NULL in the old rows */
	cr_assert_gt(sql_int(path, "SELECT count(*) FROM mapping WHERE "
				   "snapshot < 3"),
		     0);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM mapping WHERE "
				   "snapshot < 3 AND is_hugetlb IS NULL"),
		     sql_int(path, "SELECT count(*) FROM mapping WHERE "
				   "snapshot < 3"));
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM pragma_table_info("
				   "'run') WHERE name = 'step'"),
		     1);
	s = load_at(path, 2);
	assert_same(fx, s);
	cr_assert(!s->sys.meminfo.predates);
	exm_snapshot_free(s);
	exm_snapshot_free(fx);
	rm_recording(path);
}

/* A snapshot with its OOM scores and two cgroups' charge (one with every
 * figure, one with a few), recorded into path; the snapshot is returned. */
static struct exm_snapshot *record_oom_cgroups(const char *path)
{
	struct exm_snapshot *s = take("fixture:basic");
	struct exm_recorder *r;
	char err[512];

	for (size_t i = 0; i < s->nprocs; i++) {
		s->procs[i].has_oom = i != 1; /* one not read: NULL */
		s->procs[i].oom_score = 100 + (int)i;
		s->procs[i].oom_adj = (int)i - 500;
	}
	s->cgroups = calloc(2, sizeof(*s->cgroups));
	cr_assert(s->cgroups);
	s->ncgroups = 2;
	s->cgroups[0] = (struct exm_cgcharge){
		.path = strdup("/"),
		.ino = 1,
		.anon = 7,
		.file = 8,
		.shmem = 9,
		.others = 0.5,
		.elsewhere = 4096.25,
		.has = EXM_CG_ANON | EXM_CG_FILE | EXM_CG_SHMEM | EXM_CG_FRAMES
	};
	s->cgroups[1] = (struct exm_cgcharge){
		.path = strdup("/a.slice"),
		.ino = 77,
		.current = 1u << 30,
		.anon = 1,
		.file = 2,
		.shmem = 3,
		.kernel = 4,
		.others = 5,
		.elsewhere = 6,
		.unmapped = 7,
		.has = EXM_CG_CURRENT | EXM_CG_ANON | EXM_CG_FILE |
		       EXM_CG_SHMEM | EXM_CG_KERNEL | EXM_CG_FRAMES |
		       EXM_CG_UNMAPPED
	};
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, s), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	return s;
}

static void assert_same_oom_cgroups(const struct exm_snapshot *a,
				    const struct exm_snapshot *b)
{
	cr_assert_eq(a->nprocs, b->nprocs);
	for (size_t i = 0; i < a->nprocs; i++) {
		cr_expect_eq(a->procs[i].has_oom, b->procs[i].has_oom);
		if (a->procs[i].has_oom) {
			cr_expect_eq(a->procs[i].oom_score,
				     b->procs[i].oom_score);
			cr_expect_eq(a->procs[i].oom_adj, b->procs[i].oom_adj);
		}
	}
	cr_assert_eq(a->ncgroups, b->ncgroups);
	for (size_t i = 0; i < a->ncgroups; i++) {
		const struct exm_cgcharge *x = &a->cgroups[i],
					  *y = &b->cgroups[i];

		cr_expect_str_eq(x->path, y->path);
		cr_expect_eq(x->has, y->has, "%s: has %x, read %x", x->path,
			     x->has, y->has);
		cr_expect_eq(x->ino, y->ino);
		cr_expect_eq(x->current, y->current);
		cr_expect_eq(x->anon, y->anon);
		cr_expect_eq(x->file, y->file);
		cr_expect_eq(x->shmem, y->shmem);
		cr_expect_eq(x->kernel, y->kernel);
		cr_expect_eq(x->others, y->others);
		cr_expect_eq(x->elsewhere, y->elsewhere);
		cr_expect_eq(x->unmapped, y->unmapped);
	}
}

/* Recordings keep the OOM scores and the cgroups' charge (schema 4), and
 * the replay's group rows per cgroup show them. */
Test(record, oom_and_cgroups_round_trip)
{
	struct exm_snapshot *s, *back;
	struct exm_row *rows;
	struct exm_value v;
	char path[256];
	size_t n;

	tmp_path(path, sizeof(path), "cg.exmrec");
	s = record_oom_cgroups(path);
	back = load_at(path, 0);
	assert_same(s, back);
	assert_same_oom_cgroups(s, back);
	cr_expect_eq(sql_int(path, "SELECT count(*) FROM process WHERE "
				   "oom_score IS NULL"),
		     1, "the process whose scores were not read");
	cr_expect_eq(sql_int(path, "SELECT count(*) FROM cgroup WHERE "
				   "current IS NULL"),
		     1, "the root's current: not known, NULL");
	rows = exm_table_groups(back, EXM_GROUP_CGROUP, NULL, &n);
	cr_assert(rows);
	for (size_t i = 0; i < n; i++) {
		exm_field_value(EXM_F_CG_CURRENT, EXM_T_GROUPS, &rows[i], &v);
		cr_expect_eq(v.type,
			     exm_cgcharge_find(back, rows[i].name) &&
					     !strcmp(rows[i].name, "/a.slice")
				     ? EXM_V_INT
				     : EXM_V_NONE,
			     "%s", rows[i].name);
	}
	free(rows);
	exm_snapshot_free(back);
	exm_snapshot_free(s);
	rm_recording(path);
}

/* A recording of schema 3 replays with no OOM score and no cgroup charge
 * (null, not 0); recorded into, it is upgraded: the old rows keep NULL. */
Test(record, schema3_replays_and_upgrades)
{
	struct exm_snapshot *s, *back;
	char path[256];

	tmp_path(path, sizeof(path), "v3.exmrec");
	exm_snapshot_free(record_oom_cgroups(path));
	sql(path, "DROP TABLE cgroup; ALTER TABLE process DROP COLUMN "
		  "oom_adj; ALTER TABLE process DROP COLUMN oom_score; "
		  "PRAGMA user_version=3");
	back = load_at(path, 0);
	for (size_t i = 0; i < back->nprocs; i++)
		cr_expect(!back->procs[i].has_oom);
	cr_expect_eq(back->ncgroups, 0);
	exm_snapshot_free(back);
	s = record_oom_cgroups(path);
	cr_assert_eq(sql_int(path, "PRAGMA user_version"), EXM_RECORD_SCHEMA);
	cr_expect_eq(sql_int(path, "SELECT count(*) FROM process WHERE "
				   "snapshot = 1 AND oom_score IS NULL"),
		     sql_int(path, "SELECT count(*) FROM process WHERE "
				   "snapshot = 1"));
	back = load_at(path, 1);
	assert_same_oom_cgroups(s, back);
	exm_snapshot_free(back);
	back = load_at(path, 0);
	cr_expect_eq(back->ncgroups, 0);
	exm_snapshot_free(back);
	exm_snapshot_free(s);
	rm_recording(path);
}

/* The column lists (record_schema.h) are the tables of a recording:
 * each column of a new file, in order, under its name and declared type;
 * a list adds its newer columns after the older ones (an upgrade appends
 * them), its key leads it, and no name is listed twice. */
Test(record, column_lists_are_the_tables)
{
	static const struct exm_rec_table *const tabs[] = {
		&exm_rec_snapshot, &exm_rec_meminfo, &exm_rec_process,
		&exm_rec_kernel,   &exm_rec_file,    &exm_rec_mapping,
		&exm_rec_pageset,  &exm_rec_run,     &exm_rec_cgroup,
	};
	char path[256];
	sqlite3 *db;

	tmp_path(path, sizeof(path), "lists.exmrec");
	record_basic(path);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	for (size_t k = 0; k < sizeof(tabs) / sizeof(tabs[0]); k++) {
		const struct exm_rec_table *t = tabs[k];
		sqlite3_stmt *st;
		int i = 0;

		cr_assert_leq(t->nkey, t->ncols);
		cr_assert_eq(sqlite3_prepare_v2(db,
						"SELECT name, type, pk FROM "
						"pragma_table_info(?1)",
						-1, &st, NULL),
			     SQLITE_OK);
		sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
		for (; sqlite3_step(st) == SQLITE_ROW; i++) {
			const struct exm_rec_col *c = &t->cols[i];
			const char *name, *type;
			size_t n;

			cr_assert_lt(i, t->ncols, "%s: more columns", t->name);
			name = (const char *)sqlite3_column_text(st, 0);
			type = (const char *)sqlite3_column_text(st, 1);
			n = strlen(type);
			cr_assert_str_eq(name, c->name, "%s column %d", t->name,
					 i);
			cr_assert(!strncmp(c->decl, type, n) &&
					  (!c->decl[n] || c->decl[n] == ' '),
				  "%s.%s: %s, listed %s", t->name, c->name,
				  type, c->decl);
			cr_assert_eq(sqlite3_column_int(st, 2) != 0,
				     i < t->nkey || strstr(c->decl, "PRIMARY"),
				     "%s.%s key", t->name, c->name);
			cr_assert_geq(c->since, t->since);
			cr_assert(!i || c->since >= t->cols[i - 1].since,
				  "%s.%s: newer columns last", t->name,
				  c->name);
			for (int j = 0; j < i; j++)
				cr_assert_str_neq(t->cols[j].name, c->name);
		}
		sqlite3_finalize(st);
		cr_assert_eq(i, t->ncols, "%s: %d columns, listed %d", t->name,
			     i, t->ncols);
	}
	sqlite3_close(db);
	rm_recording(path);
}

/* A replayed snapshot that predates meminfo, recorded again, still does;
 * a snapshot without meminfo is recorded as having none. */
Test(record, predates_is_kept_when_recorded_again)
{
	struct exm_snapshot *s;
	struct exm_recorder *r;
	char v1[256], path[256], err[512];

	tmp_path(v1, sizeof(v1), "v1.exmrec");
	make_v1(v1);
	s = load_at(v1, 0);
	tmp_path(path, sizeof(path), "again.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, s), 0, "%s", exm_record_errmsg(r));
	s->sys.meminfo.predates = false;
	cr_assert_eq(exm_record_snapshot(r, s), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	exm_snapshot_free(s);
	cr_assert_eq(sql_int(path, "SELECT meminfo IS NULL FROM snapshot "
				   "WHERE id = 1"),
		     1);
	cr_assert_eq(sql_int(path, "SELECT meminfo FROM snapshot WHERE "
				   "id = 2"),
		     0);
	s = load_at(path, 0);
	cr_assert(s->sys.meminfo.predates);
	exm_snapshot_free(s);
	s = load_at(path, 1);
	cr_assert(!s->sys.meminfo.predates);
	cr_assert_eq(s->sys.meminfo.n, 0);
	exm_snapshot_free(s);
	rm_recording(v1);
	rm_recording(path);
}

/*
 * A snapshot that fails to be written (here at its very end, after its
 * file and page set rows, as a full disk would) leaves no cached id
 * behind: the same snapshot written again, and a next one with other
 * files, replay with every mapping naming its own file.
 */
Test(record, failed_snapshot_leaves_no_cached_ids)
{
	struct exm_snapshot *a = take("fixture:basic");
	struct exm_snapshot *b = take("fixture:hostile");
	struct exm_snapshot *c = take("fixture:many");
	struct exm_snapshot *s;
	struct exm_recorder *r;
	char path[256], err[512];

	tmp_path(path, sizeof(path), "fail.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, a), 0, "%s", exm_record_errmsg(r));
	sql(path, "CREATE TABLE t_fail(x);"
		  "CREATE TRIGGER t_full BEFORE UPDATE ON snapshot "
		  "WHEN EXISTS (SELECT 1 FROM t_fail) "
		  "BEGIN SELECT RAISE(ABORT, 'disk full'); END;"
		  "INSERT INTO t_fail VALUES(1);");
	cr_assert_neq(exm_record_snapshot(r, b), 0);
	cr_assert(strstr(exm_record_errmsg(r), "disk full"), "%s",
		  exm_record_errmsg(r));
	cr_assert_eq(exm_record_last_id(r), 1);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM snapshot"), 1);
	sql(path, "DELETE FROM t_fail");
	cr_assert_eq(exm_record_snapshot(r, b), 0, "%s", exm_record_errmsg(r));
	cr_assert_eq(exm_record_last_id(r), 2);
	cr_assert_eq(exm_record_snapshot(r, c), 0, "%s", exm_record_errmsg(r));
	cr_assert_eq(exm_record_last_id(r), 3);
	exm_record_close(r);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM mapping m WHERE "
				   "m.file IS NOT NULL AND NOT EXISTS (SELECT "
				   "1 FROM file f WHERE f.id = m.file)"),
		     0);
	s = load_at(path, 1);
	assert_same(b, s);
	exm_snapshot_free(s);
	s = load_at(path, 2);
	assert_same(c, s);
	exm_snapshot_free(s);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
	exm_snapshot_free(c);
	rm_recording(path);
}

/*
 * While a recorder has a recording open, nothing in the process opens
 * the recording or its -wal and -shm through exm_open_regular (their
 * close would drop SQLite's locks), whatever the name used (here a hard
 * link); once it is closed they open again.
 */
Test(record, own_files_are_never_opened)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	struct exm_snapshot *a = take("fixture:basic");
	struct exm_recorder *r;
	char path[256], other[300], err[512];
	struct stat st;
	int fd;

	tmp_path(path, sizeof(path), "own.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, a), 0, "%s", exm_record_errmsg(r));
	for (size_t i = 0; i < 3; i++) {
		char name[300];

		snprintf(name, sizeof(name), "%s%s", path, sfx[i]);
		snprintf(other, sizeof(other), "%s.link%zu", path, i);
		cr_assert_eq(link(name, other), 0, "%s", name);
		fd = exm_open_regular(other, &st);
		cr_assert_lt(fd, 0, "%s opened", other);
		cr_assert_eq(errno, EBUSY);
	}
	/* still written and read as before */
	cr_assert_eq(exm_record_snapshot(r, a), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	snprintf(other, sizeof(other), "%s.link0", path);
	fd = exm_open_regular(other, &st);
	cr_assert_geq(fd, 0);
	close(fd);
	for (size_t i = 0; i < 3; i++) {
		snprintf(other, sizeof(other), "%s.link%zu", path, i);
		unlink(other);
	}
	exm_snapshot_free(a);
	rm_recording(path);
}

/* Nothing in the file names a row that is gone, and no page set, run or
 * file row is left that nothing names; integrity_check is ok. */
static void assert_tidy(const char *path)
{
	static const char *const q[] = {
		"SELECT count(*) FROM mapping m WHERE (m.pageset IS NOT NULL "
		"AND NOT EXISTS (SELECT 1 FROM pageset p WHERE p.id = "
		"m.pageset)) OR (m.file IS NOT NULL AND NOT EXISTS (SELECT 1 "
		"FROM file f WHERE f.id = m.file))",
		"SELECT count(*) FROM pageset p WHERE NOT EXISTS (SELECT 1 "
		"FROM mapping m WHERE m.pageset = p.id)",
		"SELECT count(*) FROM file f WHERE NOT EXISTS (SELECT 1 FROM "
		"mapping m WHERE m.file = f.id)",
		"SELECT count(*) FROM run r WHERE NOT EXISTS (SELECT 1 FROM "
		"pageset p WHERE p.id = r.pageset)",
		"SELECT count(*) FROM process WHERE snapshot NOT IN (SELECT id "
		"FROM snapshot)",
		"SELECT count(*) FROM meminfo WHERE snapshot NOT IN (SELECT id "
		"FROM snapshot)",
		"SELECT count(*) FROM kernel WHERE snapshot NOT IN (SELECT id "
		"FROM snapshot)",
		"SELECT (SELECT integrity_check FROM pragma_integrity_check) "
		"<> 'ok'",
	};

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		cr_assert_eq(sql_int(path, q[i]), 0, "%s", q[i]);
}

/* --keep N: the last N stay, with the rows they name, and replay as
 * taken; ids keep growing when every older one is dropped (N = 1), and
 * the page sets and files the recorder had cached from a dropped snapshot
 * are written anew, not named. */
Test(record, keep_n_keeps_the_last_n)
{
	static const char *const fx[] = { "fixture:basic", "fixture:hostile",
					  "fixture:many", "fixture:basic",
					  "fixture:hostile" };
	struct exm_retention k = { .n = 2 };
	struct exm_snapshot *taken[5], *s;
	struct exm_recorder *r;
	char path[256], err[512];

	tmp_path(path, sizeof(path), "keep.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_set_retention(r, &k), 0, "%s",
		     exm_record_errmsg(r));
	for (size_t i = 0; i < 5; i++) {
		taken[i] = take(fx[i]);
		cr_assert_eq(exm_record_snapshot(r, taken[i]), 0, "%s",
			     exm_record_errmsg(r));
		cr_assert_eq(exm_record_last_id(r), (int64_t)i + 1);
		cr_assert_eq(sql_int(path, "SELECT count(*) FROM snapshot"),
			     i < 2 ? (int64_t)i + 1 : 2);
		assert_tidy(path);
	}
	cr_assert_eq(sql_int(path, "SELECT min(id) FROM snapshot"), 4);
	s = load_at(path, 0);
	assert_same(taken[3], s);
	exm_snapshot_free(s);
	s = load_at(path, 1);
	assert_same(taken[4], s);
	exm_snapshot_free(s);
	/* one: every snapshot before the new one goes, the same fixture
	 * again (its page sets and files were cached) */
	k.n = 1;
	cr_assert_eq(exm_record_set_retention(r, &k), 0);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(exm_record_snapshot(r, taken[0]), 0, "%s",
			     exm_record_errmsg(r));
		cr_assert_eq(exm_record_last_id(r), 6 + i);
		assert_tidy(path);
		cr_assert_eq(sql_int(path, "SELECT count(*) FROM snapshot"), 1);
		s = load_at(path, 0);
		assert_same(taken[0], s);
		exm_snapshot_free(s);
	}
	exm_record_close(r);
	for (size_t i = 0; i < 5; i++)
		exm_snapshot_free(taken[i]);
	rm_recording(path);
}

/* Another recorder's retention drops the snapshots (and the rows) this
 * one wrote: its next snapshot names none of them. */
Test(record, another_recorders_retention)
{
	struct exm_snapshot *a = take("fixture:basic");
	struct exm_snapshot *b = take("fixture:hostile"), *s;
	struct exm_retention k = { .n = 1 };
	struct exm_recorder *r1, *r2;
	char path[256], err[512];

	tmp_path(path, sizeof(path), "two.exmrec");
	cr_assert_eq(exm_record_open(path, &r1, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(exm_record_open(path, &r2, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(exm_record_set_retention(r2, &k), 0);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(exm_record_snapshot(r1, a), 0, "%s",
			     exm_record_errmsg(r1));
		cr_assert_eq(exm_record_snapshot(r2, b), 0, "%s",
			     exm_record_errmsg(r2));
		assert_tidy(path);
	}
	cr_assert_eq(exm_record_snapshot(r1, a), 0, "%s",
		     exm_record_errmsg(r1));
	assert_tidy(path);
	cr_assert_eq(exm_record_last_id(r1), 7);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM snapshot"), 2);
	s = load_at(path, 0);
	assert_same(b, s);
	exm_snapshot_free(s);
	s = load_at(path, 1);
	assert_same(a, s);
	exm_snapshot_free(s);
	exm_record_close(r1);
	exm_record_close(r2);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
	rm_recording(path);
}

/* --keep DURATION: those taken less than DURATION before the new one
 * stay; --keep-size: every database committed is within the bound, the
 * file on disk too, also after a recorder starts again (its caches
 * empty, its first snapshot written whole) and on a file made without
 * auto_vacuum (converted once); a recorder's own pruning does not make
 * it forget the page sets it wrote (the same pages: no new page set). */
Test(record, keep_duration_and_size)
{
	struct exm_snapshot *a = take("fixture:basic");
	struct exm_snapshot *m = take("fixture:many");
	struct exm_retention k = { .secs = 2.5 };
	struct exm_recorder *r;
	char path[256], err[512];
	int64_t one, bound;

	tmp_path(path, sizeof(path), "secs.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_set_retention(r, &k), 0);
	for (int i = 0; i < 6; i++) {
		a->sys.taken_at.tv_sec = 1000 + i;
		a->sys.taken_at.tv_nsec = 0;
		cr_assert_eq(exm_record_snapshot(r, a), 0, "%s",
			     exm_record_errmsg(r));
	}
	/* at 1005: 1003 (2 s before), 1004 and 1005 */
	cr_assert_eq(sql_int(path, "SELECT min(taken_sec) FROM snapshot"),
		     1003);
	cr_assert_eq(sql_int(path, "SELECT count(*) FROM snapshot"), 3);
	assert_tidy(path);
	exm_record_close(r);
	rm_recording(path);

	/* the size of one snapshot of 2000 processes */
	tmp_path(path, sizeof(path), "one.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, m), 0);
	exm_record_close(r);
	one = sql_int(path, "SELECT page_count * page_size FROM "
			    "pragma_page_count, pragma_page_size");
	rm_recording(path);

	bound = 3 * one;
	k = (struct exm_retention){ .bytes = (uint64_t)bound };
	tmp_path(path, sizeof(path), "size.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_set_retention(r, &k), 0);
	for (int i = 0, top = 0; i < 18; i++) {
		struct stat st;

		if (i == 6 || i == 12) { /* started again: caches empty */
			exm_record_close(r);
			if (i == 12) /* as made before auto_vacuum */
				sql(path, "PRAGMA auto_vacuum=NONE;VACUUM;");
			cr_assert_eq(exm_record_open(path, &r, err,
						     sizeof(err)),
				     0, "%s", err);
			cr_assert_eq(exm_record_set_retention(r, &k), 0);
		}
		/* another process each time: snapshots of their own */
		m->procs[0].pid = 100000 + i;
		cr_assert_eq(exm_record_snapshot(r, m), 0, "%s",
			     exm_record_errmsg(r));
		cr_assert_leq(sql_int(path, "SELECT page_count * page_size "
					    "FROM pragma_page_count, "
					    "pragma_page_size"),
			      bound, "snapshot %d", i + 1);
		cr_assert_eq(stat(path, &st), 0);
		cr_assert_leq(st.st_size, bound, "snapshot %d", i + 1);
		if (i % 6)
			cr_assert_eq(sql_int(path, "SELECT max(id) FROM "
						   "pageset"),
				     top, "snapshot %d", i + 1);
		top = (int)sql_int(path, "SELECT max(id) FROM pageset");
	}
	cr_assert_eq(sql_int(path, "PRAGMA auto_vacuum"), 2);
	cr_assert_eq(exm_record_last_id(r), 18);
	cr_assert_lt(sql_int(path, "SELECT count(*) FROM snapshot"), 6);
	cr_assert_geq(sql_int(path, "SELECT count(*) FROM snapshot"), 2);
	cr_assert_eq(sql_int(path, "SELECT max(id) FROM snapshot"), 18);
	assert_tidy(path);
	exm_record_close(r);
	exm_snapshot_free(a);
	exm_snapshot_free(m);
	rm_recording(path);
}

/* A reader that listed a snapshot the recorder's retention dropped since
 * says so (-ERANGE, one line), and reads those left. */
Test(record, dropped_snapshot_says_so)
{
	struct exm_snapshot *a = take("fixture:basic"), *s;
	struct exm_retention k = { .n = 2 };
	struct exm_recording *rec;
	struct exm_recorder *r;
	struct exm_builder b;
	char path[256], err[512];

	tmp_path(path, sizeof(path), "dropped.exmrec");
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_set_retention(r, &k), 0);
	cr_assert_eq(exm_record_snapshot(r, a), 0);
	cr_assert_eq(exm_record_snapshot(r, a), 0);
	cr_assert_eq(exm_recording_open(path, &rec, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(exm_recording_count(rec), 2);
	cr_assert_eq(exm_record_snapshot(r, a), 0); /* drops the first */
	s = exm_snapshot_new();
	exm_builder_init(&b, s);
	cr_assert_eq(exm_recording_load(rec, 0, &exm_builder_sink, &b),
		     -ERANGE);
	cr_assert(strstr(exm_recording_errmsg(rec), "snapshot 1 was dropped"),
		  "%s", exm_recording_errmsg(rec));
	cr_assert_null(strchr(exm_recording_errmsg(rec), '\n'));
	exm_snapshot_free(s);
	s = exm_snapshot_new();
	exm_builder_init(&b, s);
	cr_assert_eq(exm_recording_load(rec, 1, &exm_builder_sink, &b), 0, "%s",
		     exm_recording_errmsg(rec));
	cr_assert_eq(exm_snapshot_account(s), 0);
	assert_same(a, s);
	exm_snapshot_free(s);
	exm_recording_close(rec);
	exm_record_close(r);
	exm_snapshot_free(a);
	rm_recording(path);
}
