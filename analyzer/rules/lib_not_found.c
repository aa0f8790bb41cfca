/* LIB_NOT_FOUND: a load failed because no file of that name was found
 * (faster-whisper#297, pytorch#97041).  Probes of a library that loaded in
 * the end are not failures; NCCL's optional plugins are only worth an info;
 * the driver's own libraries belong to CUDA_DRIVER_INSUFFICIENT. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define DLT_MAX_FOUND 8

/* Libraries that programs look for and carry on without: a failed dlopen
 * of one of these is how their absence is detected, not a fault. */
static const struct {
	const char *prefix;
	const char *who; /* "optional <who> ... was not found" */
} dlt_optional[] = {
	{"libnccl-net", "NCCL network plugin"},
	{"libnccl-env", "NCCL environment plugin"},
	{"libnccl-tuner", "NCCL tuner plugin"},
	{"libnccl-profiler", "NCCL profiler plugin"},
	/* oneDNN (PyTorch's CPU convolutions) and TBB look for Intel VTune's
	 * JIT profiling and ITT collectors. */
	{"libJitPI", "Intel VTune JIT profiling library"},
	{"libittnotify", "Intel ITT collector"},
};

static const char *dlt_optional_lib(const char *name)
{
	const char *b = dlt_basename(name);
	for (size_t i = 0;
	     b && i < sizeof(dlt_optional) / sizeof(dlt_optional[0]); i++)
		if (strncmp(b, dlt_optional[i].prefix,
			    strlen(dlt_optional[i].prefix)) == 0)
			return dlt_optional[i].who;
	return NULL;
}

/* "LD_LIBRARY_PATH /opt/x" per directory the loader looked in; the
 * glibc-hwcaps subdirectories of one directory count as that directory. */
