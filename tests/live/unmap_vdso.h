/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unmap_vdso.h - for the live tests' fixture programs (sharer.c,
 * freedset.c): unmap [vdso], [vvar] and [vvar_vclock], the pages every
 * process maps, so that no page of a statically linked fixture is mapped
 * by a process outside it. Needs <stdio.h>, <string.h>, <sys/mman.h>.
 */
#ifndef EXM_TESTS_UNMAP_VDSO_H
#define EXM_TESTS_UNMAP_VDSO_H

/* 0, or -1 with errno set (maps unreadable, munmap failed). */
static int unmap_vdso(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo[8], hi[8];
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (n < 8 && fgets(line, sizeof(line), f))
		if ((strstr(line, "[vdso]") || strstr(line, "[vvar")) &&
		    sscanf(line, "%lx-%lx", &lo[n], &hi[n]) == 2)
			n++;
	fclose(f);
	for (int i = 0; i < n; i++)
		if (munmap((void *)lo[i], hi[i] - lo[i]))
			return -1;
	return 0;
}

#endif
