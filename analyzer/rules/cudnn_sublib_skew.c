/* CUDNN_SUBLIB_SKEW: cuDNN's libraries came from different directories or
 * carry different versions in their file names (pytorch#104808, #119989:
 * an 8.8 wheel and an 8.9 system copy; pytorch#188892: one
 * libcudnn_engines_* from /lib/x86_64-linux-gnu, the rest from the wheel),
 * or one of cuDNN's own cudnn*VersionCheck functions did not succeed.
 * Calls that failed with SUBLIBRARY_VERSION_MISMATCH or
 * SUBLIBRARY_LOADING_FAILED are explained by it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define DLT_MAX_CUDNN 32

struct dlt_cudnn_file {
	const struct dlt_lib *row;
	const char *path;
	char dir[PATH_MAX];
	char version[64]; /* from the file name, "" unknown */
};

/* "9.19" of "9.19.0": sub-libraries of one release share major.minor. */
static void dlt_major_minor(const char *v, char *buf, size_t cap)
{
	size_t n = strcspn(v, ".");
	if (v[n] == '.')
		n += 1 + strcspn(v + n + 1, ".");
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, v, n);
	buf[n] = '\0';
}

static void dlt_rule_cudnn_sublib_skew(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	struct dlt_cudnn_file files[DLT_MAX_CUDNN];
	size_t n = 0;
	for (size_t i = 0; i < p->nlibs && n < DLT_MAX_CUDNN; i++) {
		const struct dlt_lib *l = &p->libs[i];
		const char *path = l->realpath ? l->realpath : l->path;
		const char *b = dlt_basename(path);
		if (l->failed || b == NULL || strncmp(b, "libcudnn", 8) != 0 ||
		    strstr(b, ".so") == NULL)
			continue;
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(files[k].path, path) == 0;
		if (dup)
			continue;
		files[n].row = l;
		files[n].path = path;
		dlt_dirname(path, files[n].dir, sizeof(files[n].dir));
		dlt_lib_file_version(path, files[n].version,
				     sizeof(files[n].version));
		n++;
	}
	/* Directories and release versions (major.minor) in use. */
	const char *dirs[DLT_MAX_CUDNN];
	size_t ndirs = 0;
	char vers[DLT_MAX_CUDNN][64];
	size_t nvers = 0;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t k = 0; k < ndirs && !seen; k++)
			seen = strcmp(dirs[k], files[i].dir) == 0;
		if (!seen)
			dirs[ndirs++] = files[i].dir;
		char mm[64];
		dlt_major_minor(files[i].version, mm, sizeof(mm));
		if (strchr(mm, '.') == NULL)
			continue; /* "9": no release in the name */
		seen = false;
		for (size_t k = 0; k < nvers && !seen; k++)
			seen = strcmp(vers[k], mm) == 0;
		if (!seen)
			snprintf(vers[nvers++], sizeof(vers[0]), "%s", mm);
	}

	/* cuDNN's own verdict on its sub-libraries. */
	static const char *const checks9[] = {
		"cudnnGraphVersionCheck", "cudnnOpsVersionCheck",
		"cudnnCnnVersionCheck", "cudnnAdvVersionCheck"};
	static const char *const checks8[] = {
		"cudnnOpsInferVersionCheck", "cudnnOpsTrainVersionCheck",
		"cudnnCnnInferVersionCheck", "cudnnCnnTrainVersionCheck",
		"cudnnAdvInferVersionCheck", "cudnnAdvTrainVersionCheck"};
	size_t nbad = 0;
	const struct dlt_gpu_family *fam = NULL;
	for (size_t i = 0; i < c->g->nfams; i++) {
		const struct dlt_gpu_family *f = &c->g->fams[i];
		if (f->family != DLT_FAM_CUDNN)
			continue;
		for (int k = 0; k < 6; k++) {
			int64_t st = f->v[DLT_FV_CUDNN_sublib1_check + k];
			if (st != 0 && st != DLT_VERSION_ABSENT)
				nbad++;
		}
		if (fam == NULL)
			fam = f;
	}
	int64_t cver = dlt_gpu_cudnn_version(c->g);
	int major = dlt_cudnn_major(cver);
	size_t nfailed = 0;
	for (size_t i = 0; i < c->g->nerrs; i++) {
		const struct dlt_api_desc *a = dlt_api_by_id(c->g->errs[i].api);
		if (a && a->family == DLT_FAM_CUDNN &&
		    dlt_cudnn_sublib_status(
			    dlt_cudnn_status_major(cver, c->g->errs[i].status),
			    c->g->errs[i].status))
			nfailed++;
	}
	if (ndirs < 2 && nvers < 2 && nbad == 0 && nfailed == 0)
		return;

	char msg[1024];
	if (ndirs >= 2)
		snprintf(msg, sizeof(msg),
			 "cuDNN's libraries were loaded from %zu directories "
			 "(%s and %s)",
			 ndirs, dirs[0], dirs[1]);
	else if (nvers >= 2)
		snprintf(msg, sizeof(msg),
			 "cuDNN's libraries are of different versions (%s and "
			 "%s)",
			 vers[0], vers[1]);
	else if (nbad)
		snprintf(msg, sizeof(msg),
			 "cuDNN's own version check of its sub-libraries "
			 "failed");
	else
		snprintf(msg, sizeof(msg),
			 "cuDNN calls failed because its sub-libraries do not "
			 "match");
	struct dlt_finding *f = dlt_rule_finding(c, DLT_SEV_ERROR, "%s", msg);
	struct dlt_val *ev = f->evidence;
	struct dlt_val *libs = dlt_obj_array(ev, "libraries");
	for (size_t i = 0; i < n; i++) {
		struct dlt_val *o = dlt_arr_object(libs);
		dlt_obj_str(o, "name", dlt_basename(files[i].path));
		dlt_obj_str(o, "path", files[i].path);
		dlt_obj_str(o, "version",
			    files[i].version[0] ? files[i].version : NULL);
		dlt_obj_str(o, "found_via",
			    dlt_found_via_name(files[i].row->found_via));
		dlt_obj_str(o, "requester", files[i].row->requester);
	}
	struct dlt_val *da = dlt_obj_array(ev, "directories");
	for (size_t i = 0; i < ndirs; i++)
		dlt_arr_str(da, dirs[i]);
	if (fam) {
		char buf[96];
		int64_t ver = fam->v[DLT_FV_CUDNN_version];
		dlt_obj_str(
			ev, "cudnn_version",
			ver > 0 ? dlt_cudnn_version_str(ver, buf, sizeof(buf))
				: NULL);
		dlt_obj_str(ev, "cudnn_path", fam->path);
		struct dlt_val *vc = dlt_obj_array(ev, "version_checks");
		bool nine = major >= 9;
		/* The checks of the major's sub-libraries, in order. */
		for (int k = 0; k < (nine ? 4 : 6); k++) {
			int64_t st = fam->v[DLT_FV_CUDNN_sublib1_check + k];
			if (st == DLT_VERSION_ABSENT)
				continue;
			struct dlt_val *o = dlt_arr_object(vc);
			dlt_obj_str(o, "check", nine ? checks9[k] : checks8[k]);
			dlt_obj_int(o, "status", st);
			dlt_obj_str(o, "status_name",
				    dlt_status_name(DLT_FAM_CUDNN, ver,
						    (int32_t)st));
		}
	}
	struct dlt_val *fc = NULL;
	for (size_t i = 0; i < c->g->nerrs; i++) {
		const struct dlt_gpu_err *e = &c->g->errs[i];
		const struct dlt_api_desc *a = dlt_api_by_id(e->api);
		if (!a || a->family != DLT_FAM_CUDNN ||
		    !dlt_cudnn_sublib_status(
			    dlt_cudnn_status_major(cver, e->status), e->status))
			continue;
		if (fc == NULL)
			fc = dlt_obj_array(ev, "failed_calls");
		char buf[256];
		struct dlt_val *o = dlt_arr_object(fc);
		dlt_obj_str(o, "call",
			    dlt_gpu_err_str(c->g, e, buf, sizeof(buf)));
		dlt_obj_uint(o, "count", e->count);
		dlt_rule_explain(c, i);
		if (f->ts == 0)
			f->ts = e->first_ts;
	}

	/* The directory most libraries came from is the intended one. */
	size_t best = 0, bestn = 0;
	for (size_t d = 0; d < ndirs; d++) {
		size_t cnt = 0;
		for (size_t i = 0; i < n; i++)
			cnt += strcmp(files[i].dir, dirs[d]) == 0;
		if (cnt > bestn) {
			bestn = cnt;
			best = d;
		}
	}
	char pkg[128];
	const char *pip = dlt_pip_package("libcudnn", dlt_ctx_cuda_major(c),
					  pkg, sizeof(pkg));
	if (ndirs >= 2) {
		const char *stray = NULL;
		for (size_t i = 0; i < n && !stray; i++)
			if (strcmp(files[i].dir, dirs[best]) != 0)
				stray = files[i].path;
		dlt_finding_fix(c, f,
				"load every cuDNN library from %s: remove %s "
				"from the loader's path (unset "
				"LD_LIBRARY_PATH, or uninstall that copy, "
				"e.g. apt remove the libcudnn package), or "
				"reinstall one complete cuDNN (pip install "
				"--force-reinstall %s)",
				dirs[best], stray ? stray : "the other copy",
				pip);
	} else {
		dlt_finding_fix(c, f,
				"reinstall one complete cuDNN so that all its "
				"libraries are of one release (pip install "
				"--force-reinstall %s, or the distribution's "
				"libcudnn package)",
				pip);
	}
}

DLT_RULE(cudnn_sublib_skew, 50, "CUDNN_SUBLIB_SKEW", DLT_SEV_ERROR,
	 dlt_rule_cudnn_sublib_skew, NULL,
	 "cuDNN's libraries come from different directories or versions");
