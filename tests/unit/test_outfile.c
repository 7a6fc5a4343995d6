// SPDX-License-Identifier: GPL-2.0-or-later
/* test_outfile.c - the one writer of --output and the settings file
 * (core/outfile.c): what is at the path decides how it is written. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/outfile.h"

static char dir[64];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof(dir), "/tmp/exm-outfile-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static char *in_dir(const char *name)
{
	static char p[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* The number of entries in dir (to see that no temporary file is left). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s opens", path);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* One document of text through the writer: exm_outfile_end's result. */
static int write_doc(const char *path, const char *text)
{
	struct exm_outfile of;
	FILE *f;
	int r;

	exm_outfile_init(&of, path, 0644);
	f = exm_outfile_begin(&of);
	if (!f)
		return -of.err;
	fputs(text, f);
	r = exm_outfile_end(&of, true);
	exm_outfile_fini(&of);
	return r;
}

static void rm_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(outfile, new_path_and_regular_file_replaced_whole)
{
	char buf[64];
	struct stat st;

	mkdir_tmp();
	cr_assert_eq(write_doc(in_dir("a"), "one\n"), 0);
	slurp(in_dir("a"), buf, sizeof(buf));
	cr_assert_str_eq(buf, "one\n");
	cr_assert_eq(stat(in_dir("a"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	/* an existing file keeps its mode */
	cr_assert_eq(chmod(in_dir("a"), 0600), 0);
	cr_assert_eq(write_doc(in_dir("a"), "two\n"), 0);
	slurp(in_dir("a"), buf, sizeof(buf));
	cr_assert_str_eq(buf, "two\n");
	cr_assert_eq(stat(in_dir("a"), &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(entries(), 1, "no temporary file left");
	rm_dir();
}

Test(outfile, symlink_stays_and_its_target_is_written)
{
	char buf[64], link[64];
	struct stat st;
	ssize_t n;

	mkdir_tmp();
	cr_assert_eq(mkdir(in_dir("sub"), 0755), 0);
	put(in_dir("sub/t"), "old\n");
	cr_assert_eq(symlink("sub/t", in_dir("l1")), 0);
	cr_assert_eq(symlink("l1", in_dir("l2")), 0); /* a chain */
	cr_assert_eq(write_doc(in_dir("l2"), "new\n"), 0);
	cr_assert_eq(lstat(in_dir("l2"), &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_eq(lstat(in_dir("l1"), &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	n = readlink(in_dir("l1"), link, sizeof(link) - 1);
	cr_assert_eq(n, 5);
	slurp(in_dir("sub/t"), buf, sizeof(buf));
	cr_assert_str_eq(buf, "new\n");
	/* a dangling link: the file it names is made */
	cr_assert_eq(symlink("sub/made", in_dir("d")), 0);
	cr_assert_eq(write_doc(in_dir("d"), "made\n"), 0);
	cr_assert_eq(lstat(in_dir("d"), &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	slurp(in_dir("sub/made"), buf, sizeof(buf));
	cr_assert_str_eq(buf, "made\n");
	/* a loop is refused, and nothing is made */
	cr_assert_eq(symlink("loop", in_dir("loop")), 0);
	cr_assert_eq(write_doc(in_dir("loop"), "x\n"), -ELOOP);
	cr_assert_eq(entries(), 5);
	rm_dir();
}

Test(outfile, character_device_stays_a_device)
{
	struct stat before, after;

	cr_assert_eq(stat("/dev/null", &before), 0);
	cr_assert_eq(write_doc("/dev/null", "into the void\n"), 0);
	cr_assert_eq(lstat("/dev/null", &after), 0);
	cr_assert(S_ISCHR(after.st_mode));
	cr_assert_eq(after.st_rdev, before.st_rdev);
	cr_assert_eq(after.st_ino, before.st_ino);
	/* a device's write error is said */
	cr_assert_eq(write_doc("/dev/full", "no room\n"), -ENOSPC);
}

Test(outfile, fifo_reader_gets_every_document)
{
	struct exm_outfile of;
	char buf[64];
	int p[2], st;
	pid_t pid;
	ssize_t n, got = 0;
	int fd;

	mkdir_tmp();
	cr_assert_eq(mkfifo(in_dir("f"), 0600), 0);
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (!pid) { /* the reader: what it reads, back through the pipe */
		fd = open(in_dir("f"), O_RDONLY);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(p[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	exm_outfile_init(&of, in_dir("f"), 0644);
	for (int i = 0; i < 2; i++) {
		FILE *f = exm_outfile_begin(&of);

		cr_assert_not_null(f, "%s", of.errmsg);
		fprintf(f, "doc %d\n", i);
		cr_assert_eq(exm_outfile_end(&of, true), 0);
	}
	exm_outfile_fini(&of);
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st));
	cr_assert_str_eq(buf, "doc 0\ndoc 1\n");
	{
		struct stat s;

		cr_assert_eq(lstat(in_dir("f"), &s), 0);
		cr_assert(S_ISFIFO(s.st_mode), "the FIFO stays a FIFO");
	}
	rm_dir();
}

Test(outfile, directory_refused)
{
	mkdir_tmp();
	cr_assert_eq(write_doc(dir, "x\n"), -EISDIR);
	cr_assert_eq(entries(), 0);
	rm_dir();
}

/* A path in a directory that does not exist: -ENOENT, nothing made. */
Test(outfile, missing_directory_refused)
{
	mkdir_tmp();
	cr_assert_eq(write_doc(in_dir("no/such.prom"), "x\n"), -ENOENT);
	cr_assert_eq(entries(), 0);
	rm_dir();
}

/* A write that fails (the file size limit, as a full disk would) leaves a
 * file exmtop did not make as it was, and no temporary file. */
Test(outfile, failed_write_leaves_the_file_as_it_was)
{
	struct exm_outfile of;
	char buf[64];
	int st;
	pid_t pid;

	mkdir_tmp();
	put(in_dir("keep"), "precious\n");
	pid = fork();
	cr_assert_neq(pid, -1);
	if (!pid) {
		struct rlimit rl = { 100, 100 };
		FILE *f;
		int r;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(10);
		exm_outfile_init(&of, in_dir("keep"), 0644);
		f = exm_outfile_begin(&of);
		if (!f)
			_exit(11);
		for (int i = 0; i < 1000; i++)
			fputs("0123456789", f);
		r = exm_outfile_end(&of, true);
		exm_outfile_fini(&of);
		_exit(r == -EFBIG ? 0 : 12);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 0, "the write failed with EFBIG");
	slurp(in_dir("keep"), buf, sizeof(buf));
	cr_assert_str_eq(buf, "precious\n");
	/* a document dropped (ok false) leaves it too */
	exm_outfile_init(&of, in_dir("keep"), 0644);
	cr_assert_not_null(exm_outfile_begin(&of));
	fputs("half", of.f);
	cr_assert_eq(exm_outfile_end(&of, false), 0);
	exm_outfile_fini(&of);
	slurp(in_dir("keep"), buf, sizeof(buf));
	cr_assert_str_eq(buf, "precious\n");
	cr_assert_eq(entries(), 1, "no temporary file left");
	rm_dir();
}
