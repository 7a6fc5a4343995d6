/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idle - what this machine charges for work done after an idle pause
 * (bench/cpu_live.sh): the same fixed burst (a pass over 8 MiB and some
 * arithmetic, a few milliseconds) run ROUNDS times back to back, 0.1 s
 * apart, then ROUNDS times INTERVAL seconds apart, and the CPU time of a
 * burst in each (median). A live screen does its work in such bursts, one
 * per refresh: where the second figure is several times the first (a
 * virtual machine whose host lets an idle vCPU's caches and clock go
 * cold), every tool's per-refresh cost is inflated by as much, a short
 * burst's most.
 *
 * Usage: idle INTERVAL ROUNDS; prints "idle FAST_MS SLOW_MS".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)8 << 20)

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void pause_for(double s)
{
	struct timespec t = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&t, &t))
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ms of CPU of a burst, median of n, pause s before each */
static double bursts(unsigned char *buf, double s, int n)
{
	double *t = calloc((size_t)n, sizeof(*t));
	volatile unsigned long sink = 0;
	double med;

	if (!t)
		exit(1);
	for (int i = 0; i < n; i++) {
		double a;

		pause_for(s);
		a = cpu_now();
		for (int r = 0; r < 4; r++)
			for (size_t k = 0; k < BYTES; k += 64)
				sink += buf[k]++;
		for (unsigned long k = 0; k < 2000000; k++)
			sink += k * k;
		t[i] = (cpu_now() - a) * 1e3;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	med = t[n / 2];
	free(t);
	return med;
}

int main(int argc, char **argv)
{
	double interval = argc > 1 ? atof(argv[1]) : 2;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	unsigned char *buf = malloc(BYTES);
	double fast, slow;

	if (!buf || interval <= 0 || rounds < 1) {
		fprintf(stderr, "usage: idle INTERVAL ROUNDS\n");
		return 2;
	}
	memset(buf, 1, BYTES);
	fast = bursts(buf, 0.1, rounds * 2);
	slow = bursts(buf, interval, rounds);
	printf("idle %.2f %.2f\n", fast, slow);
	return 0;
}
