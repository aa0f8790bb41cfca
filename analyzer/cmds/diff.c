/* "diff": two runs (or two hosts of one run) side by side, in order of
 * likely consequence: the GPU libraries (version, build, where each side
 * got it), NCCL plugins, other libraries whose file changed, libraries on
 * one side only, the environment, the system and driver; then the
 * convolution problems matched by problem id and direction: the algorithm
 * or engine each run ended up with and how long it took.  Problems whose
 * choice changed come first, largest slowdown first; then the unchanged
 * ones, then those found in one run only.  All traces of a side are
 * merged. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "sections.h"
#include "conv.h"
#include "envprof.h"
#include "job.h"
#include "gpu.h"
#include "json.h"
#include "status.h"
#include "text.h"

const char dlt_diff_usage[] =
	"usage: dltrace-analyze diff [--json] [--run-a ID] [--run-b ID]\n"
	"                            [--host-a HOST] [--host-b HOST] A B\n"
	"\n"
	"A and B are two runs, each a trace file or a directory of *.dltrace\n"
	"files (all processes of a run are merged).  First what differs in\n"
	"their environments, in order of likely consequence: GPU libraries\n"
	"(version, build, file and the loader rule that chose it), NCCL\n"
	"plugins, other libraries whose file changed, libraries loaded on one\n"
	"side only, the variables that shape loading and the GPU libraries,\n"
	"then the system (OS, glibc, NVIDIA driver, CUDA driver API, Python,\n"
	"torch).  Then the convolutions.  Convolution problems are\n"
	"matched by their id (a hash of the shape, types and parameters) and\n"
	"direction.  For each: the algorithm (legacy API) or engine and knobs\n"
	"(backend API) that ran most often in each run, its mean host-side\n"
	"call time and the time the selection measured for it.  Problems\n"
	"whose choice changed come first, the largest slowdown first; then\n"
	"unchanged problems; then problems found in one run only.\n"
	"\n"
	"  --run-a ID, --run-b ID\n"
	"           only the traces of that launcher run in A, in B (A and B\n"
	"           may then be one directory used twice)\n"
	"  --host-a HOST, --host-b HOST\n"
	"           only the traces written on that host in A, in B: two\n"
	"           nodes of one job are `diff --host-a n1 --host-b n2 D D`\n"
	"  --json   one JSON object with \"environment\" (a list of what\n"
	"           differs) and the convolutions' \"changes\",\n"
	"           \"unchanged\", \"only_a\" and \"only_b\" lists\n"
	"\n"
	"exit status: 0 the runs were compared (whatever changed), 2 bad\n"
	"arguments or a run without a usable trace.\n";

struct dlt_run {
	const char *arg;
	const char *host; /* --host-a/-b, or NULL */
	struct dlt_conv_set conv;
	size_t nprocs;
	/* Its processes' environments merged (envprof.h): those that
	 * loaded a GPU library or ran Python first, each in start order, so
	 * that the program rather than a wrapper shell speaks for the run. */
	struct dlt_arena_blk *arena;
	struct dlt_envprof *env;
};

static int dlt_load_run(struct dlt_run *r, char *arg, const char *host,
			const struct dlt_job_opts *o)
{
	struct dlt_job j;
	char *args[] = {arg};
	struct dlt_job_opts how = *o;
	how.order = DLT_JOB_BY_START;
	dlt_conv_init(&r->conv);
	r->arg = arg;
	r->host = host;
	r->nprocs = 0;
	r->arena = NULL;
	r->env = NULL;
	dlt_job_open(&j, 1, args, &how);
	dlt_job_say_errors(&j, stderr);
	struct dlt_envprof **profs =
		dlt_xcalloc(j.ntraces ? j.ntraces : 1, sizeof(*profs));
	size_t np = 0;
	for (size_t i = 0; i < j.ntraces; i++) {
		struct dlt_gpu g;
		struct dlt_trace *t = dlt_job_take(&j, i);
		struct dlt_process *p = dlt_process_read_gpu(t, &g);
		dlt_trace_close(t);
		if (host == NULL || (p->host && strcmp(p->host, host) == 0)) {
			dlt_conv_merge(&r->conv, &g.conv);
			profs[np++] = dlt_envprof_build(&r->arena, p, &g, true);
			r->nprocs++;
		}
		dlt_process_free(p);
		dlt_gpu_free(&g);
	}
	dlt_job_close(&j);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < np; i++) {
			if (dlt_envp_busy(profs[i]) != (pass == 0))
				continue;
			if (r->env == NULL)
				r->env = profs[i];
			else
				dlt_envprof_merge(&r->arena, r->env, profs[i]);
		}
	free(profs);
	return r->nprocs ? 0 : -1;
}

