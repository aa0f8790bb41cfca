/* "summary": who ran, how, and how it ended. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "check.h"
#include "gpu.h"
#include "report.h"
#include "commands.h"
#include "model.h"
#include "ranges.h"
#include "units.h"
#include "reaps.h"
#include "status.h"
#include "runs.h"
#include "traceset.h"

const char dlt_summary_usage[] =
	"usage: dltrace-analyze summary [--run ID] PATH...\n"
	"\n"
	"One block per traced process (process image), in start order: pid,\n"
	"parent, rank, host, program, command line, start time (UTC), how it\n"
	"ended, record count, libraries loaded and failed, the GPU calls per\n"
	"API (the whole run's: calls a bounded trace summed up per second\n"
	"count too; median and max duration), the tracer's notes, and which\n"
	"other trace it was forked or exec'ed from.  A tree of the\n"
	"processes follows, one per run of the dltrace launcher when the\n"
	"inputs hold several (a directory used more than once).\n"
	"\n"
	"  --run ID   only the traces of that run (its identity as shown)\n"
	"\n"
	"PATH is a trace file or a directory of *.dltrace files.  Damage in a\n"
	"trace and inputs that cannot be read are reported on stderr.\n"
	"\n"
	"exit status: 0, or 2 for bad arguments or when no input could be\n"
	"read at all.\n";

static void dlt_put_argv(FILE *out, const struct dlt_process *p)
{
	if (p->argc == 0) {
		fputs("(not recorded)", out);
		return;
	}
	for (uint32_t i = 0; i < p->argc; i++) {
		if (i)
			fputc(' ', out);
		if (p->argv[i])
			dlt_fput_shell_word(out, p->argv[i]);
		else
			fputs("<lost>", out);
	}
	if (p->argv_more)
		fprintf(out, " … (%" PRIu32 " more argument%s not recorded)",
			p->argv_more, p->argv_more == 1 ? "" : "s");
	else if (p->argv_cut)
		fputs("  (long arguments were cut)", out);
}

/* The name a person knows the process by. */
static const char *dlt_proc_name(const struct dlt_process *p)
{
	if (p->exe)
		return dlt_basename(p->exe);
	if (p->argc > 0 && p->argv[0])
		return dlt_basename(p->argv[0]);
	return NULL;
}

static void dlt_put_parent(FILE *out, const struct dlt_set *s,
			   const struct dlt_process *p)
{
	long up = dlt_set_parent(s, p);
	const struct dlt_process *parent = up < 0 ? NULL : s->procs[up];
	switch (p->hdr.parent_kind) {
	case DLT_PARENT_NONE:
		fputs("none (started by a program that was not traced)", out);
		return;
	case DLT_PARENT_FORK:
		fputs("forked from ", out);
		break;
	case DLT_PARENT_EXEC:
		fputs("exec'ed by the previous image ", out);
		break;
	default:
		fprintf(out, "unknown relation %" PRIu32 " to ",
			p->hdr.parent_kind);
	}
	if (parent) {
		fprintf(out, "pid %" PRIu32 " (", parent->hdr.pid);
		dlt_fput_text(out, parent->trace, "?");
		fputc(')', out);
	} else {
		fprintf(out,
			"trace 0x%016" PRIx64 ", which is not among the inputs",
			p->hdr.parent_trace_id);
	}
}

/* A forked child that left no trace of its own (reaps.h): what its
 * parent's reap of it says, after its pid. */
static void dlt_put_untraced(FILE *out, const struct dlt_set *s,
			     const struct dlt_reaps *rs,
			     const struct dlt_fork_rec *f)
{
	/* rs holds the parent's reaps, in its order: the first reap of the pid
	 * after the fork. */
	size_t first = 0;
	for (size_t i = dlt_reaps_first(rs, f->pid); i;
	     i = dlt_reaps_next(rs, i))
		if (rs->r[i - 1].ts >= f->ts && (first == 0 || i < first))
			first = i;
	const struct dlt_reap_seen *reap = first ? &rs->r[first - 1] : NULL;
	if (reap && !dlt_set_has_reaped(s, reap)) {
		struct dlt_end e;
		char how[1024];
		fputs(" (", out);
		dlt_fput_text(
			out, dlt_reap_untraced(reap, &e, how, sizeof(how)), "");
		fputc(')', out);
	}
}

