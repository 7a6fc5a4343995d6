// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_reuse.c - core/reuse.c on hand-made walks: a process whose key is
 * unchanged keeps its words and is not walked; one whose key moved is;
 * a kept process mapping a frame whose count went to or from one (its
 * exclusive bit) is walked again in a second pass; a moved counter of
 * the system (a fake /proc/vmstat) makes a full walk; the scheduled walk
 * comes when due; the check compares with a full walk (it walks every
 * process again: the tests counting walks run without it); a kept
 * process keeps its kernel Pss from mapping counts until a count of its
 * frames moves, then has it again from the source without a walk; a
 * kept process that counted pages rather than keep their words is walked
 * again when a walked one shares a page with a mapper no word shows; a
 * refresh in which no word moved keeps the share tables of the last; a
 * denied process's statm moving reads again only the kernel Pss of the
 * processes that may share the pages it says moved.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/account.h"
#include "core/builder.h"
#include "core/pagemap.h"
#include "core/parallel.h"
#include "core/reuse.h"
#include "core/source.h"
#include "core/source_priv.h"

#define NP 3
#define PRESENT(pfn) (EXM_PM_PRESENT | (uint64_t)(pfn))

/* The world the fake source walks: per process, its key and 4 words. */
static uint64_t keys[NP];
static uint64_t words[NP][4];
static unsigned walks[NP]; /* walks of each, all passes */
static char root[64];	   /* a fake /proc with only vmstat */
static struct exm_reuse *reuse;
/* the source's keys see every change (the module's counters) */
static bool exact;
static bool want_kpss;	   /* the snapshots ask for the kernel's figures */
static int taken[NP];	   /* what exm_reuse_take said of each, last */
static bool ksm_known[NP]; /* its mapping's KSM marks kept, last */
/* the kernel's Pss from mapping counts (pagemap), not smaps_rollup: the
 * world's, in kB, and what the last snapshot said */
static bool counts_kpss;
static uint64_t kv[NP], got[NP];
static double erss[NP];		   /* the last snapshot's, of each process */
static struct exm_source *the_src; /* NULL, or one with kpss_again */
static pid_t again[NP];		   /* the pids kpss_again was asked for */
static size_t nagain;
/* the kernel's release: before 6.15 a mapcount per page, later one may be
 * an average (CONFIG_NO_PAGE_MAPCOUNT; no config readable here) */
static const char *release;
/* a process starts during the next walk: the fake loadavg's last pid
 * moves to it while the fake source walks */
static unsigned start_during;
static void unlink_born(void);
/* the fake walk stores words as the pagemap source does: in the page
 * store, a process whose words equal an earlier one's taking its array
 * (exm_mapping_share_words); and whether the last snapshot's processes
 * 0 and 2 held one array */
static bool twins;
/* process 0's mapping also counts 8 pages mapped once (exm_mapping's
 * counted): frames 3000-3007, in no word */
static bool counted0;
static bool shared02;
/* every process's mapping is a hugetlb one (its frames counted apart) */
static bool hugetlb;
/* each process has a directory in the fake /proc with its main thread's
 * run time (schedstat), which the keys of the refreshes hold */
static bool sched_dirs;
/* the walks list pid 200 too, denied (its statm in the fake /proc) */
static bool with_denied;

/* The fake /proc's file name holding text. */
static void put_root(const char *name, const char *text)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static void set_loadavg(unsigned last)
{
	char text[64];

	snprintf(text, sizeof(text), "0.00 0.00 0.00 1/100 %u\n", last);
	put_root("loadavg", text);
}

static struct exm_kpss world_kpss(int i)
{
	return (struct exm_kpss){ .has = EXM_KPSS_PSS | EXM_KPSS_PSS_ANON |
					 EXM_KPSS_PSS_FILE |
					 EXM_KPSS_PSS_SHMEM | EXM_KPSS_RSS,
				  .pss = kv[i] << 10,
				  .pss_anon = kv[i] << 10 };
}

static int fake_again(struct exm_source *s, struct exm_snapshot *snap,
		      struct exm_proc *const *procs, size_t n)
{
	(void)s;
	for (size_t j = 0; j < n; j++) {
		cr_assert_lt(nagain, NP);
		cr_assert(procs[j] >= snap->procs &&
			  procs[j] < snap->procs + snap->nprocs);
		again[nagain++] = procs[j]->pid;
		procs[j]->kpss = world_kpss((int)(procs[j] - snap->procs));
	}
	return 0;
}

