/* DUPLICATE_LIBRARY: two different files of one library mapped in one
 * process.  Each copy has its own globals (the CUDA runtime's contexts,
 * cuDNN's handles, NCCL's communicators, OpenMP's thread pool), so objects
 * made by one are garbage to the other.  CUDA libraries match renamed
 * copies (old wheels shipped libcudart-80664282.so.10.2); OpenMP and C++
 * runtimes only match under the same name, since wheels rename their
 * vendored copies on purpose to live next to the system one. */
#include <string.h>

#include "rules.h"

static const char *const dlt_runtime_families[] = {"libgomp", "libiomp5",
						   "libomp", "libstdc++"};

/* Whether rows of this family are compared, and if renamed copies count. */
static bool dlt_watched(const char *fam, bool renamed)
{
	if (dlt_is_gpu_family(fam))
		return true;
	for (size_t i = 0;
	     i < sizeof(dlt_runtime_families) / sizeof(dlt_runtime_families[0]);
	     i++)
		if (strcmp(fam, dlt_runtime_families[i]) == 0)
			return !renamed;
	return false;
}

/* One library in several places: identical builds share no state either
 * (each copy has its own globals), but nothing in them differs, so it is
 * a warning; different builds, or copies no build-id tells apart, are the
 * error the rule is about. */
static void dlt_report_copies(struct dlt_rule_ctx *c, const char *fam,
			      const struct dlt_lib *const *copies, size_t n)
{
	bool identical = true;
	for (size_t m = 1; m < n; m++)
		identical &=
			dlt_lib_cmp(copies[0], copies[m]) == DLT_SAME_BUILD;
	const char *p0 =
		copies[0]->realpath ? copies[0]->realpath : copies[0]->path;
	const char *p1 =
		copies[1]->realpath ? copies[1]->realpath : copies[1]->path;
	struct dlt_finding *f;
	if (identical)
		f = dlt_rule_finding(c, DLT_SEV_WARNING,
				     "one build of %s is loaded from %zu "
				     "places: %s and %s%s (identical files, "
				     "each with its own state)",
				     fam, n, p0, p1, n > 2 ? " and more" : "");
	else
		f = dlt_rule_finding(c, DLT_SEV_ERROR,
				     "%zu different builds of %s are loaded: "
				     "%s and %s%s",
				     n, fam, p0, p1, n > 2 ? " and more" : "");
	f->ts = copies[1]->ts;
	dlt_obj_str(f->evidence, "family", fam);
	dlt_obj_bool(f->evidence, "identical", identical);
	struct dlt_val *arr = dlt_obj_array(f->evidence, "copies");
	struct dlt_install inst[16];
	for (size_t m = 0; m < n; m++) {
		struct dlt_val *o = dlt_arr_object(arr);
		dlt_ev_lib(o, copies[m]);
		dlt_obj_int(o, "namespace", copies[m]->lmid);
		struct dlt_identity id;
		dlt_lib_identity(copies[m], &id);
		dlt_ev_identity(o, &id);
		dlt_ctx_install(c,
				copies[m]->realpath ? copies[m]->realpath
						    : copies[m]->path,
				&inst[m]);
		dlt_ev_install(o, &inst[m]);
	}
	const struct dlt_lib *late = copies[1];
	char dir[4096], cmd[256];
	dlt_dirname(p1, dir, sizeof(dir));
	if (late->found_via == DLT_VIA_LD_LIBRARY_PATH)
		dlt_finding_fix(c, f,
				"the second copy came through "
				"LD_LIBRARY_PATH: take %s out of it "
				"(or unset LD_LIBRARY_PATH)",
				dir);
	else
		dlt_finding_fix(
			c, f,
			"make every package use one copy of %s (%s): "
			"remove %s from the loader's path (%s)",
			fam, p0, p1,
			dlt_install_remove_cmd(&inst[1], cmd, sizeof(cmd)));
}

static void dlt_rule_duplicate_library(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	bool *done = dlt_xcalloc(p->nlibs ? p->nlibs : 1, sizeof(*done));
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *a = &p->libs[i];
		char fam[128];
		bool renamed;
		if (done[i] || a->failed || (a->flags & DLT_LIB_VDSO))
			continue;
		dlt_lib_family(a->realpath ? a->realpath : a->path, fam,
			       sizeof(fam), &renamed);
		if (!dlt_watched(fam, renamed))
			continue;
		/* The distinct files of this family, first one first. */
		const struct dlt_lib *copies[16];
		size_t n = 0;
		copies[n++] = a;
		for (size_t k = i + 1; k < p->nlibs; k++) {
			const struct dlt_lib *b = &p->libs[k];
			char fb[128];
			bool rb;
			if (b->failed || done[k])
				continue;
			dlt_lib_family(b->realpath ? b->realpath : b->path, fb,
				       sizeof(fb), &rb);
			if (strcmp(fb, fam) != 0 || !dlt_watched(fb, rb))
				continue;
			done[k] = true;
			bool dup = false;
			for (size_t m = 0; m < n && !dup; m++)
				dup = dlt_lib_cmp(copies[m], b) ==
				      DLT_SAME_FILE;
			if (!dup && n < 16)
				copies[n++] = b;
		}
		if (n < 2)
			continue;
		dlt_report_copies(c, fam, copies, n);
	}
	free(done);
}

DLT_RULE(duplicate_library, 40, "DUPLICATE_LIBRARY", DLT_SEV_ERROR,
	 dlt_rule_duplicate_library, NULL,
	 "two different files of one library are mapped in one process");