/* The GPU libraries' versions, each family and version once: "cudnn
 * 9.19.0 (libcudnn.so.9)". */
static void dlt_put_versions(FILE *out, const struct dlt_process *p)
{
	size_t shown = 0;
	for (size_t i = 0; i < p->nversions; i++) {
		const struct dlt_reported_version *v = &p->versions[i];
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = p->versions[k].family == v->family &&
			       p->versions[k].version == v->version;
		char ver[64];
		if (seen || !dlt_family_version_str(v->family, v->version, ver,
						    sizeof(ver))[0])
			continue;
		fputs(shown++ ? ", " : "\n  versions  ", out);
		fprintf(out, "%s %s (", dlt_family_name((int)v->family), ver);
		dlt_fput_text(out, dlt_basename(v->path ? v->path : "?"), "");
		fputc(')', out);
	}
}

/* What the GPU libraries ran on (SYSTEM, RUNTIME_VERSION records):
 * "Debian GNU/Linux 12 (bookworm), kernel 6.1.0, glibc 2.36, python
 * 3.11.2, torch 2.4.1". */
static void dlt_put_system(FILE *out, const struct dlt_process *p)
{
	const struct dlt_sysinfo *y = &p->sys;
	const char *const part[][2] = {{"", y->os},
				       {"kernel ", y->kernel},
				       {"glibc ", y->glibc},
				       {"python ", y->python},
				       {"torch ", y->torch}};
	size_t shown = 0;
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		if (part[i][1] == NULL)
			continue;
		fputs(shown++ ? ", " : "\n  system    ", out);
		fputs(part[i][0], out);
		dlt_fput_text(out, part[i][1], "");
	}
}

/* The GPU calls of each process, gathered in the set's one pass over its
 * traces (the rest of a GPU aggregate is dropped as each trace ends). */
struct dlt_sum_calls {
	const struct dlt_process *p;
	struct dlt_gpu_calls c;
};
struct dlt_sum_gpu {
	struct dlt_gpu g; /* of the trace being read */
	struct dlt_sum_calls *v;
	size_t n, cap;
};

static struct dlt_load_hook dlt_sum_begin(void *ctx)
{
	struct dlt_sum_gpu *sg = ctx;
	dlt_gpu_init(&sg->g);
	return (struct dlt_load_hook){dlt_gpu_rec, &sg->g};
}

static void dlt_sum_end(void *ctx, const struct dlt_process *p)
{
	struct dlt_sum_gpu *sg = ctx;
	dlt_gpu_finish(&sg->g);
	if (sg->g.run.napi) {
		sg->v = dlt_util_grow(sg->v, &sg->cap, sg->n, sizeof(*sg->v));
		sg->v[sg->n].p = p;
		dlt_gpu_calls_take(&sg->g, &sg->v[sg->n].c);
		sg->n++;
	}
	dlt_gpu_free(&sg->g);
}

static int dlt_sum_calls_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct dlt_sum_calls *)a)->p;
	uintptr_t y = (uintptr_t)((const struct dlt_sum_calls *)b)->p;
	return (x > y) - (x < y);
}

static const struct dlt_gpu_calls *
dlt_sum_calls_of(const struct dlt_sum_gpu *sg, const struct dlt_process *p)
{
	struct dlt_sum_calls key = {.p = p};
	const struct dlt_sum_calls *k =
		sg->n ? bsearch(&key, sg->v, sg->n, sizeof(*sg->v),
				dlt_sum_calls_cmp)
		      : NULL;
	return k ? &k->c : NULL;
}

/* APIs listed per process; the rest are counted (check --json has all). */
#define DLT_SUM_APIS 20

/* "cudaLaunchKernel 3,000,000 calls, 0 errors, median 4.1 µs, max 2.3 ms":
 * the whole run's, aggregated calls included. */
