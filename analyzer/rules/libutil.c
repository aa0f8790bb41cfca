/* Helpers shared by the rules: library names and families, search
 * directories, files on the analyzing machine. */
#define _GNU_SOURCE
#include "rules.h"

#include <ctype.h>
#include <inttypes.h>
#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apinames.h"
#include "elfread.h"

double dlt_rel_s(const struct dlt_process *p, uint64_t ts)
{
	if (ts == 0)
		return 0.0;
	return ((double)ts - (double)p->hdr.start_monotonic_ns) / 1e9;
}

const char *dlt_proc_env(const struct dlt_process *p, const char *name)
{
	for (size_t i = 0; i < p->nenv; i++)
		if (p->env[i].name && strcmp(p->env[i].name, name) == 0 &&
		    !p->env[i].redacted)
			return p->env[i].value;
	return NULL;
}

void dlt_dirname(const char *path, char *buf, size_t cap)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	size_t n = s ? (size_t)(s - path) : 0;
	if (s == path)
		n = 1; /* "/" */
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, path ? path : "", n);
	buf[n] = '\0';
}

void dlt_lib_family(const char *path, char *buf, size_t cap, bool *renamed)
{
	char key[256];
	dlt_lib_key(path, key, sizeof(key));
	size_t n = strlen(key);
	if (n > 3 && strcmp(key + n - 3, ".so") == 0)
		n -= 3;
	key[n] = '\0';
	bool ren = false;
	/* auditwheel and conda rename vendored copies NAME-<8+ hex>. */
	char *dash = strrchr(key, '-');
	if (dash && strlen(dash + 1) >= 8) {
		bool hex = true;
		for (const char *h = dash + 1; *h; h++)
			hex &= isxdigit((unsigned char)*h) != 0;
		if (hex) {
			*dash = '\0';
			ren = true;
		}
	}
	snprintf(buf, cap, "%s", key);
	if (renamed)
		*renamed = ren;
}

const struct dlt_lib *dlt_loaded_row(const struct dlt_process *p,
				     const char *realpath)
{
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *o = &p->libs[i];
		if (!o->failed && o->realpath && realpath &&
		    strcmp(o->realpath, realpath) == 0)
			return o;
	}
	return NULL;
}

void dlt_expand_origin(const char *spec, size_t len, const char *origin,
		       char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 1 < cap;) {
		size_t tok = 0;
		if (strncmp(spec + i, "$ORIGIN", 7) == 0)
			tok = 7;
		else if (strncmp(spec + i, "${ORIGIN}", 9) == 0)
			tok = 9;
		if (tok) {
			o += (size_t)snprintf(out + o, cap - o, "%s", origin);
			if (o >= cap)
				o = cap - 1;
			i += tok;
			continue;
		}
		out[o++] = spec[i++];
	}
	out[o] = '\0';
}

size_t dlt_search_dirs(const struct dlt_lib *lib, char **dirs, size_t max)
{
	size_t n = 0;
	char origin[PATH_MAX];
	const char *loaded =
		lib->path && lib->path[0] ? lib->path : lib->realpath;
	dlt_dirname(loaded, origin, sizeof(origin));
	const char *lists[2] = {lib->runpath, lib->rpath};
	for (int l = 0; l < 2; l++) {
		const char *s = lists[l];
		while (s && *s && n < max) {
			size_t len = strcspn(s, ":");
			if (len > 0) {
				char d[PATH_MAX];
				dlt_expand_origin(s, len, origin, d, sizeof(d));
				dirs[n++] = dlt_xstrdup(d);
			}
			s += len;
			if (*s == ':')
				s++;
		}
	}
	return n;
}

bool dlt_file_exists(const char *path, struct stat *st)
{
	struct stat tmp;
	if (st == NULL)
		st = &tmp;
	return path && stat(path, st) == 0 && S_ISREG(st->st_mode);
}

bool dlt_differs_from_row(const struct dlt_lib *row, const char *path,
			  const struct stat *st)
{
	char real[PATH_MAX];
	if (realpath(path, real) && row->realpath &&
	    strcmp(real, row->realpath) == 0)
		return false;
	if (row->ino && (uint64_t)st->st_ino == row->ino &&
	    (uint64_t)st->st_dev == row->dev)
		return false;
	/* A byte-identical copy elsewhere is the same library. */
	struct dlt_identity mine, there;
	dlt_lib_identity(row, &mine);
	return !dlt_file_identity(path, &there) ||
	       dlt_identity_cmp(&mine, &there) != DLT_SAME_BUILD;
}

