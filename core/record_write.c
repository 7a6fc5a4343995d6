// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_write.c - the recorder: a builder protocol sink that appends
 * snapshots to a recording (record.h; the tables in record_schema.h).
 */
#include "core/record.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/elf.h"
#include "core/elfcache.h"
#include "core/pagemap.h"
#include "core/record_schema.h"

/* How long a recorder waits for another one's snapshot to be written. */
#define RECORDER_WAIT_MS 30000
/* With retention: how long a recorder waits for readers to leave the
 * -wal, to empty it, after a snapshot and before the next one (they read
 * one snapshot in that time); and the size it is truncated to when it
 * starts over without --keep-size (SQLite's checkpoint size). */
#define WAL_WAIT_MS 200
#define WAL_WAIT_BEFORE_MS 1000
#define WAL_LIMIT (4000 << 10)

struct file_ent {
	char *name;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	int64_t id;
	uint64_t gen; /* the snapshot that wrote its row */
};

enum {
	S_SNAP,
	S_SNAP_END,
	S_PROC,
	S_KPSS,
	S_MAP,
	S_PSET,
	S_RUN,
	S_FILE,
	S_MEMINFO,
	S_CGROUP,
	S__N
};

/* The table each statement but S_SNAP_END inserts a row into. */
static const struct exm_rec_table *const stmt_table[S__N] = {
	[S_SNAP] = &exm_rec_snapshot, [S_PROC] = &exm_rec_process,
	[S_KPSS] = &exm_rec_kernel,   [S_MAP] = &exm_rec_mapping,
	[S_PSET] = &exm_rec_pageset,  [S_RUN] = &exm_rec_run,
	[S_FILE] = &exm_rec_file,     [S_MEMINFO] = &exm_rec_meminfo,
	[S_CGROUP] = &exm_rec_cgroup,
};

/* The text of statement i; NULL: no memory. sqlite3_free() it. */
static char *stmt_sql(int i)
{
	const struct exm_rec_col *c = exm_rec_snapshot.cols;

	if (i != S_SNAP_END)
		return exm_rec_insert_sql(stmt_table[i]);
	/* numbered as the columns' positions, like every other statement */
	return sqlite3_mprintf("UPDATE snapshot SET \"%w\"=?%d, \"%w\"=?%d "
			       "WHERE \"%w\"=?%d",
			       c[RC_SNAP_SKIPPED_GONE].name,
			       RC_SNAP_SKIPPED_GONE + 1,
			       c[RC_SNAP_SKIPPED_DENIED].name,
			       RC_SNAP_SKIPPED_DENIED + 1, c[RC_SNAP_ID].name,
			       RC_SNAP_ID + 1);
}

/* A run of pages at offset off (pages from the mapping's start) whose
 * words are word, word + step, ... (step: the next frame or swap slot, or
 * 0: the same word again). */
struct rrun {
	uint64_t off, word;
	uint64_t count;
	uint64_t step;
};

/* A page set already in the file: the runs of a mapping, written once
 * and shared by every mapping with the same runs (fork, shared memory,
 * the same library pages; and the same mapping in the next snapshot). */
struct pset {
	uint64_t hash;
	int64_t id;
	struct rrun *runs;
	uint32_t nruns;
	uint64_t gen; /* the last snapshot that used it */
};

struct exm_recorder {
	sqlite3 *db;
	sqlite3_stmt *st[S__N];
	char path[256];
	char errmsg[512];
	char *own;    /* the file as SQLite named it, in ownfiles.h */
	int64_t last; /* id of the last snapshot committed, or 0 */

	/* the snapshot being written */
	char proc_root[256];
	bool live; /* a /proc stands behind the snapshot: build-ids readable */
	unsigned caps;
	int64_t snap, proc, map; /* ids / indexes */
	int64_t ncg;		 /* cgroup rows of the snapshot so far */
	pid_t pid;
	unsigned page_size;
	uint64_t gen; /* snapshots begun */

	/* the mapping being written: its row waits for its page set */
	bool map_open;
	struct exm_mapping pend; /* header only */
	int64_t pend_file;
	struct rrun *runs;
	uint32_t nruns, cap_runs;

	/* page sets of this and the last snapshot: open addressing by hash */
	struct pset *psets;
	size_t npsets, nps_slots;

	/* files seen by this recorder: open addressing on (name, dev, ino) */
	struct file_ent *files;
	size_t nfiles, nslots;

	/* retention (record.h) */
	struct exm_retention keep;
	int64_t min_seen; /* the oldest snapshot when the last one committed */
	int64_t used;	  /* bytes in use after pruning, before the snapshot */
	int64_t cost;	  /* bytes the last snapshot added */
};

static int psets_keep(struct exm_recorder *r, uint64_t min_gen);
static int files_rehash(struct exm_recorder *r, size_t n, uint64_t gen);

const char *exm_record_errmsg(const struct exm_recorder *r)
{
	return r->errmsg;
}

int64_t exm_record_last_id(const struct exm_recorder *r)
{
	return r->last;
}

static int db_fail(struct exm_recorder *r, const char *what)
{
	int code = sqlite3_errcode(r->db);

	exm_rec_set_err(r->errmsg, sizeof(r->errmsg), r->path, what, r->db);
	if (code == SQLITE_NOMEM)
		return -ENOMEM;
	if (code == SQLITE_FULL)
		return -ENOSPC;
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return -EINVAL;
	return -EIO;
}

