/* Which package manager installed a file, from the managers' own lists on
 * this machine.  Each list is read only when the file lies where that
 * manager puts files (under site-packages, under a prefix with conda-meta),
 * except dpkg's, which covers the whole system. */
#define _GNU_SOURCE
#include "install.h"

#include <dirent.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A conda-meta entry lists every file of its package: the largest seen
 * (CUDA toolkits) are a few MB.  Longer files are not read whole. */
#define DLT_INST_MAX_LIST (64u << 20)
/* A directory (PATH_MAX), a directory entry's name (256) and a file name. */
#define DLT_INST_PATH (PATH_MAX + 256 + 64)

const char *dlt_installer_name(enum dlt_installer by)
{
	switch (by) {
	case DLT_INST_DPKG:
		return "dpkg";
	case DLT_INST_PIP:
		return "pip";
	case DLT_INST_CONDA:
		return "conda";
	case DLT_INST_UNKNOWN:
		break;
	}
	return "unknown";
}

static char *dlt_read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return NULL;
	struct stat st;
	char *buf = NULL;
	if (fstat(fileno(f), &st) == 0 && st.st_size >= 0 &&
	    (uint64_t)st.st_size <= DLT_INST_MAX_LIST) {
		buf = malloc((size_t)st.st_size + 1);
		if (buf) {
			*len = fread(buf, 1, (size_t)st.st_size, f);
			buf[*len] = '\0';
		}
	}
	fclose(f);
	return buf;
}

/* Whether file holds want between a byte of before and a byte of after
 * (a '\n' in them also stands for the file's start or end): a line of a
 * list, a RECORD entry before its ',', a JSON string.  The file's text
 * goes to *text (the caller frees it) when text is not NULL. */
static bool dlt_file_holds(const char *file, const char *want,
			   const char *before, const char *after, char **text)
{
	size_t len = 0;
	char *buf = dlt_read_whole(file, &len);
	if (buf == NULL)
		return false;
	size_t wl = strlen(want);
	bool found = false;
	for (char *s = buf; !found && (s = memmem(s, (size_t)(buf + len - s),
						  want, wl)) != NULL;
	     s++)
		found = (s == buf ? strchr(before, '\n') != NULL
				  : memchr(before, s[-1], strlen(before)) !=
					    NULL) &&
			(s + wl == buf + len
				 ? strchr(after, '\n') != NULL
				 : memchr(after, s[wl], strlen(after)) != NULL);
	if (text)
		*text = buf;
	else
		free(buf);
	return found;
}

static bool dlt_list_has_line(const char *file, const char *want, char sep)
{
	char after[] = {sep, '\n', '\r', '\0'};
	return dlt_file_holds(file, want, "\n", after, NULL);
}

/* Whether a conda-meta JSON file lists the string "want", and its
 * package's "name" into name. */
static bool dlt_json_lists(const char *file, const char *want, char *name,
			   size_t cap)
{
	char *buf = NULL;
	bool found = dlt_file_holds(file, want, "\"", "\"", &buf);
	const char *n = found ? strstr(buf, "\"name\": \"") : NULL;
	if (n) {
		n += strlen("\"name\": \"");
		snprintf(name, cap, "%.*s", (int)strcspn(n, "\""), n);
	}
	free(buf);
	return found;
}

static bool dlt_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Calls match with the path and name of each entry of dir whose name ends
 * in suffix, until one matches. */
static bool dlt_find_entry(const char *dir, const char *suffix,
			   bool (*match)(void *ctx, const char *path,
					 const char *name),
			   void *ctx)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return false;
	struct dirent *e;
	bool found = false;
	char path[DLT_INST_PATH + DLT_INST_PATH];
	while (!found && (e = readdir(d)) != NULL) {
		if (!dlt_ends_with(e->d_name, suffix))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		found = match(ctx, path, e->d_name);
	}
	closedir(d);
	return found;
}

struct dlt_find {
	const char *want; /* a list's entry */
	struct dlt_install *out;
};

/* A pip distribution (a .dist-info directory) whose RECORD lists the
 * file.  The package is its METADATA's Name, or the directory's name
 * before the version; a dist-info whose INSTALLER says conda is conda's. */
