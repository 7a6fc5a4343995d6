// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * anagrow BYTES - print "ready"; on each SIGUSR1 grow the heap by BYTES
 * (sbrk, every page written) and print "grown". BYTES is a multiple of
 * the page size, so anonymous resident memory grows by exactly BYTES:
 * no huge pages (with THP "always", khugepaged could collapse a 2 MiB
 * range of the heap and fill its untouched pages: 28 more, once in 40
 * runs of test_analysis_cli).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n;
	sigset_t set;
	int sig;

	if (argc != 2)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		void *p;

		if (sigwait(&set, &sig))
			return 1;
		p = sbrk((intptr_t)n);
		if (p == (void *)-1)
			return 1;
		memset(p, 0x5a, n);
		printf("grown\n");
		fflush(stdout);
	}
}
