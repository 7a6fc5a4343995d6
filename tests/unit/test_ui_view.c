// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live UI's curses-free logic on the "basic" fixture snapshot: lists,
 * sorting, filtering, search, grouping, drill-down and selection keeping
 * across refreshes.
 *
 * The basic fixture (core/source_fixture.c): init (1, root), bash 200 and
 * 201 (alice), postgres 300-302 (postgres, 301/302 "postgres:
 * checkpointer"), worker 400 (alice). By effective resident: the three
 * postgres (equal, ties by pid), 201, 200 (equal), 1, 400.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/diff.h"
#include "core/group.h"
#include "core/source.h"
#include "tui/screen/view.h"
#include "tui/screen/views.h"

static struct exm_snapshot *fixture(const pid_t *pids, size_t npids)
{
	struct exm_source *src;
	struct exm_snapshot *snap = NULL;
	struct exm_scan_opts so = { .pids = pids, .npids = npids };
	char err[256];

	cr_assert_eq(exm_source_open("fixture:basic", &src, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(exm_source_snapshot(src, &so, &snap), 0);
	exm_source_close(src);
	return snap;
}

static pid_t pid_at(const struct tui_view *v, size_t i)
{
	cr_assert_lt(i, v->nvis);
	return v->rows[v->vis[i]].proc->pid;
}

static pid_t sel_pid(const struct tui_view *v)
{
	const struct exm_row *r = tui_view_selected(v);

	cr_assert_not_null(r);
	return r->proc->pid;
}

static void refresh(struct tui_view *v, const struct exm_snapshot *snap,
		    const char *user, enum exm_group_by by)
{
	struct tui_build b = { .snap = snap, .user = user, .group_by = by };

	cr_assert_eq(tui_view_refresh(v, &b), 0);
}

Test(ui_view, procs_sorted_by_effective_resident)
{
	static const pid_t want[] = { 302, 301, 300, 201, 200, 1, 400 };
	struct exm_snapshot *snap = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);

	refresh(v, snap, NULL, EXM_GROUP_NONE);
	cr_assert_eq(v->sort_field, EXM_F_ERSS);
	cr_assert(v->sort_desc);
	cr_assert_eq(v->nvis, 7);
	for (size_t i = 0; i < 7; i++)
		cr_assert_eq(pid_at(v, i), want[i], "row %zu: %d", i,
			     (int)pid_at(v, i));
	/* ascending by pid, then reversed */
	tui_view_set_sort(v, EXM_F_PID, false);
	cr_assert_eq(pid_at(v, 0), 1);
	cr_assert_eq(pid_at(v, 6), 400);
	tui_view_set_sort(v, EXM_F_PID, true);
	cr_assert_eq(pid_at(v, 0), 400);
	tui_view_free(v);
	exm_snapshot_free(snap);
}

/* -p selects rows of the full scan: the figures stay those of every
 * process scanned; groups are made of the selected processes only. */
Test(ui_view, pid_filter_selects_rows_not_figures)
{
	static const pid_t sel[] = { 400, 300 };
	struct exm_snapshot *snap = fixture(NULL, 0);
	struct exm_snapshot *part = fixture(sel, 2);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);
	struct tui_build b = { .snap = snap, .pids = sel, .npids = 2 };
	struct exm_proc_filter f = { .pids = sel, .npids = 2, .user = "999" };
	const struct exm_proc *full, *lim;
	struct exm_row *g;
	size_t n;

	cr_assert_eq(tui_view_refresh(v, &b), 0);
	cr_assert_eq(v->nvis, 2);
	for (size_t i = 0; i < v->nvis; i++) {
		pid_t pid = pid_at(v, i);

		cr_assert(pid == 400 || pid == 300, "row of pid %d", (int)pid);
		full = exm_snapshot_find_pid(snap, pid);
		cr_assert_eq(v->rows[v->vis[i]].sz.erss, full->sz.erss);
		cr_assert_eq(v->rows[v->vis[i]].sz.sole, full->sz.sole);
	}
	/* the limited scan of the same processes counts other sharing */
	full = exm_snapshot_find_pid(snap, 300);
	lim = exm_snapshot_find_pid(part, 300);
	cr_assert_neq(full->sz.erss, lim->sz.erss);
	cr_assert(part->sys.caps & EXM_CAP_LIMITED);
	cr_assert_not(snap->sys.caps & EXM_CAP_LIMITED);
	cr_assert_not_null(strstr(part->sys.limits, "limited scan"));
	/* -u and -p together: both must hold */
	cr_assert_not(exm_proc_filter_match(&f, full));
	f.user = "postgres";
	cr_assert(exm_proc_filter_match(&f, full));
	cr_assert_not(
		exm_proc_filter_match(&f, exm_snapshot_find_pid(snap, 301)));
	cr_assert(exm_proc_filter_match(NULL, full));
	f.user = NULL;
	g = exm_table_groups(snap, EXM_GROUP_PROGRAM, &f, &n);
	cr_assert_not_null(g);
	cr_assert_eq(n, 2); /* postgres (one of three) and worker */
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(g[i].nprocs, 1);
	free(g);
	tui_view_free(v);
	exm_snapshot_free(part);
	exm_snapshot_free(snap);
}

Test(ui_view, selection_follows_the_process_across_sort_and_refresh)
{
	static const pid_t some[] = { 1, 200, 400 };
	struct exm_snapshot *a = fixture(NULL, 0), *b = fixture(some, 3);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);

	refresh(v, a, NULL, EXM_GROUP_NONE);
	tui_view_set_cursor(v, 4);
	cr_assert_eq(sel_pid(v), 200);
	tui_view_set_sort(v, EXM_F_PID, false); /* 1 200 201 300 ... */
	cr_assert_eq(v->cursor, 1);
	cr_assert_eq(sel_pid(v), 200);
	/* a new snapshot with fewer processes: still on 200 */
	tui_view_clear_rows(v);
	refresh(v, b, NULL, EXM_GROUP_NONE);
	cr_assert_eq(v->nvis, 3);
	cr_assert_eq(sel_pid(v), 200);
	cr_assert_eq(v->cursor, 1);
	tui_view_free(v);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
}