static const struct exm_source_ops fake_ops = { .name = "fake",
						.kpss_again = fake_again };
static struct exm_source fake = { .ops = &fake_ops };

/* The kernel's Pss from mapping counts, from a source with kpss_again:
 * the first walk, and a refresh keeping every process. */
static const struct exm_reuse_stats *refresh(void);

static void counts_world(void)
{
	want_kpss = counts_kpss = true;
	the_src = &fake;
	refresh();
	refresh();
}

static void set_vmstat(unsigned long pswpout)
{
	char text[96];

	snprintf(text, sizeof(text),
		 "nr_free_pages 100\npswpin 0\npswpout %lu\n", pswpout);
	put_root("vmstat", text);
}

static int take(struct exm_source *src, const struct exm_scan_opts *opts,
		struct exm_snapshot **out)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_sysinfo sys = { .page_size = 4096 };
	struct exm_builder b;

	(void)src;
	cr_assert(s);
	sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
	snprintf(sys.kernel, sizeof(sys.kernel), "%s", release);
	exm_builder_init(&b, s);
	cr_assert_eq(exm_build_begin(&b, &sys), 0);
	for (int i = 0; i < NP; i++) {
		struct exm_proc *p = exm_build_proc(&b);
		struct exm_mapping *m;
		struct exm_pdir d = { .fd = -1,
				      .key = keys[i],
				      .exact = exact };

		if (sched_dirs)
			snprintf(d.path, sizeof(d.path), "%s/%d", root,
				 100 + i);
		else
			snprintf(d.path, sizeof(d.path), "/nonexistent/%d", i);
		p->pid = 100 + i;
		p->start_time = 7;
		p->comm = strdup("t");
		p->cmdline = strdup("");
		p->cgroup = strdup("");
		p->user = strdup("root");
		m = exm_build_mapping(&b, p);
		m->start = 0x10000 + (uint64_t)i * 0x100000;
		m->end = m->start + 4 * 4096;
		m->perms = EXM_PERM_R | EXM_PERM_W;
		m->kind = EXM_KIND_ANON;
		m->hugetlb = hugetlb;
		m->name = strdup("");
		taken[i] = exm_reuse_take(reuse, &b, p, &d, opts);
		if (d.fd >= 0)
			close(d.fd);
		if (counts_kpss && taken[i] != 1) {
			struct exm_kpss k = world_kpss(i);

			exm_build_kpss(&b, p, &k);
		}
		if (taken[i] == 1 || taken[i] == 2)
			continue;
		walks[i]++;
		if (twins)
			cr_assert_eq(exm_build_reserve(&b, m, 4), 0);
		cr_assert_eq(exm_build_pages(&b, m, m->start / 4096, words[i],
					     4),
			     0);
		if (counted0 && !i) {
			m->counted = true;
			m->counted_rss = 8 * 4096;
		}
		for (int j = 0; twins && j < i; j++) {
			const struct exm_mapping *o = &s->procs[j].maps[0];

			if (o->pages_borrowed && exm_mapping_same_words(o, m)) {
				exm_mapping_share_words(s, m, o);
				break;
			}
		}
	}
	if (with_denied) {
		struct exm_proc *p = exm_build_proc(&b);

		p->pid = 200;
		p->start_time = 7;
		p->state = EXM_PROC_DENIED;
		p->comm = strdup("d");
		p->cmdline = strdup("");
		p->cgroup = strdup("");
		p->user = strdup("other");
	}
	if (start_during)
		set_loadavg(start_during);
	start_during = 0;
	exm_build_end(&b, &(struct exm_build_end){ 0 });
	if (!exm_reuse_defers(reuse)) /* else accounted there */
		cr_assert_eq(exm_snapshot_account(s), 0);
	*out = s;
	return 0;
}

