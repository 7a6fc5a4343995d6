// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A recording keeps every page word: a hand-built snapshot with two swap
 * devices (entries of type 0 and 1 at the same offsets, shared by two
 * processes), consecutive frames with different flags and runs of swap
 * slots, recorded and replayed, compared page word by page word (not only
 * by sizes: two swap devices' entries merged on replay, or a flag lost,
 * can leave the sizes of a small fixture as they were).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/account.h"
#include "core/pagemap.h"
#include "core/record.h"
#include "core/source.h"
#include "core/source_replay.h"
#include "tests/unit/anagen.h"
#include "tests/unit/snapcmp.h"

#define SWAPW(type, off) (EXM_PM_SWAPPED | ((uint64_t)(off) << 5) | (type))

static struct exm_snapshot *two_swap_devices(void)
{
	struct exm_snapshot *s = ag_snap();

	snprintf(s->sys.source, sizeof(s->sys.source), "fixture");
	s->sys.taken_at.tv_sec = 1700000000;
	for (int i = 0; i < 2; i++) {
		struct exm_proc *p = ag_proc(s, 40 + i);
		struct exm_mapping *m;

		p->start_time = 1000 + (uint64_t)i;
		m = ag_map(p, 0x100000, 8, RW, "", 0, 0, EXM_KIND_ANON);
		/* slot 9 of device 0 and slot 9 of device 1: two entries */
		ag_page(m, 0, SWAPW(0, 9));
		ag_page(m, 1, SWAPW(1, 9));
		/* a run of slots on device 1 */
		ag_page(m, 2, SWAPW(1, 20));
		ag_page(m, 3, SWAPW(1, 21));
		/* consecutive frames, the flags changing in the middle */
		ag_page(m, 4, PG(300 + 10 * i, EXM_PM_EXCLUSIVE));
		ag_page(m, 5,
			PG(301 + 10 * i, EXM_PM_EXCLUSIVE | EXM_PM_SOFT_DIRTY));
		ag_page(m, 6, PG(302 + 10 * i, 0));
		m = ag_map(p, 0x200000, 2, RX, "/usr/lib/libw.so", 77, 0,
			   EXM_KIND_FILE);
		ag_page(m, 0, PG(500, EXM_PM_FILE));
		ag_page(m, 1, PG(501, EXM_PM_FILE));
	}
	ag_account(s);
	/* 0/9, 1/9, 1/20, 1/21: shared by both processes */
	cr_assert_eq(s->distinct_swap, 4);
	cr_assert_eq(s->distinct_pages, 2 * 3 + 2);
	return s;
}

/* 0 when every mapping of a and b has the same used pages at the same
 * addresses with the same words; else 1 with the first difference. */
static int words_cmp(const struct exm_snapshot *a, const struct exm_snapshot *b,
		     char *why, size_t len)
{
	for (size_t i = 0; i < a->nprocs && i < b->nprocs; i++) {
		const struct exm_proc *p = &a->procs[i], *q = &b->procs[i];

		for (size_t j = 0; j < p->nmaps && j < q->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j],
						 *n = &q->maps[j];
			uint32_t rm = 0, rn = 0, km = 0, kn = 0;

			/* walk both run lists page by page */
			while (rm < m->nruns || rn < n->nruns) {
				uint64_t vm, vn, wm, wn;

				if (rm == m->nruns || rn == n->nruns) {
					snprintf(why, len,
						 "pid %d map %zu: "
						 "pages %s only",
						 (int)p->pid, j,
						 rm == m->nruns ? "replayed"
								: "taken");
					return 1;
				}
				vm = m->runs[rm].vpn + km;
				vn = n->runs[rn].vpn + kn;
				wm = exm_mapping_word(m, m->runs[rm].idx + km);
				wn = exm_mapping_word(n, n->runs[rn].idx + kn);
				if (vm != vn || wm != wn) {
					snprintf(why, len,
						 "pid %d map %zu: page "
						 "%#llx word %#llx, replayed "
						 "%#llx word %#llx",
						 (int)p->pid, j,
						 (unsigned long long)vm,
						 (unsigned long long)wm,
						 (unsigned long long)vn,
						 (unsigned long long)wn);
					return 1;
				}
				if (++km == m->runs[rm].count) {
					rm++;
					km = 0;
				}
				if (++kn == n->runs[rn].count) {
					rn++;
					kn = 0;
				}
			}
		}
	}
	return 0;
}

Test(record_words, two_swap_devices_round_trip_word_by_word)
{
	char dir[] = "/tmp/exm_recw.XXXXXX", path[128], name[160], err[512],
	     why[512];
	struct exm_snapshot *a = two_swap_devices(), *b = NULL;
	struct exm_scan_opts o = { 0 };
	struct exm_recorder *r;
	struct exm_source *src;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/w.exmrec", dir);
	cr_assert_eq(exm_record_open(path, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exm_record_snapshot(r, a), 0, "%s", exm_record_errmsg(r));
	exm_record_close(r);

	snprintf(name, sizeof(name), "replay:%s", path);
	cr_assert_eq(exm_source_open(name, &src, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(exm_source_snapshot(src, &o, &b), 0, "%s", src->errmsg);
	cr_assert_eq(b->distinct_swap, 4, "swap entries replayed: %llu",
		     (unsigned long long)b->distinct_swap);
	cr_assert_eq(words_cmp(a, b, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(snapcmp(a, b, why, sizeof(why)), 0, "%s", why);
	for (size_t i = 0; i < 2; i++) {
		/* each process: 4 swap entries, each shared by 2 */
		cr_assert_eq(b->procs[i].sz.swap, 4 * PS);
		cr_assert_float_eq(b->procs[i].sz.eswap, 2.0 * PS, 1e-9);
	}
	exm_snapshot_free(a);
	exm_snapshot_free(b);
	exm_source_close(src);
	unlink(path);
	snprintf(name, sizeof(name), "%s-wal", path);
	unlink(name);
	snprintf(name, sizeof(name), "%s-shm", path);
	unlink(name);
	rmdir(dir);
}