/* Run a prepared insert/update with its bound values; 0 or -errno. */
static int run_stmt(struct exm_recorder *r, int which)
{
	sqlite3_stmt *st = r->st[which];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_fail(r, "cannot write");
}

/*
 * In one transaction: the tables of a new file, or the upgrades of an
 * older one (checked again under the write lock: another recorder may
 * have done it meanwhile), and the new version. 0 or -errno.
 */
static int create_or_upgrade(sqlite3 *db, const char *path, char *err,
			     size_t errlen)
{
	enum { U_VERSION, U_TABLES }; /* the columns of the query */
	sqlite3_stmt *st = NULL;
	int version = -1;
	bool fresh;
	char sql[128];

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
		goto fail;
	if (sqlite3_prepare_v2(db,
			       "SELECT (SELECT user_version FROM "
			       "pragma_user_version), (SELECT count(*) "
			       "FROM sqlite_schema)",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail;
	version = sqlite3_column_int(st, U_VERSION);
	fresh = !version && !sqlite3_column_int(st, U_TABLES);
	sqlite3_finalize(st);
	st = NULL;
	if (!fresh && (version < 1 || version > EXM_RECORD_SCHEMA)) {
		exm_rec_set_err(err, errlen, path, "not an exmtop recording",
				NULL);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -EINVAL;
	}
	for (; version < EXM_RECORD_SCHEMA; version++) {
		char *up = exm_rec_upgrade_sql(version);
		int rc = up ? sqlite3_exec(db, up, NULL, NULL, NULL)
			    : SQLITE_NOMEM;

		sqlite3_free(up);
		if (rc)
			goto fail;
	}
	snprintf(sql, sizeof(sql),
		 "PRAGMA application_id=%d;PRAGMA user_version=%d;",
		 EXM_RECORD_APP_ID, EXM_RECORD_SCHEMA);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL))
		goto fail;
	return 0;
fail:
	exm_rec_set_err(err, errlen, path,
			version < 0 ? "cannot create" : "cannot upgrade", db);
	sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -EIO;
}

int exm_record_open(const char *path, struct exm_recorder **out, char *err,
		    size_t errlen)
{
	struct exm_recorder *r = calloc(1, sizeof(*r));
	bool fresh;
	int ret = -EIO, version;

	if (!r)
		return -ENOMEM;
	snprintf(r->path, sizeof(r->path), "%s", path);
	/* it is quoted in messages */
	exm_rec_one_line(r->path, sizeof(r->path));
	ret = exm_rec_regular_file(path, true, err, errlen);
	if (ret)
		goto fail;
	ret = -EIO;
	if (sqlite3_open_v2(path, &r->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		exm_rec_set_err(err, errlen, path, "cannot open", r->db);
		goto fail;
	}
	r->own = exm_rec_own_add(r->db);
	if (!r->own) {
		ret = -ENOMEM;
		goto fail;
	}
	/* another recorder's snapshot may take a while to write: wait */
	sqlite3_busy_timeout(r->db, RECORDER_WAIT_MS);
	ret = exm_rec_check_header(r->db, path, &fresh, &version, err, errlen);
	if (ret)
		goto fail;
	ret = -EIO;
	/* a new file can give back the pages retention frees (only before
	 * its first table): see fit_after() */
	if ((fresh && sqlite3_exec(r->db, "PRAGMA auto_vacuum=INCREMENTAL",
				   NULL, NULL, NULL) != SQLITE_OK) ||
	    sqlite3_exec(r->db,
			 "PRAGMA journal_mode=WAL;"
			 "PRAGMA synchronous=NORMAL;",
			 NULL, NULL, NULL) != SQLITE_OK) {
		exm_rec_set_err(err, errlen, path, "cannot open", r->db);
		goto fail;
	}
	if (fresh || version < EXM_RECORD_SCHEMA) {
		ret = create_or_upgrade(r->db, path, err, errlen);
		if (ret)
			goto fail;
		ret = -EIO;
	}
	for (int i = 0; i < S__N; i++) {
		char *sql = stmt_sql(i);
		int rc;

		if (!sql) {
			ret = -ENOMEM;
			goto fail;
		}
		rc = sqlite3_prepare_v3(r->db, sql, -1,
					SQLITE_PREPARE_PERSISTENT, &r->st[i],
					NULL);
		sqlite3_free(sql);
		if (rc != SQLITE_OK) {
			exm_rec_set_err(err, errlen, path,
					"not an exmtop recording", r->db);
			ret = -EINVAL;
			goto fail;
		}
	}
	*out = r;
	return 0;
fail:
	exm_record_close(r);
	return ret;
}

void exm_record_close(struct exm_recorder *r)
{
	if (!r)
		return;
	for (int i = 0; i < S__N; i++)
		sqlite3_finalize(r->st[i]);
	/* everything into FILE itself, even while a reader keeps the WAL */
	if (r->db)
		sqlite3_wal_checkpoint_v2(r->db, NULL,
					  SQLITE_CHECKPOINT_TRUNCATE, NULL,
					  NULL);
	sqlite3_close(r->db);
	exm_rec_own_drop(r->own); /* SQLite holds no lock on it now */
	for (size_t i = 0; i < r->nslots; i++)
		free(r->files[i].name);
	free(r->files);
	for (size_t i = 0; i < r->nps_slots; i++)
		free(r->psets[i].runs);
	free(r->psets);
	free(r->runs);
	free(r);
}

/* Bind the value of the column at position col (record_schema.h). */
static void bind_i64(sqlite3_stmt *st, int col, int64_t v)
{
	sqlite3_bind_int64(st, col + 1, v);
}

static void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col + 1, (sqlite3_int64)v);
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
	sqlite3_bind_text(st, col + 1, s ? s : "", -1, SQLITE_STATIC);
}

