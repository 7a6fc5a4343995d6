// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_schema.c - what the recorder and the reader of a recording share:
 * the tables, the column lists and the statements made from them, the
 * checks of a file (record_schema.h).
 */
#include "core/record_schema.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/format.h"
#include "core/ownfiles.h"

/* The tables of schema version 1; a new file then gets every upgrade. */
const char exm_rec_schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value);"
	"CREATE TABLE snapshot(id INTEGER PRIMARY KEY, taken_sec INTEGER,"
	" taken_nsec INTEGER, time_taken REAL, page_size INTEGER,"
	" mem_total INTEGER, mem_available INTEGER, kernel TEXT,"
	" hostname TEXT, source TEXT, source_detail TEXT, limits TEXT,"
	" caps INTEGER, proc_root TEXT, skipped_gone INTEGER,"
	" skipped_denied INTEGER);"
	"CREATE TABLE process(snapshot INTEGER, idx INTEGER, pid INTEGER,"
	" ppid INTEGER, uid INTEGER, start_time INTEGER, user TEXT,"
	" comm TEXT, cmdline TEXT, cgroup TEXT, state INTEGER,"
	" vm INTEGER, rss INTEGER, erss REAL, swap INTEGER, eswap REAL,"
	" sole INTEGER, writable INTEGER,"
	" PRIMARY KEY(snapshot, idx)) WITHOUT ROWID;"
	"CREATE TABLE kernel(snapshot INTEGER, proc INTEGER, pss INTEGER,"
	" pss_anon INTEGER, pss_file INTEGER, pss_shmem INTEGER,"
	" pss_dirty INTEGER, swap_pss INTEGER, rss INTEGER,"
	" PRIMARY KEY(snapshot, proc)) WITHOUT ROWID;"
	"CREATE TABLE file(id INTEGER PRIMARY KEY, name TEXT,"
	" dev_major INTEGER, dev_minor INTEGER, inode INTEGER,"
	" build_id TEXT);"
	"CREATE TABLE mapping(snapshot INTEGER, proc INTEGER, idx INTEGER,"
	" start INTEGER, end INTEGER, offset INTEGER, perms INTEGER,"
	" kind INTEGER, file INTEGER, pageset INTEGER, deleted INTEGER,"
	" vm INTEGER, rss INTEGER, erss REAL, swap INTEGER, eswap REAL,"
	" sole INTEGER, has INTEGER,"
	" PRIMARY KEY(snapshot, proc, idx)) WITHOUT ROWID;"
	"CREATE TABLE pageset(id INTEGER PRIMARY KEY, pages INTEGER);"
	"CREATE TABLE run(pageset INTEGER, offset INTEGER, count INTEGER,"
	" present INTEGER, first INTEGER, swap_type INTEGER, flags INTEGER,"
	" PRIMARY KEY(pageset, offset)) WITHOUT ROWID;"
	"INSERT INTO meta VALUES('format', 'exmtop recording');";

/*
 * upgrade_sql[v] takes a file from version v to v + 1. A file of an
 * older version stays readable as it is, and the recorder upgrades it
 * before appending to it.
 *
 * 2: /proc/meminfo with each snapshot. snapshot.meminfo is its number of
 * rows (NULL: the snapshot was written before version 2), meminfo holds
 * the rows as the kernel prints them (unit 'kB' or NULL for a count).
 *
 * 3: what the kernel says of a mapping (is_hugetlb, kpage_size: NULL or 0
 * the base page) and, from a source without pages, its zero, hugetlb and
 * ehugetlb sizes; a run's step (NULL: the next frame or swap slot, 0: the
 * same word again, as the zero page or a KSM page mapped at consecutive
 * addresses). Page words keep bits 59 (zero page) and 60 (KSM) among the
 * flags, which bits 55-61 always were: a file written before has neither.
 */