Test(ui_view, vanished_row_keeps_the_cursor_in_place)
{
	static const pid_t some[] = { 1, 200, 300, 400 };
	struct exm_snapshot *a = fixture(NULL, 0), *b = fixture(some, 4);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);

	refresh(v, a, NULL, EXM_GROUP_NONE);
	tui_view_set_sort(v, EXM_F_PID, false); /* 1 200 201 300 301 302 400 */
	tui_view_set_cursor(v, 2);
	cr_assert_eq(sel_pid(v), 201);
	refresh(v, b, NULL, EXM_GROUP_NONE); /* 1 200 300 400 */
	/* 201 is gone: the cursor stays at row 2, now 300 */
	cr_assert_eq(v->cursor, 2);
	cr_assert_eq(sel_pid(v), 300);
	/* and the selection now follows 300 */
	refresh(v, a, NULL, EXM_GROUP_NONE);
	cr_assert_eq(sel_pid(v), 300);
	cr_assert_eq(v->cursor, 3);
	tui_view_free(v);
	exm_snapshot_free(a);
	exm_snapshot_free(b);
}

Test(ui_view, recycled_pid_is_another_process)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);
	struct exm_row r = { 0 };
	struct exm_proc p;
	struct tui_ident id, id2;

	refresh(v, a, NULL, EXM_GROUP_NONE);
	p = *exm_snapshot_find_pid(a, 200);
	r.proc = &p;
	cr_assert_eq(tui_ident_of_row(EXM_T_PROCS, &r, &id), 0);
	p.start_time++;
	cr_assert_eq(tui_ident_of_row(EXM_T_PROCS, &r, &id2), 0);
	cr_assert_not(tui_ident_eq(&id, &id2));
	cr_assert_not_null(tui_ident_proc(a, &id));
	cr_assert_null(tui_ident_proc(a, &id2));
	cr_assert_str_eq(id.label, "bash (200)");
	tui_ident_fini(&id);
	tui_ident_fini(&id2);
	tui_view_free(v);
	exm_snapshot_free(a);
}