static int insert_meminfo(struct exm_recorder *r, const struct exm_meminfo *mi)
{
	sqlite3_stmt *st = r->st[S_MEMINFO];
	int ret = 0;

	for (uint32_t i = 0; !ret && i < mi->n; i++) {
		const struct exm_meminfo_row *row = &mi->rows[i];

		bind_i64(st, RC_MI_SNAPSHOT, r->snap);
		bind_i64(st, RC_MI_IDX, i);
		bind_text(st, RC_MI_KEY, row->key);
		bind_u64(st, RC_MI_VALUE, row->value);
		if (row->kb)
			bind_text(st, RC_MI_UNIT, "kB");
		ret = run_stmt(r, S_MEMINFO);
	}
	return ret;
}

/* Forget every cached page set and file: another recorder dropped
 * snapshots, and the rows only they named. */
static void forget_all(struct exm_recorder *r)
{
	for (size_t i = 0; i < r->nps_slots; i++) {
		free(r->psets[i].runs);
		r->psets[i].runs = NULL;
	}
	r->npsets = 0;
	for (size_t i = 0; i < r->nslots; i++) {
		free(r->files[i].name);
		r->files[i].name = NULL;
	}
	r->nfiles = 0;
}

/* The integer the query gives (0 for NULL or no row); 0 or -errno. */
static int query_i64(struct exm_recorder *r, const char *sql, int64_t *v)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	/* no row: 0 as well */
	return rc == SQLITE_ROW || rc == SQLITE_DONE
		       ? 0
		       : db_fail(r, "cannot prune");
}