/* ---- environments ---------------------------------------------------- */

/* A difference between the two sides' values of one key. */
struct dlt_envdiff_change {
	const struct dlt_envp_item *a, *b; /* NULL: not on that side */
	int section; /* enum dlt_envp_kind; DLT_ENVP_KINDS: only one side */
};

/* What changed between two items of one key, in words. */
static const char *dlt_envdiff_what(const struct dlt_envdiff_change *c,
				    char *buf, size_t cap)
{
	const struct dlt_envp_item *a = c->a, *b = c->b;
	bool lib = (a ? a : b)->kind != DLT_ENVP_VAR &&
		   (a ? a : b)->kind != DLT_ENVP_SYS;
	if (a == NULL || b == NULL)
		snprintf(buf, cap, "%s only in %s",
			 lib				     ? "loaded"
			 : (a ? a : b)->kind == DLT_ENVP_VAR ? "set"
							     : "known",
			 a ? "A" : "B");
	else if (lib && a->identity && b->identity &&
		 strcmp(a->identity, b->identity) == 0 &&
		 (strcmp(a->value, b->value) == 0 || !a->from || !b->from ||
		  strcmp(a->from, "library") != 0 ||
		  strcmp(b->from, "library") != 0))
		snprintf(buf, cap, "%s",
			 a->path && b->path && strcmp(a->path, b->path) != 0
				 ? "the same build, another place"
				 : "found by another rule");
	else if (strcmp(a->value, b->value) != 0)
		snprintf(buf, cap, "%s %s -> %s", lib ? "version" : "value",
			 a->value, b->value);
	else if (lib)
		snprintf(buf, cap, "another build of %s", a->value);
	else
		snprintf(buf, cap, "same value");
	return buf;
}

static bool dlt_envdiff_differ(const struct dlt_envp_item *a,
			       const struct dlt_envp_item *b)
{
	if (a == NULL || b == NULL)
		return a != b;
	return !dlt_envp_same(a, b) ||
	       (a->via && b->via && strcmp(a->via, b->via) != 0);
}

/* Every key that differs, in the order of the sections: GPU libraries,
 * NCCL plugins, other libraries whose file changed, libraries on one side
 * only, variables, the system. */
static size_t dlt_envdiff_changes(const struct dlt_envprof *ea,
				  const struct dlt_envprof *eb,
				  struct dlt_envdiff_change **out)
{
	struct dlt_envp_unit u[2] = {{.prof = (struct dlt_envprof *)ea},
				     {.prof = (struct dlt_envprof *)eb}};
	size_t nk;
	const struct dlt_envp_item **keys = dlt_envp_keys(u, 2, &nk);
	struct dlt_envdiff_change *c = dlt_xcalloc(nk ? nk : 1, sizeof(*c));
	size_t n = 0;
	static const int order[] = {DLT_ENVP_GPU_LIB, DLT_ENVP_PLUGIN,
				    DLT_ENVP_LIB,     DLT_ENVP_KINDS,
				    DLT_ENVP_VAR,     DLT_ENVP_SYS};
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (size_t i = 0; i < nk; i++) {
			const struct dlt_envp_item *a = dlt_envprof_get(
				ea, keys[i]->kind, keys[i]->key);
			const struct dlt_envp_item *b = dlt_envprof_get(
				eb, keys[i]->kind, keys[i]->key);
			int section = keys[i]->kind;
			if (section == DLT_ENVP_LIB && (a == NULL || b == NULL))
				section = DLT_ENVP_KINDS;
			if (section != order[o] || !dlt_envdiff_differ(a, b))
				continue;
			c[n++] = (struct dlt_envdiff_change){a, b, section};
		}
	free(keys);
	*out = c;
	return n;
}

