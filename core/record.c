// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record.c - the SQLite recording: the recorder (a builder protocol sink)
 * and the reader (a producer); see record.h and README.md ("Recordings").
 */
#include "core/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/elf.h"
#include "core/elfcache.h"
#include "core/format.h"
#include "core/ownfiles.h"
#include "core/pagemap.h"

/* The tables of schema version 1; a new file then gets every upgrade. */
static const char schema_sql[] =
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
static const char *const upgrade_sql[EXM_RECORD_SCHEMA] = {
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

/* Pagemap bits 55-61 (soft-dirty, exclusive, uffd-wp, writable PTE, zero
 * page, KSM, file) are kept as flags 0-6. */
#define FLAG_SHIFT 55
#define FLAG_MASK UINT64_C(0x7f)

/* How long a recorder waits for another one's snapshot to be written. */
#define RECORDER_WAIT_MS 30000

/* Messages quote the file's own text (SQLite names tables of a hostile
 * schema in its errors): escaped in place (exm_escape: one line, no
 * control characters, no invalid UTF-8) within the cap bytes of s. */
static void one_line(char *s, size_t cap)
{
	char tmp[1024];

	exm_escape(tmp, cap < sizeof(tmp) ? cap : sizeof(tmp), s);
	memcpy(s, tmp, strlen(tmp) + 1);
}

static void set_err(char *buf, size_t len, const char *path, const char *what,
		    sqlite3 *db)
{
	snprintf(buf, len, "%.200s: %s%s%s", path, what, db ? ": " : "",
		 db ? sqlite3_errmsg(db) : "");
	one_line(buf, len);
}

/*
 * A recording is a regular file of its own: anything else at path (a
 * directory, a device such as /dev/null, a FIFO) gets -EINVAL and one line
 * before SQLite opens it (and creates a journal beside it, or blocks on a
 * FIFO). A path that does not exist is -ENOENT, or 0 if may_be_new (but
 * not a symbolic link to nothing).
 */
static int regular_file(const char *path, bool may_be_new, char *err,
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
		one_line(err, errlen);
		return -e;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen, "%.200s: not a regular file", path);
	one_line(err, errlen);
	return -EINVAL;
}

/* Register the files SQLite has open for db (ownfiles.h), so that nothing
 * else in the process opens them; the name to give own_drop() after
 * sqlite3_close(), or NULL (no memory). */
static char *own_add(sqlite3 *db)
{
	const char *name = sqlite3_db_filename(db, "main");
	char *copy = strdup(name ? name : "");

	if (copy && exm_ownfiles_add(copy)) {
		free(copy);
		copy = NULL;
	}
	return copy;
}

static void own_drop(char *name)
{
	if (!name)
		return;
	exm_ownfiles_remove(name);
	free(name);
}

/* Check that db is a recording this exmtop reads: 0, or -EINVAL with why
 * in err. *fresh is set for an empty database, *version to its schema. */
static int check_header(sqlite3 *db, const char *path, bool *fresh,
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
		set_err(err, errlen, path, "not an exmtop recording", db);
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
		set_err(err, errlen, path, "not an exmtop recording", NULL);
		return -EINVAL;
	}
	if (ver > EXM_RECORD_SCHEMA) {
		snprintf(err, errlen,
			 "%.200s: recording schema %" PRId64 " is newer than "
			 "this exmtop's (%d): upgrade exmtop",
			 path, ver, EXM_RECORD_SCHEMA);
		one_line(err, errlen);
		return -EINVAL;
	}
	if (ver < 1) {
		set_err(err, errlen, path, "not an exmtop recording", NULL);
		return -EINVAL;
	}
	*version = (int)ver;
	return 0;
}

/* The kernel table's figures, in column order after (snapshot, proc). */
static const struct {
	unsigned bit;
	size_t off;
} kfig_cols[] = {
	{ EXM_KPSS_PSS, offsetof(struct exm_kpss, pss) },
	{ EXM_KPSS_PSS_ANON, offsetof(struct exm_kpss, pss_anon) },
	{ EXM_KPSS_PSS_FILE, offsetof(struct exm_kpss, pss_file) },
	{ EXM_KPSS_PSS_SHMEM, offsetof(struct exm_kpss, pss_shmem) },
	{ EXM_KPSS_PSS_DIRTY, offsetof(struct exm_kpss, pss_dirty) },
	{ EXM_KPSS_SWAP_PSS, offsetof(struct exm_kpss, swap_pss) },
	{ EXM_KPSS_RSS, offsetof(struct exm_kpss, rss) },
};

#define NKFIG (sizeof(kfig_cols) / sizeof(kfig_cols[0]))

static uint64_t *kfig(struct exm_kpss *k, size_t i)
{
	return (uint64_t *)((char *)k + kfig_cols[i].off);
}

/* ---- the recorder ---- */

struct file_ent {
	char *name;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	int64_t id;
	uint64_t gen; /* the snapshot that wrote its row */
};

enum { S_SNAP, S_SNAP_END, S_PROC, S_KPSS, S_MAP, S_PSET, S_RUN, S_FILE,
       S_MEMINFO, S__N };

static const char *const stmt_sql[S__N] = {
	[S_SNAP] = "INSERT INTO snapshot VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,"
		   "?,0,0,?)",
	[S_SNAP_END] = "UPDATE snapshot SET skipped_gone=?, skipped_denied=? "
		       "WHERE id=?",
	[S_PROC] = "INSERT INTO process VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		   "?,?,?)",
	[S_KPSS] = "INSERT INTO kernel VALUES(?,?,?,?,?,?,?,?,?)",
	[S_MAP] = "INSERT INTO mapping VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		  "?,?,?,?,?,?,?)",
	[S_PSET] = "INSERT INTO pageset VALUES(NULL,?)",
	[S_RUN] = "INSERT INTO run VALUES(?,?,?,?,?,?,?,?)",
	[S_FILE] = "INSERT INTO file VALUES(NULL,?,?,?,?,?)",
	[S_MEMINFO] = "INSERT INTO meminfo VALUES(?,?,?,?,?)",
};

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
	char *own; /* the file as SQLite named it, in ownfiles.h */
	int64_t last; /* id of the last snapshot committed, or 0 */

	/* the snapshot being written */
	char proc_root[256];
	bool live; /* a /proc stands behind the snapshot: build-ids readable */
	unsigned caps;
	int64_t snap, proc, map; /* ids / indexes */
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
};

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

	set_err(r->errmsg, sizeof(r->errmsg), r->path, what, r->db);
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
	sqlite3_stmt *st = NULL;
	int version = -1;
	char sql[128];

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
		goto fail;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM "
				   "pragma_user_version), (SELECT count(*) "
				   "FROM sqlite_schema)",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail;
	version = sqlite3_column_int(st, 0);
	if (!version && !sqlite3_column_int(st, 1)) {
		if (sqlite3_exec(db, schema_sql, NULL, NULL, NULL))
			goto fail;
		version = 1;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (version < 1 || version > EXM_RECORD_SCHEMA) {
		set_err(err, errlen, path, "not an exmtop recording", NULL);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -EINVAL;
	}
	for (; version < EXM_RECORD_SCHEMA; version++)
		if (sqlite3_exec(db, upgrade_sql[version], NULL, NULL, NULL))
			goto fail;
	snprintf(sql, sizeof(sql),
		 "PRAGMA application_id=%d;PRAGMA user_version=%d;",
		 EXM_RECORD_APP_ID, EXM_RECORD_SCHEMA);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL))
		goto fail;
	return 0;