/* Bytes of the file in use: its pages less those on the freelist. */
static int used_bytes(struct exm_recorder *r, int64_t *v)
{
	return query_i64(r,
			 "SELECT ((SELECT page_count FROM "
			 "pragma_page_count) - (SELECT freelist_count FROM "
			 "pragma_freelist_count)) * (SELECT page_size FROM "
			 "pragma_page_size)",
			 v);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The ids in temp table t, sorted, in *ids (malloc'd); 0 or -errno. */
static int gone_ids(struct exm_recorder *r, const char *t, int64_t **ids,
		    size_t *n)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	snprintf(sql, sizeof(sql), "SELECT id FROM temp.%s ORDER BY id", t);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(r, "cannot prune");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			int64_t *ni = realloc(*ids, nc * sizeof(*ni));

			if (!ni) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			*ids = ni;
			cap = nc;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(r, "cannot prune");
}

/* Forget the cached page sets and files whose rows were dropped. */
static int forget_gone(struct exm_recorder *r)
{
	int64_t *ids;
	size_t n, hit = 0;
	int ret = gone_ids(r, "exm_gone_pageset", &ids, &n);

	if (ret)
		return ret;
	for (size_t i = 0; n && i < r->nps_slots; i++)
		if (r->psets[i].runs &&
		    bsearch(&r->psets[i].id, ids, n, sizeof(*ids), cmp_i64)) {
			r->psets[i].gen = 0; /* psets_keep(r, 1) drops it */
			hit++;
		}
	free(ids);
	if (hit && (ret = psets_keep(r, 1)))
		return ret;
	ret = gone_ids(r, "exm_gone_file", &ids, &n);
	if (ret)
		return ret;
	hit = 0;
	for (size_t i = 0; n && i < r->nslots; i++)
		if (r->files[i].name &&
		    bsearch(&r->files[i].id, ids, n, sizeof(*ids), cmp_i64)) {
			r->files[i].gen = UINT64_MAX; /* files_rehash drops it */
			hit++;
		}
	free(ids);
	if (hit)
		ret = files_rehash(r, r->nslots, UINT64_MAX);
	return ret;
}

/*
 * Drop snapshots 1 to cut (ids), their rows, and the page sets (with
 * their runs) and files that no mapping left names; the mappings name
 * them through the indexes exm_record_set_retention made. 0 or -errno.
 */
static int drop_through(struct exm_recorder *r, int64_t cut)
{
	char *sql = sqlite3_mprintf(
		"INSERT OR IGNORE INTO temp.exm_gone_pageset SELECT pageset "
		"FROM mapping WHERE snapshot <= %lld AND pageset IS NOT NULL;"
		"INSERT OR IGNORE INTO temp.exm_gone_file SELECT file "
		"FROM mapping WHERE snapshot <= %lld AND file IS NOT NULL;"
		"DELETE FROM mapping WHERE snapshot <= %lld;"
		"DELETE FROM kernel WHERE snapshot <= %lld;"
		"DELETE FROM cgroup WHERE snapshot <= %lld;"
		"DELETE FROM process WHERE snapshot <= %lld;"
		"DELETE FROM meminfo WHERE snapshot <= %lld;"
		"DELETE FROM snapshot WHERE id <= %lld;"
		"DELETE FROM temp.exm_gone_pageset AS g WHERE EXISTS (SELECT 1 "
		"FROM mapping WHERE pageset = g.id);"
		"DELETE FROM temp.exm_gone_file AS g WHERE EXISTS (SELECT 1 "
		"FROM mapping WHERE file = g.id);"
		"DELETE FROM run WHERE pageset IN "
		"(SELECT id FROM temp.exm_gone_pageset);"
		"DELETE FROM pageset WHERE id IN "
		"(SELECT id FROM temp.exm_gone_pageset);"
		"DELETE FROM file WHERE id IN "
		"(SELECT id FROM temp.exm_gone_file);",
		(long long)cut, (long long)cut, (long long)cut, (long long)cut,
		(long long)cut, (long long)cut, (long long)cut, (long long)cut);
	int ret;

	if (!sql)
		return -ENOMEM;
	ret = sqlite3_exec(r->db, sql, NULL, NULL, NULL)
		      ? db_fail(r, "cannot prune")
		      : 0;
	sqlite3_free(sql);
	if (!ret)
		ret = forget_gone(r);
	if (sqlite3_exec(r->db,
			 "DELETE FROM temp.exm_gone_pageset;"
			 "DELETE FROM temp.exm_gone_file;",
			 NULL, NULL, NULL) &&
	    !ret)
		ret = db_fail(r, "cannot prune");
	return ret;
}

/*
 * --keep-size: drop the oldest snapshots, all but the newest spare ones,
 * until the bytes in use and extra more fit in the bound; *used: the
 * bytes in use then. 0 or -errno.
 */
static int fit(struct exm_recorder *r, int64_t extra, int64_t spare,
	       int64_t *used)
{
	int64_t bound = (int64_t)r->keep.bytes, n, cut;
	char sql[96];
	int ret;

	while (!(ret = used_bytes(r, used)) && *used + extra > bound) {
		int64_t drop, avg;

		ret = query_i64(r, "SELECT count(*) FROM snapshot", &n);
		if (ret || n <= spare)
			break;
		/* as many as make the room at the average size, at least
		 * one */
		avg = *used / n > 0 ? *used / n : 1;
		drop = (*used + extra - bound) / avg + 1;
		if (drop > n - spare)
			drop = n - spare;
		snprintf(sql, sizeof(sql),
			 "SELECT id FROM snapshot ORDER BY "
			 "id LIMIT 1 OFFSET %" PRId64,
			 drop - 1);
		ret = query_i64(r, sql, &cut);
		if (!ret)
			ret = drop_through(r, cut);
		if (ret)
			break;
	}
	return ret;
}

/*
 * --keep-size once the snapshot's rows are written, in its transaction:
 * the older snapshots that do not fit with it dropped (what it really
 * took, not what the last one did: a recorder started again writes its
 * first snapshot whole), and the free pages given back, so the database
 * this transaction commits is within the bound (or holds the new
 * snapshot alone). The file is only ever written from the -wal up to the
 * size of a committed database, so it never exceeds the bound either.
 * A file made before auto_vacuum was set keeps its free pages for the
 * next snapshots instead. *used: the bytes in use then. 0 or -errno.
 */
static int fit_after(struct exm_recorder *r, int64_t *used)
{
	int ret = fit(r, 0, 1, used);

	if (!ret &&
	    sqlite3_exec(r->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL))
		ret = db_fail(r, "cannot prune");
	return ret;
}

/* The retention's pruning, in the transaction of the snapshot taken at
 * at, before its rows (--keep-size's by the last snapshot's cost, to
 * make room that this one fills; fit_after() makes sure). 0 or -errno. */
static int prune(struct exm_recorder *r, const struct timespec *at)
{
	const struct exm_retention *k = &r->keep;
	int64_t cut = 0;
	char sql[160];
	int ret = 0;

	if (k->n) {
		snprintf(sql, sizeof(sql),
			 "SELECT id FROM snapshot ORDER BY "
			 "id DESC LIMIT 1 OFFSET %" PRIu64,
			 k->n - 1);
		ret = query_i64(r, sql, &cut); /* fewer than n: 0 */
		if (ret)
			return ret;
	}
	if (k->secs > 0) {
		int64_t older;

		snprintf(sql, sizeof(sql),
			 "SELECT max(id) FROM snapshot WHERE "
			 "taken_sec + taken_nsec / 1e9 < %.9f",
			 (double)at->tv_sec + at->tv_nsec / 1e9 - k->secs);
		ret = query_i64(r, sql, &older);
		if (ret)
			return ret;
		if (older > cut)
			cut = older;
	}
	if (cut > 0 && (ret = drop_through(r, cut)))
		return ret;
	return k->bytes ? fit(r, r->cost, 0, &r->used) : 0;
}

/* Whether k drops any snapshot. */
static bool retains(const struct exm_retention *k)
{
	return k->n || k->secs > 0 || k->bytes;
}

int exm_record_set_retention(struct exm_recorder *r,
			     const struct exm_retention *k)
{
	char sql[160];
	uint64_t limit;
	int64_t vacuum = 1;
	int ret = 0;

	r->keep = *k;
	if (!retains(k))
		return 0;
	if (sqlite3_exec(r->db,
			 "CREATE INDEX IF NOT EXISTS mapping_pageset ON "
			 "mapping(pageset);"
			 "CREATE INDEX IF NOT EXISTS mapping_file ON "
			 "mapping(file);"
			 "CREATE TEMP TABLE IF NOT EXISTS exm_gone_pageset("
			 "id INTEGER PRIMARY KEY);"
			 "CREATE TEMP TABLE IF NOT EXISTS exm_gone_file("
			 "id INTEGER PRIMARY KEY);",
			 NULL, NULL, NULL))
		return db_fail(r, "cannot index");
	/* a file made before recordings had auto_vacuum gets it now, once,
	 * so that --keep-size bounds its size on disk (fit_after) */
	if (k->bytes && !(ret = query_i64(r, "PRAGMA auto_vacuum", &vacuum)) &&
	    !vacuum &&
	    sqlite3_exec(r->db,
			 "PRAGMA auto_vacuum=INCREMENTAL;"
			 "VACUUM;",
			 NULL, NULL, NULL))
		return db_fail(r, "cannot vacuum");
	if (ret)
		return ret;
	/* the -wal beside it stays small too: emptied after each snapshot
	 * when the readers let it (rs_end), else checkpointed at an eighth
	 * of the bound (SQLite's 1000 pages without one) and truncated to
	 * that when it starts over */
	limit = k->bytes ? k->bytes / 8 : WAL_LIMIT;
	snprintf(sql, sizeof(sql),
		 "PRAGMA journal_size_limit=%" PRIu64
		 ";PRAGMA wal_autocheckpoint=%" PRIu64 ";",
		 limit, limit / 4096 > 16 ? limit / 4096 : 16);
	if (sqlite3_exec(r->db, sql, NULL, NULL, NULL))
		return db_fail(r, "cannot open");
	return 0;
}

/*
 * With retention: the -wal beside the file back to nothing, if the
 * readers let us within a moment; else as much of it as they let into
 * the file (SQLite's passive checkpoint). Tried after each snapshot and
 * before the next (the readers that held the last one's frames have
 * finished by then, and those that started since read the file alone):
 * a replay beside the recorder holds its read transaction while it
 * loads one snapshot, never longer (record_read.c).
 */
static void empty_wal(struct exm_recorder *r, int wait_ms)
{
	if (!retains(&r->keep))
		return;
	sqlite3_busy_timeout(r->db, wait_ms);
	sqlite3_wal_checkpoint_v2(r->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL,
				  NULL);
	sqlite3_busy_timeout(r->db, RECORDER_WAIT_MS);
}

static int rs_begin(void *ctx, const struct exm_sysinfo *sys)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_SNAP];
	int ret;

	int64_t oldest, newest;

	r->gen++; /* first: a failure forgets what this one cached */
	empty_wal(r, WAL_WAIT_BEFORE_MS);
	if (sqlite3_exec(r->db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
		return db_fail(r, "cannot write");
	/* another recorder's retention dropped snapshots since ours: the
	 * rows our caches name may be gone with them */
	ret = query_i64(r, "SELECT min(id) FROM snapshot", &oldest);
	if (!ret)
		ret = query_i64(r, "SELECT max(id) FROM snapshot", &newest);
	if (ret)
		return ret;
	if (r->last && oldest != r->min_seen)
		forget_all(r);
	ret = prune(r, &sys->taken_at);
	if (ret)
		return ret;
	snprintf(r->proc_root, sizeof(r->proc_root), "%s", sys->proc_root);
	r->live = sys->proc_root[0] && !(sys->caps & EXM_CAP_REPLAY);
	r->caps = sys->caps;
	r->page_size = sys->page_size;
	r->proc = -1;
	r->ncg = 0;
	r->map_open = false;
	/* the next id even when retention dropped every snapshot before:
	 * ids only grow */
	bind_i64(st, RC_SNAP_ID, newest + 1);
	bind_i64(st, RC_SNAP_TAKEN_SEC, sys->taken_at.tv_sec);
	bind_i64(st, RC_SNAP_TAKEN_NSEC, sys->taken_at.tv_nsec);
	sqlite3_bind_double(st, RC_SNAP_TIME_TAKEN + 1, sys->time_taken);
	bind_i64(st, RC_SNAP_PAGE_SIZE, sys->page_size);
	bind_u64(st, RC_SNAP_MEM_TOTAL, sys->mem_total);
	bind_u64(st, RC_SNAP_MEM_AVAILABLE, sys->mem_available);
	bind_text(st, RC_SNAP_KERNEL, sys->kernel);
	bind_text(st, RC_SNAP_HOSTNAME, sys->hostname);
	bind_text(st, RC_SNAP_SOURCE, sys->source);
	bind_text(st, RC_SNAP_SOURCE_DETAIL, sys->source_detail);
	bind_text(st, RC_SNAP_LIMITS, sys->limits);
	bind_i64(st, RC_SNAP_CAPS, sys->caps);
	bind_text(st, RC_SNAP_PROC_ROOT, sys->proc_root);
	/* set by rs_end, in the same transaction */
	bind_i64(st, RC_SNAP_SKIPPED_GONE, 0);
	bind_i64(st, RC_SNAP_SKIPPED_DENIED, 0);
	if (!sys->meminfo.predates) /* else NULL, as it was read */
		bind_i64(st, RC_SNAP_MEMINFO, sys->meminfo.n);
	ret = run_stmt(r, S_SNAP);
	r->snap = sqlite3_last_insert_rowid(r->db);
	return ret ? ret : insert_meminfo(r, &sys->meminfo);
}

static uint64_t runs_hash(const struct rrun *runs, uint32_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ n;

	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ runs[i].off) * UINT64_C(0x100000001b3);
		h = (h ^ runs[i].word) * UINT64_C(0x100000001b3);
		h = (h ^ runs[i].count ^ runs[i].step << 48) *
		    UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 29;
	}
	return h;
}

