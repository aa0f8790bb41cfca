/* A process's environment as named values (envprof.h). */
#include "envprof.h"
#include "ranges.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install.h"
#include "live.h"
#include "rules.h"
#include "units.h"

/* Variables that shape loading and the GPU libraries: prefixes end in
 * '*'.  All of them are on the writer's allow-list (docs/privacy.md). */
static const char *const dlt_envp_vars[] = {
	"LD_*",	       "CUDA_*",      "NCCL_*",	 "CUDNN_*",
	"TORCH_*",     "PYTORCH_*",   "OMP_*",	 "PYTHON*",
	"NVIDIA_*",    "VIRTUAL_ENV", "CONDA_*", "UCX_NET_DEVICES",
	"FI_PROVIDER", NULL};

/* Set per rank on purpose: each rank its own GPU. */
static const char *const dlt_envp_per_rank[] = {
	"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "OMPI_*", NULL};

static bool dlt_envp_match(const char *const *list, const char *name)
{
	for (const char *const *a = list; *a; a++) {
		size_t l = strlen(*a);
		if ((*a)[l - 1] == '*' ? strncmp(name, *a, l - 1) == 0
				       : strcmp(name, *a) == 0)
			return true;
	}
	return false;
}

bool dlt_envp_var_shapes(const char *name, bool *per_rank)
{
	if (per_rank)
		*per_rank = dlt_envp_match(dlt_envp_per_rank, name);
	return dlt_envp_match(dlt_envp_vars, name);
}

const char *dlt_envp_kind_name(enum dlt_envp_kind k)
{
	static const char *const n[] = {"GPU libraries", "NCCL plugins",
					"other libraries", "environment",
					"system"};
	return k < DLT_ENVP_KINDS ? n[k] : "?";
}

static struct dlt_envp_item *dlt_envp_add(struct dlt_arena_blk **arena,
					  struct dlt_envprof *e,
					  enum dlt_envp_kind kind,
					  const char *key, const char *value)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 32;
		struct dlt_envp_item *n =
			dlt_arena_alloc(arena, cap * sizeof(*n));
		if (e->n)
			memcpy(n, e->items, e->n * sizeof(*n));
		e->items = n;
		e->cap = cap;
	}
	struct dlt_envp_item *it = &e->items[e->n++];
	e->sorted = false;
	*it = (struct dlt_envp_item){.kind = kind,
				     .key = dlt_arena_strdup(arena, key),
				     .value = dlt_arena_strdup(arena, value)};
	return it;
}

static int dlt_envp_item_cmp(const void *x, const void *y);

const struct dlt_envp_item *dlt_envprof_get(const struct dlt_envprof *e,
					    enum dlt_envp_kind kind,
					    const char *key)
{
	if (e->n == 0)
		return NULL; /* items is NULL: bsearch may not be given it */
	if (e->sorted) {
		/* A rank's profile with every library holds hundreds of
		 * items, looked up once per key and unit. */
		struct dlt_envp_item k = {.kind = kind, .key = key};
		return bsearch(&k, e->items, e->n, sizeof(*e->items),
			       dlt_envp_item_cmp);
	}
	for (size_t i = 0; i < e->n; i++)
		if (e->items[i].kind == kind &&
		    strcmp(e->items[i].key, key) == 0)
			return &e->items[i];
	return NULL;
}

static bool dlt_str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool dlt_envp_same(const struct dlt_envp_item *a, const struct dlt_envp_item *b)
{
	if (a->kind == DLT_ENVP_VAR || a->kind == DLT_ENVP_SYS)
		return dlt_str_eq(a->value, b->value);
	/* One build is one version, whichever way each side learnt it (the
	 * library's answer, or only its file name), unless both libraries
	 * answered and differ. */
	if (a->identity && b->identity &&
	    dlt_str_eq(a->identity, b->identity) &&
	    !(dlt_str_eq(a->from, "library") &&
	      dlt_str_eq(b->from, "library") &&
	      !dlt_str_eq(a->value, b->value)))
		return dlt_str_eq(a->path, b->path);
	return dlt_str_eq(a->value, b->value) &&
	       dlt_str_eq(a->identity, b->identity) &&
	       dlt_str_eq(a->path, b->path);
}

