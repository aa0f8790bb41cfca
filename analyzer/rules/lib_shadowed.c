/* LIB_SHADOWED: a library came from LD_LIBRARY_PATH, the cache, or an
 * earlier copy already loaded under that name, while the object that needed
 * it carries an RPATH/RUNPATH whose directory holds a different file of
 * that name (pytorch#80637: libcudnn.so.8 from LD_LIBRARY_PATH instead of
 * the wheel's own; cugraph#4465: an older libnccl.so.2 loaded first by
 * another package).  The RPATH/RUNPATH directories are looked at on the
 * analyzing machine, which is the traced one in the usual case. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define DLT_MAX_DIRS 64

/* (name, loaded file) pairs already reported; names are copied, as the
 * DT_NEEDED lists they come from do not live long. */
struct dlt_seen {
	char name[64][128];
	const char *path[64];
	size_t n;
};

static bool dlt_shadowed_seen_add(struct dlt_seen *s, const char *name,
				  const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->name[i], name) == 0 &&
		    strcmp(s->path[i], path) == 0)
			return false;
	if (s->n < 64) {
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
		s->path[s->n] = path;
		s->n++;
	}
	return true;
}

static bool dlt_same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	if (strcmp(a, b) == 0)
		return true;
	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

static void dlt_check_one(struct dlt_rule_ctx *c, struct dlt_seen *seen,
			  const struct dlt_lib *loaded,
			  const struct dlt_lib *req, const char *name,
			  bool already)
{
	char *dirs[DLT_MAX_DIRS];
	size_t nd = dlt_search_dirs(req, dirs, DLT_MAX_DIRS);
	char ldir[PATH_MAX], rdir[PATH_MAX];
	dlt_dirname(loaded->path, ldir, sizeof(ldir));
	dlt_dirname(loaded->realpath, rdir, sizeof(rdir));
	const char *expected = NULL;
	char cand[PATH_MAX];
	struct stat st;
	bool own = false;
	for (size_t i = 0; i < nd && !own; i++)
		own = dlt_same_dir(dirs[i], ldir) ||
		      dlt_same_dir(dirs[i], rdir);
	for (size_t i = 0; i < nd && !own && !expected; i++) {
		snprintf(cand, sizeof(cand), "%s/%s", dirs[i], name);
		if (dlt_file_exists(cand, &st) &&
		    dlt_differs_from_row(loaded, cand, &st))
			expected = cand;
	}
	const char *lpath = loaded->realpath ? loaded->realpath : loaded->path;
	if (expected && lpath && dlt_shadowed_seen_add(seen, name, lpath)) {
		const char *rname = dlt_basename(
			req->path && req->path[0] ? req->path : req->realpath);
		const char *kind = req->runpath ? "RUNPATH" : "RPATH";
		char how[128];
		if (already)
			snprintf(how, sizeof(how),
				 "an earlier copy already loaded");
		else
			snprintf(how, sizeof(how), "%s",
				 dlt_found_via_name(loaded->found_via));
		char edir[PATH_MAX];
		dlt_dirname(expected, edir, sizeof(edir));
		struct dlt_finding *f = dlt_rule_finding(
			c, DLT_SEV_WARNING,
			"%s for %s came from %s (%s), not from %s's own %s "
			"copy in %s",
			name, rname ? rname : "?", lpath, how,
			rname ? rname : "?", kind, edir);
		f->ts = loaded->ts;
		struct dlt_val *ev = f->evidence;
		dlt_obj_str(ev, "library", name);
		dlt_ev_lib(dlt_obj_object(ev, "loaded"), loaded);
		dlt_obj_str(ev, "loaded_by", already ? "already loaded" : how);
		dlt_obj_str(ev, "requester",
			    req->realpath ? req->realpath : req->path);
		dlt_obj_str(ev, "requester_runpath", req->runpath);
		dlt_obj_str(ev, "requester_rpath", req->rpath);
		struct dlt_val *exp = dlt_obj_object(ev, "expected");
		dlt_obj_str(exp, "path", expected);
		dlt_obj_uint(exp, "size", (uint64_t)st.st_size);
		dlt_obj_uint(exp, "inode", (uint64_t)st.st_ino);
		dlt_obj_str(ev, "checked_on",
			    "the machine running the analyzer");
		dlt_obj_bool(ev, "load_failed", loaded->failed);
		if (loaded->found_via == DLT_VIA_LD_LIBRARY_PATH)
			dlt_finding_fix(
				c, f,
				"take %s out of LD_LIBRARY_PATH (or unset "
				"LD_LIBRARY_PATH) so that %s uses its own copy",
				ldir, rname ? rname : "the requester");
		else if (already)
			dlt_finding_fix(
				c, f,
				"the first copy loaded wins: load %s (import "
				"the package that brings it) before whatever "
				"loaded %s, or make both packages use one "
				"version",
				rname ? rname : "the requester", lpath);
		else
			dlt_finding_fix(c, f,
					"remove the other copy from the "
					"loader's path (ldconfig cache, "
					"/etc/ld.so.conf.d) or make %s use "
					"DT_RPATH",
					rname ? rname : "the requester");
	}
	for (size_t i = 0; i < nd; i++)
		free(dirs[i]);
}