static size_t pset_slot(const struct pset *tab, size_t nslots, uint64_t h)
{
	size_t i = (size_t)(h & (nslots - 1));

	while (tab[i].runs)
		i = (i + 1) & (nslots - 1);
	return i;
}

/* Keep the page sets used since snapshot min_gen (the next snapshot most
 * likely shares the last one's), in a table with room to grow; forget
 * the others. 0 or -ENOMEM. */
static int psets_keep(struct exm_recorder *r, uint64_t min_gen)
{
	size_t keep = 0, n = 64;
	struct pset *nt;

	for (size_t i = 0; i < r->nps_slots; i++)
		keep += r->psets[i].runs && r->psets[i].gen >= min_gen;
	while (n < keep * 2 + 2)
		n *= 2;
	nt = calloc(n, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < r->nps_slots; i++) {
		struct pset *ps = &r->psets[i];

		if (ps->runs && ps->gen >= min_gen)
			nt[pset_slot(nt, n, ps->hash)] = *ps;
		else
			free(ps->runs);
	}
	free(r->psets);
	r->psets = nt;
	r->nps_slots = n;
	r->npsets = keep;
	return 0;
}

static int insert_runs(struct exm_recorder *r, int64_t id)
{
	sqlite3_stmt *st = r->st[S_RUN];
	int ret = 0;

	for (uint32_t i = 0; !ret && i < r->nruns; i++) {
		const struct rrun *rr = &r->runs[i];
		uint64_t w = rr->word;
		bool present = exm_pm_present(w);

		bind_i64(st, RC_RUN_PAGESET, id);
		bind_u64(st, RC_RUN_OFFSET, rr->off);
		bind_u64(st, RC_RUN_COUNT, rr->count);
		bind_i64(st, RC_RUN_PRESENT, present);
		bind_u64(st, RC_RUN_FIRST,
			 present ? exm_pm_key(w) : EXM_PM_SWAP_OFF(w));
		bind_i64(st, RC_RUN_SWAP_TYPE,
			 present ? 0 : (int64_t)EXM_PM_SWAP_TYPE(w));
		bind_u64(st, RC_RUN_FLAGS,
			 (w >> EXM_REC_FLAG_SHIFT) & EXM_REC_FLAG_MASK);
		if (!rr->step)
			bind_i64(st, RC_RUN_STEP, 0);
		ret = run_stmt(r, S_RUN);
	}
	return ret;
}