/* "build-id 3f2a..." or "size 1234": what tells two files apart. */
static const char *dlt_envp_identity(const struct dlt_lib *lib, char *buf,
				     size_t cap)
{
	if (lib->build_id_len == 0) {
		snprintf(buf, cap, "size %llu", (unsigned long long)lib->size);
		return buf;
	}
	size_t o = (size_t)snprintf(buf, cap, "build-id ");
	for (uint32_t i = 0; i < lib->build_id_len && i < 32 && o + 3 < cap;
	     i++)
		o += (size_t)snprintf(buf + o, cap - o, "%02x",
				      lib->build_id[i]);
	return buf;
}

static bool dlt_envp_plugin(const char *family)
{
	return strncmp(family, "libnccl-", 8) == 0;
}

/* cuDNN 9's front library answers no version query of its own: what a
 * library of its family in the same directory reported (libcudnn_graph's
 * version word) stands for it. */
static const char *dlt_envp_sibling_version(const struct dlt_process *p,
					    const struct dlt_lib *lib,
					    const char *fam, char *buf,
					    size_t cap)
{
	uint32_t want = strncmp(fam, "libcudnn", 8) == 0 ? DLT_FAM_CUDNN : 0;
	char dir[4096], vdir[4096];
	dlt_dirname(lib->realpath ? lib->realpath : lib->path, dir,
		    sizeof(dir));
	for (size_t i = 0; want && i < p->nversions; i++) {
		const struct dlt_reported_version *v = &p->versions[i];
		if (v->family != want || v->path == NULL)
			continue;
		dlt_dirname(v->path, vdir, sizeof(vdir));
		if (strcmp(dir, vdir) == 0 &&
		    dlt_family_version_str(v->family, v->version, buf, cap)[0])
			return buf;
	}
	return NULL;
}

static void dlt_envp_libs(struct dlt_arena_blk **arena, struct dlt_envprof *e,
			  const struct dlt_process *p)
{
	bool here = p->host && dlt_is_this_host(p->host);
	/* The families kept so far, by hash: a rank with every library has
	 * hundreds, and a scan of the list for each made env over 10,000
	 * ranks quadratic in their libraries (40 % of its time in strcmp). */
	size_t nslots = 16;
	while (nslots < 2 * p->nlibs)
		nslots *= 2;
	uint32_t *slot = dlt_xcalloc(nslots, sizeof(*slot));
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *lib = &p->libs[i];
		if (lib->failed || lib->path == NULL || lib->path[0] == '\0' ||
		    (lib->flags & (DLT_LIB_MAIN | DLT_LIB_VDSO)))
			continue;
		char fam[256];
		bool renamed;
		dlt_lib_family(lib->path, fam, sizeof(fam), &renamed);
		enum dlt_envp_kind kind =
			dlt_is_gpu_family(fam) ? DLT_ENVP_GPU_LIB
			: dlt_envp_plugin(fam) ? DLT_ENVP_PLUGIN
					       : DLT_ENVP_LIB;
		if ((kind == DLT_ENVP_LIB && !e->all_libs) ||
		    (lib->flags & DLT_LIB_PRELOAD &&
		     strcmp(fam, "libdltrace") == 0))
			continue;
		uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
		for (const char *c = fam; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		size_t k = h & (nslots - 1);
		bool have = false;
		for (; slot[k]; k = (k + 1) & (nslots - 1)) {
			const struct dlt_envp_item *o = &e->items[slot[k] - 1];
			if (o->kind == kind && strcmp(o->key, fam) == 0) {
				have = true;
				break;
			}
		}
		if (have)
			continue;
		slot[k] = (uint32_t)e->n + 1; /* the item added below */
		char ver[64], id[96];
		const char *from = NULL;
		dlt_lib_version_str(p, lib, ver, sizeof(ver), &from);
		if ((from == NULL || strcmp(from, "file name") == 0) &&
		    dlt_envp_sibling_version(p, lib, fam, ver, sizeof(ver)))
			from = "its family's library in that directory";
		struct dlt_envp_item *it = dlt_envp_add(
			arena, e, kind, fam, ver[0] ? ver : "(no version)");
		it->path = dlt_arena_strdup(arena, lib->path);
		it->via = dlt_found_via_name(lib->found_via);
		it->identity = dlt_arena_strdup(
			arena, dlt_envp_identity(lib, id, sizeof(id)));
		it->from = from;
		/* libgomp.so.1 copied as a file of its own: its name is its
		 * soname, whose number is the ABI's, not the release's. */
		it->soname_only =
			from && strcmp(from, "file name") == 0 && lib->soname &&
			strcmp(dlt_basename(lib->realpath ? lib->realpath
							  : lib->path),
			       lib->soname) == 0;
		if (here && kind != DLT_ENVP_LIB) {
			/* Only this machine's files can be looked up. */
			struct dlt_install in;
			dlt_install_find(lib->realpath ? lib->realpath
						       : lib->path,
					 DLT_DPKG_INFO, &in);
			char how[200];
			snprintf(how, sizeof(how), "%s%s%s",
				 dlt_installer_name(in.by),
				 in.package[0] ? " " : "", in.package);
			it->installed = dlt_arena_strdup(arena, how);
		}
	}
	free(slot);
}

