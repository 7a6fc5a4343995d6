// SPDX-License-Identifier: GPL-2.0-or-later
/* group.c - processes grouped per program, user or cgroup. */
#include "core/group.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgcharge.h"
#include "core/exclusive.h"

const char *const exm_group_names[EXM_GROUP__COUNT + 1] = {
	[EXM_GROUP_NONE] = "process", [EXM_GROUP_PROGRAM] = "program",
	[EXM_GROUP_USER] = "user",    [EXM_GROUP_CGROUP] = "cgroup",
	[EXM_GROUP__COUNT] = NULL,
};

const char *exm_group_name(enum exm_group_by by)
{
	if ((unsigned)by >= EXM_GROUP__COUNT)
		return "?";
	return exm_group_names[by];
}

int exm_group_by_name(const char *name)
{
	for (int i = 0; i < EXM_GROUP__COUNT; i++)
		if (!strcmp(name, exm_group_names[i]))
			return i;
	return -1;
}

const char *exm_group_key(const struct exm_proc *p, enum exm_group_by by)
{
	const char *s;

	switch (by) {
	case EXM_GROUP_PROGRAM:
		if (p->kthread)
			return "[kthreads]";
		s = p->comm;
		break;
	case EXM_GROUP_USER:
		s = p->user;
		break;
	case EXM_GROUP_CGROUP:
		s = p->cgroup;
		if (s && !*s)
			s = "/";
		break;
	default:
		s = p->comm;
		break;
	}
	return s ? s : "";
}

/*
 * A group sums what was measured: each figure over the members that have
 * it, valid when one member has it (the union), so one unreadable process
 * does not hide the rest. row.unmeasured says how many members a sum
 * leaves out (see group.h).
 */
#define ADD(bit, m)                       \
	do {                              \
		if (src->has & (bit))     \
			dst->m += src->m; \
	} while (0)

static void sizes_add(struct exm_sizes *dst, const struct exm_sizes *src)
{
	ADD(EXM_HAS_VM, vm);
	ADD(EXM_HAS_RSS, rss);
	ADD(EXM_HAS_SWAP, swap);
	ADD(EXM_HAS_SOLE, sole);
	ADD(EXM_HAS_WRITABLE, writable);
	ADD(EXM_HAS_ERSS, erss);
	ADD(EXM_HAS_ESWAP, eswap);
	ADD(EXM_HAS_ZERO, zero);
	ADD(EXM_HAS_HUGETLB, hugetlb);
	ADD(EXM_HAS_EHUGETLB, ehugetlb);
	ADD(EXM_HAS_KSM, ksm);
	ADD(EXM_HAS_KSM, eksm);
	dst->has |= src->has;
}

static void kpss_add(struct exm_kpss *dst, const struct exm_kpss *src)
{
	ADD(EXM_KPSS_PSS, pss);
	ADD(EXM_KPSS_PSS_ANON, pss_anon);
	ADD(EXM_KPSS_PSS_FILE, pss_file);
	ADD(EXM_KPSS_PSS_SHMEM, pss_shmem);
	ADD(EXM_KPSS_PSS_DIRTY, pss_dirty);
	ADD(EXM_KPSS_SWAP_PSS, swap_pss);
	ADD(EXM_KPSS_RSS, rss);
	dst->has |= src->has;
}
#undef ADD

/* Whether p lacks a figure its group's row r shows. */
static bool left_out(const struct exm_row *r, const struct exm_proc *p)
{
	return (p->sz.has & r->sz.has) != r->sz.has ||
	       (p->kpss.has & r->kpss.has) != r->kpss.has;
}

struct keyed {
	const char *key;
	const struct exm_proc *p;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->p->index < y->p->index ? -1 : x->p->index > y->p->index;
}

bool exm_proc_is_user(const struct exm_proc *p, const char *user)
{
	char *end;
	unsigned long uid;

	if (!user || !*user)
		return true;
	if (p->user && !strcmp(p->user, user))
		return true;
	uid = strtoul(user, &end, 10);
	return !*end && uid == (unsigned long)p->uid;
}

bool exm_proc_filter_match(const struct exm_proc_filter *f,
			   const struct exm_proc *p)
{
	bool in = !f || !f->pids;

	if (!f)
		return true;
	for (size_t i = 0; !in && i < f->npids; i++)
		in = f->pids[i] == p->pid;
	return in && exm_proc_is_user(p, f->user);
}

