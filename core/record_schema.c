// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_schema.c - what the recorder and the reader of a recording share:
 * the tables, the column lists and the statements made from them, the
 * checks of a file (record_schema.h).
 */
#include "core/record_schema.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/format.h"
#include "core/ownfiles.h"

#define EXM_REC_COL(pos, name, decl, since, bit) \
	[pos] = { name, decl, since, bit },
#define EXM_REC_TABLE(var, table, since, nkey, list, n)                       \
	static const struct exm_rec_col var##_cols[] = { list(EXM_REC_COL) }; \
	const struct exm_rec_table var = { table, since, nkey, var##_cols, n }

EXM_REC_TABLE(exm_rec_snapshot, "snapshot", 1, 0, EXM_REC_SNAPSHOT, RC_SNAP__N);
EXM_REC_TABLE(exm_rec_meminfo, "meminfo", 2, 2, EXM_REC_MEMINFO, RC_MI__N);
EXM_REC_TABLE(exm_rec_process, "process", 1, 2, EXM_REC_PROCESS, RC_PROC__N);
EXM_REC_TABLE(exm_rec_kernel, "kernel", 1, 2, EXM_REC_KERNEL, RC_KERN__N);
EXM_REC_TABLE(exm_rec_cgroup, "cgroup", 4, 2, EXM_REC_CGROUP, RC_CG__N);
EXM_REC_TABLE(exm_rec_file, "file", 1, 0, EXM_REC_FILE, RC_FILE__N);
EXM_REC_TABLE(exm_rec_mapping, "mapping", 1, 3, EXM_REC_MAPPING, RC_MAP__N);
EXM_REC_TABLE(exm_rec_pageset, "pageset", 1, 0, EXM_REC_PAGESET, RC_PSET__N);
EXM_REC_TABLE(exm_rec_run, "run", 1, 2, EXM_REC_RUN, RC_RUN__N);

/* Every table, in the order their statements are made (a table's CREATE
 * or ALTER before the next one's). */
static const struct exm_rec_table *const tables[] = {
	&exm_rec_snapshot, &exm_rec_meminfo, &exm_rec_process,
	&exm_rec_kernel,   &exm_rec_file,    &exm_rec_mapping,
	&exm_rec_pageset,  &exm_rec_run,     &exm_rec_cgroup,
};

/* CREATE TABLE t with the columns of version v and before. */
static void create_table(sqlite3_str *s, const struct exm_rec_table *t, int v)
{
	const char *sep = "";

	sqlite3_str_appendf(s, "CREATE TABLE %s(", t->name);
	for (int i = 0; i < t->ncols; i++)
		if (t->cols[i].since <= v) {
			sqlite3_str_appendf(s, "%s%s %s", sep, t->cols[i].name,
					    t->cols[i].decl);
			sep = ", ";
		}
	if (t->nkey) {
		sqlite3_str_appendall(s, ", PRIMARY KEY(");
		for (int i = 0; i < t->nkey; i++)
			sqlite3_str_appendf(s, "%s%s", i ? ", " : "",
					    t->cols[i].name);
		sqlite3_str_appendall(s, ")) WITHOUT ROWID;");
	} else {
		sqlite3_str_appendall(s, ");");
	}
}

char *exm_rec_upgrade_sql(int v)
{
	sqlite3_str *s = sqlite3_str_new(NULL);

	if (!v)
		sqlite3_str_appendall(s, "CREATE TABLE meta(key TEXT PRIMARY "
					 "KEY, value);");
	for (size_t k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
		const struct exm_rec_table *t = tables[k];

		if (t->since == v + 1) {
			create_table(s, t, v + 1);
			continue;
		}
		for (int i = 0; t->since <= v && i < t->ncols; i++)
			if (t->cols[i].since == v + 1)
				sqlite3_str_appendf(s,
						    "ALTER TABLE %s ADD COLUMN "
						    "%s %s;",
						    t->name, t->cols[i].name,
						    t->cols[i].decl);
	}
	if (!v)
		sqlite3_str_appendall(s, "INSERT INTO meta VALUES('format', "
					 "'exmtop recording');");
	return sqlite3_str_finish(s);
}

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
		if (size_members[k].real) {
			sqlite3_bind_double(st, i + 1, *(const double *)v);
		} else {
			uint64_t u = *(const uint64_t *)v;

			sqlite3_bind_int64(st, i + 1, (sqlite3_int64)u);
		}
	}
}

