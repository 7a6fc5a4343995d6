// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * excl.c - what the exclusive figures of group rows cost beside a
 * snapshot's: takes N snapshots of every process (default source, cgroups
 * read) and times, for each, the snapshot (fill + accounting, which gives
 * every process's own figures) and exm_table_groups() per program, user
 * and cgroup (their sums plus one exm_exclusive() pass each over the
 * members' page words).
 *
 *   bench/exmexcl N
 *
 * Prints one line a snapshot: "snapshot SECONDS groups SECONDS words N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/group.h"
#include "core/source.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const enum exm_group_by bys[] = {
		EXM_GROUP_PROGRAM, EXM_GROUP_USER, EXM_GROUP_CGROUP
	};
	struct exm_scan_opts o = { .want_cgroup = true };
	struct exm_source *src;
	char err[512];
	int n;

	if (argc != 2 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: exmexcl N\n");
		return 2;
	}
	if (exm_source_open("auto", &src, err, sizeof(err))) {
		fprintf(stderr, "exmexcl: %s\n", err);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct exm_snapshot *s;
		uint64_t words = 0;
		double t0 = now(), t1, t2;

		if (exm_source_snapshot(src, &o, &s)) {
			fprintf(stderr, "exmexcl: snapshot: %s\n", src->errmsg);
			return 1;
		}
		t1 = now();
		for (size_t g = 0; g < 3; g++) {
			size_t nr;
			struct exm_row *rows = exm_table_groups(s, bys[g], NULL,
								&nr);

			if (!rows) {
				fprintf(stderr, "exmexcl: out of memory\n");
				return 1;
			}
			free(rows);
		}
		t2 = now();
		for (size_t k = 0; k < s->nprocs; k++)
			for (size_t m = 0; m < s->procs[k].nmaps; m++)
				words += s->procs[k].maps[m].npages;
		printf("snapshot %.6f groups %.6f words %llu\n", t1 - t0,
		       t2 - t1, (unsigned long long)words);
		exm_snapshot_free(s);
	}
	exm_source_close(src);
	return 0;
}
