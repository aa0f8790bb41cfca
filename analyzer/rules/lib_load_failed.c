/* LIB_LOAD_FAILED: a file was found but would not load: an undefined
 * symbol or a missing symbol version (pytorch#104808, cugraph#4465), a
 * wrong ELF class, static TLS exhausted.  The loader's message names the
 * culprit; the other objects unloaded with it are collateral, and a load
 * that failed because a dependency was missing is LIB_NOT_FOUND's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

struct dlt_cause {
	const char *kind; /* evidence "cause" */
	char what[256];	  /* the symbol or version */
	char family[64];  /* library family that should provide it */
};

/* "a/b.so: undefined symbol: X" and the like: the object named before the
 * first ": " is the one that failed. */
static void dlt_message_object(const char *msg, char *buf, size_t cap)
{
	buf[0] = '\0';
	const char *c = msg ? strstr(msg, ": ") : NULL;
	if (c == NULL)
		return;
	size_t n = (size_t)(c - msg);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, msg, n);
	buf[n] = '\0';
}

static bool dlt_row_named(const struct dlt_lib *l, const char *name)
{
	if (name[0] == '\0')
		return false;
	const char *c[] = {l->path, l->realpath, l->requested};
	for (int i = 0; i < 3; i++)
		if (c[i] &&
		    (strcmp(c[i], name) == 0 ||
		     strcmp(dlt_basename(c[i]), dlt_basename(name)) == 0))
			return true;
	return false;
}

/* Which library should have provided a symbol, from its prefix. */
static const char *dlt_symbol_family(const char *sym)
{
	static const struct {
		const char *prefix, *family;
	} map[] = {
		{"pnccl", "libnccl"},	       {"nccl", "libnccl"},
		{"cudnn", "libcudnn"},	       {"cublasLt", "libcublasLt"},
		{"cublas", "libcublas"},       {"cufft", "libcufft"},
		{"curand", "libcurand"},       {"cusparse", "libcusparse"},
		{"cusolver", "libcusolver"},   {"nvrtc", "libnvrtc"},
		{"nvJitLink", "libnvJitLink"}, {"cuda", "libcudart"},
		{"__cuda", "libcudart"},       {"cu", "libcuda"},
		{"omp_", "libgomp"},	       {"GOMP_", "libgomp"},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strncmp(sym, map[i].prefix, strlen(map[i].prefix)) == 0)
			return map[i].family;
	return NULL;
}

static const char *dlt_version_family(const char *ver)
{
	if (strncmp(ver, "GLIBCXX_", 8) == 0 || strncmp(ver, "CXXABI_", 7) == 0)
		return "libstdc++";
	if (strncmp(ver, "GLIBC_", 6) == 0)
		return "libc";
	if (strncmp(ver, "GCC_", 4) == 0)
		return "libgcc_s";
	if (strncmp(ver, "GOMP_", 5) == 0 || strncmp(ver, "OMP_", 4) == 0)
		return "libgomp";
	return NULL;
}

static void dlt_classify(const char *msg, struct dlt_cause *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = "other";
	if (msg == NULL)
		return;
	const char *s;
	if ((s = strstr(msg, "undefined symbol: ")) != NULL) {
		c->kind = "undefined_symbol";
		s += strlen("undefined symbol: ");
		size_t n = strcspn(s, " ,\t\n");
		snprintf(c->what, sizeof(c->what), "%.*s", (int)n, s);
		const char *fam = dlt_symbol_family(c->what);
		/* "symbol, version libcudnn_cnn_infer.so.8" names the
		 * library outright. */
		const char *v = strstr(s, "version ");
		if (v) {
			dlt_lib_family(v + 8, c->family, sizeof(c->family),
				       NULL);
		} else if (fam) {
			snprintf(c->family, sizeof(c->family), "%s", fam);
		}
	} else if ((s = strstr(msg, "version `")) != NULL) {
		c->kind = "symbol_version";
		s += strlen("version `");
		size_t n = strcspn(s, "'");
		snprintf(c->what, sizeof(c->what), "%.*s", (int)n, s);
		const char *fam = dlt_version_family(c->what);
		if (fam)
			snprintf(c->family, sizeof(c->family), "%s", fam);
		else if (strstr(c->what, ".so"))
			dlt_lib_family(c->what, c->family, sizeof(c->family),
				       NULL);
	} else if (strstr(msg, "static TLS")) {
		c->kind = "static_tls";
	} else if (strstr(msg, "wrong ELF class")) {
		c->kind = "elf_class";
	} else if (strstr(msg, "invalid ELF header") ||
		   strstr(msg, "file too short")) {
		c->kind = "not_elf";
	} else if (strstr(msg, "Permission denied")) {
		c->kind = "permission";
	}
}