bool *exm_files_mapped_by(const struct exm_snapshot *snap,
			  const struct exm_proc_filter *f)
{
	bool *in = calloc(snap->nfiles + 1, sizeof(*in));

	for (size_t i = 0; in && i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		if (!exm_proc_filter_match(f, p))
			continue;
		for (size_t k = 0; k < p->npfiles; k++)
			if (p->pfiles[k].file->index < snap->nfiles)
				in[p->pfiles[k].file->index] = true;
	}
	return in;
}

/*
 * A group's exclusive memory is the group's, not its members' summed (a
 * page the members share only among themselves is in it): one pass over
 * the members' page words for every group (exclusive.h). 0 or -ENOMEM.
 */
static int group_exclusive(const struct exm_snapshot *snap,
			   const struct keyed *k, size_t nk,
			   struct exm_row *rows, size_t ng)
{
	uint32_t *set_of;
	struct exm_excl *ex;
	int ret;

	for (size_t g = 0; g < ng; g++) {
		rows[g].sz.freed = rows[g].sz.cached = 0;
		rows[g].sz.shmem_excl = 0;
	}
	if (!(snap->sys.caps & EXM_CAP_PFN) || !snap->pfn_counts)
		return 0;
	set_of = malloc((snap->nprocs + 1) * sizeof(*set_of));
	ex = malloc((ng + 1) * sizeof(*ex));
	ret = set_of && ex ? 0 : -ENOMEM;
	for (size_t i = 0; !ret && i < snap->nprocs; i++)
		set_of[i] = EXM_SET_NONE;
	for (size_t i = 0, g = 0; !ret && i < nk; i++) {
		if (i && strcmp(k[i].key, k[i - 1].key))
			g++;
		set_of[k[i].p->index] = (uint32_t)g;
	}
	if (!ret)
		ret = exm_exclusive(snap, set_of, ng, ex);
	for (size_t g = 0; !ret && g < ng; g++)
		if (rows[g].sz.has & EXM_HAS_EXCL)
			exm_excl_store(&ex[g], &rows[g].sz);
	free(set_of);
	free(ex);
	return ret == -EOPNOTSUPP ? 0 : ret;
}

struct exm_row *exm_table_groups(const struct exm_snapshot *snap,
				 enum exm_group_by by,
				 const struct exm_proc_filter *f, size_t *n)
{
	struct keyed *k = malloc((snap->nprocs + 1) * sizeof(*k));
	struct exm_row *rows = calloc(snap->nprocs + 1, sizeof(*rows));
	size_t ng = 0, nk = 0;

	*n = 0;
	if (!k || !rows) {
		free(k);
		free(rows);
		return NULL;
	}
	for (size_t i = 0; i < snap->nprocs; i++) {
		if (!exm_proc_filter_match(f, &snap->procs[i]))
			continue;
		k[nk].p = &snap->procs[i];
		k[nk].key = exm_group_key(k[nk].p, by);
		nk++;
	}
	qsort(k, nk, sizeof(*k), keyed_cmp);
	for (size_t i = 0; i < nk; i++) {
		struct exm_row *r;
		bool first = !i || strcmp(k[i].key, k[i - 1].key);

		if (first) {
			r = &rows[ng++];
			r->name = k[i].key;
			r->proc = k[i].p;
			if (by == EXM_GROUP_CGROUP)
				r->cg = exm_cgcharge_find(snap, r->name);
		} else {
			r = &rows[ng - 1];
		}
		r->nprocs++;
		sizes_add(&r->sz, &k[i].p->sz);
		kpss_add(&r->kpss, &k[i].p->kpss);
	}
	if (group_exclusive(snap, k, nk, rows, ng)) {
		free(k);
		free(rows);
		return NULL;
	}
	/* once every sum is known: who is missing from one */
	for (size_t i = 0, g = 0; i < nk; i++) {
		if (i && strcmp(k[i].key, k[i - 1].key))
			g++;
		rows[g].unmeasured += left_out(&rows[g], k[i].p);
	}
	free(k);
	*n = ng;
	return rows;
}

struct exm_row *exm_table_group_procs(const struct exm_snapshot *snap,
				      enum exm_group_by by, const char *key,
				      size_t *n)
{
	struct exm_row *rows = exm_table_procs(snap, n);
	size_t j = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < *n; i++)
		if (rows[i].proc &&
		    !strcmp(exm_group_key(rows[i].proc, by), key))
			rows[j++] = rows[i];
	*n = j;
	return rows;
}