fail:
	set_err(err, errlen, path, version < 0 ? "cannot create" :
		"cannot upgrade", db);
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
	one_line(r->path, sizeof(r->path)); /* it is quoted in messages */
	ret = regular_file(path, true, err, errlen);
	if (ret)
		goto fail;
	ret = -EIO;
	if (sqlite3_open_v2(path, &r->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		set_err(err, errlen, path, "cannot open", r->db);
		goto fail;
	}
	r->own = own_add(r->db);
	if (!r->own) {
		ret = -ENOMEM;
		goto fail;
	}
	/* another recorder's snapshot may take a while to write: wait */
	sqlite3_busy_timeout(r->db, RECORDER_WAIT_MS);
	ret = check_header(r->db, path, &fresh, &version, err, errlen);
	if (ret)
		goto fail;
	ret = -EIO;
	if (sqlite3_exec(r->db, "PRAGMA journal_mode=WAL;"
				"PRAGMA synchronous=NORMAL;",
			 NULL, NULL, NULL) != SQLITE_OK) {
		set_err(err, errlen, path, "cannot open", r->db);
		goto fail;
	}
	if (fresh || version < EXM_RECORD_SCHEMA) {
		ret = create_or_upgrade(r->db, path, err, errlen);
		if (ret)
			goto fail;
		ret = -EIO;
	}
	for (int i = 0; i < S__N; i++)
		if (sqlite3_prepare_v3(r->db, stmt_sql[i], -1,
				       SQLITE_PREPARE_PERSISTENT, &r->st[i],
				       NULL) != SQLITE_OK) {
			set_err(err, errlen, path,
				"not an exmtop recording", r->db);
			ret = -EINVAL;
			goto fail;
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
	own_drop(r->own); /* SQLite holds no lock on it now */
	for (size_t i = 0; i < r->nslots; i++)
		free(r->files[i].name);
	free(r->files);
	for (size_t i = 0; i < r->nps_slots; i++)
		free(r->psets[i].runs);
	free(r->psets);
	free(r->runs);
	free(r);
}

static void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col, (sqlite3_int64)v);
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
	sqlite3_bind_text(st, col, s ? s : "", -1, SQLITE_STATIC);
}

static int insert_meminfo(struct exm_recorder *r,
			  const struct exm_meminfo *mi)
{
	sqlite3_stmt *st = r->st[S_MEMINFO];
	int ret = 0;

	for (uint32_t i = 0; !ret && i < mi->n; i++) {
		const struct exm_meminfo_row *row = &mi->rows[i];

		sqlite3_bind_int64(st, 1, r->snap);
		sqlite3_bind_int64(st, 2, i);
		bind_text(st, 3, row->key);
		bind_u64(st, 4, row->value);
		if (row->kb)
			bind_text(st, 5, "kB");
		ret = run_stmt(r, S_MEMINFO);
	}
	return ret;
}

