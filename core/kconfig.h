/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kconfig.h - what the running kernel's build configuration says, where it
 * can be read: /boot/config-RELEASE, else /proc/config.gz.
 *
 * On a kernel built with CONFIG_NO_PAGE_MAPCOUNT (Linux 6.15 and later) a
 * large folio keeps no per-page mapcount: smaps' Pss (and smaps_rollup's)
 * and /proc/kpagecount of its pages are averages over the folio. exmtop's
 * own counts come from the frames it collates and stay exact; the kernel's
 * figures beside them are what differs, and the header and pss-mismatch
 * say so.
 */
#ifndef EXM_KCONFIG_H
#define EXM_KCONFIG_H

#include "core/snapshot.h"

enum exm_mapcount {
	EXM_MAPCOUNT_EXACT = 0, /* per-page mapcounts (or before 6.15) */
	EXM_MAPCOUNT_AVERAGE,	/* CONFIG_NO_PAGE_MAPCOUNT=y */
	EXM_MAPCOUNT_UNKNOWN,	/* 6.15 or later, no readable config */
};

/*
 * How the kernel of release (uname -r) counts mappings of large folios,
 * from the config at boot_config (plain text) or else proc_config (gzip);
 * either may be NULL.
 */
enum exm_mapcount exm_kernel_mapcount(const char *release,
				      const char *boot_config,
				      const char *proc_config);

/*
 * The same for the kernel of release, its config at /boot/config-RELEASE or
 * else PROC_ROOT/config.gz, read once per run: the answer for the last
 * (release, proc_root) asked is kept, so the snapshot's note, the pagemap
 * source and the live refresh share one read (thread-safe).
 */
enum exm_mapcount exm_running_mapcount(const char *release,
				       const char *proc_root);

/*
 * For a snapshot of the running kernel (sys->kernel its release): when the
 * kernel averages mapcounts, set EXM_CAP_AVG_MAPCOUNT and say so in the
 * limits line; when that cannot be known, say that.
 */
void exm_kernel_mapcount_note(struct exm_sysinfo *sys);

#endif
