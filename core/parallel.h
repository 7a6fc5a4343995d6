/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parallel.h - the few threads a snapshot uses: the /proc walk and the two
 * accounting passes spread their work over one thread per CPU (at most
 * EXM_MAX_THREADS; EXMTOP_THREADS overrides the CPU count).
 */
#ifndef EXM_PARALLEL_H
#define EXM_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define EXM_MAX_THREADS 4

/* Threads to use for n items of work: 1 when n < min_items. */
unsigned exm_thread_count(size_t n, size_t min_items);

/* Whether EXMTOP_THREADS fixes the count (work then starts all at once). */
bool exm_threads_fixed(void);

/*
 * Call fn(arg, t, n) for t = 0 .. n-1, each on its own thread (t = 0 on the
 * caller's), and return when all are done. A thread that cannot be started
 * runs on the caller's thread afterwards, so every t always runs.
 */
void exm_parallel(unsigned n, void (*fn)(void *arg, unsigned t, unsigned n),
		  void *arg);

/*
 * The same in two steps, for work that decides late whether it is worth
 * more threads: exm_team_start runs fn(arg, t, n) for t = 1 .. n-1 on
 * threads of their own (the caller is t = 0 and calls fn itself, or not);
 * exm_team_join waits for them, and runs those that could not be started.
 */
struct exm_team {
	struct exm_team_job {
		void (*fn)(void *arg, unsigned t, unsigned n);
		void *arg;
		unsigned t, n;
		pthread_t thread;
		bool started;
	} jobs[EXM_MAX_THREADS];
	unsigned n;
};

void exm_team_start(struct exm_team *tm, unsigned n,
		    void (*fn)(void *arg, unsigned t, unsigned n), void *arg);
void exm_team_join(struct exm_team *tm);

/*
 * Whether tid is one of the last 64 threads started here: a pid the kernel
 * gave to exmtop itself, not a process (reuse.c's born_during, which asks
 * after the threads of a walk are gone, soon after they were started).
 */
bool exm_own_thread(pid_t tid);

#endif