static bool dlt_match_pip(void *ctx, const char *info, const char *name)
{
	struct dlt_find *f = ctx;
	char path[DLT_INST_PATH + DLT_INST_PATH + 16];
	snprintf(path, sizeof(path), "%s/RECORD", info);
	if (!dlt_list_has_line(path, f->want, ','))
		return false;
	f->out->by = DLT_INST_PIP;
	snprintf(f->out->package, sizeof(f->out->package), "%.*s",
		 (int)strcspn(name, "-"), name);
	snprintf(path, sizeof(path), "%s/METADATA", info);
	size_t len = 0;
	char *meta = dlt_read_whole(path, &len);
	const char *n = meta ? strstr(meta, "\nName: ") : NULL;
	if (meta && strncmp(meta, "Name: ", 6) == 0)
		n = meta - 1;
	if (n) {
		n += strlen("\nName: ");
		snprintf(f->out->package, sizeof(f->out->package), "%.*s",
			 (int)strcspn(n, "\r\n"), n);
	}
	free(meta);
	snprintf(path, sizeof(path), "%s/INSTALLER", info);
	if (dlt_list_has_line(path, "conda", '\n'))
		f->out->by = DLT_INST_CONDA;
	return true;
}

/* A conda package (conda-meta/<package>.json) whose files list the file. */
static bool dlt_match_conda(void *ctx, const char *json, const char *name)
{
	(void)name;
	struct dlt_find *f = ctx;
	char pkg[128] = "";
	if (!dlt_json_lists(json, f->want, pkg, sizeof(pkg)))
		return false;
	f->out->by = DLT_INST_CONDA;
	snprintf(f->out->package, sizeof(f->out->package), "%s", pkg);
	return true;
}

/* pip's and conda's lists in the directories above path. */
static bool dlt_find_above(const char *path, struct dlt_install *out)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *slash = strrchr(dir, '/'); slash && slash > dir;
	     slash = strrchr(dir, '/')) {
		*slash = '\0';
		const char *rel = path + (slash - dir) + 1;
		const char *base = strrchr(dir, '/');
		base = base ? base + 1 : dir;
		struct dlt_find f = {rel, out};
		if ((strcmp(base, "site-packages") == 0 ||
		     strcmp(base, "dist-packages") == 0) &&
		    dlt_find_entry(dir, ".dist-info", dlt_match_pip, &f))
			return true;
		char meta[DLT_INST_PATH];
		struct stat st;
		snprintf(meta, sizeof(meta), "%s/conda-meta", dir);
		if (stat(meta, &st) == 0 && S_ISDIR(st.st_mode))
			return dlt_find_entry(meta, ".json", dlt_match_conda,
					      &f);
	}
	return false;
}

/* dpkg's lists, read once per analyzer run: about a thousand files (9 MB,
 * 150,000 paths) on a Debian 12 machine with CUDA and PyTorch, 30 to 140
 * ms to scan for one path; a finding about eight cuDNN libraries in each
 * of many ranks would scan them thousands of times.  Only shared objects
 * are asked about, so only paths whose last part holds ".so" are kept
 * (3,000 there, 140 KB), sorted, each with its package; the lists are
 * read a line at a time so that none is held whole.  The analyzer is
 * single-threaded. */
struct dlt_dpkg_file {
	char *path;
	const char *package;
};
static struct {
	char dir[PATH_MAX];
	bool loaded;
	struct dlt_dpkg_file *v;
	size_t n, cap;
	char **pkgs;
	size_t npkgs, pkgcap;
} dlt_dpkg;

static void *dlt_inst_grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? 2 * *cap : 64;
	void *nv = realloc(v, c * size);
	if (nv == NULL)
		return NULL;
	*cap = c;
	return nv;
}

/* Adds the shared objects of one list (<package>[:<arch>].list) to the
 * index. */