static const struct exm_reuse_stats *refresh(void)
{
	struct exm_scan_opts opts = { .proc_root = root,
				      .want_kpss = want_kpss,
				      .want_rollup = want_kpss &&
						     !counts_kpss };
	struct exm_snapshot *s = NULL;

	memset(walks, 0, sizeof(walks));
	nagain = 0;
	cr_assert_eq(exm_reuse_snapshot(reuse, the_src, &opts, take, &s), 0);
	/* what the snapshot holds is what the world says */
	for (int i = 0; i < NP; i++) {
		const struct exm_mapping *m = &s->procs[i].maps[0];

		cr_assert_eq(m->npages, 4);
		for (uint32_t k = 0; k < 4; k++)
			cr_assert_eq(exm_mapping_word(m, k), words[i][k],
				     "pid %d page %u", 100 + i, k);
		got[i] = s->procs[i].kpss.pss >> 10;
		erss[i] = m->sz.erss;
		ksm_known[i] = m->ksm_known;
	}
	shared02 = s->procs[0].maps[0].pages32 &&
		   s->procs[0].maps[0].pages32 == s->procs[2].maps[0].pages32;
	exm_snapshot_free(s);
	return exm_reuse_stats(reuse);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/exm-reuse-XXXXXX");
	cr_assert(mkdtemp(root));
	set_vmstat(0);
	set_loadavg(1000);
	start_during = 0;
	for (int i = 0; i < NP; i++) {
		keys[i] = 0x1001 + (uint64_t)i * 2;
		for (int k = 0; k < 4; k++)
			words[i][k] = PRESENT(1000 + i * 10 + k) |
				      EXM_PM_EXCLUSIVE;
	}
	reuse = exm_reuse_new(3600, false);
	cr_assert(reuse);
	exact = want_kpss = counts_kpss = twins = sched_dirs = hugetlb = false;
	counted0 = false;
	with_denied = false;
	the_src = NULL;
	release = "6.1.0";
	for (int i = 0; i < NP; i++)
		kv[i] = 10 + (uint64_t)i;
}

