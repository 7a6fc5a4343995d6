/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsput.h - write a small file of a synthetic /proc or cgroup tree, for
 * the unit tests that read one (test_account.c, test_cgcharge.c).
 */
#ifndef EXM_TESTS_FSPUT_H
#define EXM_TESTS_FSPUT_H

#include <criterion/criterion.h>
#include <stdio.h>

/* DIR/NAME holds TEXT afterwards (the test fails if it cannot). */
static inline void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	cr_assert(n > 0 && (size_t)n < sizeof(path), "%s/%s: too long", dir,
		  name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

#endif
