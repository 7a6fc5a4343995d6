// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - run the fuzz target on every file of the corpus (default
 * EXM_CORPUS_DIR, or the directories/files given), as a regression test in
 * make check. Exit 0 when every input ran; a crash fails the test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, r;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? 2 * cap : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
	} while (r);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path, size_t *count)
{
	struct dirent **ents;
	struct stat st;
	char sub[4096];
	int n, err = 0;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path,
				 ents[i]->d_name);
			if (run_path(sub, count))
				err = -1;
		}
		free(ents[i]);
	}
	free(ents);
	return err;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int err = 0;

	if (argc < 2)
		err = run_path(EXM_CORPUS_DIR, &count);
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i], &count))
			err = -1;
	printf("replayed %zu inputs\n", count);
	return err || !count ? 1 : 0;
}