/* "3.11" of python3.11 or libpython3.11.so.1.0, "" if none. */
static void dlt_python_from_name(const char *path, char *buf, size_t cap)
{
	buf[0] = '\0';
	const char *b = path ? dlt_basename(path) : "";
	if (strncmp(b, "libpython", 9) == 0)
		b += 3;
	if (strncmp(b, "python", 6) != 0)
		return;
	b += 6;
	size_t n = strspn(b, "0123456789.");
	while (n && b[n - 1] == '.')
		n--;
	if (n && strchr(b, '.') && (size_t)(strchr(b, '.') - b) < n)
		snprintf(buf, cap, "%.*s", (int)n, b);
}

/* torch/version.py beside torch/_C*.so or above torch/lib/libtorch*.so,
 * on this machine: the fallback for traces of format 2.1. */
static bool dlt_torch_version_file(const char *lib, char *buf, size_t cap)
{
	char dir[4096], path[4200], line[256];
	dlt_dirname(lib, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%sversion.py", dir,
		 strncmp(dlt_basename(lib), "_C.", 3) == 0 ? "" : "../");
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false;
	bool ok = false;
	while (!ok && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "__version__", 11) != 0)
			continue;
		const char *q = strpbrk(line, "'\"");
		if (q == NULL)
			continue;
		size_t n = strcspn(q + 1, "'\"");
		snprintf(buf, cap, "%.*s", (int)n, q + 1);
		ok = n > 0;
	}
	fclose(f);
	return ok;
}

static void dlt_envp_sysitem(struct dlt_arena_blk **arena,
			     struct dlt_envprof *e, const char *key,
			     const char *value, const char *from,
			     const char *path)
{
	if (value == NULL || value[0] == '\0')
		return;
	struct dlt_envp_item *it =
		dlt_envp_add(arena, e, DLT_ENVP_SYS, key, value);
	it->from = from;
	it->path = path ? dlt_arena_strdup(arena, path) : NULL;
}

static void dlt_envp_system(struct dlt_arena_blk **arena, struct dlt_envprof *e,
			    const struct dlt_process *p,
			    const struct dlt_gpu *g)
{
	const struct dlt_sysinfo *s = &p->sys;
	dlt_envp_sysitem(arena, e, "os", s->os, "/etc/os-release", NULL);
	dlt_envp_sysitem(arena, e, "kernel", s->kernel, "uname", NULL);
	char buf[128];
	const char *glibc = s->glibc, *gfrom = "gnu_get_libc_version";
	const char *python = s->python, *pfrom = "Py_GetVersion";
	const char *ppath = s->python_path;
	const char *torch = s->torch, *tpath = s->torch_path;
	const char *tfrom = "torch/version.py";
	char pbuf[32], tbuf[64];
	if (python == NULL) {
		dlt_python_from_name(p->exe, pbuf, sizeof(pbuf));
		python = pbuf[0] ? pbuf : NULL;
		pfrom = "executable name";
		ppath = p->exe;
	}
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *lib = &p->libs[i];
		if (lib->failed || lib->path == NULL)
			continue;
		const char *b = dlt_basename(lib->path);
		if (glibc == NULL && strncmp(b, "libc-", 5) == 0) {
			/* glibc before 2.34 names its file libc-2.31.so. */
			snprintf(buf, sizeof(buf), "%.*s",
				 (int)strcspn(b + 5, "s") - 1, b + 5);
			glibc = buf;
			gfrom = "file name";
		}
		if (python == NULL && strncmp(b, "libpython", 9) == 0) {
			dlt_python_from_name(b, pbuf, sizeof(pbuf));
			python = pbuf[0] ? pbuf : NULL;
			pfrom = "file name";
			ppath = lib->path;
		}
		if (torch == NULL &&
		    (strncmp(b, "libtorch", 8) == 0 ||
		     (strncmp(b, "_C.", 3) == 0 &&
		      strstr(lib->path, "/torch/"))) &&
		    p->host && dlt_is_this_host(p->host) &&
		    dlt_torch_version_file(lib->path, tbuf, sizeof(tbuf))) {
			torch = tbuf;
			tpath = lib->path;
			tfrom = "torch/version.py, read now";
		}
	}
	dlt_envp_sysitem(arena, e, "glibc", glibc, gfrom, NULL);
	const char *kdrv = NULL;
	for (size_t i = 0; g && i < g->nfams && !kdrv; i++)
		if (g->fams[i].kdrv && g->fams[i].kdrv[0])
			kdrv = g->fams[i].kdrv;
	for (size_t i = 0; g && i < g->nloaded && !kdrv; i++)
		if (g->loaded[i].kdrv && g->loaded[i].kdrv[0])
			kdrv = g->loaded[i].kdrv;
	dlt_envp_sysitem(arena, e, "NVIDIA driver", kdrv, "kernel module",
			 NULL);
	int64_t api = g ? dlt_gpu_driver_api(g) : -1;
	if (api > 0)
		dlt_envp_sysitem(arena, e, "CUDA driver API",
				 dlt_family_version_str(DLT_FAM_CUDA, api, buf,
							sizeof(buf)),
				 "cuDriverGetVersion", NULL);
	else if (api == 0)
		dlt_envp_sysitem(arena, e, "CUDA driver API", "none",
				 "cuDriverGetVersion", NULL);
	dlt_envp_sysitem(arena, e, "python", python, pfrom, ppath);
	dlt_envp_sysitem(arena, e, "torch", torch, tfrom, tpath);
}

