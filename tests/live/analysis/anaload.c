// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * anaload LIB - load LIB with dlopen, call its tr_touch() (which writes
 * all of its .data and .bss), read every page of its PT_LOAD segments so
 * they are all resident, print "ready" and wait to be killed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *want;
static volatile unsigned char sink;

static int touch(struct dl_phdr_info *info, size_t size, void *data)
{
	long ps = sysconf(_SC_PAGESIZE);

	(void)size;
	(void)data;
	if (!info->dlpi_name || !strstr(info->dlpi_name, want))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a, end;

		if (ph->p_type != PT_LOAD)
			continue;
		a = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(ps - 1);
		end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		for (; a < end; a += (uintptr_t)ps)
			sink += *(volatile unsigned char *)a;
	}
	return 1;
}

int main(int argc, char **argv)
{
	void *h;
	int (*fn)(void);

	if (argc != 2)
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "anaload: %s\n", dlerror());
		return 1;
	}
	fn = (int (*)(void))dlsym(h, "tr_touch");
	if (!fn)
		return 1;
	fn();
	want = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	if (!dl_iterate_phdr(touch, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
