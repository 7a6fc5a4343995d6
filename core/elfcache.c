// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * elfcache.c - see elfcache.h.
 */
#include "core/elfcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAX 32
#define MAX_OPEN_TRIES 64 /* processes tried for a file across processes */

struct entry {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	uint64_t used; /* LRU clock */
	struct exm_elf *elf;
};

struct exm_elfcache {
	struct entry *ents;
	size_t n, max;
	uint64_t clock;
	uint64_t hits, misses;
	char *sysroot;	 /* or NULL */
	char *debug_dir; /* under the sysroot, or NULL: the default */
	char why[512];	 /* of the last exm_elfcache_get() */
};

struct exm_elfcache *exm_elfcache_new(size_t max)
{
	struct exm_elfcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->max = max ? max : DEFAULT_MAX;
	c->ents = calloc(c->max, sizeof(*c->ents));
	if (!c->ents) {
		free(c);
		return NULL;
	}
	return c;
}

void exm_elfcache_free(struct exm_elfcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		exm_elf_free(c->ents[i].elf);
	free(c->ents);
	free(c->sysroot);
	free(c->debug_dir);
	free(c);
}

static void drop_all(struct exm_elfcache *c)
{
	for (size_t i = 0; i < c->n; i++)
		exm_elf_free(c->ents[i].elf);
	c->n = 0;
}

int exm_elfcache_set_sysroot(struct exm_elfcache *c, const char *dir)
{
	char *root = NULL, *dbg = NULL;
	size_t n;

	if (dir && *dir) {
		n = strlen(dir);
		while (n > 1 && dir[n - 1] == '/')
			n--; /* "/" stays "/": paths are appended after it */
		root = strndup(dir, n);
		dbg = malloc(n + strlen(exm_elf_debug_dir()) + 2);
		if (!root || !dbg) {
			free(root);
			free(dbg);
			return -ENOMEM;
		}
		sprintf(dbg, "%s%s", !strcmp(root, "/") ? "" : root,
			exm_elf_debug_dir());
	}
	free(c->sysroot);
	free(c->debug_dir);
	c->sysroot = root;
	c->debug_dir = dbg;
	drop_all(c); /* parsed with other debug files */
	return 0;
}

const char *exm_elfcache_why(const struct exm_elfcache *c)
{
	return c->why;
}

void exm_elfcache_stats(const struct exm_elfcache *c,
			struct exm_elfcache_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->hits = c->hits;
	st->misses = c->misses;
	st->entries = c->n;
	for (size_t i = 0; i < c->n; i++)
		st->bytes += c->ents[i].elf->memsize;
}

const struct exm_elf *exm_elfcache_get_fd(struct exm_elfcache *c, int fd,
					  const char *path)
{
	struct entry *slot;
	struct exm_elf *e;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return exm_elf_state_only(EXM_ELF_UNREADABLE);
	for (size_t i = 0; i < c->n; i++) {
		struct entry *en = &c->ents[i];

		if (en->dev == st.st_dev && en->ino == st.st_ino &&
		    en->size == st.st_size &&
		    en->mtime.tv_sec == st.st_mtim.tv_sec &&
		    en->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			en->used = ++c->clock;
			c->hits++;
			return en->elf;
		}
	}
	c->misses++;
	e = c->debug_dir ? exm_elf_parse_fd_in(fd, path, 0, c->debug_dir)
			 : exm_elf_parse_fd(fd, path, 0);
	if (!e)
		return exm_elf_state_only(EXM_ELF_UNREADABLE);
	if (c->n < c->max) {
		slot = &c->ents[c->n++];
	} else {
		slot = &c->ents[0];
		for (size_t i = 1; i < c->n; i++)
			if (c->ents[i].used < slot->used)
				slot = &c->ents[i];
		exm_elf_free(slot->elf);
	}
	*slot = (struct entry){
		.dev = st.st_dev,
		.ino = st.st_ino,
		.mtime = st.st_mtim,
		.size = st.st_size,
		.used = ++c->clock,
		.elf = e,
	};
	return e;
}

int exm_open_mapped(const char *proc_root, pid_t pid,
		    const struct exm_mapping *m)
{
	char path[512];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%.256s/%d/map_files/%llx-%llx", proc_root,
		 (int)pid, (unsigned long long)m->start,
		 (unsigned long long)m->end);
	fd = exm_open_regular(path, &st);
	if (fd >= 0 && (uint64_t)st.st_ino != m->inode) {
		/* The pid was reused by another process. */
		close(fd);
		fd = -1;
	}
	return fd;
}

