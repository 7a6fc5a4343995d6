// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --sysroot in core: a recording keeps each mapped file's build-id; after
 * the file is replaced on disk, a replay opens it by path and reports the
 * mismatch, and with a sysroot holding the recorded file (and its debug
 * file under usr/lib/debug/.build-id) it resolves sections and symbols.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/account.h"
#include "core/builder.h"
#include "core/elf.h"
#include "core/elfcache.h"
#include "core/record.h"
#include "core/source.h"
#include "tests/unit/elfgen.h"
#include "tests/unit/snapgen.h"

static void mkdirs(const char *path)
{
	char buf[600];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(buf, 0755);
			*s = '/';
		}
	mkdir(buf, 0755);
}

/* This process, mapping lib at addr, as a live snapshot. */
static struct exm_snapshot *self_snapshot(const char *lib, void *addr,
					  size_t len)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_sysinfo sys;
	struct exm_builder b;
	struct exm_mapping *m;
	struct exm_proc *p;
	struct stat st;

	exm_builder_init(&b, s);
	exm_sysfacts_local(&sys, NULL);
	snprintf(sys.source, sizeof(sys.source), "test");
	sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
	cr_assert_eq(exm_build_begin(&b, &sys), 0);
	p = exm_build_proc(&b);
	p->pid = getpid();
	p->user = strdup("u");
	p->comm = strdup("t");
	p->cmdline = strdup("");
	p->cgroup = strdup("");
	m = exm_build_mapping(&b, p);
	m->start = (uint64_t)(uintptr_t)addr;
	m->end = m->start + len;
	m->perms = EXM_PERM_R;
	m->kind = EXM_KIND_FILE;
	m->name = strdup(lib);
	cr_assert_eq(stat(lib, &st), 0);
	m->inode = st.st_ino;
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	cr_assert_eq(exm_snapshot_account(s), 0);
	return s;
}

Test(sysroot, build_id_recorded_mismatch_reported_sysroot_resolves)
{
	char dir[] = "/tmp/exm_sysroot_XXXXXX";
	char lib[256], rec[256], root[300], inroot[600], dbg[1200], q[300];
	char err[512], *bid = NULL;
	struct eg_opts with_id = { .build_id = true, .no_symtab = true };
	struct eg_opts other = { 0 };
	struct eg_opts debug = { .build_id = true };
	struct exm_recorder *r;
	struct exm_source *src;
	struct exm_scan_opts o = { 0 };
	struct exm_snapshot *s, *re;
	struct exm_elfcache *c;
	const struct exm_elf *e;
	sqlite3 *db;
	sqlite3_stmt *st;
	void *addr;
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	mkdirs(lib);
	snprintf(lib, sizeof(lib), "%s/lib/libt.so", dir);
	snprintf(rec, sizeof(rec), "%s/rec.exmrec", dir);
	cr_assert_eq(eg_write(lib, &with_id), 0);

	/* record this process mapping the library: its build-id is kept */
	fd = open(lib, O_RDONLY);
	addr = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_neq(addr, MAP_FAILED);
	s = self_snapshot(lib, addr, 4096);
	cr_assert_eq(exm_record_open(rec, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, s), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	exm_snapshot_free(s);
	munmap(addr, 4096);
	cr_assert_eq(sqlite3_open(rec, &db), SQLITE_OK);
	snprintf(q, sizeof(q), "SELECT build_id FROM file WHERE name = ?");
	cr_assert_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, lib, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	bid = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	cr_assert_str_eq(bid, "1111111111111111111111111111111111111111");

	/* the library is replaced on disk: the replay says so */
	cr_assert_eq(eg_write(lib, &other), 0);
	snprintf(q, sizeof(q), "replay:%s", rec);
	cr_assert_eq(exm_source_open(q, &src, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_source_snapshot(src, &o, &re), 0);
	cr_assert(re->sys.caps & EXM_CAP_REPLAY);
	cr_assert_eq(re->nfiles, 1);
	c = exm_elfcache_new(0);
	e = exm_elfcache_get(c, re, NULL, re->files[0], NULL);
	cr_assert_eq(e->state, EXM_ELF_REPLACED);
	cr_assert(strstr(exm_elfcache_why(c), "does not match the recording"),
		  "%s", exm_elfcache_why(c));
	cr_assert(strstr(exm_elfcache_why(c), bid), "%s", exm_elfcache_why(c));

	/* recorded again (a replay into a new file), the build-id is the
	 * recorded one, not the replaced file's */
	snprintf(q, sizeof(q), "%s/again.exmrec", dir);
	cr_assert_eq(exm_record_open(q, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, re), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);
	cr_assert_eq(sqlite3_open(q, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT build_id FROM file", -1,
					&st, NULL),
		     SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), bid);
	sqlite3_finalize(st);
	sqlite3_close(db);

	/* a sysroot holding the recorded file and its debug file */
	snprintf(root, sizeof(root), "%s/target", dir);
	snprintf(inroot, sizeof(inroot), "%s%s", root, lib);
	*strrchr(inroot, '/') = '\0';
	mkdirs(inroot);
	snprintf(inroot, sizeof(inroot), "%s%s", root, lib);
	cr_assert_eq(eg_write(inroot, &with_id), 0);
	snprintf(dbg, sizeof(dbg), "%s%s/.build-id/11", root,
		 exm_elf_debug_dir());
	mkdirs(dbg);
	snprintf(dbg, sizeof(dbg), "%s%s/.build-id/11/%s.debug", root,
		 exm_elf_debug_dir(), bid + 2);
	cr_assert_eq(eg_write(dbg, &debug), 0);
	cr_assert_eq(exm_elfcache_set_sysroot(c, root), 0);
	e = exm_elfcache_get(c, re, NULL, re->files[0], NULL);
	cr_assert_eq(e->state, EXM_ELF_OK, "%s", exm_elfcache_why(c));
	cr_assert_str_eq(exm_elfcache_why(c), "");
	cr_assert_eq(e->nsecs, 3);
	cr_assert_gt(e->nsyms, 0);
	cr_assert_eq(e->symsrc, EXM_SYMS_DEBUG);
	cr_assert_str_eq(e->debug_path, dbg);

	/* and without it again: the path outside the sysroot differs */
	cr_assert_eq(exm_elfcache_set_sysroot(c, NULL), 0);
	e = exm_elfcache_get(c, re, NULL, re->files[0], NULL);
	cr_assert_eq(e->state, EXM_ELF_REPLACED);

	exm_elfcache_free(c);
	exm_snapshot_free(re);
	exm_source_close(src);
	free(bid);
}