static void teardown(void)
{
	char path[96];

	exm_reuse_free(reuse);
	snprintf(path, sizeof(path), "%s/vmstat", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/loadavg", root);
	unlink(path);
	unlink_born();
	snprintf(path, sizeof(path), "%s/200/statm", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/200", root);
	rmdir(path);
	for (int i = 0; i < NP; i++) {
		snprintf(path, sizeof(path), "%s/%d/schedstat", root, 100 + i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%d", root, 100 + i);
		rmdir(path);
	}
	rmdir(root);
}

TestSuite(reuse, .init = setup, .fini = teardown);

Test(reuse, unchanged_kept_changed_walked)
{
	const struct exm_reuse_stats *st = refresh();

	cr_assert(st->full);
	cr_assert_str_eq(st->why, "first");
	cr_assert_eq(walks[0] + walks[1] + walks[2], 3);
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0, "nothing changed");
	/* process 1 changes (its key): only it is walked */
	keys[1] += 2;
	words[1][2] = PRESENT(5555) | EXM_PM_EXCLUSIVE;
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(walks[1], 1);
	cr_assert_eq(walks[0] + walks[2], 0);
	cr_assert_eq(st->nwalked, 1);
}

/* Process 2 (changed) now maps process 0's first frame: process 0's word
 * loses its exclusive bit with no counter of its own moving, and it is
 * walked again in a second pass. */
static void share_first_frame(void)
{
	const struct exm_reuse_stats *st;

	refresh();
	keys[2] += 2;
	words[2][0] = PRESENT(1000);
	words[0][0] = PRESENT(1000);
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(st->passes, 2, "a second pass for the sharer");
	cr_assert_eq(walks[0], 1, "process 0 walked again");
	cr_assert_eq(walks[1], 0);
	cr_assert_eq(st->nwalked, 2, "2 and 0, one in each pass");
}

Test(reuse, exclusive_bit_moved_walks_the_sharer)
{
	share_first_frame();
	/* it lets go: exclusive again, process 0 walked again */
	keys[2] += 2;
	words[2][0] = PRESENT(2000) | EXM_PM_EXCLUSIVE;
	words[0][0] = PRESENT(1000) | EXM_PM_EXCLUSIVE;
	refresh();
	cr_assert_eq(walks[0], 1);
}

/* Process 2 (changed) maps an anonymous page the kernel says is mapped
 * more than once (no exclusive bit) that no other word maps: a fork child
 * of process 0, which counted its pages mapped once rather than keep
 * their words, is one way (its counters moved too late for this walk).
 * Process 0 is walked again in a second pass; without counted pages it is
 * not (the other mapper is one not scanned). */
Test(reuse, counted_pages_exposed_walk_the_counter_again)
{
	const struct exm_reuse_stats *st;

	counted0 = true;
	refresh();
	st = refresh();
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0, "all kept");
	keys[2] += 2;
	words[2][0] = PRESENT(3000);
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(st->passes, 2, "a second pass for the counter");
	cr_assert_eq(walks[0], 1, "process 0 walked again");
	cr_assert_eq(walks[1], 0);
	/* process 0 no longer counts pages: its next walk (forced again by
	 * what it kept) keeps none counted, and then one pass does */
	keys[2] += 2;
	words[2][1] = PRESENT(3001);
	counted0 = false;
	st = refresh();
	cr_assert_eq(walks[0], 1, "still counted when kept: walked again");
	keys[2] += 2;
	words[2][2] = PRESENT(3002);
	st = refresh();
	cr_assert_eq(st->passes, 1, "no counted pages kept: one pass");
	cr_assert_eq(walks[0], 0);
}

/* The same with hugetlb mappings: their frames' counts are in the hugetlb
 * share table, which the counts by difference start from as well. */
Test(reuse, hugetlb_exclusive_bit_moved_walks_the_sharer)
{
	hugetlb = true;
	share_first_frame();
}

/*
 * Process 2 (changed) maps a frame of each of the others: both sharers
 * would be walked again, most of those kept, so the second pass walks all.
 * "walked N of M" counts each process once: 3 of 3, process 2 walked in
 * both passes.
 */
Test(reuse, walked_twice_counts_once)
{
	const struct exm_reuse_stats *st;

	refresh();
	keys[2] += 2;
	words[2][0] = words[0][0] = PRESENT(1000);
	words[2][1] = words[1][0] = PRESENT(1010);
	st = refresh();
	cr_assert(st->full);
	cr_assert_str_eq(st->why, "sharers moved");
	cr_assert_eq(st->passes, 2);
	cr_assert_eq(walks[2], 2, "walked in both passes");
	cr_assert_eq(st->nwalked, 3);
	cr_assert_eq(st->nprocs, 3);
}

Test(reuse, stale_word_is_caught_by_the_check)
{
	exm_reuse_free(reuse);
	reuse = exm_reuse_new(3600, true);
	refresh();
	cr_assert(exm_reuse_stats(reuse)->checked);
	cr_assert_str_eq(exm_reuse_stats(reuse)->diff, "");
	/* a page moves under process 0 with nothing saying so: the check's
	 * full walk sees it (the words kept are not the world's) */
	words[0][3] = PRESENT(7777) | EXM_PM_EXCLUSIVE;
	struct exm_scan_opts opts = { .proc_root = root,
				      .want_kpss = want_kpss,
				      .want_rollup = want_kpss };
	struct exm_snapshot *s = NULL;

	cr_assert_eq(exm_reuse_snapshot(reuse, NULL, &opts, take, &s), 0);
	cr_assert_neq(exm_mapping_word(&s->procs[0].maps[0], 3), words[0][3]);
	cr_assert(strstr(exm_reuse_stats(reuse)->diff, "pid 100 (words"), "%s",
		  exm_reuse_stats(reuse)->diff);
	exm_snapshot_free(s);
	/* a counter of the system moves: the next one is a full walk */
	set_vmstat(5);
	const struct exm_reuse_stats *st = refresh();

	cr_assert(st->full);
	cr_assert_str_eq(st->why, "vmstat pswpout");
	cr_assert_str_eq(st->diff, "");
}

Test(reuse, scheduled_walk)
{
	exm_reuse_free(reuse);
	reuse = exm_reuse_new(0.3, false);
	refresh();
	cr_assert_not(refresh()->full);
	usleep(350000);
	const struct exm_reuse_stats *st = refresh();

	cr_assert(st->full);
	cr_assert_str_eq(st->why, "scheduled");
	cr_assert_eq(walks[0] + walks[1] + walks[2], 3);
	cr_assert_not(st->checked);
}

/*
 * The module's counters (an exact source): a process keeps its words
 * while its key (counters and mappings) is unchanged, whatever the
 * system's counters do; a counter of its own that moved walks it.
 */
Test(reuse, exact_source_counter_moved_or_not)
{
	const struct exm_reuse_stats *st;

	exact = true;
	exm_reuse_set_exact(reuse);
	/* the module says which pages are KSM pages: kept as it said */
	words[0][1] |= EXM_PM_KSM;
	refresh();
	set_vmstat(5); /* a swap-out somewhere: the module saw it, or not */
	st = refresh();
	cr_assert_not(st->full, "why: %s", st->why);
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0);
	keys[2] += 2; /* its invalidation count moved */
	words[2][0] = PRESENT(7777) | EXM_PM_EXCLUSIVE;
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(walks[2], 1);
	cr_assert_eq(walks[0] + walks[1], 0);
}

