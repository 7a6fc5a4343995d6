// SPDX-License-Identifier: GPL-2.0-or-later
/* procfs.c - /proc text parsers; see procfs.h. */
#include "core/procfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;
	int n = 0;

	while (s < end && n < 17) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		v = (v << 4) | (uint64_t)d;
		s++;
		n++;
	}
	if (n == 0 || n > 16)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool parse_dec(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		s++;
	}
	*p = s;
	*out = v;
	return true;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum exm_kind exm_classify(const char *name, uint64_t inode, uint32_t dev_major,
			   unsigned perms)
{
	if (name[0] == '[') {
		if (!strcmp(name, "[heap]"))
			return EXM_KIND_HEAP;
		if (!strcmp(name, "[stack]") || starts(name, "[stack:"))
			return EXM_KIND_STACK;
		if (!strcmp(name, "[vdso]"))
			return EXM_KIND_VDSO;
		if (starts(name, "[vvar"))
			return EXM_KIND_VVAR;
		if (!strcmp(name, "[vsyscall]"))
			return EXM_KIND_VSYSCALL;
		if (starts(name, "[anon:"))
			return EXM_KIND_ANON;
		if (starts(name, "[anon_shmem:"))
			return EXM_KIND_SHMEM;
		return EXM_KIND_OTHER;
	}
	if (name[0] == '\0')
		return (perms & EXM_PERM_S) && inode ? EXM_KIND_SHMEM
						     : EXM_KIND_ANON;
	/* /dev/zero mapped private is anonymous memory (the kernel's
	 * vma_set_anonymous: read faults map the zero page); shared, it is
	 * a new shmem file, "/dev/zero (deleted)". */
	if (!strcmp(name, "/dev/zero") && !(perms & EXM_PERM_S))
		return EXM_KIND_ANON;
	/* MAP_HUGETLB|MAP_ANONYMOUS: an unlinked hugetlbfs file. Shared, it
	 * is shared memory like MAP_SHARED anonymous memory; private, it is
	 * private anonymous memory (its pages are anonymous from the first
	 * fault, copied on write after fork, and return to the hugetlb pool
	 * when the last mapping goes). */
	if (starts(name, "/anon_hugepage"))
		return perms & EXM_PERM_S ? EXM_KIND_SHMEM : EXM_KIND_ANON;
	/* A hugetlbfs file mapped shared is shared memory (no page cache of
	 * a disk file behind it); mapped private it is a private mapping of
	 * a file like any other: the file's pages until written, private
	 * anonymous copies after (the page's own flag says which). */
	if (starts(name, "/dev/hugepages/"))
		return perms & EXM_PERM_S ? EXM_KIND_SHMEM : EXM_KIND_FILE;
	if (starts(name, "/SYSV") || starts(name, "/memfd:") ||
	    starts(name, "/dev/shm/") || starts(name, "/dev/zero"))
		return EXM_KIND_SHMEM;
	/* Device nodes mapped (DRM, framebuffers, ...): char devices live on
	 * devtmpfs (major 0) with a /dev/ path. */
	if (starts(name, "/dev/") && dev_major == 0)
		return EXM_KIND_DEVICE;
	if (name[0] != '/')
		return EXM_KIND_OTHER; /* "anon_inode:...", "socket:..." */
	return EXM_KIND_FILE;
}

void exm_mapping_set_hugetlb(struct exm_mapping *m, uint32_t kpage)
{
	m->hugetlb = true;
	m->kpage_size = kpage;
	if ((m->perms & EXM_PERM_S) && m->kind == EXM_KIND_FILE)
		m->kind = EXM_KIND_SHMEM;
}

int exm_parse_maps_line(const char *line, size_t len, struct exm_mapping *m)
{
	const char *p = line, *end = line + len;
	uint64_t start, stop, off, maj, min, ino;
	unsigned perms = 0;

	if (len && end[-1] == '\n')
		end--;
	if (!parse_hex(&p, end, &start) || !expect(&p, end, '-') ||
	    !parse_hex(&p, end, &stop) || !expect(&p, end, ' '))
		return -EINVAL;
	if (stop < start || end - p < 5)
		return -EINVAL;
	if (p[0] == 'r')
		perms |= EXM_PERM_R;
	else if (p[0] != '-')
		return -EINVAL;
	if (p[1] == 'w')
		perms |= EXM_PERM_W;
	else if (p[1] != '-')
		return -EINVAL;
	if (p[2] == 'x')
		perms |= EXM_PERM_X;
	else if (p[2] != '-')
		return -EINVAL;
	if (p[3] == 's')
		perms |= EXM_PERM_S;
	else if (p[3] != 'p')
		return -EINVAL;
	p += 4;
	if (!expect(&p, end, ' ') || !parse_hex(&p, end, &off) ||
	    !expect(&p, end, ' ') || !parse_hex(&p, end, &maj) ||
	    !expect(&p, end, ':') || !parse_hex(&p, end, &min) ||
	    !expect(&p, end, ' ') || !parse_dec(&p, end, &ino))
		return -EINVAL;
	if (maj > UINT32_MAX || min > UINT32_MAX)
		return -EINVAL;
	/* The name follows padding spaces; it may itself contain spaces. */
	if (p < end && *p != ' ')
		return -EINVAL;
	skip_spaces(&p, end);
	m->start = start;
	m->end = stop;
	m->offset = off;
	m->perms = perms;
	m->dev_major = (uint32_t)maj;
	m->dev_minor = (uint32_t)min;
	m->inode = ino;
	return exm_mapping_name(m, p, (size_t)(end - p));
}