static const char *dlt_envdiff_section_name(int section)
{
	return section == DLT_ENVP_LIB ? "other libraries whose file changed"
	       : section == DLT_ENVP_KINDS ? "libraries loaded on one side only"
	       : section == DLT_ENVP_VAR   ? "environment"
	       : section == DLT_ENVP_SYS
		       ? "system and driver"
		       : dlt_envp_kind_name((enum dlt_envp_kind)section);
}

static void dlt_envdiff_text_side(FILE *out, const char *side,
				  const struct dlt_envp_item *it)
{
	fprintf(out, "    %s: ", side);
	if (it == NULL) {
		fputs("-\n", out);
		return;
	}
	dlt_fput_text(out, it->value, "");
	if (it->path && it->kind != DLT_ENVP_SYS) {
		fputs("  ", out);
		dlt_fput_text(out, it->path, "");
		fprintf(out, " (%s)", it->via ? it->via : "?");
		if (it->installed)
			fprintf(out, " installed by %s", it->installed);
		if (it->identity)
			fprintf(out, " %s", it->identity);
	} else if (it->kind == DLT_ENVP_SYS && it->from) {
		fprintf(out, "  (%s)", it->from);
	}
	fputc('\n', out);
}

static void dlt_envdiff_text(FILE *out, const struct dlt_envdiff_change *c,
			     size_t n)
{
	static const int sections[] = {DLT_ENVP_GPU_LIB, DLT_ENVP_PLUGIN,
				       DLT_ENVP_LIB,	 DLT_ENVP_KINDS,
				       DLT_ENVP_VAR,	 DLT_ENVP_SYS};
	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			k += c[i].section == sections[s];
		fprintf(out, "\n%s (%zu differ%s)%s\n",
			dlt_envdiff_section_name(sections[s]), k,
			k == 1 ? "s" : "", k ? ":" : "");
		for (size_t i = 0; i < n; i++) {
			if (c[i].section != sections[s])
				continue;
			char what[256];
			const struct dlt_envp_item *it =
				c[i].a ? c[i].a : c[i].b;
			fprintf(out, "  %s: %s\n", it->key,
				dlt_envdiff_what(&c[i], what, sizeof(what)));
			dlt_envdiff_text_side(out, "A", c[i].a);
			dlt_envdiff_text_side(out, "B", c[i].b);
		}
	}
}

static void dlt_envdiff_json_side(struct dlt_json *j, const char *key,
				  const struct dlt_envp_item *it)
{
	dlt_json_key(j, key);
	if (it == NULL) {
		dlt_json_null(j);
		return;
	}
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "value", it->value);
	dlt_json_kv_string(j, "from", it->from);
	dlt_json_kv_string(j, "path", it->path);
	if (it->kind != DLT_ENVP_VAR && it->kind != DLT_ENVP_SYS) {
		dlt_json_kv_string(j, "found_via", it->via);
		dlt_json_kv_string(j, "installed_by", it->installed);
		dlt_json_kv_string(j, "identity", it->identity);
	}
	dlt_json_object_end(j);
}