static void dlt_put_call_stats(FILE *out, const struct dlt_call_stats *st)
{
	const struct dlt_api_desc *a = dlt_api_by_id(st->api);
	char n[32], e[32], med[32], max[32];
	if (a)
		fputs(a->name, out);
	else
		fprintf(out, "api#%u", (unsigned)st->api);
	fprintf(out, " %s call%s, %s error%s",
		dlt_ranges_num((int64_t)st->calls, n, sizeof(n)),
		st->calls == 1 ? "" : "s",
		dlt_ranges_num((int64_t)st->errors, e, sizeof(e)),
		st->errors == 1 ? "" : "s");
	if (st->timed)
		fprintf(out, ", median %s, max %s",
			dlt_units_dur(dlt_call_stats_quantile(st, 0.5), med,
				      sizeof(med)),
			dlt_units_dur(st->max_ns, max, sizeof(max)));
}

/* The GPU calls block: one line per API, most calls first, then where
 * the individual calls begin when a bounded trace summed up the earlier
 * ones; and what the trace had no room for. */
static void dlt_put_gpu_calls(FILE *out, const struct dlt_process *p,
			      const struct dlt_gpu_calls *c)
{
	char n[32], d[32];
	const char *label = "\n  GPU calls ", *more = "\n            ";
	for (size_t i = 0; c && i < c->napi && i < DLT_SUM_APIS; i++) {
		fputs(i ? more : label, out);
		dlt_put_call_stats(out, &c->api[i]);
	}
	if (c && c->napi > DLT_SUM_APIS)
		fprintf(out, "%s… and %zu more APIs (check --json lists all)",
			more, c->napi - DLT_SUM_APIS);
	if (c && c->individual_from) {
		uint64_t start = p->hdr.start_monotonic_ns;
		uint64_t at = c->individual_from > start
				      ? c->individual_from - start
				      : 0;
		fprintf(out,
			"%sindividual calls from +%s (earlier ones as "
			"per-second aggregates)",
			more, dlt_units_dur(at, d, sizeof(d)));
	}
	if (p->hdr.lost_calls == 0 && p->hdr.lost_records == 0)
		return;
	fputs("\n  lost      not recorded: ", out);
	if (p->hdr.lost_calls)
		fprintf(out, "%s call%s (the ring had no free chunk)%s",
			dlt_ranges_num(p->hdr.lost_calls, n, sizeof(n)),
			p->hdr.lost_calls == 1 ? "" : "s",
			p->hdr.lost_records ? ", " : "");
	if (p->hdr.lost_records)
		fprintf(out, "%s other record%s (the size limit was reached)",
			dlt_ranges_num(p->hdr.lost_records, n, sizeof(n)),
			p->hdr.lost_records == 1 ? "" : "s");
}