/*
 * The pagemap source (not exact): a kept word keeps the KSM mark its walk
 * had, and its mapping says so (exm_ksm_mark reads no flag for it); a
 * walked one is not said to be known.
 */
Test(reuse, inexact_source_keeps_ksm_marks)
{
	const struct exm_reuse_stats *st;

	words[0][1] |= EXM_PM_KSM;
	refresh();
	cr_assert_not(ksm_known[0]);
	st = refresh();
	cr_assert_not(st->full, "why: %s", st->why);
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0);
	for (int i = 0; i < NP; i++)
		cr_assert(ksm_known[i], "pid %d", 100 + i);
	keys[1] += 2;
	st = refresh();
	cr_assert_eq(walks[1], 1);
	cr_assert_not(ksm_known[1]);
	cr_assert(ksm_known[0]);
}

/* Without the counters (the pagemap source, or an older module's
 * kmod source, which makes no reuse at all) the same swap-out is a full
 * walk. */
Test(reuse, inexact_source_walks_all_on_system_counter)
{
	const struct exm_reuse_stats *st;

	refresh();
	set_vmstat(5);
	st = refresh();
	cr_assert(st->full);
	cr_assert_str_eq(st->why, "vmstat pswpout");
	cr_assert_eq(walks[0] + walks[1] + walks[2], 3);
}

/*
 * A kept process of an exact source gives the kernel's figures from the
 * source again (2: the module walks them, smaps_rollup is not read),
 * even for the figures only smaps_rollup would give another source.
 */
Test(reuse, exact_source_kernel_figures_from_the_source)
{
	exact = true;
	want_kpss = true;
	exm_reuse_set_exact(reuse);
	refresh();
	refresh();
	for (int i = 0; i < NP; i++)
		cr_assert_eq(taken[i], 2, "pid %d: %d", 100 + i, taken[i]);
}

/*
 * The kernel's Pss from mapping counts (the pagemap source): a kept
 * process keeps it while no count of its frames moves (nothing read
 * again); when a walked process starts mapping one of them, the kept
 * sharers have it again from the source (kpss_again), with no walk and no
 * second pass, and keep the new figure after.
 */
Test(reuse, kept_kernel_pss_again_when_its_counts_move)
{
	const struct exm_reuse_stats *st;

	want_kpss = counts_kpss = true;
	the_src = &fake;
	words[0][0] = PRESENT(1000); /* processes 0 and 1 share a frame */
	words[1][0] = PRESENT(1000);
	refresh();
	st = refresh();
	cr_assert_not(st->full);
	for (int i = 0; i < NP; i++) {
		cr_assert_eq(taken[i], 1, "pid %d kept with its figures",
			     100 + i);
		cr_assert_eq(got[i], kv[i]);
	}
	cr_assert_eq(nagain, 0);
	/* process 2 changes and maps the shared frame too (2 to 3: no
	 * exclusive bit moves): the figures of 0 and 1 move with it */
	keys[2] += 2;
	words[2][0] = PRESENT(1000);
	kv[0] = kv[1] = 50;
	kv[2] = 60;
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(st->passes, 1);
	cr_assert_eq(walks[2], 1);
	cr_assert_eq(walks[0] + walks[1], 0);
	cr_assert_eq(nagain, 2);
	cr_assert_eq(again[0], 100);
	cr_assert_eq(again[1], 101);
	for (int i = 0; i < NP; i++)
		cr_assert_eq(got[i], kv[i], "pid %d: %llu", 100 + i,
			     (unsigned long long)got[i]);
	/* and keep them after */
	st = refresh();
	cr_assert_eq(nagain, 0);
	for (int i = 0; i < NP; i++) {
		cr_assert_eq(taken[i], 1);
		cr_assert_eq(got[i], kv[i]);
	}
}

/* Where the kernel may average a large folio's mapcounts (6.15 or later,
 * no config to say it does not), a page mapped moves its neighbours'
 * counts: no kept process keeps its kernel Pss. */