Test(ui_view, scroll_stays_sane)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);

	refresh(v, a, NULL, EXM_GROUP_NONE);
	v->page = 3;
	tui_view_set_cursor(v, 5);
	cr_assert_eq(v->top, 3);
	tui_view_set_cursor(v, 100);
	cr_assert_eq(v->cursor, 6);
	cr_assert_eq(v->top, 4);
	tui_view_set_cursor(v, -5);
	cr_assert_eq(v->cursor, 0);
	cr_assert_eq(v->top, 0);
	/* a refresh keeps the row at the same screen line */
	tui_view_set_cursor(v, 4);
	v->top = 3;
	refresh(v, a, NULL, EXM_GROUP_NONE);
	cr_assert_eq(v->cursor, 4);
	cr_assert_eq(v->top, 3);
	/* a taller screen than the list: no scrolling */
	v->page = 50;
	tui_view_fix_scroll(v);
	cr_assert_eq(v->top, 0);
	tui_view_free(v);
	exm_snapshot_free(a);
}

Test(ui_view, filter_narrows_rows)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);

	refresh(v, a, NULL, EXM_GROUP_NONE);
	cr_assert_eq(tui_view_set_filter(v, "POSTGRES"), 0);
	cr_assert_eq(v->nvis, 3);
	tui_view_set_filter(v, "checkpointer"); /* command line */
	cr_assert_eq(v->nvis, 2);
	cr_assert_eq(pid_at(v, 0), 302);
	cr_assert_eq(pid_at(v, 1), 301);
	tui_view_set_filter(v, "alice"); /* user */
	cr_assert_eq(v->nvis, 3);
	tui_view_set_filter(v, "no such thing");
	cr_assert_eq(v->nvis, 0);
	cr_assert_null(tui_view_selected(v));
	tui_view_set_filter(v, "");
	cr_assert_eq(v->nvis, 7);
	cr_assert_null(v->filter);
	tui_view_free(v);
	exm_snapshot_free(a);
}

Test(ui_view, user_filter)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);

	refresh(v, a, "alice", EXM_GROUP_NONE);
	cr_assert_eq(v->nvis, 3);
	for (size_t i = 0; i < v->nvis; i++)
		cr_assert_str_eq(v->rows[v->vis[i]].proc->user, "alice");
	refresh(v, a, "106", EXM_GROUP_NONE); /* by uid: postgres */
	cr_assert_eq(v->nvis, 3);
	cr_assert_str_eq(tui_view_selected(v)->proc->user, "postgres");
	refresh(v, a, NULL, EXM_GROUP_NONE);
	cr_assert_eq(v->nvis, 7);
	tui_view_free(v);
	exm_snapshot_free(a);
}

Test(ui_view, search_moves_and_wraps)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);

	refresh(v, a, NULL, EXM_GROUP_NONE);
	cr_assert(tui_view_search(v, "worker", 0));
	cr_assert_eq(v->cursor, 6);
	cr_assert(tui_view_search(v, "bash", 1)); /* wraps to 201 */
	cr_assert_eq(sel_pid(v), 201);
	cr_assert(tui_view_search(v, "bash", 1));
	cr_assert_eq(sel_pid(v), 200);
	cr_assert(tui_view_search(v, "bash", -1));
	cr_assert_eq(sel_pid(v), 201);
	cr_assert_not(tui_view_search(v, "zzz", 1));
	cr_assert_eq(sel_pid(v), 201);
	cr_assert_eq(v->nvis, 7); /* search does not filter */
	tui_view_free(v);
	exm_snapshot_free(a);
}

static const struct exm_row *group_row(const struct tui_view *v,
				       const char *name)
{
	for (size_t i = 0; i < v->nvis; i++)
		if (!strcmp(v->rows[v->vis[i]].name, name))
			return &v->rows[v->vis[i]];
	cr_assert_fail("no group %s", name);
	return NULL;
}

