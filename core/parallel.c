// SPDX-License-Identifier: GPL-2.0-or-later
/* parallel.c - see parallel.h. */
#include "core/parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

unsigned exm_thread_count(size_t n, size_t min_items)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const char *env = getenv("EXMTOP_THREADS");
	unsigned t = cpus > 0 ? (unsigned)cpus : 1;

	if (env && *env)
		t = (unsigned)strtoul(env, NULL, 10);
	if (t > EXM_MAX_THREADS)
		t = EXM_MAX_THREADS;
	if (t < 1 || n < min_items)
		t = 1;
	return t;
}

struct job {
	void (*fn)(void *arg, unsigned t, unsigned n);
	void *arg;
	unsigned t, n;
	pthread_t thread;
	bool started;
};

static void *job_main(void *p)
{
	struct job *j = p;

	j->fn(j->arg, j->t, j->n);
	return NULL;
}

void exm_parallel(unsigned n, void (*fn)(void *arg, unsigned t, unsigned n),
		  void *arg)
{
	struct job jobs[EXM_MAX_THREADS];

	if (n < 1)
		n = 1;
	if (n > EXM_MAX_THREADS)
		n = EXM_MAX_THREADS;
	for (unsigned t = 1; t < n; t++) {
		jobs[t] = (struct job){ .fn = fn, .arg = arg, .t = t, .n = n };
		jobs[t].started = !pthread_create(&jobs[t].thread, NULL,
						  job_main, &jobs[t]);
	}
	fn(arg, 0, n);
	for (unsigned t = 1; t < n; t++) {
		if (jobs[t].started)
			pthread_join(jobs[t].thread, NULL);
		else
			fn(arg, t, n);
	}
}
