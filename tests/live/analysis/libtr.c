// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libtr - the test library of tests/live/test_analysis.py, built twice at
 * test time: position independent (-fPIC), and not (-fno-PIC
 * -mcmodel=large), where every function's absolute reference to tr_bss
 * is a text relocation (DT_TEXTREL) that the dynamic linker writes into
 * .text, so each process gets private copies of those pages.
 */
#include <string.h>

/* .data: 3 pages and more, all written by tr_touch(). */
int tr_data[3 * 1024 + 16] = { 1 };
/* .bss: 16 pages, all written by tr_touch(). */
int tr_bss[16 * 1024];

/* The macro calls below end with no ';': clang-format would lay them out
 * differently on each run. */
/* clang-format off */
#define F(n) \
	int tr_f##n(void) { return tr_bss[(n) % 1024] + (n); }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) \
	F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) \
	F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)

/* 1,000 functions: several pages of text, each with relocations. */
F100(1) F100(2) F100(3) F100(4) F100(5)
F100(6) F100(7) F100(8) F100(9) F100(10)

int tr_touch(void)
{
	memset(tr_data, 1, sizeof(tr_data));
	memset(tr_bss, 2, sizeof(tr_bss));
	return tr_f100() + tr_f1099();
}