Test(ui_view, groups_sum_their_processes)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_groups, NULL);
	const struct exm_row *g;
	double sum = 0;

	refresh(v, a, NULL, EXM_GROUP_PROGRAM);
	cr_assert_eq(v->nvis, 4); /* bash init postgres worker */
	g = group_row(v, "postgres");
	cr_assert_eq(g->nprocs, 3);
	cr_assert_float_eq(g->sz.erss,
			   3 * exm_snapshot_find_pid(a, 300)->sz.erss, 1e-6);
	cr_assert_eq(g->sz.rss, 3 * exm_snapshot_find_pid(a, 300)->sz.rss);
	cr_assert_eq(g->kpss.pss, 3 * exm_snapshot_find_pid(a, 300)->kpss.pss);
	cr_assert_eq(group_row(v, "bash")->nprocs, 2);
	/* effective resident is conserved by grouping */
	for (size_t i = 0; i < v->nvis; i++)
		sum += v->rows[v->vis[i]].sz.erss;
	cr_assert_float_eq(sum, a->total.erss, 1e-6);

	refresh(v, a, NULL, EXM_GROUP_USER);
	cr_assert_eq(v->nvis, 3);
	cr_assert_eq(group_row(v, "alice")->nprocs, 3);
	cr_assert_eq(group_row(v, "root")->nprocs, 1);

	refresh(v, a, NULL, EXM_GROUP_CGROUP);
	cr_assert_eq(group_row(v, "/system.slice/postgresql.service")->nprocs,
		     3);
	cr_assert_eq(group_row(v, "/user.slice/user-1000.slice/session-1.scope")
			     ->nprocs,
		     3);
	/* with a user filter, groups hold only that user's processes */
	refresh(v, a, "alice", EXM_GROUP_PROGRAM);
	cr_assert_eq(v->nvis, 2);
	cr_assert_eq(group_row(v, "bash")->nprocs, 2);
	cr_assert_eq(group_row(v, "worker")->nprocs, 1);
	tui_view_free(v);
	exm_snapshot_free(a);
}

/* cgroups are read only while grouped per cgroup (EXM_NEED_CGROUP): a
 * snapshot taken before has none, and the groups say so rather than put
 * every process in "/"; the one with them shows them. */
Test(ui_view, cgroup_groups_wait_for_cgroups)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_view *v = tui_view_new(&tui_view_groups, NULL);

	a->sys.caps &= ~EXM_CAP_CGROUP;
	refresh(v, a, NULL, EXM_GROUP_CGROUP);
	cr_assert_eq(v->nvis, 0);
	cr_assert_str_eq(v->why, "(reading cgroups)");
	refresh(v, a, NULL, EXM_GROUP_PROGRAM); /* not needed there */
	cr_assert_eq(v->nvis, 4);
	a->sys.caps |= EXM_CAP_CGROUP;
	refresh(v, a, NULL, EXM_GROUP_CGROUP);
	cr_assert_null(v->why);
	cr_assert_eq(group_row(v, "/system.slice/postgresql.service")->nprocs,
		     3);
	tui_view_free(v);
	exm_snapshot_free(a);
}

Test(ui_view, group_names_round_trip)
{
	for (int i = 0; i < EXM_GROUP__COUNT; i++)
		cr_assert_eq(exm_group_by_name(exm_group_name(i)), i);
	cr_assert_eq(exm_group_by_name("nope"), -1);
}