static void dlt_envdiff_json(struct dlt_json *j,
			     const struct dlt_envdiff_change *c, size_t n)
{
	static const char *const names[] = {"gpu_library", "nccl_plugin",
					    "library",	   "variable",
					    "system",	   "one_side"};
	dlt_json_key(j, "environment");
	dlt_json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		char what[256];
		const struct dlt_envp_item *it = c[i].a ? c[i].a : c[i].b;
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "section", names[c[i].section]);
		dlt_json_kv_string(j, "key", it->key);
		dlt_json_kv_string(j, "what_changed",
				   dlt_envdiff_what(&c[i], what, sizeof(what)));
		dlt_envdiff_json_side(j, "a", c[i].a);
		dlt_envdiff_json_side(j, "b", c[i].b);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
}

struct dlt_pair {
	const struct dlt_conv_entry *a, *b;
	struct dlt_conv_choice ca, cb;
	bool changed;
	const char *metric; /* "mean_call_us", "selection_time_ms", NULL */
	double ta, tb;	    /* in the metric's unit */
};

/* Host call times when both runs executed, else the times the selections
 * measured: never one of each. */
static void dlt_pair_times(struct dlt_pair *p)
{
	p->metric = NULL;
	if (p->ca.mean_us >= 0 && p->cb.mean_us >= 0) {
		p->metric = "mean_call_us";
		p->ta = p->ca.mean_us;
		p->tb = p->cb.mean_us;
	} else if (p->ca.select_ms >= 0 && p->cb.select_ms >= 0) {
		p->metric = "selection_time_ms";
		p->ta = p->ca.select_ms;
		p->tb = p->cb.select_ms;
	}
}

static double dlt_slowdown(const struct dlt_pair *p)
{
	if (p->metric == NULL)
		return -1e300;
	/* Relative, so that microseconds and milliseconds compare. */
	return p->ta > 0 ? p->tb / p->ta : (p->tb > 0 ? 1e300 : 1.0);
}

static int dlt_pair_cmp(const void *x, const void *y)
{
	const struct dlt_pair *a = x, *b = y;
	if (a->changed != b->changed)
		return a->changed ? -1 : 1;
	double sa = dlt_slowdown(a), sb = dlt_slowdown(b);
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->a->problem != b->a->problem)
		return a->a->problem < b->a->problem ? -1 : 1;
	return a->a->dir - b->a->dir;
}

static void dlt_text_choice(FILE *out, const char *side,
			    const struct dlt_conv_entry *e,
			    const struct dlt_conv_choice *c)
{
	char buf[256];
	fprintf(out, "    %s: %-40s", side,
		dlt_conv_choice_str(e, c, buf, sizeof(buf)));
	if (c->executed)
		fprintf(out, " %" PRIu64 " call%s", c->count,
			c->count == 1 ? "" : "s");
	if (c->executed && strchr(c->executed_set, ',') != NULL)
		fprintf(out, " (all run: %s)", c->executed_set);
	else if (c->known && !c->executed)
		fputs(" (selected, not executed)", out);
	if (c->mean_us >= 0)
		fprintf(out, ", mean %.1f us", c->mean_us);
	if (c->select_ms >= 0)
		fprintf(out, ", selection measured %.3f ms", c->select_ms);
	fputc('\n', out);
}

static void dlt_text_problem(FILE *out, const struct dlt_conv_entry *e)
{
	char buf[512];
	fprintf(out, "  conv %s %s  [problem %016" PRIx64 "]\n",
		dlt_conv_dir_name(e->dir),
		e->has_shape ? dlt_conv_problem_str(&e->shape, buf, sizeof(buf))
			     : "(shape not recorded)",
		e->problem);
}

/* What differs between two choices that are not the same: whether there
 * is one, whether it ran, the one that ran most (or was picked), or only
 * the set of what ran. */
