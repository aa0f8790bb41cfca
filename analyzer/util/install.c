/* Which package manager installed a file, from the managers' own lists on
 * this machine.  Each list is read only when the file lies where that
 * manager puts files (under site-packages, under a prefix with conda-meta),
 * except dpkg's, which covers the whole system. */
#define _GNU_SOURCE
#include "install.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "digest.h"

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
static void dlt_usr_twin(const char *path, char *twin, size_t cap)
{
	static const char *const roots[] = {"/lib/", "/lib64/", "/bin/",
					    "/sbin/"};
	twin[0] = '\0';
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t n = strlen(roots[i]);
		if (strncmp(path, roots[i], n) == 0)
			snprintf(twin, cap, "/usr%s", path);
		else if (strncmp(path, "/usr", 4) == 0 &&
			 strncmp(path + 4, roots[i], n) == 0)
			snprintf(twin, cap, "%s", path + 4);
	}
}

static bool dlt_find_dpkg(const char *info, const char *path,
			  struct dlt_install *out)
{
	char twin[PATH_MAX];
	dlt_usr_twin(path, twin, sizeof(twin));
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

/* ---- is the file what its package installed? ---- */

/* The file's digests, read once, when a record names it. */
struct dlt_vfile {
	const char *path;
	int state; /* 0 not read, 1 read, -1 unreadable (err) */
	int err;
	uint8_t md5[DLT_MD5_LEN], sha256[DLT_SHA256_LEN];
};

static int dlt_vfile_read(struct dlt_vfile *f)
{
	if (f->state == 0) {
		f->state = dlt_digest_file(f->path, f->md5, f->sha256) == 0
				   ? 1
				   : -1;
		f->err = f->state < 0 ? errno : 0;
	}
	return f->state;
}

struct dlt_vctx {
	struct dlt_vfile file;
	struct dlt_verify *out;
	const char *rel; /* the name pip's and conda's records use */
	bool listed;	 /* a record named the file: out says what it found */
	/* dpkg: the package, the names its lines may use, its md5sums seen */
	const char *pkg;
	size_t pkglen;
	char names[4][PATH_MAX];
	size_t nnames;
	int lists;
};

/* The verdict of a record that names the file with digest want (how
 * digest encodes the file's own: hex or pip's base64); true. */
static bool dlt_vctx_decide(struct dlt_vctx *v, const char *digest,
			    const char *want, size_t wlen)
{
	v->listed = true;
	v->out->digest = digest;
	if (dlt_vfile_read(&v->file) < 0) {
		v->out->verdict = DLT_VERIFY_UNKNOWN;
		snprintf(v->out->why, sizeof(v->out->why), "cannot read it: %s",
			 strerror(v->file.err));
		return true;
	}
	char got[2 * DLT_SHA256_LEN + 1];
	if (strcmp(digest, "md5") == 0)
		dlt_digest_hex(v->file.md5, DLT_MD5_LEN, got);
	else if (want[0] && strchr("0123456789abcdef", want[0]) &&
		 wlen == 2 * DLT_SHA256_LEN)
		dlt_digest_hex(v->file.sha256, DLT_SHA256_LEN, got);
	else
		dlt_digest_b64url(v->file.sha256, DLT_SHA256_LEN, got);
	v->out->verdict = strlen(got) == wlen && memcmp(got, want, wlen) == 0
				  ? DLT_VERIFY_SAME
				  : DLT_VERIFY_DIFFERS;
	return true;
}

/* One md5sums file of the package (<package>.md5sums, or
 * <package>:<arch>.md5sums: each architecture installed has its own).
 * Lines: 32 hex digits, two spaces, the path without its leading '/'.
 * True once a line names the file with the digest it has; a line with
 * another digest is kept as the answer while the other architectures'
 * lists are looked at. */
static bool dlt_verify_md5sums(void *ctx, const char *file, const char *name)
{
	struct dlt_vctx *v = ctx;
	if (strncmp(name, v->pkg, v->pkglen) != 0 ||
	    (name[v->pkglen] != ':' &&
	     strcmp(name + v->pkglen, ".md5sums") != 0))
		return false;
	v->lists++;
	FILE *f = fopen(file, "re");
	if (f == NULL)
		return false;
	char line[PATH_MAX + 64];
	bool same = false;
	while (!same && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strlen(line) < 34 || line[32] != ' ')
			continue;
		const char *rel = line + 32 + strspn(line + 32, " ");
		for (size_t i = 0; i < v->nnames && !same; i++) {
			if (strcmp(rel, v->names[i]) != 0)
				continue;
			dlt_vctx_decide(v, "md5", line, 32);
			same = v->out->verdict != DLT_VERIFY_DIFFERS;
		}
	}
	fclose(f);
	return same;
}

