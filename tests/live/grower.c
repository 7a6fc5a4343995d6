/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grower - a process whose memory grows by exactly what it is told.
 *
 * Writes "ready" on stdout, then for each line "N" read on stdin maps N
 * private anonymous pages (no huge pages), writes non-zero bytes to every
 * one, and answers "grown". Raw read/write only, so nothing else of the
 * process changes between two of its answers. Exits at EOF, or when its
 * parent dies.
 *
 * Usage: grower
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Map and write the pages the line in buf asks for, then say what. */
static int grow(const char *buf, const char *answer)
{
	size_t len = (size_t)strtoul(buf, NULL, 10) *
		     (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 0x5a, len);
	return write(1, answer, 6) == 6 ? 0 : -1;
}

int main(void)
{
	char buf[64];
	ssize_t n;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Once before "ready": every page of code and stack the answers
	 * use is in place before the first snapshot. */
	if (grow("1", "ready\n"))
		return 1;
	while ((n = read(0, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		if (grow(buf, "grown\n"))
			return 1;
	}
	return 0;
}