static const char *dlt_what_changed(const struct dlt_pair *p, char *buf,
				    size_t cap)
{
	const struct dlt_conv_choice *a = &p->ca, *b = &p->cb;
	const char *what =
		a->backend || b->backend ? "engines (and knobs)" : "algorithms";
	if (a->known != b->known)
		snprintf(buf, cap, "only %s has a choice",
			 a->known ? "A" : "B");
	else if (a->executed != b->executed)
		snprintf(buf, cap, "%s ran it, %s only selected it",
			 a->executed ? "A" : "B", a->executed ? "B" : "A");
	else if (!a->executed && (a->backend != b->backend || a->id != b->id ||
				  strcmp(a->knobs, b->knobs) != 0))
		snprintf(buf, cap, "the selection's pick");
	else if (a->backend != b->backend || a->id != b->id ||
		 strcmp(a->knobs, b->knobs) != 0)
		snprintf(buf, cap, "the one run most; all run: A %s, B %s",
			 a->executed_set, b->executed_set);
	else
		snprintf(buf, cap, "the set of %s run: A %s, B %s", what,
			 a->executed_set, b->executed_set);
	return buf;
}

static void dlt_text_pair(FILE *out, const struct dlt_pair *p)
{
	dlt_text_problem(out, p->a->has_shape ? p->a : p->b);
	dlt_text_choice(out, "A", p->a, &p->ca);
	dlt_text_choice(out, "B", p->b, &p->cb);
	if (p->changed) {
		char what[640];
		fprintf(out, "    changed: %s\n",
			dlt_what_changed(p, what, sizeof(what)));
	}
	if (p->metric) {
		bool us = strcmp(p->metric, "mean_call_us") == 0;
		fprintf(out, "    B-A: %+.3f %s", p->tb - p->ta,
			us ? "us per call" : "ms (selection)");
		if (p->ta > 0)
			fprintf(out, " (%.2fx)", p->tb / p->ta);
		fputc('\n', out);
	}
}

static void dlt_json_side(struct dlt_json *j, const char *key,
			  const struct dlt_conv_entry *e,
			  const struct dlt_conv_choice *c)
{
	dlt_json_key(j, key);
	dlt_json_conv_choice(j, e, c);
}

static void dlt_json_pair(struct dlt_json *j, const struct dlt_pair *p)
{
	dlt_json_object_begin(j);
	dlt_json_conv_problem(j, p->a->has_shape ? p->a : p->b);
	dlt_json_side(j, "a", p->a, &p->ca);
	dlt_json_side(j, "b", p->b, &p->cb);
	if (p->changed) {
		char what[640];
		dlt_json_kv_string(j, "what_changed",
				   dlt_what_changed(p, what, sizeof(what)));
	}
	dlt_json_kv_string(j, "time_metric", p->metric);
	if (p->metric) {
		dlt_json_kv_double(j, "time_a", p->ta);
		dlt_json_kv_double(j, "time_b", p->tb);
		dlt_json_kv_double(j, "difference", p->tb - p->ta);
		if (p->ta > 0)
			dlt_json_kv_double(j, "ratio", p->tb / p->ta);
		else
			dlt_json_kv_null(j, "ratio");
	}
	dlt_json_object_end(j);
}

static void dlt_json_run(struct dlt_json *j, const char *key,
			 const struct dlt_run *r)
{
	char v[32];
	dlt_json_key(j, key);
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "input", r->arg);
	dlt_json_kv_string(j, "host", r->host);
	dlt_json_kv_uint(j, "processes", r->nprocs);
	dlt_json_kv_string(
		j, "cudnn",
		r->conv.cudnn_version
			? dlt_cudnn_version_str(r->conv.cudnn_version, v,
						sizeof(v))
			: NULL);
	dlt_json_kv_uint(j, "problems", r->conv.n);
	dlt_json_object_end(j);
}

