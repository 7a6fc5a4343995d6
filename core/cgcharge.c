// SPDX-License-Identifier: GPL-2.0-or-later
/* cgcharge.c - the charge of the scanned processes' cgroups; see
 * cgcharge.h. */
#include "core/cgcharge.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/group.h"
#include "core/kpageflags.h"
#include "core/pagecount.h"
#include "core/procfs.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_cg(const void *a, const void *b)
{
	return strcmp(((const struct exm_cgcharge *)a)->path,
		      ((const struct exm_cgcharge *)b)->path);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

const struct exm_cgcharge *exm_cgcharge_find(const struct exm_snapshot *snap,
					     const char *key)
{
	struct exm_cgcharge k = { .path = (char *)key };

	if (!snap->ncgroups || !key)
		return NULL;
	return bsearch(&k, snap->cgroups, snap->ncgroups,
		       sizeof(*snap->cgroups), cmp_cg);
}

/* Whether the memory controller is on the v2 hierarchy at root. */
static bool v2_memory(const char *root)
{
	char path[512], buf[512];
	FILE *f;
	bool yes = false;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!yes && fscanf(f, "%511s", buf) == 1)
		yes = !strcmp(buf, "memory");
	fclose(f);
	return yes;
}

/* memory.current and memory.stat of the cgroup at dir into c */
static void read_charge(struct exm_cgcharge *c, const char *dir)
{
	static const struct {
		const char *key;
		unsigned bit;
		size_t off;
	} keys[] = {
		{ "anon", EXM_CG_ANON, offsetof(struct exm_cgcharge, anon) },
		{ "file", EXM_CG_FILE, offsetof(struct exm_cgcharge, file) },
		{ "shmem", EXM_CG_SHMEM, offsetof(struct exm_cgcharge, shmem) },
		{ "kernel", EXM_CG_KERNEL,
		  offsetof(struct exm_cgcharge, kernel) },
	};
	char path[1088], key[64];
	uint64_t v;
	struct stat st;
	FILE *f;

	if (stat(dir, &st))
		return;
	c->ino = (uint64_t)st.st_ino;
	snprintf(path, sizeof(path), "%s/memory.current", dir);
	if (!exm_read_u64(AT_FDCWD, path, &c->current))
		c->has |= EXM_CG_CURRENT;
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fscanf(f, "%63s %" SCNu64, key, &v) == 2)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(key, keys[i].key)) {
				*(uint64_t *)((char *)c + keys[i].off) = v;
				c->has |= keys[i].bit;
			}
	fclose(f);
}

/* One entry per distinct cgroup of snap's processes, its charge read. */
static int list_cgroups(struct exm_snapshot *snap, const char *root)
{
	const char **keys = malloc((snap->nprocs + 1) * sizeof(*keys));
	int ret = 0;

	snap->cgroups = calloc(snap->nprocs + 1, sizeof(*snap->cgroups));
	if (!keys || !snap->cgroups) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < snap->nprocs; i++)
		keys[i] = exm_group_key(&snap->procs[i], EXM_GROUP_CGROUP);
	qsort(keys, snap->nprocs, sizeof(*keys), cmp_str);
	for (size_t i = 0; !ret && i < snap->nprocs; i++) {
		struct exm_cgcharge *c = &snap->cgroups[snap->ncgroups];
		char dir[1024];

		if (i && !strcmp(keys[i], keys[i - 1]))
			continue;
		c->path = strdup(keys[i]);
		if (!c->path) {
			ret = -ENOMEM;
			break;
		}
		snap->ncgroups++;
		snprintf(dir, sizeof(dir), "%s%s", root,
			 strcmp(keys[i], "/") ? keys[i] : "");
		read_charge(c, dir);
	}
	free(keys);
	return ret;
}

/* Whether word w of m is a frame the charge is compared on. */
static bool charged_frame(const struct exm_proc *p, const struct exm_mapping *m,
			  uint64_t w, const void *arg)
{
	(void)p;
	(void)arg;
	return !m->hugetlb && exm_pm_present(w) && !(w & EXM_PM_ZERO);
}

/* The distinct frames of snap, ascending, into *out (*n); a mapping
 * counted without its frames makes -EOPNOTSUPP (not known). */
static int all_frames(const struct exm_snapshot *snap, uint64_t **out,
		      size_t *n)
{
	for (size_t i = 0; i < snap->nprocs; i++)
		for (size_t j = 0; j < snap->procs[i].nmaps; j++)
			if (snap->procs[i].maps[j].counted &&
			    snap->procs[i].maps[j].counted_rss)
				return -EOPNOTSUPP;
	*out = exm_kpage_frames(snap, charged_frame, NULL, n);
	return *out ? 0 : -ENOMEM;
}

/* The index of x in v[0..n) (ascending), or n. */
static size_t find_u64(const uint64_t *v, size_t n, uint64_t x)
{
	const uint64_t *at = bsearch(&x, v, n, sizeof(*v), cmp_u64);

	return at ? (size_t)(at - v) : n;
}

struct cgino {
	uint64_t ino;
	size_t idx;
};

static int cmp_ino(const void *a, const void *b)
{
	return cmp_u64(&((const struct cgino *)a)->ino,
		       &((const struct cgino *)b)->ino);
}