/* ---- ELF ------------------------------------------------------------- */

struct dlt_needed {
	struct dlt_elf *e;
	char **v;
	size_t n, cap;
};

static int dlt_take_needed(void *ctx, int64_t tag, uint64_t val)
{
	struct dlt_needed *nd = ctx;
	char name[1024];
	if (tag != DT_NEEDED ||
	    dlt_elf_dynstr(nd->e, val, name, sizeof(name)) != 0)
		return 0;
	nd->v = dlt_util_grow(nd->v, &nd->cap, nd->n + 1, sizeof(*nd->v));
	nd->v[nd->n++] = dlt_xstrdup(name);
	nd->v[nd->n] = NULL;
	return 0;
}

char **dlt_elf_needed(const char *path)
{
	struct dlt_elf e;
	if (dlt_elf_open(&e, path) != 0)
		return NULL;
	struct dlt_needed nd = {&e, NULL, 0, 0};
	if (e.dyn_n && e.str_sz)
		dlt_elf_each_dyn(&e, dlt_take_needed, &nd);
	dlt_elf_close(&e);
	if (nd.v == NULL)
		nd.v = dlt_xcalloc(1, sizeof(*nd.v));
	return nd.v;
}

void dlt_free_strv(char **v)
{
	for (char **s = v; s && *s; s++)
		free(*s);
	free(v);
}

/* ---- packages ---------------------------------------------------------- */

const char *dlt_pip_package(const char *family, int cuda_major, char *buf,
			    size_t cap)
{
	static const struct {
		const char *family; /* prefix */
		const char *pkg;
	} map[] = {
		{"libcudnn", "nvidia-cudnn"},
		{"libnccl", "nvidia-nccl"},
		{"libcublasLt", "nvidia-cublas"},
		{"libcublas", "nvidia-cublas"},
		{"libcudart", "nvidia-cuda-runtime"},
		{"libnvrtc", "nvidia-cuda-nvrtc"},
		{"libcupti", "nvidia-cuda-cupti"},
		{"libcufft", "nvidia-cufft"},
		{"libcurand", "nvidia-curand"},
		{"libcusparse", "nvidia-cusparse"},
		{"libcusolver", "nvidia-cusolver"},
		{"libnvJitLink", "nvidia-nvjitlink"},
		{"libnvToolsExt", "nvidia-nvtx"},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strncmp(family, map[i].family, strlen(map[i].family)) != 0)
			continue;
		if (cuda_major > 0)
			snprintf(buf, cap, "%s-cu%d", map[i].pkg, cuda_major);
		else
			snprintf(buf, cap, "%s-cu12", map[i].pkg);
		return buf;
	}
	return NULL;
}

int dlt_proc_cuda_major(const struct dlt_process *p, const struct dlt_gpu *g)
{
	const struct dlt_gpu_family *f = dlt_gpu_family(g, DLT_FAM_CUDART);
	if (f && f->v[DLT_FV_CUDART_runtime_version] > 0)
		return (int)(f->v[DLT_FV_CUDART_runtime_version] / 1000);
	/* cuDNN was built for one CUDA major: its package name says it. */
	f = dlt_gpu_family(g, DLT_FAM_CUDNN);
	if (f && f->v[DLT_FV_CUDNN_cudart_version] > 0)
		return (int)(f->v[DLT_FV_CUDNN_cudart_version] / 1000);
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *l = &p->libs[i];
		char fam[64], ver[64];
		if (l->failed)
			continue;
		dlt_lib_family(l->realpath ? l->realpath : l->path, fam,
			       sizeof(fam), NULL);
		if (strcmp(fam, "libcudart") != 0)
			continue;
		dlt_lib_file_version(l->realpath ? l->realpath : l->path, ver,
				     sizeof(ver));
		if (atoi(ver) > 0)
			return atoi(ver);
	}
	return 0;
}

bool dlt_is_gpu_family(const char *family)
{
	static const char *const gpu[] = {
		"libcudart",   "libcuda",      "libnvidia-ml", "libnccl",
		"libcublas",   "libcublasLt",  "libcufft",     "libcurand",
		"libcusparse", "libcusolver",  "libnvrtc",     "libnvJitLink",
		"libcupti",    "libnvToolsExt"};
	if (strncmp(family, "libcudnn", 8) == 0)
		return true;
	for (size_t i = 0; i < sizeof(gpu) / sizeof(gpu[0]); i++)
		if (strcmp(family, gpu[i]) == 0)
			return true;
	return false;
}