Test(ui_stack, drill_down_and_back)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_stack s = { 0 };
	struct tui_build b = { .snap = a };
	struct tui_view *v;
	char crumbs[512];
	const struct exm_row *r;

	cr_assert_eq(tui_stack_reset(&s, &tui_view_procs), 0);
	v = tui_stack_top(&s);
	tui_view_refresh(v, &b);
	cr_assert(tui_view_search(v, "bash -c make", 0));
	cr_assert_eq(sel_pid(v), 201);

	/* process -> its files */
	v = tui_stack_enter(&s, false);
	cr_assert_not_null(v);
	cr_assert_eq(v->ops, &tui_view_pfiles);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 3); /* [anon], libc, [stack] */
	cr_assert(tui_view_search(v, "libc", 0));

	/* file -> its mappings in the process */
	v = tui_stack_enter(&s, false);
	cr_assert_not_null(v);
	cr_assert_eq(v->ops, &tui_view_mappings);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 2);
	for (size_t i = 0; i < v->nvis; i++) {
		r = &v->rows[v->vis[i]];
		cr_assert_eq(r->proc->pid, 201);
		cr_assert_str_eq(r->file->name,
				 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	}
	tui_stack_crumbs(&s, crumbs, sizeof(crumbs));
	cr_assert_str_eq(crumbs, "Processes > bash (201) > "
				 "/usr/lib/x86_64-linux-gnu/libc.so.6: "
				 "mappings");
	/* below a mapping: its page strip */
	v = tui_stack_enter(&s, false);
	cr_assert_not_null(v);
	cr_assert_eq(v->ops, &tui_view_strip);
	cr_assert(tui_stack_back(&s));
	cr_assert_eq(s.depth, 3);

	/* back: the files view still has libc selected */
	cr_assert(tui_stack_back(&s));
	v = tui_stack_top(&s);
	cr_assert_str_eq(tui_view_selected(v)->file->name,
			 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert(tui_stack_back(&s));
	cr_assert_not(tui_stack_back(&s)); /* the root stays */
	cr_assert_eq(s.depth, 1);
	cr_assert_eq(sel_pid(tui_stack_top(&s)), 201);
	tui_stack_fini(&s);
	exm_snapshot_free(a);
}

Test(ui_stack, file_to_processes)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_stack s = { 0 };
	struct tui_build b = { .snap = a };
	struct tui_view *v;

	tui_stack_reset(&s, &tui_view_files);
	v = tui_stack_top(&s);
	tui_view_refresh(v, &b);
	cr_assert(tui_view_search(v, "libc.so.6", 0));
	/* a file: its page strip first, one row (the file), Enter again:
	 * the processes mapping it */
	v = tui_stack_enter(&s, false);
	cr_assert_eq(v->ops, &tui_view_fstrip);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 1);
	cr_assert_str_eq(v->rows[0].file->name,
			 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	v = tui_stack_enter(&s, false);
	cr_assert_eq(v->ops, &tui_view_fprocs);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 6); /* every process but worker */
	for (size_t i = 0; i < v->nvis; i++)
		cr_assert_neq(pid_at(v, i), 400);
	/* process within the file -> its mappings of the file */
	cr_assert(tui_view_search(v, "init", 0));
	v = tui_stack_enter(&s, false);
	cr_assert_eq(v->ops, &tui_view_mappings);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 2);
	cr_assert_eq(v->rows[v->vis[0]].proc->pid, 1);
	/* an anonymous kind has no strip: Enter lists its processes */
	tui_stack_reset(&s, &tui_view_files);
	v = tui_stack_top(&s);
	tui_view_refresh(v, &b);
	cr_assert(tui_view_search(v, "[heap]", 0));
	v = tui_stack_enter(&s, false);
	cr_assert_eq(v->ops, &tui_view_fprocs);
	tui_stack_fini(&s);
	exm_snapshot_free(a);
}

Test(ui_stack, group_to_processes)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_stack s = { 0 };
	struct tui_build b = { .snap = a, .group_by = EXM_GROUP_USER };
	struct tui_view *v;

	tui_stack_reset(&s, &tui_view_groups);
	v = tui_stack_top(&s);
	tui_view_refresh(v, &b);
	cr_assert(tui_view_search(v, "alice", 0));
	v = tui_stack_enter(&s, false);
	cr_assert_eq(v->ops, &tui_view_group_procs);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 3);
	for (size_t i = 0; i < v->nvis; i++)
		cr_assert_str_eq(v->rows[v->vis[i]].proc->user, "alice");
	/* and on into the process */
	v = tui_stack_enter(&s, false);
	cr_assert_eq(v->ops, &tui_view_pfiles);
	tui_stack_fini(&s);
	exm_snapshot_free(a);
}

Test(ui_stack, exited_process_says_so)
{
	static const pid_t some[] = { 1, 400 };
	struct exm_snapshot *a = fixture(NULL, 0), *b2 = fixture(some, 2);
	struct tui_stack s = { 0 };
	struct tui_build b = { .snap = a };
	struct tui_view *v;

	tui_stack_reset(&s, &tui_view_procs);
	tui_view_refresh(tui_stack_top(&s), &b);
	tui_view_search(tui_stack_top(&s), "bash -c", 0);
	v = tui_stack_enter(&s, false);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 3);
	b.snap = b2;
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 0);
	cr_assert_str_eq(v->why, "(process 201 has exited)");
	cr_assert_null(tui_view_selected(v));
	/* entering from an empty list does nothing */
	cr_assert_null(tui_stack_enter(&s, false));
	tui_stack_fini(&s);
	exm_snapshot_free(a);
	exm_snapshot_free(b2);
}

/* A stand-in for the ELF views: what a plugged-in view receives. */
static struct tui_ident seen_ctx;

static struct exm_row *build_probe(struct tui_view *v,
				   const struct tui_build *b, size_t *n,
				   const char **why)
{
	struct exm_row *rows = calloc(2, sizeof(*rows));

	tui_ident_fini(&seen_ctx);
	tui_ident_copy(&seen_ctx, &v->ctx);
	rows[0].name = ".text";
	rows[0].addr = 0x1000;
	rows[1].name = ".data";
	rows[1].addr = 0x2000;
	*n = 2;
	return rows;
}