static void dlt_verify_dpkg(const char *path, const char *info, const char *pkg,
			    struct dlt_vctx *v)
{
	char real[PATH_MAX], twin[PATH_MAX];
	const char *cand[2] = {path, realpath(path, real) ? real : NULL};
	for (int i = 0; i < 2; i++) {
		if (cand[i] == NULL)
			continue;
		dlt_usr_twin(cand[i], twin, sizeof(twin));
		const char *both[2] = {cand[i], twin};
		for (int k = 0; k < 2; k++) {
			bool dup = both[k][0] != '/';
			for (size_t j = 0; j < v->nnames && !dup; j++)
				dup = strcmp(v->names[j], both[k] + 1) == 0;
			if (!dup)
				snprintf(v->names[v->nnames++], PATH_MAX, "%s",
					 both[k] + 1);
		}
	}
	v->pkg = pkg;
	v->pkglen = strlen(pkg);
	dlt_find_entry(info, ".md5sums", dlt_verify_md5sums, v);
	if (v->listed)
		return;
	if (v->lists == 0)
		snprintf(v->out->why, sizeof(v->out->why),
			 "dpkg has no md5sums of %s", pkg);
	else
		snprintf(v->out->why, sizeof(v->out->why),
			 "the md5sums of %s do not list it", pkg);
}

/* A .dist-info's RECORD: "path,sha256=<base64 without padding>,size",
 * the path relative to site-packages.  True when it names the file. */
static bool dlt_verify_record(void *ctx, const char *info, const char *name)
{
	(void)name;
	struct dlt_vctx *v = ctx;
	char path[DLT_INST_PATH + DLT_INST_PATH + 16];
	snprintf(path, sizeof(path), "%s/RECORD", info);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return false;
	size_t rl = strlen(v->rel);
	char line[PATH_MAX + 256];
	while (!v->listed && fgets(line, sizeof(line), f)) {
		if (strncmp(line, v->rel, rl) != 0 || line[rl] != ',')
			continue;
		const char *h = line + rl + 1;
		size_t hl = strcspn(h, ",\r\n");
		if (strncmp(h, "sha256=", 7) == 0) {
			dlt_vctx_decide(v, "sha256", h + 7, hl - 7);
		} else {
			v->listed = true;
			snprintf(v->out->why, sizeof(v->out->why),
				 hl ? "its RECORD gives no sha256 (%.*s)"
				    : "its RECORD line has no digest",
				 (int)strcspn(h, "=,\r\n"), h);
		}
	}
	fclose(f);
	return v->listed;
}

/* A conda-meta entry: its "paths_data" objects give each file's "_path"
 * and, since conda 4.3, its "sha256".  True when it names the file. */
