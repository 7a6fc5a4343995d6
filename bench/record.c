// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record.c - bench/record.sh's recorder: takes N snapshots of every
 * process with the default source and appends each to a recording,
 * timing the snapshot (fill + accounting) and the recording apart.
 *
 *   bench/exmrecord FILE N
 *
 * Prints one line a snapshot: "snapshot SECONDS record SECONDS".
 * (exmtop --record does the same; this one times the two apart.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/record.h"
#include "core/source.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct exm_scan_opts o = { .want_kpss = true, .want_cmdline = true,
				   .want_swapcache = true };
	struct exm_source *src;
	struct exm_recorder *r;
	char err[512];
	int n;

	if (argc != 3 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: exmrecord FILE N\n");
		return 2;
	}
	if (exm_source_open("auto", &src, err, sizeof(err)) ||
	    exm_record_open(argv[1], &r, err, sizeof(err))) {
		fprintf(stderr, "exmrecord: %s\n", err);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct exm_snapshot *s;
		double t0 = now(), t1, t2;

		if (exm_source_snapshot(src, &o, &s)) {
			fprintf(stderr, "exmrecord: snapshot: %s\n", src->errmsg);
			return 1;
		}
		t1 = now();
		if (exm_record_snapshot(r, s)) {
			fprintf(stderr, "exmrecord: %s\n", exm_record_errmsg(r));
			return 1;
		}
		t2 = now();
		printf("snapshot %.6f record %.6f\n", t1 - t0, t2 - t1);
		exm_snapshot_free(s);
	}
	exm_record_close(r);
	exm_source_close(src);
	return 0;
}