static const struct tui_view_ops probe_ops = {
	.name = "probe",
	.table = EXM_T_SECTIONS,
	.build = build_probe,
	.crumb = tui_view_crumb_label,
};

Test(ui_stack, plugged_in_views)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_stack s = { 0 };
	struct tui_build b = { .snap = a };
	struct tui_view_ops root = tui_view_procs;
	struct tui_view *v;
	char crumbs[512];

	/* a view is plugged in by naming it in its parent's ops */
	root.enter = &probe_ops;
	root.alt = &probe_ops;
	tui_stack_reset(&s, &root);
	tui_view_refresh(tui_stack_top(&s), &b);
	tui_view_search(tui_stack_top(&s), "init", 0);
	v = tui_stack_enter(&s, true);
	cr_assert_eq(v->ops, &probe_ops);
	tui_view_refresh(v, &b);
	cr_assert(seen_ctx.id.has_proc);
	cr_assert_eq(seen_ctx.id.pid, 1);
	cr_assert_eq(v->nvis, 2);
	/* selection by name + address */
	tui_view_set_cursor(v, 1);
	cr_assert_str_eq(v->sel.id.name, tui_view_selected(v)->name);
	tui_stack_crumbs(&s, crumbs, sizeof(crumbs));
	cr_assert_str_eq(crumbs, "Processes > init (1)");
	/* probe_ops names no child */
	cr_assert_null(tui_stack_enter(&s, false));
	tui_ident_fini(&seen_ctx);
	tui_stack_fini(&s);
	exm_snapshot_free(a);
}

/* A canvas that keeps the text put into it, one line a row. */
struct text_canvas {
	char lines[8][128];
};

static void text_put(const struct tui_canvas *c, int y, int x, const char *str,
		     enum tui_role role)
{
	struct text_canvas *t = c->ctx;
	size_t len = strlen(str);

	cr_assert_lt(y, 8);
	cr_assert_lt((size_t)x + len, sizeof(t->lines[y]));
	for (int i = (int)strlen(t->lines[y]); i < x; i++)
		t->lines[y][i] = ' ';
	memcpy(t->lines[y] + x, str, len + 1);
}

/*
 * Enter on a mapping opens its page strip, a view that draws itself: init's
 * libc text has 8 resident pages; the first 4 are mapped by init, both
 * bash and the three postgres (6), the next 2 by init and bash (3), the
 * last 2 by init alone (1).
 */
Test(ui_stack, page_strip_view)
{
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_stack s = { 0 };
	struct tui_build b = { .snap = a };
	struct text_canvas t = { 0 };
	struct tui_canvas c = { .w = 100, .h = 4, .put = text_put, .ctx = &t };
	struct tui_view *v;
	char crumbs[512];

	tui_stack_reset(&s, &tui_view_procs);
	tui_view_refresh(tui_stack_top(&s), &b);
	tui_view_search(tui_stack_top(&s), "init", 0);
	v = tui_stack_enter(&s, false);
	tui_view_refresh(v, &b);
	tui_view_search(v, "libc", 0);
	v = tui_stack_enter(&s, false);
	tui_view_refresh(v, &b);
	tui_view_set_sort(v, EXM_F_ADDR, false);
	v = tui_stack_enter(&s, false);
	cr_assert_eq(v->ops, &tui_view_strip);
	tui_view_refresh(v, &b);
	cr_assert_eq(v->nvis, 1);
	v->ops->draw(v, &c);
	cr_assert(strstr(t.lines[0], "8 pages: 8 resident, 0 swapped"), "%s",
		  t.lines[0]);
	cr_assert_str_eq(t.lines[1], "    7f0000000000 66663311");
	cr_assert_str_eq(t.lines[2], "");
	tui_stack_crumbs(&s, crumbs, sizeof(crumbs));
	cr_assert_str_eq(crumbs, "Processes > init (1) > "
				 "/usr/lib/x86_64-linux-gnu/libc.so.6: "
				 "mappings > 0x7f0000000000: pages");
	/* its key hook scrolls its lines, other keys go to the key table */
	cr_assert_neq(v->ops->key(v, 'j'), 0u);
	cr_assert_eq(v->ops->key(v, 'q'), 0u);
	tui_stack_fini(&s);
	exm_snapshot_free(a);
}

