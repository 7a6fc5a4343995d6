// SPDX-License-Identifier: GPL-2.0-or-later
/* kconfig.c - the running kernel's build configuration; see kconfig.h. */
#include "core/kconfig.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define OPTION "CONFIG_NO_PAGE_MAPCOUNT"

/* What a config line says of the option: 1 set, 0 not set, -1 nothing. */
static int option_line(const char *line)
{
	size_t n = strlen(OPTION);

	if (!strncmp(line, OPTION, n) && line[n] == '=')
		return line[n + 1] == 'y';
	if (!strncmp(line, "# " OPTION " is not set", n + 13))
		return 0;
	return -1;
}

/* 1 set, 0 not set or absent, -1 the file cannot be read. */
static int from_file(const char *path, bool gz)
{
	char line[512];
	int said = 0;

	if (!path)
		return -1;
	if (gz) {
		gzFile f = gzopen(path, "rbe");

		if (!f)
			return -1;
		while (gzgets(f, line, sizeof(line)))
			if ((said = option_line(line)) >= 0)
				break;
		gzclose(f);
	} else {
		FILE *f = fopen(path, "re");

		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			if ((said = option_line(line)) >= 0)
				break;
		fclose(f);
	}
	return said > 0;
}

/* Whether release is 6.15 or later (the option's first). */
static bool has_option(const char *release)
{
	unsigned major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return true; /* unknown: it may */
	return major > 6 || (major == 6 && minor >= 15);
}

enum exm_mapcount exm_kernel_mapcount(const char *release,
				      const char *boot_config,
				      const char *proc_config)
{
	int r;

	/* Before 6.15 no config is read: inflating /proc/config.gz is a
	 * tenth of a one-process snapshot's instructions, and more of its
	 * time under emulation (the QEMU benchmark). */
	if (!has_option(release))
		return EXM_MAPCOUNT_EXACT;
	r = from_file(boot_config, false);
	if (r < 0)
		r = from_file(proc_config, true);
	if (r > 0)
		return EXM_MAPCOUNT_AVERAGE;
	return r == 0 ? EXM_MAPCOUNT_EXACT : EXM_MAPCOUNT_UNKNOWN;
}

enum exm_mapcount exm_running_mapcount(const char *release,
				       const char *proc_root)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char k_release[128], k_root[256];
	static bool known;
	static enum exm_mapcount answer;
	char boot[160], proc[280];
	enum exm_mapcount r;

	pthread_mutex_lock(&lock);
	if (!known || strcmp(k_release, release) || strcmp(k_root, proc_root)) {
		snprintf(boot, sizeof(boot), "/boot/config-%s", release);
		snprintf(proc, sizeof(proc), "%s/config.gz", proc_root);
		answer = exm_kernel_mapcount(release, boot, proc);
		snprintf(k_release, sizeof(k_release), "%s", release);
		snprintf(k_root, sizeof(k_root), "%s", proc_root);
		known = true;
	}
	r = answer;
	pthread_mutex_unlock(&lock);
	return r;
}

void exm_kernel_mapcount_note(struct exm_sysinfo *sys)
{
	const char *what;

	switch (exm_running_mapcount(sys->kernel, "/proc")) {
	case EXM_MAPCOUNT_AVERAGE:
		sys->caps |= EXM_CAP_AVG_MAPCOUNT;
		what = "this kernel averages mapcounts of large folios "
		       "(CONFIG_NO_PAGE_MAPCOUNT): its Pss there is an "
		       "average, exmtop's counts are exact";
		break;
	case EXM_MAPCOUNT_UNKNOWN:
		what = "whether this kernel averages mapcounts of large "
		       "folios (CONFIG_NO_PAGE_MAPCOUNT) is not known: no "
		       "readable kernel config";
		break;
	default:
		return;
	}
	exm_sys_note(sys, what);
}