/* The system's items in the order people read them, from the machine up;
 * others by name. */
static int dlt_envp_sys_rank(const char *key)
{
	static const char *const order[] = {
		"os",	  "kernel", "glibc", "NVIDIA driver", "CUDA driver API",
		"python", "torch"};
	for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++)
		if (strcmp(key, order[i]) == 0)
			return i;
	return 100;
}

static int dlt_envp_item_cmp(const void *x, const void *y)
{
	const struct dlt_envp_item *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->kind == DLT_ENVP_SYS) {
		int ra = dlt_envp_sys_rank(a->key),
		    rb = dlt_envp_sys_rank(b->key);
		if (ra != rb)
			return ra < rb ? -1 : 1;
	}
	return strcmp(a->key, b->key);
}

/* A preload list without libdltrace.so (entries split on ':' and ' ',
 * as the loader splits them). */
static const char *dlt_envp_without_self(const char *list, char *buf,
					 size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ": ");
		char ent[4096];
		snprintf(ent, sizeof(ent), "%.*s", (int)n, s);
		if (n && strcmp(dlt_basename(ent), "libdltrace.so") != 0 &&
		    o + n + 2 < cap)
			o += (size_t)snprintf(buf + o, cap - o, "%s%s",
					      o ? ":" : "", ent);
		s += n;
		if (*s)
			s++;
	}
	return buf;
}

