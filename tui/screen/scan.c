// SPDX-License-Identifier: GPL-2.0-or-later
/* scan.c - the snapshot worker thread; see scan.h. */
#include "tui/screen/scan.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tui_scanner {
	struct exm_source *src;
	struct exm_scan_opts scan; /* scan.kpss_pids: kpss_own */
	pid_t *kpss_own;
	bool threaded;
	int pipe[2]; /* worker -> UI: "a result is ready" */

	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool requested; /* UI asked, worker has not started yet */
	bool busy;	/* requested or being taken */
	bool quit;
	bool detached; /* UI gave up on us: worker frees the scanner */

	struct exm_recorder *rec; /* --record: each snapshot appended */
	long seek;		  /* replay: index to load next, or -1 */
	size_t pos, ready_pos, taken_pos; /* replay: index being loaded,
					   * of ready, of the last taken */

	struct exm_snapshot *ready;
	/* old snapshots for the worker to free */
	struct exm_snapshot *dispose[4];
	unsigned ndispose;
	int err;
	char msg[256];
};

static void scanner_free(struct tui_scanner *s)
{
	if (s->src)
		exm_source_close(s->src);
	if (s->rec)
		exm_record_close(s->rec);
	free(s->kpss_own);
	if (s->ready)
		exm_snapshot_free(s->ready);
	while (s->ndispose)
		exm_snapshot_free(s->dispose[--s->ndispose]);
	close(s->pipe[0]);
	close(s->pipe[1]);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
}

/* Take one snapshot and post it (called with the lock not held). */
static void take_one(struct tui_scanner *s)
{
	struct exm_snapshot *snap = NULL;
	struct exm_scan_opts so;
	pid_t *kpss = NULL;
	char c = 1;
	ssize_t w;
	int err;

	pthread_mutex_lock(&s->lock);
	so = s->scan;
	/* the UI may change the pid list while we scan: our own copy */
	if (so.kpss_pids) {
		kpss = malloc((so.nkpss_pids ? so.nkpss_pids : 1) *
			      sizeof(*kpss));
		if (kpss && so.nkpss_pids)
			memcpy(kpss, so.kpss_pids,
			       so.nkpss_pids * sizeof(*kpss));
		if (!kpss) /* no memory: read them all */
			so.nkpss_pids = 0;
		so.kpss_pids = kpss;
	}
	if (s->rec) /* a recording keeps where every page lies */
		so.want_places = true;
	if (s->seek >= 0)
		exm_source_seek(s->src, (size_t)s->seek);
	s->seek = -1;
	s->pos = exm_source_tell(s->src);
	pthread_mutex_unlock(&s->lock);
	err = exm_source_snapshot(s->src, &so, &snap);
	free(kpss);
	if (!err && s->rec && exm_record_snapshot(s->rec, snap)) {
		err = -EIO;
		snprintf(s->src->errmsg, sizeof(s->src->errmsg),
			 "--record: %.200s", exm_record_errmsg(s->rec));
	}

	pthread_mutex_lock(&s->lock);
	if (s->ready)
		exm_snapshot_free(s->ready);
	s->ready = err ? NULL : snap;
	s->ready_pos = s->pos;
	s->err = err;
	if (err) {
		snprintf(s->msg, sizeof(s->msg), "%s",
			 s->src->errmsg[0] ? s->src->errmsg : strerror(-err));
		if (snap)
			exm_snapshot_free(snap);
	}
	s->busy = false;
	pthread_mutex_unlock(&s->lock);
	do
		w = write(s->pipe[1], &c, 1);
	while (w < 0 && errno == EINTR);
}

static void *worker(void *arg)
{
	struct tui_scanner *s = arg;
	bool free_it;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct exm_snapshot *old;

		while (!s->requested && !s->quit && !s->ndispose)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->quit)
			break;
		if (s->ndispose) {
			old = s->dispose[--s->ndispose];
			/* freeing a big snapshot costs; not on the UI's time */
			pthread_mutex_unlock(&s->lock);
			exm_snapshot_free(old);
			pthread_mutex_lock(&s->lock);
			continue;
		}
		s->requested = false;
		pthread_mutex_unlock(&s->lock);
		take_one(s);
		pthread_mutex_lock(&s->lock);
	}
	free_it = s->detached;
	pthread_mutex_unlock(&s->lock);
	if (free_it)
		scanner_free(s);
	return NULL;
}

