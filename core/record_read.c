// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_read.c - the reader of a recording: a producer of the builder
 * protocol that plays a recorded snapshot (record.h; the tables in
 * record_schema.h). The file is hostile input.
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

#include "core/pagemap.h"
#include "core/record_schema.h"

#define READ_WORDS 1024
#define DEFAULT_MAX_PAGES (UINT64_C(1) << 32)
/* Accounting counts sharers in tables that cost room for each region of
 * frames (or swap slots) used: a hostile file must not name frames
 * scattered over millions of regions of 2^16. 2^16 of them is 16 TiB of
 * 4 KiB frames. */
#define CHUNK_SHIFT 16
#define DEFAULT_MAX_CHUNKS (UINT64_C(1) << 16)

struct exm_recording {
	sqlite3 *db;
	int version; /* its schema */
	char path[256];
	char errmsg[512];
	char *file;	  /* the path as given (NULL: in memory) */
	char *own;	  /* the file as SQLite named it, in ownfiles.h */
	bool immutable;	  /* read without locks: see exm_recording_open */
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
	exm_rec_own_drop(rec->own);
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

static int corrupt(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "%.200s: corrupt recording: %s", path, what);
	exm_rec_one_line(err, errlen);
	return -EINVAL;
}

/*
 * Prepare the SELECT of every column of the n tables t (aliases alias)
 * followed by tail, for rec's schema (exm_rec_select_sql: a table's
 * columns at their positions, the next table's after them). SQLite's
 * result code.
 */
static int prepare(struct exm_recording *rec,
		   const struct exm_rec_table *const *t,
		   const char *const *alias, int n, const char *tail,
		   sqlite3_stmt **st)
{
	char *sql = exm_rec_select_sql(rec->version, t, alias, n, tail);
	int rc;

	if (!sql)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(rec->db, sql, -1, st, NULL);
	sqlite3_free(sql);
	return rc;
}

/* The same of one table, without an alias. */
static int prepare1(struct exm_recording *rec, const struct exm_rec_table *t,
		    const char *tail, sqlite3_stmt **st)
{
	static const char *const none[] = { "" };

	return prepare(rec, &t, none, 1, tail, st);
}

/* Bind the parameter :name of st (a key of the rows it reads) to v. */
static void bind_key(sqlite3_stmt *st, const char *name, int64_t v)
{
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, name), v);
}

