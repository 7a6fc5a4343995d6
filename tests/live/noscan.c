/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * noscan - run a program under a seccomp filter that refuses the
 * PAGEMAP_SCAN ioctl, as a container runtime's filter that does not know
 * it (or qemu-user) does, for test_noscan.py.
 *
 *   noscan ERRNO PROGRAM [ARG...]
 *
 * Every ioctl(fd, PAGEMAP_SCAN, ...) of PROGRAM and its children fails
 * with errno ERRNO (a number); every other system call is let through.
 * Needs no privilege (no_new_privs is set first).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/fs.h>'s PAGEMAP_SCAN (Linux 6.7+): its argument is 96 bytes */
struct scan_arg {
	uint64_t words[12];
};
#define SCAN_IOCTL _IOWR('f', 16, struct scan_arg)

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "noscan: add this architecture's AUDIT_ARCH"
#endif

int main(int argc, char **argv)
{
	char *end;
	long err;

	if (argc < 3) {
		fprintf(stderr, "usage: noscan ERRNO PROGRAM [ARG...]\n");
		return 2;
	}
	err = strtol(argv[1], &end, 10);
	if (*end || err <= 0 || err > 4095) {
		fprintf(stderr, "noscan: bad errno '%s'\n", argv[1]);
		return 2;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the request is an unsigned int: its low 32 bits (little
		 * endian) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SCAN_IOCTL, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO |
				 ((uint32_t)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("noscan: seccomp");
		return 99;
	}
	execvp(argv[2], argv + 2);
	perror("noscan: exec");
	return 127;
}