static int rs_begin(void *ctx, const struct exm_sysinfo *sys)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_SNAP];
	int ret;

	r->gen++; /* first: a failure forgets what this one cached */
	if (sqlite3_exec(r->db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
		return db_fail(r, "cannot write");
	snprintf(r->proc_root, sizeof(r->proc_root), "%s", sys->proc_root);
	r->live = sys->proc_root[0] && !(sys->caps & EXM_CAP_REPLAY);
	r->caps = sys->caps;
	r->page_size = sys->page_size;
	r->proc = -1;
	r->map_open = false;
	sqlite3_bind_int64(st, 1, sys->taken_at.tv_sec);
	sqlite3_bind_int64(st, 2, sys->taken_at.tv_nsec);
	sqlite3_bind_double(st, 3, sys->time_taken);
	sqlite3_bind_int64(st, 4, sys->page_size);
	bind_u64(st, 5, sys->mem_total);
	bind_u64(st, 6, sys->mem_available);
	bind_text(st, 7, sys->kernel);
	bind_text(st, 8, sys->hostname);
	bind_text(st, 9, sys->source);
	bind_text(st, 10, sys->source_detail);
	bind_text(st, 11, sys->limits);
	sqlite3_bind_int64(st, 12, sys->caps);
	bind_text(st, 13, sys->proc_root);
	if (!sys->meminfo.predates) /* else NULL, as it was read */
		sqlite3_bind_int64(st, 14, sys->meminfo.n);
	ret = run_stmt(r, S_SNAP);
	r->snap = sqlite3_last_insert_rowid(r->db);
	return ret ? ret : insert_meminfo(r, &sys->meminfo);
}

/* Bind a size, or NULL when it was not measured. */
static void bind_size(sqlite3_stmt *st, int col, const struct exm_sizes *s,
		      unsigned bit, uint64_t v)
{
	if (s->has & bit)
		bind_u64(st, col, v);
}

static void bind_esize(sqlite3_stmt *st, int col, const struct exm_sizes *s,
		       unsigned bit, double v)
{
	if (s->has & bit)
		sqlite3_bind_double(st, col, v);
}

/* The sizes columns vm, rss, erss, swap, eswap, sole from col on. */
static void bind_sizes(sqlite3_stmt *st, int col, const struct exm_sizes *s)
{
	bind_size(st, col, s, EXM_HAS_VM, s->vm);
	bind_size(st, col + 1, s, EXM_HAS_RSS, s->rss);
	bind_esize(st, col + 2, s, EXM_HAS_ERSS, s->erss);
	bind_size(st, col + 3, s, EXM_HAS_SWAP, s->swap);
	bind_esize(st, col + 4, s, EXM_HAS_ESWAP, s->eswap);
	bind_size(st, col + 5, s, EXM_HAS_SOLE, s->sole);
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

		sqlite3_bind_int64(st, 1, id);
		bind_u64(st, 2, rr->off);
		bind_u64(st, 3, rr->count);
		sqlite3_bind_int(st, 4, present);
		bind_u64(st, 5, present ? exm_pm_key(w) : EXM_PM_SWAP_OFF(w));
		sqlite3_bind_int(st, 6, present ? 0 : (int)EXM_PM_SWAP_TYPE(w));
		sqlite3_bind_int(st, 7, (int)((w >> FLAG_SHIFT) & FLAG_MASK));
		if (!rr->step)
			sqlite3_bind_int(st, 8, 0);
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
	bind_u64(r->st[S_PSET], 1, pages);
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
	sqlite3_bind_int64(st, 1, r->snap);
	sqlite3_bind_int64(st, 2, r->proc);
	sqlite3_bind_int64(st, 3, r->map);
	bind_u64(st, 4, m->start);
	bind_u64(st, 5, m->end);
	bind_u64(st, 6, m->offset);
	sqlite3_bind_int(st, 7, (int)m->perms);
	sqlite3_bind_int(st, 8, (int)m->kind);
	if (r->pend_file)
		sqlite3_bind_int64(st, 9, r->pend_file);
	if (pset)
		sqlite3_bind_int64(st, 10, pset);
	sqlite3_bind_int(st, 11, m->deleted);
	if (!(r->caps & EXM_CAP_PAGES)) { /* the source's own figures */
		bind_sizes(st, 12, &m->sz);
		sqlite3_bind_int(st, 18, (int)m->sz.has);
		bind_size(st, 21, &m->sz, EXM_HAS_ZERO, m->sz.zero);
		bind_size(st, 22, &m->sz, EXM_HAS_HUGETLB, m->sz.hugetlb);
		bind_esize(st, 23, &m->sz, EXM_HAS_EHUGETLB, m->sz.ehugetlb);
	}
	sqlite3_bind_int(st, 19, m->hugetlb);
	sqlite3_bind_int64(st, 20, m->kpage_size);
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
	sqlite3_bind_int64(st, 1, r->snap);
	sqlite3_bind_int64(st, 2, r->proc);
	sqlite3_bind_int64(st, 3, p->pid);
	sqlite3_bind_int64(st, 4, p->ppid);
	sqlite3_bind_int64(st, 5, p->uid);
	bind_u64(st, 6, p->start_time);
	bind_text(st, 7, p->user);
	bind_text(st, 8, p->comm);
	bind_text(st, 9, p->cmdline);
	bind_text(st, 10, p->cgroup);
	sqlite3_bind_int(st, 11, (int)p->state);
	bind_sizes(st, 12, &p->sz);
	bind_size(st, 18, &p->sz, EXM_HAS_WRITABLE, p->sz.writable);
	return run_stmt(r, S_PROC);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The GNU build-id in the notes at [off, off + sz) of fd: its length, or
 * 0. */
static size_t scan_notes(int fd, uint64_t off, uint64_t sz, unsigned char *id,
			 size_t max)
{
	unsigned char note[4096];
	ssize_t n;

	if (sz > sizeof(note))
		sz = sizeof(note);
	n = pread(fd, note, (size_t)sz, (off_t)off);
	for (size_t k = 0; n > 12 && k + 12 <= (size_t)n;) {
		uint32_t nsz, dsz, ntype;
		size_t name_at = k + 12, desc_at;

		memcpy(&nsz, note + k, 4);
		memcpy(&dsz, note + k + 4, 4);
		memcpy(&ntype, note + k + 8, 4);
		if (nsz > 4096 || dsz > 4096)
			break;
		desc_at = name_at + ((nsz + 3u) & ~3u);
		if (desc_at + dsz > (size_t)n)
			break;
		if (ntype == 3 && nsz == 4 && !memcmp(note + name_at, "GNU", 4) &&
		    dsz && dsz <= max) {
			memcpy(id, note + desc_at, dsz);
			return dsz;
		}
		k = desc_at + ((dsz + 3u) & ~3u);
	}
	return 0;
}

static uint64_t rd(const unsigned char *p, unsigned len)
{
	uint64_t v = 0;

	memcpy(&v, p, len); /* little endian, see read_build_id */
	return v;
}

/*
 * The GNU build-id note of the ELF file open on fd, from its PT_NOTE
 * segments, else its SHT_NOTE sections, read with a few bounded preads
 * (hostile input: any user maps any file). Its length, or 0 when there is
 * none.
 */
static size_t read_build_id(int fd, unsigned char *id, size_t max)
{
	unsigned char eh[64], h[64];
	uint64_t phoff, shoff;
	unsigned phnum, phsz, shnum, shsz, w;
	size_t n = 0;
	bool is64;

	if (pread(fd, eh, sizeof(eh), 0) < 52 || memcmp(eh, "\177ELF", 4) ||
	    eh[5] != 1 /* little endian, as on every target we record */)
		return 0;
	is64 = eh[4] == 2;
	w = is64 ? 8 : 4;
	phoff = rd(eh + (is64 ? 32 : 28), w);
	shoff = rd(eh + (is64 ? 40 : 32), w);
	phsz = (unsigned)rd(eh + (is64 ? 54 : 42), 2);
	phnum = (unsigned)rd(eh + (is64 ? 56 : 44), 2);
	shsz = (unsigned)rd(eh + (is64 ? 58 : 46), 2);
	shnum = (unsigned)rd(eh + (is64 ? 60 : 48), 2);
	if (phsz >= (is64 ? 56u : 32u) && phnum <= 256)
		for (unsigned i = 0; !n && i < phnum; i++) {
			if (pread(fd, h, is64 ? 56 : 32,
				  (off_t)(phoff + (uint64_t)i * phsz)) <
				    (is64 ? 56 : 32) ||
			    rd(h, 4) != 4 /* PT_NOTE */)
				continue;
			n = scan_notes(fd, rd(h + (is64 ? 8 : 4), w),
				       rd(h + (is64 ? 32 : 16), w), id, max);
		}
	if (shsz >= (is64 ? 64u : 40u) && shnum <= 1024)
		for (unsigned i = 0; !n && i < shnum; i++) {
			if (pread(fd, h, is64 ? 64 : 40,
				  (off_t)(shoff + (uint64_t)i * shsz)) <
				    (is64 ? 64 : 40) ||
			    rd(h + 4, 4) != 7 /* SHT_NOTE */)
				continue;
			n = scan_notes(fd, rd(h + (is64 ? 24 : 16), w),
				       rd(h + (is64 ? 32 : 20), w), id, max);
		}
	return n;
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
			n = read_build_id(fd, bid, sizeof(bid));
			close(fd);
		}
	}
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	bind_text(st, 1, m->name);
	sqlite3_bind_int64(st, 2, m->dev_major);
	sqlite3_bind_int64(st, 3, m->dev_minor);
	bind_u64(st, 4, m->inode);
	if (n)
		sqlite3_bind_text(st, 5, hex, (int)(2 * n), SQLITE_TRANSIENT);
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
	if ((m->name && m->name[0]) || m->inode || m->dev_major ||
	    m->dev_minor)
		ret = file_id(r, m, &r->pend_file);
	if (ret)
		return ret;
	r->map++;
	r->pend = *m;
	r->pend.name = NULL; /* the file row has it */
	r->map_open = true;
	return 0;
}

static int rs_pages(void *ctx, uint64_t vpn, const uint64_t *words,
		    uint32_t n)
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
		r->runs[r->nruns++] = (struct rrun){
			.off = off, .word = w, .count = 1,
			.step = exm_pm_present(w) ? 1 : 32 };
	}
	return 0;
}

static int rs_kpss(void *ctx, const struct exm_kpss *k)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_KPSS];
	struct exm_kpss copy = *k;
	int ret = flush_mapping(r);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->snap);
	sqlite3_bind_int64(st, 2, r->proc);
	for (size_t i = 0; i < NKFIG; i++)
		if (k->has & kfig_cols[i].bit)
			bind_u64(st, 3 + (int)i, *kfig(&copy, i));
	return run_stmt(r, S_KPSS);
}