/* The cgroup entry charged with memcg inode ino, or NULL. */
static struct exm_cgcharge *by_ino(struct exm_snapshot *snap,
				   const struct cgino *inos, uint64_t ino)
{
	struct cgino k = { .ino = ino };
	const struct cgino *at;

	if (!ino)
		return NULL;
	at = bsearch(&k, inos, snap->ncgroups, sizeof(*inos), cmp_ino);
	return at ? &snap->cgroups[at->idx] : NULL;
}

/*
 * others, elsewhere and unmapped from the memcg of every frame (memcg[i]
 * of frames[i]): each mapping of a frame is 1/cnt of it, as in effective
 * resident. 0 or -ENOMEM.
 */
static int compare_frames(struct exm_snapshot *snap, const uint64_t *frames,
			  const uint64_t *memcg, size_t nframes)
{
	size_t ncg = snap->ncgroups;
	struct cgino *inos = malloc((ncg + 1) * sizeof(*inos));
	long double *acc = calloc(3 * ncg + 1, sizeof(*acc));
	long double *others = acc, *elsewhere = acc + ncg,
		    *mapped_file = acc + 2 * ncg;
	double ps = snap->sys.page_size;
	const void *hint = NULL;

	if (!inos || !acc) {
		free(inos);
		free(acc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ncg; i++)
		inos[i] = (struct cgino){ snap->cgroups[i].ino, i };
	qsort(inos, ncg, sizeof(*inos), cmp_ino);
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		const struct exm_cgcharge *own =
			exm_cgcharge_find(snap,
					  exm_group_key(p, EXM_GROUP_CGROUP));
		size_t g = (size_t)(own - snap->cgroups);

		for (size_t j = 0; own && j < p->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j];

			for (uint32_t q = 0; q < m->npages; q++) {
				uint64_t w = exm_mapping_word(m, q), pfn;
				const struct exm_cgcharge *to;
				uint32_t cnt;
				long double share;

				if (!charged_frame(p, m, w, NULL))
					continue;
				pfn = exm_pm_key(w);
				cnt = exm_pagecount_get_hint(snap->pfn_counts,
							     pfn, NULL, &hint);
				share = ps / (cnt ? cnt : 1);
				to = by_ino(
					snap, inos,
					memcg[find_u64(frames, nframes, pfn)]);
				if (to != own)
					elsewhere[g] += share;
				if (!to)
					continue;
				if (to != own)
					others[to - snap->cgroups] += share;
				if (w & EXM_PM_FILE)
					mapped_file[to - snap->cgroups] += share;
			}
		}
	}
	for (size_t i = 0; i < ncg; i++) {
		struct exm_cgcharge *c = &snap->cgroups[i];
		uint64_t mapped = (uint64_t)(mapped_file[i] + 0.5L);

		c->others = (double)others[i];
		c->elsewhere = (double)elsewhere[i];
		c->has |= EXM_CG_FRAMES;
		if (c->has & EXM_CG_FILE) {
			c->unmapped = c->file > mapped ? c->file - mapped : 0;
			c->has |= EXM_CG_UNMAPPED;
		}
	}
	free(inos);
	free(acc);
	return 0;
}

/* The kpagecgroup figures, when every frame's memcg can be read. */
static int read_frames(struct exm_snapshot *snap, const char *proc_root)
{
	uint64_t *frames = NULL, *memcg;
	size_t n = 0;
	int ret = all_frames(snap, &frames, &n);

	if (ret)
		return ret == -EOPNOTSUPP ? 0 : ret;
	memcg = malloc((n + 1) * sizeof(*memcg));
	ret = memcg ? exm_kpage_read(proc_root, "kpagecgroup", frames, n, memcg)
		    : -ENOMEM;
	if (!ret)
		ret = compare_frames(snap, frames, memcg, n);
	else if (ret != -ENOMEM)
		ret = 0; /* not readable here: not known */
	free(frames);
	free(memcg);
	return ret;
}

bool exm_cgcharge_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dir[512], type[64];
	bool found = false;
	int c;

	if (!f)
		return false;
	while (!found && fscanf(f, "%*s %511s %63s", dir, type) == 2) {
		found = !strcmp(type, "cgroup2");
		while ((c = getc(f)) != EOF && c != '\n')
			;
	}
	fclose(f);
	snprintf(buf, len, "%s", found ? dir : "");
	return found;
}

bool exm_cgcharge_frames(const char *proc_root, const char *cg_root)
{
	char path[512];
	int fd;

	if (!*cg_root || !v2_memory(cg_root))
		return false;
	snprintf(path, sizeof(path), "%s/kpagecgroup",
		 proc_root && *proc_root ? proc_root : "/proc");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int exm_cgcharge_read(struct exm_snapshot *snap, const char *proc_root,
		      const char *cg_root)
{
	int ret;

	if (!(snap->sys.caps & EXM_CAP_CGROUP) || snap->cgroups)
		return 0;
	if (!*cg_root || !v2_memory(cg_root)) {
		snap->sys.caps |= EXM_CAP_CGROUP_V1;
		exm_sys_note(&snap->sys, EXM_CGCHARGE_V1_NOTE);
		return 0;
	}
	ret = list_cgroups(snap, cg_root);
	if (!ret && (snap->sys.caps & EXM_CAP_PFN) && snap->pfn_counts)
		ret = read_frames(snap, proc_root);
	return ret;
}