int tui_scanner_start(struct tui_scanner **out, struct exm_source *src,
		      const struct exm_scan_opts *scan, bool threaded)
{
	struct tui_scanner *s = calloc(1, sizeof(*s));
	sigset_t all, old;
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->src = src;
	s->scan = *scan;
	s->scan.kpss_pids = NULL; /* until tui_scanner_set_opts: all */
	s->scan.nkpss_pids = 0;
	s->threaded = threaded;
	s->seek = -1;
	if (pipe2(s->pipe, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		free(s);
		return err;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (threaded) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		err = -pthread_create(&s->th, NULL, worker, s);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (err) {
			s->src = NULL; /* not ours on failure */
			scanner_free(s);
			return err;
		}
	}
	*out = s;
	return 0;
}

int tui_scanner_fd(const struct tui_scanner *s)
{
	return s->pipe[0];
}

void tui_scanner_request(struct tui_scanner *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->busy) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	s->busy = true;
	if (s->threaded) {
		s->requested = true;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	pthread_mutex_unlock(&s->lock);
	take_one(s);
}

void tui_scanner_dispose(struct tui_scanner *s, struct exm_snapshot *snap)
{
	bool queued = false;

	if (!snap)
		return;
	if (s->threaded) {
		pthread_mutex_lock(&s->lock);
		if (s->ndispose < sizeof(s->dispose) / sizeof(s->dispose[0])) {
			s->dispose[s->ndispose++] = snap;
			queued = true;
			pthread_cond_signal(&s->cond);
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (!queued) /* synchronous, or the worker is far behind */
		exm_snapshot_free(snap);
}

void tui_scanner_set_opts(struct tui_scanner *s,
			  const struct exm_scan_opts *scan)
{
	pid_t *own = NULL;

	if (scan->kpss_pids) {
		own = malloc((scan->nkpss_pids ? scan->nkpss_pids : 1) *
			     sizeof(*own));
		if (own && scan->nkpss_pids)
			memcpy(own, scan->kpss_pids,
			       scan->nkpss_pids * sizeof(*own));
	}
	pthread_mutex_lock(&s->lock);
	free(s->kpss_own);
	s->kpss_own = own;
	s->scan = *scan;
	s->scan.kpss_pids = own; /* NULL, also without memory: all */
	if (!own)
		s->scan.nkpss_pids = 0;
	pthread_mutex_unlock(&s->lock);
}

void tui_scanner_record(struct tui_scanner *s, struct exm_recorder *rec)
{
	pthread_mutex_lock(&s->lock);
	s->rec = rec;
	pthread_mutex_unlock(&s->lock);
}

void tui_scanner_seek(struct tui_scanner *s, size_t idx)
{
	pthread_mutex_lock(&s->lock);
	s->seek = (long)idx;
	pthread_mutex_unlock(&s->lock);
}

size_t tui_scanner_pos(struct tui_scanner *s)
{
	size_t pos;

	pthread_mutex_lock(&s->lock);
	pos = s->taken_pos;
	pthread_mutex_unlock(&s->lock);
	return pos;
}

bool tui_scanner_busy(struct tui_scanner *s)
{
	bool b;

	pthread_mutex_lock(&s->lock);
	b = s->busy;
	pthread_mutex_unlock(&s->lock);
	return b;
}

struct exm_snapshot *tui_scanner_take(struct tui_scanner *s, int *err,
				      char *msg, size_t msglen)
{
	struct exm_snapshot *snap;
	char buf[64];

	while (read(s->pipe[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&s->lock);
	snap = s->ready;
	s->ready = NULL;
	if (snap)
		s->taken_pos = s->ready_pos;
	*err = s->err;
	if (s->err && msg && msglen)
		snprintf(msg, msglen, "%s", s->msg);
	s->err = 0;
	pthread_mutex_unlock(&s->lock);
	return snap;
}

bool tui_scanner_stop(struct tui_scanner *s)
{
	bool idle;

	if (!s)
		return true;
	if (!s->threaded) {
		scanner_free(s);
		return true;
	}
	pthread_mutex_lock(&s->lock);
	idle = !s->busy;
	s->quit = true;
	if (!idle)
		s->detached = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (idle) {
		pthread_join(s->th, NULL);
		scanner_free(s);
	} else {
		pthread_detach(s->th);
	}
	return idle;
}