/*
 * Delta columns: rows matched by identity with the previous snapshot. With
 * init alone, its libc pages were its own; with everyone, they are shared,
 * so its effective resident shrank. bash (200) was not in the previous
 * snapshot: no delta.
 */
Test(ui_view, delta_of_effective_resident)
{
	static const pid_t only_init[] = { 1 };
	struct exm_snapshot *prev = fixture(only_init, 1);
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_build b = { .snap = a, .prev = prev };
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL);
	const struct exm_proc *init_prev = exm_snapshot_find_pid(prev, 1);
	const struct exm_proc *init_now = exm_snapshot_find_pid(a, 1);
	struct exm_value val;

	cr_assert_eq(tui_view_refresh(v, &b), 0);
	for (size_t i = 0; i < v->nvis; i++) {
		const struct exm_row *r = &v->rows[v->vis[i]];

		exm_field_value(EXM_F_DERSS, EXM_T_PROCS, r, &val);
		if (r->proc->pid != 1) {
			cr_assert_eq(val.type, EXM_V_NONE);
			continue;
		}
		cr_assert_eq(val.type, EXM_V_DELTA);
		cr_assert_lt(val.d, 0);
		cr_assert_float_eq(val.d,
				   init_now->sz.erss - init_prev->sz.erss,
				   1e-9);
	}
	/* without a previous snapshot: no delta at all */
	b.prev = NULL;
	tui_view_refresh(v, &b);
	exm_field_value(EXM_F_DERSS, EXM_T_PROCS, tui_view_selected(v), &val);
	cr_assert_eq(val.type, EXM_V_NONE);
	tui_view_free(v);
	exm_snapshot_free(a);
	exm_snapshot_free(prev);
}

/* Every growing field of view row r (table t) as diff row dr gives it. */
static size_t same_growth(enum exm_table t, const struct exm_row *r,
			  const struct exm_diff_row *dr)
{
	size_t n = 0;

	cr_assert_not_null(dr);
	cr_assert_eq(!!(r->flags & EXM_ROW_NEW), dr->change == EXM_DIFF_NEW);
	for (int f = 0; f < EXM_F__COUNT; f++) {
		double g = 0, h = 0;
		bool m = exm_row_growth(f, t, r, &g);

		cr_assert_eq(m, exm_row_growth(f, t, &dr->row, &h), "%s",
			     exm_fields[f].key);
		if (m) {
			cr_assert_eq(g, h, "%s", exm_fields[f].key);
			n++;
		}
	}
	return n;
}

/*
 * Delta mode (D) and --diff of the same two snapshots give the same
 * growth of every size, row by row: processes, files, and the files of a
 * process, through the live screen's views and the engine's diff.
 */
Test(ui_view, delta_mode_and_diff_agree)
{
	static const pid_t some[] = { 1, 200, 201 };
	struct exm_snapshot *prev = fixture(some, 3);
	struct exm_snapshot *a = fixture(NULL, 0);
	struct tui_build b = { .snap = a, .prev = prev, .delta = true };
	struct tui_view *v = tui_view_new(&tui_view_procs, NULL), *pf;
	struct exm_diff_row *rows = NULL;
	struct tui_ident ctx;
	struct exm_diff *d;
	size_t checked = 0, nnew = 0, n = 0;

	cr_assert_eq(exm_diff_new(prev, a, &d), 0);
	cr_assert_eq(tui_view_refresh(v, &b), 0);
	cr_assert_eq(v->nrows, a->nprocs);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct exm_row *r = &v->rows[i];

		nnew += !!(r->flags & EXM_ROW_NEW);
		checked += same_growth(EXM_T_PROCS, r,
				       exm_diff_find_pid(d, r->proc->pid));
	}
	cr_assert_eq(nnew, 4); /* 300, 301, 302, 400 */
	tui_view_free(v);

	v = tui_view_new(&tui_view_files, NULL);
	cr_assert_eq(tui_view_refresh(v, &b), 0);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct exm_diff_row *dr = NULL;

		for (size_t j = 0; j < d->nfiles; j++)
			if (d->files[j].file_b == v->rows[i].file)
				dr = &d->files[j];
		checked += same_growth(EXM_T_FILES, &v->rows[i], dr);
	}
	tui_view_free(v);

	/* init's files: its libc share shrank, as the diff's drill-down says */
	cr_assert_eq(exm_diff_proc_files(exm_diff_find_pid(d, 1), &rows, &n),
		     0);
	v = tui_view_new(&tui_view_procs, NULL);
	cr_assert_eq(tui_view_refresh(v, &b), 0);
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i].proc->pid == 1)
			cr_assert_eq(tui_ident_of_row(EXM_T_PROCS, &v->rows[i],
						      &ctx),
				     0);
	pf = tui_view_new(&tui_view_pfiles, &ctx);
	cr_assert_eq(tui_view_refresh(pf, &b), 0);
	cr_assert_eq(pf->nrows, n);
	for (size_t i = 0; i < pf->nrows; i++) {
		const struct exm_diff_row *dr = NULL;
		double g;

		for (size_t j = 0; j < n; j++)
			if (rows[j].file_b == pf->rows[i].file)
				dr = &rows[j];
		checked += same_growth(EXM_T_PFILES, &pf->rows[i], dr);
		if (strstr(pf->rows[i].file->name, "libc"))
			cr_assert(exm_row_growth(EXM_F_ERSS, EXM_T_PFILES,
						 &pf->rows[i], &g) &&
				  g < 0);
	}
	cr_assert_gt(checked, 100);
	free(rows);
	tui_ident_fini(&ctx);
	tui_view_free(pf);
	tui_view_free(v);
	exm_diff_free(d);
	exm_snapshot_free(a);
	exm_snapshot_free(prev);
}