void exm_rec_col_sizes(sqlite3_stmt *st, const struct exm_rec_table *t,
		       struct exm_sizes *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < t->ncols; i++) {
		int k = size_member(t->cols[i].bit);
		char *v;

		if (k < 0 || sqlite3_column_type(st, i) == SQLITE_NULL)
			continue;
		s->has |= t->cols[i].bit;
		v = (char *)s + size_members[k].off;
		if (size_members[k].real)
			*(double *)v = sqlite3_column_double(st, i);
		else
			*(uint64_t *)v = (uint64_t)sqlite3_column_int64(st, i);
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

/* The member of struct exm_cgcharge at each figure column of the cgroup
 * table (its bit in the column list says whether it is known). */
static const struct {
	size_t off;
	bool real;
} cg_members[RC_CG__N] = {
	[RC_CG_CURRENT] = { offsetof(struct exm_cgcharge, current), false },
	[RC_CG_ANON] = { offsetof(struct exm_cgcharge, anon), false },
	[RC_CG_FILE] = { offsetof(struct exm_cgcharge, file), false },
	[RC_CG_SHMEM] = { offsetof(struct exm_cgcharge, shmem), false },
	[RC_CG_KERNEL] = { offsetof(struct exm_cgcharge, kernel), false },
	[RC_CG_OTHERS] = { offsetof(struct exm_cgcharge, others), true },
	[RC_CG_ELSEWHERE] = { offsetof(struct exm_cgcharge, elsewhere), true },
	[RC_CG_UNMAPPED] = { offsetof(struct exm_cgcharge, unmapped), false },
};

void exm_rec_bind_cgroup(sqlite3_stmt *st, const struct exm_cgcharge *c)
{
	for (int i = 0; i < RC_CG__N; i++) {
		const char *v = (const char *)c + cg_members[i].off;

		if (!exm_rec_cgroup.cols[i].bit ||
		    !(c->has & exm_rec_cgroup.cols[i].bit))
			continue; /* NULL: not known */
		if (cg_members[i].real)
			sqlite3_bind_double(st, i + 1, *(const double *)v);
		else
			sqlite3_bind_int64(st, i + 1,
					   (sqlite3_int64) *
						   (const uint64_t *)v);
	}
}

void exm_rec_col_cgroup(sqlite3_stmt *st, struct exm_cgcharge *c)
{
	for (int i = 0; i < RC_CG__N; i++) {
		char *v = (char *)c + cg_members[i].off;

		if (!exm_rec_cgroup.cols[i].bit ||
		    sqlite3_column_type(st, i) == SQLITE_NULL)
			continue;
		c->has |= exm_rec_cgroup.cols[i].bit;
		if (cg_members[i].real)
			*(double *)v = sqlite3_column_double(st, i);
		else
			*(uint64_t *)v = (uint64_t)sqlite3_column_int64(st, i);
	}
}

/* Messages quote the file's own text (SQLite names tables of a hostile
 * schema in its errors): escaped in place (exm_escape: one line, no
 * control characters, no invalid UTF-8) within the cap bytes of s. */
void exm_rec_one_line(char *s, size_t cap)
{
	char tmp[1024];

	exm_escape_line(tmp, cap < sizeof(tmp) ? cap : sizeof(tmp), s);
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
			 e == ENOENT && may_be_new
				 ? "a symbolic link to nothing"
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
	enum { H_APP, H_VERSION, H_TABLES }; /* the columns of the query */
	sqlite3_stmt *st = NULL;
	int64_t app = -1, ver = -1, ntables = -1;

	if (sqlite3_prepare_v2(db,
			       "SELECT (SELECT application_id FROM "
			       "pragma_application_id), (SELECT user_version "
			       "FROM pragma_user_version), (SELECT count(*) "
			       "FROM sqlite_schema)",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		exm_rec_set_err(err, errlen, path, "not an exmtop recording",
				db);
		sqlite3_finalize(st);
		return -EINVAL;
	}
	app = sqlite3_column_int64(st, H_APP);
	ver = sqlite3_column_int64(st, H_VERSION);
	ntables = sqlite3_column_int64(st, H_TABLES);
	sqlite3_finalize(st);
	*fresh = app == 0 && ver == 0 && ntables == 0;
	*version = 0;
	if (*fresh)
		return 0;
	if (app != EXM_RECORD_APP_ID) {
		exm_rec_set_err(err, errlen, path, "not an exmtop recording",
				NULL);
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
		exm_rec_set_err(err, errlen, path, "not an exmtop recording",
				NULL);
		return -EINVAL;
	}
	*version = (int)ver;
	return 0;
}