static bool dlt_searchable(const struct dlt_lib *l)
{
	return !l->failed && !l->from_fail_record &&
	       (l->flags & (DLT_LIB_MAIN | DLT_LIB_PRELOAD | DLT_LIB_VDSO)) ==
		       0;
}

/* The loaded object a DT_NEEDED name of req was satisfied with. */
static const struct dlt_lib *dlt_satisfied_by(const struct dlt_process *p,
					      const struct dlt_lib *req,
					      const char *name)
{
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *l = &p->libs[i];
		if (l->failed || l->lmid != req->lmid)
			continue;
		if ((l->soname && strcmp(l->soname, name) == 0) ||
		    (l->path && strcmp(dlt_basename(l->path), name) == 0))
			return l;
	}
	return NULL;
}

static void dlt_rule_lib_shadowed(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	struct dlt_seen seen;
	seen.n = 0;
	/* Found by a search although the requester has its own copy; also
	 * when the load then failed (the wrong copy is often why). */
	for (size_t k = 0; k < p->nlibs; k++) {
		const struct dlt_lib *l = &p->libs[k];
		if (l->from_fail_record ||
		    (l->flags &
		     (DLT_LIB_MAIN | DLT_LIB_PRELOAD | DLT_LIB_VDSO)) ||
		    l->requested == NULL || strchr(l->requested, '/'))
			continue;
		const struct dlt_lib *req = dlt_requester_row(c, l);
		if (req && (req->runpath || req->rpath))
			dlt_check_one(c, &seen, l, req, l->requested, false);
	}
	/* Not searched at all: a copy of that name was already loaded. */
	for (size_t k = 0; k < p->nlibs; k++) {
		const struct dlt_lib *req = &p->libs[k];
		if (req->failed || (!req->runpath && !req->rpath) ||
		    (req->flags & DLT_LIB_VDSO))
			continue;
		const char *file = req->realpath ? req->realpath : req->path;
		char **needed = file ? dlt_elf_needed(file) : NULL;
		for (char **n = needed; n && *n; n++) {
			bool searched = false;
			for (size_t i = 0; i < p->nlibs && !searched; i++)
				searched =
					p->libs[i].requester_obj == req->obj &&
					req->obj != 0 && p->libs[i].requested &&
					strcmp(p->libs[i].requested, *n) == 0;
			if (searched)
				continue;
			const struct dlt_lib *l = dlt_satisfied_by(p, req, *n);
			if (l && l != req && dlt_searchable(l))
				dlt_check_one(c, &seen, l, req, *n, true);
		}
		dlt_free_strv(needed);
	}
}

DLT_RULE(lib_shadowed, 30, "LIB_SHADOWED", DLT_SEV_WARNING,
	 dlt_rule_lib_shadowed, NULL,
	 "a library came from elsewhere than its requester's RPATH/RUNPATH "
	 "copy");
