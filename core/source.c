// SPDX-License-Identifier: GPL-2.0-or-later
/* source.c - the source registry: open a source by name, take snapshots. */
#include "core/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/account.h"
#include "core/cgcharge.h"
#include "core/kconfig.h"
#include "core/reuse.h"
#include "core/source_priv.h"

/* Every source, in the order "auto" tries them: the first whose probe
 * says it is usable here is chosen (sources without a probe are only
 * opened by name). */
static const struct exm_source_ops *const sources[] = {
	&exm_source_kmod,    &exm_source_pagemap, &exm_source_smaps,
	&exm_source_fixture, &exm_source_replay,
};

#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

static const struct exm_source_ops *pick_auto(void)
{
	for (size_t i = 0; i < NSOURCES; i++)
		if (sources[i]->probe && sources[i]->probe())
			return sources[i];
	return NULL;
}

static const struct exm_source_ops *by_name(const char *name, size_t nlen)
{
	for (size_t i = 0; i < NSOURCES; i++)
		if (strlen(sources[i]->name) == nlen &&
		    !strncmp(sources[i]->name, name, nlen))
			return sources[i];
	return NULL;
}

const struct exm_source_ops *exm_source_find(const char *name)
{
	const char *colon = strchr(name, ':');

	return by_name(name, colon ? (size_t)(colon - name) : strlen(name));
}

const char *exm_source_name(size_t i, bool *takes_arg)
{
	if (i >= NSOURCES)
		return NULL;
	*takes_arg = sources[i]->arg != NULL;
	return sources[i]->name;
}

static void unknown(const char *name, size_t nlen, char *err, size_t errlen)
{
	size_t n = (size_t)snprintf(err, errlen,
				    "unknown source '%.*s' (try auto",
				    (int)(nlen > 64 ? 64 : nlen), name);

	for (size_t i = 0; i < NSOURCES && n < errlen; i++)
		n += (size_t)snprintf(err + n, errlen - n, ", %s%s%s",
				      sources[i]->name,
				      sources[i]->arg ? ":" : "",
				      sources[i]->arg ? sources[i]->arg : "");
	if (n < errlen)
		snprintf(err + n, errlen - n, ")");
}