/* The page set of the runs collected for the mapping: one already in the
 * file, or a new one. */
static int pageset_id(struct exm_recorder *r, int64_t *id)
{
	uint64_t h = runs_hash(r->runs, r->nruns), pages = 0;
	struct pset *ps;
	size_t i;
	int ret;

	if ((r->npsets + 1) * 2 > r->nps_slots) {
		ret = psets_keep(r, r->gen - 1); /* grows the table */
		if (ret)
			return ret;
	}
	for (i = (size_t)(h & (r->nps_slots - 1)); r->psets[i].runs;
	     i = (i + 1) & (r->nps_slots - 1)) {
		ps = &r->psets[i];
		if (ps->hash == h && ps->nruns == r->nruns &&
		    !memcmp(ps->runs, r->runs, r->nruns * sizeof(*r->runs))) {
			ps->gen = r->gen;
			*id = ps->id;
			return 0;
		}
	}
	for (uint32_t k = 0; k < r->nruns; k++)
		pages += r->runs[k].count;
	bind_u64(r->st[S_PSET], RC_PSET_PAGES, pages);
	ret = run_stmt(r, S_PSET);
	if (ret)
		return ret;
	*id = sqlite3_last_insert_rowid(r->db);
	ret = insert_runs(r, *id);
	if (ret)
		return ret;
	ps = &r->psets[i];
	ps->runs = malloc(r->nruns * sizeof(*r->runs));
	if (!ps->runs)
		return -ENOMEM;
	memcpy(ps->runs, r->runs, r->nruns * sizeof(*r->runs));
	ps->nruns = r->nruns;
	ps->hash = h;
	ps->id = *id;
	ps->gen = r->gen;
	r->npsets++;
	return 0;
}

/* Write the row of the mapping being written, now that its pages are
 * known. */
static int flush_mapping(struct exm_recorder *r)
{
	sqlite3_stmt *st = r->st[S_MAP];
	const struct exm_mapping *m = &r->pend;
	int64_t pset = 0;
	int ret = 0;

	if (!r->map_open)
		return 0;
	r->map_open = false;
	if (r->nruns)
		ret = pageset_id(r, &pset);
	r->nruns = 0;
	if (ret)
		return ret;
	bind_i64(st, RC_MAP_SNAPSHOT, r->snap);
	bind_i64(st, RC_MAP_PROC, r->proc);
	bind_i64(st, RC_MAP_IDX, r->map);
	bind_u64(st, RC_MAP_START, m->start);
	bind_u64(st, RC_MAP_END, m->end);
	bind_u64(st, RC_MAP_OFFSET, m->offset);
	bind_i64(st, RC_MAP_PERMS, m->perms);
	bind_i64(st, RC_MAP_KIND, m->kind);
	if (r->pend_file)
		bind_i64(st, RC_MAP_FILE, r->pend_file);
	if (pset)
		bind_i64(st, RC_MAP_PAGESET, pset);
	bind_i64(st, RC_MAP_DELETED, m->deleted);
	if (!(r->caps & EXM_CAP_PAGES)) { /* the source's own figures */
		exm_rec_bind_sizes(st, &exm_rec_mapping, &m->sz);
		bind_i64(st, RC_MAP_HAS, m->sz.has);
	}
	bind_i64(st, RC_MAP_IS_HUGETLB, m->hugetlb);
	bind_i64(st, RC_MAP_KPAGE_SIZE, m->kpage_size);
	return run_stmt(r, S_MAP);
}