struct dlt_envprof *dlt_envprof_build(struct dlt_arena_blk **arena,
				      const struct dlt_process *p,
				      const struct dlt_gpu *g, bool all_libs)
{
	struct dlt_envprof *e = dlt_arena_alloc(arena, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->host = dlt_arena_strdup(arena, p->host ? p->host : "?");
	e->rank = p->rank;
	e->pid = p->hdr.pid;
	e->exe = p->exe ? dlt_arena_strdup(arena, p->exe) : NULL;
	e->all_libs = all_libs;
	e->forked = p->hdr.parent_kind == DLT_PARENT_FORK;
	dlt_envp_libs(arena, e, p);
	for (size_t i = 0; i < p->nenv; i++) {
		const struct dlt_env_var *v = &p->env[i];
		if (!dlt_envp_var_shapes(v->name, NULL))
			continue;
		char val[4096];
		const char *value = v->redacted ? "<redacted>"
				    : v->value	? v->value
						: "";
		if (strcmp(v->name, "LD_PRELOAD") == 0 ||
		    strcmp(v->name, "LD_AUDIT") == 0) {
			/* dltrace's own entry says where dltrace is, not
			 * what the program loads. */
			value = dlt_envp_without_self(value, val, sizeof(val));
			if (value[0] == '\0')
				continue;
		}
		dlt_envp_add(arena, e, DLT_ENVP_VAR, v->name, value);
	}
	dlt_envp_system(arena, e, p, g);
	if (e->n)
		qsort(e->items, e->n, sizeof(*e->items), dlt_envp_item_cmp);
	e->sorted = true;
	return e;
}

struct dlt_envprof *dlt_envprof_copy(struct dlt_arena_blk **arena,
				     const struct dlt_envprof *src)
{
	struct dlt_envprof *c = dlt_arena_alloc(arena, sizeof(*c));
	*c = *src;
	c->items =
		dlt_arena_alloc(arena, (c->n ? c->n : 1) * sizeof(*c->items));
	if (c->n)
		memcpy(c->items, src->items, c->n * sizeof(*c->items));
	c->cap = c->n ? c->n : 1;
	return c;
}

void dlt_envprof_merge(struct dlt_arena_blk **arena, struct dlt_envprof *dst,
		       const struct dlt_envprof *src)
{
	size_t n0 = dst->n;
	bool sorted = dst->sorted;
	for (size_t i = 0; i < src->n; i++) {
		const struct dlt_envp_item *s = &src->items[i];
		bool have = false;
		if (sorted && n0)
			/* Only dst's own items, which are in order: those
			 * added here come from src, whose keys are distinct. */
			have = bsearch(s, dst->items, n0, sizeof(*dst->items),
				       dlt_envp_item_cmp) != NULL;
		for (size_t k = 0; !sorted && k < n0 && !have; k++)
			have = dst->items[k].kind == s->kind &&
			       strcmp(dst->items[k].key, s->key) == 0;
		if (have)
			continue;
		struct dlt_envp_item *it =
			dlt_envp_add(arena, dst, s->kind, s->key, s->value);
		struct dlt_envp_item keep = *it;
		*it = *s;
		it->key = keep.key;
		it->value = keep.value;
	}
	if (dst->n)
		qsort(dst->items, dst->n, sizeof(*dst->items),
		      dlt_envp_item_cmp);
	dst->sorted = true;
}

static int dlt_envp_key_cmp(const void *x, const void *y)
{
	const struct dlt_envp_item *const *a = x, *const *b = y;
	return dlt_envp_item_cmp(*a, *b);
}

const struct dlt_envp_item **dlt_envp_keys(const struct dlt_envp_unit *u,
					   size_t nu, size_t *n)
{
	size_t total = 0;
	for (size_t i = 0; i < nu; i++)
		total += u[i].prof->n;
	const struct dlt_envp_item **k =
		dlt_xcalloc(total ? total : 1, sizeof(*k));
	size_t m = 0;
	for (size_t i = 0; i < nu; i++)
		for (size_t j = 0; j < u[i].prof->n; j++)
			k[m++] = &u[i].prof->items[j];
	qsort(k, m, sizeof(*k), dlt_envp_key_cmp);
	size_t out = 0;
	for (size_t i = 0; i < m; i++)
		if (out == 0 || dlt_envp_item_cmp(k[out - 1], k[i]) != 0)
			k[out++] = k[i];
	*n = out;
	return k;
}

size_t dlt_envp_groups(const struct dlt_envp_unit *u, size_t nu,
		       const struct dlt_envp_item *key,
		       struct dlt_envp_group *groups, size_t *idx)
{
	size_t ng = 0;
	/* Members are counted first, so that each group's slice of idx is
	 * contiguous. */
	size_t *of = dlt_xcalloc(nu ? nu : 1, sizeof(*of));
	for (size_t i = 0; i < nu; i++) {
		const struct dlt_envp_item *it =
			dlt_envprof_get(u[i].prof, key->kind, key->key);
		size_t g = 0;
		while (g < ng &&
		       !(it == NULL
				 ? groups[g].item == NULL
				 : groups[g].item != NULL &&
					   dlt_envp_same(groups[g].item, it)))
			g++;
		if (g == ng)
			groups[ng++] = (struct dlt_envp_group){.item = it};
		groups[g].n++;
		of[i] = g;
	}
	size_t at = 0;
	for (size_t g = 0; g < ng; g++) {
		groups[g].units = idx + at;
		at += groups[g].n;
		groups[g].n = 0;
	}
	for (size_t i = 0; i < nu; i++) {
		struct dlt_envp_group *g = &groups[of[i]];
		g->units[g->n++] = i;
	}
	free(of);
	/* Largest first; a stable insertion sort keeps ties in unit order. */
	for (size_t i = 1; i < ng; i++) {
		struct dlt_envp_group t = groups[i];
		size_t j = i;
		while (j > 0 && groups[j - 1].n < t.n) {
			groups[j] = groups[j - 1];
			j--;
		}
		groups[j] = t;
	}
	return ng;
}

static int dlt_envp_prof_rank_cmp(const void *x, const void *y)
{
	const struct dlt_envprof *const *a = x, *const *b = y;
	return ((*a)->rank > (*b)->rank) - ((*a)->rank < (*b)->rank);
}

bool dlt_envp_busy(const struct dlt_envprof *e)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->items[i].kind == DLT_ENVP_GPU_LIB ||
		    e->items[i].kind == DLT_ENVP_PLUGIN ||
		    (e->items[i].kind == DLT_ENVP_SYS &&
		     (strcmp(e->items[i].key, "python") == 0)))
			return true;
	return false;
}