static void dlt_put_process(FILE *out, const struct dlt_set *s,
			    const struct dlt_process *p,
			    const struct dlt_gpu_calls *calls)
{
	char buf[4096];
	fprintf(out, "pid %" PRIu32 "  ppid %" PRIu32, p->hdr.pid, p->hdr.ppid);
	if (p->hdr.run_id)
		fprintf(out, "  run %016" PRIx64, p->hdr.run_id);
	if (p->rank >= 0) {
		fprintf(out, "  rank %" PRId32, p->rank);
		if (p->world_size > 0)
			fprintf(out, " of %" PRId32, p->world_size);
		if (p->rank_source)
			fprintf(out, " (from %s)", p->rank_source);
	}
	if (p->hdr.exec_seq)
		fprintf(out, "  image %" PRIu32, p->hdr.exec_seq);
	fputs("  host ", out);
	dlt_fput_text(out, p->host, "?");
	fputs("\n  trace     ", out);
	dlt_fput_text(out, p->trace, "?");
	fputs("\n  exe       ", out);
	dlt_fput_text(out, p->exe, "(not recorded)");
	fputs("\n  argv      ", out);
	dlt_put_argv(out, p);
	if (p->cwd) {
		fputs("\n  cwd       ", out);
		dlt_fput_text(out, p->cwd, "");
	}
	/* Wall-clock time in the local zone (TZ), as people read a clock;
	 * check --json keeps the UTC form ("started"). */
	dlt_units_wall(p->hdr.start_realtime_ns, buf, sizeof(buf));
	fprintf(out, "\n  started   %s", buf);
	dlt_end_describe(&p->end, buf, sizeof(buf));
	fputs("\n  ended     ", out);
	dlt_fput_text(out, buf, "");
	for (size_t i = 0; i < p->nexec_fails; i++) {
		const struct dlt_exec_fail *f = &p->exec_fails[i];
		fputs("\n  exec      ", out);
		dlt_fput_text(out, f->path, "(program not recorded)");
		fprintf(out, " failed: %s", strerror(f->err));
	}
	fputs("\n  parent    ", out);
	dlt_put_parent(out, s, p);
	if (p->nforks) {
		struct dlt_reaps rs = {0};
		dlt_reaps_add(&rs, p);
		fputs("\n  forked    ", out);
		for (size_t i = 0; i < p->nforks; i++) {
			fprintf(out, "%s%" PRIu32, i ? ", " : "pid ",
				p->forks[i].pid);
			dlt_put_untraced(out, s, &rs, &p->forks[i]);
		}
		dlt_reaps_free(&rs);
	}
	/* The watchdog's, the launcher's or the reaping parent's rusage. */
	if (p->rss_peak_kb)
		fprintf(out, "\n  peak RSS  %s",
			dlt_units_kib(p->rss_peak_kb, buf, sizeof(buf)));
	fprintf(out, "\n  records   %" PRIu64, p->records);
	size_t failed, probes;
	dlt_lib_fail_counts(p, &failed, &probes);
	fprintf(out, "\n  libraries %zu loaded, %zu failed", p->nlibs_loaded,
		failed);
	if (probes)
		fprintf(out,
			", %zu probe%s of libraries loaded under another "
			"name",
			probes, probes == 1 ? "" : "s");
	dlt_put_versions(out, p);
	dlt_put_system(out, p);
	dlt_put_gpu_calls(out, p, calls);
	for (size_t i = 0; i < p->nnotes; i++) {
		fprintf(out, "\n  note      [%s] ",
			dlt_note_level_name(p->notes[i].level));
		dlt_fput_text(out, p->notes[i].text, "(text lost)");
	}
	if (p->nproblems)
		fprintf(out,
			"\n  damage    %zu problem%s reading the trace "
			"(on stderr)",
			p->nproblems, p->nproblems == 1 ? "" : "s");
	fputc('\n', out);
}

/* The tree by parent trace id, as first-child/next-sibling lists built in
 * start order, so that children are listed in the order they started. */
struct dlt_tree {
	long *first;
	long *last;
	long *next;
	bool *shown;
};

static void dlt_tree_node(FILE *out, const struct dlt_set *s,
			  struct dlt_tree *tr, long i, int depth)
{
	const struct dlt_process *p = s->procs[i];
	char how[512];
	tr->shown[i] = true;
	fprintf(out, "%*s", 2 + 2 * depth, "");
	if (depth > 0)
		fprintf(out, "%s ", dlt_parent_kind_name(p->hdr.parent_kind));
	fprintf(out, "pid %" PRIu32 " ", p->hdr.pid);
	dlt_fput_text(out, dlt_proc_name(p), "?");
	if (p->rank >= 0)
		fprintf(out, " rank %" PRId32, p->rank);
	fputs(": ", out);
	dlt_fput_text(out, dlt_end_describe(&p->end, how, sizeof(how)), "");
	fputc('\n', out);
	for (long k = tr->first[i]; k >= 0; k = tr->next[k])
		if (!tr->shown[k])
			dlt_tree_node(out, s, tr, k, depth + 1);
}

