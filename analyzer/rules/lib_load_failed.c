/* LIB_LOAD_FAILED: a file was found but would not load: an undefined
 * symbol or a missing symbol version (pytorch#104808, cugraph#4465), a
 * wrong ELF class, static TLS exhausted.  The loader's message names the
 * culprit; the other objects unloaded with it are collateral, and a load
 * that failed because a dependency was missing is LIB_NOT_FOUND's. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfread.h"
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

/* The dependencies the loader mapped for the failed object: where a symbol
 * it needs should have come from, whatever the library is called. */
static size_t dlt_ev_dependencies(struct dlt_rule_ctx *c, struct dlt_val *ev,
				  const struct dlt_rows *rows,
				  const struct dlt_lib *lib,
				  const char **first_path)
{
	size_t n = 0;
	struct dlt_val *arr = NULL;
	size_t end,
		lo = dlt_rows_group(rows->deps, rows->ndeps, lib->obj, &end);
	for (size_t k = lo; k < end; k++) {
		const struct dlt_lib *l = &c->p->libs[rows->deps[k].row];
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

/* ---- a copy that would work ---------------------------------------- */

/* The object that needs what is missing: "(required by X)" of a version
 * message; for an undefined symbol the object the message names first. */
static void dlt_required_by(const char *msg, const struct dlt_cause *cause,
			    char *buf, size_t cap)
{
	buf[0] = '\0';
	const char *r = msg ? strstr(msg, "(required by ") : NULL;
	if (strcmp(cause->kind, "symbol_version") == 0 && r) {
		r += strlen("(required by ");
		snprintf(buf, cap, "%.*s", (int)strcspn(r, ")"), r);
	} else if (strcmp(cause->kind, "undefined_symbol") == 0) {
		dlt_message_object(msg, buf, cap);
	}
}

/* The row of the process for a file, mapped or failed, or NULL. */
static const struct dlt_lib *dlt_row_of(const struct dlt_process *p,
					const struct dlt_rows *rows,
					const char *path)
{
	if (path == NULL)
		return NULL;
	char real[PATH_MAX];
	const char *r = realpath(path, real) ? real : path;
	size_t a = dlt_rows_first(rows->by_path, rows->npath, path);
	size_t b = dlt_rows_first(rows->by_real, rows->nreal, r);
	size_t i = a < b ? a : b;
	return i == SIZE_MAX ? NULL : &p->libs[i];
}

/* "GLIBCXX_3.4.28" after "GLIBCXX_3.4.9": the part after the last '_' of
 * the same prefix, compared as dotted numbers. */
static int dlt_version_cmp(const char *a, const char *b)
{
	const char *x = strrchr(a, '_'), *y = strrchr(b, '_');
	x = x ? x + 1 : a;
	y = y ? y + 1 : b;
	while (*x || *y) {
		char *ex, *ey;
		unsigned long u = strtoul(x, &ex, 10), v = strtoul(y, &ey, 10);
		if (u != v)
			return u < v ? -1 : 1;
		if (ex == x || ey == y)
			return strcmp(x, y);
		x = *ex == '.' ? ex + 1 : ex;
		y = *ey == '.' ? ey + 1 : ey;
	}
	return 0;
}

/* What a file's version definitions say about one version. */
struct dlt_verscan {
	const char *want;
	size_t prefix;	  /* length of want's prefix, through its last '_' */
	char newest[128]; /* the newest of that prefix */
	bool has;
};

static int dlt_take_verdef(void *ctx, const char *v)
{
	struct dlt_verscan *s = ctx;
	if (strcmp(v, s->want) == 0)
		s->has = true;
	if (strncmp(v, s->want, s->prefix) == 0 &&
	    (s->newest[0] == '\0' || dlt_version_cmp(v, s->newest) > 0))
		snprintf(s->newest, sizeof(s->newest), "%s", v);
	return 0;
}

/* Whether the file at path has what is missing (the version, or the
 * symbol), and for a version the newest of its prefix it defines.
 * -1: the file cannot be read. */
static int dlt_has_it(const char *path, const struct dlt_cause *cause,
		      char *newest, size_t cap)
{
	struct dlt_elf e;
	int has = -1;
	if (cap)
		newest[0] = '\0';
	if (dlt_elf_open(&e, path) != 0)
		return -1;
	if (strcmp(cause->kind, "symbol_version") == 0) {
		const char *u = strrchr(cause->what, '_');
		struct dlt_verscan s = {cause->what,
					u ? (size_t)(u - cause->what + 1) : 0,
					"", false};
		if (dlt_elf_each_verdef(&e, dlt_take_verdef, &s) == 0) {
			has = s.has;
			snprintf(newest, cap, "%s", s.newest);
		}
	} else {
		has = dlt_elf_defines(&e, cause->what);
	}
	dlt_elf_close(&e);
	return has;
}

/* The file (DT_NEEDED name) that a version is needed from. */
struct dlt_vn_find {
	const char *version;
	char file[256];
};

static int dlt_take_verneed(void *ctx, const char *file, const char *version)
{
	struct dlt_vn_find *f = ctx;
	if (strcmp(version, f->version) != 0)
		return 0;
	snprintf(f->file, sizeof(f->file), "%s", file);
	return 1;
}

#define DLT_MAX_COPIES 16

/* What the object that needs the missing symbol or version would get:
 * the names it needs it from, each searched for as the loader would for
 * it, the copy loaded left out.  Fills the evidence (required_by,
 * loaded_copy, copies_with_it) and says the copy to use in *use (and how
 * the loader reaches it in *use_via, the loaded copy's rule in
 * *loaded_via), "" when none. */
struct dlt_would_work {
	char use[PATH_MAX];
	const char *use_via;
	char use_version[64];
	char name[256];	       /* the library it needs it from */
	char loaded[PATH_MAX]; /* the copy loaded of that name */
	const char *loaded_via;
	char loaded_newest[128]; /* symbol versions: its newest */
};

static void dlt_ev_copy(struct dlt_val *o, const char *path, const char *real,
			const char *via, const char *newest)
{
	char ver[64];
	dlt_obj_str(o, "path", path);
	dlt_obj_str(o, "found_via", via);
	dlt_lib_file_version(real, ver, sizeof(ver));
	dlt_obj_str(o, "version", ver[0] ? ver : NULL);
	if (newest)
		dlt_obj_str(o, "newest_version", newest[0] ? newest : NULL);
}

static void dlt_would_work(struct dlt_rule_ctx *c, const struct dlt_rows *rows,
			   struct dlt_val *ev, const struct dlt_lib *lib,
			   const struct dlt_cause *cause,
			   struct dlt_would_work *w)
{
	memset(w, 0, sizeof(*w));
	bool version = strcmp(cause->kind, "symbol_version") == 0;
	if (!version && strcmp(cause->kind, "undefined_symbol") != 0)
		return;
	char req_path[PATH_MAX];
	dlt_required_by(lib->error, cause, req_path, sizeof(req_path));
	if (req_path[0] == '\0')
		return;
	dlt_obj_str(ev, "required_by", req_path);
	const struct dlt_lib *req = dlt_row_of(c->p, rows, req_path);
	/* The names to search: for a version, the one file it is needed
	 * from; for a symbol, every DT_NEEDED entry. */
	char **names = NULL;
	if (version) {
		struct dlt_elf e;
		struct dlt_vn_find f = {cause->what, ""};
		if (dlt_elf_open(&e, req_path) == 0) {
			dlt_elf_each_verneed(&e, dlt_take_verneed, &f);
			dlt_elf_close(&e);
		}
		char provider[PATH_MAX];
		dlt_message_object(lib->error, provider, sizeof(provider));
		if (f.file[0] == '\0' && provider[0])
			snprintf(f.file, sizeof(f.file), "%s",
				 dlt_basename(provider));
		names = dlt_xcalloc(2, sizeof(*names));
		names[0] = dlt_xstrdup(f.file);
		/* The copy loaded is the one the message names. */
		if (provider[0]) {
			const struct dlt_lib *row =
				dlt_row_of(c->p, rows, provider);
			snprintf(w->loaded, sizeof(w->loaded), "%s",
				 row && row->realpath ? row->realpath
						      : provider);
			w->loaded_via =
				row ? dlt_found_via_name(row->found_via) : NULL;
		}
	} else {
		names = dlt_elf_needed(req_path);
	}
	struct dlt_val *arr = dlt_obj_array(ev, "copies_with_it");
	for (size_t k = 0; names && names[k]; k++) {
		const char *name = names[k];
		char loaded[PATH_MAX] = "";
		const char *loaded_via = NULL;
		/* The copy of that name the process had. */
		size_t had = version ? SIZE_MAX
				     : dlt_rows_first(rows->by_name,
						      rows->nname, name);
		if (had != SIZE_MAX) {
			const struct dlt_lib *l = &c->p->libs[had];
			snprintf(loaded, sizeof(loaded), "%s", l->realpath);
			loaded_via = dlt_found_via_name(l->found_via);
		}
		if (version) {
			snprintf(loaded, sizeof(loaded), "%s", w->loaded);
			loaded_via = w->loaded_via;
		}
		struct dlt_copy copies[DLT_MAX_COPIES];
		size_t n = dlt_loader_copies(c->p, req, name, copies,
					     DLT_MAX_COPIES);
		for (size_t i = 0; i < n; i++) {
			char newest[128];
			if (strcmp(copies[i].real, loaded) == 0 ||
			    dlt_has_it(copies[i].real, cause, newest,
				       sizeof(newest)) != 1)
				continue;
			dlt_ev_copy(dlt_arr_object(arr), copies[i].path,
				    copies[i].real, copies[i].via,
				    version ? newest : NULL);
			if (w->use[0])
				continue;
			snprintf(w->use, sizeof(w->use), "%s", copies[i].path);
			w->use_via = copies[i].via;
			dlt_lib_file_version(copies[i].real, w->use_version,
					     sizeof(w->use_version));
			snprintf(w->name, sizeof(w->name), "%s", name);
			if (!version) {
				snprintf(w->loaded, sizeof(w->loaded), "%s",
					 loaded);
				w->loaded_via = loaded_via;
			}
		}
		dlt_copies_free(copies, n);
		if (version && w->name[0] == '\0')
			snprintf(w->name, sizeof(w->name), "%s", name);
	}
	dlt_free_strv(names);
	if (w->loaded[0]) {
		struct dlt_val *o = dlt_obj_object(ev, "loaded_copy");
		if (version)
			dlt_has_it(w->loaded, cause, w->loaded_newest,
				   sizeof(w->loaded_newest));
		dlt_ev_copy(o, w->loaded, w->loaded, w->loaded_via,
			    version ? w->loaded_newest : NULL);
	}
}

/* A search that found a file it then rejected (bad ELF header, wrong
 * class) records no LIB_LOAD, only the paths tried: the rejected one is
 * the one the loader's message names, else the last tried, and its rule
 * is how it was found. */
static uint32_t dlt_rejected_via(const struct dlt_lib *lib, const char **file)
{
	if (lib->found_via != DLT_VIA_UNKNOWN || lib->n_tried == 0)
		return lib->found_via;
	char named[PATH_MAX];
	dlt_message_object(lib->error, named, sizeof(named));
	const struct dlt_tried_path *t = &lib->tried[lib->n_tried - 1];
	for (uint32_t i = 0; i < lib->n_tried; i++)
		if (lib->tried[i].path &&
		    strcmp(lib->tried[i].path, named) == 0)
			t = &lib->tried[i];
	if (t->path && (named[0] == '\0' || strcmp(t->path, named) == 0))
		*file = t->path;
	return t->via;
}

static void dlt_load_failed_one(struct dlt_rule_ctx *c,
				const struct dlt_rows *rows,
				const struct dlt_lib *lib)
{
	const char *file = lib->realpath ? lib->realpath : lib->path;
	if (file == NULL)
		file = lib->requested;
	struct dlt_cause cause;
	dlt_classify(lib->error, &cause);
	uint32_t via = lib->found_via;
	if (lib->from_fail_record)
		via = dlt_rejected_via(lib, &file);
	enum dlt_severity sev = dlt_failed_load_severity(c, lib);
	bool version = strcmp(cause.kind, "symbol_version") == 0;
	/* The message is filled in below, once the evidence says which
	 * copy would have worked. */
	struct dlt_finding *f = dlt_rule_finding(c, sev, "%s", "");
	f->ts = lib->ts;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "file", file);
	dlt_obj_str(ev, "requested", lib->requested);
	dlt_obj_str(ev, "requester", lib->requester);
	dlt_obj_str(ev, "found_via", dlt_found_via_name(via));
	dlt_obj_str(ev, "loader_message", lib->error);
	dlt_obj_str(ev, "cause", cause.kind);
	if (cause.what[0])
		dlt_obj_str(ev, "missing", cause.what);
	struct dlt_would_work w;
	dlt_would_work(c, rows, ev, lib, &cause, &w);
	const char *prov = NULL;
	size_t nprov = 0;
	if (cause.family[0]) {
		dlt_obj_str(ev, "provider_family", cause.family);
		nprov = dlt_ev_providers(c, ev, cause.family, &prov);
	}
	const char *dep = NULL;
	size_t ndeps = dlt_ev_dependencies(c, ev, rows, lib, &dep);

	char req[PATH_MAX];
	dlt_required_by(lib->error, &cause, req, sizeof(req));
	const char *needer = req[0] ? dlt_basename(req) : dlt_basename(file);
	char msg[3 * PATH_MAX], use[PATH_MAX + 128] = "";
	if (w.use[0])
		snprintf(use, sizeof(use), "; %s (%s%s%s) has it", w.use,
			 w.use_via, w.use_version[0] ? ", " : "",
			 w.use_version);
	if (version && w.loaded[0])
		snprintf(msg, sizeof(msg),
			 "%s needs symbol version %s from %s, and the copy "
			 "loaded (%s, via %s) defines %s%s%s",
			 needer, cause.what, w.name[0] ? w.name : "its library",
			 w.loaded, w.loaded_via ? w.loaded_via : "?",
			 w.loaded_newest[0] ? "versions up to "
					    : "no version "
					      "of that kind",
			 w.loaded_newest, use);
	else if (cause.what[0])
		snprintf(msg, sizeof(msg),
			 "%s was found but did not load: %s %s%s",
			 dlt_basename(file),
			 version ? "missing symbol version"
				 : "undefined symbol",
			 cause.what, use);
	else
		snprintf(msg, sizeof(msg), "%s was found but did not load: %s",
			 dlt_basename(file),
			 lib->error ? lib->error : "(no message)");
	f->message = dlt_arena_strdup(&c->chk->arena, msg);

	char dir[PATH_MAX];
	dlt_dirname(w.loaded, dir, sizeof(dir));
	if (strcmp(cause.kind, "static_tls") == 0) {
		dlt_finding_fix(c, f,
				"glibc ran out of static TLS space: load it "
				"first with LD_PRELOAD=%s, or reserve more: "
				"export GLIBC_TUNABLES=glibc.rtld.optional_"
				"static_tls=4096",
				file);
	} else if (strcmp(cause.kind, "elf_class") == 0 ||
		   strcmp(cause.kind, "not_elf") == 0) {
		char fdir[PATH_MAX], good[PATH_MAX + 256];
		dlt_dirname(file, fdir, sizeof(fdir));
		/* A file cut short or overwritten: its package's copy is the
		 * good build, when the file is not what the package installed
		 * (a package that ships it so is not mended by reinstalling,
		 * nor is another machine's class of ELF). */
		snprintf(good, sizeof(good), "replace %s with a good build",
			 via == DLT_VIA_LD_LIBRARY_PATH ? "the file" : "it");
		if (strcmp(cause.kind, "not_elf") == 0 && file &&
		    file[0] == '/') {
			struct dlt_install in;
			struct dlt_verify vf;
			char cmd[256];
			dlt_ctx_install(c, file, &in);
			dlt_ctx_verify(c, file, &in, NULL, &vf);
			dlt_ev_install(ev, &in);
			dlt_ev_verify(ev, &vf);
			const char *re = dlt_install_reinstall_cmd(&in, cmd,
								   sizeof(cmd));
			if (vf.verdict == DLT_VERIFY_DIFFERS && re)
				snprintf(good, sizeof(good),
					 "reinstall it (%s): the file differs "
					 "from what %s installed (%s mismatch)",
					 re, in.package, vf.digest);
		}
		if (via == DLT_VIA_LD_LIBRARY_PATH)
			dlt_finding_fix(c, f,
					"%s is not a library for this "
					"machine: take %s out of "
					"LD_LIBRARY_PATH, or %s",
					file, fdir, good);
		else
			dlt_finding_fix(c, f,
					"%s is not a library for this "
					"machine (found through %s): %s",
					file, dlt_found_via_name(via), good);
	} else if (strcmp(cause.kind, "permission") == 0) {
		dlt_finding_fix(c, f, "make it readable: chmod a+r %s", file);
	} else if (w.use[0] && w.loaded_via &&
		   strcmp(w.loaded_via, "LD_LIBRARY_PATH") == 0) {
		dlt_finding_fix(c, f,
				"take %s out of LD_LIBRARY_PATH (it comes "
				"first and holds a %s without %s): %s then "
				"gets %s",
				dir, w.name, cause.what, needer, w.use);
	} else if (w.use[0]) {
		dlt_finding_fix(c, f,
				"make %s load first: LD_PRELOAD=%s, or import "
				"the package that needs it before the one that "
				"brought %s%s",
				w.use, w.use,
				w.loaded[0] ? w.loaded : "the other copy",
				w.loaded[0] ? " (a library already loaded is "
					      "never searched for again)"
					    : "");
	} else if (version && w.loaded[0]) {
		dlt_finding_fix(c, f,
				"no %s on this machine that %s would find "
				"defines %s: install a newer one (for "
				"GLIBCXX, a newer GCC runtime: conda install "
				"-c conda-forge libstdcxx-ng, or the "
				"distribution's libstdc++6), and take %s out "
				"of the way",
				w.name, needer, cause.what, w.loaded);
	} else if (nprov) {
		dlt_finding_fix(c, f,
				"%s needs %s from %s, but the copy loaded is "
				"%s: make the matching copy load first (unset "
				"LD_LIBRARY_PATH, or import the package that "
				"needs the newer copy first), or upgrade the "
				"package that brought the older one",
				needer, cause.what, cause.family, prov);
	} else if (cause.family[0]) {
		dlt_finding_fix(c, f,
				"no loaded %s provides %s: install the %s "
				"version that %s was built against",
				cause.family, cause.what, cause.family, needer);
	} else if (ndeps && cause.what[0]) {
		dlt_finding_fix(c, f,
				"%s needs %s from one of its dependencies "
				"(first: %s, see evidence dependencies); one "
				"of them is an older or different build: make "
				"the copy %s was built against load instead "
				"(unset LD_LIBRARY_PATH, or fix its RUNPATH)",
				needer, cause.what, dep, needer);
	} else {
		dlt_finding_fix(c, f,
				"read the loader message; `LD_DEBUG=libs,"
				"symbols` shows the loader's steps");
	}
}

/* Names (base names) of the failed rows, sorted: whether the loader's
 * message names another failed object is one search, not a pass over every
 * row, which a trace of many failed loads made quadratic. */
static int dlt_load_failed_str_cmp(const void *a, const void *b)
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

static void dlt_rule_lib_load_failed(struct dlt_rule_ctx *c)
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
	qsort(names, nnames, sizeof(*names), dlt_load_failed_str_cmp);
	qsort(errs, nerrs, sizeof(*errs), dlt_err_row_cmp);
	const struct dlt_rows *rows = dlt_ctx_rows(c);
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
			if (culprit[0] &&
			    bsearch(&base, names, nnames, sizeof(*names),
				    dlt_load_failed_str_cmp))
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
		dlt_load_failed_one(c, rows, lib);
	}
	free(names);
	free(errs);
	free(matters);
}

DLT_RULE(lib_load_failed, 20, "LIB_LOAD_FAILED", DLT_SEV_ERROR,
	 dlt_rule_lib_load_failed, NULL,
	 "a library file was found but would not load");