static int rs_end(void *ctx, const struct exm_build_end *e)
{
	struct exm_recorder *r = ctx;
	sqlite3_stmt *st = r->st[S_SNAP_END];
	int ret = flush_mapping(r);

	if (ret)
		return ret;
	bind_u64(st, 1, e->nskipped_gone);
	bind_u64(st, 2, e->nskipped_denied);
	sqlite3_bind_int64(st, 3, r->snap);
	ret = run_stmt(r, S_SNAP_END);
	if (!ret && sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL))
		ret = db_fail(r, "cannot write");
	if (ret)
		return ret;
	r->last = r->snap;
	/* the snapshot is in the file: whatever follows cannot undo it */
	psets_keep(r, r->gen);
	return 0;
}

static const struct exm_sink_ops record_sink = {
	.begin = rs_begin,
	.proc = rs_proc,
	.mapping = rs_mapping,
	.pages = rs_pages,
	.kpss = rs_kpss,
	.end = rs_end,
};

/* Rows written by a snapshot that was rolled back are not in the file:
 * forget every cached id that names one, the page sets and the files this
 * snapshot wrote (rs_begin counted it in r->gen). */
static void record_forget(struct exm_recorder *r)
{
	if (psets_keep(r, UINT64_MAX)) { /* no memory: forget them all */
		for (size_t i = 0; i < r->nps_slots; i++) {
			free(r->psets[i].runs);
			r->psets[i].runs = NULL;
		}
		r->npsets = 0;
	}
	if (files_rehash(r, r->nslots ? r->nslots : 256, r->gen)) {
		/* no memory for a new table: forget every file */
		for (size_t i = 0; i < r->nslots; i++) {
			free(r->files[i].name);
			r->files[i].name = NULL;
		}
		r->nfiles = 0;
	}
}

int exm_record_snapshot(struct exm_recorder *r,
			const struct exm_snapshot *snap)
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

/* ---- the reader ---- */

#define READ_WORDS 1024
#define DEFAULT_MAX_PAGES (UINT64_C(1) << 32)
/* Accounting counts sharers in chunks of 2^16 frames (or swap slots), 384
 * KiB each: a hostile file must not name frames scattered over millions of
 * them. 2^16 chunks is 16 TiB of 4 KiB frames. */
#define CHUNK_SHIFT 16
#define DEFAULT_MAX_CHUNKS (UINT64_C(1) << 16)

struct exm_recording {
	sqlite3 *db;
	int version; /* its schema */
	char path[256];
	char errmsg[512];
	char *file; /* the path as given (NULL: in memory) */
	char *own; /* the file as SQLite named it, in ownfiles.h */
	bool immutable; /* read without locks: see exm_recording_open */
	struct stat seen; /* immutable: the file when it was opened */
	int64_t *ids;
	struct timespec *at;
	size_t n;
	uint64_t max_pages, max_chunks;
};

const char *exm_recording_errmsg(const struct exm_recording *rec)
{
	return rec->errmsg;
}

void exm_recording_set_limits(struct exm_recording *rec, uint64_t max_pages,
			      uint64_t max_chunks)
{
	rec->max_pages = max_pages ? max_pages : DEFAULT_MAX_PAGES;
	rec->max_chunks = max_chunks ? max_chunks : DEFAULT_MAX_CHUNKS;
}

void exm_recording_close(struct exm_recording *rec)
{
	if (!rec)
		return;
	sqlite3_close(rec->db);
	own_drop(rec->own);
	free(rec->file);
	free(rec->ids);
	free(rec->at);
	free(rec);
}

size_t exm_recording_count(const struct exm_recording *rec)
{
	return rec->n;
}

int exm_recording_time(const struct exm_recording *rec, size_t idx,
		       struct timespec *at)
{
	if (idx >= rec->n)
		return -ERANGE;
	*at = rec->at[idx];
	return 0;
}

size_t exm_recording_find_time(const struct exm_recording *rec,
			       const struct timespec *t)
{
	size_t best = 0;

	for (size_t i = 0; i < rec->n; i++)
		if (rec->at[i].tv_sec < t->tv_sec ||
		    (rec->at[i].tv_sec == t->tv_sec &&
		     rec->at[i].tv_nsec <= t->tv_nsec))
			best = i;
	return best;
}

static int corrupt(char *err, size_t errlen, const char *path,
		   const char *what)
{
	snprintf(err, errlen, "%.200s: corrupt recording: %s", path, what);
	one_line(err, errlen);
	return -EINVAL;
}

/* After the header check: the list of snapshots. */
static int read_index(struct exm_recording *rec, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(rec->db,
			       "SELECT id, taken_sec, taken_nsec FROM snapshot "
			       "ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK) {
		set_err(err, errlen, rec->path, "not an exmtop recording",
			rec->db);
		return -EINVAL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rec->n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			int64_t *ni = realloc(rec->ids, nc * sizeof(*ni));
			struct timespec *na;

			if (!ni)
				break;
			rec->ids = ni;
			na = realloc(rec->at, nc * sizeof(*na));
			if (!na)
				break;
			rec->at = na;
			cap = nc;
		}
		rec->ids[rec->n] = sqlite3_column_int64(st, 0);
		rec->at[rec->n].tv_sec = (time_t)sqlite3_column_int64(st, 1);
		rec->at[rec->n].tv_nsec = (long)(sqlite3_column_int64(st, 2) %
						 1000000000);
		rec->n++;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return -ENOMEM;
	if (rc != SQLITE_DONE) {
		set_err(err, errlen, rec->path, "corrupt recording", rec->db);
		return -EINVAL;
	}
	return 0;
}

static struct exm_recording *rec_new(const char *label)
{
	struct exm_recording *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	snprintf(rec->path, sizeof(rec->path), "%s", label);
	one_line(rec->path, sizeof(rec->path)); /* it is quoted in messages */
	exm_recording_set_limits(rec, 0, 0);
	return rec;
}

/* Close rec and return ret (an error before it was handed out). */
static int rec_fail(struct exm_recording *rec, int ret)
{
	exm_recording_close(rec);
	return ret;
}

/* The database is open: check it is a recording and list its
 * snapshots. */
static int check_and_index(struct exm_recording *rec, char *err,
			   size_t errlen)
{
	bool fresh;
	int ret;

	sqlite3_busy_timeout(rec->db, 5000);
	ret = check_header(rec->db, rec->path, &fresh, &rec->version, err,
			   errlen);
	if (!ret && fresh) {
		set_err(err, errlen, rec->path, "not an exmtop recording",
			NULL);
		ret = -EINVAL;
	}
	rec->n = 0;
	return ret ? ret : read_index(rec, err, errlen);
}

/* ... and hand it out. */
static int open_common(struct exm_recording *rec, struct exm_recording **out,
		       char *err, size_t errlen)
{
	int ret = check_and_index(rec, err, errlen);

	if (ret)
		return rec_fail(rec, ret);
	*out = rec;
	return 0;
}

/* Whether we may write path and create files in its directory. */
static bool may_write_beside(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 slash == path ? 1 : (int)(slash - path), path);
	return !faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) &&
	       !faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS);
}

static bool exists(const char *path, const char *sfx)
{
	char name[4096 + 16];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", path, sfx);
	return !lstat(name, &st);
}