/* Version a LIB_FAMILY record gave for a file, "" if none. */
static void dlt_file_version(const struct dlt_gpu *g, const char *path,
			     char *buf, size_t cap)
{
	buf[0] = '\0';
	for (size_t k = 0; k < g->nfams && path; k++) {
		const struct dlt_gpu_family *f = &g->fams[k];
		if (f->path == NULL || strcmp(f->path, path) != 0 ||
		    dlt_gpu_family_version(f) <= 0)
			continue;
		dlt_gpu_family_version_str(f, buf, cap);
		return;
	}
}

/* Copies of the library that should have provided what was missing:
 * those mapped in the process, including the ones mapped for the failed
 * load and dropped with it. */
static size_t dlt_ev_providers(struct dlt_rule_ctx *c, struct dlt_val *ev,
			       const char *family, const char **first_path)
{
	size_t n = 0;
	struct dlt_val *arr = NULL;
	for (size_t i = 0; i < c->p->nlibs; i++) {
		const struct dlt_lib *l = &c->p->libs[i];
		char fam[128], ver[64];
		if (l->from_fail_record)
			continue;
		const char *file = l->realpath ? l->realpath : l->path;
		dlt_lib_family(file, fam, sizeof(fam), NULL);
		if (strncmp(fam, family, strlen(family)) != 0)
			continue;
		if (arr == NULL)
			arr = dlt_obj_array(ev, "loaded_copies");
		struct dlt_val *o = dlt_arr_object(arr);
		dlt_ev_lib(o, l);
		dlt_file_version(c->g, l->realpath, ver, sizeof(ver));
		dlt_obj_str(o, "version", ver[0] ? ver : NULL);
		dlt_obj_bool(o, "unloaded_with_the_failed_load", l->failed);
		if (n++ == 0 && first_path)
			*first_path = file;
	}
	return n;
}

/* Mapped rows by the object whose load asked for them, then row: a failed
 * object's dependencies are one search away instead of a pass over every
 * row per finding, which a trace of many failed loads made quadratic. */
struct dlt_dep_ref {
	uint64_t requester_obj;
	size_t row;
};