Test(ui_view, group_keys)
{
	struct exm_proc p = {
		.comm = "bash", .user = "alice", .uid = 1000, .cgroup = ""
	};

	cr_assert_str_eq(exm_group_key(&p, EXM_GROUP_PROGRAM), "bash");
	cr_assert_str_eq(exm_group_key(&p, EXM_GROUP_USER), "alice");
	cr_assert_str_eq(exm_group_key(&p, EXM_GROUP_CGROUP), "/");
	p.kthread = true;
	cr_assert_str_eq(exm_group_key(&p, EXM_GROUP_PROGRAM), "[kthreads]");
	p.user = NULL;
	p.cgroup = NULL;
	cr_assert_str_eq(exm_group_key(&p, EXM_GROUP_USER), "");
	cr_assert_str_eq(exm_group_key(&p, EXM_GROUP_CGROUP), "");
	cr_assert(exm_proc_is_user(&p, "1000"));
	cr_assert_not(exm_proc_is_user(&p, "100"));
	cr_assert_not(exm_proc_is_user(&p, "alice"));
	cr_assert(exm_proc_is_user(&p, NULL));
	cr_assert(exm_proc_is_user(&p, ""));
}

Test(ui_view, ident_merge_and_copy)
{
	struct tui_ident a = {
		.id = { .has_proc = true, .pid = 7, .start_time = 70 },
	};
	struct tui_ident b = { 0 }, c;

	b.id.has_file = true;
	b.id.kind = EXM_KIND_FILE;
	b.id.inode = 42;
	b.id.fname = "/lib/x.so";
	b.label = "/lib/x.so";
	cr_assert_eq(tui_ident_copy(&c, &a), 0);
	cr_assert(tui_ident_eq(&c, &a));
	cr_assert_eq(tui_ident_merge(&c, &b), 0);
	cr_assert(c.id.has_proc && c.id.has_file);
	cr_assert_eq(c.id.pid, 7);
	cr_assert_str_eq(c.id.fname, "/lib/x.so");
	cr_assert_neq(c.id.fname, b.id.fname); /* copied, not borrowed */
	cr_assert_str_eq(c.label, "/lib/x.so");
	cr_assert_not(tui_ident_eq(&c, &a));
	tui_ident_fini(&c);
	cr_assert_not(c.id.has_proc || c.id.has_file);
	cr_assert_null(c.id.fname);
}

Test(ui_view, table_fields_follow_the_field_table)
{
	int fs[EXM_F__COUNT];
	size_t n = tui_table_fields(EXM_T_MAPPINGS, fs, EXM_F__COUNT);

	cr_assert_gt(n, 0);
	for (size_t i = 0; i < n; i++)
		cr_assert(exm_fields[fs[i]].tables & EXM_TBIT(EXM_T_MAPPINGS));
	for (int f = 0, k = 0; f < EXM_F__COUNT; f++)
		if (exm_fields[f].tables & EXM_TBIT(EXM_T_MAPPINGS))
			cr_assert_eq(fs[k++], f);
}