/* "file:PATH?immutable=1", PATH percent-encoded; NULL: no memory. */
static char *immutable_uri(const char *path)
{
	static const char hexd[] = "0123456789abcdef";
	size_t len = strlen(path);
	char *uri = malloc(3 * len + sizeof("file:?immutable=1")), *o = uri;

	if (!uri)
		return NULL;
	o += sprintf(o, "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("/._-~", *c)) {
			*o++ = (char)*c;
		} else {
			*o++ = '%';
			*o++ = hexd[*c >> 4];
			*o++ = hexd[*c & 15];
		}
	}
	strcpy(o, "?immutable=1");
	return uri;
}

/* An immutable read is valid while no writer has come: the file as it
 * was opened and still no -wal beside it. */
static bool changed(const struct exm_recording *rec)
{
	struct stat st;

	if (!rec->immutable)
		return false;
	return stat(rec->file, &st) || exists(rec->file, "-wal") ||
	       st.st_dev != rec->seen.st_dev || st.st_ino != rec->seen.st_ino ||
	       st.st_size != rec->seen.st_size ||
	       st.st_mtim.tv_sec != rec->seen.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != rec->seen.st_mtim.tv_nsec ||
	       st.st_ctim.tv_sec != rec->seen.st_ctim.tv_sec ||
	       st.st_ctim.tv_nsec != rec->seen.st_ctim.tv_nsec;
}

/*
 * Open rec->file for reading, leaving no file behind it:
 * - when we may write the file and its directory: a read-write
 *   connection that never writes (query_only). SQLite's locks keep it
 *   safe beside a writer, and as the last connection it removes the -wal
 *   and -shm it made (a read-only connection would leave them).
 * - else, with a -wal beside the file (a recorder is writing it, or was
 *   killed): read-only, under SQLite's locks, with the -wal and -shm
 *   that are there.
 * - else (read-only media, someone else's file, and no recorder at
 *   work): immutable, without locks and without creating anything. A
 *   recorder that starts later is seen (a -wal appears, the file
 *   changes; changed()): the next load opens the file anew, and a load it
 *   overlapped fails rather than gives what may be a torn read.
 */
