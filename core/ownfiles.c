// SPDX-License-Identifier: GPL-2.0-or-later
/* ownfiles.c - files SQLite holds open in this process; see ownfiles.h. */
#include "core/ownfiles.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **paths;
static size_t npaths, cap;

int exm_ownfiles_add(const char *path)
{
	char *p = strdup(path);
	int ret = 0;

	if (!p)
		return -ENOMEM;
	pthread_mutex_lock(&lock);
	if (npaths == cap) {
		size_t nc = cap ? cap * 2 : 4;
		char **np = realloc(paths, nc * sizeof(*np));

		if (!np) {
			ret = -ENOMEM;
			goto out;
		}
		paths = np;
		cap = nc;
	}
	paths[npaths++] = p;
	p = NULL;
out:
	pthread_mutex_unlock(&lock);
	free(p);
	return ret;
}

void exm_ownfiles_remove(const char *path)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < npaths; i++)
		if (!strcmp(paths[i], path)) {
			free(paths[i]);
			paths[i] = paths[--npaths];
			break;
		}
	if (!npaths) {
		free(paths);
		paths = NULL;
		cap = 0;
	}
	pthread_mutex_unlock(&lock);
}

bool exm_ownfiles_has(const struct stat *st)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	bool found = false;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; !found && i < npaths; i++)
		for (size_t k = 0; !found && k < sizeof(sfx) / sizeof(*sfx);
		     k++) {
			char name[4096 + 16];
			struct stat o;

			snprintf(name, sizeof(name), "%s%s", paths[i], sfx[k]);
			found = !stat(name, &o) && o.st_dev == st->st_dev &&
				o.st_ino == st->st_ino;
		}
	pthread_mutex_unlock(&lock);
	return found;
}