const char *const exm_rec_upgrade_sql[EXM_RECORD_SCHEMA] = {
	[1] = "ALTER TABLE snapshot ADD COLUMN meminfo INTEGER;"
	      "CREATE TABLE meminfo(snapshot INTEGER, idx INTEGER, key TEXT,"
	      " value INTEGER, unit TEXT, PRIMARY KEY(snapshot, idx))"
	      " WITHOUT ROWID;",
	[2] = "ALTER TABLE mapping ADD COLUMN is_hugetlb INTEGER;"
	      "ALTER TABLE mapping ADD COLUMN kpage_size INTEGER;"
	      "ALTER TABLE mapping ADD COLUMN zero INTEGER;"
	      "ALTER TABLE mapping ADD COLUMN hugetlb INTEGER;"
	      "ALTER TABLE mapping ADD COLUMN ehugetlb REAL;"
	      "ALTER TABLE run ADD COLUMN step INTEGER;",
};

#define EXM_REC_COL(pos, name, since, bit) [pos] = { name, since, bit },
#define EXM_REC_TABLE(var, table, list, n)                              \
	static const struct exm_rec_col var##_cols[] = { list(EXM_REC_COL) }; \
	const struct exm_rec_table var = { table, var##_cols, n }

EXM_REC_TABLE(exm_rec_snapshot, "snapshot", EXM_REC_SNAPSHOT, RC_SNAP__N);
EXM_REC_TABLE(exm_rec_meminfo, "meminfo", EXM_REC_MEMINFO, RC_MI__N);
EXM_REC_TABLE(exm_rec_process, "process", EXM_REC_PROCESS, RC_PROC__N);
EXM_REC_TABLE(exm_rec_kernel, "kernel", EXM_REC_KERNEL, RC_KERN__N);
EXM_REC_TABLE(exm_rec_file, "file", EXM_REC_FILE, RC_FILE__N);
EXM_REC_TABLE(exm_rec_mapping, "mapping", EXM_REC_MAPPING, RC_MAP__N);
EXM_REC_TABLE(exm_rec_pageset, "pageset", EXM_REC_PAGESET, RC_PSET__N);
EXM_REC_TABLE(exm_rec_run, "run", EXM_REC_RUN, RC_RUN__N);

char *exm_rec_insert_sql(const struct exm_rec_table *t)
{
	sqlite3_str *s = sqlite3_str_new(NULL);

	sqlite3_str_appendf(s, "INSERT INTO %s(", t->name);
	for (int i = 0; i < t->ncols; i++)
		sqlite3_str_appendf(s, "%s\"%w\"", i ? ", " : "",
				    t->cols[i].name);
	sqlite3_str_appendall(s, ") VALUES(");
	for (int i = 0; i < t->ncols; i++)
		sqlite3_str_appendall(s, i ? ", ?" : "?");
	sqlite3_str_appendall(s, ")");
	return sqlite3_str_finish(s);
}

char *exm_rec_select_sql(int version, const struct exm_rec_table *const *t,
			 const char *const *alias, int n, const char *tail)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	const char *sep = "SELECT ";

	for (int k = 0; k < n; k++)
		for (int i = 0; i < t[k]->ncols; i++, sep = ", ") {
			const struct exm_rec_col *c = &t[k]->cols[i];

			if (c->since > version)
				sqlite3_str_appendf(s, "%sNULL", sep);
			else
				sqlite3_str_appendf(s, "%s%s%s\"%w\"", sep,
						    alias[k],
						    alias[k][0] ? "." : "",
						    c->name);
		}
	sqlite3_str_appendf(s, " %s", tail);
	return sqlite3_str_finish(s);
}

/* The member of struct exm_sizes each EXM_HAS_* bit stands for. */
static const struct {
	unsigned bit;
	size_t off;
	bool real;
} size_members[] = {
	{ EXM_HAS_VM, offsetof(struct exm_sizes, vm), false },
	{ EXM_HAS_RSS, offsetof(struct exm_sizes, rss), false },
	{ EXM_HAS_ERSS, offsetof(struct exm_sizes, erss), true },
	{ EXM_HAS_SWAP, offsetof(struct exm_sizes, swap), false },
	{ EXM_HAS_ESWAP, offsetof(struct exm_sizes, eswap), true },
	{ EXM_HAS_SOLE, offsetof(struct exm_sizes, sole), false },
	{ EXM_HAS_WRITABLE, offsetof(struct exm_sizes, writable), false },
	{ EXM_HAS_ZERO, offsetof(struct exm_sizes, zero), false },
	{ EXM_HAS_HUGETLB, offsetof(struct exm_sizes, hugetlb), false },
	{ EXM_HAS_EHUGETLB, offsetof(struct exm_sizes, ehugetlb), true },
};

