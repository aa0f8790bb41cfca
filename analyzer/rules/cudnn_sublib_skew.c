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
	/* Against the file of the same name in the main directory (files
	 * from elsewhere only, dlt_vs_main). */
	const char *vs_main;
	struct dlt_install inst;
};

/* The file of dir, on this machine, that goes by one of the names of a
 * loaded library: the name of its real file (libcudnn_ops.so.9.19.0), the
 * one it was opened as, its SONAME (libcudnn_ops.so.9). */
static bool dlt_same_name_in(const char *dir, const struct dlt_cudnn_file *f,
			     char *path, size_t cap)
{
	const char *names[] = {f->path, f->row->path, f->row->soname};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		if (names[k] == NULL)
			continue;
		snprintf(path, cap, "%s/%s", dir, dlt_basename(names[k]));
		if (dlt_file_exists(path, NULL))
			return true;
	}
	return false;
}

/* Whether dir holds a file of the name of every cuDNN library the process
 * loaded. */
static bool dlt_holds_all(const struct dlt_cudnn_file *files, size_t n,
			  const char *dir)
{
	bool all = true;
	char path[PATH_MAX + 256];
	for (size_t i = 0; i < n && all; i++)
		all = dlt_same_name_in(dir, &files[i], path, sizeof(path));
	return all;
}

/* The intended directory: of those that hold all of cuDNN, the one most
 * of its libraries came from (a lone front library first on
 * LD_LIBRARY_PATH is not where the rest is); else the one most came from.
 * *complete tells whether it holds all. */
static size_t dlt_main_dir(const struct dlt_cudnn_file *files, size_t n,
			   const char *const *dirs, size_t ndirs,
			   bool *complete)
{
	size_t best = 0, bestn = 0;
	*complete = false;
	for (size_t d = 0; d < ndirs; d++) {
		size_t cnt = 0;
		for (size_t i = 0; i < n; i++)
			cnt += strcmp(files[i].dir, dirs[d]) == 0;
		bool all = dlt_holds_all(files, n, dirs[d]);
		if ((all && !*complete) || (all == *complete && cnt > bestn)) {
			bestn = cnt;
			best = d;
			*complete = all;
		}
	}
	return best;
}

/* How a file from another directory compares with the main directory's
 * copy of the same name on this machine: "same build", "other build",
 * "unknown" (no build-id), "absent".  Counts the other builds and the
 * files that cannot be told apart. */
static const char *dlt_vs_main(const struct dlt_cudnn_file *f, const char *main,
			       size_t *ndiffer, size_t *nunknown)
{
	char path[PATH_MAX + 256];
	struct dlt_identity mine, there;
	dlt_lib_identity(f->row, &mine);
	if (!dlt_same_name_in(main, f, path, sizeof(path)) ||
	    !dlt_file_identity(path, &there)) {
		(*nunknown)++;
		return "absent";
	}
	switch (dlt_identity_cmp(&mine, &there)) {
	case DLT_SAME_BUILD:
	case DLT_SAME_FILE:
		return "same build";
	case DLT_OTHER_BUILD:
		(*ndiffer)++;
		return "other build";
	case DLT_SAME_UNKNOWN:
		break;
	}
	(*nunknown)++;
	return "unknown";
}

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

/* Load cuDNN from the directory that holds all of it, taking the strays
 * out the way they came in; else reinstall, with the manager that
 * installed the main copy (and none when that is unknown). */
static void dlt_skew_fix(struct dlt_rule_ctx *c, struct dlt_finding *f,
			 const struct dlt_cudnn_file *files, size_t n,
			 const char *complete, const char *main)
{
	char cmd[256];
	const struct dlt_cudnn_file *stray = NULL;
	for (size_t i = 0; i < n && !stray && complete; i++)
		if (strcmp(files[i].dir, complete) != 0)
			stray = &files[i];
	if (stray && stray->row->found_via == DLT_VIA_LD_LIBRARY_PATH) {
		dlt_finding_fix(c, f,
				"load every cuDNN library from %s, which "
				"holds them all: take %s out of "
				"LD_LIBRARY_PATH (or unset it)",
				complete, stray->dir);
		return;
	}
	if (stray) {
		dlt_finding_fix(
			c, f,
			"load every cuDNN library from %s, which "
			"holds them all: remove %s from the loader's "
			"path (installed by %s%s%s: %s)",
			complete, stray->path,
			dlt_installer_name(stray->inst.by),
			stray->inst.package[0] ? " " : "", stray->inst.package,
			dlt_install_remove_cmd(&stray->inst, cmd, sizeof(cmd)));
		return;
	}
	const struct dlt_install *inst = NULL;
	for (size_t i = 0; i < n && !inst && main; i++)
		if (strcmp(files[i].dir, main) == 0)
			inst = &files[i].inst;
	const char *re =
		inst ? dlt_install_reinstall_cmd(inst, cmd, sizeof(cmd)) : NULL;
	if (re)
		dlt_finding_fix(c, f,
				"reinstall one complete cuDNN so that all its "
				"libraries are of one release (%s)",
				re);
	else
		dlt_finding_fix(c, f,
				"reinstall one complete cuDNN so that all its "
				"libraries are of one release, in one "
				"directory (how %s was installed is unknown)",
				main ? main : "it");
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
	/* Other directories matter only with other builds in them: a
	 * byte-identical copy on LD_LIBRARY_PATH is the same library.  A
	 * copy nothing tells apart counts unless cuDNN checked its
	 * sub-libraries and found them matching. */
	bool complete = false;
	size_t best = dlt_main_dir(files, n, dirs, ndirs, &complete);
	size_t ndiffer = 0, nunknown = 0, nchecked = 0;
	for (size_t i = 0; i < n; i++)
		files[i].vs_main = strcmp(files[i].dir, dirs[best]) == 0
					   ? NULL
					   : dlt_vs_main(&files[i], dirs[best],
							 &ndiffer, &nunknown);
	for (size_t i = 0; fam && i < 6; i++)
		nchecked += fam->v[DLT_FV_CUDNN_sublib1_check + i] == 0;
	bool dir_skew =
		ndirs >= 2 && (ndiffer > 0 || (nunknown > 0 && nchecked == 0));
	if (!dir_skew && nvers < 2 && nbad == 0 && nfailed == 0)
		return;

	char msg[1024];
	if (dir_skew)
		snprintf(msg, sizeof(msg),
			 "cuDNN's libraries were loaded from %zu directories "
			 "(%s and %s), and not all are one build",
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
		dlt_obj_str(o, "found_via",
			    dlt_found_via_name(files[i].row->found_via));
		dlt_obj_str(o, "requester", files[i].row->requester);
		struct dlt_identity id;
		dlt_lib_identity(files[i].row, &id);
		dlt_ev_identity(o, &id);
		dlt_obj_uint(o, "size", id.size);
		dlt_obj_str(o, "vs_main_directory", files[i].vs_main);
		dlt_ctx_install(c, files[i].path, &files[i].inst);
		dlt_ev_install(o, &files[i].inst);
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

	/* No cuDNN file at all when only failed calls tell of the skew. */
	const char *main = ndirs ? dirs[best] : NULL;
	dlt_obj_str(ev, "main_directory", main);
	dlt_obj_str(ev, "complete_directory", complete ? main : NULL);
	dlt_skew_fix(c, f, files, n, complete ? main : NULL, main);
}

DLT_RULE(cudnn_sublib_skew, 50, "CUDNN_SUBLIB_SKEW", DLT_SEV_ERROR,
	 dlt_rule_cudnn_sublib_skew, NULL,
	 "cuDNN's libraries come from different directories or versions");