static bool dlt_dpkg_add(void *ctx, const char *list, const char *name)
{
	(void)ctx;
	FILE *f = fopen(list, "re");
	if (f == NULL)
		return false;
	/* "libc6:amd64.list": the package, its arch. */
	size_t n = strlen(name) - strlen(".list");
	const char *colon = memchr(name, ':', n);
	if (colon)
		n = (size_t)(colon - name);
	char *pkg = NULL;
	char line[PATH_MAX];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		const char *base = strrchr(line, '/');
		if (base == NULL || strstr(base, ".so") == NULL)
			continue;
		char **pv = dlt_inst_grow(dlt_dpkg.pkgs, &dlt_dpkg.pkgcap,
					  dlt_dpkg.npkgs, sizeof(*pv));
		if (pv == NULL)
			break;
		dlt_dpkg.pkgs = pv;
		if (pkg == NULL && (pkg = strndup(name, n)) != NULL)
			dlt_dpkg.pkgs[dlt_dpkg.npkgs++] = pkg;
		struct dlt_dpkg_file *v = dlt_inst_grow(
			dlt_dpkg.v, &dlt_dpkg.cap, dlt_dpkg.n, sizeof(*v));
		char *path = strdup(line);
		if (v == NULL || path == NULL || pkg == NULL) {
			free(path);
			break;
		}
		dlt_dpkg.v = v;
		dlt_dpkg.v[dlt_dpkg.n++] = (struct dlt_dpkg_file){path, pkg};
	}
	fclose(f);
	return false; /* on to the next list */
}

static int dlt_dpkg_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dlt_dpkg_file *)a)->path,
		      ((const struct dlt_dpkg_file *)b)->path);
}

static void dlt_dpkg_load(const char *info)
{
	if (dlt_dpkg.loaded && strcmp(dlt_dpkg.dir, info) == 0)
		return;
	for (size_t i = 0; i < dlt_dpkg.n; i++)
		free(dlt_dpkg.v[i].path);
	for (size_t i = 0; i < dlt_dpkg.npkgs; i++)
		free(dlt_dpkg.pkgs[i]);
	free(dlt_dpkg.pkgs);
	free(dlt_dpkg.v);
	memset(&dlt_dpkg, 0, sizeof(dlt_dpkg));
	snprintf(dlt_dpkg.dir, sizeof(dlt_dpkg.dir), "%s", info);
	dlt_dpkg.loaded = true;
	dlt_find_entry(info, ".list", dlt_dpkg_add, NULL);
	if (dlt_dpkg.n > 1)
		qsort(dlt_dpkg.v, dlt_dpkg.n, sizeof(*dlt_dpkg.v),
		      dlt_dpkg_cmp);
}

static const char *dlt_dpkg_owner(const char *path)
{
	struct dlt_dpkg_file key = {(char *)path, NULL};
	const struct dlt_dpkg_file *f =
		dlt_dpkg.n ? bsearch(&key, dlt_dpkg.v, dlt_dpkg.n,
				     sizeof(*dlt_dpkg.v), dlt_dpkg_cmp)
			   : NULL;
	return f ? f->package : NULL;
}

/* The dpkg package whose file list holds path, or one of its merged-/usr
 * twins (/lib/x and /usr/lib/x are one file there, and a package lists
 * the name it shipped). */
static bool dlt_find_dpkg(const char *info, const char *path,
			  struct dlt_install *out)
{
	char twin[PATH_MAX] = "";
	static const char *const roots[] = {"/lib/", "/lib64/", "/bin/",
					    "/sbin/"};
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t n = strlen(roots[i]);
		if (strncmp(path, roots[i], n) == 0)
			snprintf(twin, sizeof(twin), "/usr%s", path);
		else if (strncmp(path, "/usr", 4) == 0 &&
			 strncmp(path + 4, roots[i], n) == 0)
			snprintf(twin, sizeof(twin), "%s", path + 4);
	}
	dlt_dpkg_load(info);
	const char *pkg = dlt_dpkg_owner(path);
	if (pkg == NULL && twin[0])
		pkg = dlt_dpkg_owner(twin);
	if (pkg == NULL)
		return false;
	out->by = DLT_INST_DPKG;
	snprintf(out->package, sizeof(out->package), "%s", pkg);
	return true;
}

void dlt_install_find(const char *path, const char *dpkg_info,
		      struct dlt_install *out)
{
	memset(out, 0, sizeof(*out));
	if (path == NULL || path[0] != '/')
		return;
	char real[PATH_MAX];
	const char *cand[2] = {path, realpath(path, real) ? real : NULL};
	for (int i = 0; i < 2; i++)
		if (cand[i] && (i == 0 || strcmp(cand[0], cand[1]) != 0) &&
		    dlt_find_above(cand[i], out))
			return;
	for (int i = 0; i < 2 && dpkg_info; i++)
		if (cand[i] && dlt_find_dpkg(dpkg_info, cand[i], out))
			return;
}