Test(reuse, kept_kernel_pss_read_again_where_mapcounts_may_average)
{
	release = "6.18.0";
	counts_world();
	for (int i = 0; i < NP; i++)
		cr_assert_eq(taken[i], 2, "pid %d: %d", 100 + i, taken[i]);
}

/*
 * A process started during a walk may have mapped a page while counts
 * were read, and be gone before the next listing: what was read during
 * that walk (the walked process's figures) is read again next time; the
 * figures kept as they were read nothing and stay.
 */
Test(reuse, kernel_pss_read_during_a_start_read_again)
{
	counts_world();
	keys[2] += 2; /* process 2 walked while a process starts */
	words[2][1] = PRESENT(7777) | EXM_PM_EXCLUSIVE;
	start_during = 1005; /* pids 1001-1005 given, none there now */
	refresh();
	cr_assert_eq(walks[2], 1);
	cr_assert_eq(taken[0], 1);
	cr_assert_eq(taken[1], 1);
	kv[2] = 70;
	refresh();
	cr_assert_eq(taken[0], 1, "kept as it was: read no count");
	cr_assert_eq(taken[1], 1);
	cr_assert_eq(taken[2], 2, "read during the start: read again");
	cr_assert_eq(got[2], 70);
	refresh();
	cr_assert_eq(taken[2], 1, "then kept");
}

/* Pid 1001, given during the next walk: a thread of process tgid (it maps
 * nothing of its own), or a process (tgid 1001) that the walk did not
 * list. */
static void born(unsigned tgid)
{
	char name[96], text[64];

	snprintf(name, sizeof(name), "%s/1001", root);
	cr_assert_eq(mkdir(name, 0700), 0);
	snprintf(text, sizeof(text), "Name:\tx\nTgid:\t%u\nPid:\t1001\n", tgid);
	put_root("1001/status", text);
	start_during = 1001;
}

static void unlink_born(void)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/1001/status", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/1001", root);
	rmdir(path);
}

/* Process 2 changes: walked (its counts read) while pid 1001 starts. */
static void walk_while_born(unsigned tgid)
{
	keys[2] += 2;
	born(tgid);
	refresh();
	cr_assert_eq(walks[2], 1);
}

/* A thread started during a walk: what the walk read is kept. */
Test(reuse, kernel_pss_kept_across_a_thread_start)
{
	counts_world();
	walk_while_born(100);
	refresh();
	for (int i = 0; i < NP; i++)
		cr_assert_eq(taken[i], 1, "pid %d: %d", 100 + i, taken[i]);
}

/* A process started during a walk, not listed by it, there at its end:
 * what the walk read is kept until the next walk, which must list it
 * (walked as new, its words move the counts); when it does not (gone),
 * what that walk read is read again. */
Test(reuse, kernel_pss_read_again_when_a_started_process_went_unlisted)
{
	counts_world();
	walk_while_born(1001);
	refresh(); /* 1001 is still there, but not listed */
	cr_assert_eq(taken[0], 1);
	cr_assert_eq(taken[1], 1);
	cr_assert_eq(taken[2], 1, "kept until the walk said");
	refresh();
	cr_assert_eq(taken[2], 2, "read during its life: read again");
	cr_assert_eq(taken[0], 1);
	/* again, and 1001 is gone before the next walk: read again then */
	unlink_born();
	set_loadavg(1000);
	refresh();
	walk_while_born(1001);
	unlink_born();
	refresh();
	cr_assert_eq(taken[2], 2, "gone: read again at once");
	cr_assert_eq(taken[0], 1);
}

/* Kept processes with the same words (a fork's memory, shared memory) are
 * kept once and put into a refresh's snapshot once, the others taking that
 * array; one of them changing is walked alone, the others still share. */
Test(reuse, twins_kept_and_put_once)
{
	const struct exm_reuse_stats *st;

	twins = true;
	for (int i = 1; i < NP; i++)
		memcpy(words[i], words[0], sizeof(words[0]));
	st = refresh();
	cr_assert(st->full);
	cr_assert(shared02, "the walk stored them once");
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0);
	cr_assert(shared02, "kept and put once");
	/* process 1 breaks away: walked alone, right words (refresh checks
	 * each word), the other two still one array */
	keys[1] += 2;
	words[1][3] = PRESENT(7777) | EXM_PM_EXCLUSIVE;
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(walks[1], 1);
	cr_assert(shared02);
	st = refresh();
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0);
	cr_assert(shared02);
}

