// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen_seeds.c - write the elfgen.h images (known layout, every option; a
 * lone build-id note of each class and byte order) as fuzz corpus seeds:
 * gen_seeds DIR. Used to start tests/fuzz/corpus.
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
	for (int v = 0; v < 8; v++) {
		size_t len;
		unsigned char *img = eg_build_id_image(v & 1, v & 2, v & 4,
						       (unsigned char)(0x40 +
								       16 * v),
						       &len);
		FILE *f;

		snprintf(path, sizeof(path), "%s/seed-build-id-%s%s-%s",
			 argv[1], v & 1 ? "64" : "32", v & 2 ? "msb" : "lsb",
			 v & 4 ? "section" : "segment");
		f = fopen(path, "wb");
		if (!img || !f || fwrite(img, 1, len, f) != len)
			return 1;
		fclose(f);
		free(img);
	}
	return 0;
}