bool dlt_lib_by_dlopen(const struct dlt_lib *lib)
{
	if (lib->dlopen_mode < 0)
		return false;
	if (lib->requested == NULL) /* only the dlopen named it */
		return true;
	if (lib->dlopen_name == NULL)
		return false;
	return strcmp(lib->requested, lib->dlopen_name) == 0 ||
	       strcmp(dlt_basename(lib->requested),
		      dlt_basename(lib->dlopen_name)) == 0;
}

enum dlt_severity dlt_failed_load_severity(const struct dlt_rule_ctx *c,
					   const struct dlt_lib *lib)
{
	/* The start-up chain: the program (or what needed it) did not
	 * run. */
	if (lib->dlopen_mode < 0)
		return DLT_SEV_ERROR;
	/* A framework that cannot load its GPU libraries may carry on, on
	 * the CPU, and exit 0: told loudly all the same. */
	const char *names[] = {lib->requested, lib->dlopen_name};
	for (int i = 0; i < 2; i++) {
		char fam[128];
		if (names[i] == NULL)
			continue;
		dlt_lib_family(names[i], fam, sizeof(fam), NULL);
		if (dlt_is_gpu_family(fam))
			return DLT_SEV_ERROR;
	}
	const struct dlt_end *e = &c->p->end;
	if (e->how == DLT_END_NONE)
		return DLT_SEV_WARNING;
	return dlt_end_is_failure(e) ? DLT_SEV_ERROR : DLT_SEV_INFO;
}

const char *dlt_load_relation(const struct dlt_lib *lib)
{
	return dlt_lib_by_dlopen(lib) ? "loaded with dlopen by" : "needed by";
}

bool dlt_is_driver_lib(const char *name)
{
	const char *b = dlt_basename(name);
	/* libcuda.so.1, and test doubles named libcuda-<something>; not
	 * libcudart or libcudnn. */
	return b && ((strncmp(b, "libcuda", 7) == 0 &&
		      (b[7] == '.' || b[7] == '-')) ||
		     strncmp(b, "libnvidia-ml", 12) == 0);
}

void dlt_ev_lib(struct dlt_val *o, const struct dlt_lib *lib)
{
	dlt_obj_str(o, "path", lib->realpath ? lib->realpath : lib->path);
	if (lib->path && lib->realpath && strcmp(lib->path, lib->realpath))
		dlt_obj_str(o, "loaded_as", lib->path);
	dlt_obj_str(o, "requested", lib->requested);
	dlt_obj_str(o, "requester", lib->requester);
	dlt_obj_str(o, "found_via", dlt_found_via_name(lib->found_via));
	if (lib->soname)
		dlt_obj_str(o, "soname", lib->soname);
	dlt_obj_uint(o, "size", lib->size);
	dlt_obj_uint(o, "inode", lib->ino);
}

bool dlt_lib_not_found(const struct dlt_lib *lib)
{
	if (!lib->failed || !lib->from_fail_record)
		return false;
	const char *e = lib->error;
	/* No dlerror text (the model then says "not found; tried ..."), or
	 * the loader's own words for a search that found nothing. */
	return e == NULL || strncmp(e, "not found;", 10) == 0 ||
	       strstr(e, "No such file or directory") != NULL;
}

/* ---- files the loader did not look at --------------------------------- */

void dlt_dirset_free(struct dlt_dirset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->d[i]);
	free(s->d);
	memset(s, 0, sizeof(*s));
}

static void dlt_dirset_add(struct dlt_dirset *s, const char *dir)
{
	if (dir == NULL || dir[0] != '/' || s->n >= 512)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->d[i], dir) == 0)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->d = dlt_xrealloc(s->d, s->cap, sizeof(*s->d));
	}
	s->d[s->n++] = dlt_xstrdup(dir);
}

static void dlt_dirset_glob(struct dlt_dirset *s, const char *pattern)
{
	glob_t g;
	if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		dlt_dirset_add(s, g.gl_pathv[i]);
	globfree(&g);
}

/* pip puts CUDA libraries in site-packages/nvidia/<pkg>/lib. */
static void dlt_dirset_site(struct dlt_dirset *s, const char *site)
{
	char pat[PATH_MAX];
	if (snprintf(pat, sizeof(pat), "%s/nvidia/*/lib", site) <
	    (int)sizeof(pat))
		dlt_dirset_glob(s, pat);
	if (snprintf(pat, sizeof(pat), "%s/torch/lib", site) < (int)sizeof(pat))
		dlt_dirset_glob(s, pat);
}

