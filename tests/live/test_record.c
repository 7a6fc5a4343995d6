// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_record - recording, replay and diff against live processes (root:
 * page frame numbers; SKIP, 77, otherwise). Linked against the core
 * library; the workloads (tests/live/sharer.c, tests/live/grower.c) are
 * compiled here with plain flags, never with a sanitizer build's (see
 * exmlive.sharer_path).
 *
 *   round trip  a pagemap snapshot of the sharer's four processes (known
 *               sharing) is recorded, replayed, and every size of every
 *               process, mapping, process file and file equals the live
 *               snapshot's; the memfd the four share costs exactly its 11
 *               pages; libc's build-id is recorded.
 *   build-ids   a process maps ELF files of each class and byte order
 *               (tests/unit/elfgen.h: a lone build-id note): each file's
 *               build-id is recorded and replayed byte for byte.
 *   kill -9     a recorder taking snapshots in a loop is killed with
 *               SIGKILL: the file opens and holds every completed snapshot
 *               (and at most the one being committed), each readable.
 *   diff        between two snapshots a process maps and writes 256 pages:
 *               its growth is exactly 1 MiB in every size it holds; a
 *               process started in between is new, one ended is gone.
 *
 * Exit status: 0 pass, 1 fail, 77 skip, 99 hard error (automake).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/account.h"
#include "core/diff.h"
#include "core/record.h"
#include "core/source.h"
#include "core/source_replay.h"
#include "tests/unit/elfgen.h"
#include "tests/unit/snapcmp.h"

static int failures;
static char tmpdir[] = "/tmp/exm_live_rec.XXXXXX";

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			failures++;                                          \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
		}                                                            \
	} while (0)

static void hard_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ERROR: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(99);
}

/* Compile tests/live/NAME.c with plain flags into the build tree. */
static void build_plain(const char *name, char *out, size_t len)
{
	char cmd[2048];

	snprintf(out, len, "tests/live/%s-plain", name);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p tests/live && ${CC:-cc} -O2 -D_GNU_SOURCE -Wall "
		 "-Wextra -Werror -o %s.%d '%s/tests/live/%s.c' && mv %s.%d %s",
		 out, (int)getpid(), EXM_SRCDIR, name, out, (int)getpid(), out);
	if (system(cmd))
		hard_error("cannot build %s", name);
}

/* A child running argv with pipes to its stdin and from its stdout. */
struct child {
	pid_t pid;
	int to, from;
};

static void spawn(struct child *c, char *const argv[])
{
	int in[2], out[2];

	if (pipe(in) || pipe(out))
		hard_error("pipe: %s", strerror(errno));
	c->pid = fork();
	if (c->pid < 0)
		hard_error("fork: %s", strerror(errno));
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to = in[1];
	c->from = out[0];
}

/* Read one line from the child (unbuffered); false at EOF. */
static bool read_line(struct child *c, char *buf, size_t len)
{
	size_t n = 0;
	char ch;

	while (n + 1 < len && read(c->from, &ch, 1) == 1) {
		if (ch == '\n') {
			buf[n] = '\0';
			return true;
		}
		buf[n++] = ch;
	}
	buf[n] = '\0';
	return n > 0;
}

static void stop(struct child *c, int sig)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, sig);
	waitpid(c->pid, NULL, 0);
	close(c->to);
	close(c->from);
	c->pid = 0;
}

/* The sharer: its four pids. */
static void start_sharer(struct child *c, pid_t pids[4])
{
	static char path[256];
	char line[512];
	char *argv[] = { path, tmpdir, NULL };

	build_plain("sharer", path, sizeof(path));
	spawn(c, argv);
	while (read_line(c, line, sizeof(line))) {
		int a, b, d, e;

		if (sscanf(line, "pids %d %d %d %d", &a, &b, &d, &e) == 4) {
			pids[0] = a;
			pids[1] = b;
			pids[2] = d;
			pids[3] = e;
		}
		if (!strcmp(line, "ready"))
			return;
	}
	hard_error("the sharer exited before it was ready");
}