static void dlt_ev_searched(struct dlt_val *arr, const struct dlt_lib *lib)
{
	char last[PATH_MAX + 32] = "";
	for (uint32_t i = 0; i < lib->n_tried; i++) {
		char dir[PATH_MAX], entry[PATH_MAX + 32];
		dlt_dirname(lib->tried[i].path, dir, sizeof(dir));
		char *hw = strstr(dir, "/glibc-hwcaps/");
		if (hw)
			*hw = '\0';
		/* The legacy hardware-capability subdirectories glibc still
		 * tries (tls/x86_64/x86_64 ..., aarch64/atomics on arm64)
		 * belong to their directory. */
		for (;;) {
			char *slash = strrchr(dir, '/');
			static const char *const caps[] = {
				"/tls",	 "/x86_64", "/haswell", "/avx512_1",
				"/i686", "/sse2",   "/aarch64", "/atomics"};
			bool cap = false;
			for (size_t k = 0; slash && slash != dir &&
					   k < sizeof(caps) / sizeof(caps[0]);
			     k++)
				cap |= strcmp(slash, caps[k]) == 0;
			if (!cap)
				break;
			*slash = '\0';
		}
		snprintf(entry, sizeof(entry), "%s %s",
			 dlt_found_via_name(lib->tried[i].via), dir);
		if (strcmp(entry, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", entry);
		/* Same entry earlier (a rule revisited): once is enough. */
		bool dup = false;
		for (const struct dlt_val *e = arr->first; e && !dup;
		     e = e->next)
			dup = strcmp(e->as.s, entry) == 0;
		if (!dup)
			dlt_arr_str(arr, entry);
	}
}

static void dlt_ev_mode(struct dlt_val *ev, const struct dlt_lib *lib)
{
	if (lib->dlopen_mode < 0) {
		dlt_obj_null(ev, "dlopen_mode");
		return;
	}
	char names[16][DLT_NAME_LEN];
	size_t n = dlt_rtld_mode_names(lib->dlopen_mode, names, 16);
	struct dlt_val *a = dlt_obj_array(ev, "dlopen_mode");
	for (size_t i = 0; i < n; i++)
		dlt_arr_str(a, names[i]);
}

static void dlt_not_found_one(struct dlt_rule_ctx *c, const struct dlt_lib *lib)
{
	const char *name = lib->requested ? lib->requested : lib->dlopen_name;
	const char *who = lib->requester ? dlt_basename(lib->requester) : NULL;
	/* Only a dlopen can be optional: a missing DT_NEEDED entry stops the
	 * load of whatever needed it. */
	const char *optional_who =
		lib->dlopen_mode >= 0 ? dlt_optional_lib(name) : NULL;
	bool optional = optional_who != NULL;
	char *found[DLT_MAX_FOUND];
	size_t nfound = optional ? 0
				 : dlt_find_unsearched(c, lib, name, found,
						       DLT_MAX_FOUND);
	char where[PATH_MAX] = "";
	if (nfound)
		dlt_dirname(found[0], where, sizeof(where));

	/* An absolute path is opened as it is: no search, and no search
	 * path can help. */
	bool absolute = strchr(name, '/') != NULL;
	const char *rel = dlt_load_relation(lib);
	enum dlt_severity sev = dlt_failed_load_severity(c, lib);
	char by[PATH_MAX] = "";
	if (who)
		snprintf(by, sizeof(by), " (%s %s)", rel, who);
	const char *carried = sev == DLT_SEV_INFO
				      ? "; the process carried on without it"
				      : "";
	struct dlt_finding *f;
	if (optional)
		f = dlt_rule_finding(c, DLT_SEV_INFO,
				     "optional %s %s was not found (%s works "
				     "without it)",
				     optional_who, name,
				     who ? who : "the program");
	else if (absolute)
		f = dlt_rule_finding(c, sev, "%s%s does not exist%s", name, by,
				     carried);
	else if (nfound)
		f = dlt_rule_finding(c, sev,
				     "%s%s was not found: a copy exists in %s, "
				     "where the loader did not look",
				     name, by, where);
	else
		f = dlt_rule_finding(c, sev,
				     "%s%s was not found in any of the %" PRIu32
				     " places the loader searched%s",
				     name, by, lib->n_tried, carried);
	f->ts = lib->ts;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "requested", name);
	dlt_obj_str(ev, "requester", lib->requester);
	dlt_obj_str(ev, "loaded_with",
		    dlt_lib_by_dlopen(lib) ? "dlopen" : "DT_NEEDED");
	dlt_ev_mode(ev, lib);
	dlt_obj_str(ev, "loader_message", lib->error);
	dlt_ev_searched(dlt_obj_array(ev, "searched"), lib);
	struct dlt_val *tried = dlt_obj_array(ev, "tried");
	for (uint32_t i = 0; i < lib->n_tried; i++) {
		struct dlt_val *t = dlt_arr_object(tried);
		dlt_obj_str(t, "path", lib->tried[i].path);
		dlt_obj_str(t, "via", dlt_found_via_name(lib->tried[i].via));
	}
	dlt_obj_bool(ev, "tried_list_cut",
		     (lib->flags & DLT_LIB_TRIED_CUT) != 0);
	struct dlt_val *fe = dlt_obj_array(ev, "found_elsewhere");
	for (size_t i = 0; i < nfound; i++)
		dlt_arr_str(fe, found[i]);
	dlt_obj_bool(ev, "optional", optional);
	/* What was unloaded because this dependency was missing. */
	struct dlt_val *dropped = NULL;
	const struct dlt_rows *rows = dlt_ctx_rows(c);
	size_t end, lo = dlt_rows_group(rows->objs, rows->nobjs,
					lib->requester_obj, &end);
	for (size_t i = lo; i < end; i++) {
		const struct dlt_lib *o = &c->p->libs[rows->objs[i].row];
		if (o->failed) {
			if (dropped == NULL)
				dropped = dlt_obj_array(ev,
							"load_failed_with_it");
			dlt_arr_str(dropped,
				    o->realpath ? o->realpath : o->path);
		}
	}

	if (sev == DLT_SEV_INFO && !optional) {
		dlt_finding_fix(c, f,
				"nothing to fix: %s looked for it and carried "
				"on without it (the process ended well)",
				who ? who : "the program");
	} else if (absolute) {
		dlt_finding_fix(c, f,
				"%s asks for this exact path, which the "
				"loader opens without searching (so "
				"LD_LIBRARY_PATH cannot help): install the "
				"file there, or make %s ask for the right "
				"path",
				who ? who : "the program",
				who ? who : "the program");
	} else if (optional) {
		dlt_finding_fix(c, f,
				"nothing to do: the library looks for it and "
				"carries on without it (for NCCL plugins, "
				"NCCL_NET_PLUGIN / NCCL_TUNER_PLUGIN name the "
				"ones to use)");
	} else if (nfound) {
		dlt_finding_fix(c, f,
				"let the loader find it: export "
				"LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_"
				"LIBRARY_PATH} (or install the package that "
				"puts it where %s looks)",
				where, who ? who : "the program");
	} else {
		char fam[128], pkg[128];
		dlt_lib_family(name, fam, sizeof(fam), NULL);
		const char *pip = dlt_pip_package(fam, dlt_ctx_cuda_major(c),
						  pkg, sizeof(pkg));
		if (pip)
			dlt_finding_fix(
				c, f,
				"install it, e.g. pip install %s (the "
				"wheel puts it in site-packages/nvidia/"
				"*/lib), or add the directory that holds "
				"it to LD_LIBRARY_PATH",
				pip);
		else
			dlt_finding_fix(c, f,
					"install the package that provides %s "
					"(apt-file search %s), or add the "
					"directory that holds it to "
					"LD_LIBRARY_PATH",
					name, name);
	}
	for (size_t i = 0; i < nfound; i++)
		free(found[i]);
}

static void dlt_rule_lib_not_found(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	bool *matters = dlt_lib_failures_matter(p);
	for (size_t k = 0; k < p->nlibs; k++) {
		const struct dlt_lib *lib = &p->libs[k];
		if (!dlt_lib_not_found(lib))
			continue;
		const char *name =
			lib->requested ? lib->requested : lib->dlopen_name;
		if (name == NULL || dlt_is_driver_lib(name) || !matters[k])
			continue;
		dlt_not_found_one(c, lib);
	}
	free(matters);
}

DLT_RULE(lib_not_found, 10, "LIB_NOT_FOUND", DLT_SEV_ERROR,
	 dlt_rule_lib_not_found, NULL,
	 "a library load failed because no file of that name was found");
