/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zeropage.h - the zero page for the live tests' workloads, on any kernel.
 *
 * A read fault on private anonymous memory never written maps the zero
 * page, except on a kernel booted with pvm_no_zero_page (a PVM guest's
 * option), which gives each read fault a page of its own. There the
 * workloads map the zero page with userfaultfd's UFFDIO_ZEROPAGE instead,
 * which still does: the pages and the mapping are the same as elsewhere.
 *
 *	zp_begin(p, len, ps);		// the whole mapping [p, p + len)
 *	zp_read(p + k * ps, ps);	// each page "read"
 *	zp_end();
 *
 * Registering the whole mapping keeps it one VMA, and closing the
 * descriptor (zp_end) unregisters it: later reads are plain reads again.
 * Registration is not inherited by fork: a child calls zp_begin itself.
 * Each call returns 0, or -1 with errno set.
 */
#ifndef EXM_TESTS_ZEROPAGE_H
#define EXM_TESTS_ZEROPAGE_H

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The userfaultfd registered by zp_begin, or -1 (plain reads). */
static int zp_fd = -1;

/* 1 when a read fault maps the zero page here, 0 when it does not (the
 * page read has pagemap's exclusive bit: the zero page never has it, as
 * it has no mapping count), -1 on error. */
static inline int zp_read_maps_zero(size_t ps)
{
	char *p = mmap(NULL, ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t w = 0;
	int ok;

	if (p == MAP_FAILED || fd < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	(void)*(volatile char *)p;
	ok = pread(fd, &w, sizeof(w), (off_t)((uintptr_t)p / ps * 8)) ==
	     (ssize_t)sizeof(w);
	close(fd);
	munmap(p, ps);
	if (!ok)
		return -1;
	return (w >> 63 & 1) && !(w >> 56 & 1);
}

/* The pages of the private anonymous mapping [p, p + len), the whole of
 * it, are about to be read with zp_read. */
static inline int zp_begin(void *p, size_t len, size_t ps)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int r = zp_read_maps_zero(ps);

	if (r != 0)
		return r < 0 ? -1 : 0;
	zp_fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (zp_fd < 0)
		return -1;
	if (ioctl(zp_fd, UFFDIO_API, &api) ||
	    ioctl(zp_fd, UFFDIO_REGISTER, &reg)) {
		close(zp_fd);
		zp_fd = -1;
		return -1;
	}
	return 0;
}

/* Map the zero page at p, a page of the mapping zp_begin was given. */
static inline int zp_read(void *p, size_t ps)
{
	struct uffdio_zeropage z = {
		.range = { .start = (uintptr_t)p, .len = ps },
	};

	if (zp_fd < 0) {
		(void)*(volatile char *)p;
		return 0;
	}
	return ioctl(zp_fd, UFFDIO_ZEROPAGE, &z) ? -1 : 0;
}

static inline void zp_end(void)
{
	if (zp_fd >= 0)
		close(zp_fd);
	zp_fd = -1;
}

#endif