/* After the header check: the list of snapshots. */
static int read_index(struct exm_recording *rec, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (prepare1(rec, &exm_rec_snapshot, "FROM snapshot ORDER BY id",
		     &st) != SQLITE_OK) {
		exm_rec_set_err(err, errlen, rec->path,
				"not an exmtop recording", rec->db);
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
		rec->ids[rec->n] = sqlite3_column_int64(st, RC_SNAP_ID);
		rec->at[rec->n].tv_sec = (time_t)
			sqlite3_column_int64(st, RC_SNAP_TAKEN_SEC);
		rec->at[rec->n].tv_nsec =
			(long)(sqlite3_column_int64(st, RC_SNAP_TAKEN_NSEC) %
			       1000000000);
		rec->n++;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return -ENOMEM;
	if (rc != SQLITE_DONE) {
		exm_rec_set_err(err, errlen, rec->path, "corrupt recording",
				rec->db);
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
	/* it is quoted in messages */
	exm_rec_one_line(rec->path, sizeof(rec->path));
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
static int check_and_index(struct exm_recording *rec, char *err, size_t errlen)
{
	bool fresh;
	int ret;

	sqlite3_busy_timeout(rec->db, 5000);
	ret = exm_rec_check_header(rec->db, rec->path, &fresh, &rec->version,
				   err, errlen);
	if (!ret && fresh) {
		exm_rec_set_err(err, errlen, rec->path,
				"not an exmtop recording", NULL);
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
		exm_rec_set_err(err, errlen, path, "cannot open", rec->db);
		return -EINVAL;
	}
	rec->own = exm_rec_own_add(rec->db);
	return rec->own ? 0 : -ENOMEM;
}

/* Close and open the file again (a writer came to a file read as
 * immutable), and list its snapshots anew: those listed stay where they
 * were (a recording only grows, unless a recorder's retention drops its
 * oldest snapshots: exm_recording_load says so of one). */
static int reopen(struct exm_recording *rec, char *err, size_t errlen)
{
	int ret;

	sqlite3_close(rec->db);
	rec->db = NULL;
	exm_rec_own_drop(rec->own);
	rec->own = NULL;
	ret = open_file(rec, err, errlen);
	return ret ? ret : check_and_index(rec, err, errlen);
}

int exm_recording_open(const char *path, struct exm_recording **out, char *err,
		       size_t errlen)
{
	struct exm_recording *rec = rec_new(path);
	int ret;

	if (!rec)
		return -ENOMEM;
	rec->file = strdup(path);
	if (!rec->file)
		return rec_fail(rec, -ENOMEM);
	ret = exm_rec_regular_file(path, false, err, errlen);
	if (ret)
		return rec_fail(rec, ret);
	if (access(path, R_OK)) {
		int e = errno;

		snprintf(err, errlen, "%.200s: %s", path, strerror(e));
		exm_rec_one_line(err, errlen);
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
			   struct exm_recording **out, char *err, size_t errlen)
{
	struct exm_recording *rec = rec_new("(memory)");
	unsigned char *copy;

	if (!rec)
		return -ENOMEM;
	copy = sqlite3_malloc64(len ? len : 1);
	if (!copy ||
	    sqlite3_open_v2(":memory:", &rec->db, SQLITE_OPEN_READWRITE,
			    NULL) != SQLITE_OK) {
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
		exm_rec_set_err(err, errlen, rec->path,
				"not an exmtop recording", rec->db);
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
	bool dropped; /* its snapshot row is not there (any more) */
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
static int note_chunks(struct load *l, int kind, uint64_t first, uint64_t count)
{
	uint64_t lo = first >> CHUNK_SHIFT,
		 hi = (first + count - 1) >> CHUNK_SHIFT;

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
				i = (l->chunks[k] *
				     UINT64_C(0x9e3779b97f4a7c15)) >>
					    20 &
				    (n - 1);
				while (ns[i])
					i = (i + 1) & (n - 1);
				ns[i] = l->chunks[k];
			}
			free(l->chunks);
			l->chunks = ns;
			l->nslots = n;
		}
		i = (key * UINT64_C(0x9e3779b97f4a7c15)) >> 20 &
		    (l->nslots - 1);
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
static int load_meminfo(struct load *l, struct exm_sysinfo *sys, uint32_t want)
{
	struct exm_meminfo *mi = &sys->meminfo;
	sqlite3_stmt *st = NULL;
	uint64_t total, avail;
	int rc, ret = 0;

	if (prepare1(l->rec, &exm_rec_meminfo,
		     "FROM meminfo WHERE snapshot=:snapshot ORDER BY idx",
		     &st) != SQLITE_OK)
		return step_err(l);
	bind_key(st, ":snapshot", l->snap);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* the types first: reading a column may convert it */
		int tkey = sqlite3_column_type(st, RC_MI_KEY);
		int tval = sqlite3_column_type(st, RC_MI_VALUE);
		int tunit = sqlite3_column_type(st, RC_MI_UNIT);
		const char *key = (const char *)sqlite3_column_text(st,
								    RC_MI_KEY);
		const char *unit = (const char *)
			sqlite3_column_text(st, RC_MI_UNIT);
		int64_t v = sqlite3_column_int64(st, RC_MI_VALUE);
		bool kb = tunit == SQLITE_TEXT && unit && !strcmp(unit, "kB");

		if (sqlite3_column_int64(st, RC_MI_IDX) != mi->n ||
		    mi->n >= want)
			ret = bad(l, "meminfo rows out of order");
		else if (tkey != SQLITE_TEXT || !key ||
			 tval != SQLITE_INTEGER || v < 0 ||
			 (tunit != SQLITE_NULL && !kb) ||
			 exm_meminfo_add(mi, key,
					 (size_t)sqlite3_column_bytes(st,
								      RC_MI_KEY),
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
	if (want &&
	    (!exm_meminfo_get(mi, "MemTotal", &total) ||
	     total != sys->mem_total ||
	     (exm_meminfo_get(mi, "MemAvailable", &avail) ? avail : 0) !=
		     sys->mem_available))
		return bad(l, "meminfo disagrees with the snapshot");
	return 0;
}

static int load_sys(struct load *l, struct exm_sysinfo *sys,
		    struct exm_build_end *end)
{
	sqlite3_stmt *st = NULL;
	int64_t ps, nrows;
	int rc, nmi;

	if (prepare1(l->rec, &exm_rec_snapshot, "FROM snapshot WHERE id=:id",
		     &st) != SQLITE_OK)
		return step_err(l);
	bind_key(st, ":id", l->snap);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		l->dropped = rc == SQLITE_DONE;
		return rc == SQLITE_DONE ? bad(l, "snapshot vanished")
					 : step_err(l);
	}
	memset(sys, 0, sizeof(*sys));
	sys->taken_at.tv_sec = (time_t)sqlite3_column_int64(st,
							    RC_SNAP_TAKEN_SEC);
	sys->taken_at.tv_nsec =
		(long)(sqlite3_column_int64(st, RC_SNAP_TAKEN_NSEC) %
		       1000000000);
	sys->time_taken = sqlite3_column_double(st, RC_SNAP_TIME_TAKEN);
	if (!(sys->time_taken >= 0 && sys->time_taken < 1e9))
		sys->time_taken = 0;
	ps = sqlite3_column_int64(st, RC_SNAP_PAGE_SIZE);
	sys->mem_total = (uint64_t)sqlite3_column_int64(st, RC_SNAP_MEM_TOTAL);
	sys->mem_available = (uint64_t)
		sqlite3_column_int64(st, RC_SNAP_MEM_AVAILABLE);
	col_text(st, RC_SNAP_KERNEL, sys->kernel, sizeof(sys->kernel));
	col_text(st, RC_SNAP_HOSTNAME, sys->hostname, sizeof(sys->hostname));
	col_text(st, RC_SNAP_SOURCE, sys->source, sizeof(sys->source));
	col_text(st, RC_SNAP_SOURCE_DETAIL, sys->source_detail,
		 sizeof(sys->source_detail));
	col_text(st, RC_SNAP_LIMITS, sys->limits, sizeof(sys->limits));
	sys->caps = (unsigned)sqlite3_column_int64(st, RC_SNAP_CAPS) &
		    (0x3fu | EXM_CAP_LIMITED | EXM_CAP_AVG_MAPCOUNT |
		     EXM_CAP_KSM);
	col_text(st, RC_SNAP_PROC_ROOT, sys->proc_root, sizeof(sys->proc_root));
	end->nskipped_gone =
		(size_t)(sqlite3_column_int64(st, RC_SNAP_SKIPPED_GONE) &
			 0xffffffff);
	end->nskipped_denied =
		(size_t)(sqlite3_column_int64(st, RC_SNAP_SKIPPED_DENIED) &
			 0xffffffff);
	nmi = sqlite3_column_type(st, RC_SNAP_MEMINFO);
	nrows = sqlite3_column_int64(st, RC_SNAP_MEMINFO);
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
	bind_key(st, ":pageset", pset);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t off = (uint64_t)sqlite3_column_int64(st,
							      RC_RUN_OFFSET);
		uint64_t vpn = lo + off;
		int64_t count = sqlite3_column_int64(st, RC_RUN_COUNT);
		bool present = sqlite3_column_int64(st, RC_RUN_PRESENT) != 0;
		uint64_t first = (uint64_t)sqlite3_column_int64(st,
								RC_RUN_FIRST);
		int64_t type = sqlite3_column_int64(st, RC_RUN_SWAP_TYPE);
		uint64_t flags = (uint64_t)sqlite3_column_int64(st,
								RC_RUN_FLAGS);
		bool same = !col_null(st, RC_RUN_STEP); /* step 0 */
		uint64_t base, step, limit, nkeys = same ? 1 : (uint64_t)count;

		if (count < 1 || off >= hi - lo || vpn < next ||
		    (uint64_t)count > hi - vpn)
			return bad(l, "page run outside its mapping");
		if (flags > EXM_REC_FLAG_MASK || type < 0 || type > 31 ||
		    (same &&
		     (sqlite3_column_int64(st, RC_RUN_STEP) || !present)))
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
		base = (flags << EXM_REC_FLAG_SHIFT) |
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
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
		int a = hexval((char)hex[2 * i]),
		    b = hexval((char)hex[2 * i + 1]);

		if (a < 0 || b < 0)
			return -EINVAL;
		buf[i] = (unsigned char)(a << 4 | b);
	}
	m->build_id = buf;
	m->build_id_len = (uint8_t)(n / 2);
	return 0;
}

/* load_maps' row: the mapping's columns, then its file's, then its page
 * set's (see prepare()). */
#define MJ_FILE(c) (RC_MAP__N + (c))
#define MJ_PSET(c) (RC_MAP__N + RC_FILE__N + (c))

static int load_maps(struct load *l, int64_t pidx, bool pages)
{
	sqlite3_stmt *st = l->map;
	int64_t want = 0;
	int rc, ret = 0;

	sqlite3_reset(st);
	bind_key(st, ":snapshot", l->snap);
	bind_key(st, ":proc", pidx);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		unsigned char bid[64];
		struct exm_mapping m = { 0 };
		int64_t midx = sqlite3_column_int64(st, RC_MAP_IDX);
		int64_t kind = sqlite3_column_int64(st, RC_MAP_KIND);
		const unsigned char *name =
			sqlite3_column_text(st, MJ_FILE(RC_FILE_NAME));
		int64_t huge = sqlite3_column_int64(st, RC_MAP_IS_HUGETLB);
		int64_t kps = sqlite3_column_int64(st, RC_MAP_KPAGE_SIZE);
		uint64_t ps = l->page_size;

		m.start = (uint64_t)sqlite3_column_int64(st, RC_MAP_START);
		m.end = (uint64_t)sqlite3_column_int64(st, RC_MAP_END);
		m.offset = (uint64_t)sqlite3_column_int64(st, RC_MAP_OFFSET);
		m.perms = (unsigned)sqlite3_column_int64(st, RC_MAP_PERMS);
		m.deleted = sqlite3_column_int64(st, RC_MAP_DELETED) != 0;
		m.dev_major = (uint32_t)
			sqlite3_column_int64(st, MJ_FILE(RC_FILE_DEV_MAJOR));
		m.dev_minor = (uint32_t)
			sqlite3_column_int64(st, MJ_FILE(RC_FILE_DEV_MINOR));
		m.inode = (uint64_t)
			sqlite3_column_int64(st, MJ_FILE(RC_FILE_INODE));
		if (midx != want++)
			return bad(l, "mappings out of order");
		if (m.start >= m.end || m.start % ps || m.end % ps)
			return bad(l, "bad mapping range");
		if (kind < 0 || kind >= EXM_KIND__COUNT || m.perms > 0xf ||
		    huge < 0 || huge > 1 || kps < 0 ||
		    kps > (INT64_C(1) << 31) || (kps & (kps - 1)) ||
		    (kps && (uint64_t)kps < ps) ||
		    (huge && (!kps || m.start % (uint64_t)kps ||
			      m.end % (uint64_t)kps)))
			return bad(l, "bad mapping");
		m.hugetlb = huge;
		m.kpage_size = (uint32_t)kps;
		if (parse_build_id(
			    sqlite3_column_text(st, MJ_FILE(RC_FILE_BUILD_ID)),
			    &m, bid, sizeof(bid)))
			return bad(l, "bad build-id");
		m.kind = (enum exm_kind)kind;
		m.name = (char *)(name ? (const char *)name : "");
		if (!pages) {
			exm_rec_col_sizes(st, &exm_rec_mapping, &m.sz);
			m.sz.has &= (unsigned)sqlite3_column_int64(st,
								   RC_MAP_HAS);
		}
		ret = l->ops->mapping(l->ctx, &m);
		if (!ret && pages && !col_null(st, RC_MAP_PAGESET)) {
			if (col_null(st, MJ_PSET(RC_PSET_PAGES)))
				return bad(l, "missing page set");
			ret = load_runs(l,
					sqlite3_column_int64(st,
							     RC_MAP_PAGESET),
					(uint64_t)sqlite3_column_int64(
						st, MJ_PSET(RC_PSET_PAGES)),
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
	bind_key(st, ":snapshot", l->snap);
	bind_key(st, ":proc", pidx);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return step_err(l);
	exm_rec_col_kpss(st, &k);
	return k.has ? l->ops->kpss(l->ctx, &k) : 0;
}

static int load_procs(struct load *l, bool pages)
{
	sqlite3_stmt *st = l->proc;
	int64_t want = 0;
	int rc, ret = 0;

	bind_key(st, ":snapshot", l->snap);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct exm_proc p = { 0 };
		int64_t idx = sqlite3_column_int64(st, RC_PROC_IDX);
		int64_t state = sqlite3_column_int64(st, RC_PROC_STATE);

		l->pid = sqlite3_column_int64(st, RC_PROC_PID);
		if (idx != want++)
			return bad(l, "processes out of order");
		if (l->pid <= 0 || l->pid > INT32_MAX || state < 0 ||
		    state > EXM_PROC_PARTIAL)
			return bad(l, "bad process");
		p.pid = (pid_t)l->pid;
		p.ppid = (pid_t)sqlite3_column_int64(st, RC_PROC_PPID);
		p.uid = (uid_t)sqlite3_column_int64(st, RC_PROC_UID);
		p.start_time = (uint64_t)
			sqlite3_column_int64(st, RC_PROC_START_TIME);
		p.user = (char *)sqlite3_column_text(st, RC_PROC_USER);
		p.comm = (char *)sqlite3_column_text(st, RC_PROC_COMM);
		p.cmdline = (char *)sqlite3_column_text(st, RC_PROC_CMDLINE);
		p.cgroup = (char *)sqlite3_column_text(st, RC_PROC_CGROUP);
		p.state = (enum exm_proc_state)state;
		/* NULL: not read, or a file before version 4 */
		p.has_oom = sqlite3_column_type(st, RC_PROC_OOM_SCORE) !=
				    SQLITE_NULL &&
			    sqlite3_column_type(st, RC_PROC_OOM_ADJ) !=
				    SQLITE_NULL;
		if (p.has_oom) {
			p.oom_score = sqlite3_column_int(st, RC_PROC_OOM_SCORE);
			p.oom_adj = sqlite3_column_int(st, RC_PROC_OOM_ADJ);
		}
		if (p.state == EXM_PROC_DENIED) { /* statm: VM and resident */
			exm_rec_col_sizes(l->proc, &exm_rec_process, &p.sz);
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

/* The cgroups' charge of the snapshot (schema 4; none before). */
static int load_cgroups(struct load *l)
{
	sqlite3_stmt *st = NULL;
	int64_t want = 0;
	int rc, ret = 0;

	if (l->rec->version < 4 || !l->ops->cgroup)
		return 0;
	if (prepare1(l->rec, &exm_rec_cgroup,
		     "FROM cgroup WHERE snapshot=:snapshot ORDER BY idx", &st))
		return step_err(l);
	bind_key(st, ":snapshot", l->snap);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct exm_cgcharge c = { 0 };

		c.path = (char *)sqlite3_column_text(st, RC_CG_PATH);
		c.ino = (uint64_t)sqlite3_column_int64(st, RC_CG_INO);
		if (sqlite3_column_int64(st, RC_CG_IDX) != want++ || !c.path) {
			ret = bad(l, "bad cgroup row");
			break;
		}
		exm_rec_col_cgroup(st, &c);
		ret = l->ops->cgroup(l->ctx, &c);
		if (ret == -EINVAL) /* the builder's: not in path order */
			ret = bad(l, "cgroups out of order");
	}
	if (!ret && rc != SQLITE_DONE)
		ret = step_err(l);
	sqlite3_finalize(st);
	return ret;
}

/* load_maps' tables: a mapping, its file and its page set (MJ_*). */
static const struct exm_rec_table *const map_tables[] = { &exm_rec_mapping,
							  &exm_rec_file,
							  &exm_rec_pageset };
static const char *const map_aliases[] = { "m", "f", "p" };

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
		exm_rec_one_line(rec->errmsg, sizeof(rec->errmsg));
		return -ERANGE;
	}
	l.snap = rec->ids[idx];
	/* one read transaction: a recorder's retention drops a snapshot
	 * whole, before the load or after it, never in its middle */
	if (sqlite3_exec(rec->db, "BEGIN", NULL, NULL, NULL))
		return step_err(&l);
	ret = load_sys(&l, &sys, &end);
	if (ret == -EINVAL && l.dropped) {
		snprintf(rec->errmsg, sizeof(rec->errmsg),
			 "%.200s: snapshot %zu was dropped by the recorder's "
			 "retention (--keep, --keep-size)",
			 rec->path, idx + 1);
		exm_rec_one_line(rec->errmsg, sizeof(rec->errmsg));
		ret = -ERANGE;
	}
	if (ret)
		goto out;
	l.page_size = sys.page_size;
	if (prepare1(rec, &exm_rec_process,
		     "FROM process WHERE snapshot=:snapshot ORDER BY idx",
		     &l.proc) ||
	    prepare(rec, map_tables, map_aliases, 3,
		    "FROM mapping m LEFT JOIN file f ON f.id = m.file "
		    "LEFT JOIN pageset p ON p.id = m.pageset "
		    "WHERE m.snapshot=:snapshot AND m.proc=:proc "
		    "ORDER BY m.idx",
		    &l.map) ||
	    prepare1(rec, &exm_rec_run,
		     "FROM run WHERE pageset=:pageset ORDER BY offset",
		     &l.run) ||
	    prepare1(rec, &exm_rec_kernel,
		     "FROM kernel WHERE snapshot=:snapshot AND proc=:proc",
		     &l.kpss)) {
		ret = step_err(&l);
		goto out;
	}
	ret = ops->begin(ctx, &sys);
	if (!ret)
		ret = load_procs(&l, (sys.caps & EXM_CAP_PAGES) != 0);
	l.pid = 0;
	if (!ret)
		ret = load_cgroups(&l);
	if (!ret)
		ret = ops->end(ctx, &end);
out:
	sqlite3_finalize(l.proc);
	sqlite3_finalize(l.map);
	sqlite3_finalize(l.run);
	sqlite3_finalize(l.kpss);
	free(l.chunks);
	sqlite3_exec(rec->db, "COMMIT", NULL, NULL, NULL);
	if (changed(rec)) { /* what was read may be torn */
		snprintf(rec->errmsg, sizeof(rec->errmsg),
			 "%.200s: a recorder wrote it while snapshot %zu was "
			 "read: read it again",
			 rec->path, idx + 1);
		exm_rec_one_line(rec->errmsg, sizeof(rec->errmsg));
		return -EAGAIN;
	}
	if (ret == -EINVAL && !rec->errmsg[0])
		corrupt(rec->errmsg, sizeof(rec->errmsg), rec->path,
			"rejected by the builder");
	return ret;
}