static struct exm_snapshot *take(struct exm_source *src, const pid_t *pids,
				 size_t n)
{
	/* recorded: where every page lies is wanted (a recorder scans with
	 * want_places; else the pagemap source may count a big mapping's
	 * pages mapped once, which a recording cannot hold) */
	struct exm_scan_opts o = { .pids = pids,
				   .npids = n,
				   .want_kpss = true,
				   .want_cmdline = true,
				   .want_places = true };
	struct exm_snapshot *s;
	int ret = exm_source_snapshot(src, &o, &s);

	if (ret)
		hard_error("snapshot: %s",
			   src->errmsg[0] ? src->errmsg : strerror(-ret));
	return s;
}

static struct exm_source *open_source(const char *name)
{
	struct exm_source *src;
	char err[512];

	if (exm_source_open(name, &src, err, sizeof(err)))
		hard_error("%s: %s", name, err);
	return src;
}

static void round_trip(struct exm_source *pm, const pid_t pids[4])
{
	struct exm_snapshot *live = take(pm, pids, 4), *back;
	char path[300], name[320], err[512], why[512];
	const struct exm_file *memfd = NULL;
	struct exm_recorder *r;
	struct exm_source *rp;
	bool libc_id = false;
	pid_t sorted[4];

	snprintf(path, sizeof(path), "%s/round.exmrec", tmpdir);
	if (exm_record_open(path, &r, err, sizeof(err)))
		hard_error("%s", err);
	CHECK(!exm_record_snapshot(r, live), "record: %s",
	      exm_record_errmsg(r));
	exm_record_close(r);

	snprintf(name, sizeof(name), "replay:%s", path);
	rp = open_source(name);
	back = take(rp, NULL, 0);
	CHECK(!snapcmp(live, back, why, sizeof(why)), "replay differs: %s",
	      why);
	CHECK(live->nprocs == 4, "%zu processes, not the sharer's 4",
	      live->nprocs);
	memcpy(sorted, pids, sizeof(sorted));
	for (size_t i = 0; i < back->nprocs && i < 4; i++)
		CHECK(exm_snapshot_find_pid(back, sorted[i]), "pid %d missing",
		      (int)sorted[i]);
	for (size_t i = 0; i < back->nfiles; i++) {
		const struct exm_file *f = back->files[i];

		if (strstr(f->name, "memfd:"))
			memfd = f;
		if (strstr(f->name, "/libc.so") && f->build_id_len == 20)
			libc_id = true;
	}
	CHECK(memfd, "no memfd file in the replay");
	if (memfd)
		CHECK(memfd->sz.erss == 11.0 * back->sys.page_size &&
			      memfd->sz.rss == 5 * 11 * back->sys.page_size,
		      "memfd: erss %.3f rss %llu, want 11 and 55 pages",
		      memfd->sz.erss, (unsigned long long)memfd->sz.rss);
	CHECK(libc_id, "libc's build-id was not recorded");
	exm_snapshot_free(back);
	exm_snapshot_free(live);
	exm_source_close(rp);
}

/* A child maps one ELF file of each class and byte order (with the
 * build-id first + 16 * v + i, i = 0..19, for variant v) and waits; its
 * recorded snapshot holds each file's build-id. */