/* A kept process keeps its mappings' sizes while no count of its frames
 * moves; a walked process mapping one of its frames sizes it again. The
 * check sums the kept sizes again from the words and finds them equal. */
/* Every process's effective resident in the last snapshot is want. */
static void erss_all(double want)
{
	for (int i = 0; i < NP; i++)
		cr_assert_float_eq(erss[i], want, 1e-6, "pid %d: %f", 100 + i,
				   erss[i]);
}

/* With the check: processes 0 and 1 share a frame; the first refresh (a
 * full walk, nothing kept) and the second (incremental). */
static const struct exm_reuse_stats *shared01_twice(void)
{
	const struct exm_reuse_stats *st;

	exm_reuse_free(reuse);
	reuse = exm_reuse_new(3600, true);
	words[0][0] = PRESENT(1000);
	words[1][0] = PRESENT(1000);
	st = refresh();
	cr_assert(st->full);
	cr_assert_eq(st->nsz_kept, 0);
	cr_assert_not(st->tables_kept);
	st = refresh();
	cr_assert_not(st->full);
	return st;
}

Test(reuse, kept_sizes_until_a_count_moves)
{
	const struct exm_reuse_stats *st = shared01_twice();

	cr_assert_eq(st->nsz_kept, NP, "nothing moved: all kept");
	cr_assert_str_eq(st->diff, "");
	cr_assert_float_eq(erss[0], 3.5 * 4096, 1e-6);
	/* process 2 changes and maps the shared frame too: the sizes of 0
	 * and 1 are summed again (a third of it each), 2 is walked */
	keys[2] += 2;
	words[2][0] = PRESENT(1000);
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(st->nsz_kept, 0, "%zu", st->nsz_kept);
	cr_assert_str_eq(st->diff, "");
	erss_all(3 * 4096 + 4096 / 3.0);
	/* then kept again */
	st = refresh();
	cr_assert_eq(st->nsz_kept, NP);
	cr_assert_str_eq(st->diff, "");
	cr_assert_float_eq(erss[0], 3 * 4096 + 4096 / 3.0, 1e-6);
	/* process 2 changes a page of its own only: 0 and 1 keep theirs */
	keys[2] += 2;
	words[2][3] = PRESENT(4444) | EXM_PM_EXCLUSIVE;
	st = refresh();
	cr_assert_eq(st->nsz_kept, NP - 1);
	cr_assert_str_eq(st->diff, "");
}

/* A refresh in which no word moved (kept processes, and a walked one whose
 * words came back the same) takes the last snapshot's share tables as they
 * are; a word moved makes them counted again. */
Test(reuse, share_tables_kept_while_no_word_moves)
{
	const struct exm_reuse_stats *st = shared01_twice();

	cr_assert(st->tables_kept, "nothing moved");
	cr_assert_str_eq(st->diff, "");
	cr_assert_float_eq(erss[0], 3.5 * 4096, 1e-6);
	/* 2 is walked and its words come back the same: none moved */
	keys[2] += 2;
	st = refresh();
	cr_assert_eq(taken[2], 0, "walked");
	cr_assert(st->tables_kept);
	cr_assert_str_eq(st->diff, "");
	/* 2 maps the shared frame too: counted again, a third to each */
	keys[2] += 2;
	words[2][0] = PRESENT(1000);
	st = refresh();
	cr_assert_not(st->tables_kept);
	cr_assert_str_eq(st->diff, "");
	erss_all(3 * 4096 + 4096 / 3.0);
	/* then those tables are kept, as they are now */
	st = refresh();
	cr_assert(st->tables_kept);
	cr_assert_str_eq(st->diff, "");
	erss_all(3 * 4096 + 4096 / 3.0);
}

/* The last snapshot of a run (-b -n N), when it is not a full walk, reads
 * the run times its keys are compared with: an unchanged process is kept,
 * not walked (without them every key differed and all were walked). */