struct dlt_envp_unit *dlt_envp_units(struct dlt_arena_blk **arena,
				     struct dlt_envprof *const *profs, size_t n,
				     size_t *nu)
{
	struct dlt_envp_unit *u = dlt_xcalloc(n ? n : 1, sizeof(*u));
	size_t m = 0, ranked = 0, busy = 0, roots = 0;
	for (size_t i = 0; i < n; i++) {
		ranked += profs[i]->rank >= 0;
		busy += dlt_envp_busy(profs[i]);
		roots += dlt_envp_busy(profs[i]) && !profs[i]->forked;
	}
	if (ranked) {
		/* Stable by rank: a rank's first process is its base. */
		struct dlt_envprof **s = dlt_xcalloc(n, sizeof(*s));
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (profs[i]->rank >= 0)
				s[k++] = profs[i];
		for (size_t i = 1; i < k; i++)
			for (size_t j = i;
			     j > 0 &&
			     dlt_envp_prof_rank_cmp(&s[j - 1], &s[j]) > 0;
			     j--) {
				struct dlt_envprof *t = s[j];
				s[j] = s[j - 1];
				s[j - 1] = t;
			}
		for (size_t i = 0; i < k; i++) {
			if (m && u[m - 1].prof->rank == s[i]->rank) {
				dlt_envprof_merge(arena, u[m - 1].prof, s[i]);
				continue;
			}
			/* A copy: merging must not change the process's own
			 * profile. */
			struct dlt_envprof *c = dlt_envprof_copy(arena, s[i]);
			u[m].prof = c;
			snprintf(u[m].label, sizeof(u[m].label), "rank %d (%s)",
				 (int)c->rank, c->host);
			m++;
		}
		free(s);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (busy && (!dlt_envp_busy(profs[i]) ||
				     (roots && profs[i]->forked)))
				continue;
			u[m].prof = profs[i];
			snprintf(u[m].label, sizeof(u[m].label), "pid %u (%s)",
				 (unsigned)profs[i]->pid, profs[i]->host);
			m++;
		}
	}
	*nu = m;
	struct dlt_envprof **up = dlt_xcalloc(m ? m : 1, sizeof(*up));
	for (size_t i = 0; i < m; i++)
		up[i] = u[i].prof;
	dlt_envp_unify(arena, up, m);
	free(up);
	return u;
}

static int dlt_envp_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int dlt_envp_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Ranks of many hosts: "ranks 0–4,502, 4,504–9,999 (1,250 hosts)", or
 * false when a host-by-host list reads better (a few hosts, or pids). */
static bool dlt_envp_who_folded(const struct dlt_envp_unit *u,
				const struct dlt_envp_group *g, char *buf,
				size_t cap)
{
	size_t hosts = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_envprof *a = u[g->units[i]].prof;
		if (a->rank < 0)
			return false;
		bool seen = false;
		for (size_t j = 0; j < i && !seen && hosts <= 4; j++)
			seen = strcmp(u[g->units[j]].prof->host, a->host) == 0;
		hosts += !seen;
	}
	if (hosts <= 4)
		return false;
	int64_t *r = dlt_xcalloc(g->n, sizeof(*r));
	for (size_t i = 0; i < g->n; i++)
		r[i] = u[g->units[i]].prof->rank;
	qsort(r, g->n, sizeof(*r), dlt_envp_cmp_i64);
	char list[400], nh[32];
	dlt_ranges_text(r, g->n, list, sizeof(list));
	free(r);
	/* Hosts counted exactly (the estimate above stops at 5), from a
	 * sorted copy: thousands of ranks. */
	const char **h = dlt_xcalloc(g->n, sizeof(*h));
	for (size_t i = 0; i < g->n; i++)
		h[i] = u[g->units[i]].prof->host;
	qsort(h, g->n, sizeof(*h), dlt_envp_cmp_str);
	size_t nhosts = 0;
	for (size_t i = 0; i < g->n; i++)
		nhosts += i == 0 || strcmp(h[i - 1], h[i]) != 0;
	free(h);
	snprintf(buf, cap, "ranks %s (%s hosts)", list,
		 dlt_ranges_num((int64_t)nhosts, nh, sizeof(nh)));
	return true;
}

