// SPDX-License-Identifier: GPL-2.0-or-later
/* parallel.c - see parallel.h. */
#include "core/parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/* The CPUs online, counted once a run (sysconf reads
 * /sys/devices/system/cpu/online at every call, and every snapshot asks
 * twice): the count only sizes a team of at most EXM_MAX_THREADS, and a
 * CPU brought online later changes no figure. */
static long cpus_online(void)
{
	static long cpus; /* __atomic: 0 until counted */
	long c = __atomic_load_n(&cpus, __ATOMIC_RELAXED);

	if (!c) {
		c = sysconf(_SC_NPROCESSORS_ONLN);
		if (c < 1)
			c = 1;
		__atomic_store_n(&cpus, c, __ATOMIC_RELAXED);
	}
	return c;
}

unsigned exm_thread_count(size_t n, size_t min_items)
{
	const char *env = getenv("EXMTOP_THREADS");
	unsigned t = (unsigned)cpus_online();

	if (env && *env)
		t = (unsigned)strtoul(env, NULL, 10);
	if (t > EXM_MAX_THREADS)
		t = EXM_MAX_THREADS;
	if (t < 1 || n < min_items)
		t = 1;
	return t;
}

bool exm_threads_fixed(void)
{
	const char *env = getenv("EXMTOP_THREADS");

	return env && *env;
}

/* The ids of the last OWN_TIDS threads started (a ring; 0: none). */
#define OWN_TIDS 64
static pid_t own_tids[OWN_TIDS]; /* __atomic */
static unsigned own_next;	 /* __atomic */

static void *job_main(void *p)
{
	struct exm_team_job *j = p;
	unsigned k = __atomic_fetch_add(&own_next, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&own_tids[k % OWN_TIDS], gettid(), __ATOMIC_RELEASE);
	j->fn(j->arg, j->t, j->n);
	return NULL;
}

bool exm_own_thread(pid_t tid)
{
	for (unsigned k = 0; k < OWN_TIDS; k++)
		if (tid &&
		    __atomic_load_n(&own_tids[k], __ATOMIC_ACQUIRE) == tid)
			return true;
	return false;
}

void exm_team_start(struct exm_team *tm, unsigned n,
		    void (*fn)(void *arg, unsigned t, unsigned n), void *arg)
{
	if (n < 1)
		n = 1;
	if (n > EXM_MAX_THREADS)
		n = EXM_MAX_THREADS;
	tm->n = n;
	for (unsigned t = 1; t < n; t++) {
		struct exm_team_job *j = &tm->jobs[t];

		*j = (struct exm_team_job){
			.fn = fn, .arg = arg, .t = t, .n = n
		};
		j->started = !pthread_create(&j->thread, NULL, job_main, j);
	}
}

void exm_team_join(struct exm_team *tm)
{
	for (unsigned t = 1; t < tm->n; t++) {
		struct exm_team_job *j = &tm->jobs[t];

		if (j->started)
			pthread_join(j->thread, NULL);
		else
			j->fn(j->arg, j->t, j->n);
	}
	tm->n = 0;
}

void exm_parallel(unsigned n, void (*fn)(void *arg, unsigned t, unsigned n),
		  void *arg)
{
	struct exm_team tm;

	exm_team_start(&tm, n, fn, arg);
	fn(arg, 0, tm.n);
	exm_team_join(&tm);
}
