/* A job: the traces one command reads, found from its arguments and
 * opened once (job.h). */
#include "job.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "dltrace/format.h"
#include "mem.h"
#include "reader.h"

/* Paths found from the arguments, before they are opened. */
struct dlt_inputs {
	char **paths;
	size_t npaths;
	struct dlt_input_error *errors;
	size_t nerrors;
};

static void dlt_input_error(struct dlt_inputs *in, size_t *cap,
			    const char *path, bool trace, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	in->errors = dlt_util_grow(in->errors, cap, in->nerrors,
				   sizeof(*in->errors));
	in->errors[in->nerrors++] = (struct dlt_input_error){
		dlt_xstrdup(path), dlt_xstrdup(buf), trace};
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
		dlt_input_error(in, errcap, dir, false,
				"cannot read directory: %s", strerror(errno));
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
		names = dlt_util_grow(names, &cap, n, sizeof(*names));
		names[n++] = full;
	}
	closedir(d);
	if (n == 0) {
		dlt_input_error(in, errcap, dir, false,
				"no trace files (*.dltrace) in this directory");
		free(names);
		return;
	}
	/* The directory's full paths share a prefix, so sorting them sorts
	 * the names. */
	qsort(names, n, sizeof(*names), dlt_strptr_cmp);
	for (size_t i = 0; i < n; i++) {
		in->paths = dlt_util_grow(in->paths, pathcap, in->npaths,
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

static void dlt_inputs_collect(struct dlt_inputs *in, int argc,
			       char *const argv[])
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
		in->paths = dlt_util_grow(in->paths, &pathcap, in->npaths,
					  sizeof(*in->paths));
		in->paths[in->npaths++] = dlt_xstrdup(argv[i]);
	}
	dlt_drop_repeats(in);
}

/* Descriptors kept free for what a command opens besides its traces
 * (stdio, the C++ demangler, /proc files). */
#define DLT_FD_RESERVE 64

/* How many traces may stay open at once.  The soft limit on descriptors
 * is raised to the hard one first where that is needed (1,024 by default
 * on most systems, a job of 1,024 ranks leaves as many traces); past
 * what is left, traces are parked (reader.h) and opened again when
 * read. */
