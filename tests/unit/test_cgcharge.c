// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cgroup charge (core/cgcharge.c): on a hand-built snapshot, a cgroup
 * v2 hierarchy made of files (memory.current, memory.stat) and a
 * kpagecgroup file of the inodes of its directories, every figure exact:
 * the frames charged to a cgroup that others map, a cgroup's effective
 * resident on frames charged elsewhere, and the page cache nobody maps;
 * effective resident conserved (the part on its own charge plus the part
 * elsewhere); null figures on cgroup v1 and where a file is missing; the
 * group rows per cgroup carry them, other groupings do not.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/account.h"
#include "core/cgcharge.h"
#include "core/fields.h"
#include "core/group.h"
#include "tests/unit/snapgen.h"
#include "tests/unit/fsput.h"

#define PS 4096u
#define PRESENT(pfn, fl) (EXM_PM_PRESENT | (fl) | (uint64_t)(pfn))
#define FILEP EXM_PM_FILE
#define RW (EXM_PERM_R | EXM_PERM_W)

static char tmp[64], cgroot[128], procroot[128];

static uint64_t ino_of(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	return (uint64_t)st.st_ino;
}

static void kpagecgroup(uint64_t pfn, uint64_t ino)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/kpagecgroup", procroot);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, &ino, 8, (off_t)(pfn * 8)), 8);
	close(fd);
}

/* A v2 root (controllers: memory with v2) with /A and /B. */
static void hierarchy(bool v2)
{
	char a[256], b[256];

	snprintf(tmp, sizeof(tmp), "/tmp/exm-cgcharge-XXXXXX");
	cr_assert(mkdtemp(tmp));
	snprintf(cgroot, sizeof(cgroot), "%s/cg", tmp);
	snprintf(procroot, sizeof(procroot), "%s/proc", tmp);
	snprintf(a, sizeof(a), "%s/A", cgroot);
	snprintf(b, sizeof(b), "%s/B", cgroot);
	cr_assert_eq(mkdir(cgroot, 0700), 0);
	cr_assert_eq(mkdir(procroot, 0700), 0);
	cr_assert_eq(mkdir(a, 0700), 0);
	cr_assert_eq(mkdir(b, 0700), 0);
	put(cgroot, "cgroup.controllers",
	    v2 ? "cpuset cpu io memory pids\n" : "hugetlb\n");
	put(cgroot, "memory.stat", "anon 0\nfile 0\nshmem 0\n");
	put(a, "memory.current", "1000000\n");
	put(a, "memory.stat",
	    "anon 8192\nfile 20480\nkernel 123\n"
	    "file_mapped 8192\nshmem 0\n");
	put(b, "memory.current", "2000000\n");
	/* no kernel line (before Linux 5.18): null */
	put(b, "memory.stat", "anon 4096\nfile 4096\nshmem 4096\n");
	/* 300, 301: a file read first by A; 200 A's anon; 201 an anon page
	 * charged to B that A maps; 210 B's anon; 302 a file charged to B
	 * the root's process maps; 303 a frame charged to no memcg */
	kpagecgroup(300, ino_of(a));
	kpagecgroup(301, ino_of(a));
	kpagecgroup(200, ino_of(a));
	kpagecgroup(201, ino_of(b));
	kpagecgroup(210, ino_of(b));
	kpagecgroup(302, ino_of(b));
	kpagecgroup(303, 0);
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_expect_eq(system(cmd), 0);
}

static void add(struct exm_mapping *m, uint64_t page, uint64_t w)
{
	cr_assert_eq(exm_mapping_add_page(m, m->start / PS + page, w), 0);
}

static struct exm_proc *proc_in(struct exm_snapshot *s, pid_t pid,
				const char *cgroup)
{
	struct exm_proc *p = snapgen_proc(s, pid, "x");

	free(p->cgroup);
	p->cgroup = strdup(cgroup);
	return p;
}

/*
 * pid 1 in /A: file 300, anon 200, 201, 303. pid 2 in /B: file 300, 301,
 * anon 210. pid 3 in the root: file 302.
 */
static struct exm_snapshot *sample(void)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_mapping *m;
	struct exm_proc *p;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_CGROUP;
	p = proc_in(s, 1, "/A");
	m = snapgen_map(p, 0x40000, 1, RW, "/f", EXM_KIND_FILE);
	add(m, 0, PRESENT(300, FILEP));
	m = snapgen_map(p, 0x10000, 3, RW, "", EXM_KIND_ANON);
	add(m, 0, PRESENT(200, EXM_PM_EXCLUSIVE));
	add(m, 1, PRESENT(201, EXM_PM_EXCLUSIVE));
	add(m, 2, PRESENT(303, EXM_PM_EXCLUSIVE));
	p = proc_in(s, 2, "/B");
	m = snapgen_map(p, 0x40000, 2, RW, "/f", EXM_KIND_FILE);
	add(m, 0, PRESENT(300, FILEP));
	add(m, 1, PRESENT(301, FILEP));
	m = snapgen_map(p, 0x10000, 1, RW, "", EXM_KIND_ANON);
	add(m, 0, PRESENT(210, EXM_PM_EXCLUSIVE));
	p = proc_in(s, 3, "");
	m = snapgen_map(p, 0x40000, 1, RW, "/g", EXM_KIND_FILE);
	add(m, 0, PRESENT(302, FILEP));
	cr_assert_eq(exm_snapshot_account(s), 0);
	return s;
}