const char *dlt_envp_who(const struct dlt_envp_unit *u,
			 const struct dlt_envp_group *g, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	if (dlt_envp_who_folded(u, g, buf, cap))
		return buf;
	bool *done = dlt_xcalloc(g->n ? g->n : 1, sizeof(*done));
	for (size_t i = 0; i < g->n && o + 1 < cap; i++) {
		if (done[i])
			continue;
		const struct dlt_envprof *a = u[g->units[i]].prof;
		bool ranks = a->rank >= 0;
		size_t count = 0;
		for (size_t j = i; j < g->n; j++)
			count += !done[j] && strcmp(u[g->units[j]].prof->host,
						    a->host) == 0;
		o += (size_t)snprintf(buf + o, cap - o, "%s%s%s", o ? "; " : "",
				      ranks ? "rank" : "pid",
				      count > 1 ? "s" : "");
		for (size_t j = i; j < g->n && o + 1 < cap; j++) {
			const struct dlt_envprof *b = u[g->units[j]].prof;
			if (done[j] || strcmp(b->host, a->host) != 0)
				continue;
			done[j] = true;
			if (ranks)
				o += (size_t)snprintf(buf + o, cap - o, " %d",
						      (int)b->rank);
			else
				o += (size_t)snprintf(buf + o, cap - o, " %u",
						      (unsigned)b->pid);
		}
		if (o + 1 < cap)
			o += (size_t)snprintf(buf + o, cap - o, " (%s)",
					      a->host);
	}
	free(done);
	if (o >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
	return buf;
}

size_t dlt_envp_present(const struct dlt_envp_item *key,
			struct dlt_envp_group *groups, size_t ng,
			struct dlt_envp_group *absent)
{
	*absent = (struct dlt_envp_group){.item = NULL};
	if (key->kind != DLT_ENVP_GPU_LIB && key->kind != DLT_ENVP_LIB &&
	    key->kind != DLT_ENVP_SYS)
		return ng;
	size_t k = 0;
	for (size_t g = 0; g < ng; g++) {
		if (groups[g].item)
			groups[k++] = groups[g];
		else
			*absent = groups[g];
	}
	return k;
}

bool dlt_envp_is_lib(enum dlt_envp_kind k)
{
	return k == DLT_ENVP_GPU_LIB || k == DLT_ENVP_PLUGIN ||
	       k == DLT_ENVP_LIB;
}

#define DLT_ENVP_COPY_FROM "another copy of this build ("

/* How much a library's version is worth, by where it came from: the
 * library's own answer, then what the shim read in the file, then a
 * sibling library's answer, then the file's name, then a soname's
 * number, then nothing. */
static int dlt_envp_source_rank(const char *from, bool soname_only)
{
	size_t l = strlen(DLT_ENVP_COPY_FROM);
	if (from && strncmp(from, DLT_ENVP_COPY_FROM, l) == 0)
		return dlt_envp_source_rank(from + l, false);
	if (from == NULL)
		return 0;
	if (strncmp(from, "library", 7) == 0)
		return 5;
	if (strncmp(from, "file name", 9) == 0)
		return soname_only ? 1 : 2;
	if (strncmp(from, "file", 4) == 0)
		return 4;
	return 3; /* its family's library in that directory */
}

static int dlt_envp_unify_cmp(const void *x, const void *y)
{
	const struct dlt_envp_item *a = *(const struct dlt_envp_item *const *)x;
	const struct dlt_envp_item *b = *(const struct dlt_envp_item *const *)y;
	int c = dlt_envp_item_cmp(a, b);
	return c ? c : strcmp(a->identity, b->identity);
}

/* Whether a is a better version than b: a better source, else a longer
 * name ("1.0.0" over "1"). */
static bool dlt_envp_better(const struct dlt_envp_item *a,
			    const struct dlt_envp_item *b)
{
	int ra = dlt_envp_source_rank(a->from, a->soname_only),
	    rb = dlt_envp_source_rank(b->from, b->soname_only);
	if (ra != rb)
		return ra > rb;
	return strlen(a->value) > strlen(b->value);
}

void dlt_envp_unify(struct dlt_arena_blk **arena,
		    struct dlt_envprof *const *profs, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += profs[i]->n;
	struct dlt_envp_item **v = dlt_xcalloc(total ? total : 1, sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < profs[i]->n; k++) {
			struct dlt_envp_item *it = &profs[i]->items[k];
			if (dlt_envp_is_lib(it->kind) && it->identity)
				v[m++] = it;
		}
	if (m)
		qsort(v, m, sizeof(*v), dlt_envp_unify_cmp);
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;
		while (j < m && dlt_envp_unify_cmp(&v[i], &v[j]) == 0)
			j++;
		const struct dlt_envp_item *best = v[i];
		for (size_t k = i + 1; k < j; k++)
			if (dlt_envp_better(v[k], best))
				best = v[k];
		int rb = dlt_envp_source_rank(best->from, best->soname_only);
		for (size_t k = i; k < j; k++) {
			struct dlt_envp_item *it = v[k];
			/* Two answers of the libraries themselves that differ
			 * are a difference (dlt_envp_same), whatever the
			 * files. */
			if (it == best || strcmp(it->value, best->value) == 0 ||
			    (rb == 5 &&
			     dlt_envp_source_rank(it->from, false) == 5))
				continue;
			const char *bf = best->from ? best->from : "?";
			size_t l = strlen(DLT_ENVP_COPY_FROM);
			if (strncmp(bf, DLT_ENVP_COPY_FROM, l) == 0)
				bf += l, l = strlen(bf) - 1;
			else
				l = strlen(bf);
			char from[160];
			snprintf(from, sizeof(from), DLT_ENVP_COPY_FROM "%.*s)",
				 (int)l, bf);
			it->value = best->value;
			it->from = dlt_arena_strdup(arena, from);
			it->soname_only = false;
		}
		i = j;
	}
	free(v);
}

