// SPDX-License-Identifier: GPL-2.0-or-later
/* meminfo.c - the rows of /proc/meminfo; see meminfo.h. */
#include "core/meminfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

bool exm_meminfo_key_ok(const char *key, size_t len)
{
	if (!len || len >= EXM_MEMINFO_KEYLEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '(' ||
		      c == ')'))
			return false;
	}
	return true;
}

static const struct exm_meminfo_row *find(const struct exm_meminfo *mi,
					  const char *key, size_t len)
{
	for (uint32_t i = 0; i < mi->n; i++)
		if (!strncmp(mi->rows[i].key, key, len) &&
		    !mi->rows[i].key[len])
			return &mi->rows[i];
	return NULL;
}

int exm_meminfo_add(struct exm_meminfo *mi, const char *key, size_t keylen,
		    uint64_t value, bool kb)
{
	struct exm_meminfo_row *r;

	if (!exm_meminfo_key_ok(key, keylen) || value > INT64_MAX ||
	    (kb && value > UINT64_MAX / 1024))
		return -EINVAL;
	if (find(mi, key, keylen))
		return -EEXIST;
	if (mi->n >= EXM_MEMINFO_ROWS)
		return -E2BIG;
	r = &mi->rows[mi->n++];
	memcpy(r->key, key, keylen);
	r->key[keylen] = '\0';
	r->value = value;
	r->kb = kb;
	return 0;
}

uint32_t exm_meminfo_parse(struct exm_meminfo *mi, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	memset(mi, 0, sizeof(*mi));
	while (p < end && mi->n < EXM_MEMINFO_ROWS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *key;
		size_t klen;
		uint64_t v;
		bool kb;

		if (!exm_parse_kv_unit(p, (size_t)(le - p), &key, &klen, &v,
				       &kb))
			exm_meminfo_add(mi, key, klen, v, kb);
		p = nl ? nl + 1 : end;
	}
	return mi->n;
}

int exm_meminfo_read(struct exm_meminfo *mi, const char *path)
{
	char *buf;
	size_t len;
	int ret = exm_read_file(AT_FDCWD, path, &buf, &len);

	memset(mi, 0, sizeof(*mi));
	if (ret)
		return ret;
	ret = exm_meminfo_parse(mi, buf, len) ? 0 : -ENODATA;
	free(buf);
	return ret;
}

bool exm_meminfo_get(const struct exm_meminfo *mi, const char *key,
		     uint64_t *out)
{
	const struct exm_meminfo_row *r = find(mi, key, strlen(key));

	if (!r)
		return false;
	*out = r->kb ? r->value * 1024 : r->value;
	return true;
}

int exm_meminfo_add_hugetlb_used(struct exm_meminfo *mi, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t kb = 0;
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (e = readdir(d))) {
		unsigned long long size;
		uint64_t nr, surplus, free_;
		int dfd;

		if (sscanf(e->d_name, "hugepages-%llukB", &size) != 1)
			continue;
		dfd = openat(dirfd(d), e->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			ret = -errno;
			break;
		}
		ret = exm_read_u64(dfd, "nr_hugepages", &nr);
		if (!ret)
			ret = exm_read_u64(dfd, "surplus_hugepages", &surplus);
		if (!ret)
			ret = exm_read_u64(dfd, "free_hugepages", &free_);
		close(dfd);
		/* read one after another: a page freed between them */
		if (!ret && nr + surplus > free_)
			kb += (nr + surplus - free_) * size;
	}
	closedir(d);
	if (ret)
		return ret;
	return exm_meminfo_add(mi, EXM_MEMINFO_HUGETLB_USED,
			       strlen(EXM_MEMINFO_HUGETLB_USED), kb, true);
}