static int rs_proc(void *ctx, const struct exm_proc *p)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_PROC];
	int ret = flush_mapping(r); /* a run ends with its mapping */

	if (ret)
		return ret;
	r->proc++;
	r->map = -1;
	r->pid = p->pid;
	bind_i64(st, RC_PROC_SNAPSHOT, r->snap);
	bind_i64(st, RC_PROC_IDX, r->proc);
	bind_i64(st, RC_PROC_PID, p->pid);
	bind_i64(st, RC_PROC_PPID, p->ppid);
	bind_i64(st, RC_PROC_UID, p->uid);
	bind_u64(st, RC_PROC_START_TIME, p->start_time);
	bind_text(st, RC_PROC_USER, p->user);
	bind_text(st, RC_PROC_COMM, p->comm);
	bind_text(st, RC_PROC_CMDLINE, p->cmdline);
	bind_text(st, RC_PROC_CGROUP, p->cgroup);
	bind_i64(st, RC_PROC_STATE, p->state);
	exm_rec_bind_sizes(st, &exm_rec_process, &p->sz);
	if (p->has_oom) { /* else NULL: not read */
		bind_i64(st, RC_PROC_OOM_SCORE, p->oom_score);
		bind_i64(st, RC_PROC_OOM_ADJ, p->oom_adj);
	}
	return run_stmt(r, S_PROC);
}

static uint64_t file_hash(const struct exm_mapping *m)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ m->inode ^
		     ((uint64_t)m->dev_major << 40) ^ m->dev_minor;

	for (const char *s = m->name ? m->name : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return h;
}

static int insert_file(struct exm_recorder *r, const struct exm_mapping *m,
		       int64_t *id)
{
	sqlite3_stmt *st = r->st[S_FILE];
	unsigned char bid[64];
	char hex[2 * sizeof(bid) + 1];
	size_t n = 0;
	int ret;

	if (m->build_id_len) { /* a replayed mapping: keep what was read */
		n = m->build_id_len < sizeof(bid) ? m->build_id_len
						  : sizeof(bid);
		memcpy(bid, m->build_id, n);
	} else if (m->kind == EXM_KIND_FILE && r->live) {
		int fd = exm_open_mapped(r->proc_root, r->pid, m);

		if (fd >= 0) {
			n = exm_elf_build_id_fd(fd, bid, sizeof(bid));
			close(fd);
		}
	}
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	bind_text(st, RC_FILE_NAME, m->name);
	bind_i64(st, RC_FILE_DEV_MAJOR, m->dev_major);
	bind_i64(st, RC_FILE_DEV_MINOR, m->dev_minor);
	bind_u64(st, RC_FILE_INODE, m->inode);
	if (n)
		sqlite3_bind_text(st, RC_FILE_BUILD_ID + 1, hex, (int)(2 * n),
				  SQLITE_TRANSIENT);
	ret = run_stmt(r, S_FILE);
	*id = sqlite3_last_insert_rowid(r->db);
	return ret;
}

/* Move the file table to one of n slots, forgetting the files whose rows
 * snapshot gen wrote (0: none). 0 or -ENOMEM (then nothing changed). */
static int files_rehash(struct exm_recorder *r, size_t n, uint64_t gen)
{
	struct file_ent *nf = calloc(n, sizeof(*nf));

	if (!nf)
		return -ENOMEM;
	r->nfiles = 0;
	for (size_t k = 0; k < r->nslots; k++) {
		struct exm_mapping probe;
		size_t i;

		if (!r->files[k].name)
			continue;
		if (gen && r->files[k].gen == gen) {
			free(r->files[k].name);
			continue;
		}
		probe = (struct exm_mapping){
			.name = r->files[k].name,
			.dev_major = r->files[k].dev_major,
			.dev_minor = r->files[k].dev_minor,
			.inode = r->files[k].inode,
		};
		i = file_hash(&probe) & (n - 1);
		while (nf[i].name)
			i = (i + 1) & (n - 1);
		nf[i] = r->files[k];
		r->nfiles++;
	}
	free(r->files);
	r->files = nf;
	r->nslots = n;
	return 0;
}

/* The file row of what m maps (one per name, device and inode for this
 * recorder); 0 or -errno. */
static int file_id(struct exm_recorder *r, const struct exm_mapping *m,
		   int64_t *id)
{
	struct file_ent *e;
	size_t i;
	int ret;

	if ((r->nfiles + 1) * 2 > r->nslots) {
		ret = files_rehash(r, r->nslots ? r->nslots * 2 : 256, 0);
		if (ret)
			return ret;
	}
	for (i = file_hash(m) & (r->nslots - 1); r->files[i].name;
	     i = (i + 1) & (r->nslots - 1)) {
		e = &r->files[i];
		if (e->inode == m->inode && e->dev_major == m->dev_major &&
		    e->dev_minor == m->dev_minor &&
		    !strcmp(e->name, m->name ? m->name : "")) {
			*id = e->id;
			return 0;
		}
	}
	ret = insert_file(r, m, id);
	if (ret)
		return ret;
	e = &r->files[i];
	e->name = strdup(m->name ? m->name : "");
	if (!e->name)
		return -ENOMEM;
	e->dev_major = m->dev_major;
	e->dev_minor = m->dev_minor;
	e->inode = m->inode;
	e->id = *id;
	e->gen = r->gen;
	r->nfiles++;
	return 0;
}

