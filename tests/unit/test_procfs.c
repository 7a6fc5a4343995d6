// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsers of /proc text: maps lines, smaps keys, smaps_rollup, stat. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/procfs.h"
#include "core/source.h"
#include "core/source_priv.h"

static int parse(const char *line, struct exm_mapping *m)
{
	memset(m, 0, sizeof(*m));
	return exm_parse_maps_line(line, strlen(line), m);
}

Test(maps, file_mapping)
{
	struct exm_mapping m;

	cr_assert_eq(parse("7f1c2a400000-7f1c2a428000 r--p 00001000 fe:01 "
			   "1835106                    "
			   "/usr/lib/x86_64-linux-gnu/libc.so.6\n",
			   &m),
		     0);
	cr_assert_eq(m.start, 0x7f1c2a400000ull);
	cr_assert_eq(m.end, 0x7f1c2a428000ull);
	cr_assert_eq(m.perms, EXM_PERM_R);
	cr_assert_eq(m.offset, 0x1000);
	cr_assert_eq(m.dev_major, 0xfe);
	cr_assert_eq(m.dev_minor, 1);
	cr_assert_eq(m.inode, 1835106);
	cr_assert_eq(m.kind, EXM_KIND_FILE);
	cr_assert_str_eq(m.name, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert_not(m.deleted);
	free(m.name);
}

Test(maps, spaces_escapes_and_deleted)
{
	struct exm_mapping m;

	cr_assert_eq(parse("1000-2000 rw-s 00000000 00:05 77 "
			   "/tmp/my  dir/a\\012b (deleted)",
			   &m),
		     0);
	/* Name kept exactly (double space), the kernel's \012 escape a
	 * newline again, " (deleted)" stripped and remembered. */
	cr_assert_str_eq(m.name, "/tmp/my  dir/a\nb");
	cr_assert(m.deleted);
	cr_assert_eq(m.perms, EXM_PERM_R | EXM_PERM_W | EXM_PERM_S);
	free(m.name);

	/* A file whose name merely contains "(deleted)" in the middle. */
	cr_assert_eq(parse("1000-2000 r--p 00000000 08:01 9 /x (deleted)/y",
			   &m),
		     0);
	cr_assert_str_eq(m.name, "/x (deleted)/y");
	cr_assert_not(m.deleted);
	free(m.name);
}

Test(maps, kinds)
{
	static const struct {
		const char *line;
		enum exm_kind kind;
		const char *name;
	} cases[] = {
		{ "1000-2000 rw-p 00000000 00:00 0 [heap]", EXM_KIND_HEAP,
		  "[heap]" },
		{ "1000-2000 rw-p 00000000 00:00 0   [stack]", EXM_KIND_STACK,
		  "[stack]" },
		{ "1000-2000 r-xp 00000000 00:00 0 [vdso]", EXM_KIND_VDSO,
		  "[vdso]" },
		{ "1000-2000 r--p 00000000 00:00 0 [vvar]", EXM_KIND_VVAR,
		  "[vvar]" },
		{ "1000-2000 r--p 00000000 00:00 0 [vvar_vclock]",
		  EXM_KIND_VVAR, "[vvar_vclock]" },
		{ "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 "
		  "[vsyscall]",
		  EXM_KIND_VSYSCALL, "[vsyscall]" },
		{ "1000-2000 rw-p 00000000 00:00 0 [anon:libc_malloc]",
		  EXM_KIND_ANON, "[anon:libc_malloc]" },
		{ "1000-2000 rw-p 00000000 00:00 0 ", EXM_KIND_ANON, "" },
		{ "1000-2000 rw-p 00000000 00:00 0", EXM_KIND_ANON, "" },
		{ "1000-2000 rw-s 00000000 00:01 4242 /dev/zero (deleted)",
		  EXM_KIND_SHMEM, "/dev/zero" },
		{ "1000-2000 rw-p 00000000 00:06 4 /dev/zero", EXM_KIND_ANON,
		  "/dev/zero" },
		{ "1000-2000 rw-s 00000000 00:01 32770 /SYSV0000162e "
		  "(deleted)",
		  EXM_KIND_SHMEM, "/SYSV0000162e" },
		{ "1000-2000 rw-s 00000000 00:01 1025 /memfd:ring (deleted)",
		  EXM_KIND_SHMEM, "/memfd:ring" },
		{ "1000-2000 rw-s 00000000 00:1a 5 /dev/shm/PostgreSQL.1",
		  EXM_KIND_SHMEM, "/dev/shm/PostgreSQL.1" },
		/* MAP_HUGETLB anonymous: shared is shared memory, private is
		 * private anonymous memory (copied on write after fork) */
		{ "1000-2000 rw-s 00000000 00:10 77 /anon_hugepage (deleted)",
		  EXM_KIND_SHMEM, "/anon_hugepage" },
		{ "1000-2000 rw-p 00000000 00:10 78 /anon_hugepage (deleted)",
		  EXM_KIND_ANON, "/anon_hugepage" },
		/* a hugetlbfs file: shared memory shared, a private mapping
		 * of a file private (no device, though on major 0) */
		{ "1000-2000 rw-s 00000000 00:11 5 /dev/hugepages/x",
		  EXM_KIND_SHMEM, "/dev/hugepages/x" },
		{ "1000-2000 rw-p 00000000 00:11 5 /dev/hugepages/x",
		  EXM_KIND_FILE, "/dev/hugepages/x" },
		{ "1000-2000 rw-s 10000000 00:05 391 /dev/dri/card0",
		  EXM_KIND_DEVICE, "/dev/dri/card0" },
		{ "1000-2000 r--p 00000000 00:00 0 [uprobes]", EXM_KIND_OTHER,
		  "[uprobes]" },
		{ "1000-2000 rw-s 00000000 00:0e 99 anon_inode:i915.gem",
		  EXM_KIND_OTHER, "anon_inode:i915.gem" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct exm_mapping m;

		cr_assert_eq(parse(cases[i].line, &m), 0, "%s", cases[i].line);
		cr_expect_eq(m.kind, cases[i].kind, "%s: kind %d",
			     cases[i].line, m.kind);
		cr_expect_str_eq(m.name, cases[i].name);
		free(m.name);
	}
}

Test(maps, malformed)
{
	static const char *const bad[] = {
		"",
		"1000",
		"1000-",
		"1000-2000",
		"1000-2000 rw-",
		"1000-2000 rwzp 00000000 00:00 0",
		"1000-2000 rw-q 00000000 00:00 0",
		"1000-2000 rw-p 0000000g 00:00 0",
		"1000-2000 rw-p 00000000 0000 0",
		"1000-2000 rw-p 00000000 00:00",
		"1000-2000 rw-p 00000000 00:00 x",
		"2000-1000 rw-p 00000000 00:00 0",
		"11111111111111111-2000 rw-p 00000000 00:00 0",
		"1000-2000 rw-p 00000000 00:00 12abc",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct exm_mapping m;

		cr_expect_eq(parse(bad[i], &m), -EINVAL, "accepted '%s'",
			     bad[i]);
	}
}

Test(kv, exact_keys_and_units)
{
	const char *key;
	size_t klen;
	uint64_t v;
	const char *l1 = "Pss_Anon:              12 kB\n";
	const char *l2 = "THPeligible:    1";

	cr_assert_eq(exm_parse_kv(l1, strlen(l1), &key, &klen, &v), 0);
	cr_assert_eq(klen, 8);
	cr_assert(!memcmp(key, "Pss_Anon", 8));
	cr_assert_eq(v, 12 * 1024);
	cr_assert_eq(exm_parse_kv(l2, strlen(l2), &key, &klen, &v), 0);
	cr_assert_eq(v, 1);
	/* Not key/number lines. */
	cr_assert_eq(exm_parse_kv("VmFlags: rd wr mr", 17, &key, &klen, &v),
		     -EINVAL);
	cr_assert_eq(exm_parse_kv("00400000-0040b000 r-xp 0 08:01 1 /bin/x", 39,
				  &key, &klen, &v),
		     -EINVAL);
	cr_assert_eq(exm_parse_kv("Rss:", 4, &key, &klen, &v), -EINVAL);
	cr_assert_eq(exm_parse_kv("Rss: 12 MB", 10, &key, &klen, &v), -EINVAL);
	cr_assert_eq(exm_parse_kv(": 12 kB", 7, &key, &klen, &v), -EINVAL);
	cr_assert_eq(exm_parse_kv("Rss: 99999999999999999999 kB", 28, &key,
				  &klen, &v),
		     -EINVAL);
}

Test(rollup, exact_matching_and_unknown_keys)
{
	const char buf[] = "55d0c0a00000-7ffd3c1fe000 ---p 00000000 00:00 0    "
			   "[rollup]\n"
			   "Rss:                2000 kB\n"
			   "Pss:                1000 kB\n"
			   "Pss_Dirty:           300 kB\n"
			   "Pss_Anon:            400 kB\n"
			   "Pss_File:            500 kB\n"
			   "Pss_Shmem:           100 kB\n"
			   "Shared_Clean:        900 kB\n"
			   "Swap:                 64 kB\n"
			   "SwapPss:              32 kB\n"
			   "Pss_Future_Key:     7777 kB\n"
			   "Locked:                0 kB\n";
	struct exm_kpss k;

	cr_assert_eq(exm_parse_rollup(buf, strlen(buf), &k), 0);
	cr_assert_eq(k.pss, 1000 * 1024);
	cr_assert_eq(k.pss_anon, 400 * 1024);
	cr_assert_eq(k.pss_file, 500 * 1024);
	cr_assert_eq(k.pss_shmem, 100 * 1024);
	cr_assert_eq(k.pss_dirty, 300 * 1024);
	cr_assert_eq(k.swap_pss, 32 * 1024); /* not Swap's 64 */
	cr_assert_eq(k.rss, 2000 * 1024);
	cr_assert_eq(k.has, EXM_KPSS_PSS | EXM_KPSS_PSS_ANON |
				    EXM_KPSS_PSS_FILE | EXM_KPSS_PSS_SHMEM |
				    EXM_KPSS_PSS_DIRTY | EXM_KPSS_SWAP_PSS |
				    EXM_KPSS_RSS);
}

Test(rollup, old_kernel_and_truncated)
{
	/* 4.x kernels have no Pss_* split; a truncated read loses the rest. */
	const char buf[] = "Rss: 8 kB\nPss: 4 kB\nSwapP";
	struct exm_kpss k;

	cr_assert_eq(exm_parse_rollup(buf, strlen(buf), &k), 0);
	cr_assert_eq(k.pss, 4096);
	cr_assert_eq(k.has, EXM_KPSS_PSS | EXM_KPSS_RSS);
}

Test(stat, hostile_comm)
{
	const char buf[] = "1234 (a) (b) c) S 77 1234 1234 0 -1 4194560 1 0 "
			   "0 0 3 4 0 0 20 0 1 0 98765 1000 10";
	char *comm;
	struct exm_stat st;

	cr_assert_eq(exm_parse_stat(buf, strlen(buf), &comm, &st), 0);
	cr_assert_str_eq(comm, "a) (b) c");
	cr_assert_eq(st.ppid, 77);
	cr_assert_eq(st.start_time, 98765);
	cr_assert_eq(st.flags, 4194560);
	cr_assert_eq(st.vsize, 1000);
	free(comm);
	/* without comm: the fields alone */
	cr_assert_eq(exm_parse_stat(buf, strlen(buf), NULL, &st), 0);
	cr_assert_eq(st.vsize, 1000);
	/* up to start time (22) is not enough: vsize (23) is read too */
	cr_assert_eq(exm_parse_stat(buf, strlen(buf) - 8, &comm, &st), -EINVAL);
	cr_assert_eq(exm_parse_stat("12 (x) S 1", 10, &comm, &st), -EINVAL);
	cr_assert_eq(exm_parse_stat("12 x S 1 2", 10, &comm, &st), -EINVAL);
}

/* A kept descriptor read again from its start, whole, however long its
 * text, and again after the text changed (a /proc file is generated at
 * each read from offset 0). */
Test(procfs, pread_file_whole_from_the_start)
{
	char path[] = "/tmp/exm-pread-XXXXXX", *buf;
	int fd = mkstemp(path);
	size_t len;
	static char text[10000];

	cr_assert_geq(fd, 0);
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + i % 26);
	cr_assert_eq(write(fd, text, sizeof(text)), (ssize_t)sizeof(text));
	cr_assert_eq(exm_pread_file(fd, &buf, &len), 0);
	cr_assert_eq(len, sizeof(text));
	cr_assert_eq(memcmp(buf, text, len), 0);
	cr_assert_eq(buf[len], '\0');
	free(buf);
	cr_assert_eq(ftruncate(fd, 5), 0);
	cr_assert_eq(exm_pread_file(fd, &buf, &len), 0);
	cr_assert_eq(len, 5);
	cr_assert_str_eq(buf, "abcde");
	free(buf);
	close(fd);
	unlink(path);
	cr_assert_eq(exm_pread_file(fd, &buf, &len), -EBADF);
}

/* statm's size, resident and shared pages; what does not parse, or says
 * more shared pages than resident ones, is -EINVAL; a missing file its
 * errno. The real file of this process parses. */
Test(procfs, statm)
{
	static const struct {
		const char *text;
		int ret;
		uint64_t size, res, shr;
	} cases[] = {
		{ "5000 1200 800 100 0 900 0\n", 0, 5000, 1200, 800 },
		{ "7 3 3 1 0 2 0", 0, 7, 3, 3 },
		{ "7 3 4 1 0 2 0\n", -EINVAL, 0, 0, 0 },
		{ "7 3\n", -EINVAL, 0, 0, 0 },
		{ "", -EINVAL, 0, 0, 0 },
	};
	char path[] = "/tmp/exm-statm-XXXXXX";
	struct exm_statm st;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = mkstemp(path);
		size_t n = strlen(cases[i].text);

		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, cases[i].text, n), (ssize_t)n);
		close(fd);
		memset(&st, 0, sizeof(st));
		cr_expect_eq(exm_read_statm(AT_FDCWD, path, &st), cases[i].ret,
			     "case %zu", i);
		cr_expect_eq(st.size, cases[i].size, "case %zu", i);
		cr_expect_eq(st.resident, cases[i].res, "case %zu", i);
		cr_expect_eq(st.shared, cases[i].shr, "case %zu", i);
		unlink(path);
		strcpy(path, "/tmp/exm-statm-XXXXXX");
	}
	cr_expect_eq(exm_read_statm(AT_FDCWD, "/nonexistent/statm", &st),
		     -ENOENT);
	cr_assert_eq(exm_read_statm(AT_FDCWD, "/proc/self/statm", &st), 0);
	cr_expect_gt(st.resident, 0);
	cr_expect_geq(st.size, st.resident);
}

/* The processes a live walk keeps descriptors of (procwalk.c): three
 * quarters of the soft limit, four descriptors each. */
Test(procwalk, kept_max)
{
	cr_expect_eq(exm_kept_max_of(0, false), 0);
	cr_expect_eq(exm_kept_max_of(255, false), 0);
	cr_expect_eq(exm_kept_max_of(256, false), 48);
	cr_expect_eq(exm_kept_max_of(1024, false), 192);
	cr_expect_eq(exm_kept_max_of(20000, false), 3750);
	cr_expect_eq(exm_kept_max_of(1048576, false), 196608);
	cr_expect_eq(exm_kept_max_of(0, true), 4096);
}

/* The soft limit raised to the hard one (the test's own: restored). */
Test(procwalk, raise_nofile)
{
	struct rlimit old, rl;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (old.rlim_max < 512 || old.rlim_max == RLIM_INFINITY)
		cr_skip_test("hard RLIMIT_NOFILE %llu",
			     (unsigned long long)old.rlim_max);
	rl = old;
	rl.rlim_cur = 256;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	exm_raise_nofile();
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	cr_expect_eq(rl.rlim_cur, old.rlim_max);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
}