static int open_file(struct exm_recording *rec, char *err, size_t errlen)
{
	const char *path = rec->file;
	char *uri = NULL;
	int rc;

	rec->immutable = false;
	if (may_write_beside(path)) {
		rc = sqlite3_open_v2(path, &rec->db, SQLITE_OPEN_READWRITE,
				     NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(rec->db, "PRAGMA query_only=1", NULL,
					  NULL, NULL);
	} else if (exists(path, "-wal")) {
		rc = sqlite3_open_v2(path, &rec->db, SQLITE_OPEN_READONLY,
				     NULL);
	} else {
		if (stat(path, &rec->seen))
			memset(&rec->seen, 0, sizeof(rec->seen));
		rec->immutable = true;
		uri = immutable_uri(path);
		if (!uri)
			return -ENOMEM;
		rc = sqlite3_open_v2(uri, &rec->db,
				     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
				     NULL);
		free(uri);
	}
	if (rc != SQLITE_OK) {
		set_err(err, errlen, path, "cannot open", rec->db);
		return -EINVAL;
	}
	rec->own = own_add(rec->db);
	return rec->own ? 0 : -ENOMEM;
}

/* Close and open the file again (a writer came to a file read as
 * immutable), and list its snapshots anew: those listed stay where they
 * were (a recording only grows). */
static int reopen(struct exm_recording *rec, char *err, size_t errlen)
{
	int ret;

	sqlite3_close(rec->db);
	rec->db = NULL;
	own_drop(rec->own);
	rec->own = NULL;
	ret = open_file(rec, err, errlen);
	return ret ? ret : check_and_index(rec, err, errlen);
}

int exm_recording_open(const char *path, struct exm_recording **out,
		       char *err, size_t errlen)
{
	struct exm_recording *rec = rec_new(path);
	int ret;

	if (!rec)
		return -ENOMEM;
	rec->file = strdup(path);
	if (!rec->file)
		return rec_fail(rec, -ENOMEM);
	ret = regular_file(path, false, err, errlen);
	if (ret)
		return rec_fail(rec, ret);
	if (access(path, R_OK)) {
		int e = errno;

		snprintf(err, errlen, "%.200s: %s", path, strerror(e));
		one_line(err, errlen);
		return rec_fail(rec, -e);
	}
	ret = open_file(rec, err, errlen);
	if (!ret)
		ret = check_and_index(rec, err, errlen);
	if (!ret && changed(rec)) /* a writer came while we listed */
		ret = reopen(rec, err, errlen);
	if (ret)
		return rec_fail(rec, ret);
	*out = rec;
	return 0;
}

int exm_recording_open_mem(const void *buf, size_t len,
			   struct exm_recording **out, char *err,
			   size_t errlen)
{
	struct exm_recording *rec = rec_new("(memory)");
	unsigned char *copy;

	if (!rec)
		return -ENOMEM;
	copy = sqlite3_malloc64(len ? len : 1);
	if (!copy || sqlite3_open_v2(":memory:", &rec->db,
				     SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_free(copy);
		return rec_fail(rec, -ENOMEM);
	}
	memcpy(copy, buf, len);
	/* An image has no -wal beside it: read it in rollback mode. */
	if (len >= 20 && copy[18] == 2 && copy[19] == 2)
		copy[18] = copy[19] = 1;
	if (sqlite3_deserialize(rec->db, "main", copy, (sqlite3_int64)len,
				(sqlite3_int64)len,
				SQLITE_DESERIALIZE_FREEONCLOSE |
					SQLITE_DESERIALIZE_READONLY) !=
	    SQLITE_OK) {
		set_err(err, errlen, rec->path, "not an exmtop recording",
			rec->db);
		return rec_fail(rec, -EINVAL);
	}
	return open_common(rec, out, err, errlen);
}

/* One load: the statements and where we are, for messages. */
struct load {
	struct exm_recording *rec;
	const struct exm_sink_ops *ops;
	void *ctx;
	int64_t snap;
	unsigned page_size;
	uint64_t pages; /* words played so far */
	sqlite3_stmt *proc, *map, *run, *kpss;
	int64_t pid;
	/* chunks of keys named so far (present and swap apart): a set */
	uint64_t *chunks;
	size_t nchunks, nslots;
};

/* Note the chunks of keys [first, first + count) (kind 0 frames, 1 swap
 * slots); -E2BIG past the limit. */
static int note_chunks(struct load *l, int kind, uint64_t first,
		       uint64_t count)
{
	uint64_t lo = first >> CHUNK_SHIFT, hi = (first + count - 1) >> CHUNK_SHIFT;

	for (uint64_t c = lo; c <= hi; c++) {
		uint64_t key = (c << 1 | (uint64_t)kind) + 1; /* 0: empty */
		size_t i;

		if ((l->nchunks + 1) * 2 > l->nslots) {
			size_t n = l->nslots ? l->nslots * 2 : 64;
			uint64_t *ns = calloc(n, sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			for (size_t k = 0; k < l->nslots; k++) {
				if (!l->chunks[k])
					continue;
				i = (l->chunks[k] * UINT64_C(0x9e3779b97f4a7c15)) >> 20 &
				    (n - 1);
				while (ns[i])
					i = (i + 1) & (n - 1);
				ns[i] = l->chunks[k];
			}
			free(l->chunks);
			l->chunks = ns;
			l->nslots = n;
		}
		i = (key * UINT64_C(0x9e3779b97f4a7c15)) >> 20 & (l->nslots - 1);
		while (l->chunks[i] && l->chunks[i] != key)
			i = (i + 1) & (l->nslots - 1);
		if (l->chunks[i])
			continue;
		if (l->nchunks >= l->rec->max_chunks)
			return -E2BIG;
		l->chunks[i] = key;
		l->nchunks++;
	}
	return 0;
}

static int bad(struct load *l, const char *what)
{
	char buf[160];

	if (l->pid) /* in a process */
		snprintf(buf, sizeof(buf),
			 "snapshot %" PRId64 ", pid %" PRId64 ": %s", l->snap,
			 l->pid, what);
	else
		snprintf(buf, sizeof(buf), "snapshot %" PRId64 ": %s", l->snap,
			 what);
	return corrupt(l->rec->errmsg, sizeof(l->rec->errmsg), l->rec->path,
		       buf);
}

/* A statement that stopped with an error: the database is damaged. */
static int step_err(struct load *l)
{
	int code = sqlite3_errcode(l->rec->db);

	if (code == SQLITE_NOMEM)
		return -ENOMEM;
	return bad(l, sqlite3_errmsg(l->rec->db));
}

static void col_text(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

/*
 * The want rows of /proc/meminfo of the snapshot: in order, each a valid
 * key (once), a whole number (in kB, or a count), and MemTotal and
 * MemAvailable the snapshot's own.
 */
static int load_meminfo(struct load *l, struct exm_sysinfo *sys,
			uint32_t want)
{
	struct exm_meminfo *mi = &sys->meminfo;
	sqlite3_stmt *st = NULL;
	uint64_t total, avail;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(l->rec->db,
			       "SELECT idx, key, value, unit FROM meminfo "
			       "WHERE snapshot=? ORDER BY idx",
			       -1, &st, NULL) != SQLITE_OK)
		return step_err(l);
	sqlite3_bind_int64(st, 1, l->snap);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* the types first: reading a column may convert it */
		int tkey = sqlite3_column_type(st, 1);
		int tval = sqlite3_column_type(st, 2);
		int tunit = sqlite3_column_type(st, 3);
		const char *key = (const char *)sqlite3_column_text(st, 1);
		const char *unit = (const char *)sqlite3_column_text(st, 3);
		int64_t v = sqlite3_column_int64(st, 2);
		bool kb = tunit == SQLITE_TEXT && unit && !strcmp(unit, "kB");

		if (sqlite3_column_int64(st, 0) != mi->n || mi->n >= want)
			ret = bad(l, "meminfo rows out of order");
		else if (tkey != SQLITE_TEXT || !key || tval != SQLITE_INTEGER ||
			 v < 0 || (tunit != SQLITE_NULL && !kb) ||
			 exm_meminfo_add(mi, key,
					 (size_t)sqlite3_column_bytes(st, 1),
					 (uint64_t)v, kb))
			ret = bad(l, "bad meminfo row");
	}
	if (!ret && rc != SQLITE_DONE)
		ret = step_err(l);
	sqlite3_finalize(st);
	if (ret)
		return ret;
	if (mi->n != want)
		return bad(l, "meminfo rows missing");
	if (want && (!exm_meminfo_get(mi, "MemTotal", &total) ||
		     total != sys->mem_total ||
		     (exm_meminfo_get(mi, "MemAvailable", &avail)
			      ? avail : 0) != sys->mem_available))
		return bad(l, "meminfo disagrees with the snapshot");
	return 0;
}

/* The snapshot table's columns load_sys reads, but the last. */
#define SYS_COLS                                                        \
	"SELECT taken_sec, taken_nsec, time_taken, page_size, mem_total, " \
	"mem_available, kernel, hostname, source, source_detail, limits, " \
	"caps, proc_root, skipped_gone, skipped_denied, "

static int load_sys(struct load *l, struct exm_sysinfo *sys,
		    struct exm_build_end *end)
{
	sqlite3_stmt *st = NULL;
	int64_t ps, nrows;
	int rc, nmi;

	if (sqlite3_prepare_v2(l->rec->db,
			       l->rec->version < 2
				       ? SYS_COLS "NULL FROM snapshot WHERE id=?"
				       : SYS_COLS
				       "meminfo FROM snapshot WHERE id=?",
			       -1, &st, NULL) != SQLITE_OK)
		return step_err(l);
	sqlite3_bind_int64(st, 1, l->snap);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? bad(l, "snapshot vanished")
					 : step_err(l);
	}
	memset(sys, 0, sizeof(*sys));
	sys->taken_at.tv_sec = (time_t)sqlite3_column_int64(st, 0);
	sys->taken_at.tv_nsec = (long)(sqlite3_column_int64(st, 1) %
				       1000000000);
	sys->time_taken = sqlite3_column_double(st, 2);
	if (!(sys->time_taken >= 0 && sys->time_taken < 1e9))
		sys->time_taken = 0;
	ps = sqlite3_column_int64(st, 3);
	sys->mem_total = (uint64_t)sqlite3_column_int64(st, 4);
	sys->mem_available = (uint64_t)sqlite3_column_int64(st, 5);
	col_text(st, 6, sys->kernel, sizeof(sys->kernel));
	col_text(st, 7, sys->hostname, sizeof(sys->hostname));
	col_text(st, 8, sys->source, sizeof(sys->source));
	col_text(st, 9, sys->source_detail, sizeof(sys->source_detail));
	col_text(st, 10, sys->limits, sizeof(sys->limits));
	sys->caps = (unsigned)sqlite3_column_int64(st, 11) &
		    (0x3fu | EXM_CAP_LIMITED | EXM_CAP_AVG_MAPCOUNT |
		     EXM_CAP_KSM);
	col_text(st, 12, sys->proc_root, sizeof(sys->proc_root));
	end->nskipped_gone = (size_t)(sqlite3_column_int64(st, 13) & 0xffffffff);
	end->nskipped_denied =
		(size_t)(sqlite3_column_int64(st, 14) & 0xffffffff);
	nmi = sqlite3_column_type(st, 15);
	nrows = sqlite3_column_int64(st, 15);
	sqlite3_finalize(st);
	if (ps < 512 || ps > (1 << 24) || (ps & (ps - 1)))
		return bad(l, "bad page size");
	sys->page_size = (unsigned)ps;
	if (nmi == SQLITE_NULL) { /* written before schema 2 */
		sys->meminfo.predates = true;
		return 0;
	}
	if (nmi != SQLITE_INTEGER || nrows < 0 || nrows > EXM_MEMINFO_ROWS)
		return bad(l, "bad meminfo row count");
	return load_meminfo(l, sys, (uint32_t)nrows);
}

static bool col_null(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL;
}

/* Play page set pset, which holds want pages, as the pages of m. */
static int load_runs(struct load *l, int64_t pset, uint64_t want,
		     const struct exm_mapping *m)
{
	uint64_t buf[READ_WORDS], ps = l->page_size, got = 0;
	uint64_t lo = m->start / ps, hi = m->end / ps, next = lo;
	sqlite3_stmt *st = l->run;
	int rc, ret = 0;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, pset);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t off = (uint64_t)sqlite3_column_int64(st, 0);
		uint64_t vpn = lo + off;
		int64_t count = sqlite3_column_int64(st, 1);
		bool present = sqlite3_column_int64(st, 2) != 0;
		uint64_t first = (uint64_t)sqlite3_column_int64(st, 3);
		int64_t type = sqlite3_column_int64(st, 4);
		uint64_t flags = (uint64_t)sqlite3_column_int64(st, 5);
		bool same = !col_null(st, 6); /* step 0 */
		uint64_t base, step, limit, nkeys = same ? 1 : (uint64_t)count;

		if (count < 1 || off >= hi - lo || vpn < next ||
		    (uint64_t)count > hi - vpn)
			return bad(l, "page run outside its mapping");
		if (flags > FLAG_MASK || type < 0 || type > 31 ||
		    (same && (sqlite3_column_int64(st, 6) || !present)))
			return bad(l, "bad page run");
		limit = present ? EXM_PM_PFN_MASK : EXM_PM_PFN_MASK >> 5;
		if (first > limit || nkeys - 1 > limit - first)
			return bad(l, "bad page run");
		if ((uint64_t)count > l->rec->max_pages - l->pages)
			return bad(l, "too many pages");
		ret = note_chunks(l, !present, first, nkeys);
		if (ret)
			return ret == -E2BIG ? bad(l, "frames too scattered")
					     : ret;
		l->pages += (uint64_t)count;
		got += (uint64_t)count;
		next = vpn + (uint64_t)count;
		base = (flags << FLAG_SHIFT) |
		       (present ? EXM_PM_PRESENT | first
				: EXM_PM_SWAPPED | first << 5 | (uint64_t)type);
		step = same ? 0 : present ? 1 : 32;
		for (int64_t done = 0; !ret && done < count;) {
			uint32_t n = count - done > READ_WORDS
					     ? READ_WORDS
					     : (uint32_t)(count - done);

			for (uint32_t k = 0; k < n; k++)
				buf[k] = base + step * (uint64_t)(done + k);
			ret = l->ops->pages(l->ctx, vpn + (uint64_t)done, buf,
					    n);
			done += n;
		}
	}
	if (ret)
		return ret;
	if (rc != SQLITE_DONE)
		return step_err(l);
	return got == want ? 0 : bad(l, "page set incomplete");
}

