// SPDX-License-Identifier: GPL-2.0-or-later
/* group.c - processes grouped per program, user or cgroup. */
#include "core/group.h"

#include <stdlib.h>
#include <string.h>

static const char *const group_names[EXM_GROUP__COUNT] = {
	[EXM_GROUP_NONE] = "process",
	[EXM_GROUP_PROGRAM] = "program",
	[EXM_GROUP_USER] = "user",
	[EXM_GROUP_CGROUP] = "cgroup",
};

const char *exm_group_name(enum exm_group_by by)
{
	if ((unsigned)by >= EXM_GROUP__COUNT)
		return "?";
	return group_names[by];
}

int exm_group_by_name(const char *name)
{
	for (int i = 0; i < EXM_GROUP__COUNT; i++)
		if (!strcmp(name, group_names[i]))
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

static void kpss_add(struct exm_kpss *dst, const struct exm_kpss *src,
		     bool first)
{
	dst->pss += src->pss;
	dst->pss_anon += src->pss_anon;
	dst->pss_file += src->pss_file;
	dst->pss_shmem += src->pss_shmem;
	dst->pss_dirty += src->pss_dirty;
	dst->swap_pss += src->swap_pss;
	dst->rss += src->rss;
	dst->has = first ? src->has : (dst->has & src->has);
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

struct exm_row *exm_table_groups(const struct exm_snapshot *snap,
				 enum exm_group_by by, const char *user,
				 size_t *n)
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
		if (!exm_proc_is_user(&snap->procs[i], user))
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
		} else {
			r = &rows[ng - 1];
		}
		r->nprocs++;
		exm_sizes_add(&r->sz, &k[i].p->sz);
		kpss_add(&r->kpss, &k[i].p->kpss, first);
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
		if (rows[i].proc && !strcmp(exm_group_key(rows[i].proc, by), key))
			rows[j++] = rows[i];
	*n = j;
	return rows;
}