static void dlt_json_only(struct dlt_json *j, const char *key,
			  const struct dlt_run *r, const struct dlt_run *other)
{
	dlt_json_key(j, key);
	dlt_json_array_begin(j);
	for (size_t i = 0; i < r->conv.n; i++) {
		const struct dlt_conv_entry *e = &r->conv.e[i];
		if (dlt_conv_find(&other->conv, e->problem, e->dir))
			continue;
		struct dlt_conv_choice c;
		dlt_conv_choice(e, &c);
		dlt_json_object_begin(j);
		dlt_json_conv_problem(j, e);
		dlt_json_key(j, "choice");
		dlt_json_conv_choice(j, e, &c);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
}

static size_t dlt_text_only(FILE *out, const char *title,
			    const struct dlt_run *r,
			    const struct dlt_run *other)
{
	size_t n = 0;
	for (size_t i = 0; i < r->conv.n; i++)
		n += dlt_conv_find(&other->conv, r->conv.e[i].problem,
				   r->conv.e[i].dir) == NULL;
	fprintf(out, "\n%s (%zu):\n", title, n);
	for (size_t i = 0; i < r->conv.n; i++) {
		const struct dlt_conv_entry *e = &r->conv.e[i];
		if (dlt_conv_find(&other->conv, e->problem, e->dir))
			continue;
		struct dlt_conv_choice c;
		dlt_conv_choice(e, &c);
		dlt_text_problem(out, e);
		dlt_text_choice(out, "choice", e, &c);
	}
	return n;
}

/* The run's cuDNN: what its convolutions ran with, else the version its
 * library said (a run that only loaded it). */
static void dlt_envdiff_cudnn(const struct dlt_run *r, char *buf, size_t cap)
{
	const struct dlt_envp_item *it =
		r->env ? dlt_envprof_get(r->env, DLT_ENVP_GPU_LIB, "libcudnn")
		       : NULL;
	if (r->conv.cudnn_version)
		dlt_cudnn_version_str(r->conv.cudnn_version, buf, cap);
	else
		snprintf(buf, cap, "%s", it ? it->value : "?");
}

static int dlt_diff_main(int argc, char **argv, FILE *json_out);

int dlt_cmd_diff(int argc, char **argv)
{
	return dlt_diff_main(argc, argv, NULL);
}

int dlt_diff_json(FILE *out, int argc, char **argv)
{
	return dlt_diff_main(argc, argv, out);
}

/* json_out: the JSON document goes there, whatever the options say. */
static int dlt_diff_main(int argc, char **argv, FILE *json_out)
{
	bool json = json_out != NULL;
	const char *run_a = NULL, *run_b = NULL, *host_a = NULL, *host_b = NULL;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL},
					    {"--run-a", NULL, &run_a},
					    {"--run-b", NULL, &run_b},
					    {"--host-a", NULL, &host_a},
					    {"--host-b", NULL, &host_b}};
	int npaths;
	int rc = dlt_cmd_args("diff", dlt_diff_usage, argc, argv, opts, 5,
			      &npaths);
	if (rc >= 0)
		return rc;
	if (npaths != 2) {
		fprintf(stderr,
			"dltrace-analyze diff: two runs needed (A and B), "
			"%d given\n",
			npaths);
		fputs(dlt_diff_usage, stderr);
		return DLT_EXIT_USAGE;
	}
	struct dlt_job_opts oa = {0}, ob = {0};
	if ((rc = dlt_cmd_run_id("diff", run_a, &oa)) >= 0 ||
	    (rc = dlt_cmd_run_id("diff", run_b, &ob)) >= 0)
		return rc;
	struct dlt_run a, b;
	int la = dlt_load_run(&a, argv[0], host_a, &oa);
	int lb = dlt_load_run(&b, argv[1], host_b, &ob);
	if (la != 0 || lb != 0) {
		const char *h = la != 0 ? host_a : host_b;
		fprintf(stderr,
			"dltrace-analyze diff: no usable trace in %s%s%s\n",
			la != 0 ? argv[0] : argv[1], h ? " of host " : "",
			h ? h : "");
		dlt_conv_free(&a.conv);
		dlt_conv_free(&b.conv);
		dlt_arena_free(a.arena);
		dlt_arena_free(b.arena);
		return DLT_EXIT_USAGE;
	}
	struct dlt_envdiff_change *envc;
	size_t nenv = dlt_envdiff_changes(a.env, b.env, &envc);
	struct dlt_pair *pairs =
		dlt_xcalloc(a.conv.n ? a.conv.n : 1, sizeof(*pairs));
	size_t np = 0, nchanged = 0;
	for (size_t i = 0; i < a.conv.n; i++) {
		const struct dlt_conv_entry *ea = &a.conv.e[i];
		const struct dlt_conv_entry *eb =
			dlt_conv_find(&b.conv, ea->problem, ea->dir);
		if (eb == NULL)
			continue;
		struct dlt_pair *p = &pairs[np++];
		p->a = ea;
		p->b = eb;
		dlt_conv_choice(ea, &p->ca);
		dlt_conv_choice(eb, &p->cb);
		p->changed = !dlt_conv_choice_same(&p->ca, &p->cb);
		nchanged += p->changed;
		dlt_pair_times(p);
	}
	qsort(pairs, np, sizeof(*pairs), dlt_pair_cmp);
	FILE *out = json_out ? json_out : stdout;
	if (json) {
		struct dlt_json j;
		dlt_json_init(&j, out, json_out == NULL);
		dlt_json_object_begin(&j);
		dlt_json_run(&j, "a", &a);
		dlt_json_run(&j, "b", &b);
		dlt_envdiff_json(&j, envc, nenv);
		dlt_json_key(&j, "changes");
		dlt_json_array_begin(&j);
		for (size_t i = 0; i < np; i++)
			if (pairs[i].changed)
				dlt_json_pair(&j, &pairs[i]);
		dlt_json_array_end(&j);
		dlt_json_key(&j, "unchanged");
		dlt_json_array_begin(&j);
		for (size_t i = 0; i < np; i++)
			if (!pairs[i].changed)
				dlt_json_pair(&j, &pairs[i]);
		dlt_json_array_end(&j);
		dlt_json_only(&j, "only_a", &a, &b);
		dlt_json_only(&j, "only_b", &b, &a);
		dlt_json_object_end(&j);
		if (dlt_json_finish(&j) != 0 && !ferror(out))
			fputs("dltrace-analyze: internal error: malformed JSON "
			      "output\n",
			      stderr);
	} else {
		char va[32], vb[32];
		dlt_envdiff_cudnn(&a, va, sizeof(va));
		dlt_envdiff_cudnn(&b, vb, sizeof(vb));
		printf("A: ");
		dlt_fput_text(stdout, a.arg, "");
		printf(" (%zu process%s, cuDNN %s, %zu problems)\nB: ",
		       a.nprocs, a.nprocs == 1 ? "" : "es", va, a.conv.n);
		dlt_fput_text(stdout, b.arg, "");
		printf(" (%zu process%s, cuDNN %s, %zu problems)\n", b.nprocs,
		       b.nprocs == 1 ? "" : "es", vb, b.conv.n);
		if (a.host || b.host)
			printf("hosts: A %s, B %s\n", a.host ? a.host : "all",
			       b.host ? b.host : "all");
		dlt_envdiff_text(stdout, envc, nenv);
		printf("\nconvolutions: choice changed (%zu):\n", nchanged);
		for (size_t i = 0; i < np; i++)
			if (pairs[i].changed)
				dlt_text_pair(stdout, &pairs[i]);
		printf("\nsame choice (%zu):\n", np - nchanged);
		for (size_t i = 0; i < np; i++)
			if (!pairs[i].changed)
				dlt_text_pair(stdout, &pairs[i]);
		dlt_text_only(stdout, "only in A", &a, &b);
		dlt_text_only(stdout, "only in B", &b, &a);
	}
	free(pairs);
	free(envc);
	dlt_conv_free(&a.conv);
	dlt_conv_free(&b.conv);
	dlt_arena_free(a.arena);
	dlt_arena_free(b.arena);
	return DLT_EXIT_OK;
}