static int parse_build_id(const unsigned char *hex, struct exm_mapping *m,
			  unsigned char *buf, size_t max)
{
	size_t n = hex ? strlen((const char *)hex) : 0;

	if (!n)
		return 0;
	if (n % 2 || n / 2 > max || n / 2 > 255)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int a = hexval((char)hex[2 * i]), b = hexval((char)hex[2 * i + 1]);

		if (a < 0 || b < 0)
			return -EINVAL;
		buf[i] = (unsigned char)(a << 4 | b);
	}
	m->build_id = buf;
	m->build_id_len = (uint8_t)(n / 2);
	return 0;
}

/* The sizes columns from col on (see bind_sizes), has from the NULLs. */
static void col_sizes(sqlite3_stmt *st, int col, struct exm_sizes *s)
{
	static const unsigned bits[] = { EXM_HAS_VM, EXM_HAS_RSS,
					 EXM_HAS_ERSS, EXM_HAS_SWAP,
					 EXM_HAS_ESWAP, EXM_HAS_SOLE };

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 6; i++)
		if (!col_null(st, col + i))
			s->has |= bits[i];
	s->vm = (uint64_t)sqlite3_column_int64(st, col);
	s->rss = (uint64_t)sqlite3_column_int64(st, col + 1);
	s->erss = sqlite3_column_double(st, col + 2);
	s->swap = (uint64_t)sqlite3_column_int64(st, col + 3);
	s->eswap = sqlite3_column_double(st, col + 4);
	s->sole = (uint64_t)sqlite3_column_int64(st, col + 5);
}

/* The sizes columns zero, hugetlb, ehugetlb from col on (schema 3). */
static void col_more_sizes(sqlite3_stmt *st, int col, struct exm_sizes *s)
{
	if (!col_null(st, col))
		s->has |= EXM_HAS_ZERO;
	if (!col_null(st, col + 1))
		s->has |= EXM_HAS_HUGETLB;
	if (!col_null(st, col + 2))
		s->has |= EXM_HAS_EHUGETLB;
	s->zero = (uint64_t)sqlite3_column_int64(st, col);
	s->hugetlb = (uint64_t)sqlite3_column_int64(st, col + 1);
	s->ehugetlb = sqlite3_column_double(st, col + 2);
}

static int load_maps(struct load *l, int64_t pidx, bool pages)
{
	sqlite3_stmt *st = l->map;
	int64_t want = 0;
	int rc, ret = 0;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, l->snap);
	sqlite3_bind_int64(st, 2, pidx);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		unsigned char bid[64];
		struct exm_mapping m = { 0 };
		int64_t midx = sqlite3_column_int64(st, 0);
		int64_t kind = sqlite3_column_int64(st, 5);
		const unsigned char *name = sqlite3_column_text(st, 7);
		int64_t huge = sqlite3_column_int64(st, 21);
		int64_t kps = sqlite3_column_int64(st, 22);
		uint64_t ps = l->page_size;

		m.start = (uint64_t)sqlite3_column_int64(st, 1);
		m.end = (uint64_t)sqlite3_column_int64(st, 2);
		m.offset = (uint64_t)sqlite3_column_int64(st, 3);
		m.perms = (unsigned)sqlite3_column_int64(st, 4);
		m.deleted = sqlite3_column_int64(st, 6) != 0;
		m.dev_major = (uint32_t)sqlite3_column_int64(st, 8);
		m.dev_minor = (uint32_t)sqlite3_column_int64(st, 9);
		m.inode = (uint64_t)sqlite3_column_int64(st, 10);
		if (midx != want++)
			return bad(l, "mappings out of order");
		if (m.start >= m.end || m.start % ps || m.end % ps)
			return bad(l, "bad mapping range");
		if (kind < 0 || kind >= EXM_KIND__COUNT || m.perms > 0xf ||
		    huge < 0 || huge > 1 || kps < 0 || kps > (INT64_C(1) << 31) ||
		    (kps & (kps - 1)) || (kps && (uint64_t)kps < ps) ||
		    (huge && (!kps || m.start % (uint64_t)kps ||
			      m.end % (uint64_t)kps)))
			return bad(l, "bad mapping");
		m.hugetlb = huge;
		m.kpage_size = (uint32_t)kps;
		if (parse_build_id(sqlite3_column_text(st, 11), &m, bid,
				   sizeof(bid)))
			return bad(l, "bad build-id");
		m.kind = (enum exm_kind)kind;
		m.name = (char *)(name ? (const char *)name : "");
		if (!pages) {
			col_sizes(st, 12, &m.sz);
			col_more_sizes(st, 23, &m.sz);
			m.sz.has &= (unsigned)sqlite3_column_int64(st, 18);
		}
		ret = l->ops->mapping(l->ctx, &m);
		if (!ret && pages && !col_null(st, 19)) {
			if (col_null(st, 20))
				return bad(l, "missing page set");
			ret = load_runs(l, sqlite3_column_int64(st, 19),
					(uint64_t)sqlite3_column_int64(st, 20),
					&m);
		}
	}
	if (ret)
		return ret;
	return rc == SQLITE_DONE ? 0 : step_err(l);
}

