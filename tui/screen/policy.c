// SPDX-License-Identifier: GPL-2.0-or-later
/* policy.c - what the live screen's snapshots read; see policy.h. */
#include "tui/screen/policy.h"
#include "core/procfs.h"

#include <stdlib.h>
#include <string.h>

void tui_policy_init(struct tui_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->plan_all = p->shown_all = true;
}

void tui_policy_fini(struct tui_policy *p)
{
	free(p->plan);
	free(p->shown);
	memset(p, 0, sizeof(*p));
}

static enum exm_table view_table(const struct tui_view *v)
{
	return v->ops->table < EXM_T__COUNT ? v->ops->table : EXM_T_PROCS;
}

/* What v needs of every process (a report's analysis), EXM_NEED_*. */
static unsigned needs_all(const struct tui_view *v)
{
	return v->ops->needs_all ? v->ops->needs_all(v) : 0;
}

unsigned tui_policy_needs(const struct tui_stack *stacks, int nstacks,
			  const struct tui_settings *set)
{
	unsigned needs = 0;

	for (int s = 0; s < nstacks; s++)
		for (int i = 0; i < stacks[s].depth; i++) {
			const struct tui_view *v = stacks[s].v[i];
			const int *f = set->fields[view_table(v)];

			needs |= needs_all(v);
			for (size_t k = 0; f[k] >= 0; k++)
				needs |= exm_fields[f[k]].needs;
			if (v->sort_field >= 0)
				needs |= exm_fields[v->sort_field].needs;
		}
	/* grouped, the processes pane's root lists the groups, and the
	 * views under it a group's processes: by their cgroup */
	if (set->group_by == EXM_GROUP_CGROUP)
		needs |= EXM_NEED_CGROUP;
	return needs;
}

/*
 * Call fn(arg, pid) for the process rows on screen of every view on the
 * stacks, and margin pages of rows above and below, until it returns
 * false: then 1; 0 when all were called; -1 when a view needs the kernel's
 * figures of every process (groups sum them, a sort by one compares them
 * all, the alerts compare each process's Pss).
 */
static int visible(const struct tui_stack *stacks, int nstacks, size_t margin,
		   bool (*fn)(void *, pid_t), void *arg)
{
	for (int s = 0; s < nstacks; s++)
		for (int i = 0; i < stacks[s].depth; i++) {
			const struct tui_view *v = stacks[s].v[i];
			enum exm_table t = view_table(v);
			size_t page = v->page > 0 ? (size_t)v->page : 50;
			size_t lo = v->top > margin * page
					    ? v->top - margin * page
					    : 0;
			size_t hi = v->top + page + margin * page;

			if (t == EXM_T_GROUPS ||
			    (needs_all(v) & EXM_NEED_KPSS) ||
			    (v->sort_field >= 0 &&
			     (exm_fields[v->sort_field].needs & EXM_NEED_KPSS)))
				return -1;
			if (t != EXM_T_PROCS && t != EXM_T_FPROCS)
				continue;
			for (size_t k = lo; k < v->nvis && k < hi; k++) {
				const struct exm_row *r = &v->rows[v->vis[k]];

				if (r->proc && !fn(arg, r->proc->pid))
					return 1;
			}
		}
	return 0;
}

static bool add_pid(void *arg, pid_t pid)
{
	struct tui_policy *p = arg;

	if (p->nplan == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		pid_t *n = realloc(p->plan, cap * sizeof(*n));

		if (!n)
			return false;
		p->plan = n;
		p->cap = cap;
	}
	p->plan[p->nplan++] = pid;
	return true;
}

void tui_policy_plan(struct tui_policy *p, const struct tui_stack *stacks,
		     int nstacks, const struct exm_snapshot *snap,
		     bool followup, struct exm_scan_opts *scan)
{
	static const pid_t none[1];
	bool ok = true;

	p->nplan = 0;
	p->followups = followup ? p->followups + 1 : 0;
	p->plan_all = !snap || p->followups >= TUI_POLICY_FOLLOWUPS ||
		      (followup && p->shown_all);
	for (size_t i = 0; followup && !p->plan_all && ok && i < p->nshown; i++)
		ok = add_pid(p, p->shown[i]);
	if (!p->plan_all)
		p->plan_all = !ok || visible(stacks, nstacks, 1, add_pid, p);
	if (!p->plan_all && p->nplan) {
		size_t k = 0;

		qsort(p->plan, p->nplan, sizeof(*p->plan), exm_cmp_pid);
		for (size_t i = 0; i < p->nplan; i++)
			if (!k || p->plan[k - 1] != p->plan[i])
				p->plan[k++] = p->plan[i];
		p->nplan = k;
	}
	scan->kpss_pids = p->plan_all ? NULL : p->nplan ? p->plan : none;
	scan->nkpss_pids = p->plan_all ? 0 : p->nplan;
}

void tui_policy_arrived(struct tui_policy *p)
{
	pid_t *n = NULL;

	if (!p->plan_all && p->nplan) {
		n = malloc(p->nplan * sizeof(*n));
		if (n)
			memcpy(n, p->plan, p->nplan * sizeof(*n));
	}
	free(p->shown);
	p->shown = n;
	p->nshown = n ? p->nplan : 0;
	/* without memory for the list: as if all were read (no loop) */
	p->shown_all = p->plan_all || (p->nplan && !n);
}

struct miss_ctx {
	const struct tui_policy *p;
	const struct exm_snapshot *known;
};

/* false (stop) at a row whose figures were not read */
static bool was_read(void *arg, pid_t pid)
{
	const struct miss_ctx *c = arg;

	if (c->p->nshown &&
	    bsearch(&pid, c->p->shown, c->p->nshown, sizeof(pid), exm_cmp_pid))
		return true;
	return c->known && !exm_snapshot_find_pid(c->known, pid);
}

bool tui_policy_missing(const struct tui_policy *p,
			const struct tui_stack *stacks, int nstacks,
			const struct exm_snapshot *known)
{
	struct miss_ctx c = { .p = p, .known = known };

	if (p->shown_all)
		return false;
	return visible(stacks, nstacks, 0, was_read, &c) != 0;
}
