// SPDX-License-Identifier: GPL-2.0-or-later
/* source_replay.c - snapshots read back from a recording; see
 * source_replay.h. */
#include "core/source_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"

struct replay {
	struct exm_recording *rec;
	size_t next;
};

static int rp_open(struct exm_source *src)
{
	struct replay *rp;
	int ret;

	if (!src->arg || !*src->arg) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "replay needs a file: --source replay:FILE");
		return -EINVAL;
	}
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	ret = exm_recording_open(src->arg, &rp->rec, src->errmsg,
				 sizeof(src->errmsg));
	if (!ret && !exm_recording_count(rp->rec)) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "%.200s: the recording holds no snapshot", src->arg);
		ret = -EINVAL;
	}
	if (ret) {
		exm_recording_close(rp->rec);
		free(rp);
		/* a file that is missing or unreadable is a bad option value */
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	src->priv = rp;
	return 0;
}

static int rp_fill(struct exm_source *src, const struct exm_scan_opts *opts,
		   struct exm_builder *b)
{
	struct replay *rp = src->priv;
	struct exm_sysinfo *sys = &b->snap->sys;
	int ret = exm_recording_load(rp->rec, rp->next, &exm_builder_sink, b);

	if (ret) {
		snprintf(src->errmsg, sizeof(src->errmsg), "%s",
			 exm_recording_errmsg(rp->rec));
		return ret;
	}
	/* The recorded facts, but say where they come from now, and that
	 * no live /proc stands behind them. */
	snprintf(sys->source_detail, sizeof(sys->source_detail),
		 "replay %zu/%zu of %.60s", rp->next + 1,
		 exm_recording_count(rp->rec), src->arg);
	sys->proc_root[0] = '\0';
	/* a recording keeps every process's cgroup (exmtop records with
	 * everything read) */
	sys->caps |= EXM_CAP_REPLAY | EXM_CAP_CGROUP;
	if (opts && opts->pids) /* honour -p like a live source */
		exm_snapshot_keep_pids(b->snap, opts->pids, opts->npids);
	if (rp->next + 1 < exm_recording_count(rp->rec))
		rp->next++;
	return 0;
}

static void rp_close(struct exm_source *src)
{
	struct replay *rp = src->priv;

	if (rp)
		exm_recording_close(rp->rec);
	free(rp);
}

static struct replay *replay_of(const struct exm_source *src)
{
	return src && src->ops == &exm_source_replay ? src->priv : NULL;
}

static size_t rp_count(const struct exm_source *src)
{
	struct replay *rp = replay_of(src);

	return rp ? exm_recording_count(rp->rec) : 0;
}

static size_t rp_tell(const struct exm_source *src)
{
	struct replay *rp = replay_of(src);

	return rp ? rp->next : 0;
}

static int rp_seek(struct exm_source *src, size_t idx)
{
	struct replay *rp = replay_of(src);

	if (!rp)
		return -EINVAL;
	if (idx >= exm_recording_count(rp->rec))
		return -ERANGE;
	rp->next = idx;
	return 0;
}

static int rp_time(const struct exm_source *src, size_t idx,
		   struct timespec *at)
{
	struct replay *rp = replay_of(src);

	return rp ? exm_recording_time(rp->rec, idx, at) : -EINVAL;
}

static int rp_seek_time(struct exm_source *src, const struct timespec *t)
{
	struct replay *rp = replay_of(src);

	if (!rp)
		return -EINVAL;
	rp->next = exm_recording_find_time(rp->rec, t);
	return 0;
}

const struct exm_source_ops exm_source_replay = {
	.name = "replay",
	.arg = "FILE",
	.count = rp_count,
	.tell = rp_tell,
	.seek = rp_seek,
	.time = rp_time,
	.seek_time = rp_seek_time,
	.open = rp_open,
	.fill = rp_fill,
	.close = rp_close,
};
