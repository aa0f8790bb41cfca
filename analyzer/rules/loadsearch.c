/* Where the loader would find a library for an object, on the analysing
 * machine: the search order glibc uses for a DT_NEEDED name, so that a
 * finding can name the copy an object would have got without the entry
 * that came first. */
#define _GNU_SOURCE
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

struct dlt_search {
	struct dlt_copy *out;
	size_t n, max;
	const char *name;
};

static void dlt_search_dir(struct dlt_search *s, const char *dir,
			   const char *via)
{
	char path[PATH_MAX], real[PATH_MAX];
	if (s->n >= s->max || dir == NULL || dir[0] != '/' ||
	    snprintf(path, sizeof(path), "%s/%s", dir, s->name) >=
		    (int)sizeof(path) ||
	    !dlt_file_exists(path, NULL) || realpath(path, real) == NULL)
		return;
	/* One entry per file, however many directories lead to it. */
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->out[i].real, real) == 0)
			return;
	s->out[s->n++] =
		(struct dlt_copy){dlt_xstrdup(path), dlt_xstrdup(real), via};
}

/* A colon-separated list of directories, $ORIGIN expanded. */
static void dlt_search_list(struct dlt_search *s, const char *list,
			    const char *origin, const char *via)
{
	while (list && *list) {
		size_t len = strcspn(list, ":");
		char dir[PATH_MAX];
		if (len > 0) {
			dlt_expand_origin(list, len, origin, dir, sizeof(dir));
			dlt_search_dir(s, dir, via);
		}
		list += len;
		if (*list == ':')
			list++;
	}
}

/* The directories ld.so.cache indexes: /etc/ld.so.conf and what it
 * includes. */
static void dlt_search_conf(struct dlt_search *s, const char *file, int depth)
{
	FILE *f = depth < 4 ? fopen(file, "re") : NULL;
	if (f == NULL)
		return;
	char line[PATH_MAX + 16];
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		p[strcspn(p, "#\r\n")] = '\0';
		size_t l = strlen(p);
		while (l && (p[l - 1] == ' ' || p[l - 1] == '\t'))
			p[--l] = '\0';
		if (strncmp(p, "include", 7) == 0 &&
		    (p[7] == ' ' || p[7] == '\t')) {
			glob_t g;
			if (glob(p + 8 + strspn(p + 8, " \t"), 0, NULL, &g) ==
			    0) {
				for (size_t i = 0; i < g.gl_pathc; i++)
					dlt_search_conf(s, g.gl_pathv[i],
							depth + 1);
				globfree(&g);
			}
		} else if (p[0] == '/') {
			dlt_search_dir(s, p, "LD_SO_CACHE");
		}
	}
	fclose(f);
}

size_t dlt_loader_copies(const struct dlt_process *p, const struct dlt_lib *req,
			 const char *name, struct dlt_copy *out, size_t max)
{
	struct dlt_search s = {out, 0, max, name};
	if (name == NULL || strchr(name, '/'))
		return 0;
	char origin[PATH_MAX] = "";
	if (req)
		dlt_dirname(req->path && req->path[0] ? req->path
						      : req->realpath,
			    origin, sizeof(origin));
	/* glibc: DT_RPATH only when there is no DT_RUNPATH, then
	 * LD_LIBRARY_PATH, DT_RUNPATH, the cache, the default directories. */
	if (req && req->rpath && !req->runpath)
		dlt_search_list(&s, req->rpath, origin, "RPATH");
	dlt_search_list(&s, dlt_proc_env(p, "LD_LIBRARY_PATH"), origin,
			"LD_LIBRARY_PATH");
	if (req && req->runpath)
		dlt_search_list(&s, req->runpath, origin, "RUNPATH");
	dlt_search_conf(&s, "/etc/ld.so.conf", 0);
	/* The analysing machine's, with Debian's multiarch directories. */
#if defined(__aarch64__)
#define DLT_MULTIARCH "aarch64-linux-gnu"
#else
#define DLT_MULTIARCH "x86_64-linux-gnu"
#endif
	static const char *const defaults[] = {"/lib/" DLT_MULTIARCH,
					       "/usr/lib/" DLT_MULTIARCH,
					       "/lib64",
					       "/usr/lib64",
					       "/lib",
					       "/usr/lib"};
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		dlt_search_dir(&s, defaults[i], "DEFAULT");
	return s.n;
}

void dlt_copies_free(struct dlt_copy *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].path);
		free(c[i].real);
	}
}
