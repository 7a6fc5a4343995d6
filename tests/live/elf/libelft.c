// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libelft.c - a test library with a known layout, built at test time by
 * tests/live/test_elf.py with -Wl,-z,max-page-size=0x10000 so that ld.so
 * loads it 64 KiB aligned.
 *
 * Every array is 64 KiB (16 pages) and 64 KiB aligned, so it fills exactly
 * one fault-around window of the kernel (fault_around_bytes, 64 KiB by
 * default): a read fault in one array never maps pages of another.
 */
#define PG 4096
#define N (16 * PG)
#define ARR __attribute__((aligned(65536), used))

ARR char d_full[N] = { 1 };	  /* .data: every page written */
ARR char d_read[N] = { 1 };	  /* .data: every page read */
ARR char d_half[N] = { 1 };	  /* .data: first 8 pages written */
ARR char d_none[N] = { 1 };	  /* .data: untouched */
ARR const char r_read[N] = { 1 }; /* .rodata: every page read */
ARR const char r_none[N] = { 1 }; /* .rodata: untouched */
ARR char b_full[N];		  /* .bss: every page written */
ARR char b_half[N];		  /* .bss: first 8 pages written */
ARR char b_none[N];		  /* .bss: untouched */

int elft_sink;

/* Functions of known size (nm -S gives it; the test compares). */
int elft_small(int x)
{
	return x * 7 + 3;
}

int elft_loop(const char *p, int n)
{
	int s = 0;

	for (int i = 0; i < n; i += PG)
		s += ((const volatile char *)p)[i];
	return s;
}

void elft_touch(void)
{
	int s = 0;

	for (int i = 0; i < N; i += PG) {
		((volatile char *)d_full)[i] = 2;
		((volatile char *)b_full)[i] = 2;
		if (i < N / 2) {
			((volatile char *)d_half)[i] = 2;
			((volatile char *)b_half)[i] = 2;
		}
	}
	s += elft_loop(d_read, N);
	s += elft_loop(r_read, N);
	elft_sink = s + elft_small(s);
}