static void dlt_put_tree(FILE *out, const struct dlt_set *s)
{
	size_t n = s->nprocs;
	struct dlt_tree tr = {
		dlt_xcalloc(n, sizeof(long)), dlt_xcalloc(n, sizeof(long)),
		dlt_xcalloc(n, sizeof(long)), dlt_xcalloc(n, sizeof(bool))};
	long *parent = dlt_xcalloc(n, sizeof(long));
	for (size_t i = 0; i < n; i++)
		tr.first[i] = tr.last[i] = tr.next[i] = -1;
	for (size_t i = 0; i < n; i++) {
		long up = parent[i] = dlt_set_parent(s, s->procs[i]);
		if (up < 0)
			continue;
		if (tr.last[up] < 0)
			tr.first[up] = (long)i;
		else
			tr.next[tr.last[up]] = (long)i;
		tr.last[up] = (long)i;
	}
	/* One tree per launcher run, in the order the runs started; the
	 * traces of a run share its identity, so a tree never spans two. */
	uint64_t *runs = dlt_xcalloc(n ? n : 1, sizeof(*runs));
	size_t nruns = 0;
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		for (size_t r = 0; r < nruns && !known; r++)
			known = runs[r] == s->procs[i]->hdr.run_id;
		if (!known)
			runs[nruns++] = s->procs[i]->hdr.run_id;
	}
	for (size_t r = 0; r < nruns; r++) {
		if (nruns == 1) {
			fputs("process tree (by trace parent):\n", out);
		} else if (runs[r] == 0) {
			fputs("process tree of the traces made without the "
			      "launcher:\n",
			      out);
		} else {
			char when[64] = "?";
			for (size_t i = 0; i < n; i++)
				if (s->procs[i]->hdr.run_id == runs[r]) {
					dlt_units_wall(
						s->procs[i]
							->hdr.start_realtime_ns,
						when, sizeof(when));
					break;
				}
			fprintf(out,
				"%sprocess tree of run %016" PRIx64
				" (started %s):\n",
				r ? "\n" : "", runs[r], when);
		}
		for (size_t i = 0; i < n; i++)
			if (parent[i] < 0 && s->procs[i]->hdr.run_id == runs[r])
				dlt_tree_node(out, s, &tr, (long)i, 0);
	}
	free(runs);
	/* Only a cycle of parent ids (damaged headers) is left. */
	for (size_t i = 0; i < n; i++)
		if (!tr.shown[i])
			dlt_tree_node(out, s, &tr, (long)i, 0);
	free(parent);
	free(tr.first);
	free(tr.last);
	free(tr.next);
	free(tr.shown);
}

/* How many runs the set holds: launcher runs that overlap in time (the
 * ranks of one job, each under its own dltrace) are one (runs.h). */
static size_t dlt_set_runs(const struct dlt_set *s)
{
	size_t n = s->nprocs;
	struct dlt_run_trace *t = dlt_xcalloc(n ? n : 1, sizeof(*t));
	uint32_t *group = dlt_xcalloc(n ? n : 1, sizeof(*group));
	for (size_t i = 0; i < n; i++) {
		const struct dlt_process *p = s->procs[i];
		/* The launcher's record of its command's end. */
		bool reaped =
			p->end.how == DLT_END_REAPED && p->end.reaped_by == 0;
		t[i] = (struct dlt_run_trace){
			p->hdr.run_id, p->hdr.start_realtime_ns,
			reaped ? p->hdr.start_realtime_ns +
					 (p->end.ts - p->hdr.start_monotonic_ns)
			       : 0};
	}
	size_t runs = dlt_runs_group(t, n, group);
	free(t);
	free(group);
	return runs;
}

int dlt_cmd_summary(int argc, char **argv)
{
	int npaths;
	const char *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--run", NULL, &run}};
	int rc = dlt_cmd_args("summary", dlt_summary_usage, argc, argv, opts, 1,
			      &npaths);
	if (rc >= 0)
		return rc;
	struct dlt_job j;
	rc = dlt_cmd_job("summary", run, NULL, npaths, argv, &j);
	if (rc >= 0)
		return rc;
	struct dlt_set s;
	struct dlt_sum_gpu sg = {0};
	const struct dlt_set_hooks hooks = {dlt_sum_begin, dlt_sum_end, &sg};
	dlt_set_read_hooked(&s, &j, stderr, &hooks);
	dlt_job_close(&j);
	if (sg.n > 1)
		qsort(sg.v, sg.n, sizeof(*sg.v), dlt_sum_calls_cmp);
	size_t nruns = dlt_set_runs(&s);
	if (nruns > 1)
		printf("These traces come from %zu runs (a directory used "
		       "more than once); each has its own tree below, and\n"
		       "dltrace-analyze summary --run ID PATH shows one.\n\n",
		       nruns);
	for (size_t i = 0; i < s.nprocs; i++) {
		if (i)
			fputc('\n', stdout);
		dlt_put_process(stdout, &s, s.procs[i],
				dlt_sum_calls_of(&sg, s.procs[i]));
	}
	fputc('\n', stdout);
	dlt_put_tree(stdout, &s);
	for (size_t i = 0; i < sg.n; i++)
		dlt_gpu_calls_free(&sg.v[i].c);
	free(sg.v);
	dlt_set_free(&s);
	return DLT_EXIT_OK;
}
