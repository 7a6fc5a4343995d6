// SPDX-License-Identifier: GPL-2.0-or-later
/* procset.c - a set of processes named by text; see procset.h. */
#include "core/procset.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/group.h"

static const struct {
	const char *prefix;
	enum exm_procset_kind kind;
} prefixes[] = {
	{ "user:", EXM_PSET_USER },
	{ "cgroup:", EXM_PSET_CGROUP },
	{ "comm:", EXM_PSET_COMM },
};

static int parse_pids(const char *t, struct exm_procset *s, char *err,
		      size_t errlen)
{
	for (const char *p = t;;) {
		char *end;
		unsigned long v;
		pid_t *np;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || !v || v > INT_MAX || (*end && *end != ','))
			goto bad;
		np = realloc(s->pids, (s->npids + 1) * sizeof(*np));
		if (!np)
			return -ENOMEM;
		s->pids = np;
		s->pids[s->npids++] = (pid_t)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
bad:
	snprintf(err, errlen,
		 "expected PID[,PID...], user:NAME, cgroup:PATH or comm:NAME");
	return -EINVAL;
}

int exm_procset_parse(const char *text, struct exm_procset *s, char *err,
		      size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i].prefix);

		if (strncmp(text, prefixes[i].prefix, n))
			continue;
		if (!text[n]) {
			snprintf(err, errlen, "empty name after '%s'",
				 prefixes[i].prefix);
			return -EINVAL;
		}
		s->kind = prefixes[i].kind;
		s->name = text + n;
		return 0;
	}
	s->kind = EXM_PSET_PIDS;
	ret = parse_pids(text, s, err, errlen);
	if (ret)
		exm_procset_fini(s);
	return ret;
}

void exm_procset_fini(struct exm_procset *s)
{
	free(s->pids);
	s->pids = NULL;
	s->npids = 0;
}

bool exm_procset_match(const struct exm_procset *s, const struct exm_proc *p)
{
	switch (s->kind) {
	case EXM_PSET_PIDS:
		for (size_t i = 0; i < s->npids; i++)
			if (s->pids[i] == p->pid)
				return true;
		return false;
	case EXM_PSET_USER:
		return exm_proc_is_user(p, s->name);
	case EXM_PSET_CGROUP:
		return !strcmp(exm_group_key(p, EXM_GROUP_CGROUP), s->name);
	case EXM_PSET_COMM:
		return p->comm && !strcmp(p->comm, s->name);
	}
	return false;
}
