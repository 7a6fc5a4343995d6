// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen_seeds.c - write the elfgen.h images (known layout, every option) as
 * fuzz corpus seeds: gen_seeds DIR. Used once to start tests/fuzz/corpus.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/elfgen.h"

int main(int argc, char **argv)
{
	static const struct eg_opts opts[] = {
		{ 0 },
		{ .dynsym = true },
		{ .no_symtab = true, .build_id = true, .debuglink = true },
		{ .build_id = true, .extra_syms = 40 },
	};
	char path[4096];

	if (argc != 2)
		return 2;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct eg_layout lay;
		unsigned char *img = eg_build(&opts[i], &lay);
		FILE *f;

		snprintf(path, sizeof(path), "%s/seed-elfgen-%zu", argv[1], i);
		f = fopen(path, "wb");
		if (!f || fwrite(img, 1, lay.len, f) != lay.len)
			return 1;
		fclose(f);
		free(img);
	}
	return 0;
}