static int dlt_dep_ref_cmp(const void *a, const void *b)
{
	const struct dlt_dep_ref *x = a, *y = b;
	if (x->requester_obj != y->requester_obj)
		return x->requester_obj < y->requester_obj ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

struct dlt_deps {
	struct dlt_dep_ref *v;
	size_t n;
};

static void dlt_deps_index(struct dlt_deps *d, const struct dlt_process *p)
{
	d->v = dlt_xcalloc(p->nlibs + 1, sizeof(*d->v));
	d->n = 0;
	for (size_t i = 0; i < p->nlibs; i++)
		if (!p->libs[i].from_fail_record && p->libs[i].requester_obj)
			d->v[d->n++] = (struct dlt_dep_ref){
				p->libs[i].requester_obj, i};
	qsort(d->v, d->n, sizeof(*d->v), dlt_dep_ref_cmp);
}

/* The dependencies the loader mapped for the failed object: where a symbol
 * it needs should have come from, whatever the library is called. */
static size_t dlt_ev_dependencies(struct dlt_rule_ctx *c, struct dlt_val *ev,
				  const struct dlt_deps *deps,
				  const struct dlt_lib *lib,
				  const char **first_path)
{
	size_t n = 0;
	struct dlt_val *arr = NULL;
	struct dlt_dep_ref key = {lib->obj, 0};
	size_t lo = dlt_lower_bound(deps->v, deps->n, sizeof(*deps->v), &key,
				    dlt_dep_ref_cmp);
	for (size_t k = lo;
	     lib->obj && k < deps->n && deps->v[k].requester_obj == lib->obj;
	     k++) {
		const struct dlt_lib *l = &c->p->libs[deps->v[k].row];
		if (l == lib)
			continue;
		if (arr == NULL)
			arr = dlt_obj_array(ev, "dependencies");
		struct dlt_val *o = dlt_arr_object(arr);
		dlt_ev_lib(o, l);
		dlt_obj_bool(o, "unloaded_with_the_failed_load", l->failed);
		if (n++ == 0 && first_path)
			*first_path = l->realpath ? l->realpath : l->path;
	}
	return n;
}

static void dlt_one(struct dlt_rule_ctx *c, const struct dlt_deps *deps,
		    const struct dlt_lib *lib)
{
	const char *file = lib->realpath ? lib->realpath : lib->path;
	if (file == NULL)
		file = lib->requested;
	struct dlt_cause cause;
	dlt_classify(lib->error, &cause);
	enum dlt_severity sev = dlt_failed_load_severity(c, lib);
	struct dlt_finding *f;
	if (cause.what[0])
		f = dlt_rule_finding(c, sev,
				     "%s was found but did not load: %s %s",
				     dlt_basename(file),
				     strcmp(cause.kind, "undefined_symbol") == 0
					     ? "undefined symbol"
					     : "missing symbol version",
				     cause.what);
	else
		f = dlt_rule_finding(c, sev,
				     "%s was found but did not load: %s",
				     dlt_basename(file),
				     lib->error ? lib->error : "(no message)");
	f->ts = lib->ts;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "file", file);
	dlt_obj_str(ev, "requested", lib->requested);
	dlt_obj_str(ev, "requester", lib->requester);
	dlt_obj_str(ev, "found_via", dlt_found_via_name(lib->found_via));
	dlt_obj_str(ev, "loader_message", lib->error);
	dlt_obj_str(ev, "cause", cause.kind);
	if (cause.what[0])
		dlt_obj_str(ev, "missing", cause.what);
	const char *prov = NULL;
	size_t nprov = 0;
	if (cause.family[0]) {
		dlt_obj_str(ev, "provider_family", cause.family);
		nprov = dlt_ev_providers(c, ev, cause.family, &prov);
	}
	const char *dep = NULL;
	size_t ndeps = dlt_ev_dependencies(c, ev, deps, lib, &dep);

	if (strcmp(cause.kind, "static_tls") == 0) {
		dlt_finding_fix(c, f,
				"glibc ran out of static TLS space: load it "
				"first with LD_PRELOAD=%s, or reserve more: "
				"export GLIBC_TUNABLES=glibc.rtld.optional_"
				"static_tls=4096",
				file);
	} else if (strcmp(cause.kind, "elf_class") == 0 ||
		   strcmp(cause.kind, "not_elf") == 0) {
		dlt_finding_fix(c, f,
				"%s is not a library for this machine: remove "
				"its directory from LD_LIBRARY_PATH or install "
				"the x86-64 build",
				file);
	} else if (strcmp(cause.kind, "permission") == 0) {
		dlt_finding_fix(c, f, "make it readable: chmod a+r %s", file);
	} else if (nprov) {
		dlt_finding_fix(c, f,
				"%s needs %s from %s, but the copy loaded is "
				"%s: make the matching copy load first (unset "
				"LD_LIBRARY_PATH, or import the package that "
				"needs the newer copy first), or upgrade the "
				"package that brought the older one",
				dlt_basename(file), cause.what, cause.family,
				prov);
	} else if (cause.family[0]) {
		dlt_finding_fix(c, f,
				"no loaded %s provides %s: install the %s "
				"version that %s was built against",
				cause.family, cause.what, cause.family,
				dlt_basename(file));
	} else if (ndeps && cause.what[0]) {
		dlt_finding_fix(c, f,
				"%s needs %s from one of its dependencies "
				"(first: %s, see evidence dependencies); one "
				"of them is an older or different build: make "
				"the copy %s was built against load instead "
				"(unset LD_LIBRARY_PATH, or fix its RUNPATH)",
				dlt_basename(file), cause.what, dep,
				dlt_basename(file));
	} else {
		dlt_finding_fix(c, f,
				"read the loader message; `LD_DEBUG=libs,"
				"symbols` shows the loader's steps");
	}
}