#define NSIZE_MEMBERS (sizeof(size_members) / sizeof(size_members[0]))

/* The entry of size_members for bit, or -1. */
static int size_member(unsigned bit)
{
	for (size_t i = 0; i < NSIZE_MEMBERS; i++)
		if (size_members[i].bit == bit)
			return (int)i;
	return -1;
}

void exm_rec_bind_sizes(sqlite3_stmt *st, const struct exm_rec_table *t,
			const struct exm_sizes *s)
{
	for (int i = 0; i < t->ncols; i++) {
		int k = size_member(t->cols[i].bit);
		const char *v;

		if (k < 0 || !(s->has & t->cols[i].bit))
			continue; /* NULL: not measured */
		v = (const char *)s + size_members[k].off;
		if (size_members[k].real)
			sqlite3_bind_double(st, i + 1, *(const double *)v);
		else
			sqlite3_bind_int64(st, i + 1,
					   (sqlite3_int64) *
						   (const uint64_t *)v);
	}
}

void exm_rec_col_sizes(sqlite3_stmt *st, const struct exm_rec_table *t,
		       int base, struct exm_sizes *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < t->ncols; i++) {
		int k = size_member(t->cols[i].bit);
		char *v;

		if (k < 0 ||
		    sqlite3_column_type(st, base + i) == SQLITE_NULL)
			continue;
		s->has |= t->cols[i].bit;
		v = (char *)s + size_members[k].off;
		if (size_members[k].real)
			*(double *)v = sqlite3_column_double(st, base + i);
		else
			*(uint64_t *)v =
				(uint64_t)sqlite3_column_int64(st, base + i);
	}
}

/* The member of struct exm_kpss each EXM_KPSS_* bit stands for. */
static uint64_t *kpss_member(struct exm_kpss *k, unsigned bit)
{
	switch (bit) {
	case EXM_KPSS_PSS:
		return &k->pss;
	case EXM_KPSS_PSS_ANON:
		return &k->pss_anon;
	case EXM_KPSS_PSS_FILE:
		return &k->pss_file;
	case EXM_KPSS_PSS_SHMEM:
		return &k->pss_shmem;
	case EXM_KPSS_PSS_DIRTY:
		return &k->pss_dirty;
	case EXM_KPSS_SWAP_PSS:
		return &k->swap_pss;
	case EXM_KPSS_RSS:
		return &k->rss;
	default:
		return NULL;
	}
}

void exm_rec_bind_kpss(sqlite3_stmt *st, const struct exm_kpss *k)
{
	struct exm_kpss copy = *k;

	for (int i = 0; i < exm_rec_kernel.ncols; i++) {
		unsigned bit = exm_rec_kernel.cols[i].bit;
		uint64_t *v = kpss_member(&copy, bit);

		if (v && (k->has & bit))
			sqlite3_bind_int64(st, i + 1, (sqlite3_int64)*v);
	}
}

void exm_rec_col_kpss(sqlite3_stmt *st, struct exm_kpss *k)
{
	for (int i = 0; i < exm_rec_kernel.ncols; i++) {
		unsigned bit = exm_rec_kernel.cols[i].bit;
		uint64_t *v = kpss_member(k, bit);

		if (v && sqlite3_column_type(st, i) != SQLITE_NULL) {
			k->has |= bit;
			*v = (uint64_t)sqlite3_column_int64(st, i);
		}
	}
}