static const struct exm_cgcharge *cg(const struct exm_snapshot *s,
				     const char *key)
{
	const struct exm_cgcharge *c = exm_cgcharge_find(s, key);

	cr_assert(c, "no cgroup %s", key);
	return c;
}

Test(cgcharge, figures_of_a_hand_built_hierarchy)
{
	struct exm_snapshot *s = sample();
	const struct exm_cgcharge *a, *b, *r;
	double erss_a = s->procs[0].sz.erss;

	hierarchy(true);
	cr_assert_eq(exm_cgcharge_read(s, procroot, cgroot), 0);
	cr_assert_eq(s->ncgroups, 3);
	a = cg(s, "/A");
	b = cg(s, "/B");
	r = cg(s, "/");
	cr_expect_eq(a->has, EXM_CG_CURRENT | EXM_CG_ANON | EXM_CG_FILE |
				     EXM_CG_SHMEM | EXM_CG_KERNEL |
				     EXM_CG_FRAMES | EXM_CG_UNMAPPED);
	cr_expect_eq(a->current, 1000000);
	cr_expect_eq(a->anon, 8192);
	cr_expect_eq(a->file, 20480);
	cr_expect_eq(a->kernel, 123);
	/* B maps half of 300 and all of 301, both charged to A */
	cr_expect_eq(a->others, 1.5 * PS, "%g", a->others);
	/* A maps 201 (charged to B) and 303 (to no memcg) */
	cr_expect_eq(a->elsewhere, 2.0 * PS, "%g", a->elsewhere);
	/* 5 pages of file charged to A, 300 and 301 mapped */
	cr_expect_eq(a->unmapped, 3 * PS);
	/* conserved: A's effective resident is its share of its own
	 * charge (200 and half of 300) and what lies elsewhere */
	cr_expect_eq(erss_a, 1.5 * PS + a->elsewhere, "%g", erss_a);
	cr_expect_eq(b->has & EXM_CG_KERNEL, 0, "no kernel line: null");
	cr_expect_eq(b->others, 2.0 * PS, "201 by A, 302 by the root's");
	cr_expect_eq(b->elsewhere, 1.5 * PS, "half of 300, all of 301");
	cr_expect_eq(b->unmapped, 0, "its one file page, 302, is mapped");
	cr_expect_eq(r->has & EXM_CG_CURRENT, 0, "the root has no current");
	cr_expect_eq(r->elsewhere, 1.0 * PS);
	cr_expect_eq(r->others, 0);
	cleanup();
	exm_snapshot_free(s);
}

Test(cgcharge, group_rows_per_cgroup_only)
{
	struct exm_snapshot *s = sample();
	struct exm_row *rows;
	struct exm_value v;
	size_t n;

	hierarchy(true);
	cr_assert_eq(exm_cgcharge_read(s, procroot, cgroot), 0);
	rows = exm_table_groups(s, EXM_GROUP_CGROUP, NULL, &n);
	cr_assert(rows);
	cr_assert_eq(n, 3);
	cr_expect_str_eq(rows[1].name, "/A");
	exm_field_value(EXM_F_CG_CURRENT, EXM_T_GROUPS, &rows[1], &v);
	cr_expect_eq(v.type, EXM_V_INT);
	cr_expect_eq(v.u, 1000000);
	exm_field_value(EXM_F_CG_OTHERS, EXM_T_GROUPS, &rows[1], &v);
	cr_expect_eq(v.type, EXM_V_DBL);
	cr_expect_eq(v.d, 1.5 * PS);
	exm_field_value(EXM_F_CG_KERNEL, EXM_T_GROUPS, &rows[2], &v);
	cr_expect_eq(v.type, EXM_V_NONE, "B's kernel is not known");
	free(rows);
	rows = exm_table_groups(s, EXM_GROUP_PROGRAM, NULL, &n);
	cr_assert(rows);
	exm_field_value(EXM_F_CG_CURRENT, EXM_T_GROUPS, &rows[0], &v);
	cr_expect_eq(v.type, EXM_V_NONE, "a program has no charge");
	free(rows);
	cleanup();
	exm_snapshot_free(s);
}

Test(cgcharge, v1_says_so_and_leaves_null)
{
	struct exm_snapshot *s = sample();

	hierarchy(false);
	cr_assert_eq(exm_cgcharge_read(s, procroot, cgroot), 0);
	cr_expect_eq(s->ncgroups, 0);
	cr_expect(s->sys.caps & EXM_CAP_CGROUP_V1);
	cr_expect(strstr(s->sys.limits, EXM_CGCHARGE_V1_NOTE));
	cleanup();
	exm_snapshot_free(s);
}

Test(cgcharge, no_kpagecgroup_no_frame_figures)
{
	struct exm_snapshot *s = sample();
	char path[256];

	hierarchy(true);
	snprintf(path, sizeof(path), "%s/kpagecgroup", procroot);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(exm_cgcharge_read(s, procroot, cgroot), 0);
	cr_expect_eq(cg(s, "/A")->has & (EXM_CG_FRAMES | EXM_CG_UNMAPPED), 0);
	cr_expect(cg(s, "/A")->has & EXM_CG_CURRENT);
	cleanup();
	exm_snapshot_free(s);
}
