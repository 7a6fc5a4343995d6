// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live screen's scan policy (tui/screen/policy.c) on fixture snapshots: what a
 * request reads the kernel's figures for, and when the rows on screen are
 * not all covered, including the race of tests/live/test_live_ui.sh: the
 * snapshot that arrives lists the rows in another order than the one the
 * request was planned from, so rows already known come on screen unread.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/source.h"
#include "core/group.h"
#include "tui/screen/policy.h"
#include "tui/screen/view_report.h"
#include "tui/screen/views.h"

/* fixture "many": pids 1000..2999; only those from first on */
static struct exm_snapshot *many_from(pid_t first)
{
	struct exm_source *src;
	struct exm_snapshot *snap = NULL;
	pid_t *pids = malloc(2000 * sizeof(*pids));
	size_t n = 0;
	struct exm_scan_opts so = { 0 };
	char err[256];

	for (pid_t p = first; p < 3000; p++)
		pids[n++] = p;
	so.pids = pids;
	so.npids = n;
	cr_assert_eq(exm_source_open("fixture:many", &src, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(exm_source_snapshot(src, &so, &snap), 0);
	exm_source_close(src);
	free(pids);
	return snap;
}

/* A processes pane sorted by pid, 10 rows on screen, on snap. */
static void show(struct tui_stack *s, const struct exm_snapshot *snap)
{
	struct tui_build b = { .snap = snap };
	struct tui_view *v;

	if (!s->depth)
		cr_assert_eq(tui_stack_reset(s, &tui_view_procs), 0);
	v = tui_stack_top(s);
	v->page = 10;
	tui_view_set_sort(v, EXM_F_PID, false);
	cr_assert_eq(tui_view_refresh(v, &b), 0);
}

/* The request of a plain refresh planned on a, and it arrived. */
static void refreshed(struct tui_policy *p, struct tui_stack *s,
		      const struct exm_snapshot *a, struct exm_scan_opts *so)
{
	show(s, a);
	tui_policy_plan(p, s, 1, a, false, so);
	tui_policy_arrived(p);
}

static bool planned(const struct exm_scan_opts *so, pid_t pid)
{
	for (size_t i = 0; i < so->nkpss_pids; i++)
		if (so->kpss_pids[i] == pid)
			return true;
	return false;
}

Test(ui_policy, first_snapshot_reads_all_then_the_screen)
{
	struct exm_snapshot *a = many_from(1000);
	struct tui_stack s = { 0 };
	struct tui_policy p;
	struct exm_scan_opts so = { .want_kpss = true };

	tui_policy_init(&p);
	tui_policy_plan(&p, &s, 1, NULL, false, &so);
	cr_assert_null(so.kpss_pids); /* nothing on screen yet: all */
	tui_policy_arrived(&p);
	show(&s, a);
	cr_assert_not(tui_policy_missing(&p, &s, 1, NULL));
	/* the next request: the 10 rows on screen and a page below */
	tui_policy_plan(&p, &s, 1, a, false, &so);
	cr_assert_eq(so.nkpss_pids, 20);
	cr_assert(planned(&so, 1000) && planned(&so, 1019));
	cr_assert_not(planned(&so, 1020));
	tui_policy_arrived(&p);
	cr_assert_not(tui_policy_missing(&p, &s, 1, NULL));
	/* End: rows never read are on screen; a key asks at once */
	tui_view_set_cursor(tui_stack_top(&s), 1999);
	cr_assert(tui_policy_missing(&p, &s, 1, NULL));
	tui_stack_fini(&s);
	tui_policy_fini(&p);
	exm_snapshot_free(a);
}

/* The race: planned from a, the snapshot b that arrives has other rows on
 * screen (processes 1000-1029 gone), all of them known in a. */
Test(ui_policy, rows_reordered_by_the_new_snapshot_are_read)
{
	struct exm_snapshot *a = many_from(1000), *b = many_from(1030);
	struct tui_stack s = { 0 };
	struct tui_policy p;
	struct exm_scan_opts so = { .want_kpss = true };

	tui_policy_init(&p);
	refreshed(&p, &s, a, &so);
	show(&s, b); /* b is on screen now: rows 1030-1039 */
	cr_assert(tui_policy_missing(&p, &s, 1, a),
		  "rows reordered by the new snapshot go unnoticed");
	cr_assert(tui_policy_may_follow(&p));
	/* the follow-up keeps what was read and adds the screen */
	tui_policy_plan(&p, &s, 1, b, true, &so);
	cr_assert(planned(&so, 1000) && planned(&so, 1030) &&
		  planned(&so, 1049));
	tui_policy_arrived(&p);
	cr_assert_not(tui_policy_missing(&p, &s, 1, a));
	/* a second follow-up is the last one: it reads everything */
	tui_policy_plan(&p, &s, 1, b, true, &so);
	cr_assert_null(so.kpss_pids);
	cr_assert_not(tui_policy_may_follow(&p));
	tui_policy_arrived(&p);
	cr_assert_not(tui_policy_missing(&p, &s, 1, a));
	/* a plain request starts over */
	tui_policy_plan(&p, &s, 1, b, false, &so);
	cr_assert_not_null(so.kpss_pids);
	cr_assert(tui_policy_may_follow(&p));
	tui_stack_fini(&s);
	tui_policy_fini(&p);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
}

/* Processes born since the snapshot the plan was made from wait for the
 * next refresh: no follow-up for them. */
Test(ui_policy, new_processes_wait)
{
	struct exm_snapshot *a = many_from(1030), *b = many_from(1000);
	struct tui_stack s = { 0 };
	struct tui_policy p;
	struct exm_scan_opts so = { .want_kpss = true };

	tui_policy_init(&p);
	refreshed(&p, &s, a, &so);
	show(&s, b); /* 1000-1029 are new: on screen, unknown to a */
	tui_view_set_cursor(tui_stack_top(&s), 0);
	cr_assert_not(tui_policy_missing(&p, &s, 1, a));
	/* but a key onto them asks (known: none) */
	cr_assert(tui_policy_missing(&p, &s, 1, NULL));
	tui_stack_fini(&s);
	tui_policy_fini(&p);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
}

/* Groups sum everyone's figures, so do sorts by a kernel figure: all. */
Test(ui_policy, views_that_need_everyone)
{
	struct exm_snapshot *a = many_from(1000);
	struct tui_stack s = { 0 };
	struct tui_policy p;
	struct exm_scan_opts so = { .want_kpss = true };
	struct tui_settings set;

	tui_policy_init(&p);
	tui_settings_init(&set);
	show(&s, a);
	tui_view_set_sort(tui_stack_top(&s), EXM_F_PSS, true);
	tui_policy_plan(&p, &s, 1, a, false, &so);
	cr_assert_null(so.kpss_pids);
	cr_assert(tui_policy_needs(&s, 1, &set) & EXM_NEED_KPSS);
	tui_stack_fini(&s);
	tui_policy_fini(&p);
	exm_snapshot_free(a);
}

/* cgroups are read only while the processes are grouped per cgroup. */
Test(ui_policy, cgroups_only_while_grouped_by_them)
{
	struct tui_stack s = { 0 };
	struct tui_settings set;

	tui_settings_init(&set);
	cr_assert_eq(tui_stack_reset(&s, &tui_view_procs), 0);
	for (int g = 0; g < EXM_GROUP__COUNT; g++) {
		unsigned needs;

		set.group_by = (enum exm_group_by)g;
		needs = tui_policy_needs(&s, 1, &set);
		cr_assert_eq(!!(needs & EXM_NEED_CGROUP), g == EXM_GROUP_CGROUP,
			     "%s", exm_group_name(g));
	}
	tui_stack_fini(&s);
}

/* The alerts view compares every process's Pss with its effective
 * resident: while it is shown, every process's Pss is read, even with no
 * Pss column; when it is left, only the rows on screen again. The other
 * reports do not need the kernel's figures. */
Test(ui_policy, alerts_view_reads_everyone_while_shown)
{
	struct exm_snapshot *a = many_from(1000);
	struct tui_stack s = { 0 };
	struct tui_policy p;
	struct exm_scan_opts so = { .want_kpss = true };
	struct tui_settings set;
	static const int no_pss[] = { EXM_F_PID, EXM_F_ERSS, -1 };

	tui_policy_init(&p);
	tui_settings_init(&set);
	memcpy(set.fields[EXM_T_PROCS], no_pss, sizeof(no_pss));
	refreshed(&p, &s, a, &so);
	cr_assert_not(tui_policy_needs(&s, 1, &set) & EXM_NEED_KPSS);
	tui_policy_plan(&p, &s, 1, a, false, &so);
	cr_assert_not_null(so.kpss_pids, "the screen's rows only");
	tui_policy_arrived(&p);
	cr_assert_not(tui_policy_missing(&p, &s, 1, NULL));

	cr_assert_not_null(tui_report_push(&s, "alerts"));
	cr_assert(tui_policy_needs(&s, 1, &set) & EXM_NEED_KPSS);
	cr_assert(tui_policy_missing(&p, &s, 1, NULL),
		  "opening the view asks for a snapshot at once");
	tui_policy_plan(&p, &s, 1, a, false, &so);
	cr_assert_null(so.kpss_pids, "every process");
	tui_policy_arrived(&p);
	cr_assert_not(tui_policy_missing(&p, &s, 1, NULL));

	cr_assert(tui_stack_back(&s)); /* left: the cheap scan again */
	cr_assert_not(tui_policy_needs(&s, 1, &set) & EXM_NEED_KPSS);
	tui_policy_plan(&p, &s, 1, a, false, &so);
	cr_assert_not_null(so.kpss_pids);
	cr_assert_eq(so.nkpss_pids, 20);

	for (const char *const *r = (const char *const[]){ "system", "units",
							   "breakdown", NULL };
	     *r; r++) {
		cr_assert_not_null(tui_report_push(&s, *r));
		cr_assert_not(tui_policy_needs(&s, 1, &set) & EXM_NEED_KPSS,
			      "%s", *r);
		tui_policy_plan(&p, &s, 1, a, false, &so);
		cr_assert_not_null(so.kpss_pids, "%s", *r);
		cr_assert(tui_stack_back(&s));
	}
	tui_stack_fini(&s);
	tui_policy_fini(&p);
	exm_snapshot_free(a);
}
