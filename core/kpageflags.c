// SPDX-License-Identifier: GPL-2.0-or-later
/* kpageflags.c - flags of the frames a snapshot has; see kpageflags.h. */
#include "core/kpageflags.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pagemap.h"

/* Frames read with one pread at most (64 KiB of flags). */
#define KPF_SPAN 8192

int exm_kpageflags_read(const char *proc_root, const uint64_t *pfns,
			size_t n, uint64_t *flags)
{
	char path[512];
	uint64_t *buf;
	int fd, ret = 0;

	if (!n)
		return 0;
	snprintf(path, sizeof(path), "%s/kpageflags",
		 proc_root && *proc_root ? proc_root : "/proc");
	buf = malloc(KPF_SPAN * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (size_t i = 0, j; i < n && !ret; i = j) {
		uint64_t first = pfns[i], span;
		ssize_t got;

		/* the frames that fit in one read from pfns[i] */
		for (j = i + 1; j < n && pfns[j] - first < KPF_SPAN; j++)
			;
		span = pfns[j - 1] - first + 1;
		got = pread(fd, buf, span * sizeof(*buf),
			    (off_t)(first * sizeof(*buf)));
		if (got < 0)
			ret = -errno;
		else if ((size_t)got < span * sizeof(*buf))
			ret = -EIO; /* a frame past the end of memory */
		for (size_t k = i; k < j && !ret; k++)
			flags[k] = buf[pfns[k] - first];
	}
	close(fd);
	free(buf);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct anonymous frames of snap, ascending (caller frees). */
static uint64_t *anon_frames(const struct exm_snapshot *snap, size_t *n)
{
	uint64_t *v = NULL;
	size_t k = 0, cap = 0;

	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; j < p->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j];

			for (uint32_t q = 0; q < m->npages; q++) {
				uint64_t w = exm_mapping_word(m, q);

				if (!exm_pm_present(w) || (w & EXM_PM_FILE))
					continue;
				if (k == cap) {
					uint64_t *nv;

					cap = cap ? 2 * cap : 4096;
					nv = realloc(v, cap * sizeof(*v));
					if (!nv) {
						free(v);
						return NULL;
					}
					v = nv;
				}
				v[k++] = exm_pm_key(w);
			}
		}
	}
	if (!v)
		v = malloc(sizeof(*v));
	if (!v)
		return NULL;
	qsort(v, k, sizeof(*v), cmp_u64);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!i || v[i] != v[i - 1])
			v[(*n)++] = v[i];
	return v;
}

int exm_swapcache_mapped(struct exm_snapshot *snap, const char *proc_root)
{
	static const char key[] = EXM_MI_SWAPCACHE_MAPPED;
	uint64_t cached = 0, *pfns, *flags, in = 0;
	size_t n = 0;
	int ret;

	if (!(snap->sys.caps & EXM_CAP_PFN) ||
	    !exm_meminfo_get(&snap->sys.meminfo, "SwapCached", &cached) ||
	    !cached)
		return 0;
	pfns = anon_frames(snap, &n);
	if (!pfns)
		return -ENOMEM;
	flags = malloc((n ? n : 1) * sizeof(*flags));
	if (!flags) {
		free(pfns);
		return -ENOMEM;
	}
	ret = exm_kpageflags_read(proc_root, pfns, n, flags);
	for (size_t i = 0; !ret && i < n; i++)
		in += (flags[i] >> EXM_KPF_SWAPCACHE) & 1;
	free(flags);
	free(pfns);
	if (ret == -ENOMEM)
		return ret;
	if (ret) /* not readable here: the row stays unknown */
		return 0;
	/* a full table or a row already there: nothing to add */
	exm_meminfo_add(&snap->sys.meminfo, key, sizeof(key) - 1,
			in * snap->sys.page_size / 1024, true);
	return 0;
}