static const struct exm_mapping *first_mapping(const struct exm_proc *p,
					       const struct exm_file *f)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].file == f)
			return &p->maps[i];
	return NULL;
}

/* The path of f without a " (deleted)" suffix, in buf. */
static const char *clean_path(const struct exm_file *f, char *buf, size_t len)
{
	static const char sfx[] = " (deleted)";
	size_t n = strlen(f->name);

	if (n >= sizeof(sfx) - 1 &&
	    !strcmp(f->name + n - (sizeof(sfx) - 1), sfx))
		n -= sizeof(sfx) - 1;
	if (n >= len)
		n = len - 1;
	memcpy(buf, f->name, n);
	buf[n] = '\0';
	return buf;
}

static void hex(char *buf, size_t len, const unsigned char *id, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n && 2 * i + 3 <= len; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	if (!n)
		snprintf(buf, len, "none");
}

/* A file resolved by path for a recording: whether it is the file that
 * was recorded (same build-id), else say so in c->why. */
static const struct exm_elf *check_build_id(struct exm_elfcache *c,
					    const struct exm_elf *e,
					    const struct exm_file *f,
					    const char *path)
{
	char want[129], got[129];

	if (!f->build_id_len || e->state != EXM_ELF_OK)
		return e;
	if (e->build_id_len == f->build_id_len &&
	    !memcmp(e->build_id, f->build_id, f->build_id_len))
		return e;
	hex(want, sizeof(want), f->build_id, f->build_id_len);
	hex(got, sizeof(got), e->build_id, e->build_id_len);
	snprintf(c->why, sizeof(c->why),
		 "%.200s: build-id %.40s does not match the recording's %.40s",
		 path, got, want);
	return exm_elf_state_only(EXM_ELF_REPLACED);
}

/*
 * A replayed snapshot, or a sysroot: no live process to read the mapped
 * file through; open the path (under the sysroot) and check the build-id
 * recorded for it.
 */
static const struct exm_elf *get_by_path(struct exm_elfcache *c,
					 const struct exm_file *f,
					 const char *clean)
{
	char path[4096 + 256];
	const struct exm_elf *e;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s%s",
		 c->sysroot && strcmp(c->sysroot, "/") ? c->sysroot : "",
		 clean);
	fd = exm_open_regular(path, &st);
	if (fd < 0) {
		snprintf(c->why, sizeof(c->why), "%.300s: %s", path,
			 strerror(errno));
		return exm_elf_state_only(errno == ENOENT ? EXM_ELF_REPLACED
							  : EXM_ELF_UNREADABLE);
	}
	e = exm_elfcache_get_fd(c, fd, path);
	close(fd);
	return check_build_id(c, e, f, path);
}

const struct exm_elf *exm_elfcache_get(struct exm_elfcache *c,
				       const struct exm_snapshot *snap,
				       const struct exm_proc *p,
				       const struct exm_file *f,
				       const char *proc_root)
{
	const struct exm_elf *e;
	char path[4096];
	struct stat st;
	int fd = -1;

	c->why[0] = '\0';
	if (!f || f->kind != EXM_KIND_FILE || !f->name || f->name[0] != '/')
		return exm_elf_state_only(EXM_ELF_NOT_FILE);
	clean_path(f, path, sizeof(path));
	if (c->sysroot || (snap && (snap->sys.caps & EXM_CAP_REPLAY)))
		return get_by_path(c, f, path);
	if (!proc_root) /* the /proc the snapshot was read from */
		proc_root = snap && snap->sys.proc_root[0] ? snap->sys.proc_root
							   : "/proc";
	if (p) {
		const struct exm_mapping *m = first_mapping(p, f);

		if (m)
			fd = exm_open_mapped(proc_root, p->pid, m);
	} else {
		size_t tries = 0;

		for (size_t i = 0;
		     i < snap->nprocs && fd < 0 && tries < MAX_OPEN_TRIES;
		     i++) {
			const struct exm_mapping *m =
				first_mapping(&snap->procs[i], f);

			if (!m)
				continue;
			tries++;
			fd = exm_open_mapped(proc_root, snap->procs[i].pid, m);
		}
	}
	if (fd < 0) {
		fd = exm_open_regular(path, &st);
		if (fd < 0)
			return exm_elf_state_only(errno == ENOENT
							  ? EXM_ELF_REPLACED
							  : EXM_ELF_UNREADABLE);
		if ((uint64_t)st.st_ino != f->inode) {
			close(fd);
			return exm_elf_state_only(EXM_ELF_REPLACED);
		}
	}
	e = exm_elfcache_get_fd(c, fd, path);
	close(fd);
	return e;
}
