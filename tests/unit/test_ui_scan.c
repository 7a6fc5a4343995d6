// SPDX-License-Identifier: GPL-2.0-or-later
/* The snapshot worker thread of the live UI. */
#include <criterion/criterion.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "core/source.h"
#include "tui/screen/scan.h"

static struct exm_source *open_fixture(void)
{
	struct exm_source *src;
	char err[256];

	cr_assert_eq(exm_source_open("fixture:basic", &src, err, sizeof(err)),
		     0, "%s", err);
	return src;
}

static void check_scanner(bool threaded)
{
	struct exm_source *src = open_fixture();
	struct exm_scan_opts so = { 0 };
	struct tui_scanner *s;
	struct exm_snapshot *snap;
	struct pollfd pfd;
	char msg[64];
	int err = -1;

	cr_assert_eq(tui_scanner_start(&s, src, &so, threaded), 0);
	cr_assert_not(tui_scanner_busy(s));
	cr_assert_null(tui_scanner_take(s, &err, msg, sizeof(msg)));
	cr_assert_eq(err, 0);
	for (int round = 0; round < 3; round++) {
		tui_scanner_request(s);
		if (threaded)
			tui_scanner_request(s); /* no second scan if busy */
		pfd.fd = tui_scanner_fd(s);
		pfd.events = POLLIN;
		cr_assert_eq(poll(&pfd, 1, 5000), 1, "no snapshot came");
		snap = tui_scanner_take(s, &err, msg, sizeof(msg));
		cr_assert_not_null(snap);
		cr_assert_eq(err, 0);
		cr_assert_eq(snap->nprocs, 7);
		/* the worker frees what the UI is done with */
		tui_scanner_dispose(s, snap);
		/* a fast source may have started the second request */
		if (tui_scanner_busy(s)) {
			cr_assert_eq(poll(&pfd, 1, 5000), 1);
			snap = tui_scanner_take(s, &err, msg, sizeof(msg));
			cr_assert_not_null(snap);
			exm_snapshot_free(snap);
		}
		cr_assert_not(tui_scanner_busy(s));
		/* the pipe is drained: nothing more to read */
		cr_assert_eq(poll(&pfd, 1, 0), 0);
	}
	cr_assert(tui_scanner_stop(s)); /* closes the source */
}

Test(ui_scan, threaded)
{
	check_scanner(true);
}

Test(ui_scan, synchronous)
{
	check_scanner(false);
}

Test(ui_scan, stop_during_a_scan_does_not_wait)
{
	struct exm_source *src;
	struct exm_scan_opts so = { 0 };
	struct exm_snapshot *snap;
	struct tui_scanner *s;
	struct timespec t0, t1;
	struct pollfd pfd;
	char err[256], msg[64];
	double waited;
	int e = -1;

	/* fixture:slow: every snapshot after the first takes 3 s */
	cr_assert_eq(exm_source_open("fixture:slow", &src, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(tui_scanner_start(&s, src, &so, true), 0);
	tui_scanner_request(s);
	pfd.fd = tui_scanner_fd(s);
	pfd.events = POLLIN;
	cr_assert_eq(poll(&pfd, 1, 5000), 1, "no first snapshot came");
	snap = tui_scanner_take(s, &e, msg, sizeof(msg));
	cr_assert_not_null(snap);
	exm_snapshot_free(snap);
	tui_scanner_request(s); /* the slow one */
	cr_assert(tui_scanner_busy(s));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_not(tui_scanner_stop(s), "stop found the worker idle");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_lt(waited, 1.0, "stop waited %.3f s for a 3 s scan", waited);
	/* the worker ends its scan and releases everything itself (the
	 * sanitizer build checks that nothing leaks) */
	usleep(3500 * 1000);
}