static bool dlt_verify_conda(void *ctx, const char *json, const char *name)
{
	(void)name;
	struct dlt_vctx *v = ctx;
	size_t len = 0;
	char *buf = dlt_read_whole(json, &len);
	if (buf == NULL)
		return false;
	char want[PATH_MAX + 4];
	snprintf(want, sizeof(want), "\"%s\"", v->rel);
	size_t wl = strlen(want);
	bool named = false;
	for (char *s = buf;
	     !v->listed &&
	     (s = memmem(s, (size_t)(buf + len - s), want, wl)) != NULL;
	     s += wl) {
		named = true;
		/* "_path": "<rel>", in an object without nested ones. */
		char *k = s;
		while (k > buf && strchr(" \t\r\n", k[-1]))
			k--;
		if (k == buf || k[-1] != ':')
			continue;
		k--;
		while (k > buf && strchr(" \t\r\n", k[-1]))
			k--;
		if (k - buf < 7 || memcmp(k - 7, "\"_path\"", 7) != 0)
			continue;
		char *open = k, *close = strchr(s, '}');
		while (open > buf && open[-1] != '{')
			open--;
		if (close == NULL || open == buf)
			continue;
		char *h = memmem(open, (size_t)(close - open), "\"sha256\"", 8);
		if (h == NULL)
			continue;
		h += 8;
		h += strspn(h, " \t\r\n:");
		if (*h != '"')
			continue;
		h++;
		dlt_vctx_decide(v, "sha256", h, strcspn(h, "\""));
	}
	free(buf);
	if (named && !v->listed) {
		v->listed = true;
		snprintf(v->out->why, sizeof(v->out->why),
			 "its conda-meta entry gives no sha256 for it");
	}
	return v->listed;
}

/* pip's RECORDs and conda-meta entries in the directories above path. */
static bool dlt_verify_above(const char *path, bool pip, bool conda,
			     struct dlt_vctx *v)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *slash = strrchr(dir, '/'); slash && slash > dir;
	     slash = strrchr(dir, '/')) {
		*slash = '\0';
		v->rel = path + (slash - dir) + 1;
		const char *base = strrchr(dir, '/');
		base = base ? base + 1 : dir;
		if (pip &&
		    (strcmp(base, "site-packages") == 0 ||
		     strcmp(base, "dist-packages") == 0) &&
		    dlt_find_entry(dir, ".dist-info", dlt_verify_record, v))
			return true;
		char meta[DLT_INST_PATH];
		struct stat st;
		snprintf(meta, sizeof(meta), "%s/conda-meta", dir);
		if (conda && stat(meta, &st) == 0 && S_ISDIR(st.st_mode))
			return dlt_find_entry(meta, ".json", dlt_verify_conda,
					      v);
	}
	return false;
}

void dlt_install_verify(const char *path, const char *dpkg_info,
			const struct dlt_install *in, struct dlt_verify *out)
{
	memset(out, 0, sizeof(*out));
	static struct dlt_vctx v; /* 16 KiB of names: the analyzer is
				   * single-threaded */
	memset(&v, 0, sizeof(v));
	v.file.path = path;
	v.out = out;
	if (path == NULL || path[0] != '/') {
		snprintf(out->why, sizeof(out->why), "no path");
		return;
	}
	char real[PATH_MAX];
	const char *cand[2] = {path, realpath(path, real) ? real : NULL};
	switch (in->by) {
	case DLT_INST_DPKG:
		if (dpkg_info == NULL || in->package[0] == '\0')
			snprintf(out->why, sizeof(out->why),
				 "no dpkg database to look in");
		else
			dlt_verify_dpkg(path, dpkg_info, in->package, &v);
		return;
	case DLT_INST_PIP:
	case DLT_INST_CONDA:
		/* conda installs some packages as pip does (a .dist-info
		 * whose INSTALLER says conda). */
		for (int i = 0; i < 2 && !v.listed; i++)
			if (cand[i] &&
			    (i == 0 || strcmp(cand[0], cand[1]) != 0))
				dlt_verify_above(cand[i], true,
						 in->by == DLT_INST_CONDA, &v);
		if (!v.listed)
			snprintf(out->why, sizeof(out->why),
				 "no %s record lists it",
				 dlt_installer_name(in->by));
		return;
	case DLT_INST_UNKNOWN:
		break;
	}
	snprintf(out->why, sizeof(out->why), "no package manager installed it");
}

const char *dlt_verify_text(const struct dlt_verify *v, char *buf, size_t cap)
{
	switch (v->verdict) {
	case DLT_VERIFY_SAME:
		snprintf(buf, cap, "same");
		break;
	case DLT_VERIFY_DIFFERS:
		snprintf(buf, cap, "differs");
		break;
	case DLT_VERIFY_UNKNOWN:
		snprintf(buf, cap, "unknown: %s", v->why);
		break;
	}
	return buf;
}