int exm_mapping_name(struct exm_mapping *m, const char *name, size_t len)
{
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;

	m->deleted = false;
	if (len >= dl && !memcmp(name + len - dl, deleted, dl) &&
	    name[0] == '/') {
		m->deleted = true;
		len -= dl;
	}
	m->name = malloc(len + 1);
	if (!m->name)
		return -ENOMEM;
	/* maps (and the module, as maps) write a newline as "\012" */
	for (size_t i = 0, k = 0;; k++) {
		if (i + 4 <= len && !memcmp(name + i, "\\012", 4)) {
			m->name[k] = '\n';
			i += 4;
		} else if (i < len) {
			m->name[k] = name[i++];
		} else {
			m->name[k] = '\0';
			break;
		}
	}
	m->kind = exm_classify(m->name, m->inode, m->dev_major, m->perms);
	return 0;
}

int exm_parse_kv_unit(const char *line, size_t len, const char **key,
		      size_t *keylen, uint64_t *value, bool *kb)
{
	const char *end = line + len, *p = line, *colon;
	uint64_t v;

	while (p < end && *p != ':' && *p != ' ' && *p != '\n')
		p++;
	if (p == line || p >= end || *p != ':')
		return -EINVAL;
	colon = p++;
	skip_spaces(&p, end);
	if (!parse_dec(&p, end, &v))
		return -EINVAL;
	skip_spaces(&p, end);
	*kb = end - p >= 2 && p[0] == 'k' && p[1] == 'B';
	if (*kb)
		p += 2;
	if (p < end && *p != '\n')
		return -EINVAL;
	*key = line;
	*keylen = (size_t)(colon - line);
	*value = v;
	return 0;
}

int exm_parse_kv(const char *line, size_t len, const char **key, size_t *keylen,
		 uint64_t *value)
{
	bool kb;
	int ret = exm_parse_kv_unit(line, len, key, keylen, value, &kb);

	if (ret || !kb)
		return ret;
	if (*value > UINT64_MAX / 1024)
		return -EINVAL;
	*value *= 1024;
	return 0;
}

void exm_smaps_walk(const char *buf, size_t len, const struct exm_proc *p,
		    void (*vma)(void *ctx, size_t first, bool exact,
				uint64_t start, uint64_t end),
		    void (*kv)(void *ctx, const char *key, size_t keylen,
			       uint64_t value),
		    void *ctx)
{
	const char *s = buf, *end = buf + len;
	size_t mi = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *key;
		size_t klen;
		uint64_t v;

		if (!exm_parse_kv(s, (size_t)(le - s), &key, &klen, &v)) {
			kv(ctx, key, klen, v);
		} else {
			struct exm_mapping hdr = { 0 };

			if (!exm_parse_maps_line(s, (size_t)(le - s), &hdr)) {
				while (mi < p->nmaps &&
				       p->maps[mi].end <= hdr.start)
					mi++;
				vma(ctx, mi,
				    mi < p->nmaps &&
					    p->maps[mi].start == hdr.start &&
					    p->maps[mi].end == hdr.end,
				    hdr.start, hdr.end);
				free(hdr.name);
			}
		}
		s = nl ? nl + 1 : end;
	}
}

static bool key_is(const char *key, size_t klen, const char *want)
{
	return strlen(want) == klen && !memcmp(key, want, klen);
}

int exm_parse_rollup(const char *buf, size_t len, struct exm_kpss *k)
{
	const char *p = buf, *end = buf + len;
	static const struct {
		const char *key;
		size_t off;
		unsigned bit;
	} keys[] = {
		{ "Pss", offsetof(struct exm_kpss, pss), EXM_KPSS_PSS },
		{ "Pss_Anon", offsetof(struct exm_kpss, pss_anon),
		  EXM_KPSS_PSS_ANON },
		{ "Pss_File", offsetof(struct exm_kpss, pss_file),
		  EXM_KPSS_PSS_FILE },
		{ "Pss_Shmem", offsetof(struct exm_kpss, pss_shmem),
		  EXM_KPSS_PSS_SHMEM },
		{ "Pss_Dirty", offsetof(struct exm_kpss, pss_dirty),
		  EXM_KPSS_PSS_DIRTY },
		{ "SwapPss", offsetof(struct exm_kpss, swap_pss),
		  EXM_KPSS_SWAP_PSS },
		{ "Rss", offsetof(struct exm_kpss, rss), EXM_KPSS_RSS },
	};

	memset(k, 0, sizeof(*k));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *key;
		size_t klen;
		uint64_t v;

		if (!exm_parse_kv(p, (size_t)(le - p), &key, &klen, &v)) {
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]);
			     i++) {
				if (key_is(key, klen, keys[i].key)) {
					*(uint64_t *)((char *)k +
						      keys[i].off) = v;
					k->has |= keys[i].bit;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int exm_cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int exm_list_pids(const char *root, pid_t **pids, size_t *n)
{
	DIR *d = opendir(root);
	struct dirent *de;
	pid_t *v = NULL;
	size_t cap = 0;

	*pids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *e;
		long pid = strtol(de->d_name, &e, 10);

		if (*e || pid <= 0 || !isdigit((unsigned char)de->d_name[0]))
			continue;
		if (*n == cap) {
			pid_t *nv;

			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*nv));
			if (!nv) {
				closedir(d);
				free(v);
				*n = 0;
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = (pid_t)pid;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), exm_cmp_pid);
	*pids = v;
	return 0;
}