static size_t dlt_open_budget(size_t want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < want + DLT_FD_RESERVE && rl.rlim_cur < rl.rlim_max) {
		rlim_t need = (rlim_t)(want + DLT_FD_RESERVE);
		struct rlimit up = {need < rl.rlim_max ? need : rl.rlim_max,
				    rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl.rlim_cur = up.rlim_cur;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return want;
	return rl.rlim_cur > DLT_FD_RESERVE
		       ? (size_t)(rl.rlim_cur - DLT_FD_RESERVE)
		       : 0;
}

struct dlt_trace_start {
	struct dlt_job_trace jt;
	uint64_t start;
	size_t index;
};

static int dlt_trace_start_cmp(const void *a, const void *b)
{
	const struct dlt_trace_start *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void dlt_job_sort_by_start(struct dlt_job *j)
{
	if (j->ntraces < 2)
		return;
	struct dlt_trace_start *ts = dlt_xcalloc(j->ntraces, sizeof(*ts));
	for (size_t i = 0; i < j->ntraces; i++)
		ts[i] = (struct dlt_trace_start){
			j->traces[i],
			dlt_trace_header(j->traces[i].t)->start_realtime_ns, i};
	qsort(ts, j->ntraces, sizeof(*ts), dlt_trace_start_cmp);
	for (size_t i = 0; i < j->ntraces; i++)
		j->traces[i] = ts[i].jt;
	free(ts);
}

/* Written by the watcher.  Its companion of a process's trace
 * (DLT_PARENT_WATCHED) is read with that trace; what it wrote about a
 * forked child that made no trace of its own (DLT_PARENT_FORK) is that
 * child's trace, unless the child made one after all. */
static bool dlt_is_watchers(const struct dlt_trace *t)
{
	return (dlt_trace_header(t)->features & DLT_FEAT_WATCHER) != 0;
}

static bool dlt_is_companion(const struct dlt_trace *t)
{
	return dlt_is_watchers(t) &&
	       dlt_trace_header(t)->parent_kind == DLT_PARENT_WATCHED;
}

/* The forked child's own trace that watcher trace c stood in for: same
 * pid, host and parent trace, made by the child itself; or NULL. */
static const struct dlt_job_trace *
dlt_forked_own(const struct dlt_job *j, const struct dlt_job_trace *c);

struct dlt_trace_key {
	uint64_t id;
	size_t index;
};

static int dlt_trace_key_cmp(const void *a, const void *b)
{
	const struct dlt_trace_key *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The host part of a trace's file name, its length; 0 when the name is not
 * the writer's HOST.PID.SEQ... for pid (a file renamed, or named through
 * /proc/self/fd), and says nothing of its host. */
static size_t dlt_name_host(const char *path, uint32_t pid, const char **host)
{
	const char *b = strrchr(path, '/');
	*host = b ? b + 1 : path;
	size_t n = strcspn(*host, ".");
	if ((*host)[n] != '.')
		return 0;
	char *end;
	unsigned long v = strtoul(*host + n + 1, &end, 10);
	return end != *host + n + 1 && *end == '.' && v == pid ? n : 0;
}

static void dlt_job_note(struct dlt_job *j, size_t *cap, const char *path,
			 const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	j->notes = dlt_util_grow(j->notes, cap, j->nnotes, sizeof(*j->notes));
	j->notes[j->nnotes++] = (struct dlt_input_error){
		dlt_xstrdup(path), dlt_xstrdup(buf), true};
}

/* Why companion c is not about the process of trace p (same pid, image
 * and host, as far as the files' names tell: its parent_trace_id is only
 * a number), or NULL. */
static const char *dlt_companion_mismatch(const struct dlt_job_trace *c,
					  const struct dlt_job_trace *p)
{
	const struct dlt_file_header *ch = dlt_trace_header(c->t);
	const struct dlt_file_header *ph = dlt_trace_header(p->t);
	if (ch->pid != ph->pid)
		return "another pid";
	if (ch->exec_seq != ph->exec_seq)
		return "another image of the pid";
	const char *a, *b;
	size_t la = dlt_name_host(c->path, ch->pid, &a);
	size_t lb = dlt_name_host(p->path, ph->pid, &b);
	if (la && lb && (la != lb || strncmp(a, b, la) != 0))
		return "another host";
	return NULL;
}

static const struct dlt_job_trace *dlt_forked_own(const struct dlt_job *j,
						  const struct dlt_job_trace *c)
{
	const struct dlt_file_header *ch = dlt_trace_header(c->t);
	for (size_t i = 0; i < j->ntraces; i++) {
		const struct dlt_job_trace *p = &j->traces[i];
		if (p == c || p->t == NULL) /* p->t: attached already */
			continue;
		const struct dlt_file_header *ph = dlt_trace_header(p->t);
		if (dlt_is_watchers(p->t) || ph->pid != ch->pid ||
		    ph->parent_kind != DLT_PARENT_FORK ||
		    ph->parent_trace_id != ch->parent_trace_id)
			continue;
		const char *a, *b;
		size_t la = dlt_name_host(c->path, ch->pid, &a);
		size_t lb = dlt_name_host(p->path, ph->pid, &b);
		if (!la || !lb || (la == lb && strncmp(a, b, la) == 0))
			return p;
	}
	return NULL;
}

/* Each companion attached to its process's trace and taken off the list,
 * in the order named (so a trace's companions are read in that order);
 * one whose trace is missing, or of another process, is a note and is
 * closed. */
static void dlt_job_pair(struct dlt_job *j)
{
	size_t n = j->ntraces, nkeys = 0, notecap = 0;
	struct dlt_trace_key *keys = dlt_xcalloc(n ? n : 1, sizeof(*keys));
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (!dlt_is_companion(j->traces[i].t))
			keys[nkeys++] = (struct dlt_trace_key){
				dlt_trace_header(j->traces[i].t)->trace_id, i};
		any = any || dlt_is_watchers(j->traces[i].t);
	}
	if (!any) {
		free(keys);
		return;
	}
	/* A forked child's trace by the watcher, where the child made its
	 * own: read with the child's, as a companion. */
	for (size_t i = 0; i < n; i++) {
		struct dlt_job_trace *c = &j->traces[i];
		if (!dlt_is_watchers(c->t) || dlt_is_companion(c->t))
			continue;
		const struct dlt_job_trace *own = dlt_forked_own(j, c);
		if (own == NULL)
			continue;
		dlt_trace_attach(own->t, c->t);
		free(c->path);
		c->path = NULL;
		c->t = NULL;
	}
	qsort(keys, nkeys, sizeof(*keys), dlt_trace_key_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct dlt_job_trace *c = &j->traces[i];
		if (c->t == NULL)
			continue; /* attached above */
		if (!dlt_is_companion(c->t)) {
			j->traces[k++] = *c;
			continue;
		}
		const struct dlt_file_header *ch = dlt_trace_header(c->t);
		struct dlt_trace_key want = {ch->parent_trace_id, 0};
		const struct dlt_trace_key *hit = NULL;
		for (size_t lo = 0, hi = nkeys; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;
			if (keys[mid].id < want.id) {
				lo = mid + 1;
			} else {
				hi = mid;
				if (keys[mid].id == want.id)
					hit = &keys[mid];
			}
		}
		const struct dlt_job_trace *p = hit && j->traces[hit->index].t
							? &j->traces[hit->index]
							: NULL;
		const char *why = p ? dlt_companion_mismatch(c, p) : NULL;
		if (p && why == NULL) {
			dlt_trace_attach(p->t, c->t);
		} else if (p) {
			dlt_job_note(j, &notecap, c->path,
				     "watcher records for trace %016llx (%s), "
				     "which is of %s (pid %u); left out",
				     (unsigned long long)ch->parent_trace_id,
				     p->path, why,
				     (unsigned)dlt_trace_header(p->t)->pid);
			dlt_trace_close(c->t);
		} else {
			dlt_job_note(j, &notecap, c->path,
				     "watcher records for trace %016llx, which "
				     "is not among the inputs; left out",
				     (unsigned long long)ch->parent_trace_id);
			dlt_trace_close(c->t);
		}
		free(c->path);
	}
	j->ntraces = k;
	free(keys);
}

/* The reader's message without the path it starts with. */
static const char *dlt_without_path(const char *err, const char *path)
{
	size_t pl = strlen(path);
	if (strncmp(err, path, pl) == 0 && err[pl] == ':' && err[pl + 1] == ' ')
		err += pl + 2;
	return *err ? err : "cannot be read";
}

int dlt_job_open(struct dlt_job *j, int argc, char *const argv[],
		 const struct dlt_job_opts *o)
{
	static const struct dlt_job_opts all = {0};
	if (o == NULL)
		o = &all;
	memset(j, 0, sizeof(*j));
	struct dlt_inputs in;
	dlt_inputs_collect(&in, argc, argv);
	size_t errcap = in.nerrors;
	j->errors = in.errors;
	j->nerrors = in.nerrors;
	j->traces = dlt_xcalloc(in.npaths ? in.npaths : 1, sizeof(*j->traces));
	size_t budget = dlt_open_budget(in.npaths);
	uint64_t *other =
		dlt_xcalloc(in.npaths ? in.npaths : 1, sizeof(*other));
	for (size_t i = 0; i < in.npaths; i++) {
		char err[1024] = "";
		char *path = in.paths[i];
		struct dlt_trace *t =
			dlt_trace_open_rw(path, o->writable, err, sizeof(err));
		if (t == NULL) {
			j->errors =
				dlt_util_grow(j->errors, &errcap, j->nerrors,
					      sizeof(*j->errors));
			j->errors[j->nerrors++] = (struct dlt_input_error){
				path, dlt_xstrdup(dlt_without_path(err, path)),
				true};
			continue;
		}
		uint64_t run = dlt_trace_header(t)->run_id;
		if (o->has_run && run != o->run && !o->companions_apart &&
		    dlt_is_companion(t)) {
			/* Part of a trace of another run, not one itself. */
			dlt_trace_close(t);
			free(path);
			continue;
		}
		if (o->has_run && run != o->run) {
			dlt_trace_close(t);
			free(path);
			j->other_traces++;
			bool known = false;
			for (size_t k = 0; k < j->other_runs && !known; k++)
				known = other[k] == run;
			if (!known)
				other[j->other_runs++] = run;
			continue;
		}
		if (j->ntraces >= budget)
			dlt_trace_park(t);
		j->traces[j->ntraces++] = (struct dlt_job_trace){path, t};
	}
	free(other);
	free(in.paths);
	/* Before the order: a companion's place is its trace's. */
	if (!o->companions_apart)
		dlt_job_pair(j);
	if (o->order == DLT_JOB_BY_START)
		dlt_job_sort_by_start(j);
	return j->ntraces > 0 ? 0 : -1;
}

struct dlt_trace *dlt_job_take(struct dlt_job *j, size_t i)
{
	struct dlt_trace *t = j->traces[i].t;
	j->traces[i].t = NULL;
	return t;
}

void dlt_job_say_errors(const struct dlt_job *j, FILE *out)
{
	for (size_t i = 0; i < j->nerrors; i++)
		fprintf(out, "dltrace-analyze: %s: %s\n", j->errors[i].path,
			j->errors[i].message);
	for (size_t i = 0; i < j->nnotes; i++)
		fprintf(out, "dltrace-analyze: %s: %s\n", j->notes[i].path,
			j->notes[i].message);
}

void dlt_job_close(struct dlt_job *j)
{
	for (size_t i = 0; i < j->ntraces; i++) {
		dlt_trace_close(j->traces[i].t);
		free(j->traces[i].path);
	}
	free(j->traces);
	for (size_t i = 0; i < j->nerrors; i++) {
		free(j->errors[i].path);
		free(j->errors[i].message);
	}
	free(j->errors);
	for (size_t i = 0; i < j->nnotes; i++) {
		free(j->notes[i].path);
		free(j->notes[i].message);
	}
	free(j->notes);
	memset(j, 0, sizeof(*j));
}