static void dlt_dirset_prefix(struct dlt_dirset *s, const char *prefix)
{
	char pat[PATH_MAX];
	if (prefix == NULL || prefix[0] != '/')
		return;
	snprintf(pat, sizeof(pat), "%s/lib", prefix);
	dlt_dirset_add(s, pat);
	snprintf(pat, sizeof(pat), "%s/lib64", prefix);
	dlt_dirset_add(s, pat);
	const char *sub[] = {"site-packages", "dist-packages"};
	for (int i = 0; i < 2; i++) {
		glob_t g;
		snprintf(pat, sizeof(pat), "%s/lib/python3*/%s", prefix,
			 sub[i]);
		if (glob(pat, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			dlt_dirset_site(s, g.gl_pathv[k]);
		globfree(&g);
	}
}

/* The site-packages directory a path lies in, if any. */
static void dlt_dirset_from_lib(struct dlt_dirset *s, const char *path)
{
	if (path == NULL)
		return;
	const char *keys[] = {"/site-packages/", "/dist-packages/"};
	for (int i = 0; i < 2; i++) {
		const char *k = strstr(path, keys[i]);
		if (k == NULL)
			continue;
		char site[PATH_MAX];
		size_t n = (size_t)(k - path) + strlen(keys[i]) - 1;
		if (n >= sizeof(site))
			continue;
		memcpy(site, path, n);
		site[n] = '\0';
		dlt_dirset_site(s, site);
	}
}

static bool dlt_was_tried(const struct dlt_lib *lib, const char *dir)
{
	char d[PATH_MAX], r1[PATH_MAX], r2[PATH_MAX];
	const char *rd = realpath(dir, r1) ? r1 : dir;
	for (uint32_t i = 0; i < lib->n_tried; i++) {
		dlt_dirname(lib->tried[i].path, d, sizeof(d));
		if (strcmp(d, dir) == 0)
			return true;
		if (realpath(d, r2) && strcmp(r2, rd) == 0)
			return true;
	}
	return false;
}

/* Where libraries lie on this machine whatever asked for them: next to
 * the process's loaded libraries (in *s), pip's directories under the
 * program's prefix and the environments it names, the CUDA toolkits (in
 * *env). */
void dlt_dirset_base(struct dlt_dirset *s, struct dlt_dirset *env,
		     const struct dlt_process *p)
{
	char buf[PATH_MAX];
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *o = &p->libs[i];
		if (o->failed)
			continue;
		dlt_dirname(o->path, buf, sizeof(buf));
		dlt_dirset_add(s, buf);
		dlt_dirname(o->realpath, buf, sizeof(buf));
		dlt_dirset_add(s, buf);
		dlt_dirset_from_lib(s, o->realpath);
	}
	if (p->exe) {
		/* .../bin/python3 -> the prefix of the environment. */
		char bin[PATH_MAX];
		dlt_dirname(p->exe, bin, sizeof(bin));
		dlt_dirname(bin, buf, sizeof(buf));
		dlt_dirset_prefix(env, buf);
	}
	dlt_dirset_prefix(env, dlt_proc_env(p, "VIRTUAL_ENV"));
	dlt_dirset_prefix(env, dlt_proc_env(p, "CONDA_PREFIX"));
	const char *cuda_vars[] = {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"};
	for (int i = 0; i < 3; i++) {
		const char *v = dlt_proc_env(p, cuda_vars[i]);
		if (v == NULL)
			continue;
		snprintf(buf, sizeof(buf), "%s/lib64", v);
		dlt_dirset_add(env, buf);
		snprintf(buf, sizeof(buf), "%s/lib", v);
		dlt_dirset_add(env, buf);
	}
	dlt_dirset_glob(env, "/usr/local/cuda*/lib64");
	dlt_dirset_glob(env, "/usr/local/cuda*/lib");
	dlt_dirset_glob(env, "/usr/local/cuda*/targets/*/lib");
}

/* Next to the requester: its directory, that directory's subdirectories
 * and siblings (plugins/deps, lib/ next to bin/ ...), its RPATH and
 * RUNPATH. */
void dlt_dirset_near(struct dlt_dirset *s, const struct dlt_lib *req)
{
	char rdir[PATH_MAX], pat[PATH_MAX + 8];
	dlt_dirname(req->realpath ? req->realpath : req->path, rdir,
		    sizeof(rdir));
	dlt_dirset_add(s, rdir);
	if (rdir[0] &&
	    snprintf(pat, sizeof(pat), "%s/*", rdir) < (int)sizeof(pat))
		dlt_dirset_glob(s, pat);
	if (rdir[0] &&
	    snprintf(pat, sizeof(pat), "%s/../*", rdir) < (int)sizeof(pat))
		dlt_dirset_glob(s, pat);
	char *dirs[64];
	size_t n = dlt_search_dirs(req, dirs, 64);
	for (size_t i = 0; i < n; i++) {
		dlt_dirset_add(s, dirs[i]);
		free(dirs[i]);
	}
}

/* A file named name in dir that the loader did not try for lib, not one
 * already put in found under another directory: *out, malloc'ed. */
bool dlt_unsearched_copy(const struct dlt_lib *lib, const char *dir,
			 const char *name, char seen[][PATH_MAX], size_t *nseen,
			 char **out)
{
	char cand[PATH_MAX], real[PATH_MAX];
	snprintf(cand, sizeof(cand), "%s/%s", dir, name);
	if (!dlt_file_exists(cand, NULL) || dlt_was_tried(lib, dir))
		return false;
	/* One entry per file, however many directories lead to it. */
	if (realpath(cand, real)) {
		for (size_t i = 0; i < *nseen; i++)
			if (strcmp(seen[i], real) == 0)
				return false;
		if (*nseen < 8)
			snprintf(seen[(*nseen)++], PATH_MAX, "%s", real);
	}
	*out = dlt_xstrdup(cand);
	return true;
}

/* ---- convolutions ------------------------------------------------------- */

void dlt_ev_problem(struct dlt_val *o, const struct dlt_conv_entry *e)
{
	char buf[512];
	dlt_obj_strf(o, "problem", "%016" PRIx64, e->problem);
	dlt_obj_str(o, "direction", dlt_conv_dir_name(e->dir));
	dlt_obj_str(o, "shape",
		    e->has_shape
			    ? dlt_conv_problem_str(&e->shape, buf, sizeof(buf))
			    : NULL);
}

const char *dlt_problem_label(const struct dlt_conv_entry *e, char *buf,
			      size_t cap)
{
	char shape[512];
	if (e->has_shape)
		snprintf(buf, cap, "conv %s %s", dlt_conv_dir_name(e->dir),
			 dlt_conv_problem_str(&e->shape, shape, sizeof(shape)));
	else
		snprintf(buf, cap, "conv %s problem %016" PRIx64,
			 dlt_conv_dir_name(e->dir), e->problem);
	return buf;
}

const char *dlt_algo_label(int dir, int32_t algo, char *buf, size_t cap)
{
	const char *n = dlt_conv_algo_name(dir, algo);
	snprintf(buf, cap, "algo %" PRId32 "%s%s%s", algo, n ? " (" : "",
		 n ? n : "", n ? ")" : "");
	return buf;
}

void dlt_ev_candidates(struct dlt_val *arr, const struct dlt_conv_entry *e,
		       const struct dlt_conv_sel *sel, int64_t cudnn_version)
{
	for (uint32_t i = 0; i < sel->n; i++) {
		const struct dlt_conv_cand *cd = &sel->c[i];
		struct dlt_val *o = dlt_arr_object(arr);
		dlt_obj_int(o, "algo", cd->algo);
		dlt_obj_str(o, "name", dlt_conv_algo_name(e->dir, cd->algo));
		dlt_obj_int(o, "status", cd->status);
		dlt_obj_str(o, "status_name",
			    dlt_status_name(DLT_FAM_CUDNN, cudnn_version,
					    cd->status));
		if (cd->time_ms >= 0)
			dlt_obj_double(o, "time_ms", cd->time_ms);
		else
			dlt_obj_null(o, "time_ms");
		dlt_obj_uint(o, "memory", cd->memory);
	}
}

void dlt_ev_api_values(struct dlt_val *o, const struct dlt_api_desc *a,
		       const uint64_t *v, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char buf[32];
		const char *label = dlt_api_value_label(a, k, buf, sizeof(buf));
		if (dlt_label_is_handle(label))
			dlt_obj_strf(o, label, "0x%" PRIx64, v[k]);
		else
			dlt_obj_int(o, label, (int64_t)v[k]);
	}
}