int exm_parse_stat(const char *buf, size_t len, char **comm,
		   struct exm_stat *st)
{
	const char *open = memchr(buf, '(', len), *close = NULL, *p, *end;
	uint64_t v = 0;
	int field;

	for (const char *q = buf + len; q > buf; q--) {
		if (q[-1] == ')') {
			close = q - 1;
			break;
		}
	}
	if (!open || !close || close < open)
		return -EINVAL;
	end = buf + len;
	p = close + 1;
	/* Field 3 is the state; count fields from there. */
	*st = (struct exm_stat){ 0 };
	for (field = 3; field <= 23; field++) {
		if (!expect(&p, end, ' '))
			return -EINVAL;
		if (field == 3) {
			if (p >= end)
				return -EINVAL;
			p++;
			continue;
		}
		if (p < end && *p == '-')
			p++; /* negative fields (e.g. priority) */
		if (!parse_dec(&p, end, &v))
			return -EINVAL;
		if (field == 4)
			st->ppid = (pid_t)v;
		else if (field == 9)
			st->flags = (unsigned)v;
		else if (field == 20)
			st->threads = (unsigned)v;
		else if (field == 22)
			st->start_time = v;
		else if (field == 23)
			st->vsize = v;
	}
	if (!comm)
		return 0;
	*comm = strndup(open + 1, (size_t)(close - open - 1));
	return *comm ? 0 : -ENOMEM;
}

/* Bytes read into the stack first (read_whole): most files of /proc/PID
 * (stat, cmdline, statm, maps of a small process) fit. */
#define READ_FIRST 8192

/*
 * fd's text whole into a NUL-terminated buffer of its size: with read
 * until it says the end, or (from_start) with pread from offset 0, taking
 * a read shorter than asked as the end. Read into the stack first, then
 * copied to a block of its size when it fits there: a walk keeps many
 * (command lines), and one of a page for each touched memory for nothing
 * (a page fault is expensive in a virtual machine). 0 or -errno.
 */
static int read_whole(int fd, bool from_start, char **buf, size_t *len)
{
	char first[READ_FIRST];
	size_t cap = sizeof(first), n = 0;
	char *b = first;

	for (;;) {
		size_t want;
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb = b == first ? malloc(cap * 2)
					      : realloc(b, cap * 2);

			if (!nb) {
				if (b != first)
					free(b);
				return -ENOMEM;
			}
			if (b == first)
				memcpy(nb, first, n);
			b = nb;
			cap *= 2;
		}
		want = cap - n - 1;
		r = from_start ? pread(fd, b + n, want, (off_t)n)
			       : read(fd, b + n, want);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			if (b != first)
				free(b);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (from_start && (size_t)r < want)
			break; /* short: the end */
	}
	if (b == first) { /* to a block of its size */
		b = malloc(n + 1);
		if (!b)
			return -ENOMEM;
		memcpy(b, first, n);
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int exm_read_file(int dirfd, const char *path, char **buf, size_t *len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = read_whole(fd, false, buf, len);
	close(fd);
	return ret;
}

int exm_pread_file(int fd, char **buf, size_t *len)
{
	return read_whole(fd, true, buf, len);
}

int exm_read_statm(int dirfd, const char *path, struct exm_statm *st)
{
	unsigned long long size, res, shr;
	char *buf;
	size_t len;
	int ret = exm_read_file(dirfd, path, &buf, &len);

	if (ret)
		return ret;
	if (sscanf(buf, "%llu %llu %llu", &size, &res, &shr) == 3 && shr <= res)
		*st = (struct exm_statm){ size, res, shr };
	else
		ret = -EINVAL;
	free(buf);
	return ret;
}

int exm_read_u64(int dirfd, const char *path, uint64_t *v)
{
	char *buf, *end;
	size_t len;
	int ret = exm_read_file(dirfd, path, &buf, &len);

	if (ret)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		ret = -EINVAL;
	free(buf);
	return ret;
}