/* Names (base names) of the failed rows, sorted: whether the loader's
 * message names another failed object is one search, not a pass over every
 * row, which a trace of many failed loads made quadratic. */
static int dlt_str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Failed rows by message, then row: the first row of each message. */
struct dlt_err_row {
	const char *error;
	size_t row;
};

static int dlt_err_row_cmp(const void *a, const void *b)
{
	const struct dlt_err_row *x = a, *y = b;
	if (x->error != y->error)
		return (uintptr_t)x->error < (uintptr_t)y->error ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

void dlt_rule_lib_load_failed(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	bool *matters = dlt_lib_failures_matter(p);
	const char **names = dlt_xcalloc(3 * p->nlibs + 1, sizeof(*names));
	struct dlt_err_row *errs = dlt_xcalloc(p->nlibs + 1, sizeof(*errs));
	size_t nnames = 0, nerrs = 0;
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *l = &p->libs[i];
		if (!l->failed)
			continue;
		const char *cand[] = {l->path, l->realpath, l->requested};
		for (int k = 0; k < 3; k++)
			if (cand[k])
				names[nnames++] = dlt_basename(cand[k]);
		if (l->error && !dlt_lib_not_found(l))
			errs[nerrs++] = (struct dlt_err_row){l->error, i};
	}
	qsort(names, nnames, sizeof(*names), dlt_str_cmp);
	qsort(errs, nerrs, sizeof(*errs), dlt_err_row_cmp);
	struct dlt_deps deps;
	dlt_deps_index(&deps, p);
	for (size_t k = 0; k < p->nlibs; k++) {
		const struct dlt_lib *lib = &p->libs[k];
		if (!lib->failed || dlt_lib_not_found(lib) || !matters[k])
			continue;
		char culprit[1024];
		dlt_message_object(lib->error, culprit, sizeof(culprit));
		if (!dlt_row_named(lib, culprit)) {
			/* Another object is named: this one was unloaded
			 * with it (or for want of it) and is reported
			 * there; with no name, the object the dlopen asked
			 * for stands for the failure.  (This row is not
			 * named, so a failed row that is must be another.) */
			const char *base = dlt_basename(culprit);
			if (culprit[0] && bsearch(&base, names, nnames,
						  sizeof(*names), dlt_str_cmp))
				continue;
			/* Rows of one failed dlopen share the message: the
			 * first of them stands for all. */
			struct dlt_err_row key = {lib->error, 0};
			size_t lo = dlt_lower_bound(errs, nerrs, sizeof(*errs),
						    &key, dlt_err_row_cmp);
			if (lib->error && lo < nerrs &&
			    errs[lo].error == lib->error && errs[lo].row < k)
				continue;
		}
		dlt_one(c, &deps, lib);
	}
	free(deps.v);
	free(names);
	free(errs);
	free(matters);
}
