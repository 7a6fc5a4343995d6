// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_elfcache.c - the ELF cache: hits by (dev, inode, mtime, size),
 * opening through map_files, the path fallback and its "(file replaced)"
 * check, states for files that are not ELF or not files, LRU bound.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/account.h"
#include "core/elf.h"
#include "core/elfcache.h"
#include "core/snapshot.h"
#include "tests/unit/elfgen.h"
#include "tests/unit/snapgen.h"

static char dir[] = "/tmp/exm_elfcache_XXXXXX";

static void mkdir_tmp(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

/* A snapshot with one process (pid) mapping path at [start, end). */
static struct exm_snapshot *snap_of(const char *path, pid_t pid, uint64_t start,
				    uint64_t end, enum exm_kind kind)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_proc *p = snapgen_proc(s, pid, "c");
	struct exm_mapping *m;
	struct stat st;

	cr_assert_not_null(p);
	m = exm_proc_add_mapping(p);
	m->start = start;
	m->end = end;
	m->perms = EXM_PERM_R;
	m->kind = kind;
	m->name = strdup(path);
	if (!stat(path, &st))
		m->inode = st.st_ino;
	else
		m->inode = 1;
	cr_assert_eq(exm_snapshot_account(s), 0);
	return s;
}

static const struct exm_file *the_file(const struct exm_snapshot *s)
{
	cr_assert_eq(s->nfiles, 1);
	return s->files[0];
}

Test(elfcache, path_fallback_hits_and_mtime)
{
	struct exm_elfcache *c = exm_elfcache_new(4);
	struct exm_elfcache_stats st;
	struct eg_opts o = { 0 };
	struct exm_snapshot *s;
	const struct exm_elf *e, *e2;
	struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };
	char path[512];

	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	cr_assert_eq(eg_write(path, &o), 0);
	s = snap_of(path, 999999, 0x10000, 0x20000, EXM_KIND_FILE);
	/* No such process: map_files fails, the path is used. */
	e = exm_elfcache_get(c, s, &s->procs[0], the_file(s), "/nonexistent");
	cr_assert_eq(e->state, EXM_ELF_OK);
	cr_assert_eq(e->nsecs, 3);
	e2 = exm_elfcache_get(c, s, NULL, the_file(s), "/nonexistent");
	cr_assert_eq(e2, e);
	exm_elfcache_stats(c, &st);
	cr_assert_eq(st.hits, 1);
	cr_assert_eq(st.misses, 1);
	cr_assert_eq(st.entries, 1);
	cr_assert_gt(st.bytes, 0);
	/* Same inode, new mtime: parsed again. */
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	exm_elfcache_get(c, s, NULL, the_file(s), "/nonexistent");
	exm_elfcache_stats(c, &st);
	cr_assert_eq(st.misses, 2);
	exm_snapshot_free(s);
	exm_elfcache_free(c);
}

Test(elfcache, replaced_and_states)
{
	struct exm_elfcache *c = exm_elfcache_new(0);
	struct eg_opts o = { 0 };
	struct exm_snapshot *s;
	const struct exm_elf *e;
	char path[512];
	int fd;

	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	cr_assert_eq(eg_write(path, &o), 0);
	s = snap_of(path, 999999, 0x10000, 0x20000, EXM_KIND_FILE);
	cr_assert_eq(eg_write(path, &o),
		     0); /* the path now names another inode */
	e = exm_elfcache_get(c, s, NULL, the_file(s), "/nonexistent");
	cr_assert_eq(e->state, EXM_ELF_REPLACED);
	cr_assert_str_eq(exm_elf_state_text(e), "(file replaced)");
	unlink(path);
	e = exm_elfcache_get(c, s, NULL, the_file(s), "/nonexistent");
	cr_assert_eq(e->state, EXM_ELF_REPLACED);
	exm_snapshot_free(s);

	/* Not an ELF file. */
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	cr_assert_eq(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
	close(fd);
	s = snap_of(path, 999999, 0x10000, 0x20000, EXM_KIND_FILE);
	e = exm_elfcache_get(c, s, NULL, the_file(s), "/nonexistent");
	cr_assert_eq(e->state, EXM_ELF_NOT_ELF);
	exm_snapshot_free(s);

	/* Not a file at all. */
	s = snap_of("", 999999, 0x10000, 0x20000, EXM_KIND_ANON);
	e = exm_elfcache_get(c, s, NULL, the_file(s), NULL);
	cr_assert_eq(e->state, EXM_ELF_NOT_FILE);
	exm_snapshot_free(s);

	/* A FIFO where the file was: never blocks, never parsed. */
	unlink(path);
	cr_assert_eq(mkfifo(path, 0600), 0);
	s = snap_of(path, 999999, 0x10000, 0x20000, EXM_KIND_FILE);
	e = exm_elfcache_get(c, s, NULL, the_file(s), "/nonexistent");
	cr_assert_neq(e->state, EXM_ELF_OK);
	exm_snapshot_free(s);
	unlink(path);
	exm_elfcache_free(c);
}

/* Opened through /proc/self/map_files: the mapped file is read even after
 * the path was replaced by something else. Needs root (CAP_SYS_ADMIN). */
Test(elfcache, map_files_survive_replacement)
{
	struct exm_elfcache *c = exm_elfcache_new(0);
	struct eg_opts o = { 0 };
	struct exm_snapshot *s;
	const struct exm_elf *e;
	struct eg_layout lay;
	char path[512];
	void *map;
	int fd;

	if (geteuid() != 0)
		cr_skip_test("map_files needs root");
	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	free(eg_build(&o, &lay));
	cr_assert_eq(eg_write(path, &o), 0);
	fd = open(path, O_RDONLY);
	map = mmap(NULL, lay.len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_neq(map, MAP_FAILED);
	s = snap_of(path, getpid(), (uint64_t)(uintptr_t)map,
		    (uint64_t)(uintptr_t)map + 4096, EXM_KIND_FILE);
	/* Replace the path with a file that is not ELF. */
	unlink(path);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	cr_assert_eq(write(fd, "not elf", 7), 7);
	close(fd);
	e = exm_elfcache_get(c, s, &s->procs[0], the_file(s), NULL);
	cr_assert_eq(e->state, EXM_ELF_OK);
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	munmap(map, lay.len);
	exm_snapshot_free(s);
	unlink(path);
	exm_elfcache_free(c);
}

Test(elfcache, lru_bound)
{
	struct exm_elfcache *c = exm_elfcache_new(2);
	struct exm_elfcache_stats st;
	struct eg_opts o = { 0 };
	char path[512];

	mkdir_tmp();
	for (int i = 0; i < 5; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
		cr_assert_eq(eg_write(path, &o), 0);
		fd = open(path, O_RDONLY);
		cr_assert_eq(exm_elfcache_get_fd(c, fd, path)->state,
			     EXM_ELF_OK);
		close(fd);
	}
	exm_elfcache_stats(c, &st);
	cr_assert_eq(st.entries, 2);
	cr_assert_eq(st.misses, 5);
	exm_elfcache_free(c);
}
