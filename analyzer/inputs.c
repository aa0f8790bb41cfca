/* Trace files named by command-line arguments. */
#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mem.h"
#include "reader.h"

static void dlt_input_error(struct dlt_inputs *in, size_t *cap,
			    const char *path, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	in->errors =
		dlt_grow(in->errors, cap, in->nerrors, sizeof(*in->errors));
	in->errors[in->nerrors++] =
		(struct dlt_input_error){dlt_xstrdup(path), dlt_xstrdup(buf)};
}

static int dlt_strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool dlt_is_trace_name(const char *name)
{
	static const char suffix[] = ".dltrace";
	size_t n = strlen(name), s = sizeof(suffix) - 1;
	return n > s && strcmp(name + n - s, suffix) == 0;
}

static void dlt_collect_dir(struct dlt_inputs *in, size_t *pathcap,
			    size_t *errcap, const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL) {
		dlt_input_error(in, errcap, dir, "cannot read directory: %s",
				strerror(errno));
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	size_t dl = strlen(dir);
	bool slash = dl > 0 && dir[dl - 1] == '/';
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!dlt_is_trace_name(de->d_name))
			continue;
		size_t len = dl + 1 + strlen(de->d_name) + 1;
		char *full = dlt_xmalloc(len);
		snprintf(full, len, "%s%s%s", dir, slash ? "" : "/",
			 de->d_name);
		struct stat st;
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(full);
			continue;
		}
		names = dlt_grow(names, &cap, n, sizeof(*names));
		names[n++] = full;
	}
	closedir(d);
	if (n == 0) {
		dlt_input_error(in, errcap, dir,
				"no trace files (*.dltrace) in this directory");
		free(names);
		return;
	}
	/* The directory's full paths share a prefix, so sorting them sorts
	 * the names. */
	qsort(names, n, sizeof(*names), dlt_strptr_cmp);
	for (size_t i = 0; i < n; i++) {
		in->paths = dlt_grow(in->paths, pathcap, in->npaths,
				     sizeof(*in->paths));
		in->paths[in->npaths++] = names[i];
	}
	free(names);
}

struct dlt_file_id {
	dev_t dev;
	ino_t ino;
	size_t index; /* in the order collected */
};

static int dlt_file_id_cmp(const void *a, const void *b)
{
	const struct dlt_file_id *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* `summary d d` listed every process twice: the second naming of a file
 * goes, the first stays where it was. */
static void dlt_drop_repeats(struct dlt_inputs *in)
{
	size_t n = in->npaths;
	if (n < 2)
		return;
	struct dlt_file_id *ids = dlt_xcalloc(n, sizeof(*ids));
	size_t nid = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(in->paths[i], &st) == 0)
			ids[nid++] =
				(struct dlt_file_id){st.st_dev, st.st_ino, i};
	}
	qsort(ids, nid, sizeof(*ids), dlt_file_id_cmp);
	bool *drop = dlt_xcalloc(n, sizeof(*drop));
	for (size_t i = 1; i < nid; i++)
		if (ids[i].dev == ids[i - 1].dev &&
		    ids[i].ino == ids[i - 1].ino)
			drop[ids[i].index] = true;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (drop[i])
			free(in->paths[i]);
		else
			in->paths[k++] = in->paths[i];
	}
	in->npaths = k;
	free(drop);
	free(ids);
}

int dlt_inputs_collect(struct dlt_inputs *in, int argc, char *const argv[])
{
	memset(in, 0, sizeof(*in));
	size_t pathcap = 0, errcap = 0;
	for (int i = 0; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			dlt_collect_dir(in, &pathcap, &errcap, argv[i]);
			continue;
		}
		/* Anything else is tried as a trace: opening it gives the
		 * most precise message when it is not one. */
		in->paths = dlt_grow(in->paths, &pathcap, in->npaths,
				     sizeof(*in->paths));
		in->paths[in->npaths++] = dlt_xstrdup(argv[i]);
	}
	dlt_drop_repeats(in);
	return in->npaths > 0 ? 0 : -1;
}

void dlt_inputs_keep_run(struct dlt_inputs *in, uint64_t run, size_t *others,
			 size_t *nruns)
{
	*others = 0;
	*nruns = 0;
	uint64_t *seen =
		dlt_xcalloc(in->npaths ? in->npaths : 1, sizeof(*seen));
	size_t k = 0;
	for (size_t i = 0; i < in->npaths; i++) {
		char err[64];
		struct dlt_trace *t =
			dlt_trace_open(in->paths[i], err, sizeof(err));
		if (t == NULL) {
			in->paths[k++] = in->paths[i];
			continue;
		}
		uint64_t r = dlt_trace_header(t)->run_id;
		dlt_trace_close(t);
		if (r == run) {
			in->paths[k++] = in->paths[i];
			continue;
		}
		free(in->paths[i]);
		(*others)++;
		bool known = false;
		for (size_t j = 0; j < *nruns && !known; j++)
			known = seen[j] == r;
		if (!known)
			seen[(*nruns)++] = r;
	}
	in->npaths = k;
	free(seen);
}

void dlt_inputs_free(struct dlt_inputs *in)
{
	for (size_t i = 0; i < in->npaths; i++)
		free(in->paths[i]);
	free(in->paths);
	for (size_t i = 0; i < in->nerrors; i++) {
		free(in->errors[i].path);
		free(in->errors[i].message);
	}
	free(in->errors);
	memset(in, 0, sizeof(*in));
}

struct dlt_path_start {
	char *path;
	uint64_t start;
	size_t index;
};

static int dlt_path_start_cmp(const void *a, const void *b)
{
	const struct dlt_path_start *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void dlt_inputs_sort_by_start(struct dlt_inputs *in)
{
	if (in->npaths < 2)
		return;
	struct dlt_path_start *ps = dlt_xcalloc(in->npaths, sizeof(*ps));
	for (size_t i = 0; i < in->npaths; i++) {
		char err[64];
		struct dlt_trace *t =
			dlt_trace_open(in->paths[i], err, sizeof(err));
		ps[i].path = in->paths[i];
		ps[i].index = i;
		ps[i].start =
			t ? dlt_trace_header(t)->start_realtime_ns : UINT64_MAX;
		if (t)
			dlt_trace_close(t);
	}
	qsort(ps, in->npaths, sizeof(*ps), dlt_path_start_cmp);
	for (size_t i = 0; i < in->npaths; i++)
		in->paths[i] = ps[i].path;
	free(ps);
}