bool dlt_envp_version_vague(const struct dlt_envp_item *a,
			    const struct dlt_envp_item *b)
{
	if (a == NULL || b == NULL || a->kind == DLT_ENVP_VAR ||
	    strcmp(a->value, b->value) == 0)
		return false;
	int ra, rb;
	if (a->kind == DLT_ENVP_SYS) {
		/* Python's "3.11" of python3.11 against Py_GetVersion's
		 * "3.11.2". */
		ra = a->from && strstr(a->from, "name") ? 2 : 5;
		rb = b->from && strstr(b->from, "name") ? 2 : 5;
	} else {
		ra = dlt_envp_source_rank(a->from, a->soname_only);
		rb = dlt_envp_source_rank(b->from, b->soname_only);
	}
	if (ra == 0 || rb == 0)
		return true; /* one side has no version */
	bool a_short = strlen(a->value) < strlen(b->value);
	const char *s = a_short ? a->value : b->value;
	const char *l = a_short ? b->value : a->value;
	size_t n = strlen(s);
	return (a_short ? ra : rb) <= 2 && strncmp(l, s, n) == 0 && l[n] == '.';
}

const char *dlt_envp_version_source(const struct dlt_envp_item *it)
{
	if (it->kind == DLT_ENVP_SYS)
		return it->from;
	if (!dlt_envp_is_lib(it->kind))
		return NULL;
	if (it->from == NULL)
		return "no version known";
	if (strcmp(it->from, "library") == 0)
		return "the library's answer";
	if (strcmp(it->from, "file name") == 0)
		return it->soname_only ? "its soname only" : "its file name";
	if (strcmp(it->from, "file") == 0)
		return "read in the file";
	return it->from;
}

const char *dlt_envp_identity_text(const char *identity, char *buf, size_t cap)
{
	unsigned long long size;
	char h[32], exact[32];
	if (identity && sscanf(identity, "size %llu", &size) == 1) {
		/* The exact count too: two files of 283.6 KiB may differ by
		 * a byte, which is what tells them apart. */
		snprintf(buf, cap, "size %s (%s bytes)",
			 dlt_units_bytes(size, h, sizeof(h)),
			 dlt_ranges_num((int64_t)size, exact, sizeof(exact)));
		return buf;
	}
	snprintf(buf, cap, "%s", identity ? identity : "");
	return buf;
}

const char *dlt_envp_via_var(const struct dlt_envp_item *it)
{
	if (it == NULL || it->via == NULL)
		return NULL;
	if (strcmp(it->via, "LD_LIBRARY_PATH") == 0)
		return "LD_LIBRARY_PATH";
	if (strcmp(it->via, "PRELOAD") == 0)
		return "LD_PRELOAD";
	return NULL;
}