/* Messages quote the file's own text (SQLite names tables of a hostile
 * schema in its errors): escaped in place (exm_escape: one line, no
 * control characters, no invalid UTF-8) within the cap bytes of s. */
void exm_rec_one_line(char *s, size_t cap)
{
	char tmp[1024];

	exm_escape(tmp, cap < sizeof(tmp) ? cap : sizeof(tmp), s);
	memcpy(s, tmp, strlen(tmp) + 1);
}

void exm_rec_set_err(char *buf, size_t len, const char *path, const char *what,
		    sqlite3 *db)
{
	snprintf(buf, len, "%.200s: %s%s%s", path, what, db ? ": " : "",
		 db ? sqlite3_errmsg(db) : "");
	exm_rec_one_line(buf, len);
}

/*
 * A recording is a regular file of its own: anything else at path (a
 * directory, a device such as /dev/null, a FIFO) gets -EINVAL and one line
 * before SQLite opens it (and creates a journal beside it, or blocks on a
 * FIFO). A path that does not exist is -ENOENT, or 0 if may_be_new (but
 * not a symbolic link to nothing).
 */
int exm_rec_regular_file(const char *path, bool may_be_new, char *err,
			size_t errlen)
{
	struct stat st;
	int e;

	if (stat(path, &st)) {
		e = errno;
		/* new, but not through a symbolic link to nothing: SQLite would
		 * create the file wherever it points */
		if (e == ENOENT && may_be_new && lstat(path, &st))
			return 0;
		snprintf(err, errlen, "%.200s: %s", path,
			 e == ENOENT && may_be_new ? "a symbolic link to nothing"
						   : strerror(e));
		exm_rec_one_line(err, errlen);
		return -e;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen, "%.200s: not a regular file", path);
	exm_rec_one_line(err, errlen);
	return -EINVAL;
}

/* Register the files SQLite has open for db (ownfiles.h), so that nothing
 * else in the process opens them; the name to give own_drop() after
 * sqlite3_close(), or NULL (no memory). */
char *exm_rec_own_add(sqlite3 *db)
{
	const char *name = sqlite3_db_filename(db, "main");
	char *copy = strdup(name ? name : "");

	if (copy && exm_ownfiles_add(copy)) {
		free(copy);
		copy = NULL;
	}
	return copy;
}

void exm_rec_own_drop(char *name)
{
	if (!name)
		return;
	exm_ownfiles_remove(name);
	free(name);
}

/* Check that db is a recording this exmtop reads: 0, or -EINVAL with why
 * in err. *fresh is set for an empty database, *version to its schema. */
int exm_rec_check_header(sqlite3 *db, const char *path, bool *fresh,
			int *version, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t app = -1, ver = -1, ntables = -1;

	if (sqlite3_prepare_v2(db,
			       "SELECT (SELECT application_id FROM "
			       "pragma_application_id), (SELECT user_version "
			       "FROM pragma_user_version), (SELECT count(*) "
			       "FROM sqlite_schema)",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		exm_rec_set_err(err, errlen, path, "not an exmtop recording", db);
		sqlite3_finalize(st);
		return -EINVAL;
	}
	app = sqlite3_column_int64(st, 0);
	ver = sqlite3_column_int64(st, 1);
	ntables = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	*fresh = app == 0 && ver == 0 && ntables == 0;
	*version = 0;
	if (*fresh)
		return 0;
	if (app != EXM_RECORD_APP_ID) {
		exm_rec_set_err(err, errlen, path, "not an exmtop recording", NULL);
		return -EINVAL;
	}
	if (ver > EXM_RECORD_SCHEMA) {
		snprintf(err, errlen,
			 "%.200s: recording schema %" PRId64 " is newer than "
			 "this exmtop's (%d): upgrade exmtop",
			 path, ver, EXM_RECORD_SCHEMA);
		exm_rec_one_line(err, errlen);
		return -EINVAL;
	}
	if (ver < 1) {
		exm_rec_set_err(err, errlen, path, "not an exmtop recording", NULL);
		return -EINVAL;
	}
	*version = (int)ver;
	return 0;
}