static int load_kpss(struct load *l, int64_t pidx)
{
	sqlite3_stmt *st = l->kpss;
	struct exm_kpss k = { 0 };
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, l->snap);
	sqlite3_bind_int64(st, 2, pidx);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return step_err(l);
	for (size_t i = 0; i < NKFIG; i++)
		if (!col_null(st, (int)i)) {
			k.has |= kfig_cols[i].bit;
			*kfig(&k, i) = (uint64_t)sqlite3_column_int64(st, (int)i);
		}
	return k.has ? l->ops->kpss(l->ctx, &k) : 0;
}

static int load_procs(struct load *l, bool pages)
{
	sqlite3_stmt *st = l->proc;
	int64_t want = 0;
	int rc, ret = 0;

	sqlite3_bind_int64(st, 1, l->snap);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct exm_proc p = { 0 };
		int64_t idx = sqlite3_column_int64(st, 0);
		int64_t state = sqlite3_column_int64(st, 9);

		l->pid = sqlite3_column_int64(st, 1);
		if (idx != want++)
			return bad(l, "processes out of order");
		if (l->pid <= 0 || l->pid > INT32_MAX || state < 0 ||
		    state > EXM_PROC_PARTIAL)
			return bad(l, "bad process");
		p.pid = (pid_t)l->pid;
		p.ppid = (pid_t)sqlite3_column_int64(st, 2);
		p.uid = (uid_t)sqlite3_column_int64(st, 3);
		p.start_time = (uint64_t)sqlite3_column_int64(st, 4);
		p.user = (char *)sqlite3_column_text(st, 5);
		p.comm = (char *)sqlite3_column_text(st, 6);
		p.cmdline = (char *)sqlite3_column_text(st, 7);
		p.cgroup = (char *)sqlite3_column_text(st, 8);
		p.state = (enum exm_proc_state)state;
		if (p.state == EXM_PROC_DENIED) { /* statm: VM and resident */
			col_sizes(l->proc, 10, &p.sz);
			p.sz.has &= EXM_HAS_VM | EXM_HAS_RSS;
		}
		ret = l->ops->proc(l->ctx, &p);
		if (!ret && p.state != EXM_PROC_DENIED)
			ret = load_maps(l, idx, pages);
		if (!ret)
			ret = load_kpss(l, idx);
	}
	if (ret)
		return ret;
	return rc == SQLITE_DONE ? 0 : step_err(l);
}

/* The mapping table's columns load_maps reads, but those of schema 3. */
#define MAP_COLS                                                          \
	"SELECT m.idx, m.start, m.end, m.offset, m.perms, m.kind, "        \
	"m.deleted, f.name, f.dev_major, f.dev_minor, f.inode, f.build_id, " \
	"m.vm, m.rss, m.erss, m.swap, m.eswap, m.sole, m.has, m.pageset, "  \
	"p.pages, "
#define MAP_FROM                                                          \
	" FROM mapping m LEFT JOIN file f ON f.id = m.file LEFT JOIN "      \
	"pageset p ON p.id = m.pageset WHERE m.snapshot=? AND m.proc=? "    \
	"ORDER BY m.idx"

int exm_recording_load(struct exm_recording *rec, size_t idx,
		       const struct exm_sink_ops *ops, void *ctx)
{
	struct load l = { .rec = rec, .ops = ops, .ctx = ctx };
	struct exm_sysinfo sys;
	struct exm_build_end end;
	int ret;

	rec->errmsg[0] = '\0';
	if (changed(rec)) { /* a writer came: read under its locks now */
		ret = reopen(rec, rec->errmsg, sizeof(rec->errmsg));
		if (ret)
			return ret;
	}
	if (idx >= rec->n) {
		snprintf(rec->errmsg, sizeof(rec->errmsg),
			 "%.200s: no snapshot %zu (it holds %zu)", rec->path,
			 idx, rec->n);
		one_line(rec->errmsg, sizeof(rec->errmsg));
		return -ERANGE;
	}
	l.snap = rec->ids[idx];
	ret = load_sys(&l, &sys, &end);
	if (ret)
		return ret;
	l.page_size = sys.page_size;
	if (sqlite3_prepare_v2(rec->db,
			       "SELECT idx, pid, ppid, uid, start_time, user, "
			       "comm, cmdline, cgroup, state, vm, rss, erss, "
			       "swap, eswap, sole FROM process WHERE snapshot=? "
			       "ORDER BY idx",
			       -1, &l.proc, NULL) ||
	    sqlite3_prepare_v2(rec->db,
			       rec->version < 3 ? MAP_COLS
				       "NULL, NULL, NULL, NULL, NULL" MAP_FROM
						: MAP_COLS
				       "m.is_hugetlb, m.kpage_size, m.zero, "
				       "m.hugetlb, m.ehugetlb" MAP_FROM,
			       -1, &l.map, NULL) ||
	    sqlite3_prepare_v2(rec->db,
			       rec->version < 3
				       ? "SELECT offset, count, present, first, "
					 "swap_type, flags, NULL FROM run WHERE "
					 "pageset=? ORDER BY offset"
				       : "SELECT offset, count, present, first, "
					 "swap_type, flags, step FROM run WHERE "
					 "pageset=? ORDER BY offset",
			       -1, &l.run, NULL) ||
	    sqlite3_prepare_v2(rec->db,
			       "SELECT pss, pss_anon, pss_file, pss_shmem, "
			       "pss_dirty, swap_pss, rss FROM kernel WHERE "
			       "snapshot=? AND proc=?",
			       -1, &l.kpss, NULL)) {
		ret = step_err(&l);
		goto out;
	}
	ret = ops->begin(ctx, &sys);
	if (!ret)
		ret = load_procs(&l, (sys.caps & EXM_CAP_PAGES) != 0);
	if (!ret)
		ret = ops->end(ctx, &end);
out:
	sqlite3_finalize(l.proc);
	sqlite3_finalize(l.map);
	sqlite3_finalize(l.run);
	sqlite3_finalize(l.kpss);
	free(l.chunks);
	if (changed(rec)) { /* what was read may be torn */
		snprintf(rec->errmsg, sizeof(rec->errmsg),
			 "%.200s: a recorder wrote it while snapshot %zu was "
			 "read: read it again", rec->path, idx + 1);
		one_line(rec->errmsg, sizeof(rec->errmsg));
		return -EAGAIN;
	}
	if (ret == -EINVAL && !rec->errmsg[0])
		corrupt(rec->errmsg, sizeof(rec->errmsg), rec->path,
			"rejected by the builder");
	return ret;
}