static void build_ids(struct exm_source *pm)
{
	char path[8][300], rpath[300], name[320], err[512], ch;
	struct exm_snapshot *live, *back;
	struct exm_recorder *r;
	struct exm_source *rp;
	int pfd[2], found = 0;
	pid_t child;

	for (int v = 0; v < 8; v++) {
		size_t len;
		unsigned char *img = eg_build_id_image(v & 1, v & 2, v & 4,
						       (unsigned char)(0x40 +
								       16 * v),
						       &len);
		int fd;

		snprintf(path[v], sizeof(path[v]), "%s/elf%d.so", tmpdir, v);
		fd = open(path[v], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (!img || fd < 0 || write(fd, img, len) != (ssize_t)len)
			hard_error("%s: %s", path[v], strerror(errno));
		close(fd);
		free(img);
	}
	if (pipe(pfd))
		hard_error("pipe");
	child = fork();
	if (child < 0)
		hard_error("fork");
	if (!child) {
		close(pfd[0]);
		for (int v = 0; v < 8; v++) {
			int fd = open(path[v], O_RDONLY);

			if (fd < 0 || mmap(NULL, 4096, PROT_READ, MAP_PRIVATE,
					   fd, 0) == MAP_FAILED)
				_exit(3);
			close(fd);
		}
		if (write(pfd[1], "m", 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &ch, 1) != 1)
		hard_error("the mapping child failed");
	live = take(pm, &child, 1);
	snprintf(rpath, sizeof(rpath), "%s/build-ids.exmrec", tmpdir);
	if (exm_record_open(rpath, &r, err, sizeof(err)))
		hard_error("%s", err);
	CHECK(!exm_record_snapshot(r, live), "record: %s",
	      exm_record_errmsg(r));
	exm_record_close(r);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pfd[0]);

	snprintf(name, sizeof(name), "replay:%s", rpath);
	rp = open_source(name);
	back = take(rp, NULL, 0);
	for (int v = 0; v < 8; v++) {
		const struct exm_file *f = exm_snapshot_find_file(back,
								  path[v]);
		bool same = f && f->build_id_len == 20;

		for (unsigned i = 0; same && i < 20; i++)
			same = f->build_id[i] ==
			       (unsigned char)(0x40 + 16 * v + i);
		CHECK(same, "%s (%s, %s-endian, in a %s): build-id %s", path[v],
		      v & 1 ? "ELF64" : "ELF32", v & 2 ? "big" : "little",
		      v & 4 ? "section" : "segment",
		      !f ? "file not in the replay"
			 : "not recorded as written");
		found += same;
	}
	CHECK(found == 8, "%d of 8 build-ids recorded", found);
	exm_snapshot_free(back);
	exm_snapshot_free(live);
	exm_source_close(rp);
}

static void kill_recorder(const pid_t pids[4])
{
	char path[300], err[512];
	struct exm_recording *rec;
	unsigned done = 0;
	struct timespec ts;
	int pfd[2];
	pid_t child;
	char ch;

	snprintf(path, sizeof(path), "%s/killed.exmrec", tmpdir);
	if (pipe(pfd))
		hard_error("pipe");
	child = fork();
	if (child < 0)
		hard_error("fork");
	if (!child) { /* the recorder: snapshots until killed */
		struct exm_source *pm = open_source("pagemap");
		struct exm_recorder *r;

		close(pfd[0]);
		if (exm_record_open(path, &r, err, sizeof(err)))
			_exit(3);
		for (;;) {
			struct exm_snapshot *s = take(pm, pids, 4);

			if (exm_record_snapshot(r, s))
				_exit(4);
			exm_snapshot_free(s);
			if (write(pfd[1], "x", 1) != 1)
				_exit(5);
		}
	}
	close(pfd[1]);
	while (done < 3 && read(pfd[0], &ch, 1) == 1)
		done++;
	/* somewhere in the next snapshot */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec = 0;
	ts.tv_nsec = ts.tv_nsec % 3000000;
	nanosleep(&ts, NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	while (read(pfd[0], &ch, 1) == 1) /* reported before the kill */
		done++;
	close(pfd[0]);
	CHECK(done >= 3, "the recorder completed only %u snapshots", done);
	if (exm_recording_open(path, &rec, err, sizeof(err))) {
		CHECK(0, "killed recording does not open: %s", err);
		return;
	}
	CHECK(exm_recording_count(rec) == done ||
		      exm_recording_count(rec) == done + 1,
	      "%zu snapshots in the file, %u completed",
	      exm_recording_count(rec), done);
	for (size_t i = 0; i < exm_recording_count(rec); i++) {
		struct exm_snapshot *s = exm_snapshot_new();
		struct exm_builder b;

		exm_builder_init(&b, s);
		CHECK(!exm_recording_load(rec, i, &exm_builder_sink, &b) &&
			      !exm_snapshot_account(s) && s->nprocs == 4,
		      "snapshot %zu: %s", i, exm_recording_errmsg(rec));
		exm_snapshot_free(s);
	}
	exm_recording_close(rec);
}

static void start_sleeper(struct child *c)
{
	/* static: it shares no file pages with the grower */
	char *argv[] = { "/bin/busybox", "sleep", "1000", NULL };

	spawn(c, argv);
}

static void grow_diff(struct exm_source *pm)
{
	static char path[256];
	char *argv[] = { path, NULL };
	struct child g, x, y;
	struct exm_snapshot *a, *b;
	const struct exm_diff_row *r;
	struct exm_diff *d;
	pid_t pids[2], gone;
	char line[64];
	uint64_t mib = 1u << 20;

	build_plain("grower", path, sizeof(path));
	spawn(&g, argv);
	if (!read_line(&g, line, sizeof(line)) || strcmp(line, "ready"))
		hard_error("the grower did not start");
	start_sleeper(&x);
	usleep(100000);
	pids[0] = g.pid;
	pids[1] = x.pid;
	a = take(pm, pids, 2);

	/* 256 pages of 4 KiB: 1 MiB; another page size: scaled */
	snprintf(line, sizeof(line), "%llu\n",
		 (unsigned long long)(mib / a->sys.page_size));
	if (write(g.to, line, strlen(line)) != (ssize_t)strlen(line) ||
	    !read_line(&g, line, sizeof(line)) || strcmp(line, "grown"))
		hard_error("the grower did not grow");
	gone = x.pid;
	stop(&x, SIGKILL);
	start_sleeper(&y);
	usleep(100000);
	pids[1] = y.pid;
	b = take(pm, pids, 2);

	if (exm_diff_new(a, b, &d))
		hard_error("diff");
	r = exm_diff_find_pid(d, g.pid);
	CHECK(r && r->change == EXM_DIFF_SAME, "grower not in both");
	if (r) {
		double vm = 0, rss = 0, erss = 0, sole = 0, wr = 0, sw = 1,
		       esw = 1;
		bool all =
			exm_row_growth(EXM_F_VM, EXM_T_PROCS, &r->row, &vm) &&
			exm_row_growth(EXM_F_RSS, EXM_T_PROCS, &r->row, &rss) &&
			exm_row_growth(EXM_F_ERSS, EXM_T_PROCS, &r->row,
				       &erss) &&
			exm_row_growth(EXM_F_SOLE, EXM_T_PROCS, &r->row,
				       &sole) &&
			exm_row_growth(EXM_F_WRITABLE, EXM_T_PROCS, &r->row,
				       &wr) &&
			exm_row_growth(EXM_F_SWAP, EXM_T_PROCS, &r->row, &sw) &&
			exm_row_growth(EXM_F_ESWAP, EXM_T_PROCS, &r->row, &esw);

		CHECK(all, "a size not measured on both sides (has %x, %x)",
		      r->row.prev.has, r->row.sz.has);
		CHECK(vm == (double)mib, "vm grew %.0f", vm);
		CHECK(rss == (double)mib, "rss grew %.0f", rss);
		CHECK(erss == (double)mib, "erss grew %.6f", erss);
		CHECK(sole == (double)mib, "sole grew %.0f", sole);
		CHECK(wr == (double)mib, "writable grew %.0f", wr);
		CHECK(sw == 0 && esw == 0.0, "swap changed");
		CHECK((r->row.sz.has & r->row.prev.has & EXM_HAS_ALL) ==
			      EXM_HAS_ALL,
		      "has %x", r->row.sz.has & r->row.prev.has);
	}
	r = exm_diff_find_pid(d, y.pid);
	CHECK(r && r->change == EXM_DIFF_NEW && !r->proc_a,
	      "the process started in between is not new");
	r = exm_diff_find_pid(d, gone);
	CHECK(r && r->change == EXM_DIFF_GONE && !r->proc_b,
	      "the process ended in between is not gone");
	CHECK(d->nnew == 1 && d->ngone == 1, "new %zu gone %zu", d->nnew,
	      d->ngone);
	CHECK(d->nprocs == 3, "%zu process rows", d->nprocs);
	exm_diff_free(d);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
	stop(&y, SIGKILL);
	stop(&g, SIGKILL);
}

static void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

int main(void)
{
	struct exm_source *pm;
	struct child sharer = { 0 };
	pid_t pids[4] = { 0 };

	if (!exm_pagemap_has_pfns()) {
		fprintf(stderr, "SKIP: needs root (page frame numbers)\n");
		return 77;
	}
	if (access("/bin/busybox", X_OK))
		hard_error("/bin/busybox (busybox-static) is needed");
	if (!mkdtemp(tmpdir))
		hard_error("mkdtemp: %s", strerror(errno));
	pm = open_source("pagemap");
	start_sharer(&sharer, pids);
	round_trip(pm, pids);
	build_ids(pm);
	kill_recorder(pids);
	stop(&sharer, SIGTERM);
	grow_diff(pm);
	exm_source_close(pm);
	cleanup();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	else
		printf("test_record: all checks passed\n");
	return failures ? 1 : 0;
}