static int rs_mapping(void *ctx, const struct exm_mapping *m)
{
	struct exm_recorder *r = ctx;
	int ret;

	/* a recording keeps page runs: pages counted without their places
	 * cannot be kept (recorders scan with want_places) */
	if (m->counted)
		return -EINVAL;
	ret = flush_mapping(r);
	if (ret)
		return ret;
	r->pend_file = 0;
	if ((m->name && m->name[0]) || m->inode || m->dev_major || m->dev_minor)
		ret = file_id(r, m, &r->pend_file);
	if (ret)
		return ret;
	r->map++;
	r->pend = *m;
	r->pend.name = NULL; /* the file row has it */
	r->map_open = true;
	return 0;
}

static int rs_pages(void *ctx, uint64_t vpn, const uint64_t *words, uint32_t n)
{
	struct exm_recorder *r = ctx;
	uint64_t base = r->pend.start / r->page_size;

	if (!r->map_open)
		return -EINVAL;
	for (uint32_t k = 0; k < n; k++, vpn++) {
		uint64_t w = words[k], off = vpn - base;
		struct rrun *last;

		if (!exm_pm_used(w))
			continue;
		last = r->nruns ? &r->runs[r->nruns - 1] : NULL;
		if (last && last->off + last->count == off) {
			uint64_t step = last->step;

			/* the same word again: a second page makes the run's
			 * step 0 */
			if (last->count == 1 && w == last->word &&
			    exm_pm_present(w))
				step = last->step = 0;
			/* the next frame (or swap slot), the same flags */
			if (exm_pm_present(w) == exm_pm_present(last->word) &&
			    (last->word & EXM_PM_PFN_MASK) +
					    step * (last->count + 1) <=
				    EXM_PM_PFN_MASK &&
			    w == last->word + step * last->count) {
				last->count++;
				continue;
			}
		}
		if (r->nruns == r->cap_runs) {
			uint32_t cap = r->cap_runs ? r->cap_runs * 2 : 256;
			struct rrun *nr = realloc(r->runs, cap * sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			r->runs = nr;
			r->cap_runs = cap;
		}
		r->runs[r->nruns++] = (struct rrun){ .off = off,
						     .word = w,
						     .count = 1,
						     .step = exm_pm_present(w)
								     ? 1
								     : 32 };
	}
	return 0;
}

static int rs_kpss(void *ctx, const struct exm_kpss *k)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_KPSS];
	int ret = flush_mapping(r);

	if (ret)
		return ret;
	bind_i64(st, RC_KERN_SNAPSHOT, r->snap);
	bind_i64(st, RC_KERN_PROC, r->proc);
	exm_rec_bind_kpss(st, k);
	return run_stmt(r, S_KPSS);
}

static int rs_cgroup(void *ctx, const struct exm_cgcharge *c)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_CGROUP];
	int ret = flush_mapping(r);

	if (ret)
		return ret;
	bind_i64(st, RC_CG_SNAPSHOT, r->snap);
	bind_i64(st, RC_CG_IDX, r->ncg++);
	bind_text(st, RC_CG_PATH, c->path);
	bind_u64(st, RC_CG_INO, c->ino);
	exm_rec_bind_cgroup(st, c);
	return run_stmt(r, S_CGROUP);
}

static int rs_end(void *ctx, const struct exm_build_end *e)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_SNAP_END];
	int64_t used;
	int ret = flush_mapping(r);

	if (ret)
		return ret;
	bind_u64(st, RC_SNAP_SKIPPED_GONE, e->nskipped_gone);
	bind_u64(st, RC_SNAP_SKIPPED_DENIED, e->nskipped_denied);
	bind_i64(st, RC_SNAP_ID, r->snap);
	ret = run_stmt(r, S_SNAP_END);
	if (!ret && r->keep.bytes && !(ret = used_bytes(r, &used))) {
		r->cost = used > r->used ? used - r->used : 0;
		ret = fit_after(r, &used);
	}
	/* after fit_after's pruning: the next snapshot's rs_begin tells
	 * another recorder's from ours by it */
	if (!ret)
		ret = query_i64(r, "SELECT min(id) FROM snapshot",
				&r->min_seen);
	if (!ret && sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL))
		ret = db_fail(r, "cannot write");
	if (ret)
		return ret;
	r->last = r->snap;
	/* the snapshot is in the file: whatever follows cannot undo it */
	psets_keep(r, r->gen);
	empty_wal(r, WAL_WAIT_MS);
	return 0;
}

static const struct exm_sink_ops record_sink = {
	.begin = rs_begin,
	.proc = rs_proc,
	.mapping = rs_mapping,
	.pages = rs_pages,
	.kpss = rs_kpss,
	.cgroup = rs_cgroup,
	.end = rs_end,
};

/* Rows written by a snapshot that was rolled back are not in the file:
 * forget every cached id that names one, the page sets and the files this
 * snapshot wrote (rs_begin counted it in r->gen). */
static void record_forget(struct exm_recorder *r)
{
	/* no memory for new tables: forget them all */
	if (psets_keep(r, UINT64_MAX) ||
	    files_rehash(r, r->nslots ? r->nslots : 256, r->gen))
		forget_all(r);
}

int exm_record_snapshot(struct exm_recorder *r, const struct exm_snapshot *snap)
{
	int64_t last;
	int ret;

	r->errmsg[0] = '\0';
	last = r->last;
	ret = exm_snapshot_emit(snap, &record_sink, r);
	if (ret && r->last != last) /* committed: only tidying failed */
		ret = 0;
	if (ret) {
		if (!r->errmsg[0])
			snprintf(r->errmsg, sizeof(r->errmsg), "%.200s: %s",
				 r->path, strerror(-ret));
		if (!sqlite3_get_autocommit(r->db))
			sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		record_forget(r);
	}
	return ret;
}
