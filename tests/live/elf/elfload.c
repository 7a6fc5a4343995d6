// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * elfload.c - load a library (dlopen), call one function of it (argv[2],
 * or none with "-"), say "ready" and wait for a signal. Built at test time
 * by tests/live/test_elf.py.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *h;
	void (*fn)(void);

	if (argc < 3) {
		fprintf(stderr, "usage: elfload LIB FUNCTION|-\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "elfload: %s\n", dlerror());
		return 1;
	}
	if (strcmp(argv[2], "-")) {
		*(void **)&fn = dlsym(h, argv[2]);
		if (!fn) {
			fprintf(stderr, "elfload: %s\n", dlerror());
			return 1;
		}
		fn();
	}
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