Test(reuse, last_incremental_snapshot_keeps_unchanged)
{
	const struct exm_reuse_stats *st;

	sched_dirs = true;
	for (int i = 0; i < NP; i++) {
		char path[96];

		snprintf(path, sizeof(path), "%s/%d", root, 100 + i);
		cr_assert_eq(mkdir(path, 0700), 0);
		snprintf(path, sizeof(path), "%d/schedstat", 100 + i);
		put_root(path, "123456789 1000 7\n");
	}
	st = refresh();
	cr_assert(st->full);
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0);
	exm_reuse_last(reuse);
	st = refresh();
	cr_assert_not(st->full);
	cr_assert_eq(walks[0] + walks[1] + walks[2], 0, "kept: %u %u %u",
		     walks[0], walks[1], walks[2]);
	/* a run time moved: that process is walked */
	put_root("101/schedstat", "123456790 1000 8\n");
	st = refresh();
	cr_assert_eq(walks[1], 1);
	cr_assert_eq(walks[0] + walks[2], 0);
}

static pid_t team_tids[3];

static void note_tid(void *arg, unsigned t, unsigned n)
{
	(void)arg;
	(void)n;
	team_tids[t] = gettid();
}

/* The pids of a walk's own threads, gone when born_during looks, are
 * known as exmtop's (not processes started and gone during the walk,
 * which make every kept kernel Pss read again). */
Test(reuse, own_threads_known)
{
	exm_parallel(3, note_tid, NULL);
	cr_assert_eq(team_tids[0], getpid(), "t = 0 runs on the caller's");
	for (int t = 1; t < 3; t++) {
		cr_assert_neq(team_tids[t], getpid());
		cr_assert(exm_own_thread(team_tids[t]), "thread %d (%d)", t,
			  (int)team_tids[t]);
	}
	cr_assert_not(exm_own_thread(getpid()), "not started here");
	cr_assert_not(exm_own_thread(0));
}

/* The fake statm of denied pid 200: size, resident, shared (pages). */
static void denied_statm(unsigned size, unsigned resident, unsigned shared)
{
	char name[96], text[96];

	snprintf(name, sizeof(name), "%s/200", root);
	mkdir(name, 0700);
	snprintf(text, sizeof(text), "%u %u %u 1 0 %u 0\n", size, resident,
		 shared, size / 2);
	put_root("200/statm", text);
}

/* The kept processes whose kernel Pss was read again (taken 2), as a
 * bit per process. */
static unsigned read_again(void)
{
	unsigned m = 0;

	for (int i = 0; i < NP; i++) {
		cr_assert(taken[i] == 1 || taken[i] == 2, "pid %d: %d", 100 + i,
			  taken[i]);
		if (taken[i] == 2)
			m |= 1u << i;
	}
	return m;
}

/*
 * A process we may not look into (denied: its statm alone) shares pages
 * with others: its pages moving moves the mapping counts of those only.
 * Process 0 maps anonymous pages mapped once, process 1 an anonymous page
 * mapped more than once (a fork's, copy on write), process 2 a file page.
 * Its virtual size moving maps no page: every kernel Pss kept; its
 * anonymous resident size (resident less shared): process 1's read
 * again; its shared size (file and shared memory): process 2's; it gone:
 * both; and each kept after.
 */
Test(reuse, denied_process_moves_reread_only_its_possible_sharers)
{
	words[1][0] = PRESENT(1010);
	words[2][0] = PRESENT(1020) | EXM_PM_FILE;
	with_denied = true;
	denied_statm(1000, 300, 100);
	counts_world();
	refresh();
	cr_assert_eq(read_again(), 0, "nothing moved: all kept");

	denied_statm(2000, 300, 100); /* a reservation */
	refresh();
	cr_assert_eq(read_again(), 0, "its virtual size: all kept");

	denied_statm(2000, 350, 100); /* anonymous pages */
	refresh();
	cr_assert_eq(read_again(), 1u << 1, "anonymous: the fork's sharer");
	refresh();
	cr_assert_eq(read_again(), 0);

	denied_statm(2000, 400, 150); /* file pages, anonymous the same */
	refresh();
	cr_assert_eq(read_again(), 1u << 2, "file: the file page's mapper");
	refresh();
	cr_assert_eq(read_again(), 0);

	denied_statm(2000, 500, 200); /* both */
	refresh();
	cr_assert_eq(read_again(), (1u << 1) | (1u << 2));
	refresh();
	cr_assert_eq(read_again(), 0);
	for (int i = 0; i < NP; i++)
		cr_assert_eq(got[i], kv[i]);
}
