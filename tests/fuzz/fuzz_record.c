// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_record.c - libFuzzer target for the recording reader: each input is
 * opened as a recording (from memory), every snapshot it holds (at most
 * eight) is played into the in-memory builder and accounted, and its
 * system view built from its recorded /proc/meminfo. Besides the
 * sanitizers, invariants: a snapshot the reader accepts accounts without
 * error and its system view is made or refused in one line, with rows that
 * add up to MemTotal; a refused snapshot says why in one line.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer; built without
 * libFuzzer as tests/fuzz/replay_record to replay tests/fuzz/corpus_record
 * in make check.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/builder.h"
#include "core/format.h"
#include "core/record.h"
#include "core/sysview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sysview(const struct exm_snapshot *s)
{
	struct exm_sysview v;
	char err[256] = "";
	int64_t sum = 0;

	if (exm_sysview_build(s, &v, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return;
	}
	for (size_t k = 0; k < v.nrows; k++)
		sum += v.rows[k].bytes;
	if ((uint64_t)sum != v.mem_total || v.mem_total != s->sys.mem_total)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exm_recording *rec;
	char err[512];
	size_t n;

	if (exm_recording_open_mem(data, size, &rec, err, sizeof(err))) {
		char esc[4 * sizeof(err)];

		/* one line, already safe for a terminal: escaping changes
		 * nothing */
		if (!err[0] ||
		    strcmp(exm_escape_line(esc, sizeof(esc), err), err))
			abort();
		return 0;
	}
	/* a few MiB of page words and share counts at most */
	exm_recording_set_limits(rec, UINT64_C(1) << 18, 64);
	n = exm_recording_count(rec);
	for (size_t i = 0; i < n && i < 8; i++) {
		struct exm_snapshot *s = exm_snapshot_new();
		struct exm_builder b;
		int ret;

		if (!s)
			break;
		exm_builder_init(&b, s);
		ret = exm_recording_load(rec, i, &exm_builder_sink, &b);
		if (!ret && exm_snapshot_account(s))
			abort();
		if (!ret)
			check_sysview(s);
		if (ret && ret != -ENOMEM) {
			const char *m = exm_recording_errmsg(rec);

			if (!m[0] || strchr(m, '\n'))
				abort();
		}
		exm_snapshot_free(s);
	}
	exm_recording_close(rec);
	return 0;
}