int exm_source_open(const char *name, struct exm_source **out, char *err,
		    size_t errlen)
{
	const struct exm_source_ops *ops;
	struct exm_source *src;
	const char *arg = NULL;
	size_t nlen;
	int ret;

	if (!name || !strcmp(name, "auto")) {
		ops = pick_auto();
		if (!ops) {
			snprintf(err, errlen, "no source is usable here");
			return -ENODEV;
		}
	} else {
		nlen = strcspn(name, ":");
		if (name[nlen] == ':')
			arg = name + nlen + 1;
		ops = by_name(name, nlen);
		if (!ops) {
			unknown(name, nlen, err, errlen);
			return -EINVAL;
		}
		if (arg && !ops->arg && !ops->arg_unlisted) {
			snprintf(err, errlen, "source '%s' takes no argument",
				 ops->name);
			return -EINVAL;
		}
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	src->ops = ops;
	src->arg = arg;
	ret = ops->open(src);
	if (ret) {
		snprintf(err, errlen, "%s",
			 src->errmsg[0] ? src->errmsg : strerror(-ret));
		free(src);
		return ret;
	}
	*out = src;
	return 0;
}

int exm_source_knob_check(struct exm_source *src,
			  const struct exm_source_knob *knob, int word)
{
	if (!knob || src->ops->knob != knob || !src->ops->knob_check)
		return 0;
	src->errmsg[0] = '\0';
	return src->ops->knob_check(src, word);
}

void exm_source_close(struct exm_source *src)
{
	if (!src)
		return;
	if (src->ops->close)
		src->ops->close(src);
	exm_reuse_free(src->reuse);
	exm_kept_fds_free(src);
	free(src);
}

static double elapsed(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
	       (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/* A scan of listed processes only: say so with what the source says. */
static void limited(struct exm_sysinfo *sys)
{
	size_t n = strlen(sys->limits);

	sys->caps |= EXM_CAP_LIMITED;
	snprintf(sys->limits + n, sizeof(sys->limits) - n,
		 "%slimited scan: sharing counted among the listed processes "
		 "only",
		 n ? "; " : "");
}

int exm_source_set_reuse(struct exm_source *src, double full_every, bool check)
{
	bool kmod = src->ops == &exm_source_kmod && exm_kmod_watches(src);

	if (src->ops != &exm_source_pagemap && !kmod)
		return 0;
	exm_reuse_free(src->reuse);
	src->reuse = exm_reuse_new(full_every, check);
	if (src->reuse && kmod)
		exm_reuse_set_exact(src->reuse);
	return src->reuse ? 0 : -ENOMEM;
}

void exm_source_last(struct exm_source *src)
{
	if (src->reuse)
		exm_reuse_last(src->reuse);
}

const struct exm_reuse_stats *exm_source_reuse_stats(
	const struct exm_source *src)
{
	return src ? exm_reuse_stats(src->reuse) : NULL;
}

static int take(struct exm_source *src, const struct exm_scan_opts *opts,
		struct exm_snapshot **out)
{
	struct exm_snapshot *snap = exm_snapshot_new();
	struct exm_scan_opts every;
	struct exm_builder b;
	struct timespec t0;
	char cg_root[512] = "";
	int ret;

	if (!snap)
		return -ENOMEM;
	/* where cgroup v2 is mounted, read once a snapshot (not once a run:
	 * a hierarchy mounted while a live screen runs is used at its next
	 * refresh) */
	if (opts && opts->want_cgcharge)
		exm_cgcharge_mount(cg_root, sizeof(cg_root));
	/* the charge compares the memcg of every frame: none counted, where
	 * the memcgs can be read (elsewhere its figures are null anyway) */
	if (opts && opts->want_cgcharge && !opts->want_places &&
	    exm_cgcharge_frames(NULL, cg_root)) {
		every = *opts;
		every.want_places = true;
		opts = &every;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME, &snap->sys.taken_at);
	src->errmsg[0] = '\0';
	exm_builder_init(&b, snap);
	ret = src->ops->fill(src, opts, &b);
	exm_snapshot_note_order(snap); /* once: a miss by pid costs log n */
	if (!ret && opts && opts->pids && !(snap->sys.caps & EXM_CAP_LIMITED))
		limited(&snap->sys);
	/* the running kernel (not a fixture's, not a replay's) */
	if (!ret && snap->sys.proc_root[0] &&
	    !(snap->sys.caps & EXM_CAP_REPLAY))
		exm_kernel_mapcount_note(&snap->sys);
	if (!ret && !exm_reuse_defers(src->reuse))
		ret = exm_snapshot_account(snap);
	/* this machine's cgroups, for the processes of its /proc */
	if (!ret && opts && opts->want_cgcharge &&
	    !(snap->sys.caps & EXM_CAP_REPLAY) &&
	    !strcmp(snap->sys.proc_root, "/proc"))
		ret = exm_cgcharge_read(snap, snap->sys.proc_root, cg_root);
	if (ret) {
		exm_snapshot_free(snap);
		return ret;
	}
	/* A replayed snapshot keeps the time its recording took. */
	if (!(snap->sys.time_taken > 0))
		snap->sys.time_taken = elapsed(&t0);
	*out = snap;
	return 0;
}

int exm_source_snapshot(struct exm_source *src,
			const struct exm_scan_opts *opts,
			struct exm_snapshot **out)
{
	if (src->reuse)
		return exm_reuse_snapshot(src->reuse, src, opts, take, out);
	return take(src, opts, out);
}

size_t exm_source_count(const struct exm_source *src)
{
	return src && src->ops->count ? src->ops->count(src) : 0;
}

size_t exm_source_tell(const struct exm_source *src)
{
	return src && src->ops->tell ? src->ops->tell(src) : 0;
}

int exm_source_seek(struct exm_source *src, size_t idx)
{
	return src && src->ops->seek ? src->ops->seek(src, idx) : -EINVAL;
}

int exm_source_time(const struct exm_source *src, size_t idx,
		    struct timespec *at)
{
	return src && src->ops->time ? src->ops->time(src, idx, at) : -EINVAL;
}

int exm_source_seek_time(struct exm_source *src, const struct timespec *t)
{
	return src && src->ops->seek_time ? src->ops->seek_time(src, t)
					  : -EINVAL;
}

void exm_source_help(char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "auto");

	for (size_t i = 0; i < NSOURCES && n < len; i++) {
		const struct exm_source_ops *o = sources[i];

		n += (size_t)snprintf(buf + n, len - n, ", %s%s%s%s%s%s",
				      o->name, o->arg ? ":" : "",
				      o->arg ? o->arg : "", o->help ? " (" : "",
				      o->help ? o->help : "",
				      o->help ? ")" : "");
	}
}
