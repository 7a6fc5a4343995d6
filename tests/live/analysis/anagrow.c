// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * anagrow BYTES - print "ready"; on each SIGUSR1 grow the heap by BYTES
 * (sbrk, every page written) and print "grown". BYTES is a multiple of
 * the page size, so anonymous resident memory grows by exactly BYTES.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n;
	sigset_t set;
	int sig;

	if (argc != 2)
		return 2;
	n = strtoul(argv[1], NULL, 10);
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
