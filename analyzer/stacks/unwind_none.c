/* The unwinder where elfutils' libdw was not found at build time: the pc
 * and a scan of the copy for return addresses, every frame unnamed.
 * check-names: instead of analyzer/stacks/unwind.c */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind.h"
#include "uscan.h"

static const char dlt_unone_why[] =
	"this analyzer was built without elfutils' libdw";

/* The paths the frames point at, kept for the unwinder's life. */
struct dlt_unwinder {
	char **paths;
	size_t n, cap;
};

struct dlt_unwinder *dlt_unwinder_new(const char *debug_dirs)
{
	(void)debug_dirs;
	return calloc(1, sizeof(struct dlt_unwinder));
}

void dlt_unwinder_free(struct dlt_unwinder *u)
{
	if (u == NULL)
		return;
	for (size_t i = 0; i < u->n; i++)
		free(u->paths[i]);
	free(u->paths);
	free(u);
}

static const char *dlt_unone_path(struct dlt_unwinder *u, const char *path)
{
	if (path == NULL || path[0] == '\0')
		return NULL;
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->paths[i], path) == 0)
			return u->paths[i];
	if (u->n == u->cap) {
		size_t ncap = u->cap ? u->cap * 2 : 16;
		char **p = realloc(u->paths, ncap * sizeof(*p));
		if (p == NULL)
			return NULL;
		u->paths = p;
		u->cap = ncap;
	}
	char *s = strdup(path);
	if (s)
		u->paths[u->n++] = s;
	return s;
}

size_t dlt_unwind_name(struct dlt_unwinder *u, const char *path,
		       const uint8_t *build_id, uint32_t build_id_len,
		       uint64_t rel, int caller, struct dlt_uframe *out,
		       size_t cap)
{
	(void)build_id;
	(void)build_id_len;
	if (cap == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	out->pc = rel;
	out->rel = rel;
	out->caller = (uint8_t)caller;
	out->how = caller ? DLT_UF_CFI : DLT_UF_REGS;
	out->obj = dlt_unone_path(u, path);
	out->unnamed = dlt_unone_why;
	return 1;
}

struct dlt_unone_ctx {
	const struct dlt_umap *map;
};

static int dlt_unone_bytes(void *ctx, size_t mod, uint64_t fo, uint8_t out[8])
{
	const struct dlt_unone_ctx *c = ctx;
	const char *path = c->map->m[mod].path;
	if (path == NULL || fo < 8)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = pread(fd, out, 8, (off_t)(fo - 8));
	close(fd);
	return r == 8 ? 0 : -1;
}

static void dlt_unone_frame(struct dlt_unwinder *u, const struct dlt_umap *map,
			    uint64_t pc, int how, struct dlt_uframe *f)
{
	memset(f, 0, sizeof(*f));
	f->pc = pc;
	f->how = (uint8_t)how;
	f->caller = how != DLT_UF_REGS;
	long mi = dlt_umap_find(map, pc);
	if (mi < 0) {
		f->rel = pc;
		f->unnamed = "no file mapped";
		return;
	}
	/* The offset in the file: without the program headers, the ELF
	 * address of most objects' text. */
	f->rel = pc - map->m[mi].lo + map->m[mi].off;
	f->obj = dlt_unone_path(u, map->m[mi].path);
	f->unnamed = dlt_unone_why;
}

size_t dlt_unwind(struct dlt_unwinder *u, const struct dlt_umap *map,
		  const struct dlt_ustack *st, struct dlt_uframe *out,
		  size_t cap, char *stop, size_t stop_cap)
{
	if (stop && stop_cap)
		snprintf(stop, stop_cap, "%s", dlt_unone_why);
	int pc = dlt_uarch_pc(st->arch), sp = dlt_uarch_sp(st->arch);
	if (cap == 0 || pc < 0 || !(st->regs_known >> pc & 1))
		return 0;
	dlt_unone_frame(u, map, st->regs[pc], DLT_UF_REGS, &out[0]);
	size_t n = 1;
	uint64_t ras[256];
	size_t mods[256];
	struct dlt_unone_ctx c = {map};
	uint64_t from = st->regs_known >> sp & 1 ? st->regs[sp] : st->sp;
	size_t k =
		dlt_uscan(map, st, from, ras, mods,
			  cap - n < 256 ? cap - n : 256, dlt_unone_bytes, &c);
	for (size_t i = 0; i < k; i++)
		dlt_unone_frame(u, map, ras[i], DLT_UF_SCAN, &out[n++]);
	return n;
}
